"""Tiempo de cada lección en modo rápido en esta máquina (ejecución completa, sin red)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[1]


def medir() -> list[tuple[str, str, str]]:
    sys.path.insert(0, str(RAIZ / "tests"))
    from cuadernos import ejecutar_cuaderno

    filas = []
    os.environ["TUTOR_MODO"] = "rapido"
    for ruta in sorted((RAIZ / "lessons").glob("[0-9][0-9]_*.ipynb")):
        _, segundos = ejecutar_cuaderno(ruta)
        filas.append((f"lección {ruta.stem}", f"{segundos:.0f} s", "modo rápido, CPU, notebook completo"))
    return filas
