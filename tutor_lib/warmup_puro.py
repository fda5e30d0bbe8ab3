"""Las tasas de aprendizaje de :mod:`tutor_lib.warmup`, en Python puro (sin torch ni transformers).

``tutor warmup`` las usa para responder al instante: importar torch y
transformers tarda de 3 a 15 s en una CPU modesta. Cada ``_factor_*`` repite,
operación por operación, la ``lr_lambda`` que ``transformers.get_scheduler``
(transformers 5.24) entrega a ``torch.optim.lr_scheduler.LambdaLR``, que da cada
paso con la tasa ``lr × factor(paso)``; por eso los floats salen idénticos a los
de :func:`tutor_lib.warmup.tasas_de_aprendizaje`, que corre el scheduler real.
tests/test_cli_espanol.py lo comprueba valor a valor para cada tipo de
``warmup.TIPOS`` y sus opciones: si una versión nueva de transformers cambia una
fórmula, esa prueba falla y hay que copiarla aquí otra vez.

La validación (mensajes en español) es la misma de :mod:`tutor_lib.warmup`.
Se usa en ``tutor warmup`` (lessons/04_warmup_y_regularizacion).
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any, Callable

from tutor_lib import warmup

#: Opciones extra (``lr_scheduler_kwargs``) de cada tipo; una prueba comprueba que
#: coinciden con :func:`tutor_lib.warmup.opciones_validas`, que las lee de transformers.
OPCIONES_VALIDAS: dict[str, tuple[str, ...]] = {
    "linear": (),
    "cosine": ("num_cycles",),
    "cosine_with_restarts": ("num_cycles",),
    "polynomial": ("lr_end", "power"),
    "constant": (),
    "constant_with_warmup": (),
    "inverse_sqrt": ("timescale",),
    "cosine_with_min_lr": ("num_cycles", "min_lr", "min_lr_rate"),
    "cosine_warmup_with_min_lr": ("num_cycles", "min_lr", "min_lr_rate", "warmup_lr_rate"),
    "warmup_stable_decay": (
        "num_decay_steps", "num_stable_steps", "warmup_type", "decay_type", "min_lr_ratio", "num_cycles",
    ),
}


def _factor_constante(_paso: int):
    return 1


def _factor_constante_con_warmup(paso: int, *, warmup: int) -> float:
    if paso < warmup:
        return float(paso) / float(max(1.0, warmup))
    return 1.0


def _factor_lineal(paso: int, *, warmup: int, total: int) -> float:
    if paso < warmup:
        return float(paso) / float(max(1, warmup))
    return max(0.0, float(total - paso) / float(max(1, total - warmup)))


def _factor_coseno(paso: int, *, warmup: int, total: int, num_cycles: float, min_lr_rate: float = 0.0):
    # transformers define dos funciones con este nombre; get_scheduler usa la segunda (con min_lr_rate)
    if paso < warmup:
        return float(paso) / float(max(1, warmup))
    progreso = float(paso - warmup) / float(max(1, total - warmup))
    factor = 0.5 * (1.0 + math.cos(math.pi * float(num_cycles) * 2.0 * progreso))
    factor = factor * (1 - min_lr_rate) + min_lr_rate
    return max(0, factor)


def _factor_coseno_con_reinicios(paso: int, *, warmup: int, total: int, num_cycles: int) -> float:
    if paso < warmup:
        return float(paso) / float(max(1, warmup))
    progreso = float(paso - warmup) / float(max(1, total - warmup))
    if progreso >= 1.0:
        return 0.0
    return max(0.0, 0.5 * (1.0 + math.cos(math.pi * ((float(num_cycles) * progreso) % 1.0))))


def _factor_polinomico(paso: int, *, warmup: int, total: int, lr_end: float, power: float, lr_init: float):
    if paso < warmup:
        return float(paso) / float(max(1, warmup))
    if paso > total:
        return lr_end / lr_init
    rango = lr_init - lr_end
    pasos_decaimiento = total - warmup
    restante = 1 - (paso - warmup) / pasos_decaimiento
    return (rango * restante**power + lr_end) / lr_init


def _factor_raiz_inversa(paso: int, *, warmup: int, timescale: int) -> float:
    if paso < warmup:
        return float(paso) / float(max(1, warmup))
    desplazamiento = timescale - warmup
    return 1.0 / math.sqrt((paso + desplazamiento) / timescale)


def _factor_coseno_warmup_min_lr(
    paso: int, *, warmup: int, total: int, num_cycles: float, min_lr_rate: float = 0.0,
    warmup_lr_rate: float | None = None,
):
    paso, warmup, total = float(paso), float(warmup), float(total)
    if paso < warmup:
        if warmup_lr_rate is None:
            return (paso + 1.0) / max(1.0, warmup)
        warmup_lr_rate = float(warmup_lr_rate)
        return warmup_lr_rate + (1.0 - warmup_lr_rate) * (paso) / (max(1, warmup - 1))
    progreso = (paso - warmup + 1.0) / (max(1.0, total - warmup))
    factor = 0.5 * (1.0 + math.cos(math.pi * num_cycles * 2.0 * progreso))
    factor = factor * (1 - min_lr_rate) + min_lr_rate
    return max(0, factor)


def _forma(tipo_curva: str, progreso: float, *, subida: bool, num_cycles: float) -> float:
    if tipo_curva == "linear":
        return progreso if subida else 1.0 - progreso
    if tipo_curva == "cosine":
        if subida:
            return 0.5 * (1.0 - math.cos(math.pi * progreso))
        return 0.5 * (1.0 + math.cos(math.pi * float(num_cycles) * 2.0 * progreso))
    # "1-sqrt"
    return 1.0 - math.sqrt(1.0 - progreso) if subida else 1.0 - math.sqrt(progreso)


def _factor_wsd(
    paso: int, *, warmup: int, estables: int, decaimiento: int, warmup_type: str, decay_type: str,
    min_lr_ratio: float, num_cycles: float,
):
    if paso < warmup:
        progreso = float(paso) / float(max(1, warmup))
        factor = _forma(warmup_type, progreso, subida=True, num_cycles=num_cycles)
        return max(0.0, factor * (1.0 - min_lr_ratio) + min_lr_ratio)
    if paso < warmup + estables:
        return 1.0
    if paso < warmup + estables + decaimiento:
        progreso = float(paso - warmup - estables) / float(max(1, decaimiento))
        factor = _forma(decay_type, progreso, subida=False, num_cycles=num_cycles)
        return max(0.0, factor * (1.0 - min_lr_ratio) + min_lr_ratio)
    return min_lr_ratio


def _funcion_factor(tipo: str, lr: float, warmup_: int, total: int, op: dict[str, Any]) -> Callable[[int], float]:
    """El ``lr_lambda`` que armaría ``get_scheduler(tipo, ...)``, con sus valores por defecto."""
    if tipo == "constant":
        return _factor_constante
    if tipo == "constant_with_warmup":
        return partial(_factor_constante_con_warmup, warmup=warmup_)
    if tipo == "linear":
        return partial(_factor_lineal, warmup=warmup_, total=total)
    if tipo == "cosine":
        return partial(_factor_coseno, warmup=warmup_, total=total, num_cycles=op.get("num_cycles", 0.5))
    if tipo == "cosine_with_restarts":
        return partial(_factor_coseno_con_reinicios, warmup=warmup_, total=total, num_cycles=op.get("num_cycles", 1))
    if tipo == "polynomial":
        lr_end = op.get("lr_end", 1e-7)
        if not (lr > lr_end):
            raise ValueError(f"lr_end ({lr_end}) debe ser menor que lr ({lr}).")
        return partial(_factor_polinomico, warmup=warmup_, total=total, lr_end=lr_end,
                       power=op.get("power", 1.0), lr_init=lr)
    if tipo == "inverse_sqrt":
        timescale = op.get("timescale")
        if timescale is None:
            timescale = warmup_ or 10_000
        return partial(_factor_raiz_inversa, warmup=warmup_, timescale=timescale)
    if tipo in ("cosine_with_min_lr", "cosine_warmup_with_min_lr"):
        min_lr, min_lr_rate = op.get("min_lr"), op.get("min_lr_rate")
        if min_lr is not None and min_lr_rate is not None:
            raise ValueError("Da min_lr o min_lr_rate, no ambos.")
        if min_lr is not None:
            min_lr_rate = min_lr / lr
        elif min_lr_rate is None:
            raise ValueError("Falta min_lr o min_lr_rate (--opcion min_lr_rate=0.1).")
        if tipo == "cosine_with_min_lr":
            return partial(_factor_coseno, warmup=warmup_, total=total, num_cycles=op.get("num_cycles", 0.5),
                           min_lr_rate=min_lr_rate)
        return partial(_factor_coseno_warmup_min_lr, warmup=warmup_, total=total,
                       num_cycles=op.get("num_cycles", 0.5), min_lr_rate=min_lr_rate,
                       warmup_lr_rate=op.get("warmup_lr_rate"))
    # warmup_stable_decay: get_scheduler le pasa num_training_steps=total
    decaimiento = op["num_decay_steps"]
    estables = op.get("num_stable_steps")
    if estables is None:
        estables = total - warmup_ - decaimiento
    return partial(_factor_wsd, warmup=warmup_, estables=estables, decaimiento=decaimiento,
                   warmup_type=op.get("warmup_type", "linear"), decay_type=op.get("decay_type", "cosine"),
                   min_lr_ratio=op.get("min_lr_ratio", 0), num_cycles=op.get("num_cycles", 0.5))


def tasas_de_aprendizaje(
    lr: float,
    pasos_totales: int,
    pasos_warmup: int | float = 0,
    tipo: str = "linear",
    **opciones: Any,
) -> list[float]:
    """Tasa de aprendizaje (misma unidad que ``lr``) en cada paso 0, 1, …, pasos_totales−1.

    Los mismos argumentos, validaciones y valores (float a float) que
    :func:`tutor_lib.warmup.tasas_de_aprendizaje`, sin importar torch.
    Se usa en ``tutor warmup`` (lessons/04_warmup_y_regularizacion).
    """
    lr = warmup._validar_lr(lr)
    total = warmup._entero("pasos_totales", pasos_totales, 1, warmup.MAX_PASOS)
    tipo = warmup._validar_tipo(tipo)
    pasos = warmup.pasos_de_warmup(pasos_warmup, total)
    efectivas = warmup._opciones_efectivas(tipo, lr, total, pasos, opciones, OPCIONES_VALIDAS[tipo])
    try:
        factor = _funcion_factor(tipo, lr, pasos, total, efectivas)
        return [float(lr * factor(paso)) for paso in range(total)]
    except (ValueError, TypeError, ZeroDivisionError, OverflowError) as exc:
        raise ValueError(f"El schedule {tipo!r} no acepta las opciones {efectivas}: {exc}") from exc


def tabla_warmup(tasas: list[float], pasos_warmup: int) -> list[warmup.FilaWarmup]:
    """Las filas ``(paso, lr)`` que imprime ``tutor warmup``: inicio, un quinto y mitad del warmup,
    su final, el medio de lo que sigue y el último paso (como :func:`tutor_lib.warmup.tabla_warmup`).
    """
    return [warmup.FilaWarmup(p, tasas[p]) for p in warmup._pasos_por_defecto(len(tasas), pasos_warmup)]
