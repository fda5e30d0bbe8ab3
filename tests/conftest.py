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
