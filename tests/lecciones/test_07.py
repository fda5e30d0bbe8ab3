"""Lección 07 (memoria y fine-tuning completo): las cifras que enseña son ciertas.

Las pruebas rápidas comprueban los hechos sin el notebook (conteo en el dispositivo meta, la
medición exacta en MiniLM con el mismo código que benchmarks/b_leccion07.py, la aritmética de
bf16/fp16). La prueba marcada ``cuaderno`` ejecuta el notebook una vez y busca en sus salidas
las cifras clave, recalculadas aquí.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import nbformat
import pytest

RAIZ = Path(__file__).resolve().parents[2]
CUADERNO = RAIZ / "lessons" / "07_memoria_y_fine_tuning_completo.ipynb"


def _codigo() -> str:
    nb = nbformat.read(CUADERNO, as_version=4)
    return "\n".join(c.source for c in nb.cells if c.cell_type == "code")


def _markdown() -> str:
    nb = nbformat.read(CUADERNO, as_version=4)
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


# ---------------------------------------------------------------- hechos, sin notebook


def test_distilbert_con_cabeza_tiene_66955010_parametros():
    from tutor_lib import recursos

    modelo = recursos.construir_en_meta({"model_type": "distilbert", "num_labels": 2}, tarea="clasificacion")
    assert recursos.contar_parametros(modelo) == 66_955_010
    assert recursos.contar_parametros(modelo.distilbert) == 66_362_880
    assert recursos.contar_parametros(modelo.pre_classifier) == 768 * 768 + 768
    assert recursos.contar_parametros(modelo.classifier) == 768 * 2 + 2
    # la cifra de la semilla olvida pre_classifier
    assert 66_362_880 + 768 * 2 + 2 == 66_364_418
    assert recursos.contar_entrenables(modelo) == 66_955_010


@functools.cache
def _estado_medido(dtype=None) -> dict[str, int]:
    """``medir_estado_clasificador`` una sola vez por dtype en este módulo (carga el modelo y da un paso)."""
    from benchmarks.b_leccion07 import medir_estado_clasificador

    return medir_estado_clasificador(dtype)


def test_clasificador_rapido_fp32_medido_igual_a_estimado_al_byte():
    r = _estado_medido()
    assert r["medido"] == r["estimado"]
    assert r["medido"] == 16 * r["parametros"] + 4 * r["tensores"]


def test_clasificador_rapido_bf16_puro_ocupa_8_bytes_por_parametro():
    import torch

    r = _estado_medido(torch.bfloat16)
    assert r["medido"] == r["estimado"] == 8 * r["parametros"] + 4 * r["tensores"]


def test_aritmetica_de_bf16_y_fp16():
    import inspect

    import torch

    assert torch.finfo(torch.bfloat16).eps == 2**-7
    assert (torch.tensor(1.0, dtype=torch.bfloat16) + 1e-5).item() == 1.0
    assert (torch.tensor(1.0) + 1e-5).item() != 1.0
    peso = torch.tensor(1.0, dtype=torch.bfloat16)
    maestro = torch.tensor(1.0)
    for _ in range(1000):
        peso -= 1e-5
        maestro -= 1e-5
    assert peso.item() == 1.0 and abs(maestro.item() - 0.99) < 1e-4
    assert torch.tensor(1e-8, dtype=torch.float16).item() == 0.0
    recuperado = (torch.tensor(1e-8) * 2.0**16).to(torch.float16).float() / 2.0**16
    assert abs(recuperado.item() - 1e-8) / 1e-8 < 1e-2
    assert inspect.signature(torch.amp.GradScaler).parameters["init_scale"].default == 2.0**16


def test_siete_mil_millones_y_catalogo():
    from tutor_lib import entorno, recursos, vram

    assert vram.estimar_memoria(parametros=7e9, metodo="completo", precision="mixta").estatica_bytes == 112 * 10**9
    llama = recursos.construir_en_meta(
        {"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008,
         "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32,
         "tie_word_embeddings": False},
        tarea="causal",
    )
    assert recursos.contar_parametros(llama) == 6_738_415_616
    for gpu in ("T4", "A100 80GB", "H100 80GB"):
        assert vram.lote_maximo(gpu, 512, parametros=llama, metodo="completo", precision="mixta") == 0
    beto = recursos.construir_en_meta(recursos.cargar_config("dccuchile/bert-base-spanish-wwm-cased"),
                                      tarea="clasificacion")
    assert vram.lote_maximo("T4", 512, parametros=beto, metodo="completo", precision="mixta") >= 16
    assert entorno.precision_recomendada(vram.GPUS["T4"]) == "fp16"
    assert entorno.precision_recomendada(vram.GPUS["A100 40GB"]) == "bf16"


def test_cuaderno_usa_apis_actuales():
    codigo = _codigo()
    for viejo in ("gradient_checkpointing_enable(", "torch_dtype", "evaluation_strategy", "warmup_ratio",
                  "bf16=True", "no_cuda"):
        assert viejo not in codigo, f"la lección usa la forma vieja {viejo!r}"
    assert "activation_checkpointing_enable()" in codigo
    assert 'ENTORNO.precision == "fp16"' in codigo and 'ENTORNO.precision == "bf16"' in codigo
    assert 'if ENTORNO.modo == "rapido":' in codigo
    markdown = _markdown()
    assert "## Lo que aprendiste" in markdown and "## Autoevaluación" in markdown


# ---------------------------------------------------------------- el notebook, una vez


@pytest.mark.cuaderno
def test_cuaderno_muestra_las_cifras_calculadas():
    import torch
    from cuadernos import ejecutar_cuaderno, textos_de_salida

    from tutor_lib.formato import entero

    nb, segundos = ejecutar_cuaderno(CUADERNO)
    texto = textos_de_salida(nb)
    assert "Modo: rápido" in texto
    # El tiempo no se afirma aquí (depende de la máquina): su meta vive en benchmarks/b_lecciones.py.

    esperado = _estado_medido()
    assert "DistilBertForSequenceClassification: 66 955 010 parámetros" in texto
    assert "cuenta que olvida pre_classifier: 66 364 418 (faltan 590 592 parámetros)" in texto
    assert f"{'total':<22}{entero(esperado['estimado']):>16}{entero(esperado['medido']):>16}" in texto
    assert "diferencia: 0 bytes" in texto
    assert "¿igual a lo medido? True" in texto
    assert "en bf16: 1.0 + 1e-5 == 1.0 → True" in texto
    assert "en fp32: 1.0 + 1e-5 == 1.0 → False" in texto
    assert re.search(r"bf16 puro\s+peso final 1\.000000", texto)
    assert "gradiente 1e-08 guardado en fp16: 0.0" in texto
    assert "¿la escala inicial es 2**16? True" in texto
    assert "from_pretrained(carpeta)                      → torch.bfloat16" in texto
    bf16 = _estado_medido(torch.bfloat16)
    assert "8.000 bytes por parámetro" in texto and f"estimado: {entero(bf16['estimado'])} bytes (diferencia 0)" in texto
    assert "¿igual que en fp32 puro? True" in texto
    assert "atención ejecutada 1× por capa" in texto and "atención ejecutada 2× por capa" in texto
    assert "×1.333 en operaciones" in texto
    assert "¿iguales? True" in texto
    assert "7e9 × 16 bytes = 112 000 000 000 bytes" in texto and "= 112.0 GB = 104.3 GiB" in texto
    assert "Llama-2-7B real (config exacto): 6 738 415 616 parámetros" in texto
    # las activaciones crecen con el lote y el checkpointing las reduce
    filas = re.findall(r"^\s+(4|8|16)\s+([\d.]+) MiB\s+([\d.]+) MiB\s+([\d.]+)×$", texto, re.MULTILINE)
    assert [int(f[0]) for f in filas] == [4, 8, 16]
    sin = [float(f[1]) for f in filas]
    con = [float(f[2]) for f in filas]
    assert sin[0] < sin[1] < sin[2] and all(c < s / 2 for c, s in zip(con, sin))
