"""Filas de memoria: estimación de tutor_lib.vram frente a la medición exacta en modelos diminutos (CPU).

Estado estático (pesos + gradientes + optimizador tras un paso real de AdamW)
en fp32, bf16 puro y LoRA; activaciones (estimación) frente a lo que autograd
guarda en un forward (``medir_activaciones``).
"""

from __future__ import annotations

from tutor_lib.formato import entero

import warnings


def _configs():
    from transformers import BertConfig, LlamaConfig

    llama = LlamaConfig(
        vocab_size=512, hidden_size=64, intermediate_size=176, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=256, tie_word_embeddings=False,
        architectures=["LlamaForCausalLM"], attn_implementation="sdpa",
    )
    bert = BertConfig(
        vocab_size=512, hidden_size=64, intermediate_size=256, num_hidden_layers=2, num_attention_heads=4,
        max_position_embeddings=256, num_labels=2, architectures=["BertForSequenceClassification"],
        attn_implementation="sdpa",
    )
    return llama, bert


def _modelo(config, dtype):
    import torch
    from transformers import BertForSequenceClassification, LlamaForCausalLM

    torch.manual_seed(0)
    clase = LlamaForCausalLM if config.model_type == "llama" else BertForSequenceClassification
    return clase(config).to(dtype).train()


def _entradas(config, lote=2, secuencia=128):
    import torch

    ids = torch.randint(0, config.vocab_size, (lote, secuencia), generator=torch.Generator().manual_seed(1))
    if config.model_type == "llama":
        return {"input_ids": ids, "labels": ids}
    return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": torch.zeros(lote, dtype=torch.long)}


def _error(estimado: float, medido: float) -> str:
    return f"{100 * (estimado - medido) / medido:+.1f} %"


def medir() -> list[tuple[str, str, str]]:
    import torch
    from peft import LoraConfig, get_peft_model

    from tutor_lib import vram

    warnings.filterwarnings("ignore")
    llama, bert = _configs()
    filas: list[tuple[str, str, str]] = []

    casos = [
        ("Llama diminuto, completo fp32", llama, torch.float32, "completo", "fp32", None),
        ("Llama diminuto, completo bf16 puro", llama, torch.bfloat16, "completo", "bf16", None),
        ("BERT diminuto, completo fp32", bert, torch.float32, "completo", "fp32", None),
        ("Llama diminuto, LoRA bf16 q_proj,v_proj", llama, torch.bfloat16, "lora", "bf16", ["q_proj", "v_proj"]),
        ("BERT diminuto, LoRA fp32 query,value", bert, torch.float32, "lora", "fp32", ["query", "value"]),
    ]
    for nombre, config, dtype, metodo, precision, modulos in casos:
        modelo = _modelo(config, dtype)
        if modulos:
            modelo = get_peft_model(modelo, LoraConfig(r=8, target_modules=modulos))
        optimizador = torch.optim.AdamW([p for p in modelo.parameters() if p.requires_grad], lr=1e-3)
        modelo(**_entradas(config)).loss.backward()
        optimizador.step()
        medido = vram.medir_estado(modelo, optimizador)["total"]
        estimado = vram.estimar_memoria(config, metodo, precision, r=8 if modulos else None, modulos=modulos).estatica_bytes
        filas.append((
            f"estado estático: {nombre}",
            f"{entero(estimado)} B estimados / {entero(medido)} B medidos",
            f"error {_error(estimado, medido)} (AdamW, tras un paso real)",
        ))

    for nombre, config, dtype, b, familia, etiquetas in (
        ("Llama diminuto fp32 (sdpa)", llama, torch.float32, 4, "llama", None),
        ("Llama diminuto bf16 (sdpa)", llama, torch.bfloat16, 2, "llama", None),
        ("BERT diminuto fp32 (dropout 0.1; en CPU sdpa cae al camino «math»)", bert, torch.float32, 4, "bert", 2),
    ):
        medido = vram.medir_activaciones(_modelo(config, dtype), _entradas(config))
        estimado = vram.estimar_activaciones(
            2, 128, config.hidden_size, config.num_hidden_layers, config.num_attention_heads, config.vocab_size,
            config.intermediate_size, b, cabezas_kv=getattr(config, "num_key_value_heads", None), familia=familia,
            etiquetas=etiquetas, dispositivo="cpu", dropout=getattr(config, "hidden_dropout_prob", 0.0),
        ).total_bytes
        filas.append((
            f"activaciones: {nombre}",
            f"{entero(estimado)} B estimados / {entero(medido)} B medidos",
            f"error {_error(estimado, medido)}; lote 2 × secuencia 128 (en bf16 la estimación suma la copia fp32 "
            "transitoria de los logits)",
        ))

    siete = vram.estimar_memoria(7e9, "completo", "mixta")
    filas.append((
        "regla de 16 B por parámetro: 7e9, completo, mixta, AdamW",
        vram.formatear_bytes(siete.estatica_bytes),
        "estado estático; «LLaMA-7B necesita ~60 GB» es falso",
    ))
    filas += _filas_particion()
    return filas


def zero2_deepspeed(total: int, gpus: int) -> int:
    """``estimate_zero2_model_states_mem_needs`` de DeepSpeed 0.19.8 sin offload (stage_1_and_2.py):
    ``gpu_mem = 2 * total_params + int(18 * total_params / total_gpus)``."""
    return 2 * total + int(18 * total / gpus)


def zero3_deepspeed(total: int, capa: int, gpus: int) -> int:
    """``estimate_zero3_model_states_mem_needs`` de DeepSpeed 0.19.8 sin offload (stage3.py):
    ``gpu_mem = 4 * largest_layer_params + int(18 * total_params / total_gpus)``."""
    return 4 * capa + int(18 * total / gpus)


def estimadores_deepspeed():
    """``(zero2, zero3, reales)``: las funciones de DeepSpeed si se puede importar (no es dependencia del
    curso; ``reales`` es True) o, si no, sus fórmulas transcritas (:func:`zero2_deepspeed`,
    :func:`zero3_deepspeed`). Las usan esta tabla y tests/test_vram_particion.py."""
    try:
        from deepspeed.runtime.zero.stage3 import estimate_zero3_model_states_mem_needs
        from deepspeed.runtime.zero.stage_1_and_2 import estimate_zero2_model_states_mem_needs
    except Exception:  # noqa: BLE001
        return zero2_deepspeed, zero3_deepspeed, False

    def zero2(total, gpus):
        return estimate_zero2_model_states_mem_needs(total, gpus, cpu_offload=False)[1]

    def zero3(total, capa, gpus):
        return estimate_zero3_model_states_mem_needs(total, capa, gpus, cpu_offload=False,
                                                     cpu_offload_params=False)[1]

    return zero2, zero3, True


def _filas_particion() -> list[tuple[str, str, str]]:
    """ZeRO por GPU: la calculadora (contabilidad del artículo) frente a los estimadores de DeepSpeed.

    Si ``deepspeed`` se puede importar (no es dependencia del curso) se llaman sus funciones; si no,
    sus fórmulas de la versión 0.19.8, dichas en la nota.
    """
    from tutor_lib import vram

    ds2, ds3, reales = estimadores_deepspeed()
    origen = ("funciones de DeepSpeed instalado" if reales
              else "fórmulas de DeepSpeed 0.19.8 (2Ψ + 18Ψ/N; 4·capa + 18Ψ/N)")
    filas = []
    for total, gpus in ((7_000_000_000, 8), (70_000_000_000, 8), (70_000_000_000, 64)):
        capa = total // 40
        z2 = vram.estimar_memoria(total, contabilidad="zero", gpus=gpus, estrategia="zero2").estatica_bytes
        z3 = vram.estimar_memoria(total, contabilidad="zero", gpus=gpus, estrategia="zero3").estatica_bytes
        filas.append((
            f"ZeRO por GPU: {total / 1e9:g}e9 parámetros en {gpus} GPUs",
            f"ZeRO-2 {vram.formatear_bytes(z2)} / DeepSpeed {vram.formatear_bytes(ds2(total, gpus))}; "
            f"ZeRO-3 {vram.formatear_bytes(z3)} / DeepSpeed {vram.formatear_bytes(ds3(total, capa, gpus))}",
            f"calculadora con la cuenta del artículo (2 + 2 + 12 B); DeepSpeed suma gradientes fp32 (4 B/N) y, "
            f"en ZeRO-3, la capa mayor reunida (aquí Ψ/40); {origen}",
        ))
    return filas
