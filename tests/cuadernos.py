"""Ejecuta notebooks sin interfaz (nbclient) en modo rápido, como lo haría un estudiante.

Si una celda falla, el error dice en español qué celda fue (número y primeras
líneas), el tipo de excepción y su mensaje, para arreglarlo sin abrir Jupyter.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import time
from pathlib import Path

import nbformat
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

from sitio import cache

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


class CuadernoFallido(AssertionError):
    """Un notebook no corrió de principio a fin."""


def _celda_con_error(nb) -> tuple[int, dict] | None:
    numero = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        numero += 1
        for salida in cell.get("outputs", []):
            if salida.get("output_type") == "error":
                return numero, cell
    return None


_YA_EJECUTADOS: dict[tuple, tuple] = {}
#: Lo que cada ejecución cambió en los archivos que git ve (ruta → líneas de ``git status``).
CAMBIOS_EN_GIT: dict[Path, list[str]] = {}
_RAIZ = Path(__file__).resolve().parents[1]


def _estado_git() -> dict[str, str] | None:
    """Cada archivo que git ve cambiado o nuevo (no ignorado), con el hash de su contenido; None sin git."""
    if not (_RAIZ / ".git").exists():
        return None
    salida = subprocess.run(["git", "status", "--porcelain=v1", "-z", "--untracked-files=all"], cwd=_RAIZ,
                            capture_output=True, text=True, check=True).stdout
    estado = {}
    for entrada in filter(None, salida.split("\0")):
        ruta = _RAIZ / entrada[3:]
        estado[entrada] = hashlib.sha256(ruta.read_bytes()).hexdigest() if ruta.is_file() else ""
    return estado


def ejecutar_cuaderno(ruta: str | os.PathLike, timeout_celda: int = 600, entorno_extra: dict | None = None):
    """Ejecuta el notebook en su carpeta y devuelve ``(notebook_ejecutado, segundos)``.

    Lanza :class:`CuadernoFallido` con un mensaje en español si algo falla. Dentro
    de una misma sesión de pytest cada notebook se ejecuta una sola vez: la prueba
    general de lecciones y las pruebas específicas de cada lección comparten el
    resultado (una ejecución fallida no se guarda y se reintenta).
    """
    ruta = Path(ruta).resolve()
    clave = (ruta, timeout_celda, tuple(sorted((entorno_extra or {}).items())))
    if clave not in _YA_EJECUTADOS:
        _YA_EJECUTADOS[clave] = _ejecutar(ruta, timeout_celda, entorno_extra)
    return _YA_EJECUTADOS[clave]


def _ejecutar(ruta: Path, timeout_celda: int, entorno_extra: dict | None):
    nb = nbformat.read(ruta, as_version=4)
    env_anterior = dict(os.environ)
    # el kernel dibuja como en JupyterLab (inline), no con el Agg que usan las pruebas
    # el mismo entorno y el mismo cliente que make sitio (sitio/cache.py): la ejecución guardada es la suya
    os.environ.update({**cache.ENTORNO_RAPIDO, **(entorno_extra or {})})
    cliente = cache.cliente_rapido(nb, ruta, timeout_celda)
    antes = _estado_git()
    inicio = time.perf_counter()
    try:
        cliente.execute()
    except (CellExecutionError, CellTimeoutError, DeadKernelError) as exc:
        encontrado = _celda_con_error(nb)
        if isinstance(exc, CellTimeoutError):
            motivo = f"superó el tiempo límite de {timeout_celda} s por celda"
        elif isinstance(exc, DeadKernelError):
            motivo = "el kernel murió (¿memoria agotada?)"
        else:
            motivo = f"{getattr(exc, 'ename', type(exc).__name__)}: {_ANSI.sub('', str(getattr(exc, 'evalue', exc)))}"
        impreso = ""
        if encontrado:
            numero, celda = encontrado
            inicio_codigo = "\n    ".join(celda.source.splitlines()[:4])
            donde = f"la celda de código n.º {numero}, que empieza así:\n    {inicio_codigo}\n"
            # lo último que la celda imprimió (p. ej. el stderr de un proceso que lanzó): la causa suele estar ahí
            texto = "".join("".join(s.get("text", "")) for s in celda.get("outputs", []) if s.get("output_type") == "stream")
            if texto.strip():
                impreso = "\nLo último que imprimió la celda:\n" + _ANSI.sub("", texto)[-3000:]
        else:
            donde = "una celda que no pude identificar\n"
        raise CuadernoFallido(f"El notebook {ruta.name} falló en {donde}Motivo: {motivo}{impreso}") from None
    finally:
        os.environ.clear()
        os.environ.update(env_anterior)
    segundos = time.perf_counter() - inicio
    despues = _estado_git()
    if antes is not None:
        CAMBIOS_EN_GIT[ruta] = sorted(k for k in set(antes) | set(despues) if antes.get(k) != despues.get(k))
    if ruta.parent == _RAIZ / "lessons" and re.match(r"\d\d_", ruta.name) and not entorno_extra:
        # la lección ejecutada, tal cual, para el sitio: make sitio no la vuelve a ejecutar (sitio/cache.py)
        cache.guardar(ruta, nb, segundos)
    return nb, segundos


def textos_de_salida(nb, *, lo_que_lee_quien_estudia: bool = False) -> str:
    """Todo el texto que mostraron las celdas (para comprobar cifras calculadas).

    Con ``lo_que_lee_quien_estudia``, solo la salida estándar y lo que muestran las celdas en texto o
    Markdown: sin stderr (barras de progreso y avisos de las bibliotecas, que se revisan aparte) ni HTML.
    """
    flujos = ("stdout",) if lo_que_lee_quien_estudia else ("stdout", "stderr")
    tipos = ("text/plain", "text/markdown") if lo_que_lee_quien_estudia else ("text/plain", "text/markdown", "text/html")
    partes = []
    for cell in nb.cells:
        for salida in cell.get("outputs", []):
            if "text" in salida and salida.get("name", "stdout") in flujos:
                partes.append(salida["text"])
            for tipo in tipos:
                if tipo in salida.get("data", {}):
                    partes.append(salida["data"][tipo])
    return _ANSI.sub("", "\n".join(partes))


def textos_para_leer(nb) -> str:
    """Lo que la lección le muestra a quien la estudia (ver :func:`textos_de_salida`)."""
    return textos_de_salida(nb, lo_que_lee_quien_estudia=True)


#: Un entero como lo escribe ``tutor_lib.formato.entero``: «2048», «66 955 010».
ENTERO = r"\d+(?: \d{3})*"


def a_entero(texto: str) -> int:
    """«66 955 010» → 66955010."""
    return int(texto.replace(" ", ""))


def porcentaje_en_salidas(patron: str, texto: str) -> float:
    """El porcentaje impreso tras ``patron`` (una expresión regular) en ``texto``, como fracción."""
    encontrado = re.search(patron + r"\s*([\d.]+) %", texto)
    assert encontrado, f"no encontré «{patron}» en las salidas"
    return float(encontrado.group(1)) / 100


def funciones_del_notebook(ruta: str | os.PathLike, espacio: dict, *nombres: str) -> dict:
    """Compila en ``espacio`` solo las definiciones ``def nombre(...)`` de las celdas de código de un notebook.

    Así las pruebas de una lección comparan sus funciones con cuentas independientes sin ejecutar el notebook
    entero. Las líneas de IPython (``!pip``, ``%magia``) se ignoran. Falla si el notebook ya no define alguna.
    """
    import ast

    nb = nbformat.read(ruta, as_version=4)
    encontradas = set()
    for celda in nb.cells:
        if celda.cell_type != "code" or "def " not in celda.source:
            continue
        fuente = "\n".join(l for l in celda.source.splitlines() if not l.lstrip().startswith(("!", "%")))
        for nodo in ast.parse(fuente).body:
            if isinstance(nodo, ast.FunctionDef) and nodo.name in nombres:
                exec(compile(ast.Module(body=[nodo], type_ignores=[]), str(ruta), "exec"), espacio)
                encontradas.add(nodo.name)
    faltan = set(nombres) - encontradas
    assert not faltan, f"el notebook ya no define {sorted(faltan)}"
    return espacio
