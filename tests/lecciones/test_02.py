"""Lección 02 (datos: de archivos a lotes): lo que enseña es cierto.

Las pruebas rápidas comprueban los hechos sin el notebook (la carga directa con ``"json"`` da lo
mismo que ``recursos``, el formato de pares, el error del collator con texto, que el relleno no
cambia las predicciones). La prueba marcada ``cuaderno`` ejecuta el notebook una vez (por eso queda
fuera del recorrido general de tests/test_lecciones.py) y busca en sus salidas las cifras de
relleno, recalculadas aquí de forma independiente.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from cuadernos import ENTERO, a_entero

RAIZ = Path(__file__).resolve().parents[2]
CUADERNO = RAIZ / "lessons" / "02_datos.ipynb"
MAX_TOKENS = 128
EJEMPLOS_POR_LOTE = 16


def _celdas(tipo: str) -> str:
    nb = nbformat.read(CUADERNO, as_version=4)
    return "\n".join(c.source for c in nb.cells if c.cell_type == tipo)


@pytest.fixture(scope="module")
def tokenizer():
    from transformers import AutoTokenizer

    from tutor_lib import recursos

    return AutoTokenizer.from_pretrained(recursos.nombre_modelo("clasificacion", "rapido"))


@pytest.fixture(scope="module")
def parafrasis():
    from tutor_lib import recursos

    return recursos.cargar_dataset("parafrasis", modo="rapido")


# ---------------------------------------------------------------- hechos, sin notebook


def test_load_dataset_json_directo_es_lo_mismo_que_recursos(parafrasis):
    import datasets

    from tutor_lib import recursos

    archivos = recursos.especificacion_dataset("parafrasis", modo="rapido").data_files
    directo = datasets.load_dataset("json", data_files=archivos)
    assert set(directo) == set(parafrasis) == {"train", "validation", "test"}
    for division in directo:
        assert directo[division].column_names == parafrasis[division].column_names
        assert directo[division][:] == parafrasis[division][:]


def test_un_par_en_e5_es_s_a_s_s_b_s_sin_token_type_ids(tokenizer):
    codificado = tokenizer("El gato duerme.", "El perro ladra.")
    piezas = tokenizer.convert_ids_to_tokens(codificado["input_ids"])
    assert "token_type_ids" not in codificado
    assert piezas[0] == "<s>" and piezas[-1] == "</s>" and piezas.count("</s>") == 3
    assert "</s></s>" in "".join(piezas)
    oraciones = codificado.sequence_ids()
    especiales = [p for p, s in zip(piezas, oraciones) if s is None]
    assert especiales == ["<s>", "</s>", "</s>", "</s>"]
    assert oraciones.index(1) > oraciones.index(0)
    assert tokenizer.decode(codificado["input_ids"]) == "<s> El gato duerme.</s></s> El perro ladra.</s>"


def test_un_par_en_bert_se_tokeniza_como_cls_a_sep_b_sep():
    from transformers import AutoTokenizer

    from tutor_lib import recursos

    tokenizer = AutoTokenizer.from_pretrained(recursos.ruta_minilm())
    codificado = tokenizer("El gato duerme.", "El perro ladra.")
    piezas = tokenizer.convert_ids_to_tokens(codificado["input_ids"])
    tipos = codificado["token_type_ids"]
    assert piezas[0] == "[CLS]" and piezas[-1] == "[SEP]" and piezas.count("[SEP]") == 2
    primer_sep = piezas.index("[SEP]")
    assert tipos[: primer_sep + 1] == [0] * (primer_sep + 1)  # [CLS] a [SEP] → 0
    assert tipos[primer_sep + 1 :] == [1] * (len(piezas) - primer_sep - 1)  # b [SEP] → 1
    texto = tokenizer.decode(codificado["input_ids"])
    assert texto.startswith("[CLS] ") and texto.endswith(" [SEP]") and " [SEP] " in texto


def test_el_collator_falla_con_columnas_de_texto_y_funciona_sin_ellas(tokenizer, parafrasis):
    from transformers import DataCollatorWithPadding

    def tokenizar(ejemplos):
        return tokenizer(ejemplos["sentence1"], ejemplos["sentence2"], truncation=True, max_length=MAX_TOKENS)

    tokenizado = parafrasis["train"].select(range(4)).map(tokenizar, batched=True)
    rellenar = DataCollatorWithPadding(tokenizer=tokenizer)
    with pytest.raises(ValueError, match="sentence1"):
        rellenar([tokenizado[0], tokenizado[1]])
    limpio = tokenizado.remove_columns(["sentence1", "sentence2", "tipo"]).rename_column("label", "labels")
    lote = rellenar([limpio[i] for i in range(4)])
    largos = [len(limpio[i]["input_ids"]) for i in range(4)]
    assert lote["input_ids"].shape == (4, max(largos))
    assert lote["attention_mask"].sum(dim=1).tolist() == largos
    limpio.set_format("torch")
    import torch

    assert isinstance(limpio[0]["input_ids"], torch.Tensor)


def test_relleno_fijo_y_dinamico_dan_las_mismas_predicciones(tokenizer, parafrasis):
    import torch
    from transformers import DataCollatorWithPadding

    from tutor_lib import recursos

    _, modelo = recursos.cargar_clasificador(num_labels=2, modo="rapido")
    modelo.eval()
    filas = [
        dict(tokenizer(f["sentence1"], f["sentence2"], truncation=True, max_length=MAX_TOKENS))
        for f in parafrasis["validation"].select(range(4))
    ]
    fijo = DataCollatorWithPadding(tokenizer, padding="max_length", max_length=MAX_TOKENS)(filas)
    dinamico = DataCollatorWithPadding(tokenizer)(filas)
    assert fijo["input_ids"].shape[1] == MAX_TOKENS > dinamico["input_ids"].shape[1]
    with torch.no_grad():
        a, b = modelo(**fijo).logits, modelo(**dinamico).logits
    assert torch.allclose(a, b, atol=1e-5)


def test_cuaderno_usa_las_piezas_pedidas():
    codigo = _celdas("code")
    for necesario in (
        'recursos.cargar_dataset("parafrasis")',
        'datasets.load_dataset("json", data_files=',
        "batched=True",
        "batched=por_lotes",
        "DataCollatorWithPadding(tokenizer)",
        'padding="max_length"',
        "remove_columns(",
        'set_format("torch")',
        "DataLoader(",
        "token_type_ids",
        "tokenizer.decode(",
        "eje.hist(",
    ):
        assert necesario in codigo, necesario
    markdown = _celdas("markdown")
    assert "## Lo que aprendiste" in markdown and "## Autoevaluación" in markdown


# ---------------------------------------------------------------- el notebook, una vez


def _relleno_esperado(tokenizer, parafrasis):
    """Tokens procesados y reales en la validación, calculados aquí sin el código del notebook."""
    largos = [
        len(tokenizer(a, b, truncation=True, max_length=MAX_TOKENS)["input_ids"])
        for a, b in zip(parafrasis["validation"]["sentence1"], parafrasis["validation"]["sentence2"])
    ]
    lotes = [largos[i : i + EJEMPLOS_POR_LOTE] for i in range(0, len(largos), EJEMPLOS_POR_LOTE)]
    return {
        "reales": sum(largos),
        "fija": len(largos) * MAX_TOKENS,
        "dinamica": sum(len(lote) * max(lote) for lote in lotes),
    }


@pytest.mark.cuaderno
def test_cuaderno_muestra_las_cifras_calculadas(tokenizer, parafrasis):
    from cuadernos import ejecutar_cuaderno, textos_de_salida

    nb, segundos = ejecutar_cuaderno(CUADERNO)
    texto = textos_de_salida(nb)
    assert "Modo: rápido" in texto
    # El tiempo no se afirma aquí (depende de la máquina): su meta vive en benchmarks/b_lecciones.py.

    # la carga directa y el DatasetDict
    assert "primera línea del archivo: {" in texto and ".arrow" in texto
    for division, datos in parafrasis.items():
        assert re.search(rf"{division}\s+{len(datos)} pares:", texto), division

    # el par decodificado con el tokenizer de e5 (sin token_type_ids) y con el de BERT (con ellos)
    decodificado = re.search(r"decodificado: (.+)", texto).group(1)
    assert decodificado.startswith("<s> ") and decodificado.endswith("</s>") and decodificado.count("</s>") == 3
    assert "token_type_ids: (este tokenizer no los devuelve)" in texto
    assert re.search(r"sequence_ids = None \(especiales, 4 tokens\): <s> </s> </s> </s>", texto)
    assert "sequence_ids = 0    (oración 1," in texto and "sequence_ids = 1    (oración 2," in texto
    bert = re.search(r"decodificado \(BERT\): (.+)", texto).group(1)
    assert bert.startswith("[CLS] ") and bert.endswith(" [SEP]") and bert.count("[SEP]") == 2
    assert "token_type_ids = 0 (" in texto and "token_type_ids = 1 (" in texto

    # map batched vs no batched: las dos medidas aparecen
    assert re.search(r"batched=False\s+2000 pares en [\d.]+ s", texto)
    assert re.search(r"batched=True\s+2000 pares en [\d.]+ s", texto)

    # el collator con texto falla con el mensaje engañoso
    assert "ValueError: Unable to create tensor" in texto and "sentence1" in texto

    # relleno: las cifras del notebook coinciden con las recalculadas aquí
    esperado = _relleno_esperado(tokenizer, parafrasis)
    fila_fija = re.search(rf"fija \(128 tokens\)\s+({ENTERO})\s+({ENTERO})\s+([\d.]+) %", texto)
    fila_dinamica = re.search(rf"dinámica\s+({ENTERO})\s+({ENTERO})\s+([\d.]+) %", texto)
    assert fila_fija and fila_dinamica
    assert a_entero(fila_fija.group(1)) == esperado["fija"]
    assert a_entero(fila_dinamica.group(1)) == esperado["dinamica"]
    assert a_entero(fila_fija.group(2)) == a_entero(fila_dinamica.group(2)) == esperado["reales"]
    assert fila_fija.group(3) == f"{100 * (1 - esperado['reales'] / esperado['fija']):.1f}"
    assert fila_dinamica.group(3) == f"{100 * (1 - esperado['reales'] / esperado['dinamica']):.1f}"
    assert "¿mismas predicciones? True" in texto

    # set_format y DataLoader
    assert "antes:  list" in texto and "después: Tensor" in texto
    anchos = [int(m) for m in re.findall(r"lote \d: labels \(16,\), input_ids \(16, (\d+)\)", texto)]
    assert len(anchos) == 3 and all(a <= MAX_TOKENS for a in anchos)
