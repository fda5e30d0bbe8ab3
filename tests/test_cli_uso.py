"""Un error de argumentos en ``tutor X`` muestra el uso de ``tutor X`` (issue 43, punto 14).

``tutor corregir --ejercicio ej04`` mostraba «uso: tutor [-h] SUBCOMANDO ...»:
argparse devuelve al analizador principal las opciones que el subcomando no
reconoce y el principal se quejaba con su propio uso. Cada prueba corre el
comando real en un proceso nuevo y mira el uso, el mensaje y el código 2.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tutor_lib.cli import SUBCOMANDOS

RAIZ = Path(__file__).resolve().parents[1]
BANDERA = "--bandera-que-no-existe"

#: Argumentos obligatorios mínimos de cada subcomando: con ellos el análisis llega a la opción
#: que sobra (sin ellos, argparse se queja antes de lo que falta). Nada se ejecuta: el error
#: llega antes.
MINIMOS = {
    "doctor": [],
    "curso": [],
    "actualizar": ["03_trainer"],
    "warmup": ["--lr", "2e-5", "--pasos-totales", "100"],
    "configurar": ["--metodo", "completo", "--parametros", "66e6", "--ejemplos", "100", "--lr", "2e-5",
                   "--lote", "8", "--epocas", "1"],
    "vram": ["--parametros", "7e9"],
    "lora": ["--config", "config.json", "--r", "8", "--modulos", "q_proj"],
    "diagnosticar": ["trainer_state.json"],
    "corregir": ["ej04.ipynb"],
    "calificar": ["ej04", "entregas"],
    "exportar": ["calificaciones_ej04", "--salida", "notas.csv"],
}


def _tutor(*argumentos: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tutor_lib", *argumentos], capture_output=True, text=True, timeout=120,
        env={**os.environ, "HF_HUB_OFFLINE": "1"}, cwd=RAIZ,
    )


def test_cada_subcomando_tiene_sus_argumentos_minimos():
    assert set(MINIMOS) == set(SUBCOMANDOS), "añade aquí los argumentos obligatorios del subcomando nuevo"


@pytest.mark.parametrize("subcomando", SUBCOMANDOS)
def test_opcion_desconocida_muestra_el_uso_del_subcomando(subcomando):
    r = _tutor(subcomando, *MINIMOS[subcomando], BANDERA)
    assert r.returncode == 2, r.stderr
    assert r.stdout == ""
    assert r.stderr.startswith(f"uso: tutor {subcomando} "), r.stderr
    assert f"tutor {subcomando}: error: argumentos no reconocidos: {BANDERA}" in r.stderr
    assert "uso: tutor [-h] SUBCOMANDO" not in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("subcomando", SUBCOMANDOS)
def test_opcion_desconocida_al_principio_tambien(subcomando):
    """La opción que sobra va antes de los obligatorios: sigue siendo del subcomando."""
    r = _tutor(subcomando, BANDERA, *MINIMOS[subcomando])
    assert r.returncode == 2
    assert r.stderr.startswith(f"uso: tutor {subcomando} "), r.stderr
    assert f"tutor {subcomando}: error: argumentos no reconocidos: {BANDERA}" in r.stderr


def test_el_caso_del_issue():
    r = _tutor("corregir", "--ejercicio", "ej04")
    assert r.returncode == 2
    assert r.stderr.startswith("uso: tutor corregir "), r.stderr
    assert "tutor corregir: error: argumentos no reconocidos: --ejercicio" in r.stderr


def test_opcion_desconocida_antes_del_subcomando_es_de_tutor():
    r = _tutor(BANDERA, "doctor")
    assert r.returncode == 2
    assert r.stderr.startswith("uso: tutor [-h] SUBCOMANDO"), r.stderr
    assert f"tutor: error: argumentos no reconocidos: {BANDERA}" in r.stderr
