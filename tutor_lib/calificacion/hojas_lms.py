"""Las hojas de calificaciones que el instructor baja de Canvas o de Moodle: leerlas, reconocerlas, llenarlas.

Lo usa ``tutor exportar`` (:mod:`tutor_lib.calificacion.exportar`), que decide qué nota va en qué
fila; aquí solo se sabe cómo es cada hoja. Las dos, tal como las escriben los LMS:

* **Canvas** («Exportar todo el libro de calificaciones», ``lib/gradebook_exporter.rb`` de
  canvas-lms): encabezado ``Student``, ``ID``, ``SIS User ID``, ``SIS Login ID``
  (``Integration ID`` y ``Root Account`` si la institución los activa), ``Section``, columnas
  propias del curso y una columna por tarea titulada ``nombre (id)``; después, una fila opcional
  «Manual Posting»/«Muted» y la fila ``    Points Possible`` con el máximo de cada tarea
  (``(read only)`` en las columnas calculadas). Separa con ``,`` o con ``;`` y puede traer BOM;
  el importador de Canvas (``gradebook_importer.rb``) acepta ``,`` y ``;`` y la coma decimal, y
  reconoce al estudiante por ``ID`` (el user_id), luego ``SIS User ID`` y ``SIS Login ID``.
* **Moodle** («Descargar hoja de calificaciones», plugin ``assignfeedback_offline``):
  ``Identifier`` = ``Participant 123456`` (``Identificador`` = ``Participante123456`` en
  español), nombre, correo y demás campos de identidad, ``Status``, ``Grade``, ``Maximum Grade``
  (o ``Scale``), ``Grade can be changed``, ``Last modified (submission)``, ``Last modified
  (grade)`` y una columna por retroalimentación (``Feedback comments``). Los encabezados van en
  el idioma de quien la bajó y Moodle los busca en ese idioma al importarla, así que nunca se
  traducen. Los números los escribe ``format_float`` con el separador decimal del idioma.

Nada más cambia en la hoja: cada fila y cada columna quedan como venían, salvo las celdas de
nota (y de comentario en Moodle) que :func:`llenar` escribe. Ninguna celda que salga de aquí
empieza como fórmula (:func:`celda_segura`).
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from tutor_lib.calificacion.motor.calificador import celda_csv

# --- leer y escribir un CSV sin cambiar su forma -------------------------------------------------


@dataclass
class CSVLeido:
    """Las celdas de un CSV y su forma (separador, BOM, fin de línea), para escribirlo igual."""

    filas: list[list[str]]
    delimitador: str
    bom: bool
    fin_de_linea: str


def leer_csv(ruta: Path, que: str = "la hoja") -> CSVLeido:
    """Lee ``ruta`` (UTF-8, con o sin BOM; separada por ``,``, ``;`` o tabulador) sin perder su forma.

    Todas las filas no vacías deben tener las mismas celdas que el encabezado. Un archivo vacío,
    bytes que no son UTF-8, comillas sin cerrar o filas disparejas: ``ValueError`` en español que
    nombra ``que`` y la fila.
    """
    ruta = Path(ruta)
    if not ruta.is_file():
        raise FileNotFoundError(f"No encuentro {que}: {ruta} no existe o no es un archivo.")
    crudo = ruta.read_bytes()
    bom = crudo.startswith(b"\xef\xbb\xbf")
    try:
        texto = crudo.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{que.capitalize()} ({ruta.name}) no está en UTF-8: el byte {crudo[exc.start]:#04x} de la posición "
            f"{exc.start} no es válido. Bájala otra vez del LMS o guárdala como «CSV UTF-8»."
        ) from None
    if "\x00" in texto:
        raise ValueError(f"{que.capitalize()} ({ruta.name}) tiene bytes nulos: no es un CSV de texto.")
    if not texto.strip():
        raise ValueError(f"{que.capitalize()} ({ruta.name}) está vacía.")
    fin = "\r\n" if "\r\n" in texto.split("\n", 1)[0] + "\n" else "\n"
    intentos = {d: _partir(texto, d) for d in (",", ";", "\t")}
    buenas = {d: f for d, f in intentos.items() if not isinstance(f, str) and _pareja(f) and len(f[0]) > 1}
    if buenas:
        delimitador = max(buenas, key=lambda d: len(buenas[d][0]))
        return CSVLeido(buenas[delimitador], delimitador, bom, fin)
    # Ninguno sirve: el error del separador que más columnas da en el encabezado.
    delimitador = max(intentos, key=lambda d: len(intentos[d][0]) if not isinstance(intentos[d], str) else 0)
    filas = intentos[delimitador]
    if isinstance(filas, str):
        raise ValueError(f"{que.capitalize()} ({ruta.name}) no es un CSV válido: {filas}.")
    if len(filas[0]) <= 1:
        raise ValueError(f"{que.capitalize()} ({ruta.name}) no parece un CSV: su encabezado no tiene columnas "
                         "separadas por «,», «;» ni tabulador.")
    ancho = len(filas[0])
    for n, fila in enumerate(filas, start=1):
        if fila and len(fila) != ancho:
            raise ValueError(f"{que.capitalize()} ({ruta.name}) está dispareja: la fila {n} tiene {len(fila)} celdas "
                             f"y el encabezado {ancho}. ¿Se cortó o se editó a mano?")
    raise ValueError(f"{que.capitalize()} ({ruta.name}) no es un CSV válido.")  # pragma: no cover


def _partir(texto: str, delimitador: str) -> list[list[str]] | str:
    try:
        filas = list(csv.reader(io.StringIO(texto, newline=""), delimiter=delimitador, strict=True))
    except csv.Error as exc:
        return f"comillas mal cerradas ({exc})"
    while filas and not any(c.strip() for c in filas[-1]):
        filas.pop()  # líneas en blanco al final
    return filas or "no tiene filas"


def _pareja(filas: list[list[str]]) -> bool:
    return len({len(f) for f in filas if f}) == 1


#: Una celda que ninguna hoja de cálculo ejecuta aunque empiece con «-» o «+»: un número o «-» solo
#: (Moodle escribe «-» en «Last modified» cuando no hay fecha).
_INOFENSIVA = re.compile(r"\s*(?:-|[+-]?\d+(?:[.,]\d+)?%?)\s*")


def celda_segura(valor: str) -> tuple[str, bool]:
    """``valor`` sin nada que una hoja de cálculo tome por fórmula, y si hubo que cambiarlo.

    Usa :func:`~tutor_lib.calificacion.motor.calificador.celda_csv` (la de ``calificaciones.csv``);
    un número o un «-» solo quedan tal cual: no son fórmulas.
    """
    if _INOFENSIVA.fullmatch(valor):
        return valor, False
    seguro = celda_csv(valor)
    return seguro, seguro != valor


def csv_como_texto(leido: CSVLeido, filas: list[list[str]], propias=frozenset()) -> tuple[str, int]:
    """``filas`` como texto con la forma de ``leido`` (separador, BOM, fin de línea), todas con :func:`celda_segura`.

    Devuelve también cuántas celdas que venían en la hoja (las que no están en ``propias``, pares
    fila, columna) hubo que neutralizar.
    """
    salida = io.StringIO(newline="")
    escritor = csv.writer(salida, delimiter=leido.delimitador, lineterminator=leido.fin_de_linea)
    cambiadas = 0
    for i, fila in enumerate(filas):
        limpia = []
        for j, celda in enumerate(fila):
            segura, cambio = celda_segura(celda)
            cambiadas += cambio and (i, j) not in propias
            limpia.append(segura)
        escritor.writerow(limpia)
    return ("\ufeff" if leido.bom else "") + salida.getvalue(), cambiadas


# --- números como los escribe cada LMS ---------------------------------------------------------------

_NUMERO = re.compile(r"\s*(\d+)(?:([.,])(\d+))?\s*")


def leer_numero(texto: str) -> float | None:
    """``'10'``, ``'10.00'`` o ``'10,00'`` → 10.0; otra cosa (vacío, «(read only)», «EX») → None."""
    m = _NUMERO.fullmatch(texto or "")
    if not m:
        return None
    return float(m.group(1) + ("." + m.group(3) if m.group(3) else ""))


def escribir_numero(valor: float, decimal: str = ".", decimales: int | None = None) -> str:
    """``valor`` con el separador ``decimal``: ``decimales`` fijos (Moodle) o las cifras justas hasta 2 (Canvas)."""
    if decimales is None:
        texto = f"{valor:.2f}".rstrip("0").rstrip(".")
    else:
        texto = f"{valor:.{decimales}f}"
    if texto in ("-0", "") or re.fullmatch(r"-0\.0*", texto):
        texto = texto.lstrip("-") or "0"
    return texto.replace(".", decimal)


# --- cómo es cada hoja --------------------------------------------------------------------------------


@dataclass
class FilaLMS:
    """Una fila de estudiante de la hoja: dónde está y con qué se la reconoce."""

    indice: int  # posición en CSVLeido.filas (0 es el encabezado)
    nombre: str
    lms_id: str | None  # Canvas: el user_id (columna ID); Moodle: el número de «Participant N»
    email: str | None  # Moodle: el correo; Canvas: SIS Login ID (suele ser el correo o el usuario)
    numero_id: str | None  # Canvas: SIS User ID; Moodle: «ID number» si la hoja lo trae
    anterior: str  # lo que dice hoy la celda de nota
    no_escribir: str = ""  # por qué esta celda no se toca (excusado, no asignada, bloqueada)


@dataclass
class HojaLMS:
    """Lo que hace falta para llenar una hoja: columnas, máximo, formato de números y filas."""

    lms: str  # "canvas" o "moodle"
    columna_nota: int
    titulo: str  # el encabezado de la columna de nota
    maximo: float | None  # «Points Possible» o «Maximum Grade»; None si la hoja no lo dice
    decimal: str = "."
    decimales: int | None = None  # None: cifras justas (Canvas)
    columna_comentario: int | None = None
    columna_numero_id: int | None = None
    filas: list[FilaLMS] = field(default_factory=list)
    avisos: list[str] = field(default_factory=list)


def _norma(texto: str) -> str:
    return " ".join(unicodedata.normalize("NFC", texto).strip().casefold().split())


def es_canvas(encabezado: list[str]) -> bool:
    """¿Es el encabezado de un libro de Canvas? (como ``row_has_student_headers?`` del importador)."""
    e = [c.strip() for c in encabezado]
    return (len(e) > 3 and "Student" in e[0] and e[1] == "ID") or (
        len(e) > 4 and e[0] == "LastName" and e[1] == "FirstName" and e[2] == "ID")


def es_moodle(encabezado: list[str]) -> bool:
    """¿Trae el encabezado las columnas de la hoja de Moodle (identificador y calificación, en inglés o español)?"""
    normas = {_norma(c) for c in encabezado}
    return bool(normas & IDENTIFICADOR) and bool(normas & CALIFICACION)


def reconocer(filas: list[list[str]], asignacion: str, columna: str | None = None) -> HojaLMS:
    """Reconoce una hoja de Canvas o de Moodle y encuentra la columna de ``asignacion`` (o ``columna``)."""
    if es_canvas(filas[0]):
        return reconocer_canvas(filas, asignacion, columna)
    if es_moodle(filas[0]):
        return reconocer_moodle(filas, columna)
    raise ValueError(
        "No reconozco la hoja: no es un libro de calificaciones de Canvas (encabezado «Student, ID, ...») ni "
        "una hoja de calificaciones de Moodle («Identifier»/«Identificador» y «Grade»/«Calificación»). "
        "Su encabezado empieza "
        f"con {', '.join(repr(c) for c in filas[0][:4])}."
    )


# --- Canvas -------------------------------------------------------------------------------------------

#: Columnas de Canvas que nunca son una tarea (GRADEBOOK_IMPORTER_RESERVED_NAMES y NON_ASSIGNMENT_COLUMN_HEADERS).
_CANVAS_RESERVADAS = {"Student", "LastName", "FirstName", "ID", "SIS User ID", "SIS Login ID", "Section",
                      "Integration ID", "Root Account"}
_CANVAS_CALCULADAS = re.compile(r"(Current|Final|Override) (Score|Points|Grade|Status)")
_CANVAS_OCULTA = re.compile(r"^\s*(Muted|Manual Posting.*)?\s*$", re.IGNORECASE)
_CON_ID = re.compile(r"^(.*?)\s*\((\d+)\)\s*$")


def _titulo_canvas(encabezado: str) -> str:
    m = _CON_ID.match(encabezado)
    return m.group(1) if m else encabezado


def reconocer_canvas(filas: list[list[str]], asignacion: str, columna: str | None = None) -> HojaLMS:
    """La columna de ``asignacion`` en un libro de Canvas (por su título sin «(id)», o ``columna``) y sus filas."""
    enc = [c.strip() for c in filas[0]]
    col_id = enc.index("ID")
    seccion = enc.index("Section") if "Section" in enc else col_id
    candidatas = [j for j, c in enumerate(enc) if j > seccion and c not in _CANVAS_RESERVADAS]
    buscado = _norma(columna or asignacion)
    elegidas = [j for j in candidatas if buscado in (_norma(enc[j]), _norma(_titulo_canvas(enc[j])))]
    tareas = [enc[j] for j in candidatas if _CON_ID.match(enc[j])]
    if not elegidas:
        quien = f"--columna {columna!r}" if columna else f"la asignación {asignacion!r}"
        raise ValueError(
            f"El libro de Canvas no tiene ninguna columna para {quien}. Sus tareas: "
            f"{', '.join(tareas[:12]) or '(ninguna)'}{' ...' if len(tareas) > 12 else ''}. Elige una con --columna "
            "(su título, con o sin el número entre paréntesis)."
        )
    if len(elegidas) > 1:
        raise ValueError(
            f"Hay {len(elegidas)} columnas que coinciden con {columna or asignacion!r}: "
            f"{', '.join(repr(enc[j]) for j in elegidas)}. Elige una con --columna y el título completo, "
            "con su número."
        )
    j = elegidas[0]
    if _CANVAS_CALCULADAS.search(enc[j]):
        raise ValueError(f"La columna {enc[j]!r} la calcula Canvas (solo lectura): elige la columna de una tarea.")
    col_login = enc.index("SIS Login ID") if "SIS Login ID" in enc else None
    col_sis = enc.index("SIS User ID") if "SIS User ID" in enc else None
    hoja = HojaLMS("canvas", j, enc[j], None)
    for i, fila in enumerate(filas[1:], start=1):
        if not fila:
            continue
        if "Points Possible" in fila[0]:
            if "read only" in fila[j]:
                raise ValueError(f"La columna {enc[j]!r} es de solo lectura en Canvas (su fila «Points "
                                 f"Possible» dice {fila[j].strip()!r}): elige la columna de una tarea.")
            hoja.maximo = leer_numero(fila[j])
            continue
        if all(_CANVAS_OCULTA.match(c) for c in fila):
            continue  # la fila de «Manual Posting»/«Muted» (o una vacía): no es de nadie
        ident = fila[col_id].strip()
        if not ident:
            continue
        actual = fila[j].strip()
        motivo = ""
        if actual.upper() == "EX":
            motivo = "Canvas la tiene como excusada (EX): no se cambia"
        elif actual.upper() == "N/A":
            motivo = "la tarea no está asignada a este estudiante en Canvas (N/A)"
        nombre = fila[0] if enc[0] != "LastName" else f"{fila[1]} {fila[0]}".strip()
        hoja.filas.append(FilaLMS(i, nombre.strip(), ident,
                                  fila[col_login].strip() or None if col_login is not None else None,
                                  fila[col_sis].strip() or None if col_sis is not None else None,
                                  fila[j], motivo))
    if hoja.maximo is None:
        hoja.avisos.append("El libro de Canvas no trae la fila «Points Possible»: se escriben los puntos "
                           "sin escalar.")
    return hoja


# --- Moodle -------------------------------------------------------------------------------------------

# Encabezados de la hoja de Moodle en inglés y en español (paquetes «es» y «es_mx»), comparados sin
# mayúsculas: recordid, grade, maxgrade, scale, gradecanbechanged, email, idnumber y el plugin de
# comentarios de retroalimentación (assignfeedback_comments).
IDENTIFICADOR = {"identifier", "identificador"}
CALIFICACION = {"grade", "calificación"}
MAXIMA = {"maximum grade", "calificación máxima"}
ESCALA = {"scale", "escala"}
PUEDE_CAMBIAR = {"grade can be changed", "la calificación puede ser cambiada", "la calificación puede cambiarse"}
CORREO = {"email address", "dirección de correo", "dirección email", "dirección de correo electrónico",
          "correo electrónico", "correo"}
NUMERO_ID = {"id number", "número de id", "número de identificación", "numero de id", "número id"}
NOMBRE = {"full name", "nombre completo"}
COMENTARIOS = {"feedback comments", "comentarios de retroalimentación", "comentarios de la retroalimentación",
               "retroalimentación en comentarios", "comentarios"}
_PARTICIPANTE = re.compile(r"^\s*(?:participant|participante)\s*(\d+)\s*$", re.IGNORECASE)


def numero_de_participante(texto: str) -> str | None:
    """``'Participant 123456'`` o ``'Participante123456'`` → ``'123456'``; otra cosa → None."""
    m = _PARTICIPANTE.match(texto or "")
    return m.group(1) if m else None


def _columna(encabezado: list[str], nombres: set[str], que: str, obligatoria: bool = False) -> int | None:
    halladas = [j for j, c in enumerate(encabezado) if _norma(c) in nombres]
    if len(halladas) > 1:
        raise ValueError(f"La hoja de Moodle tiene {len(halladas)} columnas de {que}: "
                         f"{', '.join(repr(encabezado[j]) for j in halladas)}.")
    if not halladas and obligatoria:
        raise ValueError(f"La hoja de Moodle no tiene la columna de {que}.")
    return halladas[0] if halladas else None


def reconocer_moodle(filas: list[list[str]], columna: str | None = None) -> HojaLMS:
    """Columnas (identificador, nota, máximo, comentarios) y filas de una hoja de Moodle en inglés o español.

    ``columna``, si se da, nombra la columna de comentarios cuando su encabezado no es uno de los conocidos.
    """
    enc = filas[0]
    if _columna(enc, ESCALA, "escala") is not None and _columna(enc, MAXIMA, "calificación máxima") is None:
        raise ValueError("La tarea de Moodle se califica con una escala, no con puntos: tutor exportar solo escribe "
                         "puntos. Cambia la calificación de la tarea a «Puntuación» y baja la hoja otra vez.")
    col_id = _columna(enc, IDENTIFICADOR, "identificador", obligatoria=True)
    col_nota = _columna(enc, CALIFICACION, "calificación", obligatoria=True)
    col_max = _columna(enc, MAXIMA, "calificación máxima")
    col_cambia = _columna(enc, PUEDE_CAMBIAR, "«la calificación puede cambiarse»")
    col_correo = _columna(enc, CORREO, "correo")
    col_nombre = _columna(enc, NOMBRE, "nombre completo")
    if columna:
        col_com = _columna(enc, {_norma(columna)}, f"comentarios ({columna!r})", obligatoria=True)
    else:
        col_com = _columna(enc, COMENTARIOS, "comentarios de retroalimentación")
    hoja = HojaLMS("moodle", col_nota, enc[col_nota], None, columna_comentario=col_com,
                   columna_numero_id=_columna(enc, NUMERO_ID, "número de ID"))
    if col_com is None:
        hoja.avisos.append("La hoja de Moodle no tiene la columna «Feedback comments»/«Comentarios de "
                           "retroalimentación»: solo se escriben las notas (activa los comentarios en la tarea y "
                           "bájala otra vez para incluirlos).")
    maximos, formatos = set(), set()
    for i, fila in enumerate(filas[1:], start=1):
        if not fila:
            continue
        for j in (col_max, col_nota):
            m = _NUMERO.fullmatch(fila[j]) if j is not None else None
            if m and m.group(2):
                formatos.add((m.group(2), len(m.group(3))))
        if col_max is not None and leer_numero(fila[col_max]) is not None:
            maximos.add(leer_numero(fila[col_max]))
        participante = numero_de_participante(fila[col_id])
        if participante is None:
            continue
        motivo = ""
        if col_cambia is not None and _norma(fila[col_cambia]) == "no":
            motivo = "Moodle tiene su calificación bloqueada («Grade can be changed: No»)"
        hoja.filas.append(FilaLMS(
            i, fila[col_nombre].strip() if col_nombre is not None else fila[col_id].strip(), participante,
            fila[col_correo].strip() or None if col_correo is not None else None,
            fila[hoja.columna_numero_id].strip() or None if hoja.columna_numero_id is not None else None,
            fila[col_nota], motivo))
    if len(maximos) > 1:
        distintos = ", ".join(f"{m:g}" for m in sorted(maximos))
        raise ValueError(f"La hoja de Moodle trae varios máximos distintos ({distintos}): ¿mezcla tareas? "
                         "Baja la hoja de una sola tarea.")
    hoja.maximo = maximos.pop() if maximos else None
    if len({sep for sep, _ in formatos}) == 1:
        hoja.decimal = formatos.copy().pop()[0]
    hoja.decimales = max((n for _, n in formatos), default=2)
    if hoja.maximo is None:
        hoja.avisos.append("La hoja de Moodle no dice la calificación máxima: se escriben los puntos sin escalar.")
    return hoja


# --- llenar -------------------------------------------------------------------------------------------


def llenar(leido: CSVLeido, hoja: HojaLMS, valores: dict[int, tuple[str, str | None]]) -> tuple[str, int]:
    """El texto de la hoja con ``valores`` (índice de fila → (nota, comentario o None)) y nada más cambiado.

    Devuelve también cuántas celdas de la hoja original hubo que neutralizar porque empezaban como
    fórmula (ver :func:`celda_segura`).
    """
    filas = [list(f) for f in leido.filas]
    propias = set()
    for i, (nota, comentario) in valores.items():
        filas[i][hoja.columna_nota] = nota
        propias.add((i, hoja.columna_nota))
        if comentario is not None and hoja.columna_comentario is not None:
            filas[i][hoja.columna_comentario] = comentario
            propias.add((i, hoja.columna_comentario))
    return csv_como_texto(leido, filas, propias)
