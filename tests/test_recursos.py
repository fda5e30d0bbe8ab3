"""Carga offline de datos, modelos y métricas; qué pediría el modo completo al Hub."""

from __future__ import annotations

import pytest

from tutor_lib import recursos


@pytest.mark.parametrize("nombre", ["resenas", "parafrasis", "instrucciones", "preferencias"])
def test_datasets_locales_cargan_sin_red(nombre):
    ds = recursos.cargar_dataset(nombre, modo="rapido")
    assert set(ds) == {"train", "validation", "test"}
    for columna in recursos.DATASETS_LOCALES[nombre]:
        assert columna in ds["train"].column_names
    assert len(ds["train"]) > len(ds["validation"]) > 0


def test_muestras_recorta_cada_division():
    ds = recursos.cargar_dataset("resenas", modo="rapido", muestras=10)
    assert {len(ds[d]) for d in ds} == {10}
    with pytest.raises(ValueError, match="muestras"):
        recursos.cargar_dataset("resenas", modo="rapido", muestras=0)


def test_especificacion_modo_completo_pide_los_nombres_reales_del_hub():
    paws = recursos.especificacion_dataset("parafrasis", modo="completo")
    assert paws.argumentos() == {"path": "google-research-datasets/paws-x", "name": "es"}
    mrpc = recursos.especificacion_dataset("mrpc", modo="completo")
    assert mrpc.argumentos() == {"path": "nyu-mll/glue", "name": "mrpc"}
    resenas = recursos.especificacion_dataset("resenas", modo="completo")
    assert resenas.argumentos() == {"path": "SetFit/amazon_reviews_multi_es"}
    # instrucciones y preferencias son las del curso en ambos modos
    assert recursos.especificacion_dataset("instrucciones", modo="completo").ruta == "json"


def test_especificacion_modo_rapido_usa_archivos_del_curso():
    espec = recursos.especificacion_dataset("parafrasis", modo="rapido")
    assert espec.ruta == "json" and espec.data_files["train"].endswith("parafrasis/train.jsonl")
    with pytest.raises(ValueError, match="Dataset desconocido"):
        recursos.especificacion_dataset("imdb", modo="rapido")
    with pytest.raises(ValueError, match="solo existe en el Hub"):
        recursos.especificacion_dataset("mrpc", modo="rapido")


def test_resenas_del_hub_se_convierten_a_binario():
    from datasets import Dataset, DatasetDict

    falso_hub = DatasetDict(
        {"train": Dataset.from_dict({"text": list("abcde"), "label": [0, 1, 2, 3, 4], "label_text": list("12345")})}
    )
    binario = recursos._resenas_a_binario(falso_hub)
    assert binario["train"]["label"] == [0, 0, 1, 1]  # la reseña de 3 estrellas se descarta
    assert binario["train"].column_names == ["text", "label"]


def _filas_del_hub(nombre: str, n: int = 6):
    """Un DatasetDict con exactamente las columnas que declara DATASETS_HUB[nombre], escrito a mano."""
    from datasets import Dataset, DatasetDict

    columnas = recursos.DATASETS_HUB[nombre]["columnas_hub"]
    valores = {
        "text": [f"reseña {i}" for i in range(n)], "label_text": [str(i % 5 + 1) for i in range(n)],
        "id": list(range(n)), "idx": list(range(n)),
        "sentence1": [f"oración {i}" for i in range(n)], "sentence2": [f"otra {i}" for i in range(n)],
    }
    etiquetas = sorted(recursos.DATASETS_HUB[nombre]["etiquetas_hub"])
    valores["label"] = [etiquetas[i % len(etiquetas)] for i in range(n)]
    return DatasetDict({d: Dataset.from_dict({c: valores[c] for c in columnas}) for d in recursos.DIVISIONES})


@pytest.mark.parametrize("nombre", sorted(recursos.DATASETS_HUB))
def test_cada_mapeo_del_hub_corre_sobre_filas_con_su_esquema(nombre):
    espec = recursos.DATASETS_HUB[nombre]
    assert set(espec["filas"]) == set(recursos.DIVISIONES) and all(v > 0 for v in espec["filas"].values())
    hub = _filas_del_hub(nombre, n=10)
    recursos.verificar_esquema_hub(nombre, hub)
    curso = recursos.MAPEOS_HUB[nombre](hub)
    local = "resenas" if nombre == "resenas" else "parafrasis"
    for division in recursos.DIVISIONES:
        assert tuple(curso[division].column_names) == recursos.DATASETS_LOCALES[local]
        assert set(curso[division]["label"]) <= set(espec["etiquetas"])
    if nombre == "resenas":  # 10 filas con 1..5 estrellas repetidas: se van las dos de 3 estrellas
        assert len(curso["train"]) == 8 and curso["train"]["label"] == [0, 0, 1, 1, 0, 0, 1, 1]


def test_el_esquema_del_hub_equivocado_da_un_error_en_espanol():
    hub = _filas_del_hub("parafrasis").remove_columns(["sentence2"])
    with pytest.raises(ValueError, match="no trae las columnas que espera el curso: faltan sentence2"):
        recursos.verificar_esquema_hub("parafrasis", hub)


def test_las_etiquetas_del_modo_completo_significan_lo_mismo_que_las_del_curso():
    """1 = positiva / es paráfrasis en los dos modos (el DATASHEET lo dice para los datos del curso)."""
    assert recursos.DATASETS_HUB["resenas"]["etiquetas"][1].startswith("positiva")
    for nombre in ("parafrasis", "mrpc"):
        assert recursos.DATASETS_HUB[nombre]["etiquetas"] == {0: "no es paráfrasis", 1: "es paráfrasis"}


def test_modelos_del_modo_completo_son_nombres_del_hub():
    assert recursos.nombre_modelo("clasificacion", "completo") == "dccuchile/bert-base-spanish-wwm-cased"
    assert recursos.nombre_modelo("causal", "completo") == "Qwen/Qwen2.5-0.5B-Instruct"
    with pytest.raises(ValueError, match="Tarea desconocida"):
        recursos.nombre_modelo("traduccion", "rapido")


def test_clasificador_rapido_carga_sin_red():
    tokenizer, modelo = recursos.cargar_clasificador(num_labels=2, modo="rapido")
    # multilingual-e5-small: 250 037 piezas × 384 + posiciones 512 × 384 + tipos 2 × 384 + LayerNorm 2 × 384,
    # 12 capas de 1 774 464, pooler 384 × 384 + 384 y cabeza 384 × 2 + 2
    esperado = 250_037 * 384 + 512 * 384 + 2 * 384 + 2 * 384 + 12 * 1_774_464 + (384 * 384 + 384) + (384 * 2 + 2)
    assert recursos.contar_parametros(modelo) == esperado == 117_654_530
    salida = modelo(**tokenizer(["hola mundo"], return_tensors="pt"))
    assert tuple(salida.logits.shape) == (1, 2)


def test_llama_diminuto_se_construye_y_genera(tmp_path):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    ruta = recursos.construir_llama_diminuto(tmp_path / "llama")
    tokenizer = AutoTokenizer.from_pretrained(ruta)
    modelo = AutoModelForCausalLM.from_pretrained(ruta)
    assert modelo.config.model_type == "llama" and modelo.config.num_hidden_layers == 2
    texto = tokenizer.apply_chat_template(
        [{"role": "user", "content": "¿Qué es un epoch?"}], tokenize=False, add_generation_prompt=True
    )
    assert texto.endswith("<|assistant|>\n")
    ids = tokenizer(texto, return_tensors="pt")
    with torch.no_grad():
        nuevo = modelo.generate(**ids, max_new_tokens=5, do_sample=False)
    assert nuevo.shape[1] == ids["input_ids"].shape[1] + 5 or tokenizer.eos_token_id in nuevo[0]
    # el tokenizer entrenado con los textos del curso conoce palabras frecuentes en español
    assert len(tokenizer("entrenamiento")["input_ids"]) <= len("entrenamiento") / 3


def test_cargar_config_con_errores_claros(tmp_path):
    roto = tmp_path / "config.json"
    roto.write_text("{no es json", encoding="utf-8")
    with pytest.raises(ValueError, match="no es un JSON válido"):
        recursos.cargar_config(roto)
    with pytest.raises(ValueError, match="model_type"):
        recursos.cargar_config({"hidden_size": 8})
    with pytest.raises(TypeError, match="No sé leer"):
        recursos.cargar_config(3.5)
    with pytest.raises(FileNotFoundError):
        recursos.cargar_config(tmp_path / "no_existe.json")


def test_conteo_exacto_en_meta_distilbert():
    config = recursos.cargar_config(
        {"model_type": "distilbert", "architectures": ["DistilBertForSequenceClassification"], "num_labels": 2}
    )
    assert recursos.contar_parametros(recursos.construir_en_meta(config)) == 66_955_010


def test_metricas_locales_coinciden_con_scikit_learn(capsys):
    from sklearn.metrics import accuracy_score, f1_score, precision_score, recall_score

    pred = [1, 0, 1, 1, 0, 1, 0, 0, 1, 1]
    ref = [1, 0, 0, 1, 0, 1, 1, 0, 0, 1]
    recursos._AVISO_METRICAS_LOCALES.clear()
    assert recursos.cargar_metrica("accuracy").compute(predictions=pred, references=ref)["accuracy"] == pytest.approx(
        accuracy_score(ref, pred)
    )
    assert "implementaciones locales" in capsys.readouterr().out
    recursos.cargar_metrica("f1")
    assert capsys.readouterr().out == ""  # el aviso sale una sola vez
    for nombre, funcion in (("precision", precision_score), ("recall", recall_score), ("f1", f1_score)):
        metrica = recursos.MetricaLocal(nombre)
        for average in ("binary", "macro", "micro", "weighted"):
            esperado = funcion(ref, pred, average=average)
            assert metrica.compute(predictions=pred, references=ref, average=average)[nombre] == pytest.approx(esperado)
    mrpc = recursos.MetricaLocal("mrpc").compute(predictions=pred, references=ref)
    assert mrpc == pytest.approx({"accuracy": accuracy_score(ref, pred), "f1": f1_score(ref, pred)})


def test_metricas_con_entradas_malas():
    with pytest.raises(ValueError, match="Métrica desconocida"):
        recursos.cargar_metrica("bleu")
    with pytest.raises(ValueError, match="mismo largo"):
        recursos.MetricaLocal("accuracy").compute(predictions=[1, 0], references=[1])
    with pytest.raises(ValueError, match="vacías"):
        recursos.MetricaLocal("f1").compute(predictions=[], references=[])
