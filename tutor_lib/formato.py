"""Cómo se escriben los números que lee quien estudia: una sola convención en todo el curso.

La convención está en course/GLOSARIO.md («Cómo se escriben los números»):

- punto decimal, como en Python: ``0.694``, ``2.5e-5``;
- los enteros de cinco cifras o más, en grupos de tres separados por un espacio
  (``66 955 010``); los de cuatro, juntos (``2048``); nunca coma ni punto de miles;
- porcentaje con un espacio antes del signo: ``85.9 %``;
- memoria en unidades binarias (``MiB``, ``GiB``); los GB de las etiquetas de las
  GPU solo aparecen junto a los GiB, para compararlos.

Lo usan las lecciones (``from tutor_lib.formato import entero, porcentaje, memoria``),
el calculador de VRAM, el configurador, el comando ``tutor`` y la prueba que revisa las
salidas de las lecciones (:func:`infracciones`).
"""

from __future__ import annotations

import math
import numbers
import re

__all__ = ["entero", "numero", "cientifico", "porcentaje", "memoria", "infracciones"]

#: Separador de miles (un espacio normal: se copia y se busca como se ve).
SEPARADOR_DE_MILES = " "
KIB, MIB, GIB = 2**10, 2**20, 2**30


def _real(x, quien: str) -> float:
    """Un número de Python, de NumPy o un tensor de un solo elemento (``tensor(0.93)``), como float."""
    if not isinstance(x, numbers.Real) and hasattr(x, "item") and _un_elemento(x):
        x = x.item()
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"{quien} necesita un número; recibí {x!r} ({type(x).__name__}).")
    return float(x)


def _un_elemento(x) -> bool:
    """¿Un tensor de PyTorch o un arreglo de NumPy con un solo valor?"""
    n = x.numel() if hasattr(x, "numel") else getattr(x, "size", None)
    return n == 1


def _agrupar(cifras: str) -> str:
    """'66955010' → '66 955 010'; con cuatro cifras o menos no separa."""
    if len(cifras) <= 4:
        return cifras
    grupos = []
    while cifras:
        grupos.append(cifras[-3:])
        cifras = cifras[:-3]
    return SEPARADOR_DE_MILES.join(reversed(grupos))


def entero(n) -> str:
    """Un entero para leer: ``66955010`` → ``'66 955 010'``, ``2048`` → ``'2048'``, ``-12000`` → ``'-12 000'``.

    Se usa en todas las lecciones para contar parámetros, tokens y bytes.
    """
    x = _real(n, "entero")
    if not math.isfinite(x):
        return numero(x)
    if isinstance(n, numbers.Integral):
        valor = int(n)
    else:
        valor = round(x)
    signo = "-" if valor < 0 else ""
    return signo + _agrupar(str(abs(valor)))


def numero(x, decimales: int = 2) -> str:
    """Un real con ``decimales`` decimales y punto decimal: ``12345.678`` → ``'12 345.68'``.

    La parte entera se agrupa como en :func:`entero`. Se usa en las lecciones y en
    :func:`porcentaje` y :func:`memoria`.
    """
    valor = _real(x, "numero")
    if math.isnan(valor):
        return "NaN"
    if math.isinf(valor):
        return "inf" if valor > 0 else "-inf"
    texto = f"{abs(valor):.{decimales}f}"
    parte_entera, _, parte_decimal = texto.partition(".")
    signo = "-" if valor < 0 and float(texto) != 0 else ""
    return signo + _agrupar(parte_entera) + ("." + parte_decimal if parte_decimal else "")


def cientifico(x, decimales: int | None = None) -> str:
    """Un valor en notación científica como se escribe en el código: ``5e-05`` → ``'5e-5'``, ``2e-5`` con 1 decimal → ``'2.0e-5'``.

    Sin ``decimales``, las cifras justas hasta 7 significativas (``2.5e-5``, ``3e-4``); el exponente va sin ceros a la izquierda,
    como en ``TrainingArguments(learning_rate=2e-5)``. Se usa para tasas de aprendizaje en las
    lecciones 03 a 06, el configurador y el visualizador de warmup.
    """
    valor = _real(x, "cientifico")
    if not math.isfinite(valor):
        return numero(valor)
    if valor == 0:
        return numero(0, decimales or 0)  # «0.000», no «0.000e0»
    texto = f"{valor:.{decimales}e}" if decimales is not None else f"{valor:e}"
    mantisa, _, exponente = texto.partition("e")
    if decimales is None:
        mantisa = mantisa.rstrip("0").rstrip(".") if "." in mantisa else mantisa
    signo = "-" if exponente.startswith("-") else ""
    return f"{mantisa}e{signo}{int(exponente.lstrip('+-'))}"


def porcentaje(fraccion, decimales: int = 1) -> str:
    """Una fracción como porcentaje, con espacio antes del signo: ``0.859`` → ``'85.9 %'``.

    Se usa en las lecciones (exactitud, relleno, parámetros entrenables) y en el configurador.
    """
    return numero(100 * _real(fraccion, "porcentaje"), decimales) + " %"


def memoria(n_bytes, decimales: int = 1) -> str:
    """Bytes en la unidad binaria más cómoda: ``268_435_456`` → ``'256.0 MiB'``, ``3 * 2**30`` → ``'3.0 GiB'``.

    GiB desde 1 GiB; MiB desde 1 MiB; KiB desde 1 KiB; si no, bytes. Se usa en
    lessons/07_memoria_y_fine_tuning_completo y en el calculador de VRAM.
    """
    b = _real(n_bytes, "memoria")
    if not math.isfinite(b):
        return numero(b)
    for tamano, unidad in ((GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")):
        if abs(b) >= tamano:
            return f"{numero(b / tamano, decimales)} {unidad}"
    return f"{entero(b)} bytes"


# ------------------------------------------------------------------ revisión de textos

_REGLAS = (
    (re.compile(r"(?<![\w.,])\d+(?:,\d+)+(?![\w.,])"),
     "coma entre cifras (los miles van con espacio, 66 955 010; los decimales con punto, 0.694)"),
    (re.compile(r"(?<![\w.])\d{1,3}(?:\.\d{3}){2,}(?![\d.])"), "punto de miles (se escribe 66 955 010)"),
    (re.compile(r"\d%"), "porcentaje sin espacio (se escribe 85.9 %)"),
    (re.compile(r"(?<![\w.,-])1 (?!(?:más|menos|tras|pues|dos|tres|seis|mes|vs)\b)[a-záéíóúñ]{2,}s\b"),
     "plural después de 1 (se escribe «1 registro», o se cuenta con formato)"),
)
#: Reglas que valen fuera de los ``nombre=valor`` (lo que imprime Python de unos argumentos,
#: ``learning_rate=2e-05``, es la forma del código y se acepta como tal).
_REGLAS_FUERA_DE_ARGUMENTOS = (
    (re.compile(r"(?<![\w.])\d+\.\d{10,}"),
     "un float con todas sus cifras (redondéalo: formato.numero, formato.cientifico)"),
)
_ARGUMENTOS = re.compile(r"\w+=\S+")
#: Un mismo valor escrito de dos maneras en una línea («5e-05» junto a «2e-5», o junto a «0.0005»).
#: Python escribe el exponente con dos cifras como mínimo (``5e-05``, ``3.4e+38``); el curso, con las justas
#: (``5e-5``, ``formato.cientifico``): una línea con las dos formas mezcla convenciones.
_EXPONENTE_CON_CERO = re.compile(r"(?<![\w.])\d+(?:\.\d+)?e[+-]0\d\b")
_EXPONENTE_SIN_CERO = re.compile(r"(?<![\w.])\d+(?:\.\d+)?e[+-]?[1-9]\b")
#: Los pares ``'clave': valor`` de un dict o un JSON que se muestra tal cual (``log_history``): datos, no texto.
_PARES = re.compile(r"""['"][\w .-]+['"]: [^,}]+""")
#: Palabras del curso que en el texto siempre llevan tilde; sin ella solo aparecen como valor en el código
#: (``modo="rapido"``, ``--modo rapido``, ``TUTOR_MODO=rapido``), que :data:`_CODIGO` quita antes de buscarlas.
_SIN_TILDE = re.compile(
    r"(?<![\w/.\-])(?:rapido|clasificacion|validacion|evaluacion|configuracion|informacion|generacion|leccion|"
    r"seccion|funcion|atencion|regresion|epocas?|parametros?|metricas?|numeros?)(?![\w])", re.IGNORECASE)
_CODIGO = re.compile(r"`[^`]*`|\"[^\"]*\"|'[^']*'|--[\w-]+[ =]\S+|\w+=\S+")
#: «267.8 MB», «5 GB»: con espacio es una cantidad; pegado («A100 80GB») es el nombre de una GPU.
_UNIDAD_DECIMAL = re.compile(r"\d\s[KMGT]B\b")


def infracciones(texto: str) -> list[str]:
    """Lo que en ``texto`` no sigue la convención de números del curso, como ``'«2,048»: coma de miles…'``.

    Revisa una línea a la vez. Los MB/GB solo se admiten en una línea que también
    muestre MiB o GiB (la comparación con la etiqueta de una GPU). La usan las pruebas
    de las lecciones sobre lo que imprimen sus celdas.
    """
    encontradas = []
    for linea in str(texto).splitlines():
        for patron, motivo in _REGLAS:
            for m in patron.finditer(linea):
                encontradas.append(f"«{m.group(0)}»: {motivo}, en la línea «{linea.strip()[:120]}»")
        sin_argumentos = _PARES.sub(" ", _ARGUMENTOS.sub(" ", linea))
        for patron, motivo in _REGLAS_FUERA_DE_ARGUMENTOS:
            for m in patron.finditer(sin_argumentos):
                encontradas.append(f"«{m.group(0)}»: {motivo}, en la línea «{linea.strip()[:120]}»")
        cientificos = _EXPONENTE_CON_CERO.findall(sin_argumentos) + _EXPONENTE_SIN_CERO.findall(sin_argumentos)
        if _EXPONENTE_CON_CERO.search(sin_argumentos) and _EXPONENTE_SIN_CERO.search(sin_argumentos):
            encontradas.append(f"«{' / '.join(cientificos[:2])}»: dos maneras de escribir el exponente en una línea "
                               f"(una sola: formato.cientifico), en la línea «{linea.strip()[:120]}»")
        for m in _SIN_TILDE.finditer(_CODIGO.sub(" ", linea)):
            encontradas.append(f"«{m.group(0)}»: palabra sin su tilde (rápido, clasificación, época, parámetro...), "
                               f"en la línea «{linea.strip()[:120]}»")
        if "iB" not in linea:
            for m in _UNIDAD_DECIMAL.finditer(linea):
                encontradas.append(
                    f"«{m.group(0)}»: unidad decimal sin su equivalente binaria (se escribe MiB o GiB), "
                    f"en la línea «{linea.strip()[:120]}»"
                )
    return encontradas


# ------------------------------------------------------------------ texto para la terminal

#: Secuencias de escape completas (CSI, OSC, DCS/SOS/PM/APC y las de dos caracteres), en 7 y en 8 bits:
#: se quitan enteras para que no quede basura visible. Lo que sobre de una incompleta lo quita
#: :data:`_CONTROLES` (sin ESC ni CSI/OSC de 8 bits, una secuencia ya no hace nada).
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colores, mover el cursor, borrar la línea
    r"|\x1b\][^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)"  # OSC: título de la ventana, hipervínculos
    r"|\x1b[PX^_][^\x1b\x9c\n]*(?:\x1b\\|\x9c)"  # DCS, SOS, PM, APC
    r"|\x1b[ -/]*[0-~]"  # ESC + un carácter (ESC c reinicia la terminal, ESC 7/8 guardan el cursor)
    r"|\x9b[0-?]*[ -/]*[@-~]"  # CSI de 8 bits
    r"|[\x9d\x90\x98\x9e\x9f][^\x07\x1b\x9c\n]*(?:\x07|\x9c)"  # OSC, DCS, SOS, PM, APC de 8 bits
)
#: Caracteres de control que quedan: C0 salvo ``\n`` y ``\t`` (``\r`` y el retroceso reescriben la
#: línea), DEL, C1, y los que cambian la dirección del texto (U+202E da vuelta lo que sigue).
_CONTROLES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def sin_controles(texto) -> str:
    """``texto`` sin nada que una terminal interprete: quita secuencias ANSI y caracteres de control.

    Quita las secuencias de escape (colores, mover el cursor, títulos, ``ESC c``),
    los caracteres de control C0 salvo el salto de línea y el tabulador (``\\r``
    y el retroceso permitirían tapar «0 de 11» con «10 de 11»), DEL, C1 y los
    de dirección del texto (U+202E y compañía). Un sustituto suelto (un nombre
    de archivo que no es UTF-8) pasa a «�». Lo aplica ``tutor`` a todo lo que
    imprime (:mod:`tutor_lib.cli`): un mensaje que viene de un notebook no
    puede reescribir lo que ves en la pantalla.
    """
    texto = _ESCAPES.sub("", str(texto))
    texto = _CONTROLES.sub("", texto)
    return _SUSTITUTOS.sub("\ufffd", texto)


_SUSTITUTOS = re.compile("[\ud800-\udfff]")
