"""Cómo repartir un lote efectivo entre lote por dispositivo y acumulación de gradientes.

Cambiar el lote por dispositivo sin tocar el lote efectivo exige que
``lote × gradient_accumulation_steps`` dé **exactamente** el mismo producto: el
nuevo lote tiene que ser un divisor. Si el mayor lote que cabe no lo es, se
dice aparte cuánto cambia el lote efectivo (y que la tasa de aprendizaje se
ajustó para el otro). Lo usan las reglas de memoria y de lote del configurador
(lessons/04_warmup_y_regularizacion).
"""

from __future__ import annotations

import math


def divisor_mayor(n: int, tope: int) -> int:
    """El mayor divisor de ``n`` que no pasa de ``tope`` (al menos 1).

    ``divisor_mayor(16, 9)`` → 8; ``divisor_mayor(17, 9)`` → 1.
    """
    if n < 1 or tope < 1:
        raise ValueError(f"divisor_mayor necesita n ≥ 1 y tope ≥ 1; recibí n={n}, tope={tope}.")
    mejor = 1
    for d in range(1, math.isqrt(n) + 1):
        if n % d == 0:
            for candidato in (d, n // d):
                if mejor < candidato <= tope:
                    mejor = candidato
    return mejor


def desglose(lote: int, acumulacion: int, dispositivos: int = 1) -> str:
    """«8 × 2 = 16» (o «8 × 2 × 2 dispositivos = 32»): el lote efectivo con sus factores."""
    total = lote * acumulacion * dispositivos
    if dispositivos == 1:
        return f"{lote} × {acumulacion} = {total}"
    return f"{lote} × {acumulacion} × {dispositivos} dispositivos = {total}"


def repartir_lote(lote: int, acumulacion: int, maximo: int, dispositivos: int = 1) -> str:
    """Consejo para bajar el lote por dispositivo a ``maximo`` o menos sin cambiar el lote efectivo.

    Elige el mayor divisor ``d`` de ``lote × acumulacion`` que no pasa de
    ``maximo`` y da ``gradient_accumulation_steps = lote × acumulacion / d``:
    mismo lote efectivo, exacto. Si ``maximo`` no es divisor y con él se
    acumularían menos pasos, añade esa alternativa diciendo de cuánto a cuánto
    cambia el lote efectivo. Ejemplo: ``repartir_lote(16, 1, 9)`` → «lote 8 con
    gradient_accumulation_steps=2 (mismo lote efectivo: 8 × 2 = 16)».
    """
    por_dispositivo = lote * acumulacion
    nuevo = divisor_mayor(por_dispositivo, maximo)
    pasos = por_dispositivo // nuevo
    texto = (
        f"lote {nuevo} con gradient_accumulation_steps={pasos} "
        f"(mismo lote efectivo: {desglose(nuevo, pasos, dispositivos)})"
    )
    pasos_maximo = math.ceil(por_dispositivo / maximo)
    if nuevo < maximo and pasos_maximo < pasos:
        antes = por_dispositivo * dispositivos
        despues = maximo * pasos_maximo * dispositivos
        texto += (
            f", o lote {maximo} con gradient_accumulation_steps={pasos_maximo}, que cambia el lote efectivo "
            f"de {antes} a {despues} ({desglose(maximo, pasos_maximo, dispositivos)}; vuelve a ajustar lr)"
        )
    return texto


def acumulacion_para(lote: int, objetivo: int, dispositivos: int = 1) -> tuple[int, int]:
    """(acumulación, lote efectivo resultante) para acercarse a ``objetivo`` desde abajo o justo encima.

    La acumulación es ``ceil(objetivo / (lote × dispositivos))``: el lote
    efectivo que resulta es el primer múltiplo de ``lote × dispositivos`` que
    llega a ``objetivo`` (con lote 3 y objetivo 16, acumulación 6 y lote
    efectivo 18).
    """
    acumulacion = max(1, math.ceil(objetivo / (lote * dispositivos)))
    return acumulacion, lote * acumulacion * dispositivos
