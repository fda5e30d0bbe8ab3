"""Pruebas de lessons/04_warmup_y_regularizacion.ipynb.

Las primeras son rápidas y comprueban los hechos que la lección enseña (con las
mismas funciones y bibliotecas que usa). La última ejecuta el notebook una vez
en modo rápido y comprueba que las cifras clave aparecen en sus salidas; por eso
este notebook puede quedar fuera del recorrido general de tests/test_lecciones.py.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch

from tutor_lib import configurador, warmup

RAIZ = Path(__file__).resolve().parents[2]
LECCION = RAIZ / "lessons" / "04_warmup_y_regularizacion.ipynb"


# --------------------------------------------------------------------------
# Warmup y pasos (secciones 1 a 4)
# --------------------------------------------------------------------------


def test_tabla_de_warmup_corregida():
    """Con lr 2e-5 y 100 pasos de warmup: paso 0 → 0, paso 20 → 4e-6, paso 50 → 1e-5."""
    filas = dict(warmup.tabla_warmup(2e-5, 500, 100, pasos=[0, 20, 50, 100]))
    assert filas[0] == 0.0
    assert math.isclose(filas[20], 4e-6, rel_tol=1e-9)
    assert math.isclose(filas[50], 1e-5, rel_tol=1e-9)
    assert math.isclose(filas[100], 2e-5, rel_tol=1e-9)


def test_pasos_totales_y_warmup_float_como_el_trainer(tmp_path):
    from transformers import TrainingArguments

    assert warmup.pasos_por_epoca(1000, 16) == 63
    total = warmup.pasos_totales(1000, 16, 3)
    assert total == 189
    for valor, esperado in ((0.06, 12), (0.1, 19), (12, 12), (1.0, 1)):
        argumentos = TrainingArguments(output_dir=str(tmp_path), warmup_steps=valor, use_cpu=True, report_to="none")
        assert argumentos.get_warmup_steps(total) == esperado == warmup.pasos_de_warmup(valor, total)
    with pytest.raises(TypeError):
        TrainingArguments(output_dir=str(tmp_path), warmup_ratio=0.06)


def test_constant_ignora_el_warmup_y_los_schedules_de_la_leccion_existen():
    assert warmup.tasas_de_aprendizaje(2e-5, 189, 0.06, "constant")[0] == 2e-5
    for tipo in ("linear", "cosine", "constant_with_warmup", "cosine_with_min_lr", "warmup_stable_decay"):
        tasas = warmup.tasas_de_aprendizaje(2e-5, 189, 0.06, tipo)
        assert tasas[0] == 0.0 and math.isclose(max(tasas), 2e-5, rel_tol=1e-9)


def test_respuesta_1_de_la_autoevaluacion():
    total = warmup.pasos_totales(2000, 32, 2, acumulacion=2)
    assert total == 64
    assert warmup.pasos_de_warmup(0.05, total) == 4


# --------------------------------------------------------------------------
# AdamW, L2 y grupos sin decay (secciones 5 a 7)
# --------------------------------------------------------------------------


def _paso_adamw_a_mano(w, g, m, v, t, lr, wd, b1=0.9, b2=0.999, eps=1e-8):
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g**2
    return w - lr * wd * w - lr * (m / (1 - b1**t)) / ((v / (1 - b2**t)).sqrt() + eps), m, v


def test_formula_de_adamw_de_la_leccion_coincide_con_torch():
    w0 = torch.tensor([2.0, -0.5, 0.8], dtype=torch.float64)
    gradientes = torch.tensor([[0.3, -0.02, 1.5], [0.1, 0.05, -2.0], [0.2, -0.01, 0.5]], dtype=torch.float64)
    parametro = torch.nn.Parameter(w0.clone())
    optimizador = torch.optim.AdamW([parametro], lr=0.1, weight_decay=0.1)
    w, m, v = w0.clone(), torch.zeros(3, dtype=torch.float64), torch.zeros(3, dtype=torch.float64)
    for t, g in enumerate(gradientes, start=1):
        parametro.grad = g.clone()
        optimizador.step()
        w, m, v = _paso_adamw_a_mano(w, g, m, v, t, 0.1, 0.1)
        torch.testing.assert_close(w, parametro.detach(), rtol=0, atol=1e-12)


def test_adam_l2_depende_del_gradiente_y_adamw_no():
    lr, wd, pasos = 1e-3, 0.1, 500
    generador = torch.Generator().manual_seed(0)
    encogimiento = {}
    for escala in (10.0, 1e-3):
        gradientes = torch.randn(pasos, generator=generador) * escala

        def final(clase, decay):
            peso = torch.nn.Parameter(torch.tensor([1.0]))
            optimizador = clase([peso], lr=lr, weight_decay=decay)
            for g in gradientes:
                peso.grad = g.reshape(1).clone()
                optimizador.step()
            return peso.item()

        base = final(torch.optim.Adam, 0.0)
        encogimiento[escala] = (base - final(torch.optim.Adam, wd), base - final(torch.optim.AdamW, wd))
    puro = 1 - (1 - lr * wd) ** pasos
    for escala, (l2, adamw) in encogimiento.items():
        assert math.isclose(adamw, puro, rel_tol=0.05), (escala, adamw, puro)
    assert encogimiento[10.0][0] < 0.2 * puro  # L2 casi no regulariza el de gradiente grande
    assert encogimiento[1e-3][0] > 5 * puro  # y aplasta al de gradiente pequeño


def test_trainer_no_aplica_decay_a_sesgos_ni_layernorm(tmp_path):
    from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments

    config = BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=32, num_labels=2)
    modelo = BertForSequenceClassification(config)
    argumentos = TrainingArguments(output_dir=str(tmp_path), weight_decay=0.01, use_cpu=True, report_to="none")
    trainer = Trainer(model=modelo, args=argumentos)
    con_decay = set(trainer.get_decay_parameter_names(modelo))
    for nombre, _ in modelo.named_parameters():
        excluido = nombre.endswith("bias") or "LayerNorm" in nombre
        assert (nombre not in con_decay) == excluido, nombre
    grupos = {g["weight_decay"]: g["params"] for g in trainer.create_optimizer().param_groups}
    assert set(grupos) == {0.01, 0.0}
    assert sum(p.numel() for p in grupos[0.01]) > sum(p.numel() for p in grupos[0.0])


# --------------------------------------------------------------------------
# Configurador (sección 9)
# --------------------------------------------------------------------------

_COMUN = dict(metodo="completo", ejemplos=3668, lr=2e-5, epocas=3, weight_decay=0.01, gpu="T4",
              eval_strategy="epoch", save_strategy="epoch")


@pytest.mark.parametrize(
    "receta, nivel",
    [
        (dict(_COMUN, parametros="distilbert", lote=16, warmup=0.06, precision="bf16", logging_steps=25), "error"),
        (dict(_COMUN, parametros="distilbert", lote=16, warmup=0.3, logging_steps=25), "aviso"),
        (dict(_COMUN, parametros="bert-base", lote=32, warmup=0.06, logging_steps=10), "ok"),
    ],
    ids=["bf16_en_T4", "warmup_30", "receta_bert"],
)
def test_recetas_del_configurador(receta, nivel):
    revision = configurador.revisar_configuracion(**receta)
    assert revision.nivel == nivel
    if nivel == "error":
        assert revision.nivel_de("bf16") == "error"
    if nivel == "aviso":
        assert [h.parametro for h in revision.avisos] == ["warmup_steps"]
    if nivel == "ok":
        codigo = configurador.codigo_python(revision)
        assert "fp16=True" in codigo and "warmup_steps=0.06" in codigo


# --------------------------------------------------------------------------
# El notebook entero, una vez
# --------------------------------------------------------------------------


@pytest.mark.cuaderno
@pytest.mark.lento
def test_leccion_04_corre_y_muestra_las_cifras():
    from cuadernos import ejecutar_cuaderno, textos_de_salida

    nb, segundos = ejecutar_cuaderno(LECCION)
    texto = textos_de_salida(nb)
    # El tiempo no se afirma aquí (depende de la máquina): su meta vive en benchmarks/b_lecciones.py.
    esperados = [
        "Modo: rápido",
        "paso 20: 2e-05 × 20/100 = 4.0e-06 = 0.000004",
        "paso 50: 2e-05 × 50/100 = 1.0e-05 = 0.000010",
        "Tasa del primer paso de optimización (paso 0): 0.0",
        "Pasos totales: 63 × 3 = 189",
        "warmup_steps=0.06  → pasos de warmup: 12 de 189  (tutor_lib: 12)",
        "warmup_ratio ya no existe → TypeError",
        "'constant' ignora el warmup",
        "PanelWarmup(",
        "PanelConfigurador(",
        "grupo 1: weight_decay=0.0",
        "Norma después del recorte: 1.0000",
        "Similitud coseno antes/después: 1.000000",
        "== bf16 en una T4: nivel ERROR",
        "== warmup del 30 %: nivel AVISO",
        "Nivel: OK",
        "args = TrainingArguments(",
    ]
    faltan = [e for e in esperados if e not in texto]
    assert not faltan, f"no encontré en las salidas: {faltan}"
    assert texto.count("diferencia máxima con tasas_de_aprendizaje: 0\n") == 2, "el Trainer no usó las tasas calculadas"
    assert texto.count("| diferencia 0.0e+00") == 3, "el AdamW a mano no coincide con torch"
