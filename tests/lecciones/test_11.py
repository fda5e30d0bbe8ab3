"""Pruebas de lessons/11_qlora.ipynb.

Las primeras son rápidas: extraen del notebook las funciones que la lección
define (NF4 a mano, cuantización por bloques, prueba del optimizador paginado)
y las comparan con bitsandbytes 0.50 en CPU, junto con las cuentas de bits de la
doble cuantización y la calculadora de memoria. La última ejecuta el notebook
una vez en modo rápido y comprueba las cifras clave de sus salidas; por eso este
notebook puede quedar fuera del recorrido general de tests/test_lecciones.py.
"""

from __future__ import annotations

import math
import re
import warnings
from pathlib import Path

import pytest
from cuadernos import ENTERO, funciones_del_notebook
import torch

from tutor_lib import recursos, vram
from tutor_lib.formato import entero

RAIZ = Path(__file__).resolve().parents[2]
LECCION = RAIZ / "lessons" / "11_qlora.ipynb"

bnb = pytest.importorskip("bitsandbytes")
import bitsandbytes.functional as bnbF  # noqa: E402


def _funciones_del_notebook(*nombres: str) -> dict:
    """Compila solo las definiciones ``def nombre(...)`` de las celdas de código de la lección."""
    espacio = {"torch": torch, "ndtri": torch.special.ndtri, "bnb": bnb, "bnbF": bnbF, "warnings": warnings}
    return funciones_del_notebook(LECCION, espacio, *nombres)


@pytest.fixture(scope="module")
def leccion():
    return _funciones_del_notebook(
        "niveles_nf4", "cuantizar_por_bloques", "descuantizar", "probar_optimizador_paginado", "bytes_de",
        "bytes_del_estado",
    )


# --------------------------------------------------------------------------
# NF4 a mano (secciones 2 a 4 y 6)
# --------------------------------------------------------------------------


def test_niveles_nf4_a_mano_coinciden_con_bitsandbytes(leccion):
    mios = leccion["niveles_nf4"]()
    suyos = bnbF.get_4bit_type("nf4", device="cpu")
    assert mios.shape == (16,)
    assert (mios - suyos).abs().max() < 1e-6
    assert (mios < 0).sum() == 7 and (mios == 0).sum() == 1 and (mios > 0).sum() == 8
    assert mios[0] == -1 and mios[-1] == 1
    assert torch.all(mios[1:] > mios[:-1])


def test_cuantizacion_por_bloques_igual_a_quantize_4bit(leccion):
    torch.manual_seed(0)
    pesos = torch.randn(96, 128) * 0.05
    pesos[3, 7] = 1.5  # un valor atípico
    niveles = bnbF.get_4bit_type("nf4", device="cpu")
    codigos, absmax = leccion["cuantizar_por_bloques"](pesos, niveles, 64)
    q, estado = bnbF.quantize_4bit(pesos, blocksize=64, quant_type="nf4")
    planos = q.flatten()
    codigos_bnb = torch.stack([planos >> 4, planos & 0x0F], dim=1).flatten()
    assert torch.equal(codigos_bnb, codigos.flatten())
    assert torch.equal(estado.absmax, absmax)
    reconstruida = leccion["descuantizar"](codigos, absmax, niveles, pesos.shape)
    assert torch.allclose(reconstruida, bnbF.dequantize_4bit(q, estado), atol=1e-7)


def test_bloques_de_ceros_y_tamanos_invalidos(leccion):
    niveles = bnbF.get_4bit_type("nf4", device="cpu")
    ceros = torch.zeros(2, 64)
    codigos, absmax = leccion["cuantizar_por_bloques"](ceros, niveles, 64)
    assert torch.all(leccion["descuantizar"](codigos, absmax, niveles, ceros.shape) == 0)
    with pytest.raises(ValueError):
        leccion["cuantizar_por_bloques"](torch.zeros(100), niveles, 64)


def test_bloques_de_64_y_nf4_reducen_el_error_medio(leccion):
    """Lo que muestra la tabla de la sección 4, en pesos con colas pesadas (t de Student)."""
    torch.manual_seed(1)
    pesos = torch.distributions.StudentT(4.0).sample((256, 256)) * 0.02
    nf4 = bnbF.get_4bit_type("nf4", device="cpu")
    int4 = torch.arange(-7, 8, dtype=torch.float32) / 7

    def error_medio(niveles, bloque):
        c, a = leccion["cuantizar_por_bloques"](pesos, niveles, bloque)
        return (leccion["descuantizar"](c, a, niveles, pesos.shape) - pesos).abs().mean()

    assert error_medio(nf4, 64) < error_medio(int4, 64)
    assert error_medio(nf4, 64) * 2 < error_medio(nf4, pesos.numel())


# --------------------------------------------------------------------------
# Doble cuantización y memoria (secciones 5, 8 y 12)
# --------------------------------------------------------------------------


def test_bits_por_parametro_de_la_doble_cuantizacion(leccion):
    assert 4 + 32 / 64 == 4.5
    assert math.isclose(4 + 8 / 64 + 32 / (64 * 256), 4.126953125)
    # Respuesta 3 de la autoevaluación
    assert 4 + 32 / 128 == 4.25
    n = 1536 * 384
    pesos = torch.randn(1536, 384)
    for doble in (False, True):
        q, estado = bnbF.quantize_4bit(pesos, blocksize=64, quant_type="nf4", compress_statistics=doble)
        assert (q.numel(), leccion["bytes_del_estado"](estado)) == vram.bytes_nf4(n, doble)


def test_calculadora_qlora_de_la_seccion_12():
    llama2 = dict(model_type="llama", hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
                  num_attention_heads=32, num_key_value_heads=32, vocab_size=32000, tie_word_embeddings=False)
    completo = vram.estimar_memoria(llama2, metodo="completo", precision="mixta")
    qlora = vram.estimar_memoria(llama2, metodo="qlora", precision="mixta", r=16, modulos="all-linear",
                                 preparar_kbit=True)
    assert qlora.parametros == completo.parametros == 6_738_415_616
    assert qlora.parametros_entrenables == 39_976_960  # r=16 en las 7 lineales de 32 capas
    assert qlora.estatica_bytes * 10 < completo.estatica_bytes


# --------------------------------------------------------------------------
# Optimizador paginado (sección 10)
# --------------------------------------------------------------------------


@pytest.mark.skipif(torch.cuda.is_available(), reason="comprueba el comportamiento en CPU")
def test_en_cpu_el_optimizador_paginado_no_pagina(leccion):
    paginado, dtype_estado, mensajes = leccion["probar_optimizador_paginado"]("cpu")
    assert paginado is False
    assert dtype_estado == torch.uint8  # la parte de 8 bits sí funciona en CPU en bitsandbytes 0.50
    assert any("not supported on CPU" in m for m in mensajes)


# --------------------------------------------------------------------------
# El notebook completo, una vez
# --------------------------------------------------------------------------


@pytest.mark.cuaderno
@pytest.mark.lento
def test_leccion_11_cifras_clave():
    from cuadernos import ejecutar_cuaderno, textos_de_salida

    nb, segundos = ejecutar_cuaderno(LECCION)
    texto = textos_de_salida(nb)
    # El tiempo no se afirma aquí (depende de la máquina): su meta vive en benchmarks/b_lecciones.py.
    assert "Modo: rápido" in texto

    # Sección 2: tabla NF4 igual a la de bitsandbytes
    diferencia = float(re.search(r"Diferencia máxima entre las dos tablas: ([0-9.e+-]+)", texto).group(1))
    assert diferencia < 1e-6
    assert "Niveles negativos: 7, ceros: 1, positivos: 8" in texto

    # Sección 4: NF4 por bloques gana a int4 por bloques y a un solo absmax (error medio)
    errores = {
        nombre: float(valor)
        for nombre, valor in re.findall(r"^((?:NF4|int4), [^\n]+?)\s{2,}([0-9.]+)\s", texto, flags=re.M)
    }
    assert errores["NF4, bloques de 64"] < errores["int4, bloques de 64"]
    assert errores["NF4, bloques de 64"] * 2 < errores["NF4, un absmax"]
    entropias = [float(x) for x in re.findall(r"Entropía de los códigos \w+:\s+([0-9.]+) bits", texto)]
    assert len(entropias) == 2 and entropias[0] > entropias[1]

    # Secciones 5 y 6: bits por parámetro y bitsandbytes igual a la versión a mano
    assert "= 4.5000 bits por parámetro" in texto and "= 4.1270 bits por parámetro" in texto
    assert "Códigos iguales a los tuyos: 100.0000 %" in texto
    assert "absmax iguales: True" in texto

    # Secciones 7 y 8: forma moderna, capas de 4 bits y calculadora = medición
    assert "Forma antigua → TypeError" in texto
    assert "¿Cargado en 4 bits? True" in texto
    assert "Capas de 4 bits protegidas contra el reacomodo de CPU: 14" in texto  # justo al cargar
    assert re.search(r"^Linear4bit\s+uint8\s+14\s", texto, flags=re.M)
    constantes = re.search(rf"calculadora de tutor_lib: ({ENTERO}) B; medidas: ({ENTERO}) B", texto)
    assert constantes and constantes.group(1) == constantes.group(2)
    _, modelo_fp32 = recursos.cargar_causal(modo="rapido")
    parametros = recursos.contar_parametros(modelo_fp32)
    assert f"Parámetros: {entero(parametros)};" in texto
    assert re.search(rf"^fp32\s+{entero(4 * parametros)}\s+100\.0 %", texto, flags=re.M)

    # Sección 9: prepare_model_for_kbit_training pasa a fp32 lo no cuantizado
    assert re.search(r"Después: \{'float32': \d+, 'uint8': 14\}", texto)
    assert "peft: 18 688 entrenables de" in texto  # r=8 en las 14 capas lineales del Llama de juguete

    # Sección 11, la trampa del reacomodo, medida en el notebook con dos copias del juguete
    avx, gpu = re.search(r"¿CPU con AVX512-BF16\? (sí|no); ¿GPU\? (sí|no)", texto).groups()
    assert avx == ("sí" if bnbF.has_avx512bf16() else "no")
    filas = {
        nombre: tuple(int(x) for x in cifras)
        for nombre, *cifras in re.findall(
            r"^(sin protección|con evitar_reempaquetado)\s+(\d+) de (\d+)\s+(\d+) de (\d+)\s+(\d+) de (\d+)$",
            texto, flags=re.M,
        )
    }
    assert set(filas) == {"sin protección", "con evitar_reempaquetado"}
    for antes, total, _, capas, _, total_despues in filas.values():
        assert (antes, total, capas, total_despues) == (14, 14, 14, 14)  # r=8 en las 14 lineales del juguete
    _, _, reacomodadas_con, _, despues_con, _ = filas["con evitar_reempaquetado"]
    assert (reacomodadas_con, despues_con) == (0, 14)
    _, _, reacomodadas_sin, _, despues_sin, _ = filas["sin protección"]
    if avx == "sí" and gpu == "no":
        # las 8 de atención se reacomodan; o_proj corta el gradiente de q, k y v en las 2 capas
        assert (reacomodadas_sin, despues_sin) == (8, 8)
        assert "La trampa es real en esta máquina" in texto and "sin gradiente a 6 de 14 adaptadores (42.9 %)" in texto
    else:
        assert (reacomodadas_sin, despues_sin) == (0, 14)
        assert "Esta máquina no reacomoda los pesos" in texto

    # Sección 10 y 11: en CPU se detecta y se dice qué se omite; el entrenamiento corre de verdad
    assert "OMITIDO: paged_adamw_8bit" in texto
    perdidas = [float(p) for p in re.findall(r"^\s+\d+\s+([0-9.]+)\s+[0-9.]+e[+-]\d+$", texto, flags=re.M)]
    assert len(perdidas) == 6 and all(math.isfinite(p) for p in perdidas)
    antes, despues = map(float, re.search(r"Pérdida de validación: antes ([0-9.]+), después ([0-9.]+)", texto).groups())
    assert despues < antes
    assert "¿Códigos de 4 bits de la base sin cambios? True" in texto
    assert "lora_B que dejaron de valer cero: 14 de 14" in texto  # el gradiente llegó a todos los adaptadores

    # Sección 12: tabla de la calculadora
    assert re.search(r"^Llama-2-7B\s+6 738 415 616\s", texto, flags=re.M)
    assert re.search(r"^Llama-3-70B\s+70 553 706 496\s.*\bno\s+sí$", texto, flags=re.M)
