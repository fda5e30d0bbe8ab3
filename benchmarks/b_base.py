"""Filas básicas: importar tutor_lib y `tutor doctor` sin red (el ajuste rápido está en b_codificador)."""

from __future__ import annotations

import os
import subprocess
import sys
import time


def _tiempo_subproceso(args: list[str], env: dict | None = None) -> float:
    inicio = time.perf_counter()
    subprocess.run(args, check=False, capture_output=True, env={**os.environ, **(env or {})}, timeout=300)
    return time.perf_counter() - inicio


def medir() -> list[tuple[str, str, str]]:
    importar = min(_tiempo_subproceso([sys.executable, "-c", "import tutor_lib"]) for _ in range(3))
    doctor = _tiempo_subproceso([sys.executable, "-m", "tutor_lib", "doctor"], {"HF_HUB_OFFLINE": ""})
    return [
        ("import tutor_lib", f"{importar * 1000:.0f} ms", "mejor de 3, proceso nuevo"),
        ("tutor doctor sin Hub", f"{doctor:.1f} s", "incluye arrancar Python e importar torch"),
    ]
