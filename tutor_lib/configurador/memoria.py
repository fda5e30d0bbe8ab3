"""Memoria del configurador: la estimación de :mod:`tutor_lib.vram` para una configuración y su texto.

Traduce una :class:`~tutor_lib.configurador.Configuracion` a los argumentos de
:func:`tutor_lib.vram.estimar_memoria` (precisión, optimizador, ``r`` de LoRA,
checkpointing), da la memoria utilizable de la GPU y escribe «Memoria
estimada: ...». Se usa en lessons/04_warmup_y_regularizacion.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from tutor_lib.configurador.formato import _pct
from tutor_lib.formato import numero
from tutor_lib.configurador.validacion import _nombre_gpu

if TYPE_CHECKING:
    from tutor_lib.configurador.tipos import Configuracion, Revision


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


def _memoria_gpu_bytes(config: Configuracion) -> int | None:
    """Memoria utilizable de la GPU (total − contexto de CUDA − fragmentación, de :mod:`tutor_lib.vram`)."""
    info = config.info_gpu
    if info is None:
        return None
    from tutor_lib import vram

    return int(vram.memoria_utilizable(info))


def _memoria_a_dict(memoria: Any) -> dict[str, Any]:
    if memoria is None:
        return {}
    if hasattr(memoria, "a_dict"):
        datos = memoria.a_dict()
    elif dataclasses.is_dataclass(memoria):
        datos = dataclasses.asdict(memoria)
    else:  # pragma: no cover - por si vram cambia de tipo
        datos = dict(vars(memoria))
    datos = {k: _a_json(v) for k, v in datos.items()}
    if "total_bytes" in datos:
        datos.setdefault("total_gib", round(datos["total_bytes"] / 2**30, 3))
    return datos


def _a_json(valor: Any) -> Any:
    if isinstance(valor, dict):
        return {str(k): _a_json(v) for k, v in valor.items()}
    if isinstance(valor, (list, tuple)):
        return [_a_json(v) for v in valor]
    if isinstance(valor, (str, int, float, bool)) or valor is None:
        return valor
    if dataclasses.is_dataclass(valor):
        return _a_json(dataclasses.asdict(valor))
    return str(valor)


def _gib(bytes_: float) -> str:
    return numero(bytes_ / 2**30, 1) + " GiB"


def _texto_memoria(revision: Revision) -> str:
    total = getattr(revision.memoria, "total_bytes", None)
    if total is None:
        return "Memoria estimada: desconocida"
    texto = f"Memoria estimada: {_gib(total)}"
    memoria_gpu = _memoria_gpu_bytes(revision.configuracion)
    if memoria_gpu:
        texto += (
            f" de {_gib(memoria_gpu)} utilizables en la {_nombre_gpu(revision.configuracion.gpu)} "
            f"({_pct(revision.fraccion_memoria)})"
        )
    return texto
