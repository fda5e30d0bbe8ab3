"""Memoria por GPU con varias GPUs: paralelismo de datos (DDP), ZeRO 1/2/3 y FSDP.

Con ``N`` GPUs en paralelo de datos cada una guarda una copia entera del modelo (DDP) o solo una
**partición** (1/N) de lo que la estrategia reparte (Rajbhandari et al., 2020, *ZeRO: Memory
Optimizations Toward Training Trillion Parameter Models*, sección 5 y figura 1):

============  =================================================================
estrategia    qué se divide entre las N GPUs
============  =================================================================
``ddp``       nada: cada GPU tiene pesos, gradientes y optimizador enteros
``zero1``     estados del optimizador (y la copia maestra fp32)
``zero2``     lo anterior y los gradientes
``zero3``     lo anterior y los pesos (y las constantes de cuantización)
``fsdp``      lo mismo que ``zero3`` (``FULL_SHARD`` de PyTorch FSDP)
============  =================================================================

Las activaciones no se dividen: dependen del lote **por dispositivo**, que es el que recibe
:func:`tutor_lib.vram.estimar_memoria`. La comunicación por paso (lo que envía cada GPU) sigue la
sección 7 del mismo artículo con un anillo: un all-reduce de los gradientes (DDP, ZeRO-1 y ZeRO-2
lo hacen como reduce-scatter + all-gather) mueve ``2 (N − 1)/N`` veces su tamaño; ZeRO-3 y FSDP
además reúnen los pesos dos veces (forward y backward): ``(N − 1)/N · (2 · pesos + gradientes)``.

Con la contabilidad del artículo (``contabilidad="zero"``: 2 + 2 + 12 bytes por parámetro) estas
cuentas reproducen su tabla 1 (tests/test_vram_particion.py). La implementación de DeepSpeed estima un
poco más: guarda además una partición de gradientes en fp32 (4 bytes por parámetro entre N) y, en
ZeRO-3, la capa más grande reunida (``benchmarks/b_vram.py`` compara las dos).

Cada estrategia se cuenta, por omisión, como la guarda el motor que la implementa
(:func:`contabilidad_de`): ``zero1``, ``zero2`` y ``zero3`` con la de DeepSpeed (el artículo: pesos y
gradientes en 16 bits y 12 bytes de optimizador por parámetro), ``ddp`` y ``fsdp`` con la de PyTorch
(autocast, o FSDP2 con o sin ``MixedPrecisionPolicy``: pesos, gradientes y estados de AdamW en fp32,
4 + 4 + 8; la copia en bf16 de la capa reunida es transitoria). ``contabilidad=`` la cambia.

Se usa en lessons/13_mas_alla_de_una_gpu y en ``tutor vram --gpus N --estrategia ...``.
"""

from __future__ import annotations

from typing import Mapping

from tutor_lib.vram.base import _entero, _opcion

ESTRATEGIAS = ("ddp", "zero1", "zero2", "zero3", "fsdp")

_ZERO1 = ("estados_optimizador", "copia_maestra_fp32")
_ZERO2 = _ZERO1 + ("gradientes",)
_ZERO3 = _ZERO2 + ("pesos", "constantes_cuantizacion")
#: Componentes que cada estrategia divide entre las GPUs (los demás quedan enteros en cada una): cada
#: etapa de ZeRO divide lo de la anterior y algo más; FSDP ``FULL_SHARD`` es ZeRO-3.
QUE_PARTICIONA: dict[str, tuple[str, ...]] = {
    "ddp": (), "zero1": _ZERO1, "zero2": _ZERO2, "zero3": _ZERO3, "fsdp": _ZERO3,
}

GPUS_MAXIMAS = 1 << 20

#: La contabilidad de la precisión mixta del motor que implementa cada estrategia (ver arriba).
CONTABILIDAD_POR_ESTRATEGIA: dict[str, str] = {
    "ddp": "amp", "zero1": "zero", "zero2": "zero", "zero3": "zero", "fsdp": "amp",
}

#: La contabilidad en palabras, para la tabla de ``tutor vram`` y la lección 13.
CONTABILIDAD_EN_PALABRAS: dict[str, str] = {
    "amp": "la de PyTorch (autocast o FSDP2): pesos, gradientes y estados de AdamW en fp32, 4 + 4 + 8 B por parámetro",
    "zero": "la de DeepSpeed (artículo de ZeRO): pesos y gradientes en 16 bits y 12 B de optimizador, 2 + 2 + 12",
}


def contabilidad_de(estrategia: str, contabilidad: str | None = None) -> str:
    """La contabilidad pedida o, con ``None``, la del motor que implementa ``estrategia``.

    ``contabilidad_de("zero2")`` → ``"zero"`` (DeepSpeed); ``contabilidad_de("fsdp")`` → ``"amp"``.
    """
    estrategia = _opcion("estrategia", estrategia, ESTRATEGIAS)
    return CONTABILIDAD_POR_ESTRATEGIA[estrategia] if contabilidad is None else contabilidad


def validar(gpus: object, estrategia: object) -> tuple[int, str]:
    """``(gpus, estrategia)`` validados, con errores en español."""
    gpus = _entero("gpus", gpus, 1, GPUS_MAXIMAS)
    estrategia = _opcion("estrategia", estrategia, ESTRATEGIAS)
    return gpus, estrategia


def particionar(componentes: Mapping[str, int], gpus: int, estrategia: str) -> dict[str, int]:
    """Bytes que guarda **una** GPU de cada componente, a partir de los de una sola GPU.

    Lo que la estrategia divide se reparte en ``gpus`` partes (redondeando hacia arriba: la GPU
    que más guarda); lo demás queda entero. Ejemplo: 7e9 parámetros con la contabilidad de ZeRO
    en 64 GPUs con ``zero3`` → 16 · 7e9 / 64 = 1.75e9 bytes por GPU.
    """
    gpus, estrategia = validar(gpus, estrategia)
    divididos = QUE_PARTICIONA[estrategia]
    return {k: (-(-int(v) // gpus) if k in divididos else int(v)) for k, v in componentes.items()}


def comunicacion_por_paso(componentes: Mapping[str, int], gpus: int, estrategia: str) -> int:
    """Bytes que **envía cada GPU** en un paso del optimizador (anillo; 0 con una sola GPU).

    ``componentes`` son los de una sola GPU (sin partición). Gradientes: reduce-scatter +
    all-gather, ``2 (N − 1)/N · gradientes``. ZeRO-3 y FSDP suman dos all-gather de los pesos:
    ``(N − 1)/N · (2 · pesos + gradientes)`` en total.
    """
    gpus, estrategia = validar(gpus, estrategia)
    fraccion = (gpus - 1) / gpus
    gradientes = int(componentes.get("gradientes", 0))
    if estrategia in ("zero3", "fsdp"):
        pesos = int(componentes.get("pesos", 0)) + int(componentes.get("constantes_cuantizacion", 0))
        return round(fraccion * (2 * pesos + gradientes))
    return round(fraccion * 2 * gradientes)
