"""Configuración común de las pruebas: sin red, modo rápido, semillas fijas.

Toda prueba corre con la red bloqueada (solo loopback), en este proceso y en
cualquier proceso Python hijo (kernels, ``tutor``, nbgrader): ver
``tests/red/sitecustomize.py``. Si algo intenta salir a la red, la prueba falla
aunque la biblioteca haya capturado el error.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

RAIZ = Path(__file__).resolve().parents[1]
CARPETA_RED = Path(__file__).resolve().parent / "red"
REGISTRO_RED = Path(os.environ.get("TMPDIR", "/tmp")) / f"tutor_registro_red_{os.getpid()}.log"

os.environ.update(
    {
        "TUTOR_BLOQUEAR_RED": "1",
        "TUTOR_REGISTRO_RED": str(REGISTRO_RED),
        "TUTOR_MODO": "rapido",
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "DO_NOT_TRACK": "1",
        "TOKENIZERS_PARALLELISM": "false",
        "MPLBACKEND": "Agg",
        "PYTHONPATH": os.pathsep.join(
            [str(CARPETA_RED)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        ),
    }
)
sys.path.insert(0, str(CARPETA_RED))
sys.modules.pop("sitecustomize", None)
import sitecustomize  # noqa: E402,F401  (instala el bloqueo en este proceso)

if str(RAIZ) not in sys.path:
    sys.path.insert(0, str(RAIZ))


#: Archivos de pruebas que leen lecciones ejecutadas (o vigilan git mientras se ejecuta un cuaderno): van al final.
_LEEN_LECCIONES = ("test_ajuste_rapido.py", "test_lecciones.py", "test_sitio.py")


def _lee_lecciones(item) -> bool:
    return item.path.parent.name == "lecciones" or item.path.name in _LEEN_LECCIONES


def _leccion_que_ejecuta(item) -> Path | None:
    """La lección que ejecuta entera una prueba marcada ``cuaderno`` (``None`` si no es una lección del curso)."""
    if item.get_closest_marker("cuaderno") is None:
        return None
    ruta = getattr(item, "callspec", None) and item.callspec.params.get("ruta")
    if ruta is None:
        numero = item.path.stem.removeprefix("test_") if item.path.parent.name == "lecciones" else None
        encontradas = sorted((RAIZ / "lessons").glob(f"{numero}_*.ipynb")) if numero else []
        ruta = encontradas[0] if encontradas else getattr(item.module, "LECCION", None)
    if ruta is None or Path(ruta).resolve().parent != RAIZ / "lessons":
        return None
    return Path(ruta).resolve()


@pytest.hookimpl(trylast=True)  # después de -k, -m y --deselect: solo cuenta lo que de verdad va a correr
def pytest_collection_modifyitems(config, items):
    """Deja para el final las pruebas que leen lecciones ejecutadas y empieza a ejecutarlas ya, en otro proceso.

    Ejecutar las lecciones es casi la mitad de ``make test``. Mientras un proceso aparte las ejecuta
    (``cuadernos.adelantar``), este corre el resto de las pruebas; cuando llega a las de las lecciones, sus
    resultados ya están o llegan pronto. ``TUTOR_PRUEBAS_EN_SERIE=1`` lo apaga (todo en un proceso, como antes:
    para medir cuánto tarda una lección sola).
    """
    items[:] = [i for i in items if not _lee_lecciones(i)] + [i for i in items if _lee_lecciones(i)]
    if config.option.collectonly or os.environ.get("TUTOR_PRUEBAS_EN_SERIE") == "1":
        return
    import cuadernos

    lecciones = []
    for item in items:
        leccion = _leccion_que_ejecuta(item)
        if leccion is not None and leccion not in lecciones:
            lecciones.append(leccion)
    cuadernos.adelantar(lecciones)  # en el orden en que las pedirán las pruebas


def pytest_sessionfinish(session, exitstatus):
    import cuadernos

    cuadernos.detener_adelanto()


def intentos_de_red() -> list[str]:
    if not REGISTRO_RED.exists():
        return []
    return [l for l in REGISTRO_RED.read_text(encoding="utf-8").splitlines() if l.strip()]


@pytest.fixture(autouse=True)
def _sin_red():
    """Falla la prueba si ella (o un proceso hijo) intentó abrir la red."""
    antes = len(intentos_de_red())
    yield
    nuevos = intentos_de_red()[antes:]
    if nuevos:
        pytest.fail("La prueba intentó usar la red (bloqueada): " + "; ".join(nuevos[:5]))


@pytest.fixture(scope="session")
def raiz() -> Path:
    return RAIZ
