"""Reglas que dependen de la GPU: la precisión (fp16/bf16 frente a la capacidad de cómputo) y la memoria.

La regla de memoria compara la estimación de :mod:`tutor_lib.vram` con la
memoria utilizable de la GPU y, si no cabe, sugiere LoRA, QLoRA,
checkpointing o un lote menor con más acumulación (el mismo lote efectivo,
exacto: ver :mod:`tutor_lib.configurador.lote`). Las llama
:func:`~tutor_lib.configurador.revisar_configuracion`. Se usa en
lessons/04_warmup_y_regularizacion.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from tutor_lib.configurador.constantes import FUENTES, MEMORIA_JUSTA
from tutor_lib.configurador.formato import _gib, _pct
from tutor_lib.configurador.lote import repartir_lote
from tutor_lib.configurador.memoria import _argumentos_vram, _estimar_memoria
from tutor_lib.configurador.tipos import Configuracion, Hallazgo, _memoria_gpu_bytes
from tutor_lib.configurador.validacion import _nombre_gpu


def _regla_precision(c: Configuracion) -> Hallazgo:
    pedida = c.precision
    efectiva = c.precision_efectiva
    info = c.info_gpu
    if c.gpu is None:
        if efectiva == "fp32":
            texto = ("Precisión fp32: sin GPU indicada no se elige precisión mixta. Indica la GPU (gpu='T4', "
                     "'cpu'...) para elegir fp16/bf16 según su capacidad de cómputo y revisar la memoria.")
        else:
            texto = (f"Precisión {efectiva}: no indicaste la GPU, así que no puedo comprobar que la admita "
                     "(bf16 exige capacidad de cómputo ≥ 8.0; una T4 no la tiene).")
        return Hallazgo("ok", "bf16" if efectiva == "bf16" else "fp16", texto, FUENTES["nvidia"])
    if c.es_cpu:
        if efectiva == "fp16":
            return Hallazgo(
                "aviso", "fp16",
                "fp16=True en CPU: el Trainer no falla, pero lo ignora y calcula en fp32 (no hay escalador de "
                "pérdida en CPU). Quita fp16; argumentos_de_entrenamiento() ya usa fp32 con use_cpu=True.",
                FUENTES["cpu"],
            )
        if efectiva == "bf16":
            return Hallazgo(
                "aviso", "bf16",
                "bf16=True en CPU solo funciona con use_cpu=True (si no, TrainingArguments lanza ValueError) y "
                "solo acelera en CPU con instrucciones bf16 (AMX); en la mayoría es más lento que fp32. "
                "Usa fp32 salvo que lo hayas medido.",
                FUENTES["cpu"],
            )
        return Hallazgo("ok", "fp16", "fp32 en CPU: correcto (use_cpu=True).", FUENTES["cpu"])
    capacidad = f"{info.capacidad[0]}.{info.capacidad[1]}"
    if efectiva == "bf16" and not info.soporta_bf16:
        return Hallazgo(
            "error", "bf16",
            f"bf16=True en una {info.nombre} (capacidad {capacidad}): no tiene bf16 nativo, TrainingArguments "
            "lanza ValueError o el entrenamiento se emula muy lento. Usa fp16=True (con escalador de pérdida); "
            "argumentos_de_entrenamiento() ya lo cambia por ti.",
            FUENTES["nvidia"],
        )
    if efectiva == "fp32":
        recomendada = "bf16" if info.soporta_bf16 else "fp16"
        return Hallazgo(
            "aviso", "fp16",
            f"fp32 en una {info.nombre}: desaprovechas los Tensor Cores y gastas más memoria en activaciones. "
            f"Usa {recomendada}=True (precisión mixta).",
            FUENTES["nvidia"],
        )
    if efectiva == "fp16" and info.soporta_bf16:
        return Hallazgo(
            "aviso", "fp16",
            f"fp16 en una {info.nombre} (capacidad {capacidad}): funciona, pero bf16 tiene el rango de fp32 y no "
            "necesita escalador de pérdida. Usa bf16=True.",
            FUENTES["nvidia"],
        )
    origen = "elegida por la capacidad de cómputo" if pedida is None else "pedida"
    return Hallazgo(
        "ok", "bf16" if efectiva == "bf16" else "fp16",
        f"{efectiva} ({origen}) en una {info.nombre} con capacidad {capacidad}: correcto.",
        FUENTES["nvidia"],
    )


def _sugerencias_memoria(c: Configuracion, precision: str, memoria_gpu: int) -> list[str]:
    sugerencias = []
    if c.metodo in ("completo", "sft"):
        for metodo, nombre in (("lora", "LoRA"), ("qlora", "QLoRA")):
            otra = _estimar_memoria(dataclasses.replace(c, metodo=metodo), precision)
            if otra.total_bytes <= memoria_gpu:
                sugerencias.append(f"{nombre} (≈ {_gib(otra.total_bytes)})")
                break
    elif c.metodo == "lora":
        otra = _estimar_memoria(dataclasses.replace(c, metodo="qlora"), precision)
        if otra.total_bytes <= memoria_gpu:
            sugerencias.append(f"QLoRA (≈ {_gib(otra.total_bytes)})")
    if not c.checkpointing_efectivo:
        otra = _estimar_memoria(dataclasses.replace(c, checkpointing=True), precision)
        sugerencias.append(f"gradient checkpointing (≈ {_gib(otra.total_bytes)})")
    if c.lote > 1:
        maximo = _lote_maximo(c, precision)
        if maximo:
            sugerencias.append(repartir_lote(c.lote, c.acumulacion, maximo, c.dispositivos))
    if precision == "fp32" and c.gpu not in (None, "cpu"):
        sugerencias.append("precisión mixta (fp16/bf16) para reducir las activaciones")
    if not sugerencias:
        sugerencias.append("una GPU con más memoria o un modelo más pequeño")
    return sugerencias


def _lote_maximo(c: Configuracion, precision: str) -> int | None:
    """El mayor lote por dispositivo que cabe en la GPU (:func:`tutor_lib.vram.lote_maximo`); ``None`` si ni 1 cabe."""
    from tutor_lib import vram

    maximo = vram.lote_maximo(c.info_gpu, c.secuencia_efectiva, **_argumentos_vram(c, precision))
    return min(maximo, c.lote - 1) or None


def _regla_memoria(c: Configuracion, memoria: Any, precision: str) -> tuple[list[Hallazgo], bool | None, float | None]:
    memoria_gpu = _memoria_gpu_bytes(c)
    total = memoria.total_bytes
    if memoria_gpu is None:
        return [], None, None
    fraccion = total / max(memoria_gpu, 1)
    nombre = _nombre_gpu(c.gpu)
    from tutor_lib import vram

    cabe = bool(vram.cabe(memoria, c.info_gpu))
    if not cabe:
        sugerencias = _sugerencias_memoria(c, precision, memoria_gpu)
        estatica = getattr(memoria, "estatica_bytes", 0)
        explicacion = (
            f"Solo pesos, gradientes y estados del optimizador ocupan {_gib(estatica)}: ni con lote 1 cabría, "
            "así que bajar el lote o el checkpointing no bastan. "
            if estatica > memoria_gpu else
            f"Las activaciones ({_gib(memoria.activaciones_bytes)}) crecen con el lote y la secuencia. "
        )
        return [Hallazgo(
            "error", "memoria",
            f"No cabe: se estiman {_gib(total)} y la {nombre} tiene {_gib(memoria_gpu)} utilizables "
            f"({_pct(fraccion)}). Tendrás «CUDA out of memory» en el primer paso. " + explicacion
            + "Prueba: " + "; ".join(sugerencias) + ".",
            FUENTES["vram"],
        )], False, fraccion
    if fraccion > MEMORIA_JUSTA:
        if c.lote > 1:
            consejo = f"baja el lote y sube la acumulación: {repartir_lote(c.lote, c.acumulacion, c.lote // 2, c.dispositivos)}"
        elif not c.checkpointing_efectivo:
            consejo = "activa gradient checkpointing o usa una GPU con más memoria"
        else:
            consejo = "acorta la secuencia o usa una GPU con más memoria"
        return [Hallazgo(
            "aviso", "memoria",
            f"Va justo: {_gib(total)} de {_gib(memoria_gpu)} utilizables en la {nombre} ({_pct(fraccion)}). La fragmentación y "
            f"los picos de la evaluación pueden agotarla: {consejo}.",
            FUENTES["vram"],
        )], True, fraccion
    return [Hallazgo(
        "ok", "memoria", f"Cabe: {_gib(total)} de {_gib(memoria_gpu)} utilizables en la {nombre} ({_pct(fraccion)}).",
        FUENTES["vram"],
    )], True, fraccion
