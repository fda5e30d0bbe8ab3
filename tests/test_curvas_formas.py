"""Las formas del issue 42: nada roto se llama «sano», y cada frase de la explicación sale de la curva.

Curvas sintéticas con la forma que describe el issue (no sus archivos): una explosión que queda plana en el
azar, una validación treinta veces por encima del entrenamiento, un sobreajuste con la validación a saltos y
un SGD que rebota por encima del azar; todas sin ``config.json``, como las 55 corridas con que se midió.
Las corridas reales con esas formas están en el corpus independiente (``tests/test_curvas_independientes.py``).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tutor_lib import curvas
from tutor_lib.curvas import VEREDICTOS, diagnosticar
from tutor_lib.curvas.azar import buscar_explosion, clases_de, estimar_azar
from tutor_lib.curvas.formato import _fmt

RAIZ = Path(__file__).resolve().parents[1]
AZAR_10 = math.log(10)
FRASES_QUE_NIEGAN_PICOS = ("sin picos", "acompañó", "sin problemas visibles")


def _log(entrenamiento, validacion=(), cada=10, cada_eval=100):
    """Un ``log_history`` como el del Trainer: ``loss`` cada ``cada`` pasos y ``eval_loss`` cada ``cada_eval``."""
    registros = [{"loss": float(v), "step": cada * (i + 1)} for i, v in enumerate(entrenamiento)]
    registros += [{"eval_loss": float(v), "step": cada_eval * (i + 1)} for i, v in enumerate(validacion)]
    return sorted(registros, key=lambda e: (e["step"], "eval_loss" in e))


def _ruido(n, escala, semilla):
    return escala * np.random.default_rng(semilla).standard_normal(n)


def explota_y_queda_en_el_azar(semilla=0, n=150):
    """Miles al empezar, 1e10 en el registro siguiente y después plana en ln(10): colapsó."""
    y = np.r_[3e4, 1e10, 5e3, AZAR_10 * (1 + _ruido(n - 3, 0.02, semilla))]
    v = AZAR_10 * (1 + _ruido(15, 0.01, semilla + 1))
    v[0] = 40.0
    return y, v


def validacion_treinta_veces_arriba(semilla=0, n=150):
    """El entrenamiento baja de 1e4 a 2.4 (explotó al empezar) y la validación se queda en 68 de principio a fin."""
    y = np.r_[1e4, 3e3, 400.0, 60.0, 2.4 + 0.3 * np.exp(-np.arange(n - 4) / 30) + _ruido(n - 4, 0.03, semilla)]
    return y, 68.5 + _ruido(15, 0.5, semilla + 1)


def sobreajuste_con_validacion_ruidosa(semilla=0, n=150):
    """El entrenamiento llega a 0.004 y la validación sube de 0.69 a 1.5 con altibajos (pocos ejemplos)."""
    t = np.arange(n)
    y = 2.3 * np.exp(-t / 20) + 0.004 + 0.0005 * np.random.default_rng(semilla).random(n)
    v = np.array([1.2, 0.85, 0.72, 0.69, 0.75, 0.9, 0.82, 1.05, 1.0, 1.3, 1.15, 1.45, 1.3, 1.7, 1.5])
    return y, v * (1 + _ruido(15, 0.02, semilla + 1))


def sgd_por_encima_del_azar(semilla=0, n=140):
    """Plana, con ruido, algo por encima de ln(10) durante 1400 pasos: nunca baja."""
    y = AZAR_10 * 1.04 + _ruido(n, 0.06, semilla)
    return y, AZAR_10 * 1.05 + _ruido(14, 0.03, semilla + 1)


FORMAS = {
    "explota_y_queda_en_el_azar": (explota_y_queda_en_el_azar, {"divergencia"}),
    "validacion_treinta_veces_arriba": (validacion_treinta_veces_arriba, {"divergencia", "sobreajuste"}),
    "sobreajuste_con_validacion_ruidosa": (sobreajuste_con_validacion_ruidosa, {"sobreajuste"}),
    "sgd_por_encima_del_azar": (sgd_por_encima_del_azar, {"divergencia"}),
}


@pytest.mark.parametrize("nombre", sorted(FORMAS))
@pytest.mark.parametrize("semilla", [0, 1, 2])
def test_las_formas_del_issue_nunca_son_sanas(nombre, semilla):
    forma, esperadas = FORMAS[nombre]
    entrenamiento, validacion = forma(semilla)
    d = diagnosticar(_log(entrenamiento, validacion))
    assert d.categoria in esperadas, (d.categoria, d.explicacion)
    for frase in FRASES_QUE_NIEGAN_PICOS:
        assert frase not in d.explicacion
    if nombre in ("explota_y_queda_en_el_azar", "sgd_por_encima_del_azar"):
        # sin config.json el azar se estima con la curva, y la explicación lo dice
        assert "estimado" in d.explicacion and "ln(" in d.explicacion, d.explicacion


def test_con_el_azar_exacto_la_explicacion_no_dice_estimado():
    entrenamiento, validacion = explota_y_queda_en_el_azar()
    d = diagnosticar({"log_history": _log(entrenamiento, validacion), "config": {"num_labels": 10}})
    assert d.categoria == "divergencia"
    assert "ln(10)" in d.explicacion and "10 clases" in d.explicacion and "estimado" not in d.explicacion


# --------------------------------------------------------------------------- punto 2: los picos se nombran

def _con_pico(base: np.ndarray, donde: int, veces_final: float) -> np.ndarray:
    y = base.copy()
    final = float(np.median(y[-4:]))
    y[donde] = veces_final * final
    return y


CURVAS_CON_PICO = {
    # baja sana de 2.3 a 0.01 y un registro suelto a mitad de camino, ≥ 100 veces el final
    "pico_suelto_en_una_bajada": lambda: (_con_pico(2.3 * np.exp(-np.arange(120) / 15) + 0.01, 70, 150.0),
                                          2.3 * np.exp(-np.arange(12) / 1.5) + 0.05),
    # un pico de dos órdenes de magnitud que se recupera y sigue aprendiendo
    "explota_y_se_recupera": lambda: (np.r_[2.3 * np.exp(-np.arange(60) / 15) + 0.05, 900.0, 300.0, 40.0,
                                            0.4 * np.exp(-np.arange(57) / 12) + 0.03],
                                      np.r_[2.0, 1.2, 0.6, 0.3, 0.25, 0.9, 0.5, 0.3, 0.2, 0.15, 0.12, 0.1]),
    # la explosión y el colapso del issue
    "explota_y_queda_en_el_azar": explota_y_queda_en_el_azar,
    # la validación tiene el pico (una evaluación con el modelo roto) y el entrenamiento no
    "pico_en_validacion": lambda: (2.3 * np.exp(-np.arange(120) / 20) + 0.02,
                                   np.r_[1.5, 0.6, 0.3, 0.2, 40.0, 0.15, 0.12, 0.1, 0.09, 0.09, 0.09, 0.09]),
}


@pytest.mark.parametrize("nombre", sorted(CURVAS_CON_PICO))
def test_un_pico_de_cien_veces_el_final_se_nombra(nombre):
    entrenamiento, validacion = CURVAS_CON_PICO[nombre]()
    d = diagnosticar(_log(entrenamiento, validacion, cada_eval=100))
    picos = []
    for serie in (np.asarray(entrenamiento), np.asarray(validacion)):
        final = float(np.median(serie[-4:]))
        antes = np.minimum.accumulate(serie)[:-1]
        i = [j + 1 for j in range(len(serie) - 1) if serie[j + 1] >= 100 * final and serie[j + 1] >= 3 * antes[j]]
        if i:
            picos.append(float(max(serie[j] for j in i)))
    assert picos, "la curva de la prueba no tiene el pico que dice"
    for pico in picos:
        assert _fmt(pico) in d.explicacion, (nombre, pico, d.explicacion)
    assert d.categoria != "sano", d.explicacion
    for frase in FRASES_QUE_NIEGAN_PICOS:
        assert frase not in d.explicacion, (frase, d.explicacion)


def test_la_explicacion_sana_sale_de_los_numeros():
    """Una corrida sana: cada cifra de su explicación es de la curva, y no hay frases hechas."""
    t = np.arange(100)
    entrenamiento = 2.3 * np.exp(-t / 25) + 0.3 + _ruido(100, 0.004, 3)
    validacion = 2.3 * np.exp(-np.arange(10) * 10 / 25) + 0.33
    d = diagnosticar(_log(entrenamiento, validacion))
    assert d.categoria == "sano", d.explicacion
    for frase in FRASES_QUE_NIEGAN_PICOS:
        assert frase not in d.explicacion
    assert _fmt(float(np.max(entrenamiento))) in d.explicacion  # su registro más alto, dicho con su valor
    assert _fmt(float(np.min(validacion))) in d.explicacion


# --------------------------------------------------------------------------- no_concluyente

def _validacion_sube_sin_que_el_entrenamiento_baje():
    """El entrenamiento baja y se aplana en el paso 600; desde el 800 la validación sube un 58 % y él no se mueve."""
    entrenamiento = np.r_[2.0 * np.exp(-np.arange(60) / 10) + 0.5, np.full(60, 0.5 + 2.0 * math.exp(-6))]
    validacion = np.array([1.6, 1.0, 0.8, 0.7, 0.65, 0.62, 0.61, 0.6, 0.7, 0.8, 0.92, 0.95])
    return entrenamiento, validacion


def test_senales_que_se_contradicen_dan_no_concluyente_con_la_evidencia():
    entrenamiento, validacion = _validacion_sube_sin_que_el_entrenamiento_baje()
    d = diagnosticar(_log(entrenamiento, validacion))
    assert d.categoria == "no_concluyente", d.explicacion
    assert "no_concluyente" in VEREDICTOS and "no_concluyente" in curvas.REMEDIOS
    assert _fmt(0.6) in d.explicacion and "validación subió" in d.explicacion
    assert d.evidencia["condiciones_sin_cumplir"] >= 1


def test_tutor_diagnosticar_json_dice_no_concluyente(tmp_path):
    entrenamiento, validacion = _validacion_sube_sin_que_el_entrenamiento_baje()
    ruta = tmp_path / "trainer_state.json"
    ruta.write_text(json.dumps({"log_history": _log(entrenamiento, validacion)}), encoding="utf-8")
    entorno = {**os.environ, "PYTHONPATH": os.pathsep.join([str(RAIZ), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-m", "tutor_lib", "diagnosticar", str(ruta), "--json"],
                          capture_output=True, text=True, cwd=RAIZ, env=entorno, timeout=120)
    assert proc.returncode == 0, proc.stderr
    salida = json.loads(proc.stdout)
    assert salida["categoria"] == "no_concluyente" and salida["remedios"]


# --------------------------------------------------------------------------- el azar estimado

@pytest.mark.parametrize("nivel, clases", [(math.log(10), 10), (2.32, 10), (math.log(2), 2), (0.9, None),
                                           (math.log(50257), 50257), (20.0, None), (-1.0, None), (math.nan, None)])
def test_clases_de_un_nivel(nivel, clases):
    assert clases_de(nivel) == clases


def test_el_azar_se_estima_donde_empieza_o_donde_queda_plana_tras_explotar():
    empieza = np.r_[2.31, 2.2, 1.9, 1.5, 1.1, 0.8, 0.6, 0.5, 0.45, 0.4]
    assert estimar_azar(empieza, 2, None)[0] == pytest.approx(math.log(10))
    entrenamiento, _ = explota_y_queda_en_el_azar()
    final = float(np.median(entrenamiento[-4:]))
    estallido = buscar_explosion(entrenamiento, 4, final)
    assert estallido is not None and estallido.tipo == "salto" and estallido.cola_plana
    assert estimar_azar(entrenamiento, 4, estallido)[0] == pytest.approx(math.log(10))
    # una MSE que empieza en cientos y baja sana no es una explosión
    mse = 400 * np.exp(-np.arange(100) / 10) + 20
    assert buscar_explosion(mse, 4, float(np.median(mse[-4:]))) is None


def test_un_config_de_regresion_impide_estimar_el_azar():
    """Con problem_type="regression" no hay clases: la explicación nunca habla de un azar estimado."""
    entrenamiento, validacion = explota_y_queda_en_el_azar()
    d = diagnosticar({"log_history": _log(entrenamiento, validacion),
                      "config": {"problem_type": "regression", "num_labels": 1}})
    assert "estimado" not in d.explicacion and "nivel_azar" not in d.evidencia
    assert d.categoria != "sano"


@pytest.mark.parametrize("config", [{"problem_type": ["regression"]}, {"problem_type": {"a": 1}},
                                    {"architectures": "BertForTokenClassification"}, {"architectures": [None, 3]}])
def test_un_config_raro_no_rompe_la_estimacion(config):
    """Un config.json escrito a mano (tipos que no son texto) no lanza una traza de Python al decidir si estimar."""
    entrenamiento, validacion = explota_y_queda_en_el_azar()
    d = diagnosticar({"log_history": _log(entrenamiento, validacion), "config": config})
    assert d.categoria in VEREDICTOS and d.categoria != "sano"
    if config.get("architectures") == "BertForTokenClassification":
        assert "estimado" not in d.explicacion  # token classification: no hay un azar de C clases que estimar
