"""La lección 04 real (una copia) con «Run All» en JupyterLab: corre entera y sus dos widgets responden."""

from __future__ import annotations

import re

import pytest

from _jupyterlab import (abrir_cuaderno, cifras, errores_en_salidas, escribir_lectura, esperar_ejecucion,
                         esperar_igual, ejecutar_todo, hallazgos)
from tutor_lib import configurador, warmup

pytestmark = [pytest.mark.navegador, pytest.mark.lento]


def test_leccion_04_run_all(pagina, servidor_jupyter):
    panel = abrir_cuaderno(pagina, servidor_jupyter, "lessons/04_warmup_y_regularizacion.ipynb")
    ejecutar_todo(pagina, panel)
    esperar_ejecucion(pagina, panel)
    assert errores_en_salidas(panel) == []
    assert panel.locator(".jp-OutputArea-output", has_text="Modo: rápido").count() >= 1

    # widget de warmup de la lección: 1000 ejemplos, lote 16, 3 épocas, warmup 0.06
    texto = panel.locator(".widget-html-content", has_text=re.compile(r"^Pasos totales:"))
    total = warmup.pasos_totales(1000, 16, 3)
    texto.scroll_into_view_if_needed()  # JupyterLab no pinta las celdas fuera de la vista (innerText vacío)
    esperar_igual(lambda: texto.text_content().strip(), warmup.resumen_warmup(2e-5, total, 0.06, "linear", 0),
                  "texto inicial del widget de warmup")
    escribir_lectura(panel, "Paso a consultar", "100")
    esperar_igual(lambda: texto.text_content().strip(), warmup.resumen_warmup(2e-5, total, 0.06, "linear", 100),
                  "texto tras consultar el paso 100")

    # configurador de la lección, con sus valores por defecto
    revision = configurador.revisar_configuracion(configurador.Configuracion(
        metodo="completo", parametros=configurador.MODELOS["distilbert"][1], tarea="clasificacion",
        ejemplos=3668, lr=2e-5, lote=16, epocas=3.0, warmup=0.06, weight_decay=0.01, gpu="T4",
        logging_steps=500))
    assert hallazgos(panel) == [(h.nivel, h.parametro) for h in revision.hallazgos]
    assert cifras(panel)["pasos_totales"] == str(revision.pasos_totales)
    panel.locator("svg.tutor-schedule").scroll_into_view_if_needed()
