"""La convención de números de course/GLOSARIO.md, implementada una vez en tutor_lib.formato."""

from __future__ import annotations

import math

import pytest

from tutor_lib import formato
from tutor_lib.formato import entero, infracciones, memoria, numero, porcentaje


@pytest.mark.parametrize("valor, texto", [
    (0, "0"), (7, "7"), (2048, "2048"), (9999, "9999"), (10_000, "10 000"), (66_955_010, "66 955 010"),
    (-12_000, "-12 000"), (112_000_000_000, "112 000 000 000"), (1023.6, "1024"), (True + 0, "1"),
])
def test_entero(valor, texto):
    assert entero(valor) == texto


@pytest.mark.parametrize("valor, decimales, texto", [
    (0.6941, 3, "0.694"), (12_345.678, 2, "12 345.68"), (2.5, 1, "2.5"), (-0.0001, 2, "0.00"),
    (-3.25, 1, "-3.2"), (1e6, 0, "1 000 000"), (math.nan, 2, "NaN"), (-math.inf, 1, "-inf"),
])
def test_numero(valor, decimales, texto):
    assert numero(valor, decimales) == texto


def test_porcentaje_y_memoria():
    assert porcentaje(0.859) == "85.9 %"
    assert porcentaje(0.5, 0) == "50 %"
    assert porcentaje(12.5) == "1250.0 %"  # una fracción, no un porcentaje: 12.5 son 1250 %
    assert memoria(2**28) == "256.0 MiB"
    assert memoria(3 * 2**30) == "3.0 GiB"
    assert memoria(112e9, 1) == "104.3 GiB"
    assert memoria(1536) == "1.5 KiB"
    assert memoria(512) == "512 bytes"
    assert memoria(2**40 * 2) == "2048.0 GiB"


def test_errores_en_espanol():
    with pytest.raises(TypeError, match="entero necesita un número; recibí '12'"):
        entero("12")
    with pytest.raises(TypeError, match="porcentaje necesita un número"):
        porcentaje(None)
    with pytest.raises(TypeError, match="memoria necesita un número"):
        memoria(True)


@pytest.mark.parametrize("texto", [
    # las cuatro formas que el issue 15 encontró en una sola lección, y sus parientes
    "DistilBert: 66,955,010 parámetros", "66.955.010 parámetros", "0,249 GiB", "checkpoint de 267.8 MB",
    "exactitud 85.9%", "1,024 veces menos", "hasta 2,8 GiB", "unos 5 GB de RAM",
    # las del issue 43, punto 15: sin tildes, floats sin redondear,
    # exponentes con cero, un plural después de 1
    "Modo: rapido", "Método: qlora (clasificacion)", "3 epocas y 2 parametros",
    "[1.8800000033333333, 2.0]", "esperaba 4.000000000000001e-06", "2.0e-05 y 2.0e-5",
    "≈ 1 registros", "1 pasos de warmup",
])
def test_infracciones_detecta_cada_forma_prohibida(texto):
    assert infracciones(texto), texto


@pytest.mark.parametrize("texto", [
    "DistilBert: 66 955 010 parámetros", "0.249 GiB", "exactitud 85.9 %", "forma (64, 64, 2048)",
    "transformers 5.25.0; torch 2.13.0", "learning_rate=2e-05, warmup_steps=0.06", "104.3 GiB (112.0 GB)",
    "gpu='A100 80GB'", "[1, 2, 3]", "año 2026", "{'loss': 0.6931, 'grad_norm': 1.27}",
    'modo="rapido"', "--modo rapido", "TUTOR_MODO=rapido", "`rapido`", "num_epocas=3", "Modo: rápido",
    "tasa 2.0e-5", "tasa 2.0e-05 y 4.000e-06", "(classifier): Linear(in_features=16, out_features=2, bias=True)", "lr máxima: 2.0e-05 = 0.00002", "1 registro", "11 pasos", "paso 1 más", "0.1 segundos", "f(x=1)", "Épocas: 3",
])
def test_infracciones_acepta_el_formato_del_curso(texto):
    assert infracciones(texto) == [], infracciones(texto)


def test_cada_infraccion_dice_que_y_donde():
    (mensaje,) = infracciones("línea buena 0.5\nparámetros: 2,048\notra buena")
    assert "«2,048»" in mensaje and "coma entre cifras" in mensaje and "«parámetros: 2,048»" in mensaje


@pytest.mark.parametrize("valor, decimales, texto", [
    (5e-5, None, "5e-5"), (2e-5, 1, "2.0e-5"), (2.5e-5, None, "2.5e-5"), (3e-4, None, "3e-4"),
    (4.000000000000001e-06, None, "4e-6"), (1e10, None, "1e10"), (-2e-3, 2, "-2.00e-3"), (0.0, 3, "0.000"),
])
def test_cientifico_como_en_el_codigo(valor, decimales, texto):
    assert formato.cientifico(valor, decimales) == texto
    assert float(texto) == pytest.approx(valor, rel=1e-2, abs=1e-12) and not infracciones(texto)


def test_el_separador_de_miles_es_un_espacio_normal():
    # se copia y se busca como se ve (un espacio fino U+202F no aparece al buscar «66 955»)
    assert formato.SEPARADOR_DE_MILES == " "


def test_acepta_escalares_de_numpy_y_tensores_de_un_elemento():
    import numpy as np
    import torch

    assert porcentaje(torch.tensor(0.093)) == "9.3 %"  # lo que da (codigos == otros).float().mean()
    assert entero(torch.tensor(123_456)) == "123 456" and entero(np.int64(123_456)) == "123 456"
    assert numero(np.float32(0.5), 1) == "0.5" and porcentaje(np.array(0.25), 0) == "25 %"
    with pytest.raises(TypeError, match="porcentaje necesita un número"):
        porcentaje(torch.tensor([0.1, 0.2]))
