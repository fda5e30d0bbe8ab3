"""Pruebas de tutor_lib.configurador: cada regla, la generación de argumentos, el widget y ``tutor configurar``."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tutor_lib import configurador as cf
from tutor_lib.entorno import InfoGPU

ESPANOL = re.compile(r"recibí|debe|Opciones válidas|Elige|desconocid|no admite|Usa ")

#: Una configuración sana: DistilBERT en MRPC (3668 ejemplos) en una T4.
BASE = dict(
    metodo="completo", parametros=66e6, ejemplos=3668, lr=2e-5, lote=16, epocas=3, warmup=0.06,
    weight_decay=0.01, gpu="T4", logging_steps=25, eval_strategy="epoch", save_strategy="epoch",
)


def revisar(**cambios) -> cf.Revision:
    return cf.revisar_configuracion(**{**BASE, **cambios})


def nivel(parametro: str, **cambios) -> str | None:
    return revisar(**cambios).nivel_de(parametro)


def _tutor(*argumentos: str, timeout: int = 180) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tutor_lib", "configurar", *argumentos], capture_output=True, text=True, timeout=timeout
    )


# --------------------------------------------------------------------------
# Cifras derivadas
# --------------------------------------------------------------------------


def test_configuracion_sana_sin_errores_ni_avisos():
    r = revisar()
    assert r.nivel == "ok", [h for h in r.hallazgos if h.nivel != "ok"]
    assert r.pasos_por_epoca == 230  # ceil(3668 / 16)
    assert r.pasos_totales == 690
    assert r.pasos_warmup == 42  # ceil(0.06 × 690)
    assert r.lote_efectivo == 16
    assert r.precision == "fp16"  # la T4 no tiene bf16
    assert r.cabe is True and 0 < r.fraccion_memoria < 1
    assert r.memoria.total_bytes > 0
    for h in r.hallazgos:
        assert h.nivel in cf.NIVELES and h.parametro and h.mensaje and h.fuente


def test_cifras_con_acumulacion_dispositivos_y_max_pasos():
    r = revisar(lote=8, acumulacion=4, dispositivos=2, warmup=10)
    assert r.lote_efectivo == 64
    # cada dispositivo ve ceil(ceil(3668/8)/2) = 230 lotes → ceil(230/4) = 58 pasos por época
    assert r.pasos_por_epoca == 58 and r.pasos_totales == 174 and r.pasos_warmup == 10
    r = revisar(max_pasos=100)
    assert r.pasos_totales == 100


def test_errata_del_curso_1000_ejemplos():
    r = cf.revisar_configuracion(metodo="completo", parametros=66e6, ejemplos=1000, lr=2e-5, lote=16, epocas=3)
    assert (r.pasos_por_epoca, r.pasos_totales) == (63, 189)


# --------------------------------------------------------------------------
# Una prueba por regla: caso que la dispara y caso que no
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cambios, esperado",
    [
        ({}, "ok"),
        ({"lr": 1e-5}, "ok"),
        ({"lr": 5e-4}, "aviso"),  # por encima de 1e-4
        ({"lr": 5e-3}, "error"),  # más de 10 × el máximo
        ({"lr": 1e-7}, "aviso"),
        ({"metodo": "lora", "lr": 2e-4}, "ok"),
        ({"metodo": "lora", "lr": 2e-5}, "aviso"),
        ({"metodo": "lora", "lr": 1e-2}, "error"),
        ({"metodo": "qlora", "lr": 2e-4}, "ok"),
        ({"metodo": "qlora", "parametros": 65e9, "lr": 2e-4}, "aviso"),  # QLoRA: 1e-4 en 33B/65B
        ({"metodo": "qlora", "parametros": 65e9, "lr": 1e-4}, "ok"),
        ({"metodo": "sft", "parametros": "llama-3.2-1b", "lr": 2e-5}, "ok"),
        ({"metodo": "sft", "parametros": "llama-3.2-1b", "lr": 2e-4}, "aviso"),
    ],
)
def test_regla_learning_rate(cambios, esperado):
    r = revisar(**cambios)
    assert r.nivel_de("learning_rate") == esperado
    assert r.de("learning_rate")[0].fuente  # siempre con fuente


def test_rangos_de_lr_documentados_con_fuente():
    assert cf.RANGOS_LR[("completo", "clasificacion")].minimo == 1e-5
    assert cf.RANGOS_LR[("completo", "clasificacion")].maximo == 1e-4
    assert "Devlin" in cf.RANGOS_LR[("completo", "clasificacion")].fuente
    assert "Hu et al." in cf.RANGOS_LR[("lora", "causal")].fuente
    assert "Dettmers" in cf.RANGOS_LR[("qlora", "causal")].fuente
    for rango in cf.RANGOS_LR.values():
        assert rango.minimo <= rango.tipica <= rango.maximo


@pytest.mark.parametrize(
    "cambios, esperado",
    [
        ({"epocas": 3}, "ok"),
        ({"epocas": 8}, "aviso"),  # > 5 con miles de ejemplos
        ({"epocas": 8, "ejemplos": 500}, "ok"),  # pocos datos: hasta 10
        ({"epocas": 15, "ejemplos": 500}, "aviso"),
        ({"epocas": 1}, "aviso"),  # BERT: 2 a 4
        ({"epocas": 1, "ejemplos": 100_000}, "ok"),
        ({"metodo": "qlora", "parametros": "llama-3-8b", "lr": 2e-4, "ejemplos": 20_000, "epocas": 5}, "aviso"),
        ({"metodo": "qlora", "parametros": "llama-3-8b", "lr": 2e-4, "ejemplos": 20_000, "epocas": 2}, "ok"),
        ({"metodo": "lora", "lr": 4e-4, "epocas": 30}, "ok"),  # LoRA en GLUE: decenas de épocas
    ],
)
def test_regla_epocas(cambios, esperado):
    assert nivel("num_train_epochs", **cambios) == esperado


@pytest.mark.parametrize(
    "cambios, esperado",
    [
        ({"warmup": 0.06}, "ok"),
        ({"warmup": 50}, "ok"),  # 50/690 = 7 %
        ({"warmup": 0}, "aviso"),  # miles de ejemplos sin warmup
        ({"warmup": 0, "ejemplos": 500}, "ok"),  # pocos datos: da igual
        ({"warmup": 0.01}, "aviso"),  # < 3 %
        ({"warmup": 0.3}, "aviso"),  # > 10 %
        ({"warmup": 690}, "error"),  # ≥ pasos totales
        ({"warmup": 5000}, "error"),
        ({"warmup": 0.06, "scheduler": "constant"}, "aviso"),  # 'constant' ignora el warmup
    ],
)
def test_regla_warmup(cambios, esperado):
    assert nivel("warmup_steps", **cambios) == esperado


def test_warmup_float_es_fraccion_y_entero_son_pasos():
    assert revisar(warmup=0.1).pasos_warmup == 69
    assert revisar(warmup=10).pasos_warmup == 10
    assert revisar(warmup=10.0).pasos_warmup == 10
    with pytest.raises(ValueError, match="ambiguo"):
        revisar(warmup=1.5)


@pytest.mark.parametrize(
    "cambios, esperado",
    [
        ({"lote": 16}, "ok"),
        ({"lote": 4, "acumulacion": 4}, "ok"),
        ({"lote": 2}, "aviso"),
        ({"lote": 64, "acumulacion": 8}, "aviso"),  # 512
    ],
)
def test_regla_lote_efectivo(cambios, esperado):
    assert nivel("per_device_train_batch_size", **cambios) == esperado


def test_regla_lote_mayor_que_el_dataset():
    assert nivel("gradient_accumulation_steps", ejemplos=100, lote=32, acumulacion=8) == "aviso"
    assert nivel("gradient_accumulation_steps") is None


@pytest.mark.parametrize(
    "cambios, parametro, esperado",
    [
        ({"precision": "bf16", "gpu": "T4"}, "bf16", "error"),  # T4: capacidad 7.5
        ({"precision": None, "gpu": "T4"}, "fp16", "ok"),
        ({"precision": "fp16", "gpu": "T4"}, "fp16", "ok"),
        ({"precision": "fp32", "gpu": "T4"}, "fp16", "aviso"),
        ({"precision": "bf16", "gpu": "A100 80GB"}, "bf16", "ok"),
        ({"precision": None, "gpu": "A100 80GB"}, "bf16", "ok"),
        ({"precision": "fp16", "gpu": "A100 80GB"}, "fp16", "aviso"),
        ({"precision": "fp16", "gpu": "cpu"}, "fp16", "aviso"),  # el Trainer lo ignora en CPU
        ({"precision": "bf16", "gpu": "cpu"}, "bf16", "aviso"),
        ({"precision": None, "gpu": "cpu"}, "fp16", "ok"),
        ({"precision": "bf16", "gpu": None}, "bf16", "ok"),
    ],
)
def test_regla_precision(cambios, parametro, esperado):
    if cambios["gpu"] == "A100 80GB":
        cambios["gpu"] = _gpu_con_bf16()
    assert nivel(parametro, **cambios) == esperado


def _gpu_con_bf16() -> str:
    for nombre in cf.nombres_de_gpus():
        if cf.Configuracion(gpu=nombre).info_gpu.soporta_bf16 and "A100" in nombre:
            return nombre
    pytest.fail("el catálogo de vram no tiene una A100")


def test_bf16_en_t4_sugiere_fp16():
    h = revisar(precision="bf16").de("bf16")[0]
    assert "fp16" in h.mensaje and "7.5" in h.mensaje


@pytest.mark.parametrize(
    "cambios, esperado",
    [
        ({"logging_steps": 25}, "ok"),
        ({"logging_steps": None}, "aviso"),  # 500 por defecto: 1 registro en 690 pasos
        ({"logging_steps": None, "ejemplos": 500_000}, "ok"),
        ({"logging_steps": 1000}, "aviso"),  # ninguno
        ({"logging_steps": 0.05}, "ok"),  # fracción: 35 pasos
        ({"logging_steps": 1, "ejemplos": 500_000}, "aviso"),  # demasiados registros
    ],
)
def test_regla_logging_steps(cambios, esperado):
    assert nivel("logging_steps", **cambios) == esperado


def test_logging_por_defecto_no_registra_nada_en_entrenamientos_cortos():
    r = revisar(logging_steps=None, ejemplos=1000)
    assert r.registros == 0
    assert "500" in r.de("logging_steps")[0].mensaje


@pytest.mark.parametrize(
    "cambios, parametro, esperado",
    [
        ({"eval_strategy": "epoch"}, "eval_strategy", "ok"),
        ({"eval_strategy": "no", "save_strategy": "steps"}, "eval_strategy", "aviso"),
        ({"eval_strategy": "steps", "eval_steps": 50, "save_strategy": "steps"}, "eval_strategy", "ok"),
        ({"eval_strategy": "steps", "eval_steps": 5000, "save_strategy": "steps"}, "eval_steps", "aviso"),
        ({"eval_strategy": "steps", "eval_steps": 5000, "save_strategy": "steps", "save_steps": 5000,
          "load_best_model_at_end": True}, "eval_steps", "error"),
        ({"eval_strategy": "steps", "save_strategy": "steps"}, "eval_steps", "aviso"),  # sin eval_steps
        ({"eval_strategy": "no", "save_strategy": "no", "scheduler": "reduce_lr_on_plateau"}, "eval_strategy", "error"),
        ({"scheduler": "reduce_lr_on_plateau"}, "eval_strategy", "ok"),
    ],
)
def test_regla_evaluacion(cambios, parametro, esperado):
    assert nivel(parametro, **cambios) == esperado


def test_evaluaciones_contadas():
    assert revisar(eval_strategy="epoch").evaluaciones == 3
    assert revisar(eval_strategy="epoch", epocas=2.5).evaluaciones == 3
    assert revisar(eval_strategy="steps", eval_steps=100, save_strategy="steps").evaluaciones == 6
    assert revisar(eval_strategy="no", save_strategy="no").evaluaciones == 0


@pytest.mark.parametrize(
    "cambios, parametro, esperado",
    [
        ({"load_best_model_at_end": True, "metric_for_best_model": "eval_accuracy"}, "metric_for_best_model", "ok"),
        ({"load_best_model_at_end": True}, "metric_for_best_model", "aviso"),  # usa eval_loss
        ({"load_best_model_at_end": True, "save_strategy": "steps"}, "save_strategy", "error"),
        ({"load_best_model_at_end": True, "save_strategy": "best"}, "save_strategy", None),
        ({"load_best_model_at_end": True, "eval_strategy": "no", "save_strategy": "no"}, "eval_strategy", "error"),
        ({"load_best_model_at_end": True, "eval_strategy": "steps", "eval_steps": 30, "save_strategy": "steps",
          "save_steps": 100}, "save_steps", "error"),
        ({"load_best_model_at_end": True, "eval_strategy": "steps", "eval_steps": 30, "save_strategy": "steps",
          "save_steps": 90}, "save_steps", None),
        ({"save_strategy": "best"}, "metric_for_best_model", "error"),
        ({"save_strategy": "best", "metric_for_best_model": "eval_f1"}, "metric_for_best_model", None),
    ],
)
def test_regla_load_best_model_at_end(cambios, parametro, esperado):
    assert nivel(parametro, **cambios) == esperado


def test_load_best_con_estrategias_distintas_coincide_con_transformers(tmp_path):
    """La regla dice «error» exactamente cuando TrainingArguments lanza ValueError."""
    from transformers import TrainingArguments

    for eval_s, save_s in [("epoch", "steps"), ("epoch", "epoch"), ("steps", "epoch"), ("epoch", "best")]:
        r = revisar(load_best_model_at_end=True, eval_strategy=eval_s, save_strategy=save_s, eval_steps=50,
                    metric_for_best_model="eval_loss")
        error = r.nivel_de("save_strategy") == "error"
        try:
            TrainingArguments(output_dir=str(tmp_path), eval_strategy=eval_s, save_strategy=save_s, eval_steps=50,
                              load_best_model_at_end=True, report_to="none")
            lanza = False
        except ValueError:
            lanza = True
        assert error == lanza, (eval_s, save_s)


ES = {"paciencia": 2, "load_best_model_at_end": True, "metric_for_best_model": "eval_loss"}


@pytest.mark.parametrize(
    "cambios, parametro, esperado",
    [
        (ES, "EarlyStoppingCallback", "ok"),
        ({**ES, "eval_strategy": "no", "save_strategy": "no"}, "EarlyStoppingCallback", "error"),
        ({"paciencia": 2}, "EarlyStoppingCallback", "error"),  # sin métrica ni load_best: AssertionError
        ({"paciencia": 2, "metric_for_best_model": "eval_loss"}, "load_best_model_at_end", "aviso"),
        ({**ES, "paciencia": 3}, "EarlyStoppingCallback", "aviso"),  # 3 evaluaciones, paciencia 3
        ({}, "EarlyStoppingCallback", None),
    ],
)
def test_regla_early_stopping(cambios, parametro, esperado):
    assert nivel(parametro, **cambios) == esperado


def test_regla_memoria_no_cabe_con_sugerencias():
    # 8B en ajuste completo en una T4: ni el estado estático cabe → LoRA/QLoRA
    r = revisar(parametros="llama-3-8b", tarea="causal", metodo="completo", lr=2e-5, lote=4)
    assert r.cabe is False
    h = r.de("memoria")[0]
    assert h.nivel == "error" and "QLoRA" in h.mensaje and "ni con lote 1" in h.mensaje
    # BERT con lote y secuencia enormes: lo que no cabe son las activaciones → checkpointing, lote + acumulación
    r = revisar(parametros="bert-base", lote=256, secuencia=512)
    assert r.cabe is False
    h = r.de("memoria")[0]
    assert h.nivel == "error" and "checkpointing" in h.mensaje
    assert re.search(r"lote \d+ con gradient_accumulation_steps=\d+", h.mensaje), h.mensaje


def test_regla_memoria_cabe_y_va_justo():
    assert nivel("memoria") == "ok"
    from tutor_lib import vram

    total = revisar().memoria.total_bytes
    # memoria total para que la utilizable (− contexto de CUDA − 5 % de fragmentación) sea total / 0.95
    justa = InfoGPU("GPU de prueba", int(total / 0.95 / (1 - vram.FRACCION_FRAGMENTACION)) + vram.CONTEXTO_CUDA_BYTES, (8, 0))
    r = revisar(gpu=justa, precision="fp16")
    assert r.nivel_de("memoria") == "aviso" and r.cabe is True
    pequena = InfoGPU("GPU diminuta", int(total / 2) + vram.CONTEXTO_CUDA_BYTES, (8, 0))
    assert revisar(gpu=pequena, precision="fp16").nivel_de("memoria") == "error"


def test_sin_gpu_no_se_revisa_la_memoria():
    r = revisar(gpu=None)
    assert r.cabe is None and r.fraccion_memoria is None and r.de("memoria") == []
    assert r.memoria.total_bytes > 0


@pytest.mark.parametrize(
    "cambios, esperado",
    [({"weight_decay": 0.01}, "ok"), ({"weight_decay": 0.0}, "ok"), ({"weight_decay": 0.1}, "ok"),
     ({"weight_decay": 0.3}, "aviso"), ({"weight_decay": 5.0}, "error")],
)
def test_regla_weight_decay(cambios, esperado):
    assert nivel("weight_decay", **cambios) == esperado


@pytest.mark.parametrize(
    "cambios, esperado",
    [({"max_grad_norm": 1.0}, "ok"), ({"max_grad_norm": 0.3}, "ok"), ({"max_grad_norm": 0}, "aviso"),
     ({"max_grad_norm": None}, "aviso"), ({"max_grad_norm": -1.0}, "error")],
)
def test_regla_max_grad_norm(cambios, esperado):
    assert nivel("max_grad_norm", **cambios) == esperado


@pytest.mark.parametrize(
    "cambios, parametro, esperado",
    [
        ({}, "r", "ok"),
        ({"r": 512, "lora_alpha": 512}, "r", "aviso"),
        ({"r": 16, "lora_alpha": 32}, "lora_alpha", "ok"),
        ({"r": 64, "lora_alpha": 16}, "lora_alpha", "ok"),  # QLoRA: 16/64
        ({"r": 8, "lora_alpha": 64}, "lora_alpha", "aviso"),
        ({"r": 64, "lora_alpha": 4}, "lora_alpha", "aviso"),
    ],
)
def test_regla_lora(cambios, parametro, esperado):
    assert nivel(parametro, metodo="lora", lr=2e-4, **cambios) == esperado


def test_lora_no_se_revisa_en_ajuste_completo():
    assert nivel("r") is None and nivel("lora_alpha") is None


# --------------------------------------------------------------------------
# Entrada inválida: ValueError/TypeError con mensaje en español
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cambios, error",
    [
        ({"metodo": "dora"}, ValueError),
        ({"metodo": 3}, TypeError),
        ({"parametros": -5}, ValueError),
        ({"parametros": "gpt-99"}, ValueError),
        ({"parametros": [1]}, TypeError),
        ({"ejemplos": 0}, ValueError),
        ({"ejemplos": 3.5}, TypeError),
        ({"lr": 0}, ValueError),
        ({"lr": "2e-5"}, TypeError),
        ({"lr": float("nan")}, ValueError),
        ({"lote": 0}, ValueError),
        ({"lote": True}, TypeError),
        ({"acumulacion": 0}, ValueError),
        ({"epocas": 0}, ValueError),
        ({"warmup": -1}, ValueError),
        ({"warmup": "0.1"}, TypeError),
        ({"weight_decay": -0.1}, ValueError),
        ({"precision": "fp8"}, ValueError),
        ({"gpu": "TPU v5"}, ValueError),
        ({"gpu": 7}, TypeError),
        ({"eval_strategy": "siempre"}, ValueError),
        ({"logging_steps": 0}, ValueError),
        ({"logging_steps": 2.5}, ValueError),
        ({"paciencia": 0}, ValueError),
        ({"r": 0}, ValueError),
        ({"lora_alpha": 0}, ValueError),
        ({"metodo": "sft", "tarea": "clasificacion"}, ValueError),
        ({"scheduler": "exponencial"}, ValueError),
        ({"max_pasos": 0}, ValueError),
        ({"load_best_model_at_end": "sí"}, TypeError),
    ],
)
def test_entrada_invalida(cambios, error):
    with pytest.raises(error) as info:
        revisar(**cambios)
    assert ESPANOL.search(str(info.value)), str(info.value)


def test_campo_desconocido_es_type_error():
    with pytest.raises(TypeError):
        cf.revisar_configuracion(metodo="completo", learning_rate=2e-5)


_numeros = st.one_of(
    st.integers(-10, 10**7), st.floats(allow_nan=True, allow_infinity=True), st.none(), st.booleans(), st.text(max_size=4)
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    metodo=st.sampled_from([*cf.METODOS, "x", None]),
    parametros=st.one_of(st.floats(1, 1e12), st.integers(-5, 10**11), st.sampled_from(list(cf.MODELOS)), st.none()),
    ejemplos=st.one_of(st.integers(-3, 10**7), st.floats(0, 1e6)),
    lr=st.one_of(st.floats(1e-8, 1.0), _numeros),
    lote=st.one_of(st.integers(0, 512), _numeros),
    acumulacion=st.integers(0, 64),
    dispositivos=st.integers(0, 16),
    epocas=st.one_of(st.floats(0, 100), _numeros),
    warmup=st.one_of(st.floats(0, 1), st.integers(-2, 100_000), _numeros),
    weight_decay=st.one_of(st.floats(-1, 3), _numeros),
    max_grad_norm=st.one_of(st.floats(-2, 5), st.none()),
    precision=st.sampled_from([*cf.PRECISIONES, None, "auto", "int8"]),
    gpu=st.sampled_from(["T4", "cpu", None, "L4", "H100", "nada"]),
    logging_steps=st.one_of(st.none(), st.integers(-1, 5000), st.floats(0, 1)),
    eval_strategy=st.sampled_from([*cf.ESTRATEGIAS_EVAL, "x"]),
    save_strategy=st.sampled_from(cf.ESTRATEGIAS_GUARDADO),
    eval_steps=st.one_of(st.none(), st.integers(-1, 5000)),
    load_best=st.booleans(),
    metrica=st.sampled_from([None, "eval_loss", "eval_accuracy", ""]),
    paciencia=st.one_of(st.none(), st.integers(-1, 10)),
    r=st.one_of(st.none(), st.integers(-1, 1024)),
    alpha=st.one_of(st.none(), st.floats(-1, 1024)),
)
def test_propiedad_solo_value_o_type_error(metodo, parametros, ejemplos, lr, lote, acumulacion, dispositivos, epocas,
                                          warmup, weight_decay, max_grad_norm, precision, gpu, logging_steps,
                                          eval_strategy, save_strategy, eval_steps, load_best, metrica, paciencia,
                                          r, alpha):
    try:
        rev = cf.revisar_configuracion(
            metodo=metodo, parametros=parametros, ejemplos=ejemplos, lr=lr, lote=lote, acumulacion=acumulacion,
            dispositivos=dispositivos, epocas=epocas, warmup=warmup, weight_decay=weight_decay,
            max_grad_norm=max_grad_norm, precision=precision, gpu=gpu, logging_steps=logging_steps,
            eval_strategy=eval_strategy, save_strategy=save_strategy, eval_steps=eval_steps,
            load_best_model_at_end=load_best, metric_for_best_model=metrica, paciencia=paciencia, r=r,
            lora_alpha=alpha,
        )
    except (ValueError, TypeError) as exc:
        assert ESPANOL.search(str(exc)), str(exc)
        return
    assert rev.pasos_totales >= 1 and rev.pasos_warmup >= 0 and rev.lote_efectivo >= 1
    assert {h.nivel for h in rev.hallazgos} <= set(cf.NIVELES)
    assert all(h.mensaje and h.fuente and h.parametro for h in rev.hallazgos)
    assert (rev.cabe is None) == (gpu in (None, "cpu"))
    json.dumps(rev.a_dict())  # siempre serializable


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    metodo=st.sampled_from(cf.METODOS),
    parametros=st.one_of(st.integers(10**6, 10**11), st.sampled_from(list(cf.MODELOS))),
    ejemplos=st.integers(1, 10**7),
    lr=st.floats(1e-7, 1e-2),
    lote=st.integers(1, 256),
    acumulacion=st.integers(1, 64),
    dispositivos=st.integers(1, 8),
    epocas=st.floats(0.1, 50),
    warmup=st.one_of(st.floats(0, 0.99), st.integers(0, 10**5)),
    gpu=st.sampled_from([None, "cpu", *cf.nombres_de_gpus()]),
    precision=st.sampled_from([None, *cf.PRECISIONES]),
    logging_steps=st.one_of(st.none(), st.integers(1, 10**4)),
    estrategia=st.sampled_from(["no", "epoch", "steps"]),
)
def test_propiedad_entrada_valida_siempre_da_revision(metodo, parametros, ejemplos, lr, lote, acumulacion, dispositivos,
                                                      epocas, warmup, gpu, precision, logging_steps, estrategia):
    tarea = "causal" if metodo == "sft" else None
    rev = cf.revisar_configuracion(
        metodo=metodo, parametros=parametros, ejemplos=ejemplos, lr=lr, lote=lote, acumulacion=acumulacion,
        dispositivos=dispositivos, epocas=epocas, warmup=warmup, gpu=gpu, precision=precision, tarea=tarea,
        logging_steps=logging_steps, eval_strategy=estrategia, save_strategy=estrategia,
    )
    assert rev.lote_efectivo == lote * acumulacion * dispositivos
    assert rev.nivel_de("learning_rate") in cf.NIVELES and rev.nivel_de("warmup_steps") in cf.NIVELES
    assert (rev.nivel_de("warmup_steps") == "error") == (rev.pasos_warmup >= rev.pasos_totales)
    if rev.cabe is not None:
        assert (rev.nivel_de("memoria") == "error") == (not rev.cabe)
    d = cf.argumentos_de_entrenamiento(rev)
    assert d["per_device_train_batch_size"] == lote and d["report_to"] == "none"


# --------------------------------------------------------------------------
# Generación: TrainingArguments, SFTConfig y código Python
# --------------------------------------------------------------------------

NOMBRES_ANTIGUOS = {"evaluation_strategy", "warmup_ratio", "logging_dir", "no_cuda", "group_by_length",
                    "max_seq_length", "tokenizer"}


def test_argumentos_solo_con_nombres_actuales():
    import dataclasses

    from transformers import TrainingArguments
    from trl import SFTConfig

    campos = {f.name for f in dataclasses.fields(TrainingArguments)}
    campos_sft = {f.name for f in dataclasses.fields(SFTConfig)}
    for cambios in [{}, {"gpu": "cpu"}, {"metodo": "qlora", "parametros": "llama-3-8b", "lr": 2e-4},
                    {"eval_strategy": "steps", "eval_steps": 50, "save_strategy": "steps", "load_best_model_at_end": True}]:
        c = cf.Configuracion(**{**BASE, **cambios})
        d = cf.argumentos_de_entrenamiento(c)
        assert not NOMBRES_ANTIGUOS & set(d)
        assert set(d) <= (campos_sft if c.tarea_efectiva == "causal" else campos), set(d) - campos_sft
        assert d["report_to"] == "none"


def test_argumentos_eligen_precision_y_logging():
    d = cf.argumentos_de_entrenamiento(**{**BASE, "logging_steps": None, "precision": "bf16"})
    assert d["fp16"] is True and d["bf16"] is False  # la T4 no tiene bf16: se corrige
    assert d["logging_steps"] == 25  # ≈ 25 registros en 690 pasos (no 500)
    assert d["warmup_steps"] == 0.06 and d["eval_strategy"] == "epoch"
    d = cf.argumentos_de_entrenamiento(**{**BASE, "precision": "bf16"}, corregir=False)
    assert d["bf16"] is True
    d = cf.argumentos_de_entrenamiento(**{**BASE, "gpu": "cpu", "precision": "fp16"})
    assert d["use_cpu"] is True and d["fp16"] is False and d["bf16"] is False
    d = cf.argumentos_de_entrenamiento(**{**BASE, "gpu": _gpu_con_bf16(), "precision": None})
    assert d["bf16"] is True and d["fp16"] is False
    assert cf.logging_steps_sugerido(690) == 25 and cf.logging_steps_sugerido(10) == 1


def test_argumentos_corrigen_estrategias_de_guardado():
    d = cf.argumentos_de_entrenamiento(**{**BASE, "load_best_model_at_end": True, "save_strategy": "steps"})
    assert d["save_strategy"] == "epoch"
    d = cf.argumentos_de_entrenamiento(**{**BASE, "load_best_model_at_end": True, "eval_strategy": "steps",
                                          "eval_steps": 30, "save_strategy": "steps", "save_steps": 100})
    assert d["save_steps"] % d["eval_steps"] == 0


def test_construye_training_arguments_reales(tmp_path):
    for cambios in [
        {},
        {"gpu": "cpu", "precision": "bf16"},
        {"gpu": "cpu", "precision": "fp16"},
        {"load_best_model_at_end": True, "save_strategy": "steps", "metric_for_best_model": "eval_accuracy"},
        {"eval_strategy": "steps", "eval_steps": 30, "save_strategy": "steps", "save_steps": 100,
         "load_best_model_at_end": True},
        {"metodo": "lora", "lr": 2e-4, "checkpointing": True, "max_pasos": 50},
        {"paciencia": 2, "load_best_model_at_end": True, "precision": "bf16"},
    ]:
        args = cf.construir_training_arguments(**{**BASE, **cambios}, output_dir=str(tmp_path))
        d = cf.argumentos_de_entrenamiento(**{**BASE, **cambios}, output_dir=str(tmp_path))
        assert args.learning_rate == d["learning_rate"]
        assert args.get_warmup_steps(cf.revisar_configuracion(**{**BASE, **cambios}).pasos_totales) == \
            cf.revisar_configuracion(**{**BASE, **cambios}).pasos_warmup
        assert args.fp16 == d["fp16"] and args.bf16 == d["bf16"]


def test_error_de_transformers_en_espanol(tmp_path):
    with pytest.raises(ValueError, match="rechazó la configuración"):
        cf.construir_training_arguments(**{**BASE, "load_best_model_at_end": True, "save_strategy": "steps"},
                                        output_dir=str(tmp_path), corregir=False)


def test_bf16_en_gpu_ampere(tmp_path, monkeypatch):
    """En esta máquina sin GPU, TrainingArguments(bf16=True) fallaría: se simula una GPU con bf16."""
    import transformers.training_args as ta

    monkeypatch.setattr(ta, "is_torch_bf16_gpu_available", lambda: True)
    args = cf.construir_training_arguments(**{**BASE, "gpu": _gpu_con_bf16()}, output_dir=str(tmp_path))
    assert args.bf16 and not args.fp16


def test_construye_sft_config(tmp_path):
    c = cf.Configuracion(metodo="qlora", parametros="llama-3.2-1b", ejemplos=2000, lr=2e-4, lote=4, acumulacion=4,
                         epocas=2, warmup=0.03, gpu="T4", secuencia=512, logging_steps=10)
    assert cf.clase_de_argumentos(c) == "SFTConfig"
    sft = cf.construir_sft_config(c, output_dir=str(tmp_path))
    assert sft.max_length == 512 and sft.packing is False
    assert sft.fp16 and not sft.bf16  # SFTConfig pondría bf16=True por defecto: falla en una T4
    assert sft.gradient_checkpointing is True
    assert sft.optim == "paged_adamw_8bit"
    with pytest.raises(ValueError, match="causales"):
        cf.construir_sft_config(**BASE, output_dir=str(tmp_path))


def test_sft_completo_en_cpu(tmp_path):
    sft = cf.construir_sft_config(metodo="sft", parametros="llama-3.2-1b", ejemplos=500, lr=2e-5, lote=2, epocas=1,
                                  gpu="cpu", output_dir=str(tmp_path))
    assert sft.use_cpu and not sft.bf16 and not sft.fp16


@pytest.mark.parametrize(
    "cambios",
    [
        {},
        {"gpu": "cpu", "warmup": 10, "max_pasos": 40},
        {"eval_strategy": "steps", "eval_steps": 30, "save_strategy": "steps", "load_best_model_at_end": True,
         "metric_for_best_model": "eval_f1"},
        {"metodo": "qlora", "parametros": "llama-3.2-1b", "lr": 2e-4, "secuencia": 256},
    ],
)
def test_codigo_python_ida_y_vuelta(tmp_path, cambios):
    c = cf.Configuracion(**{**BASE, **cambios})
    codigo = cf.codigo_python(c, output_dir=str(tmp_path))
    espacio: dict = {}
    exec(compile(codigo, "<codigo_python>", "exec"), espacio)
    if cf.clase_de_argumentos(c) == "SFTConfig":
        directo = cf.construir_sft_config(c, output_dir=str(tmp_path))
    else:
        directo = cf.construir_training_arguments(c, output_dir=str(tmp_path))
    assert type(espacio["args"]) is type(directo)
    assert espacio["args"].to_dict() == directo.to_dict()


def test_codigo_python_comenta_el_warmup():
    codigo = cf.codigo_python(**BASE)
    assert "warmup_steps=0.06," in codigo and "42 pasos de warmup" in codigo
    assert "evaluation_strategy" not in codigo and "warmup_ratio" not in codigo


# --------------------------------------------------------------------------
# Widget
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def widget():
    return cf.widget_configurador()


def _cifra(html: str, clave: str) -> str:
    return re.search(rf'data-cifra="{clave}">([^<]*)<', html).group(1)


def test_widget_expone_controles_y_salidas(widget):
    import ipywidgets as widgets

    assert isinstance(widget, widgets.VBox)
    esperados = {"metodo", "modelo", "ejemplos", "lr", "lote", "acumulacion", "epocas", "warmup", "weight_decay",
                 "precision", "gpu"}
    assert esperados <= set(widget.controles)
    for control in widget.controles.values():
        assert control.description  # etiqueta estable en español
    # valores exactos: un deslizador logarítmico redondearía 2e-5 a 1.995e-5 en el navegador
    assert isinstance(widget.controles["lr"], widgets.SelectionSlider)
    assert widget.controles["lr"].value == 2e-5 and widget.revision.configuracion.lr == 2e-5
    assert isinstance(widget.salida_hallazgos, widgets.HTML)
    assert "<svg" in widget.grafica.value and "Paso de optimización" in widget.grafica.value
    assert _cifra(widget.salida_resumen.value, "pasos_totales") == "690"
    assert widget.revision.pasos_warmup == 42


def test_widget_reacciona_a_los_controles(widget):
    c = widget.controles
    c["lote"].value = 32
    assert _cifra(widget.salida_resumen.value, "pasos_por_epoca") == "115"  # ceil(3668/32)
    assert _cifra(widget.salida_resumen.value, "pasos_totales") == "345"
    assert 'data-pasos="345"' in widget.grafica.value
    c["acumulacion"].value = 2
    assert _cifra(widget.salida_resumen.value, "lote_efectivo") == "64"
    c["lote"].value, c["acumulacion"].value = 16, 1

    antes = widget.veces_graficada
    c["lr"].value = 5e-3
    assert 'data-parametro="learning_rate"' in widget.salida_hallazgos.value
    assert re.search(r'data-nivel="error" data-parametro="learning_rate"', widget.salida_hallazgos.value)
    assert widget.veces_graficada == antes + 1  # la curva cambia de altura
    c["lr"].value = 2e-5
    assert re.search(r'data-nivel="ok" data-parametro="learning_rate"', widget.salida_hallazgos.value)

    veces = widget.veces_graficada
    c["weight_decay"].value = 0.3
    assert re.search(r'data-nivel="aviso" data-parametro="weight_decay"', widget.salida_hallazgos.value)
    assert widget.veces_graficada == veces  # el schedule no cambió: no se redibuja
    c["weight_decay"].value = 0.01


def test_widget_precision_y_memoria(widget):
    c = widget.controles
    c["precision"].value = "bf16"
    assert re.search(r'data-nivel="error" data-parametro="bf16"', widget.salida_hallazgos.value)
    assert "fp16=True" in widget.salida_codigo.value  # el código ya corrige la precisión
    c["precision"].value = "auto"
    fraccion = widget.barra_memoria.value
    assert 0 < fraccion < 1 and widget.barra_memoria.bar_style == "success"
    c["modelo"].value = "llama-3-8b"  # ajuste completo de 8B en una T4: no cabe
    assert widget.barra_memoria.value == 1.0 and widget.barra_memoria.bar_style == "danger"
    assert re.search(r'data-nivel="error" data-parametro="memoria"', widget.salida_hallazgos.value)
    c["metodo"].value = "qlora"
    c["lote"].value = 1  # QLoRA de 8B en una T4 con secuencias de 1024 tokens: lote 1
    assert widget.revision.cabe is True and widget.barra_memoria.bar_style in ("success", "warning")
    c["gpu"].value = "cpu"
    assert widget.barra_memoria.value == 0.0 and "sin GPU" in widget.texto_memoria.value
    c["metodo"].value, c["modelo"].value, c["gpu"].value, c["lote"].value = "completo", "distilbert", "T4", 16


def test_widget_muestra_errores_de_entrada(widget):
    widget.controles["metodo"].value = "sft"  # SFT sobre DistilBERT (clasificador): entrada inválida
    assert "Revisa los valores" in widget.salida_hallazgos.value
    widget.controles["metodo"].value = "completo"
    assert "Revisa los valores" not in widget.salida_hallazgos.value


def test_widget_actualiza_rapido(widget):
    import time

    c = widget.controles
    tiempos = []
    for valor in [0.0, 0.05, 0.1, 0.01] * 3:
        inicio = time.perf_counter()
        c["weight_decay"].value = valor
        tiempos.append(time.perf_counter() - inicio)
    tiempos.sort()
    assert tiempos[len(tiempos) // 2] < 0.05


def test_svg_schedule_valido():
    import xml.etree.ElementTree as ET

    svg = cf.svg_schedule(2e-5, 10_000, 600, "cosine")
    raiz = ET.fromstring(svg)
    assert raiz.tag.endswith("svg")
    puntos = re.search(r'points="([^"]*)"', svg).group(1).split()
    assert len(puntos) == cf.PUNTOS_GRAFICA
    with pytest.raises(ValueError):
        cf.svg_schedule(0, 100, 10)


def test_graficar_revision():
    import matplotlib.pyplot as plt

    figura = cf.graficar_revision(revisar(warmup=0.1))
    assert figura.axes[0].get_xlabel() == "Paso de optimización"
    plt.close(figura)
    with pytest.raises(TypeError):
        cf.graficar_revision(BASE)


# --------------------------------------------------------------------------
# tutor configurar
# --------------------------------------------------------------------------


def test_cli_json_contrato():
    p = _tutor("--metodo", "completo", "--parametros", "66e6", "--ejemplos", "3668", "--lr", "2e-5", "--lote", "16",
               "--acumulacion", "1", "--epocas", "3", "--warmup", "0.06", "--gpu", "T4", "--bf16",
               "--weight-decay", "0.01", "--json")
    assert p.returncode == 0, p.stderr
    datos = json.loads(p.stdout)
    for clave in ("hallazgos", "training_arguments", "pasos_totales", "pasos_warmup", "lote_efectivo", "memoria",
                  "cabe"):
        assert clave in datos
    assert datos["pasos_totales"] == 690 and datos["pasos_warmup"] == 42 and datos["lote_efectivo"] == 16
    assert set(datos["hallazgos"][0]) == {"nivel", "parametro", "mensaje", "fuente"}
    assert any(h["nivel"] == "error" and h["parametro"] == "bf16" for h in datos["hallazgos"])
    ta = datos["training_arguments"]
    assert ta["fp16"] is True and ta["bf16"] is False and ta["warmup_steps"] == 0.06
    assert ta["eval_strategy"] == "no" and "evaluation_strategy" not in ta
    assert datos["memoria"]["total_bytes"] > 0 and datos["cabe"] is True


def test_cli_texto_y_errores():
    p = _tutor("--metodo", "lora", "--parametros", "llama-3-8b", "--ejemplos", "20000", "--lr", "2e-4",
               "--lote", "4", "--acumulacion", "4", "--epocas", "6", "--gpu", "T4", "--bf16")
    assert p.returncode == 0, p.stderr
    assert "[OK]" in p.stdout and "[AVISO]" in p.stdout and "[ERROR]" in p.stdout
    assert "SFTConfig" in p.stdout
    p = _tutor("--metodo", "completo", "--parametros", "66e6", "--ejemplos", "3668", "--lr", "2e-5", "--lote", "16",
               "--epocas", "3", "--gpu", "T4", "--bf16", "--estricto")
    assert p.returncode == 1
    p = _tutor("--metodo", "completo", "--parametros", "66e6", "--ejemplos", "3668", "--lr", "-1", "--lote", "16",
               "--epocas", "3")
    assert p.returncode == 2 and "Traceback" not in p.stderr and ESPANOL.search(p.stderr), p.stderr


def test_warmup_de_diez_por_ciento_no_avisa_por_el_redondeo():
    """345 pasos con warmup_steps=0.1 → 35 pasos (10.14 %) por el techo del Trainer: lo pedido es 10 %."""
    from tutor_lib.configurador import revisar_configuracion

    revision = revisar_configuracion(
        metodo="completo", parametros=110_000_000, ejemplos=5506, lr=2e-5, lote=16, epocas=1, warmup=0.1
    )
    assert revision.pasos_totales == 345 and revision.pasos_warmup == 35
    assert revision.nivel_de("warmup_steps") == "ok"
