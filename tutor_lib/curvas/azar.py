"""Explosiones de la pérdida y el nivel del azar cuando la corrida no lo dice (issue 42).

Dos piezas puras que usan las reglas de :mod:`tutor_lib.curvas.reglas` (lessons/09_curvas_de_entrenamiento):

- :func:`buscar_explosion`: un registro que vale cien veces lo más bajo que hubo antes, o un primer tramo
  que ya está por encima de lo que puede valer una entropía cruzada al empezar. La mediana móvil de las
  reglas borra un pico de un solo registro; esto no lo mira suavizado.
- :func:`estimar_azar`: sin ``config.json`` no se sabe cuántas clases hay, pero la curva lo deja ver. Un
  modelo recién inicializado reparte la probabilidad casi por igual y empieza cerca de ln(C); uno que
  explotó y colapsó queda plano en ln(C). La estimación se dice como estimación en la explicación.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tutor_lib.curvas.formato import _fmt
from tutor_lib.curvas.umbrales import (
    CLASES_MAX_COLA,
    COLA_PLANA,
    FACTOR_ARRANQUE_EXPLOTADO,
    FACTOR_EXPLOSION,
    LN_MAX_OPCIONES,
    MARGEN_AZAR,
    PISO_SALTO,
)
from tutor_lib.formato import entero


@dataclass(frozen=True)
class Explosion:
    """Dónde explotó la pérdida de entrenamiento (índices de la serie finita) y qué pasó después."""

    #: ``"salto"`` (un registro ≥ 100 veces lo más bajo antes) o ``"arranque"`` (el primer tramo ya explotado).
    tipo: str
    indice_pico: int
    pico: float
    #: Lo más bajo registrado antes del salto (``None`` si la corrida arrancó explotada).
    antes: float | None
    #: Cuántas veces ``antes`` (o el nivel final, en el arranque) vale el pico.
    veces: float
    #: Mediana del último tercio de lo que sigue al pico (``nan`` si no sigue nada).
    nivel_cola: float
    #: La pérdida dejó de bajar después del pico (ver ``COLA_PLANA``).
    cola_plana: bool


def buscar_explosion(y: np.ndarray, k: int, final: float) -> Explosion | None:
    """La explosión de la serie finita ``y`` (``k`` = puntos del arranque, ``final`` = nivel final), o ``None``."""
    n = len(y)
    if n < 2 or not final >= 0:
        return None
    antes = np.minimum.accumulate(y)[:-1]
    referencia = np.maximum(antes, PISO_SALTO * y[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        saltos = np.where(referencia > 0, y[1:] / referencia, np.inf)
    i_salto = int(np.argmax(saltos)) + 1
    if saltos[i_salto - 1] >= FACTOR_EXPLOSION:
        i_pico = i_salto + int(np.argmax(y[i_salto:]))
        tipo, previo, veces = "salto", float(antes[i_salto - 1]), float(saltos[i_salto - 1])
    else:
        i_pico = int(np.argmax(y[:k]))
        arranque = float(y[i_pico])
        if not (arranque > LN_MAX_OPCIONES and arranque >= FACTOR_ARRANQUE_EXPLOTADO * final):
            return None
        tipo, previo = "arranque", None
        veces = arranque / final if final > 0 else math.inf
    cola = y[i_pico + 1:]
    if len(cola) >= 4:
        mitad = len(cola) // 2
        nivel_cola = float(np.median(cola[-max(2, len(cola) // 3):]))
        plana = float(np.median(cola[mitad:])) >= COLA_PLANA * float(np.median(cola[:mitad]))
    else:
        nivel_cola, plana = (float(np.median(cola)) if len(cola) else math.nan), False
    if tipo == "arranque" and not (plana and clases_de(nivel_cola, CLASES_MAX_COLA) is not None):
        # una MSE puede empezar en cientos y bajar sana: solo cuenta si después quedó plana en ln(C)
        return None
    return Explosion(tipo, i_pico, float(y[i_pico]), previo, veces, nivel_cola, bool(plana))


def clases_de(nivel: float, maximo: int | None = None) -> int | None:
    """El C con ln(C) más cerca de ``nivel`` (dentro de ``MARGEN_AZAR``), entre 2 y ``maximo``; si no, ``None``."""
    if not (math.isfinite(nivel) and nivel > 0):
        return None
    if nivel > LN_MAX_OPCIONES * (1 + MARGEN_AZAR):
        return None
    clases = max(2, int(round(math.exp(nivel))))
    if maximo is not None and clases > maximo:
        return None
    return clases if abs(nivel - math.log(clases)) <= MARGEN_AZAR * math.log(clases) else None


def origen_estimado(clases: int, donde: str) -> str:
    """Las palabras de un nivel del azar estimado: ln(C), de dónde salió y que la corrida no lo dice."""
    return f"estimado: ln({entero(clases)}) = {_fmt(math.log(clases))}, {donde}; la corrida no dice cuántas clases hay"


def estimar_azar(y: np.ndarray, k: int, explosion: Explosion | None) -> tuple[float, str] | None:
    """El nivel del azar estimado con la curva (sin ``config.json``), con sus palabras; ``None`` si no se puede.

    1. Si la corrida explotó y quedó plana en ln(C) para un C de 2 a 100, ese es el azar: un modelo que
       colapsó predice siempre lo mismo y pierde lo que pierde uno que adivina.
    2. Si no, si empezó cerca de ln(C) (el primer registro, o la mediana de los primeros si no explotó ahí),
       ese: un modelo recién inicializado reparte la probabilidad casi por igual.
    """
    if explosion is not None and explosion.cola_plana:
        clases = clases_de(explosion.nivel_cola, CLASES_MAX_COLA)
        if clases is not None:
            return math.log(clases), origen_estimado(clases, "donde quedó plana después de explotar")
    if explosion is not None and explosion.indice_pico < k:
        if explosion.tipo == "arranque" or explosion.indice_pico == 0:
            return None
        inicio = float(y[0])
    else:
        inicio = float(np.median(y[:k]))
    clases = clases_de(inicio)
    if clases is None:
        return None
    return math.log(clases), origen_estimado(clases, f"cerca de donde empezó ({_fmt(inicio)})")
