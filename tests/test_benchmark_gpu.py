"""``python -m benchmarks gpu``: su forma sin CUDA de verdad, y su código de pasos en la CPU con modelos diminutos.

La forma con CUDA (modelos a tamaño real, fp16 con escalador, NF4 de bitsandbytes en CUDA,
``paged_adamw_8bit``, el tope de memoria de una T4) no puede correr aquí: no hay GPU. Lo que sí corre es
cada fase con el mismo código, en la CPU y con configs diminutos: el Trainer, LoRA, QLoRA (bitsandbytes
cuantiza en CPU), SFTTrainer y DPOTrainer dan sus pasos de verdad.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import gpu
from tutor_lib import presupuesto_lecciones as pl

RAIZ = Path(__file__).resolve().parent.parent


def test_sin_cuda_lo_dice_en_espanol_y_termina_bien():
    entorno = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "HF_HUB_OFFLINE": "1"}
    salida = subprocess.run([sys.executable, "-m", "benchmarks", "gpu"], cwd=RAIZ, env=entorno, capture_output=True,
                            text=True, timeout=300)
    assert salida.returncode == 0, salida.stderr[-2000:]
    assert "No hay GPU con CUDA en esta máquina" in salida.stdout
    for leccion in pl.LECCIONES:
        assert f"lección {leccion}:" in salida.stdout
    assert "config Qwen/Qwen2.5-0.5B-Instruct: 494 032 768 parámetros" in salida.stdout
    assert "Traceback" not in salida.stderr


def _diminuto(fase):
    from transformers import BertConfig, Qwen2Config

    if fase.modelo == "clasificacion":
        return BertConfig(vocab_size=1000, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                          intermediate_size=64, max_position_embeddings=128)
    return Qwen2Config(vocab_size=2048, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                       num_key_value_heads=2, intermediate_size=128, max_position_embeddings=1024,
                       tie_word_embeddings=True)


FASES = [(leccion, fila.fase) for leccion in pl.LECCIONES for fila in pl.presupuesto_leccion(leccion).filas
         if fila.fase.pasos]


@pytest.mark.parametrize("leccion, fase", FASES, ids=[f"{l}-{f.metodo}-{i}" for i, (l, f) in enumerate(FASES)])
def test_cada_fase_da_sus_pasos_en_cpu_con_un_modelo_diminuto(leccion, fase):
    chica = dataclasses.replace(fase, lote=min(fase.lote, 4), secuencia=32)
    medida = gpu.medir_fase(chica, dispositivo="cpu", config=_diminuto(fase), pasos=2)
    assert medida["pasos"] == 3
    assert medida["segundos_por_paso"] > 0
    assert medida["pico_bytes"] is None  # sin CUDA no hay pico que medir


def test_qlora_carga_el_modelo_en_nf4_de_verdad():
    import bitsandbytes as bnb

    (fila,) = pl.presupuesto_leccion("11").filas
    modelo = gpu._modelo(fila.fase, _diminuto(fila.fase), "cpu")
    capas = [m for m in modelo.modules() if isinstance(m, bnb.nn.Linear4bit)]
    assert len(capas) == 2 * 7  # q, k, v, o, gate, up, down en cada una de las 2 capas
    assert capas[0].weight.quant_state.quant_type == "nf4"


def test_en_cuda_elige_fp16_con_escalador_y_el_optimizador_paginado():
    """La precisión de capacidad 7.5 aunque la tarjeta sepa bf16; en CPU, ni fp16 ni paginación."""
    qlora = pl.fases("11")[0]
    fp32, mixta = pl.fases("01")
    assert gpu._opciones(mixta, "x", cuda=True, pasos=3)["fp16"] is True
    assert gpu._opciones(mixta, "x", cuda=True, pasos=3)["bf16"] is False
    assert gpu._opciones(fp32, "x", cuda=True, pasos=3)["fp16"] is False  # el bucle a mano de la lección 1
    assert gpu._opciones(qlora, "x", cuda=True, pasos=3)["optim"] == "paged_adamw_8bit"
    assert gpu._opciones(qlora, "x", cuda=True, pasos=3)["activation_checkpointing"] is True
    assert gpu._opciones(qlora, "x", cuda=False, pasos=3)["optim"] == "adamw_torch"
    assert gpu._opciones(mixta, "x", cuda=False, pasos=3)["fp16"] is False
