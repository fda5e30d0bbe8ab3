"""Quien estudia no ve la interfaz de instructor de nbgrader; el instructor sí, con formgrader.

``make curso`` (``tutor curso``) abre la interfaz de estudiante: sin menú *Nbgrader*, sin botón
*Validate* (abría un diálogo en inglés con trazas de error) y sin la pestaña *Create Assignment*,
y sin las extensiones de servidor de nbgrader. ``make curso-profesor`` (``tutor curso --profesor``)
abre la completa, con formgrader y ``course/nbgrader_config.py``. La misma prueba mira las dos, así
que la ausencia de esos controles en la de estudiante no puede deberse a un selector roto.
"""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from _jupyterlab import abrir_cuaderno
from conftest import EJERCICIO

pytestmark = [pytest.mark.navegador, pytest.mark.lento]

RUTA = f"exercises/{EJERCICIO}/{EJERCICIO}.ipynb"


def _controles_de_nbgrader(pagina, panel) -> dict[str, int]:
    pagina.locator(".lm-MenuBar-itemLabel", has_text="File").first.wait_for(state="visible")
    pagina.wait_for_timeout(2000)  # las extensiones terminan de añadir sus controles
    return {
        "menú Nbgrader": pagina.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").count(),
        "botón Validate": panel.locator(".jp-Toolbar", has_text="Validate").count(),
        "Create Assignment": pagina.locator(".lm-TabBar-tab", has_text="Create Assignment").count(),
    }


def _codigo_http(servidor, ruta: str) -> int:
    try:
        with urllib.request.urlopen(f"{servidor.url}{ruta}?token={servidor.token}", timeout=30) as r:
            return r.status
    except urllib.error.HTTPError as error:
        return error.code


def test_estudiante_sin_interfaz_de_instructor(pagina, servidor_jupyter):
    panel = abrir_cuaderno(pagina, servidor_jupyter, RUTA)
    controles = _controles_de_nbgrader(pagina, panel)
    assert controles == {"menú Nbgrader": 0, "botón Validate": 0, "Create Assignment": 0}, controles
    assert _codigo_http(servidor_jupyter, "/formgrader") == 404
    registro = servidor_jupyter.registro.read_text(encoding="utf-8", errors="replace")
    assert "nbgrader" not in registro.lower(), [l for l in registro.splitlines() if "nbgrader" in l.lower()]


def test_profesor_con_nbgrader_y_formgrader(pagina, servidor_profesor):
    panel = abrir_cuaderno(pagina, servidor_profesor, RUTA)
    controles = _controles_de_nbgrader(pagina, panel)
    assert all(controles.values()), controles
    assert _codigo_http(servidor_profesor, "/formgrader") == 200
    # formgrader encontró la configuración del curso (si no, su página lo avisa)
    with urllib.request.urlopen(f"{servidor_profesor.url}/formgrader/api/assignments?token="
                                f"{servidor_profesor.token}", timeout=30) as r:
        assert r.status == 200
