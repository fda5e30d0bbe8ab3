"""La terminal de JupyterLab del curso: ``tutor corregir`` funciona como lo dicen los ejercicios.

Cada ejercicio termina con «desde una terminal: ``tutor corregir exercises/<ej>/<ej>.ipynb``». La
terminal de JupyterLab abre en la carpeta de trabajo y hereda el entorno del servidor, que aquí, como
tras ``make curso``, no tiene el entorno virtual activado: solo ``tutor curso`` pone su carpeta
``bin/`` primero en el PATH. La prueba abre una terminal desde el lanzador, escribe la orden con el
teclado y lee lo que imprimió (``tee`` lo copia a un archivo de la carpeta de trabajo).
"""

from __future__ import annotations

import re
import time

import pytest

from conftest import EJERCICIO

pytestmark = [pytest.mark.navegador, pytest.mark.lento]

#: Segundos para calificar el ejercicio resuelto con nbgrader (en 2 núcleos, unos 30).
ESPERA_CORREGIR = 300


def test_tutor_corregir_desde_la_terminal_de_jupyterlab(pagina, servidor_jupyter):
    salida = servidor_jupyter.carpeta / "corregir_terminal.txt"
    salida.unlink(missing_ok=True)
    pagina.goto(f"{servidor_jupyter.url}/lab?token={servidor_jupyter.token}&reset")
    pagina.locator(".jp-LauncherCard", has_text="Terminal").first.click()
    terminal = pagina.locator(".jp-Terminal").first
    terminal.wait_for(state="visible")
    terminal.locator(".xterm").first.wait_for(state="visible")
    pagina.wait_for_timeout(1500)  # que el shell muestre su prompt
    terminal.click()
    orden = f"(tutor corregir exercises/{EJERCICIO}/{EJERCICIO}.ipynb; echo FIN=$?) 2>&1 | tee {salida.name}"
    pagina.keyboard.type(orden)
    pagina.keyboard.press("Enter")

    limite = time.monotonic() + ESPERA_CORREGIR
    texto = ""
    while time.monotonic() < limite:
        texto = salida.read_text(encoding="utf-8", errors="replace") if salida.exists() else ""
        if "FIN=" in texto:
            break
        time.sleep(1)
    assert "FIN=" in texto, f"la orden no terminó en {ESPERA_CORREGIR} s; salida hasta ahora:\n{texto[-2000:]}"
    assert "not found" not in texto and "no se encontró" not in texto, texto[-2000:]
    assert "FIN=0" in texto, texto[-3000:]
    assert f"Asignación {EJERCICIO}" in texto, texto[-3000:]
    assert "Todo lo que se califica solo está bien" in texto, texto[-3000:]
    assert re.search(r"\d+ de \d+ puntos", texto), texto[-3000:]
    pagina.wait_for_timeout(1000)  # la captura final muestra el informe en la terminal
