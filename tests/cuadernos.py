"""Ejecuta notebooks sin interfaz (nbclient) en modo rápido, como lo haría un estudiante.

Si una celda falla, el error dice en español qué celda fue (número y primeras
líneas), el tipo de excepción y su mensaje, para arreglarlo sin abrir Jupyter.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
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
#: El tope por celda de siempre (el de :func:`ejecutar_cuaderno`).
TOPE_POR_CELDA = 600
#: El proceso que ejecuta las lecciones por adelantado en esta sesión de pytest (:func:`adelantar`), si hay.
_ADELANTO: Adelanto | None = None
#: True en el proceso que adelanta: comparte los núcleos con el resto de las pruebas, y el sitio lo dice.
_CPU_COMPARTIDA = False


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


def ejecutar_cuaderno(ruta: str | os.PathLike, timeout_celda: int = TOPE_POR_CELDA, entorno_extra: dict | None = None):
    """Ejecuta el notebook en su carpeta y devuelve ``(notebook_ejecutado, segundos)``.

    Lanza :class:`CuadernoFallido` con un mensaje en español si algo falla. Dentro
    de una misma sesión de pytest cada notebook se ejecuta una sola vez: la prueba
    general de lecciones y las pruebas específicas de cada lección comparten el
    resultado (una ejecución fallida no se guarda y se reintenta). Si la lección está entre
    las que otro proceso ejecuta por adelantado (:class:`Adelanto`), espera su resultado.
    """
    ruta = Path(ruta).resolve()
    clave = (ruta, timeout_celda, tuple(sorted((entorno_extra or {}).items())))
    adelanto = _ADELANTO
    if (clave not in _YA_EJECUTADOS and adelanto is not None and ruta in adelanto.pendientes
            and timeout_celda == TOPE_POR_CELDA and not entorno_extra):
        adelantada = adelanto.esperar(ruta)
        if adelantada is not None:
            _YA_EJECUTADOS[clave] = adelantada
    if clave not in _YA_EJECUTADOS:
        _YA_EJECUTADOS[clave] = _ejecutar(ruta, timeout_celda, entorno_extra)
    return _YA_EJECUTADOS[clave]


# --------------------------------------------------------------------------
# Ejecución adelantada: las lecciones corren en otro proceso mientras corre el resto de las pruebas
# --------------------------------------------------------------------------
# Ejecutar las lecciones es casi la mitad de make test, y mientras tanto el resto de las pruebas (nbgrader,
# JupyterLab, la CLI), que casi nunca ocupa más de un núcleo, esperaría su turno. tests/conftest.py deja para
# el final las pruebas que leen lecciones ejecutadas y, al empezar, llama a adelantar(): un proceso aparte las
# ejecuta una por una, en orden, y deja cada resultado en una carpeta temporal; ejecutar_cuaderno() lo espera
# allí. Es la misma ejecución (el mismo _ejecutar, con la vigilancia de git y la copia para el sitio), en un
# proceso con el entorno del arranque de pytest, así que nada que una prueba cambie después le llega.


class Adelanto:
    """Un proceso aparte que ejecuta ``rutas`` una por una y deja cada resultado en una carpeta temporal."""

    def __init__(self, rutas):
        self.pendientes = [Path(r).resolve() for r in rutas]
        self.carpeta = Path(tempfile.mkdtemp(prefix="tutor_adelanto_"))
        codigo = ("import sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]; import cuadernos; "
                  "cuadernos._adelantar_aqui(sys.argv[3], sys.argv[4:])")
        with open(self.carpeta / "proceso.log", "wb") as registro:
            self.proceso = subprocess.Popen(
                [sys.executable, "-c", codigo, str(Path(__file__).resolve().parent), str(_RAIZ), str(self.carpeta),
                 *map(str, self.pendientes)],
                cwd=_RAIZ, stdout=registro, stderr=subprocess.STDOUT, start_new_session=True)

    def esperar(self, ruta: Path):
        """``(nb, segundos)`` de ``ruta``, ejecutada allá; ``None`` si el proceso terminó sin dejarla.

        Si allá falló, lanza el mismo :class:`CuadernoFallido`. Cada ruta se entrega una sola vez: una llamada
        posterior (tras una falla, por ejemplo) la ejecuta en este proceso, como cualquier reintento.
        """
        ruta = Path(ruta).resolve()
        self.pendientes.remove(ruta)
        resultado = self.carpeta / f"{ruta.stem}.json"
        while not resultado.exists() and self.proceso.poll() is None:
            time.sleep(0.5)
        if not resultado.exists():  # murió o lo detuvieron antes de llegar a esta
            return None
        datos = json.loads(resultado.read_text(encoding="utf-8"))
        if datos["error"]:
            raise CuadernoFallido(datos["error"])
        CAMBIOS_EN_GIT[ruta] = datos["cambios_en_git"]
        return nbformat.read(self.carpeta / f"{ruta.stem}.ipynb", as_version=4), datos["segundos"]

    def detener(self) -> None:
        """Termina el proceso y sus kernels (su propio grupo de procesos) y borra la carpeta."""
        if self.proceso.poll() is None:
            try:
                os.killpg(self.proceso.pid, signal.SIGTERM)
                self.proceso.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proceso.pid, signal.SIGKILL)
                self.proceso.wait()
            except ProcessLookupError:
                pass
        shutil.rmtree(self.carpeta, ignore_errors=True)


def adelantar(rutas) -> None:
    """Empieza a ejecutar ``rutas`` (lecciones) en un proceso aparte; :func:`ejecutar_cuaderno` las espera."""
    global _ADELANTO
    if rutas and _ADELANTO is None:
        _ADELANTO = Adelanto(rutas)


def detener_adelanto() -> None:
    """Lo llama tests/conftest.py al cerrar la sesión: nada queda corriendo."""
    if _ADELANTO is not None:
        _ADELANTO.detener()


def _adelantar_aqui(carpeta: str, rutas: list[str]) -> None:
    """El proceso que adelanta: ejecuta cada lección y deja ``<nombre>.ipynb`` y ``<nombre>.json`` en ``carpeta``.

    El tope por celda es el doble del de siempre: aquí la lección comparte los dos núcleos con las demás pruebas.
    """
    global _CPU_COMPARTIDA
    _CPU_COMPARTIDA = True
    carpeta = Path(carpeta)
    for ruta in map(Path, rutas):
        datos = {"error": None, "segundos": None, "cambios_en_git": []}
        try:
            nb, datos["segundos"] = _ejecutar(ruta, 2 * TOPE_POR_CELDA, None)
            nbformat.write(nb, carpeta / f"{ruta.stem}.ipynb")
            datos["cambios_en_git"] = CAMBIOS_EN_GIT.get(ruta, [])
        except CuadernoFallido as exc:
            datos["error"] = str(exc)
        except Exception as exc:  # noqa: BLE001  (cualquier otra falla también se informa, con su tipo)
            datos["error"] = f"El proceso que adelanta las lecciones falló con {ruta.name}: {type(exc).__name__}: {exc}"
        temporal = carpeta / f".{ruta.stem}.json"
        temporal.write_text(json.dumps(datos, ensure_ascii=False), encoding="utf-8")
        os.replace(temporal, carpeta / f"{ruta.stem}.json")  # quien espera nunca lee uno a medias


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
        cache.guardar(ruta, nb, segundos, cpu_compartida=_CPU_COMPARTIDA)
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
