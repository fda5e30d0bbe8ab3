"""Filas básicas: importar tutor_lib, `tutor doctor` sin red y el ajuste rápido en `resenas`."""

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
    from benchmarks.tareas import ajustar_resenas

    importar = min(_tiempo_subproceso([sys.executable, "-c", "import tutor_lib"]) for _ in range(3))
    doctor = _tiempo_subproceso([sys.executable, "-m", "tutor_lib", "doctor"], {"HF_HUB_OFFLINE": ""})
    ajuste = ajustar_resenas()
    return [
        ("import tutor_lib", f"{importar * 1000:.0f} ms", "mejor de 3, proceso nuevo"),
        ("tutor doctor sin Hub", f"{doctor:.1f} s", "incluye arrancar Python e importar torch"),
        (
            "ajuste rápido en resenas (CPU)",
            f"{ajuste.segundos:.0f} s, exactitud {ajuste.exactitud_validacion:.1%}",
            f"all-MiniLM-L6-v2, {ajuste.pasos} pasos, {ajuste.ejemplos_entrenamiento} ejemplos; validación "
            f"antes {ajuste.exactitud_antes:.1%}; entrenamiento después {ajuste.exactitud_entrenamiento:.1%}",
        ),
    ]
