"""El Llama diminuto del curso: un modelo de lenguaje de juguete que se construye en segundos, sin red.

Es un **juguete**: 2 capas, dimensión 64, pesos aleatorios y un vocabulario de 2048 piezas
entrenado con ``tokenizers`` sobre los textos del curso. Sirve para que el código de QLoRA, SFT y
DPO corra de verdad en una CPU sin red; sus respuestas no significan nada. Las lecciones lo piden a
:func:`tutor_lib.recursos.construir_llama_diminuto`, que le pasa los textos del curso; aquí se
construye, sin leer datos por su cuenta.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

#: Versión del modelo construido: súbela si cambia lo que se genera (la carpeta de la caché lleva este número).
VERSION = "1"

#: La plantilla de chat del tokenizer: marca con ``{% generation %}`` lo que dice el asistente (lo que
#: entrena SFT con ``assistant_only_loss``).
PLANTILLA_CHAT = (
    "{% for m in messages %}"
    "{% if m['role'] == 'assistant' %}"
    "<|assistant|>\n{% generation %}{{ m['content'] }}<|fin|>{% endgeneration %}\n"
    "{% else %}"
    "<|{{ m['role'] }}|>\n{{ m['content'] }}<|fin|>\n"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)


def construir_llama_diminuto(corpus: Callable[[], list[str]], carpeta: str | os.PathLike | None = None,
                             semilla: int = 0, forzar: bool = False) -> Path:
    """Construye (una vez) el Llama diminuto en ``carpeta`` (por omisión, en la caché del curso) y la devuelve.

    ``corpus`` da los textos con que se entrena el tokenizer; solo se llama si hay que construir. Con
    ``forzar`` se construye aunque la carpeta ya exista. Se usa a través de
    ``recursos.construir_llama_diminuto`` en lessons/11_qlora y 12_sft_y_dpo.
    """
    import torch
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    from tutor_lib.cache import carpeta_cache

    destino = Path(carpeta) if carpeta else carpeta_cache() / f"llama-diminuto-v{VERSION}"
    if (destino / "config.json").exists() and not forzar:
        return destino
    especiales = ["<|pad|>", "<|inicio|>", "<|fin|>", "<|system|>", "<|user|>", "<|assistant|>", "<|desconocido|>"]
    bpe = Tokenizer(models.BPE(unk_token="<|desconocido|>"))
    bpe.normalizer = normalizers.NFC()
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    entrenador = trainers.BpeTrainer(
        vocab_size=2048,
        special_tokens=especiales,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    textos = corpus() or ["Hola, este es el curso de fine-tuning."]
    bpe.train_from_iterator(textos, trainer=entrenador)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe,
        bos_token="<|inicio|>",
        eos_token="<|fin|>",
        pad_token="<|pad|>",
        unk_token="<|desconocido|>",
    )
    tokenizer.chat_template = PLANTILLA_CHAT
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=176,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(semilla)
    modelo = LlamaForCausalLM(config)
    temporal = destino.with_name(destino.name + ".tmp")
    modelo.save_pretrained(temporal)
    tokenizer.save_pretrained(temporal)
    if destino.exists():
        import shutil

        shutil.rmtree(destino)
    temporal.rename(destino)
    return destino
