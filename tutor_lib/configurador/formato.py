"""Formato de los números en los mensajes del configurador (``2e-5``, «6.1 %», «1 aviso»).

Lo usan las reglas, el código generado y la vista del configurador de
lessons/04_warmup_y_regularizacion.
"""

from __future__ import annotations

from tutor_lib.formato import numero, porcentaje


def _fmt(x: float) -> str:
    """Número corto para mensajes, como se escribe en código: 2e-05 → 2e-5, 0.0001 → 1e-4."""
    if x != 0 and abs(x) < 1e-2:
        mantisa, exponente = f"{x:.2e}".split("e")
        mantisa = mantisa.rstrip("0").rstrip(".")
        return f"{mantisa}e{int(exponente)}"
    return f"{x:.3g}"


def _pct(fraccion: float, decimales: int = 0) -> str:
    """Porcentaje como en course/GLOSARIO.md: 0.061 → «6.1 %»."""
    return porcentaje(fraccion, decimales)


def _plural(n: int, singular: str, plural: str) -> str:
    return f"{n} {singular if n == 1 else plural}"


def _gib(bytes_: float) -> str:
    """Bytes en GiB con un decimal: «1.5 GiB»."""
    return numero(bytes_ / 2**30, 1) + " GiB"
