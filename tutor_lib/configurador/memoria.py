"""Memoria del configurador: la estimación de :mod:`tutor_lib.vram` para una configuración.

Traduce una :class:`~tutor_lib.configurador.Configuracion` a los argumentos de
:func:`tutor_lib.vram.estimar_memoria` (precisión, optimizador, ``r`` de LoRA,
checkpointing). El texto «Memoria estimada: ...» y el JSON de la estimación
viven con :class:`~tutor_lib.configurador.Revision`, en ``tipos``. Se usa en lessons/04_warmup_y_regularizacion.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tutor_lib.configurador.tipos import Configuracion


def _precision_vram(config: Configuracion, precision: str) -> str:
    """Traduce la precisión de ``TrainingArguments`` a la de :func:`tutor_lib.vram.estimar_memoria`.

    fp16 siempre es mixta (pesos maestros en fp32: el escalador de pérdida no
    admite gradientes fp16). bf16 es mixta en un clasificador (el checkpoint se
    carga en fp32) y «bf16» puro en un modelo causal (transformers 5 carga el
    dtype del checkpoint, casi siempre bf16).
    """
    if precision == "fp32":
        return "fp32"
    if precision == "bf16" and config.tarea_efectiva == "causal":
        return "bf16"
    return "mixta"


def _optimizador(config: Configuracion) -> str:
    """``adamw_8bit`` para QLoRA en GPU (el ``optim="paged_adamw_8bit"`` que se genera); ``adamw`` si no."""
    return "adamw_8bit" if config.metodo == "qlora" and config.info_gpu is not None else "adamw"


def _argumentos_vram(config: Configuracion, precision: str) -> dict[str, Any]:
    return dict(
        parametros=config.parametros,
        metodo="completo" if config.metodo == "sft" else config.metodo,
        precision=_precision_vram(config, precision),
        optimizador=_optimizador(config),
        r=config.r_efectivo if config.usa_lora else None,
        checkpointing=config.checkpointing_efectivo,
        tarea=config.tarea_efectiva,
    )


def _estimar_memoria(config: Configuracion, precision: str):
    from tutor_lib import vram

    return vram.estimar_memoria(lote=config.lote, secuencia=config.secuencia_efectiva,
                                **_argumentos_vram(config, precision))
