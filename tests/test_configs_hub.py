"""Los config.json de los modelos del modo completo que trae el curso (issue 13, punto 1).

Sin red ni pesos: cada config se construye en el dispositivo «meta» y sus parámetros se
comparan con cuentas hechas a mano a partir de las dimensiones (así un número mal
transcrito en el JSON no pasa).
"""

from __future__ import annotations

import json

import pytest

from tutor_lib import recursos


def test_los_configs_incluidos_son_exactamente_los_que_pide_el_modo_completo():
    pedidos = {modos["completo"] for modos in recursos.MODELOS.values()}
    assert set(recursos.configs_incluidos()) == pedidos


def _bert_clasificacion(vocab, oculta, capas, intermedia, posiciones, tipos, etiquetas):
    embeddings = (vocab + posiciones + tipos) * oculta + 2 * oculta
    capa = 4 * (oculta * oculta + oculta) + 2 * oculta + (oculta * intermedia + intermedia) \
        + (intermedia * oculta + oculta) + 2 * oculta
    pooler = oculta * oculta + oculta
    return embeddings + capas * capa + pooler + oculta * etiquetas + etiquetas


def _qwen2_atado(vocab, oculta, capas, intermedia, cabezas, cabezas_kv):
    dim_cabeza = oculta // cabezas
    kv = cabezas_kv * dim_cabeza
    atencion = (oculta * oculta + oculta) + 2 * (oculta * kv + kv) + oculta * oculta  # q, k, v con sesgo; o sin
    capa = atencion + 3 * oculta * intermedia + 2 * oculta
    return vocab * oculta + capas * capa + oculta  # lm_head atado a los embeddings


@pytest.mark.parametrize("nombre, tarea, esperado", [
    ("dccuchile/bert-base-spanish-wwm-cased", "clasificacion", _bert_clasificacion(31002, 768, 12, 3072, 512, 2, 2)),
    ("Qwen/Qwen2.5-0.5B-Instruct", "causal", _qwen2_atado(151936, 896, 24, 4864, 14, 2)),
    ("Qwen/Qwen2.5-1.5B-Instruct", "causal", _qwen2_atado(151936, 1536, 28, 8960, 12, 2)),
])
def test_cada_config_se_construye_sin_red_con_los_parametros_de_sus_dimensiones(nombre, tarea, esperado,
                                                                                 monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(recursos, "_config_del_hub",
                        lambda n: pytest.fail(f"cargar_config fue al Hub por {n!r}"))
    modelo = recursos.construir_en_meta(recursos.cargar_config(nombre), tarea=tarea)
    assert recursos.contar_parametros(modelo) == esperado
    assert next(modelo.parameters()).device.type == "meta"


def test_los_valores_conocidos_de_cada_modelo():
    """Las cifras públicas de cada modelo: 494 032 768 parámetros en Qwen2.5-0.5B, vocabulario de BETO."""
    qwen = recursos.cargar_config("Qwen/Qwen2.5-0.5B-Instruct")
    assert recursos.contar_parametros(recursos.construir_en_meta(qwen)) == 494_032_768
    assert (qwen.num_key_value_heads, qwen.tie_word_embeddings, qwen.max_position_embeddings) == (2, True, 32768)
    beto = recursos.cargar_config("dccuchile/bert-base-spanish-wwm-cased")
    assert (beto.vocab_size, beto.pad_token_id, beto.architectures) == (31002, 1, ["BertForMaskedLM"])


def test_los_archivos_son_json_de_transformers_y_estan_documentados():
    modelos_md = (recursos.CARPETA_DATOS / "MODELOS.md").read_text(encoding="utf-8")
    for nombre in recursos.configs_incluidos():
        archivo = recursos.CARPETA_CONFIGS / (nombre.replace("/", "--") + ".json")
        datos = json.loads(archivo.read_text(encoding="utf-8"))
        assert datos["model_type"] and datos["architectures"]
        assert f"https://huggingface.co/{nombre}" in modelos_md, f"falta la procedencia de {nombre} en MODELOS.md"


def test_un_nombre_que_no_esta_incluido_sigue_pidiendo_el_hub(monkeypatch):
    llamados = []
    monkeypatch.setattr(recursos, "_config_del_hub", lambda n: llamados.append(n) or "del hub")
    assert recursos.cargar_config("alguien/otro-modelo") == "del hub" and llamados == ["alguien/otro-modelo"]
    for raro in ("../Qwen--Qwen2.5-0.5B-Instruct", "Qwen/Qwen2.5-0.5B-Instruct/../x", "/Qwen/x"):
        assert recursos._archivo_config_incluido(raro) is None
