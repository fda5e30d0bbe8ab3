"""Un ejercicio resuelto en JupyterLab: «Run All» y la última celda lo califica con nbgrader.

Es lo que hace quien estudia sin instructor: resuelve, guarda y ejecuta
``autoevaluacion.revisar(...)``, que encuentra el notebook por la sesión de
JupyterLab y lo califica con las mismas pruebas (ocultas incluidas).
"""

from __future__ import annotations

import re

import pytest

from _jupyterlab import abrir_cuaderno, ejecutar_todo, esperar_ejecucion
from conftest import EJERCICIO

pytestmark = [pytest.mark.navegador, pytest.mark.lento]


def test_ejercicio_resuelto_se_califica_desde_jupyterlab(pagina, servidor_jupyter):
    panel = abrir_cuaderno(pagina, servidor_jupyter, f"exercises/{EJERCICIO}/{EJERCICIO}.ipynb")
    ejecutar_todo(pagina, panel)
    esperar_ejecucion(pagina, panel)
    informe = panel.locator(".jp-OutputArea-output", has_text=f"Asignación {EJERCICIO}")
    informe.scroll_into_view_if_needed()
    texto = informe.inner_text()
    assert "Todo lo que se califica solo está bien" in texto, texto
    assert "✘" not in texto and len(re.findall("✔", texto)) >= 3, texto
    assert re.search(r"\d+ de \d+ puntos", texto), texto
    salida_de_la_celda = panel.locator(".jp-CodeCell").last.locator(".jp-OutputArea").inner_text()
    assert "Asignación" in salida_de_la_celda  # es la celda de revisión
    assert "Calificacion(" not in salida_de_la_celda, salida_de_la_celda  # solo el informe, sin el objeto crudo
