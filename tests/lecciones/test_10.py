"""Lección 10 (LoRA): las cifras que enseña son ciertas.

Las pruebas rápidas comprueban los hechos sin el notebook (conteos de peft en el dispositivo meta, el
sobrecosto de FLOPs, las escalas de rsLoRA, el adaptador de benchmarks/b_leccion10.py). La prueba
marcada ``cuaderno`` ejecuta el notebook una vez (la ejecución se comparte con tests/test_lecciones.py
dentro de la misma sesión de pytest) y busca en sus salidas las cifras clave, recalculadas aquí.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import nbformat
import pytest

RAIZ = Path(__file__).resolve().parents[2]
CUADERNO = RAIZ / "lessons" / "10_lora.ipynb"

LLAMA2 = {
    "model_type": "llama", "vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008,
    "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32, "tie_word_embeddings": False,
}
LLAMA3 = dict(LLAMA2, vocab_size=128256, intermediate_size=14336, num_key_value_heads=8)


def _celdas(tipo: str) -> str:
    nb = nbformat.read(CUADERNO, as_version=4)
    return "\n".join(c.source for c in nb.cells if c.cell_type == tipo)


def _lora_rapido(**kwargs):
    from peft import LoraConfig, get_peft_model

    from tutor_lib import recursos

    config = recursos.cargar_config(recursos.nombre_modelo("clasificacion", "rapido"))
    modelo = recursos.construir_en_meta(config, tarea="clasificacion")
    return modelo, (get_peft_model(modelo, LoraConfig(**kwargs)) if kwargs else None)


# ---------------------------------------------------------------- hechos, sin notebook


def test_llama2_qv_r16_a_mano_peft_y_tutor_lib():
    from peft import LoraConfig, get_peft_model

    from tutor_lib import lora, recursos

    a_mano = 32 * 2 * 16 * (4096 + 4096)
    assert a_mano == 8_388_608
    modelo = get_peft_model(recursos.construir_en_meta(LLAMA2, tarea="causal"),
                            LoraConfig(r=16, lora_alpha=32, target_modules=["q_proj", "v_proj"]))
    assert modelo.get_nb_trainable_parameters() == (8_388_608, 6_746_804_224)
    conteo = lora.contar_parametros_lora(LLAMA2, r=16, modulos=["q_proj", "v_proj"])
    assert (conteo.parametros_entrenables, conteo.parametros_totales, conteo.capas) == (8_388_608, 6_746_804_224, 64)


def test_llama3_gqa_all_linear_por_modulo():
    from tutor_lib import lora

    conteo = lora.contar_parametros_lora(LLAMA3, r=16, modulos="all-linear")
    assert conteo.parametros_entrenables == 41_943_040
    assert conteo.por_modulo["k_proj"] == conteo.por_modulo["v_proj"] == 32 * 16 * (4096 + 1024) == 2_621_440
    assert conteo.por_modulo["q_proj"] == 32 * 16 * 8192
    assert conteo.por_modulo["down_proj"] == 32 * 16 * (14336 + 4096)


def test_sobrecosto_flops_es_1_128():
    from tutor_lib import lora

    assert lora.sobrecosto_flops(4096, 4096, 16) == 1 / 128


def test_escala_clasica_y_rslora_de_peft():
    for r in (4, 8, 16, 64):
        for rslora, esperado in ((False, 16 / r), (True, 16 / math.sqrt(r))):
            _, envuelto = _lora_rapido(r=r, lora_alpha=16, target_modules=["query"], use_rslora=rslora)
            capa = envuelto.base_model.model.bert.encoder.layer[0].attention.self.query
            assert capa.scaling["default"] == pytest.approx(esperado)


def test_adaptador_del_benchmark_entrena_la_cabeza():
    from benchmarks import b_leccion10 as b

    base, envuelto = _lora_rapido(task_type="SEQ_CLS", r=b.R, lora_alpha=b.ALPHA, target_modules=list(b.MODULOS))
    entrenables, _ = envuelto.get_nb_trainable_parameters()
    # multilingual-e5-small: 12 capas × 2 módulos × 8 × (384 + 384) + la cabeza 384×2 + 2 (modules_to_save)
    assert entrenables == 12 * 2 * 8 * (384 + 384) + 384 * 2 + 2 == 148_226
    nombres = [n for n, p in envuelto.named_parameters() if p.requires_grad and "lora_" not in n]
    assert nombres and all("classifier.modules_to_save" in n for n in nombres)


def test_cuaderno_usa_apis_actuales_y_estructura():
    codigo = _celdas("code")
    for viejo in ("torch_dtype", "evaluation_strategy", "warmup_ratio", "bf16=True", "no_cuda"):
        assert viejo not in codigo, f"la lección usa la forma vieja {viejo!r}"
    for pieza in ('task_type="SEQ_CLS"', "merge_and_unload()", "use_rslora", "vram.medir_estado",
                  "lora.sobrecosto_flops", "lora.contar_parametros_lora", "get_nb_trainable_parameters",
                  'if ENTORNO.modo == "rapido":', "ENTORNO.precision", "tempfile.mkdtemp"):
        assert pieza in codigo, pieza
    markdown = _celdas("markdown")
    assert "## Lo que aprendiste" in markdown and "## Autoevaluación" in markdown
    assert "modules_to_save" in markdown and "rsLoRA" in markdown


# ---------------------------------------------------------------- el notebook, una vez


@pytest.mark.cuaderno
def test_cuaderno_muestra_las_cifras_calculadas():
    from cuadernos import ejecutar_cuaderno, textos_de_salida

    nb, segundos = ejecutar_cuaderno(CUADERNO)
    texto = textos_de_salida(nb)
    assert "Modo: rápido" in texto
    # El tiempo no se afirma aquí (depende de la máquina): su meta vive en benchmarks/b_lecciones.py.

    # inicialización B = 0: salidas idénticas
    assert "¿B es cero? True" in texto and "¿A es cero? False" in texto
    assert "torch.equal(logits sin LoRA, logits con LoRA): True" in texto
    assert "diferencia máxima absoluta: 0.0" in texto
    # FLOPs
    assert "131 072 / 16 777 216 = 0.007812 = 1/128" in texto
    # conteos
    assert "a mano: 32 × 2 × 16 × (4096 + 4096) = 8 388 608" in texto
    assert "peft: 8 388 608 entrenables de 6 746 804 224" in texto
    assert "¿las tres cuentas coinciden? True" in texto
    assert re.search(r"k_proj\s+4096\s+1024\s+81 920\s+2 621 440", texto)
    assert "total a mano: 41 943 040; tutor_lib.lora (all-linear): 41 943 040" in texto
    assert re.search(r"^\s+16\s+1\.000\s+4\.000$", texto, re.MULTILINE)
    # comparación: parámetros y memoria medidos coherentes con la cuenta exacta
    completo = re.search(r"parámetros entrenables\s+(\d+(?: \d{3})*)\s+(\d+(?: \d{3})*)", texto)
    assert completo and completo.groups() == ("117 654 530", "148 226")
    assert "gradientes de LoRA = 4 bytes × 148 226 entrenables = 592 904 bytes; medido: 592 904" in texto
    total = re.search(r"total pesos\+grad\+AdamW\s+([\d. ]+?) MiB\s+([\d. ]+?) MiB", texto)
    mib_completo, mib_lora = (float(x.replace(" ", "")) for x in total.groups())
    assert mib_lora < 0.3 * mib_completo
    # la prosa dice que en modo rápido la diferencia por paso «se ve en la tabla»
    por_paso = re.search(r"segundos por paso\s+([\d.]+)\s+([\d.]+)", texto)
    assert por_paso and float(por_paso.group(2)) < 0.8 * float(por_paso.group(1)), por_paso.groups()
    exactitudes = re.search(r"exactitud en validación\s+([\d.]+)\s+([\d.]+)", texto)
    assert exactitudes and all(0.0 <= float(x) <= 1.0 for x in exactitudes.groups())
    # peft pone las cabezas de clasificación en modules_to_save; la lista crece con la versión (0.22 agrega
    # «pre_classifier», la de DistilBERT): la lección imprime la de peft, y aquí se pide lo que enseña
    guardados = re.search(r"^modules_to_save: \[(.*)\]$", texto, re.MULTILINE)
    assert guardados and {"'classifier'", "'score'"} <= {x.strip() for x in guardados.group(1).split(",")}
    # fusión y disco
    assert "tipo tras merge_and_unload: BertForSequenceClassification" in texto
    assert "¿iguales dentro de 1e-5? True" in texto and "¿quedan capas LoRA? False" in texto
    veces = int(re.search(r"el modelo completo ocupa (\d+) veces más que el adaptador", texto).group(1))
    assert veces > 100
