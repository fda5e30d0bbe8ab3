"""Cómo se escriben las cifras y los pasos en las explicaciones del diagnóstico (lessons/09_curvas_de_entrenamiento).

Funciones puras, sin :class:`~tutor_lib.curvas.lectura.Curvas`: las usan la lectura, las reglas, el texto y la gráfica.
"""

from __future__ import annotations

import math

import numpy as np

from tutor_lib.formato import porcentaje


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


def _fmt_paso(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.3g}"


def _fmt_epoca(e: float) -> str:
    return str(int(round(e))) if abs(e - round(e)) < 0.05 else f"{e:.1f}"
