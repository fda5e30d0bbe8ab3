"""Generación de argumentos: ``TrainingArguments``/``SFTConfig`` con los nombres de transformers 5.

El diccionario de argumentos (:func:`argumentos_de_entrenamiento`), los objetos
reales de transformers y trl y el mismo resultado como código para pegar en un
notebook (:func:`codigo_python`). Se usa en lessons/04_warmup_y_regularizacion
y en ``tutor configurar``.
"""

from __future__ import annotations

from typing import Any

from tutor_lib import warmup as _warmup
from tutor_lib.configurador.constantes import SAVE_STEPS_POR_DEFECTO
from tutor_lib.configurador.formato import _pct
from tutor_lib.configurador.reglas import logging_steps_sugerido
from tutor_lib.configurador.tipos import Configuracion, Revision, _como_configuracion
from tutor_lib.configurador.validacion import _pasos_de_intervalo


def _nombre_checkpointing() -> str:
    """``activation_checkpointing`` si la versión instalada lo tiene (5.x reciente); si no, ``gradient_checkpointing``.

    Lee el código fuente de ``transformers/training_args.py`` como texto en vez
    de importarlo (importar transformers tarda segundos).
    """
    return _nombre_checkpointing_cacheado()


def _leer_nombre_checkpointing() -> str:
    import importlib.util
    from pathlib import Path

    try:
        especificacion = importlib.util.find_spec("transformers")
        if especificacion is None or especificacion.origin is None:
            return "gradient_checkpointing"
        texto = (Path(especificacion.origin).parent / "training_args.py").read_text(encoding="utf-8")
    except (OSError, ImportError, ValueError):  # pragma: no cover - instalación rara
        return "gradient_checkpointing"
    return "activation_checkpointing" if "\n    activation_checkpointing:" in texto else "gradient_checkpointing"


_CACHE_CHECKPOINTING: list[str] = []


def _nombre_checkpointing_cacheado() -> str:
    if not _CACHE_CHECKPOINTING:
        _CACHE_CHECKPOINTING.append(_leer_nombre_checkpointing())
    return _CACHE_CHECKPOINTING[0]


def clase_de_argumentos(configuracion: Configuracion | Revision | None = None, /, **opciones: Any) -> str:
    """``"SFTConfig"`` para modelos causales (``sft``, o LoRA/QLoRA sobre un LLM) y ``"TrainingArguments"`` si no.

    Se usa en lessons/04_warmup_y_regularizacion.
    """
    c = _como_configuracion(configuracion, opciones)
    return "SFTConfig" if c.tarea_efectiva == "causal" else "TrainingArguments"


def _precision_segura(c: Configuracion, corregir: bool) -> str:
    """La precisión efectiva, cambiada por la recomendada si la pedida falla en ese hardware."""
    precision = c.precision_efectiva
    if not corregir:
        return precision
    if c.es_cpu and precision == "fp16":
        return "fp32"
    info = c.info_gpu
    if info is not None and precision == "bf16" and not info.soporta_bf16:
        return "fp16"
    return precision


def argumentos_de_entrenamiento(
    configuracion: Configuracion | Revision | None = None,
    /,
    *,
    output_dir: str = "salida",
    corregir: bool = True,
    **opciones: Any,
) -> dict[str, Any]:
    """Diccionario de argumentos para ``TrainingArguments(**d)`` (o ``SFTConfig(**d)``) con nombres de transformers 5.

    Usa solo nombres actuales: ``eval_strategy``, ``warmup_steps`` (un float en
    [0, 1) es una fracción), ``use_cpu=True`` en CPU, ``report_to="none"``,
    ``activation_checkpointing`` (o ``gradient_checkpointing`` en versiones que
    no lo tienen). ``fp16``/``bf16`` salen de la capacidad de cómputo de la GPU
    si no das ``precision``. Si no das ``logging_steps`` se elige uno que dé
    unos 25 registros (el 500 por defecto no registra nada en un entrenamiento
    corto); con ``eval_strategy="steps"`` y sin ``eval_steps``, unas 10
    evaluaciones; con ``save_strategy="steps"`` y sin ``save_steps``, unos 5
    checkpoints (como mucho 2 guardados a la vez: ``save_total_limit=2``). Para modelos causales añade lo de ``SFTConfig``
    (``max_length``, ``packing``).

    Con ``corregir=True`` (por defecto) se arreglan los errores que tienen un
    único arreglo seguro: bf16 en una GPU sin bf16 → fp16; fp16 en CPU → fp32;
    ``save_strategy``/``save_steps`` alineados con la evaluación si pides
    ``load_best_model_at_end``. El resto se copia tal cual: revisa antes los
    hallazgos con :func:`revisar_configuracion`.
    Se usa en lessons/04_warmup_y_regularizacion.
    """
    c = _como_configuracion(configuracion, opciones)
    if not isinstance(output_dir, str) or not output_dir.strip():
        raise TypeError(f"output_dir debe ser una ruta (texto no vacío); recibí {output_dir!r}.")
    if not isinstance(corregir, bool):
        raise TypeError(f"corregir debe ser True o False; recibí {corregir!r}.")
    total = _warmup.pasos_totales(c.ejemplos, c.lote, c.epocas, c.acumulacion, c.dispositivos, c.max_pasos)
    precision = _precision_segura(c, corregir)
    causal = c.tarea_efectiva == "causal"

    d: dict[str, Any] = {"output_dir": output_dir}
    if c.max_pasos > 0:
        d["max_steps"] = c.max_pasos
    else:
        d["num_train_epochs"] = int(c.epocas) if float(c.epocas).is_integer() else c.epocas
    d["per_device_train_batch_size"] = c.lote
    d["per_device_eval_batch_size"] = 2 * c.lote
    d["gradient_accumulation_steps"] = c.acumulacion
    d["learning_rate"] = c.lr
    d["lr_scheduler_type"] = c.scheduler_efectivo
    d["warmup_steps"] = c.warmup
    d["weight_decay"] = c.weight_decay
    d["max_grad_norm"] = c.max_grad_norm if c.max_grad_norm is not None else 0.0
    d["bf16"] = precision == "bf16"
    d["fp16"] = precision == "fp16"
    if c.es_cpu:
        d["use_cpu"] = True
    if c.checkpointing_efectivo or causal:  # SFTConfig lo activa por defecto: siempre explícito
        d[_nombre_checkpointing()] = c.checkpointing_efectivo
    if c.metodo == "qlora" and c.info_gpu is not None:
        d["optim"] = "paged_adamw_8bit"
    d["logging_steps"] = c.logging_steps if c.logging_steps is not None else logging_steps_sugerido(total)

    eval_steps = None
    d["eval_strategy"] = c.eval_strategy
    if c.eval_strategy == "steps":
        eval_steps = c.eval_steps if c.eval_steps is not None else logging_steps_sugerido(total, objetivo=10)
        d["eval_steps"] = eval_steps
    save_strategy = c.save_strategy
    save_steps = c.save_steps
    if corregir and c.load_best_model_at_end and c.eval_strategy != "no" and save_strategy != "best":
        if save_strategy != c.eval_strategy:
            save_strategy = c.eval_strategy
            save_steps = None
        if save_strategy == "steps" and eval_steps is not None:
            guardar = _pasos_de_intervalo(save_steps if save_steps is not None else SAVE_STEPS_POR_DEFECTO, total)
            if guardar % _pasos_de_intervalo(eval_steps, total) != 0:
                save_steps = None
            if save_steps is None:
                save_steps = eval_steps
    d["save_strategy"] = save_strategy
    if save_strategy == "steps":
        d["save_steps"] = save_steps if save_steps is not None else (
            eval_steps if eval_steps is not None else logging_steps_sugerido(total, objetivo=5)
        )
    if save_strategy != "no":
        d["save_total_limit"] = 2
    if c.load_best_model_at_end:
        d["load_best_model_at_end"] = True
    if c.metric_for_best_model is not None:
        d["metric_for_best_model"] = c.metric_for_best_model
    elif corregir and save_strategy == "best" and not c.load_best_model_at_end:
        d["metric_for_best_model"] = "eval_loss"
    if causal:
        d["max_length"] = c.secuencia_efectiva
        d["packing"] = False
    d["report_to"] = "none"
    d["seed"] = 42
    return d


def _argumentos_sin_sft(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k not in ("max_length", "packing")}


def construir_training_arguments(
    configuracion: Configuracion | Revision | None = None, /, *, output_dir: str = "salida", corregir: bool = True,
    **opciones: Any,
):
    """Crea un ``transformers.TrainingArguments`` real a partir de :func:`argumentos_de_entrenamiento`.

    En un modelo causal deja fuera ``max_length``/``packing`` (son de ``SFTConfig``).
    Si transformers rechaza la combinación, lanza ``ValueError`` en español con
    su mensaje original. Se usa en lessons/04_warmup_y_regularizacion.
    """
    d = _argumentos_sin_sft(argumentos_de_entrenamiento(configuracion, output_dir=output_dir, corregir=corregir, **opciones))
    from transformers import TrainingArguments

    return _construir(TrainingArguments, d)


def construir_sft_config(
    configuracion: Configuracion | Revision | None = None, /, *, output_dir: str = "salida", corregir: bool = True,
    **opciones: Any,
):
    """Crea un ``trl.SFTConfig`` real (``max_length``, ``packing``, precisión explícita) para un modelo causal.

    ``SFTConfig`` activa bf16 y el checkpointing por defecto: aquí siempre se
    pasan explícitos, para que no falle en una T4 ni en CPU. Lanza
    ``ValueError`` si la tarea es de clasificación.
    Se usa en lessons/04_warmup_y_regularizacion y en la lección de QLoRA y SFT.
    """
    c = _como_configuracion(configuracion, opciones)
    if c.tarea_efectiva != "causal":
        raise ValueError(
            "SFTConfig es para modelos causales (metodo='sft', o LoRA/QLoRA sobre un LLM con tarea='causal'); "
            "esta configuración es de clasificación: usa construir_training_arguments()."
        )
    d = argumentos_de_entrenamiento(c, output_dir=output_dir, corregir=corregir)
    from trl import SFTConfig

    return _construir(SFTConfig, d)


def _construir(clase, d: dict[str, Any]):
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            return clase(**d)
    except (ValueError, TypeError) as exc:
        raise ValueError(
            f"{clase.__name__} rechazó la configuración: {exc}. Revisa los hallazgos de nivel error con "
            "revisar_configuracion()."
        ) from exc


def _comentario(clave: str, valor: Any, c: Configuracion, total: int, precision_pedida: str) -> str:
    if clave == "warmup_steps":
        pasos = _warmup.pasos_de_warmup(valor, total)
        if isinstance(valor, float) and valor < 1:
            return (f"fracción: {_pct(valor, 1 if (valor * 100) % 1 else 0)} de {total} pasos = "
                    f"{pasos} {'paso' if pasos == 1 else 'pasos'} de warmup")
        return f"{pasos} de {total} {'paso' if total == 1 else 'pasos'}"
    if clave == "gradient_accumulation_steps":
        return f"lote efectivo {c.lote_efectivo}"
    if clave in ("fp16", "bf16") and valor:
        info = c.info_gpu
        if info is not None:
            texto = f"{info.nombre}: capacidad {info.capacidad[0]}.{info.capacidad[1]}"
            if precision_pedida != clave:
                texto += f" (pediste {precision_pedida})"
            return texto
    if clave == "use_cpu":
        return "sin GPU"
    if clave == "logging_steps":
        registros = total // _pasos_de_intervalo(valor, total)
        return f"≈ {registros} {'registro' if registros == 1 else 'registros'} en {total} {'paso' if total == 1 else 'pasos'}"
    if clave == "num_train_epochs":
        return f"{total} pasos de optimización en total"
    if clave == "report_to":
        return "sin wandb ni tensorboard"
    return ""


def codigo_python(
    configuracion: Configuracion | Revision | None = None,
    /,
    *,
    output_dir: str = "salida",
    corregir: bool = True,
    clase: str | None = None,
    variable: str = "args",
    **opciones: Any,
) -> str:
    """Código Python para pegar en un notebook que crea los mismos ``TrainingArguments``/``SFTConfig``.

    ``clase``: ``"TrainingArguments"`` o ``"SFTConfig"`` (por defecto, la de
    :func:`clase_de_argumentos`). Ejecutar el código da un objeto con el mismo
    ``to_dict()`` que :func:`construir_training_arguments`/:func:`construir_sft_config`.
    Se usa en lessons/04_warmup_y_regularizacion.
    """
    c = _como_configuracion(configuracion, opciones)
    clase = clase if clase is not None else clase_de_argumentos(c)
    if clase not in ("TrainingArguments", "SFTConfig"):
        raise ValueError(f"clase debe ser 'TrainingArguments' o 'SFTConfig'; recibí {clase!r}.")
    if not isinstance(variable, str) or not variable.isidentifier():
        raise ValueError(f"variable debe ser un nombre de Python válido; recibí {variable!r}.")
    if clase == "SFTConfig" and c.tarea_efectiva != "causal":
        raise ValueError("SFTConfig es para modelos causales; esta configuración es de clasificación.")
    d = argumentos_de_entrenamiento(c, output_dir=output_dir, corregir=corregir)
    if clase == "TrainingArguments":
        d = _argumentos_sin_sft(d)
    total = _warmup.pasos_totales(c.ejemplos, c.lote, c.epocas, c.acumulacion, c.dispositivos, c.max_pasos)
    modulo = "trl" if clase == "SFTConfig" else "transformers"
    lineas = [f"from {modulo} import {clase}", "", f"{variable} = {clase}("]
    for clave, valor in d.items():
        linea = f"    {clave}={valor!r},"
        comentario = _comentario(clave, valor, c, total, c.precision_efectiva)
        if comentario:
            linea = f"{linea:<48}  # {comentario}"
        lineas.append(linea)
    lineas.append(")")
    return "\n".join(lineas) + "\n"
