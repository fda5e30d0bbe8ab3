"""Pruebas de tutor_lib.vram: la promesa es «exacto hasta el byte» en el estado estático.

Se entrenan modelos diminutos de verdad (Llama y BERT construidos desde su
config, en CPU), se da un paso de AdamW y se compara :func:`vram.medir_estado`
con :func:`vram.estimar_memoria`: deben coincidir byte a byte en fp32, bf16
puro, precisión mixta, LoRA y QLoRA (bitsandbytes en CPU). Las activaciones son
una estimación: se piden dentro de un ±30 % de :func:`vram.medir_activaciones`.
"""

from __future__ import annotations

import contextlib
import json
import math
import subprocess
import sys
import warnings

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tutor_lib import vram

warnings.filterwarnings("ignore", message=".*kernels.*")

LOTE, SECUENCIA = 2, 128


def _config_llama(**extra):
    from transformers import LlamaConfig

    datos = dict(
        vocab_size=512, hidden_size=64, intermediate_size=176, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=256, tie_word_embeddings=False,
        architectures=["LlamaForCausalLM"], attn_implementation="sdpa",
    )
    datos.update(extra)
    return LlamaConfig(**datos)


def _config_bert(**extra):
    from transformers import BertConfig

    datos = dict(
        vocab_size=512, hidden_size=64, intermediate_size=256, num_hidden_layers=2, num_attention_heads=4,
        max_position_embeddings=256, num_labels=2, architectures=["BertForSequenceClassification"],
        attn_implementation="sdpa",
    )
    datos.update(extra)
    return BertConfig(**datos)


def _modelo(config, dtype=torch.float32):
    from transformers import BertForSequenceClassification, LlamaForCausalLM

    torch.manual_seed(0)
    clase = LlamaForCausalLM if config.model_type == "llama" else BertForSequenceClassification
    modelo = clase(config).to(dtype)
    modelo.train()
    return modelo


def _entradas(config):
    generador = torch.Generator().manual_seed(1)
    ids = torch.randint(0, config.vocab_size, (LOTE, SECUENCIA), generator=generador)
    if config.model_type == "llama":
        return {"input_ids": ids, "labels": ids}
    return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": torch.tensor([0, 1])}


def _optimizador(nombre, parametros):
    parametros = [p for p in parametros if p.requires_grad]
    if nombre == "adamw":
        return torch.optim.AdamW(parametros, lr=1e-3)
    if nombre == "sgd":
        return torch.optim.SGD(parametros, lr=1e-3)
    if nombre == "sgd_momentum":
        return torch.optim.SGD(parametros, lr=1e-3, momentum=0.9)
    import bitsandbytes as bnb

    return bnb.optim.AdamW8bit(parametros, lr=1e-3)


def _paso(modelo, config, optimizador, autocast=False):
    contexto = torch.autocast("cpu", dtype=torch.bfloat16) if autocast else contextlib.nullcontext()
    with contexto:
        perdida = modelo(**_entradas(config)).loss
    perdida.backward()
    optimizador.step()


def _estatica_medida(medida):
    return {k: medida[k] for k in ("pesos", "gradientes", "estados_optimizador", "constantes_cuantizacion")}


def _estatica_estimada(estimacion):
    c = estimacion.componentes
    return {
        "pesos": c["pesos"] + c["copia_maestra_fp32"],
        "gradientes": c["gradientes"],
        "estados_optimizador": c["estados_optimizador"],
        "constantes_cuantizacion": c["constantes_cuantizacion"],
    }


# --------------------------------------------------------------------------
# Estado estático: exacto hasta el byte
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "familia,precision,optimizador",
    [
        ("llama", "fp32", "adamw"),
        ("llama", "bf16", "adamw"),
        ("llama", "fp32", "sgd"),
        ("llama", "fp32", "sgd_momentum"),
        ("llama", "bf16", "sgd_momentum"),
        ("llama", "bf16", "adamw_8bit"),
        ("bert", "fp32", "adamw"),
        ("bert", "bf16", "adamw"),
    ],
)
def test_estatica_exacta_completo(familia, precision, optimizador):
    config = _config_llama() if familia == "llama" else _config_bert()
    modelo = _modelo(config, torch.float32 if precision == "fp32" else torch.bfloat16)
    opt = _optimizador(optimizador, modelo.parameters())
    _paso(modelo, config, opt)
    medida = vram.medir_estado(modelo, opt)
    estimacion = vram.estimar_memoria(config, "completo", precision, optimizador)
    assert _estatica_estimada(estimacion) == _estatica_medida(medida)
    assert estimacion.estatica_bytes == medida["total"]
    assert estimacion.parametros == sum(p.numel() for p in modelo.parameters())


def test_bf16_puro_adamw_usa_el_dtype_del_parametro():
    """AdamW crea m y v en bf16 para parámetros bf16: 8 B por parámetro, no 16."""
    config = _config_llama()
    modelo = _modelo(config, torch.bfloat16)
    opt = _optimizador("adamw", modelo.parameters())
    _paso(modelo, config, opt)
    estado = opt.state[next(modelo.parameters())]
    assert estado["exp_avg"].dtype == estado["exp_avg_sq"].dtype == torch.bfloat16
    assert estado["step"].dtype == torch.float32 and estado["step"].numel() == 1
    n = sum(p.numel() for p in modelo.parameters())
    tensores = len(list(modelo.parameters()))
    assert vram.medir_estado(modelo, opt)["total"] == 8 * n + 4 * tensores


def test_mixta_amp_exacta_y_zero_reparte_lo_mismo():
    """Precisión mixta (autocast bf16 en CPU sobre pesos fp32): 16 B por parámetro, medidos."""
    config = _config_llama()
    modelo = _modelo(config, torch.float32)
    opt = _optimizador("adamw", modelo.parameters())
    _paso(modelo, config, opt, autocast=True)
    medida = vram.medir_estado(modelo, opt)
    amp = vram.estimar_memoria(config, "completo", "mixta", contabilidad="amp")
    zero = vram.estimar_memoria(config, "completo", "mixta", contabilidad="zero")
    assert amp.estatica_bytes == medida["total"] == zero.estatica_bytes
    n = amp.parametros
    assert zero.componentes["pesos"] == 2 * n and zero.componentes["gradientes"] == 2 * n
    assert zero.componentes["copia_maestra_fp32"] == 4 * n


@pytest.mark.parametrize(
    "familia,precision,modulos",
    [
        ("llama", "fp32", ["q_proj", "v_proj"]),
        ("llama", "bf16", ["q_proj", "v_proj"]),
        ("llama", "bf16", "all-linear"),
        ("bert", "fp32", ["query", "value"]),
    ],
)
def test_estatica_exacta_lora(familia, precision, modulos):
    from peft import LoraConfig, get_peft_model

    config = _config_llama() if familia == "llama" else _config_bert()
    base = _modelo(config, torch.float32 if precision == "fp32" else torch.bfloat16)
    modelo = get_peft_model(base, LoraConfig(r=8, target_modules=modulos))
    modelo.train()
    opt = _optimizador("adamw", modelo.parameters())
    _paso(modelo, config, opt)
    congelados = [p for p in modelo.parameters() if not p.requires_grad]
    assert all(p.grad is None for p in congelados)
    medida = vram.medir_estado(modelo, opt)
    estimacion = vram.estimar_memoria(config, "lora", precision, r=8, modulos=modulos)
    assert _estatica_estimada(estimacion) == _estatica_medida(medida)
    assert estimacion.parametros_entrenables == sum(p.numel() for p in modelo.parameters() if p.requires_grad)


# --------------------------------------------------------------------------
# QLoRA: bitsandbytes real en CPU
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def carpeta_llama_bf16(tmp_path_factory):
    carpeta = tmp_path_factory.mktemp("llama_bf16")
    _modelo(_config_llama(), torch.bfloat16).save_pretrained(carpeta)
    return carpeta


def _cargar_4bit(carpeta, doble):
    from transformers import BitsAndBytesConfig, LlamaForCausalLM

    cuantizacion = BitsAndBytesConfig(
        load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=doble,
        bnb_4bit_compute_dtype=torch.bfloat16,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return LlamaForCausalLM.from_pretrained(carpeta, quantization_config=cuantizacion, device_map="cpu")


@pytest.mark.parametrize("doble", [False, True])
def test_nf4_coincide_con_quant_state(carpeta_llama_bf16, doble):
    """bytes_nf4 == bytes reales de cada Params4bit y su quant_state; el total del modelo también."""
    modelo = _cargar_4bit(carpeta_llama_bf16, doble)
    capas = 0
    for p in modelo.parameters():
        estado = getattr(p, "quant_state", None)
        if estado is None:
            continue
        capas += 1
        tensores = [estado.absmax, estado.code]
        if estado.nested:
            tensores += [estado.offset, estado.state2.absmax, estado.state2.code]
        constantes = sum(t.numel() * t.element_size() for t in tensores)
        n = math.prod(estado.shape)
        assert vram.bytes_nf4(n, doble) == (p.numel() * p.element_size(), constantes)
    assert capas == 14  # 7 capas lineales × 2 bloques; lm_head y embeddings quedan en 16 bits
    medida = vram.medir_estado(modelo)
    estimacion = vram.estimar_memoria(_config_llama(), "qlora", "bf16", r=8, doble_cuantizacion=doble)
    lora = 4 * estimacion.parametros_entrenables
    assert medida["pesos"] == estimacion.componentes["pesos"] - lora
    assert medida["constantes_cuantizacion"] == estimacion.componentes["constantes_cuantizacion"]


def test_qlora_paso_real_exacto(carpeta_llama_bf16):
    """Base NF4 (doble cuantización) + LoRA all-linear, un paso de AdamW real en CPU."""
    from peft import LoraConfig, get_peft_model

    config = _config_llama()
    modelo = get_peft_model(_cargar_4bit(carpeta_llama_bf16, True), LoraConfig(r=8, target_modules="all-linear"))
    # En modo entrenamiento: en modo eval, bitsandbytes reempaqueta en CPUs con AVX512-BF16 las capas cuya
    # entrada no pide gradiente (deshace la doble cuantización); es una optimización de inferencia solo en CPU.
    modelo.train()
    opt = _optimizador("adamw", modelo.parameters())
    generador = torch.Generator().manual_seed(1)
    ids = torch.randint(0, config.vocab_size, (1, 16), generator=generador)
    modelo(input_ids=ids, labels=ids).loss.backward()
    opt.step()
    medida = vram.medir_estado(modelo, opt)
    estimacion = vram.estimar_memoria(config, "qlora", "bf16", "adamw", r=8, modulos="all-linear")
    assert _estatica_estimada(estimacion) == _estatica_medida(medida)


def test_qlora_prepare_model_for_kbit_training_pasa_a_fp32(carpeta_llama_bf16):
    from peft import prepare_model_for_kbit_training

    modelo = prepare_model_for_kbit_training(_cargar_4bit(carpeta_llama_bf16, True), use_gradient_checkpointing=False)
    medida = vram.medir_estado(modelo)
    estimacion = vram.estimar_memoria(_config_llama(), "qlora", "bf16", r=8, preparar_kbit=True)
    assert medida["pesos"] == estimacion.componentes["pesos"] - 4 * estimacion.parametros_entrenables


def test_embeddings_atados_cuentan_una_vez(tmp_path):
    config = _config_llama(tie_word_embeddings=True)
    modelo = _modelo(config)
    assert modelo.lm_head.weight is modelo.model.embed_tokens.weight
    opt = _optimizador("adamw", modelo.parameters())
    _paso(modelo, config, opt)
    assert vram.estimar_memoria(config, "completo", "fp32").estatica_bytes == vram.medir_estado(modelo, opt)["total"]
    modelo.to(torch.bfloat16).save_pretrained(tmp_path)
    cuantizado = vram.medir_estado(_cargar_4bit(tmp_path, True))
    estimacion = vram.estimar_memoria(config, "qlora", "bf16", r=8)
    assert cuantizado["pesos"] == estimacion.componentes["pesos"] - 4 * estimacion.parametros_entrenables
    assert cuantizado["constantes_cuantizacion"] == estimacion.componentes["constantes_cuantizacion"]


def test_bytes_nf4_formula():
    n = 64 * 256 * 10
    assert vram.bytes_nf4(n, False) == (n // 2, 4 * n // 64 + 64)
    assert vram.bytes_nf4(n, True) == (n // 2, n // 64 + 4 * 10 + 1024 + 4 + 64)
    # por parámetro: 0.5 bits sin doble cuantización, ≈0.127 bits con ella (sin tablas fijas)
    grande = 64 * 256 * 10**4
    sin = (vram.bytes_nf4(grande, False)[1] - 64) * 8 / grande
    con = (vram.bytes_nf4(grande, True)[1] - 1092) * 8 / grande
    assert sin == 0.5 and con == pytest.approx(8 / 64 + 32 / (64 * 256))
    assert vram.bytes_nf4(3, True)[0] == 2  # número impar de valores: se redondea hacia arriba


# --------------------------------------------------------------------------
# Activaciones: estimación dentro de ±30 % de la medición
# --------------------------------------------------------------------------

# Tamaños: secuencia 128 con oculto 64 y vocabulario 512, así pesan todos los
# términos (capas, atención, MLP y logits) y ninguno esconde a los demás.
CASOS_ACTIVACIONES = [
    ("llama", torch.float32, "fp32", "sdpa", 0.0),
    ("llama", torch.bfloat16, "bf16", "sdpa", 0.0),
    ("llama", torch.float32, "fp32", "eager", 0.0),
    ("llama", torch.bfloat16, "bf16", "eager", 0.0),
    ("bert", torch.float32, "fp32", "eager", 0.1),
    ("bert", torch.bfloat16, "bf16", "sdpa", 0.0),
]


@pytest.mark.parametrize("familia,dtype,precision,atencion,dropout", CASOS_ACTIVACIONES)
def test_activaciones_dentro_del_30_por_ciento(familia, dtype, precision, atencion, dropout):
    if familia == "llama":
        config = _config_llama(attn_implementation=atencion)
    else:
        config = _config_bert(
            attn_implementation=atencion, hidden_dropout_prob=dropout, attention_probs_dropout_prob=dropout
        )
    modelo = _modelo(config, dtype)
    medida = vram.medir_activaciones(modelo, _entradas(config))
    b = 4 if dtype == torch.float32 else 2
    directa = vram.estimar_activaciones(
        LOTE, SECUENCIA, config.hidden_size, config.num_hidden_layers, config.num_attention_heads,
        config.vocab_size, config.intermediate_size, b, cabezas_kv=getattr(config, "num_key_value_heads", None),
        familia=familia, atencion=atencion, dropout=dropout, dispositivo="cpu",
        etiquetas=2 if familia == "bert" else None,
    )
    assert directa.es_estimacion and "ESTIMACIÓN" in directa.notas[0]
    assert sum(directa.terminos.values()) == directa.total_bytes
    assert abs(directa.total_bytes - medida) <= 0.30 * medida, (directa.total_bytes, medida)
    if dropout == 0:  # estimar_memoria usa la misma fórmula (máscaras de dropout de CUDA aparte)
        memoria = vram.estimar_memoria(config, "completo", precision, lote=LOTE, secuencia=SECUENCIA, atencion=atencion)
        assert abs(memoria.activaciones_bytes - medida) <= 0.30 * medida


def test_activaciones_fp32_casi_exactas_y_la_copia_fp32_de_los_logits():
    """En fp32 la estimación acierta al 1 %; en bf16 sobra justo la copia fp32 transitoria de los logits."""
    config = _config_llama(num_key_value_heads=4)
    for dtype, b in ((torch.float32, 4), (torch.bfloat16, 2)):
        medida = vram.medir_activaciones(_modelo(config, dtype), _entradas(config))
        estimada = vram.estimar_activaciones(LOTE, SECUENCIA, 64, 2, 4, 512, 176, b).total_bytes
        copia_fp32 = LOTE * SECUENCIA * 512 * 4 if b == 2 else 0
        assert abs(estimada - copia_fp32 - medida) <= 0.01 * medida


def test_activaciones_con_checkpointing():
    """Con checkpointing solo crecen las entradas de capa (T·oculto por capa); lo demás se recalcula."""
    medidas, estimaciones = [], []
    for capas in (2, 4):
        config = _config_llama(num_hidden_layers=capas)
        modelo = _modelo(config)
        activar = getattr(modelo, "activation_checkpointing_enable", None) or modelo.gradient_checkpointing_enable
        activar()
        medidas.append(vram.medir_activaciones(modelo, _entradas(config)))
        estimaciones.append(
            vram.estimar_memoria(config, "completo", "fp32", lote=LOTE, secuencia=SECUENCIA, checkpointing=True)
        )
    por_capa = LOTE * SECUENCIA * 64 * 4
    assert medidas[1] - medidas[0] == 2 * por_capa
    assert estimaciones[1].activaciones_bytes - estimaciones[0].activaciones_bytes == 2 * por_capa
    for medida, e in zip(medidas, estimaciones):
        # durante el forward aún no hay capa recalculada: compárala sin ella
        sin_recalculo = e.activaciones_bytes - e.activaciones_detalle["una_capa_recalculada"]
        assert abs(sin_recalculo - medida) <= 0.30 * medida
    completa = vram.estimar_memoria(_config_llama(num_hidden_layers=4), "completo", "fp32", lote=LOTE, secuencia=SECUENCIA)
    assert estimaciones[1].activaciones_bytes < completa.activaciones_bytes


@pytest.mark.parametrize("precision,modulos", [("fp32", ["q_proj", "v_proj"]), ("bf16", "all-linear")])
def test_activaciones_lora_dentro_del_30_por_ciento(precision, modulos):
    from peft import LoraConfig, get_peft_model

    config = _config_llama(num_key_value_heads=4)
    dtype = torch.float32 if precision == "fp32" else torch.bfloat16
    modelo = get_peft_model(_modelo(config, dtype), LoraConfig(r=8, target_modules=modulos))
    modelo.train()
    medida = vram.medir_activaciones(modelo, _entradas(config))
    estimada = vram.estimar_memoria(config, "lora", precision, r=8, modulos=modulos, lote=LOTE, secuencia=SECUENCIA)
    assert abs(estimada.activaciones_bytes - medida) <= 0.30 * medida


def test_eager_crece_con_el_cuadrado_de_la_secuencia():
    def atencion(s, modo):
        return vram.estimar_activaciones(1, s, 64, 2, 4, 512, atencion=modo).terminos["atencion"]

    assert atencion(2048, "eager") == 4 * atencion(1024, "eager")
    assert atencion(2048, "sdpa") == 2 * atencion(1024, "sdpa")


def test_medir_activaciones_no_cuenta_parametros():
    lineal = torch.nn.Linear(8, 8)
    x = torch.randn(4, 8)
    # y = x·Wᵀ guarda x (128 B) y W (parámetro, no cuenta); la salida y suma otros 128 B
    assert vram.medir_activaciones(lineal, x, incluir_salida=False) == 4 * 8 * 4
    assert vram.medir_activaciones(lineal, x) == 2 * 4 * 8 * 4


# --------------------------------------------------------------------------
# Cifras de referencia y catálogo de GPUs
# --------------------------------------------------------------------------


def _config_llama2_7b():
    return dict(
        model_type="llama", architectures=["LlamaForCausalLM"], hidden_size=4096, intermediate_size=11008,
        num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=32, vocab_size=32000,
    )


def test_regla_de_16_bytes_por_parametro():
    e = vram.estimar_memoria(7e9, "completo", "mixta", "adamw")
    assert e.estatica_bytes == 112 * 10**9
    assert round(e.estatica_bytes / vram.GIB, 1) == 104.3
    assert vram.formatear_bytes(e.estatica_bytes) == "104.3 GiB (112.0 GB)"
    assert sum(vram.bytes_por_parametro("completo", "mixta").values()) == 16
    assert sum(vram.bytes_por_parametro("completo", "fp32").values()) == 16
    assert sum(vram.bytes_por_parametro("completo", "bf16").values()) == 8
    zero = vram.bytes_por_parametro("completo", "mixta", contabilidad="zero")
    assert zero == {"pesos": 2, "gradientes": 2, "estados_optimizador": 8, "copia_maestra_fp32": 4}
    assert vram.bytes_por_parametro("completo", "fp32", "sgd")["estados_optimizador"] == 0
    assert vram.bytes_por_parametro("completo", "fp32", "sgd_momentum")["estados_optimizador"] == 4
    assert vram.bytes_por_parametro("completo", "fp32", "adamw_8bit")["estados_optimizador"] == 2


def test_llama_7b_no_cabe_en_60_gb():
    """«LLaMA-7B necesita ~60 GB» es falso: su estado estático con precisión mixta supera los 107 GB."""
    e = vram.estimar_memoria(_config_llama2_7b(), "completo", "mixta")
    assert e.parametros == 6_738_415_616
    tensores = 2 + 32 * 9 + 1  # embeddings, lm_head, 9 por bloque, norma final
    assert e.estatica_bytes == 16 * e.parametros + 4 * tensores
    assert e.estatica_bytes > 60 * vram.GB and e.estatica_bytes > 107 * vram.GB
    assert not vram.cabe(e, "A100 80GB") and not vram.cabe(e, "H100 80GB")
    assert vram.cabe(e, "H200 141GB")  # solo el estado estático; con activaciones depende del lote


def test_lora_de_referencia_llama2_7b():
    e = vram.estimar_memoria(_config_llama2_7b(), "lora", "bf16", r=16, modulos=["q_proj", "v_proj"])
    assert e.parametros_entrenables == 8_388_608


def test_catalogo_de_gpus():
    t4 = vram.GPUS["T4"]
    assert not t4.soporta_bf16 and t4.capacidad == (7, 5)
    assert t4.memoria_bytes == 15360 * 2**20 and t4.memoria_nominal == "16 GB"
    for nombre in ("L4", "A10G", "RTX 3090", "RTX 4090", "A100 40GB", "A100 80GB", "H100 80GB", "H200 141GB"):
        assert vram.GPUS[nombre].soporta_bf16
    for gpu in vram.GPUS.values():
        assert 0 < vram.memoria_utilizable(gpu) < gpu.memoria_bytes
    assert vram.buscar_gpu("rtx4090") is vram.GPUS["RTX 4090"]
    assert vram.buscar_gpu("h100") is vram.GPUS["H100 80GB"]
    with pytest.raises(ValueError, match="dos A100"):
        vram.buscar_gpu("A100")
    with pytest.raises(ValueError, match="GPU desconocida"):
        vram.buscar_gpu("X100")
    from tutor_lib.entorno import InfoGPU

    propia = InfoGPU("Mi GPU", 8 * vram.GIB, (8, 6))
    assert vram.buscar_gpu(propia) is propia and vram.cabe(1, propia)


def test_cabe_y_no_cabe():
    distilbert = vram.estimar_memoria(66_955_010, "completo", "mixta", lote=8, secuencia=128)
    assert vram.cabe(distilbert, "T4")
    qlora = vram.estimar_memoria(7e9, "qlora", "mixta", r=16, lote=1, secuencia=512, checkpointing=True, gpu="T4")
    assert qlora.gpu["cabe"] and qlora.gpu["lote_maximo"] >= 1
    completo = vram.estimar_memoria(7e9, "completo", "mixta", lote=1, secuencia=512, gpu="H100 80GB")
    assert completo.gpu == {**completo.gpu, "cabe": False, "lote_maximo": 0}
    bf16_en_t4 = vram.estimar_memoria(1e8, "completo", "bf16", gpu="T4")
    assert any("no tiene bf16" in n for n in bf16_en_t4.notas)


def test_lote_maximo_es_el_mayor_que_cabe():
    kwargs = dict(parametros=1.3e9, metodo="lora", precision="bf16", r=16, modulos="all-linear")
    maximo = vram.lote_maximo("T4", 1024, **kwargs)
    assert maximo > 1
    assert vram.cabe(vram.estimar_memoria(lote=maximo, secuencia=1024, **kwargs), "T4")
    assert not vram.cabe(vram.estimar_memoria(lote=maximo + 1, secuencia=1024, **kwargs), "T4")
    assert vram.lote_maximo("T4", 1024, **{**kwargs, "checkpointing": True}) > maximo
    assert vram.lote_maximo("T4", 512, parametros=7e9, metodo="completo") == 0


def test_qlora_y_lora_ahorran_memoria():
    completo = vram.estimar_memoria(7e9, "completo", "mixta")
    lora = vram.estimar_memoria(7e9, "lora", "bf16", r=16)
    qlora = vram.estimar_memoria(7e9, "qlora", "bf16", r=16)
    assert qlora.estatica_bytes < lora.estatica_bytes < completo.estatica_bytes / 5
    assert qlora.componentes["constantes_cuantizacion"] > 0
    sin_doble = vram.estimar_memoria(7e9, "qlora", "bf16", r=16, doble_cuantizacion=False)
    assert sin_doble.componentes["constantes_cuantizacion"] > 3 * qlora.componentes["constantes_cuantizacion"]


def test_componentes_suman_y_json():
    e = vram.estimar_memoria(_config_llama(), "qlora", "bf16", r=8, lote=2, secuencia=64, gpu="T4")
    assert set(e.componentes) == set(vram.COMPONENTES)
    assert e.estatica_bytes + e.activaciones_bytes == e.total_bytes == sum(e.componentes.values())
    datos = json.loads(json.dumps(e.a_dict()))
    assert datos["gpu"]["nombre"] == "T4" and isinstance(datos["gpu"]["lote_maximo"], int)
    assert all(isinstance(v, int) for v in datos["componentes"].values())


def test_numero_con_tarea_clasificacion_sin_logits_de_vocabulario():
    """Con solo un número se supone un modelo de lenguaje; un clasificador no paga los logits de 32 000 tokens."""
    lm = vram.estimar_memoria(66_955_010, "completo", "mixta", lote=16, secuencia=128)
    clasificador = vram.estimar_memoria(66_955_010, "completo", "mixta", lote=16, secuencia=128, tarea="clasificacion")
    assert clasificador.estatica_bytes == lm.estatica_bytes
    assert clasificador.activaciones_detalle["logits_y_perdida"] < 10**4 < lm.activaciones_detalle["logits_y_perdida"]
    lora = vram.estimar_memoria(66_955_010, "lora", "mixta", r=8, modulos=["query", "value"], tarea="clasificacion")
    assert 0 < lora.parametros_entrenables < 10**6


def test_dropout_del_config_cuenta_en_las_activaciones():
    con = vram.estimar_memoria(_config_bert(), "completo", "fp32", lote=LOTE, secuencia=SECUENCIA)
    sin = vram.estimar_memoria(
        _config_bert(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0), "completo", "fp32",
        lote=LOTE, secuencia=SECUENCIA,
    )
    assert con.activaciones_bytes > sin.activaciones_bytes
    assert any("Dropout 0.1" in n for n in con.notas)


def test_entrada_nn_module_igual_que_config():
    config = _config_llama()
    assert (
        vram.estimar_memoria(_modelo(config), "completo", "bf16").componentes
        == vram.estimar_memoria(config, "completo", "bf16").componentes
    )


def test_config_json_y_errores_de_archivo(tmp_path):
    ruta = tmp_path / "config.json"
    ruta.write_text(json.dumps(_config_llama().to_dict()), encoding="utf-8")
    assert vram.estimar_memoria(str(ruta)).parametros == vram.estimar_memoria(_config_llama()).parametros
    roto = tmp_path / "roto.json"
    roto.write_text("{no es json", encoding="utf-8")
    with pytest.raises(ValueError, match="JSON"):
        vram.estimar_memoria(str(roto))
    with pytest.raises(FileNotFoundError):
        vram.estimar_memoria(str(tmp_path / "no_existe.json"))


def test_grafica(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    estimaciones = {
        "Completo": vram.estimar_memoria(1e9, "completo", "mixta", lote=4, secuencia=512),
        "QLoRA": vram.estimar_memoria(1e9, "qlora", "bf16", r=16, lote=4, secuencia=512),
    }
    ax = vram.graficar_componentes(estimaciones, gpu="T4")
    assert ax.get_ylabel() == "Memoria (GiB)"
    etiquetas = {t.get_text() for t in ax.get_legend().get_texts()}
    assert {"Pesos", "Activaciones (estimación)", "Constantes de cuantización"} <= etiquetas
    ax.figure.savefig(tmp_path / "memoria.png")
    import matplotlib.pyplot as plt

    plt.close("all")


# --------------------------------------------------------------------------
# Propiedades (hypothesis): solo ValueError/TypeError ante entradas malas; monotonía
# --------------------------------------------------------------------------

BASURA = st.one_of(
    st.none(), st.booleans(), st.integers(-10**15, 10**15),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=6), st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
PARAMETROS = st.integers(1, 10**13)
METODO = st.sampled_from(vram.METODOS)
PRECISION = st.sampled_from(vram.PRECISIONES)
OPTIMIZADOR = st.sampled_from(vram.OPTIMIZADORES)
AJUSTES = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_VALIDOS_MEMORIA = dict(
    parametros=10**9, metodo="lora", precision="bf16", optimizador="adamw", r=16, modulos="all-linear",
    lote=2, secuencia=128, checkpointing=False, doble_cuantizacion=True, gpu="T4",
)


@AJUSTES
@given(clave=st.sampled_from(sorted(_VALIDOS_MEMORIA)), valor=BASURA)
def test_estimar_memoria_solo_errores_en_espanol(clave, valor):
    if clave == "parametros" and isinstance(valor, (str, dict)):
        valor = None  # un texto es una ruta o un nombre del Hub: se prueba aparte
    argumentos = {**_VALIDOS_MEMORIA, clave: valor}
    try:
        e = vram.estimar_memoria(**argumentos)
    except (ValueError, TypeError) as exc:
        assert str(exc)
    else:
        assert e.total_bytes >= 0


@AJUSTES
@given(n=PARAMETROS, extra=st.integers(1, 10**12), metodo=METODO, precision=PRECISION, optimizador=OPTIMIZADOR,
       checkpointing=st.booleans())
def test_mas_parametros_mas_bytes(n, extra, metodo, precision, optimizador, checkpointing):
    m = min(n + extra, 10**13)
    kwargs = dict(metodo=metodo, precision=precision, optimizador=optimizador, lote=2, secuencia=256,
                  checkpointing=checkpointing)
    chico, grande = vram.estimar_memoria(n, **kwargs), vram.estimar_memoria(m, **kwargs)
    assert chico.estatica_bytes <= grande.estatica_bytes
    assert chico.total_bytes <= grande.total_bytes
    assert all(v >= 0 for v in chico.componentes.values())


@AJUSTES
@given(lote=st.integers(1, 512), secuencia=st.integers(1, 8192), metodo=METODO, precision=PRECISION)
def test_mas_lote_o_secuencia_mas_activaciones(lote, secuencia, metodo, precision):
    base = vram.estimar_memoria(3e9, metodo, precision, lote=lote, secuencia=secuencia)
    assert base.activaciones_bytes < vram.estimar_memoria(3e9, metodo, precision, lote=lote + 1, secuencia=secuencia).activaciones_bytes
    assert base.activaciones_bytes < vram.estimar_memoria(3e9, metodo, precision, lote=lote, secuencia=secuencia + 1).activaciones_bytes


_VALIDOS_ACTIVACIONES = dict(
    lote=2, secuencia=64, oculto=64, capas=2, cabezas=4, vocabulario=512, intermedio=176, bytes_por_valor=2,
    checkpointing=False, cabezas_kv=2, familia="llama", atencion="sdpa", autocast=False, dropout=0.0,
    etiquetas=None, dispositivo="cuda", lora_r=0, lora_modulos=None,
)


@AJUSTES
@given(clave=st.sampled_from(sorted(_VALIDOS_ACTIVACIONES)), valor=BASURA)
def test_estimar_activaciones_solo_errores_en_espanol(clave, valor):
    try:
        e = vram.estimar_activaciones(**{**_VALIDOS_ACTIVACIONES, clave: valor})
    except (ValueError, TypeError) as exc:
        assert str(exc)
    else:
        assert e.total_bytes > 0


@AJUSTES
@given(
    clave=st.sampled_from(["lote", "secuencia", "oculto", "capas", "vocabulario", "intermedio"]),
    valor=st.integers(1, 4096), familia=st.sampled_from(vram.FAMILIAS), atencion=st.sampled_from(vram.ATENCIONES),
    checkpointing=st.booleans(),
)
def test_activaciones_monotonas(clave, valor, familia, atencion, checkpointing):
    argumentos = {**_VALIDOS_ACTIVACIONES, "familia": familia, "atencion": atencion, "checkpointing": checkpointing}
    menor = vram.estimar_activaciones(**{**argumentos, clave: valor}).total_bytes
    mayor = vram.estimar_activaciones(**{**argumentos, clave: valor + 1}).total_bytes
    assert menor <= mayor


@AJUSTES
@given(valor=BASURA)
def test_funciones_pequenas_solo_errores_en_espanol(valor):
    llamadas = [
        lambda: vram.bytes_nf4(valor),
        lambda: vram.bytes_nf4(64, valor),
        lambda: vram.forma_estimada(valor),
        lambda: vram.formatear_bytes(valor),
        lambda: vram.buscar_gpu(valor),
        lambda: vram.memoria_utilizable(valor),
        lambda: vram.cabe(valor, "T4"),
        lambda: vram.cabe(10**9, valor),
        lambda: vram.lote_maximo(valor, 128, parametros=1e9),
        lambda: vram.lote_maximo("T4", valor, parametros=1e9),
        lambda: vram.lote_maximo("T4", 128, parametros=1e9, metodo=valor),
        lambda: vram.bytes_por_parametro(valor),
        lambda: vram.bytes_por_parametro("completo", valor),
        lambda: vram.tabla(valor),
        lambda: vram.graficar_componentes(valor),
        lambda: vram.medir_estado(valor),
        lambda: vram.medir_estado(torch.nn.Linear(2, 2), valor),
        lambda: vram.medir_activaciones(valor, {}),
        lambda: vram.medir_activaciones(torch.nn.Linear(2, 2), valor),
    ]
    for llamada in llamadas:
        try:
            llamada()
        except (ValueError, TypeError) as exc:
            assert str(exc)


@AJUSTES
@given(n=PARAMETROS)
def test_forma_estimada_crece(n):
    a, b = vram.forma_estimada(n), vram.forma_estimada(min(n * 2, 10**13))
    assert a["oculto"] <= b["oculto"] and a["capas"] <= b["capas"]
    assert vram.bytes_nf4(n)[0] == (n + 1) // 2


# --------------------------------------------------------------------------
# CLI: tutor vram
# --------------------------------------------------------------------------


def _tutor(*args):
    return subprocess.run(
        [sys.executable, "-m", "tutor_lib", "vram", *args], capture_output=True, text=True, timeout=180
    )


def test_cli_json_regla_16_bytes():
    salida = _tutor("--parametros", "7e9", "--metodo", "completo", "--precision", "mixta", "--json")
    assert salida.returncode == 0, salida.stderr
    datos = json.loads(salida.stdout)
    assert datos["parametros"] == 7 * 10**9
    assert datos["estatica_bytes"] == datos["total_bytes"] == 112 * 10**9
    assert datos["activaciones_bytes"] == 0
    assert set(datos["componentes"]) == set(vram.COMPONENTES) and "notas" in datos


def test_cli_config_con_gpu(tmp_path):
    ruta = tmp_path / "config.json"
    ruta.write_text(json.dumps(_config_llama().to_dict()), encoding="utf-8")
    salida = _tutor(
        "--config", str(ruta), "--metodo", "qlora", "--precision", "bf16", "--r", "8", "--modulos", "q_proj,v_proj",
        "--lote", "4", "--secuencia", "256", "--gpu", "T4", "--checkpointing", "--json",
    )
    assert salida.returncode == 0, salida.stderr
    datos = json.loads(salida.stdout)
    esperado = vram.estimar_memoria(
        _config_llama(), "qlora", "bf16", r=8, modulos="q_proj,v_proj", lote=4, secuencia=256, checkpointing=True,
    )
    assert datos["estatica_bytes"] == esperado.estatica_bytes
    assert datos["gpu"]["cabe"] is True and datos["gpu"]["lote_maximo"] >= 4
    assert datos["componentes"]["constantes_cuantizacion"] > 0


def test_cli_tabla_en_espanol():
    salida = _tutor("--parametros", "66955010", "--metodo", "completo", "--precision", "fp32", "--lote", "8",
                    "--secuencia", "128", "--gpu", "T4")
    assert salida.returncode == 0, salida.stderr
    for texto in ("GiB", "GB", "Pesos", "Estados del optimizador", "Activaciones (estimación)", "TOTAL", "CABE"):
        assert texto in salida.stdout


@pytest.mark.parametrize(
    "argumentos,mensaje",
    [
        (["--parametros", "siete mil millones"], "no es un número"),
        (["--parametros", "7e9", "--lote", "8"], "--secuencia"),
        (["--parametros", "7e9", "--gpu", "X100"], "GPU desconocida"),
        (["--parametros", "-5"], "debe ser un número positivo"),
    ],
)
def test_cli_errores_en_espanol(argumentos, mensaje):
    salida = _tutor(*argumentos)
    assert salida.returncode == 2
    assert mensaje in salida.stderr and "Traceback" not in salida.stderr


def test_cli_json_mal_formado(tmp_path):
    roto = tmp_path / "config.json"
    roto.write_text("{ esto no es json", encoding="utf-8")
    salida = _tutor("--config", str(roto))
    assert salida.returncode == 2 and "JSON" in salida.stderr and "Traceback" not in salida.stderr
