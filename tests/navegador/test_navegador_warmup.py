"""El widget de warmup en JupyterLab real: mover deslizadores cambia el texto y la gráfica.

Los valores esperados salen de las funciones puras de :mod:`tutor_lib.warmup`
con las mismas entradas que se eligen con el teclado y el ratón.
"""

from __future__ import annotations

import sys
from pathlib import Path

import re

import pytest

from _jupyterlab import (abrir_cuaderno, entorno_del_kernel, escribir_lectura, esperar_ejecucion,
                         esperar_igual, ejecutar_todo, lectura, mover_con_teclado)
from tutor_lib import warmup

pytestmark = pytest.mark.navegador

RAIZ = Path(__file__).resolve().parents[2]


def test_widget_warmup_responde_a_deslizadores(pagina, servidor_jupyter):
    panel = abrir_cuaderno(pagina, servidor_jupyter, "warmup_minimo.ipynb")
    ejecutar_todo(pagina, panel)
    esperar_ejecucion(pagina, panel)

    # El kernel del servidor es el del venv, en modo rápido y sin red (hereda el entorno de las pruebas).
    entorno = entorno_del_kernel(panel)
    assert Path(entorno["python"]).resolve().parent == Path(sys.executable).resolve().parent, entorno
    assert entorno["modo"] == "rapido" and entorno["hf_offline"] == "1" and entorno["bloquear_red"] == "1", entorno
    assert entorno["sitecustomize"] and Path(entorno["sitecustomize"]).parent == RAIZ / "tests" / "red", entorno

    texto = panel.locator(".widget-html-content", has_text=re.compile(r"^Pasos totales:"))
    imagen = panel.locator(".widget-image")
    imagen.wait_for(state="visible")
    total = warmup.pasos_totales(1000, 16, 3)  # 189
    esperar_igual(lambda: texto.inner_text().strip(), warmup.resumen_warmup(2e-5, total, 0.06, "linear", 0),
                  "texto inicial")
    src_antes, pixeles_antes = imagen.get_attribute("src"), imagen.screenshot()

    # 1) warmup con el teclado: cuatro pasos de 0.01 a la derecha (0.06 → 0.10)
    mover_con_teclado(panel, "Warmup (fracción)", "ArrowRight", 4)
    esperar_igual(lambda: lectura(panel, "Warmup (fracción)"), "0.10", "lectura del warmup")
    esperado = warmup.resumen_warmup(2e-5, total, 0.10, "linear", 0)
    assert "pasos de warmup: 19" in esperado  # ceil(189 × 0.10)
    esperar_igual(lambda: texto.inner_text().strip(), esperado, "texto tras mover el warmup")
    esperar_igual(lambda: imagen.get_attribute("src") != src_antes, True, "la imagen de la gráfica cambió")
    assert imagen.screenshot() != pixeles_antes, "la gráfica se ve igual que antes de mover el warmup"

    # 2) tasa de aprendizaje con el teclado (2e-5 → 3e-5 → 5e-5 → 1e-4) y paso escrito en su lectura
    mover_con_teclado(panel, "Tasa de aprendizaje", "ArrowRight", 3)
    escribir_lectura(panel, "Paso a consultar", "15")
    esperado = warmup.resumen_warmup(1e-4, total, 0.10, "linear", 15)
    assert "tasa en el paso 15: 7.895e-5" in esperado  # 1e-4 × 15/19
    esperar_igual(lambda: texto.inner_text().strip(), esperado, "texto tras cambiar lr y paso")
    assert lectura(panel, "Tasa de aprendizaje") == "1.0e-4"
    imagen.scroll_into_view_if_needed()  # para la captura final: texto y gráfica a la vista
