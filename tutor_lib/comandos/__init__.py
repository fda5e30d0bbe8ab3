"""Subcomandos del comando ``tutor`` (capa fina sobre los módulos puros)."""

from __future__ import annotations

import math

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Resultado:
    """Lo que devuelve un subcomando: datos para ``--json`` y texto para personas."""

    datos: dict[str, Any] = field(default_factory=dict)
    texto: str = ""
    codigo: int = 0


def leer_pasos(opcion: str, texto: str | None, *, fraccion: bool) -> int | float | None:
    """Lee de la línea de órdenes un entero de pasos o (si ``fraccion``) un float en [0, 1).

    Es la semántica de ``warmup_steps``/``logging_steps`` en transformers 5; la usan
    ``tutor warmup`` y ``tutor configurar``. Entrada inválida: ``ValueError`` en español.
    """
    if texto is None:
        return None
    texto = str(texto).strip()
    try:
        return int(texto)
    except ValueError:
        pass
    try:
        valor = float(texto)
    except ValueError:
        raise ValueError(f"{opcion} debe ser un entero de pasos o una fracción en [0, 1); recibí {texto!r}.") from None
    if not math.isfinite(valor) or valor < 0:
        raise ValueError(f"{opcion} debe ser ≥ 0 y finito; recibí {texto!r}.")
    if valor >= 1:
        if not valor.is_integer():
            raise ValueError(f"{opcion} ≥ 1 debe ser un entero de pasos; recibí {texto!r} (¿querías una fracción < 1?).")
        return int(valor)
    if not fraccion:
        raise ValueError(f"{opcion} debe ser un entero; recibí {texto!r}.")
    return valor
