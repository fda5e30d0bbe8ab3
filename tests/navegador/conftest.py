"""Pruebas en un navegador real: JupyterLab servido por ``tutor curso`` y manejado con Chromium.

Cómo funciona (todo en loopback, sin red):

* ``servidor_jupyter`` (sesión) arranca JupyterLab como ``make curso-servidor``
  (``python -m tutor_lib curso --sin-navegador``), con ``--trabajo`` en una carpeta
  temporal: ``tutor curso`` copia ahí las lecciones y los ejercicios, como la
  primera vez de un estudiante, y el autoguardado de JupyterLab nunca escribe en
  el repositorio. Antes, la prueba deja en esa carpeta unos notebooks mínimos y
  el ejercicio resuelto (el trabajo del estudiante, que la copia no pisa). Puerto libre y token aleatorio; al final apaga los
  kernels por la API y termina el grupo de procesos del servidor.
* El servidor hereda el entorno que fija ``tests/conftest.py`` (modo rápido,
  Hub desconectado, ``tests/red`` en PYTHONPATH): sus kernels quedan sin red y
  en modo rápido; ``test_kernel_del_servidor`` lo comprueba desde dentro del kernel.
* ``navegador`` (sesión) lanza el Chromium de Debian (``/usr/bin/chromium``),
  sin descargar navegadores de playwright, con un perfil nuevo.
* ``pagina`` (por prueba) abre una pestaña y, al terminar, guarda una captura en
  ``tests/navegador/capturas/<prueba>.png`` (y ``<prueba>-FALLO.png`` si falló).

Si falta Chromium la prueba FALLA con un mensaje en español; solo se omite si
defines ``TUTOR_SIN_NAVEGADOR=1`` (para quien corre la batería en su laptop sin
Chromium). La CI nunca define esa variable.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

RAIZ = Path(__file__).resolve().parents[2]
CAPTURAS = Path(__file__).resolve().parent / "capturas"
CHROMIUM = os.environ.get("TUTOR_CHROMIUM", "/usr/bin/chromium")
ARGUMENTOS_CHROMIUM = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
]
#: Segundos máximos para que arranque JupyterLab (CPU de 2 núcleos compartida).
ESPERA_SERVIDOR = 180


def pytest_collection_modifyitems(config, items):
    carpeta = Path(__file__).resolve().parent
    for item in items:
        if carpeta in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.navegador)


# ---------------------------------------------------------------------------
# Chromium
# ---------------------------------------------------------------------------


@pytest.fixture(scope="session")
def ruta_chromium() -> str:
    if Path(CHROMIUM).is_file() and os.access(CHROMIUM, os.X_OK):
        return CHROMIUM
    mensaje = (
        f"No encuentro Chromium en {CHROMIUM}: las pruebas del navegador lo necesitan. "
        "Instálalo con `sudo apt-get install -y chromium fonts-dejavu-core` (Debian/Ubuntu) "
        "o indica otra ruta con TUTOR_CHROMIUM=/ruta/al/chromium. "
        "Si solo quieres omitir estas pruebas en tu computadora, define TUTOR_SIN_NAVEGADOR=1."
    )
    if os.environ.get("TUTOR_SIN_NAVEGADOR") == "1":
        pytest.skip(mensaje)
    pytest.fail(mensaje, pytrace=False)


@pytest.fixture(scope="session")
def navegador(ruta_chromium, tmp_path_factory):
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail(
            "Falta el paquete playwright: instálalo con `pip install -e '.[navegador]'` "
            "(no hace falta `playwright install`: se usa el Chromium del sistema).",
            pytrace=False,
        )
    perfil = tmp_path_factory.mktemp("perfil_chromium")
    with sync_playwright() as p:
        contexto = p.chromium.launch_persistent_context(
            str(perfil),
            executable_path=ruta_chromium,
            args=ARGUMENTOS_CHROMIUM,
            headless=True,
            viewport={"width": 1400, "height": 1000},
            locale="es-ES",
        )
        contexto.set_default_timeout(60_000)
        try:
            yield contexto
        finally:
            contexto.close()


# ---------------------------------------------------------------------------
# JupyterLab
# ---------------------------------------------------------------------------


def _puerto_libre() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cuaderno(celdas: list[str]) -> dict:
    return {
        "cells": [
            {"cell_type": "code", "execution_count": None, "id": f"celda{i}", "metadata": {}, "outputs": [],
             "source": fuente}
            for i, fuente in enumerate(celdas)
        ],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


#: Primera celda de los notebooks mínimos: informa del kernel en una línea JSON.
CELDA_ENTORNO = """\
import json, os, sys
print("ENTORNO_KERNEL=" + json.dumps({
    "python": sys.executable,
    "modo": os.environ.get("TUTOR_MODO"),
    "hf_offline": os.environ.get("HF_HUB_OFFLINE"),
    "bloquear_red": os.environ.get("TUTOR_BLOQUEAR_RED"),
    "sitecustomize": getattr(sys.modules.get("sitecustomize"), "__file__", None),
}))"""

CUADERNOS_MINIMOS = {
    "warmup_minimo.ipynb": [
        CELDA_ENTORNO,
        "from tutor_lib import warmup\n"
        "warmup.widget_warmup(lr=2e-5, ejemplos=1000, lote=16, epocas=3, warmup=0.06)",
    ],
    "configurador_minimo.ipynb": [
        CELDA_ENTORNO,
        "from tutor_lib import configurador\nconfigurador.widget_configurador()",
    ],
}


#: El ejercicio que se abre ya resuelto, como lo dejaría quien estudia.
EJERCICIO = "ej04_warmup"


def _ejercicio_resuelto(carpeta: Path) -> None:
    """Copia ``exercises/<EJERCICIO>`` con las celdas de solución llenas (la solución de referencia)."""
    import nbformat

    from tutor_lib.calificacion.motor.calificador import entrega_de_referencia, fuente

    liberado = nbformat.read(RAIZ / "exercises" / EJERCICIO / f"{EJERCICIO}.ipynb", as_version=4)
    resuelto = entrega_de_referencia(nbformat.read(fuente(EJERCICIO), as_version=4), liberado)
    destino = carpeta / "exercises" / EJERCICIO
    destino.mkdir(parents=True)
    nbformat.write(resuelto, destino / f"{EJERCICIO}.ipynb")


class ServidorJupyter:
    def __init__(self, url: str, token: str, carpeta: Path, proceso: subprocess.Popen, entorno: dict):
        self.url, self.token, self.carpeta, self.proceso, self.entorno = url, token, carpeta, proceso, entorno

    def api(self, ruta: str, metodo: str = "GET"):
        peticion = urllib.request.Request(
            f"{self.url}{ruta}", method=metodo, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(peticion, timeout=30) as r:
            cuerpo = r.read()
        return json.loads(cuerpo) if cuerpo else None

    def url_de(self, cuaderno: str) -> str:
        return f"{self.url}/lab/tree/{cuaderno}?token={self.token}&reset"


def _carpetas_de_jupyter(base: Path) -> dict:
    """Carpetas de Jupyter propias y vacías (nada de $HOME): lo demás lo pone ``tutor curso``.

    Sin noticias, sin buscar versiones, gestor de extensiones de solo lectura y en español: lo
    deciden los ajustes del curso (``tutor_lib/datos/jupyter/``), no la prueba, así que la prueba
    comprueba los del curso.
    """
    return {
        "JUPYTER_CONFIG_DIR": str(base / "config"),
        "JUPYTER_RUNTIME_DIR": str(base / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(base / "ajustes_lab"),
        "JUPYTERLAB_WORKSPACES_DIR": str(base / "espacios"),
        "IPYTHONDIR": str(base / "ipython"),
    }


@contextlib.contextmanager
def _servidor(base: Path, carpeta: Path, argumentos: tuple[str, ...] = (), opcion: str = "--carpeta"):
    """Arranca ``tutor curso --sin-navegador`` sobre ``carpeta`` (puerto libre, token nuevo) y lo apaga al salir.

    ``opcion``: ``--carpeta`` (la sirve tal cual) o ``--trabajo`` (la carpeta de trabajo de un estudiante).
    """
    puerto, token = _puerto_libre(), secrets.token_hex(16)
    entorno = {
        **os.environ,  # ya trae TUTOR_MODO=rapido, HF_HUB_OFFLINE=1 y tests/red en PYTHONPATH (tests/conftest.py)
        **_carpetas_de_jupyter(base),
        # el kernel dibuja como en JupyterLab (inline), no con el Agg de las pruebas
        "MPLBACKEND": "module://matplotlib_inline.backend_inline",
        # como tras `make curso`, que no activa el entorno: su carpeta bin/ no está en el PATH
        # (la pone `tutor curso`; tests/navegador/test_navegador_terminal.py lo comprueba)
        "PATH": os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                                if p and Path(p) != Path(sys.executable).parent),
    }
    registro = (base / "jupyterlab.log").open("wb")
    proceso = subprocess.Popen(
        [sys.executable, "-m", "tutor_lib", "curso", "--sin-navegador", "--puerto", str(puerto),
         "--token", token, opcion, str(carpeta), *argumentos],
        cwd=RAIZ, env=entorno, stdout=registro, stderr=subprocess.STDOUT, start_new_session=True,
    )
    servidor = ServidorJupyter(f"http://127.0.0.1:{puerto}", token, carpeta, proceso, entorno)
    servidor.registro = base / "jupyterlab.log"
    limite = time.monotonic() + ESPERA_SERVIDOR
    try:
        while True:
            if proceso.poll() is not None:
                pytest.fail("JupyterLab terminó al arrancar:\n" + (base / "jupyterlab.log").read_text()[-3000:])
            try:
                servidor.api("/api/status")
                break
            except OSError:
                if time.monotonic() > limite:
                    pytest.fail(f"JupyterLab no respondió en {ESPERA_SERVIDOR} s:\n"
                                + (base / "jupyterlab.log").read_text()[-3000:])
                time.sleep(0.5)
        yield servidor
    finally:
        try:  # apaga los kernels (jupyter_client los lanza en su propia sesión de procesos)
            for kernel in servidor.api("/api/kernels") or []:
                servidor.api(f"/api/kernels/{kernel['id']}", metodo="DELETE")
        except Exception:
            pass
        try:
            os.killpg(proceso.pid, signal.SIGTERM)
            proceso.wait(timeout=20)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(proceso.pid, signal.SIGKILL)
            proceso.wait(timeout=10)
        registro.close()


@pytest.fixture(scope="session")
def servidor_jupyter(tmp_path_factory):
    """La interfaz de estudiante (la de ``make curso``) en una carpeta de trabajo con un ejercicio resuelto."""
    base = tmp_path_factory.mktemp("jupyter_navegador")
    carpeta = base / "trabajo"
    carpeta.mkdir()
    for nombre, celdas in CUADERNOS_MINIMOS.items():
        (carpeta / nombre).write_text(json.dumps(_cuaderno(celdas), ensure_ascii=False), encoding="utf-8")
    _ejercicio_resuelto(carpeta)
    with _servidor(base, carpeta, opcion="--trabajo") as servidor:
        yield servidor


@pytest.fixture
def servidor_profesor(tmp_path_factory):
    """La interfaz del instructor (``make curso-profesor``): el mismo ejercicio, con course/nbgrader_config.py."""
    base = tmp_path_factory.mktemp("jupyter_profesor")
    carpeta = base / "curso"
    (carpeta / "course").mkdir(parents=True)
    shutil.copy2(RAIZ / "course" / "nbgrader_config.py", carpeta / "course" / "nbgrader_config.py")
    _ejercicio_resuelto(carpeta)
    with _servidor(base, carpeta, ("--profesor",)) as servidor:
        yield servidor


# ---------------------------------------------------------------------------
# Una pestaña por prueba, con captura al final
# ---------------------------------------------------------------------------


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    resultado = yield
    informe = resultado.get_result()
    setattr(item, f"informe_{informe.when}", informe)


@pytest.fixture
def pagina(navegador, request):
    pagina = navegador.new_page()
    yield pagina
    CAPTURAS.mkdir(exist_ok=True)
    nombre = re.sub(r"[^A-Za-z0-9_.-]", "_", request.node.name)
    informe = getattr(request.node, "informe_call", None)
    fallo = informe is None or informe.failed
    try:  # que la captura muestre el estado final, no un redibujo a medias (una terminal no tiene kernel)
        if pagina.locator(".jp-NotebookPanel:visible").count():
            pagina.locator(".jp-StatusBar-Widget", has_text=re.compile(r"\|\s*Idle")).first.wait_for(timeout=30_000)
        pagina.wait_for_timeout(500)
    except Exception:
        pass
    try:
        pagina.screenshot(path=str(CAPTURAS / f"{nombre}{'-FALLO' if fallo else ''}.png"), full_page=False)
    finally:
        pagina.close()
