"""QLoRA en la CPU: una trampa silenciosa de bitsandbytes y cómo evitarla (lessons/11_qlora y lessons/14_proyecto_final).

En una CPU con instrucciones AVX512-BF16 (muchos Xeon y algunos AMD recientes), ``bitsandbytes`` 0.50 acelera la
inferencia en 4 bits **reacomodando** los pesos de cada capa ``Linear4bit`` a un formato propio la primera vez que
la capa hace un *forward* en modo evaluación y sin gradientes (``model.eval()`` + ``torch.no_grad()``: justo lo que
hacen ``generate`` y ``Trainer.evaluate``). Ese formato sirve para inferir, pero en ese camino la capa no deja pasar
el gradiente hacia su entrada: si después entrenas LoRA, la mayoría de los adaptadores reciben gradiente cero y la
pérdida apenas se mueve, sin ningún error (a lo sumo, un aviso de PyTorch en inglés que sale una sola vez:
«an autograd kernel was not registered»). Y si una capa tiene un número de salidas que no es múltiplo de 32,
el reacomodo directamente falla con un ``AssertionError``.

:func:`evitar_reempaquetado` apaga esa optimización en cada capa de 4 bits: llámala una vez, justo después de
cargar el modelo cuantizado (si el reacomodo ya ocurrió, avisa: hay que cargar el modelo otra vez). En una GPU o
en una CPU sin AVX512-BF16 no cambia nada.
"""

from __future__ import annotations


def capas_4bit(modelo) -> list:
    """Las capas ``bitsandbytes.nn.Linear4bit`` del modelo (vacía si no hay bitsandbytes o no está cuantizado)."""
    try:
        from bitsandbytes.nn import Linear4bit
    except ImportError:
        return []
    return [m for m in modelo.modules() if isinstance(m, Linear4bit)]


def _reempaquetada(capa) -> bool:
    return bool(getattr(getattr(capa.weight, "quant_state", None), "packing_format_for_cpu", False))


def capas_reempaquetadas(modelo) -> int:
    """Cuántas capas de 4 bits tienen hoy sus pesos en el formato de inferencia de la CPU (el que corta el gradiente)."""
    return sum(_reempaquetada(capa) for capa in capas_4bit(modelo))


class PesosReempaquetados(RuntimeError):
    """El modelo ya infirió en la CPU con los pesos de 4 bits reacomodados: hay que cargarlo de nuevo."""


def evitar_reempaquetado(modelo) -> int:
    """Impide que cada capa de 4 bits reacomode sus pesos para inferir en la CPU; devuelve cuántas capas protegió.

    Llámala justo después de cargar con ``BitsAndBytesConfig`` y antes de evaluar o generar. Si el modelo ya
    reacomodó algún peso, lanza :class:`PesosReempaquetados`: bitsandbytes 0.50 no sabe deshacerlo bien (su
    conversión inversa devuelve pesos que ya no son los del modelo: sin doble cuantización deja traspuestas las
    escalas de los bloques; con ella, redondeadas a bf16; lo comprueba tests/test_qlora.py), así que lo único
    seguro es cargar el modelo otra vez. Se usa en lessons/11_qlora y lessons/14_proyecto_final.
    """
    capas = capas_4bit(modelo)
    reacomodadas = sum(_reempaquetada(capa) for capa in capas)
    if reacomodadas:
        raise PesosReempaquetados(
            f"{reacomodadas} de {len(capas)} capas de 4 bits ya reacomodaron sus pesos para inferir en esta CPU "
            "(pasó al evaluar o generar en modo eval): entrenar LoRA así deja sin gradiente a casi todos los "
            "adaptadores. Vuelve a cargar el modelo y llama a qlora.evitar_reempaquetado antes de evaluar."
        )
    for capa in capas:
        capa.support_avx512bf16_for_cpu = False  # la única condición que bitsandbytes mira para reacomodar
    return len(capas)


def adaptadores_con_gradiente(modelo) -> tuple[int, int]:
    """``(con gradiente distinto de cero, total)`` de los parámetros ``lora_B`` tras un ``backward``.

    Al empezar, B vale cero y por eso A recibe gradiente cero: B es el que dice si el gradiente llegó a cada capa.
    """
    matrices = [p for n, p in modelo.named_parameters() if p.requires_grad and "lora_B" in n]
    con = sum(1 for p in matrices if p.grad is not None and bool(p.grad.abs().sum() > 0))
    return con, len(matrices)
