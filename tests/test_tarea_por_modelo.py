"""Una tarea por modelo en ``tutor vram`` y ``tutor lora`` (issue 43, punto 8).

Antes, ``tutor vram --modelo dccuchile/bert-base-spanish-wwm-cased`` contaba
109 883 418 parámetros (la cabeza de lenguaje con máscara de su config) y el
README y la lección 03 dicen 109 852 418 (clasificador de 2 clases). Ahora los
dos comandos eligen la misma tarea por defecto, la muestran y ``--tarea`` la
cambia. Sin red: los configs son los que trae el curso.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tutor_lib import cli, recursos, vram
from tutor_lib.vram import tareas

RAIZ = Path(__file__).resolve().parents[1]
BETO = "dccuchile/bert-base-spanish-wwm-cased"
QWEN = "Qwen/Qwen2.5-0.5B-Instruct"


def _json(capsys, *argumentos: str) -> dict:
    assert cli.main([*argumentos, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _texto(capsys, *argumentos: str) -> str:
    assert cli.main(list(argumentos)) == 0
    return capsys.readouterr().out


def _contar(nombre: str, tarea: str) -> int:
    """Los parámetros del modelo construido con la clase Auto de la tarea, sin pasar por tutor_lib.vram."""
    import torch
    import transformers

    with torch.device("meta"):
        modelo = getattr(transformers, tareas.CLASES_AUTO[tarea]).from_config(recursos.cargar_config(nombre))
    return sum(p.numel() for p in modelo.parameters())


@pytest.fixture(autouse=True)
def _sin_hub(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def test_beto_por_defecto_es_un_clasificador_de_2_clases_en_vram_y_en_lora(capsys):
    datos_vram = _json(capsys, "vram", "--modelo", BETO)
    datos_lora = _json(capsys, "lora", "--modelo", BETO, "--r", "8", "--modulos", "query,value")
    esperado = _contar(BETO, "clasificacion")
    assert esperado == 109_852_418  # la cifra del README y de la lección 03
    assert datos_vram["parametros"] == datos_lora["parametros_base"] == esperado
    assert datos_vram["tarea"] == datos_lora["tarea"] == "clasificacion"
    # LoRA suma sus adaptadores encima: 12 capas × 2 módulos × 8 × (768 + 768)
    assert datos_lora["parametros_totales"] == esperado + 12 * 2 * 8 * (768 + 768)

    linea = "clasificación de 2 clases (AutoModelForSequenceClassification)"
    texto_vram = _texto(capsys, "vram", "--modelo", BETO)
    texto_lora = _texto(capsys, "lora", "--modelo", BETO, "--r", "8", "--modulos", "query,value")
    assert f"Tarea: {linea}" in texto_vram and f"Tarea: {linea}" in texto_lora
    assert "109 852 418" in texto_vram and "109 852 418" in texto_lora


def test_un_modelo_de_lenguaje_es_causal_por_defecto(capsys):
    datos_vram = _json(capsys, "vram", "--modelo", QWEN)
    datos_lora = _json(capsys, "lora", "--modelo", QWEN, "--r", "4", "--modulos", "q_proj")
    assert datos_vram["tarea"] == datos_lora["tarea"] == "causal"
    assert datos_vram["parametros"] == datos_lora["parametros_base"] == _contar(QWEN, "causal") == 494_032_768
    assert "AutoModelForCausalLM" in _texto(capsys, "vram", "--modelo", QWEN)


@pytest.mark.parametrize("tarea", ["mascara", "base", "causal"])
def test_tarea_cambia_el_modelo_en_los_dos_comandos(capsys, tarea):
    datos_vram = _json(capsys, "vram", "--modelo", BETO, "--tarea", tarea)
    datos_lora = _json(capsys, "lora", "--modelo", BETO, "--r", "8", "--modulos", "query", "--tarea", tarea)
    esperado = _contar(BETO, tarea)
    assert esperado != 109_852_418
    assert datos_vram["parametros"] == datos_lora["parametros_base"] == esperado
    assert datos_vram["tarea"] == datos_lora["tarea"] == tarea
    texto = _texto(capsys, "vram", "--modelo", BETO, "--tarea", tarea)
    assert f"Tarea: {tareas.describir_tarea(tarea)}" in texto
    assert tareas.CLASES_AUTO[tarea] in texto


def test_beto_con_mascara_es_la_cifra_de_antes(capsys):
    """La cabeza de preentrenamiento de BETO (la de su config) sigue disponible con --tarea mascara."""
    assert _json(capsys, "vram", "--modelo", BETO, "--tarea", "mascara")["parametros"] == 109_883_418


def test_tarea_con_un_numero_de_parametros(capsys):
    por_defecto = _json(capsys, "vram", "--parametros", "110e6", "--lote", "8", "--secuencia", "128")
    clasificador = _json(capsys, "vram", "--parametros", "110e6", "--lote", "8", "--secuencia", "128",
                         "--tarea", "clasificacion")
    assert por_defecto["tarea"] == "causal" and clasificador["tarea"] == "clasificacion"
    # logits de 2 clases en vez de 32 000 tokens por posición: menos activaciones
    assert clasificador["activaciones_bytes"] < por_defecto["activaciones_bytes"]
    assert "forma tipo Llama estimada" in por_defecto["tarea_descripcion"]


def test_tarea_por_defecto_de_configs():
    assert tareas.tarea_por_defecto(recursos.cargar_config(BETO)) == "clasificacion"
    assert tareas.tarea_por_defecto(recursos.cargar_config(QWEN)) == "causal"
    assert tareas.tarea_por_defecto(recursos.cargar_config({"model_type": "llama", "hidden_size": 64})) == "causal"
    assert tareas.tarea_por_defecto(recursos.cargar_config({"model_type": "t5"})) is None


def test_la_biblioteca_sin_tarea_no_cambia():
    """vram.estimar_memoria sin tarea sigue construyendo la clase del config (lo que las lecciones ya usan)."""
    estimacion = vram.estimar_memoria(BETO)
    assert estimacion.tarea == "mascara" and estimacion.parametros == 109_883_418


def _tutor(*argumentos: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tutor_lib", *argumentos], capture_output=True, text=True, timeout=180,
        env={**os.environ, "HF_HUB_OFFLINE": "1"}, cwd=RAIZ,
    )


@pytest.mark.parametrize(
    "argumentos,uso,mensaje",
    [
        (["vram", "--modelo", BETO, "--tarea", "traduccion"], "uso: tutor vram",
         "argumento --tarea: valor no válido: 'traduccion'"),
        (["lora", "--modelo", BETO, "--r", "8", "--modulos", "query", "--tarea", "lenguaje"], "uso: tutor lora",
         "argumento --tarea: valor no válido: 'lenguaje'"),
        (["vram", "--modelo", QWEN, "--tarea", "mascara"], None,
         "no tienen la tarea «mascara» en transformers"),
        (["lora", "--modelo", QWEN, "--r", "8", "--modulos", "q_proj", "--tarea", "mascara"], None,
         "Tareas posibles para este modelo: clasificacion, causal, base"),
    ],
)
def test_tarea_mala_da_error_en_espanol(argumentos, uso, mensaje):
    r = _tutor(*argumentos)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""
    assert mensaje in r.stderr
    if uso:
        assert r.stderr.startswith(uso)


@pytest.mark.parametrize("subcomando", ["vram", "lora"])
def test_ayuda_documenta_tarea(capsys, subcomando):
    with pytest.raises(SystemExit) as salida:
        cli.main([subcomando, "--ayuda"])
    assert salida.value.code == 0
    ayuda = " ".join(capsys.readouterr().out.split())
    assert "--tarea {clasificacion,causal,mascara,base}" in ayuda
    assert "Por defecto: clasificacion para un encoder" in ayuda
