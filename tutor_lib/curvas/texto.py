"""Cómo se escriben las cifras y los pasos en las explicaciones del diagnóstico."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from tutor_lib.formato import porcentaje

if TYPE_CHECKING:
    from tutor_lib.curvas.lectura import Curvas


# --------------------------------------------------------------------------- utilidades numéricas

def _mediana_movil(y: np.ndarray, ventana: int) -> np.ndarray:
    mitad = ventana // 2
    return np.array([np.median(y[max(0, i - mitad): i + mitad + 1]) for i in range(len(y))])


def _fmt(x: float) -> str:
    """Número corto y legible: 3 cifras significativas (0.381, 12.4, 1.2e+04), o entero de 100 a 9999 (8000)."""
    if x is None:
        return "—"
    if not math.isfinite(x):
        return "NaN" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    if x == 0:
        return "0"
    if 100 <= abs(x) < 1e4:
        return f"{x:.0f}"  # 8000, no 8e+03
    if 1e-3 <= abs(x) < 100:
        return f"{x:.3g}"
    return f"{x:.2e}"


def _fmt_pct(fraccion: float) -> str:
    return porcentaje(fraccion, 0)


def _paso_entero(x: float | None):
    if x is None:
        return None
    return int(x) if float(x).is_integer() else float(x)


class _Contexto:
    """Datos comunes para redactar las explicaciones (paso + época)."""

    def __init__(self, curvas: Curvas):
        self.c = curvas

    def donde(self, x: float) -> str:
        eje = self.c.eje
        texto = f"{'el ' if eje != 'época' else 'la '}{eje} {_fmt_paso(x)}"
        ep = self.c.epocas.get(x)
        if ep is not None and eje == "paso":
            texto += f" (época {_fmt_epoca(ep)})"
        return texto


def _fmt_paso(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.3g}"


def _fmt_epoca(e: float) -> str:
    return str(int(round(e))) if abs(e - round(e)) < 0.05 else f"{e:.1f}"
