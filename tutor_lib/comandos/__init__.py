"""Subcomandos del comando ``tutor`` (capa fina sobre los módulos puros)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Resultado:
    """Lo que devuelve un subcomando: datos para ``--json`` y texto para personas."""

    datos: dict[str, Any] = field(default_factory=dict)
    texto: str = ""
    codigo: int = 0
