"""Pruebas de tutor_lib.lora: los conteos hechos a mano coinciden con peft exactamente."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from tutor_lib import lora, recursos

# Configuraciones escritas a mano (sin Hub). Las grandes se construyen en «meta», sin pesos.
LLAMA2_7B = {
    "model_type": "llama",
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 4096,
    "intermediate_size": 11008,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 32,
    "vocab_size": 32000,
    "max_position_embeddings": 4096,
    "tie_word_embeddings": False,
}
LLAMA3_8B = {
    "model_type": "llama",
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,  # atención con grupos de consultas: k_proj y v_proj son más estrechas
    "vocab_size": 128256,
    "max_position_embeddings": 8192,
    "tie_word_embeddings": False,
}
LLAMA_DIMINUTO = {
    "model_type": "llama",
    "hidden_size": 32,
    "intermediate_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "vocab_size": 100,
    "max_position_embeddings": 64,
}
GPT2_DIMINUTO = {"model_type": "gpt2", "n_embd": 32, "n_layer": 2, "n_head": 4, "vocab_size": 100, "n_positions": 64}
BERT_DIMINUTO = {
    "model_type": "bert",
    "hidden_size": 32,
    "intermediate_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "vocab_size": 100,
    "max_position_embeddings": 64,
}
MODULOS_LLAMA = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def _conteo_peft(modelo, r, modulos):
    """Lo que dice peft: (entrenables, totales, entrenables por nombre corto de módulo)."""
    from peft import LoraConfig, get_peft_model

    if isinstance(modulos, str):  # peft lee una cadena como expresión regular: la pasamos como lista
        objetivo = modulos if modulos == "all-linear" else [m.strip() for m in modulos.split(",")]
    else:
        objetivo = list(modulos)
    con_peft = get_peft_model(modelo, LoraConfig(r=r, lora_alpha=2 * r, target_modules=objetivo))
    entrenables, totales = con_peft.get_nb_trainable_parameters()
    por_modulo: dict[str, int] = {}
    for nombre, p in con_peft.named_parameters():
        if p.requires_grad:
            corto = nombre.split(".lora_")[0].rsplit(".", 1)[-1]
            por_modulo[corto] = por_modulo.get(corto, 0) + p.numel()
    return entrenables, totales, por_modulo


def _comparar(origen, r, modulos, tarea=None):
    conteo = lora.contar_parametros_lora(origen, r, modulos, tarea=tarea)
    modelo = recursos.construir_en_meta(recursos.cargar_config(origen), tarea=tarea)
    entrenables, totales, por_modulo = _conteo_peft(modelo, r, modulos)
    assert conteo.parametros_entrenables == entrenables
    assert conteo.parametros_totales == totales
    assert conteo.por_modulo == por_modulo
    assert conteo.porcentaje == pytest.approx(100 * entrenables / totales, rel=1e-12)
    return conteo


# --------------------------------------------------------------------------
# Igualdad exacta con peft
# --------------------------------------------------------------------------


def test_llama2_7b_q_v_como_la_fuente():
    conteo = _comparar(LLAMA2_7B, 16, ["q_proj", "v_proj"])
    assert conteo.parametros_entrenables == 8_388_608
    assert conteo.parametros_totales == 6_746_804_224
    assert conteo.parametros_base == 6_738_415_616
    assert conteo.capas == 64
    assert f"{conteo.porcentaje:.4f}" == "0.1243"


def test_llama3_8b_todas_las_lineales_con_gqa():
    conteo = _comparar(LLAMA3_8B, 16, "all-linear")
    assert conteo.parametros_entrenables == 41_943_040
    assert set(conteo.por_modulo) == set(MODULOS_LLAMA)  # sin lm_head
    # k_proj y v_proj: 4096 -> 1024 (8 cabezas kv de 128)
    assert conteo.por_modulo["k_proj"] == 32 * 16 * (4096 + 1024)
    assert conteo.por_modulo["q_proj"] == 32 * 16 * (4096 + 4096)


@pytest.mark.parametrize("modulos", [["c_attn"], ["c_attn", "c_proj"], "all-linear", "c_fc, c_proj"])
def test_gpt2_con_conv1d(modulos):
    conteo = _comparar(GPT2_DIMINUTO, 4, modulos)
    if modulos == ["c_attn"]:
        assert conteo.parametros_entrenables == 2 * 4 * (32 + 96)  # Conv1D guarda el peso como (entrada, salida)


@pytest.mark.parametrize(
    "tarea,modulos",
    [(None, ["query", "value"]), (None, "all-linear"), (None, ["dense"]), ("clasificacion", "all-linear")],
)
def test_bert_diminuto(tarea, modulos):
    conteo = _comparar(BERT_DIMINUTO, 8, modulos, tarea=tarea)
    if tarea == "clasificacion":
        assert "classifier" in conteo.por_modulo  # como peft sin task_type: la cabeza también recibe LoRA


def test_modelo_real_no_meta_y_modulo_propio():
    torch.manual_seed(0)

    class Propio(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.entrada = torch.nn.Linear(10, 20)
            self.oculta = torch.nn.Linear(20, 20, bias=False)
            self.salida = torch.nn.Linear(20, 3)

        def forward(self, x):
            return self.salida(self.oculta(self.entrada(x)))

    conteo = lora.contar_parametros_lora(Propio(), 2, "all-linear")
    entrenables, totales, por_modulo = _conteo_peft(Propio(), 2, "all-linear")
    assert (conteo.parametros_entrenables, conteo.parametros_totales, conteo.por_modulo) == (
        entrenables,
        totales,
        por_modulo,
    )
    assert conteo.parametros_entrenables == 2 * (30 + 40 + 23)

    modelo = recursos.construir_en_meta(LLAMA_DIMINUTO)
    antes = [(n, p.shape) for n, p in modelo.named_parameters()]
    lora.contar_parametros_lora(modelo, 4, ["q_proj"])
    assert [(n, p.shape) for n, p in modelo.named_parameters()] == antes  # no modifica el modelo


def test_embedding_tambien_se_cuenta_como_en_peft():
    _comparar(LLAMA_DIMINUTO, 4, ["embed_tokens", "q_proj"])


def test_nombres_que_se_solapan_cuentan_cada_capa_una_vez():
    conteo = _comparar(BERT_DIMINUTO, 4, ["dense", "output.dense"])
    solo_dense = lora.contar_parametros_lora(BERT_DIMINUTO, 4, ["dense"])
    assert conteo.parametros_entrenables == solo_dense.parametros_entrenables


def test_config_json_en_disco(tmp_path):
    ruta = tmp_path / "config.json"
    ruta.write_text(json.dumps(LLAMA_DIMINUTO), encoding="utf-8")
    assert lora.contar_parametros_lora(ruta, 8, ["q_proj"]) == lora.contar_parametros_lora(
        LLAMA_DIMINUTO, 8, ["q_proj"]
    )
    assert "q_proj" in lora.capas_lineales(ruta) and "lm_head" in lora.capas_lineales(ruta)


@settings(max_examples=15, deadline=None)
@given(
    r=st.integers(1, 64),
    modulos=st.lists(st.sampled_from(MODULOS_LLAMA), min_size=1, max_size=7, unique=True),
)
def test_propiedad_igual_que_peft(r, modulos):
    _comparar(LLAMA_DIMINUTO, r, modulos)


# --------------------------------------------------------------------------
# Validación
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "r,modulos,error,texto",
    [
        (0, ["q_proj"], ValueError, "r debe ser un entero ≥ 1"),
        (-4, ["q_proj"], ValueError, "recibí -4"),
        (1.5, ["q_proj"], TypeError, "r debe ser un entero"),
        (True, ["q_proj"], TypeError, "r debe ser un entero"),
        ("16", ["q_proj"], TypeError, "r debe ser un entero"),
        (8, ["q_proj", "inexistente"], ValueError, "inexistente"),
        (8, [], ValueError, "vacío"),
        (8, "", ValueError, "vacío"),
        (8, 5, TypeError, "modulos"),
        (8, ["q_proj", 3], TypeError, "módulo"),
        (8, ["self_attn"], ValueError, "solo adapta"),
    ],
)
def test_errores_en_espanol(r, modulos, error, texto):
    with pytest.raises(error) as info:
        lora.contar_parametros_lora(LLAMA_DIMINUTO, r, modulos)
    assert texto in str(info.value)


def test_modulo_inexistente_lista_las_capas_disponibles():
    with pytest.raises(ValueError) as info:
        lora.contar_parametros_lora(LLAMA_DIMINUTO, 8, ["query"])
    mensaje = str(info.value)
    assert "'query'" in mensaje
    for nombre in MODULOS_LLAMA:
        assert nombre in mensaje


def test_nombre_del_hub_sin_red_da_error_en_espanol():
    with pytest.raises(ValueError, match="No pude obtener la configuración"):
        lora.contar_parametros_lora("meta-llama/Llama-2-7b-hf", 16, ["q_proj"])


# --------------------------------------------------------------------------
# Sobrecosto de FLOPs
# --------------------------------------------------------------------------


def test_sobrecosto_de_la_fuente():
    assert lora.sobrecosto_flops(4096, 4096, 16) == 1 / 128
    assert lora.sobrecosto_flops(4096, 1024, 16) == 16 * 5120 / (4096 * 1024)


@settings(max_examples=200, deadline=None)
@given(d_entrada=st.integers(1, 100_000), d_salida=st.integers(1, 100_000), r=st.integers(1, 1024))
def test_propiedad_sobrecosto(d_entrada, d_salida, r):
    valor = lora.sobrecosto_flops(d_entrada, d_salida, r)
    assert valor > 0
    assert valor == pytest.approx(r * (d_entrada + d_salida) / (d_entrada * d_salida), rel=1e-12)
    assert valor == lora.sobrecosto_flops(d_salida, d_entrada, r)  # simétrico
    assert lora.sobrecosto_flops(d_entrada, d_salida, 2 * r) == pytest.approx(2 * valor, rel=1e-12)  # lineal en r


@settings(max_examples=100, deadline=None)
@given(
    argumentos=st.tuples(
        *[
            st.one_of(
                st.integers(-10, 10), st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.text(max_size=3), st.none()
            )
        ]
        * 3
    )
)
def test_propiedad_sobrecosto_solo_errores_documentados(argumentos):
    try:
        valor = lora.sobrecosto_flops(*argumentos)
    except (ValueError, TypeError) as exc:
        assert "debe ser un entero ≥ 1" in str(exc)
    else:
        assert all(isinstance(a, int) and not isinstance(a, bool) and a >= 1 for a in argumentos)
        assert valor > 0


# --------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------


def _tutor(*argumentos: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tutor_lib", *argumentos], capture_output=True, text=True, timeout=120)


def test_cli_json_con_config(tmp_path):
    ruta = tmp_path / "config.json"
    ruta.write_text(json.dumps(LLAMA2_7B), encoding="utf-8")
    r = _tutor("lora", "--config", str(ruta), "--r", "16", "--modulos", "q_proj,v_proj", "--json")
    assert r.returncode == 0, r.stderr
    datos = json.loads(r.stdout)
    assert datos["parametros_entrenables"] == 8_388_608
    assert datos["parametros_totales"] == 6_746_804_224
    assert datos["porcentaje"] == pytest.approx(100 * 8_388_608 / 6_746_804_224)


def test_cli_texto_all_linear_en_proceso(tmp_path, capsys):
    from tutor_lib.cli import main

    ruta = tmp_path / "config.json"
    ruta.write_text(json.dumps(LLAMA3_8B), encoding="utf-8")
    assert main(["lora", "--config", str(ruta), "--r", "16", "--modulos", "all-linear"]) == 0
    salida = capsys.readouterr().out
    assert "41 943 040" in salida and "Parámetros entrenables" in salida


@pytest.mark.parametrize(
    "argumentos,texto",
    [
        (["--modelo", "meta-llama/Llama-2-7b-hf", "--r", "16", "--modulos", "q_proj"], "No pude obtener"),
        (["--config", "no_existe/config.json", "--r", "16", "--modulos", "q_proj"], "No existe"),
        (["--config", "config.json", "--r", "0", "--modulos", "q_proj"], "r debe ser un entero ≥ 1"),
        (["--r", "16", "--modulos", "q_proj"], "hace falta uno de los argumentos"),
    ],
)
def test_cli_errores_en_espanol(argumentos, texto):
    r = _tutor("lora", *argumentos)
    assert r.returncode == 2
    assert texto in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
