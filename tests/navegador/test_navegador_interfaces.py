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
    pagina.locator(".lm-MenuBar-itemLabel", has_text="Archivo").first.wait_for(state="visible")
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
    # JupyterLab en español (jupyterlab-language-pack-es-ES, elegido en tutor_lib/datos/jupyter/*/overrides.json)
    menus = pagina.locator(".lm-MenuBar-itemLabel").all_inner_texts()
    assert {"Archivo", "Editar", "Ver", "Ayuda"} <= set(menus), menus
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


def test_estudiante_trabaja_en_su_carpeta_de_trabajo(servidor_jupyter):
    """``tutor curso`` sirve la carpeta de trabajo: copias de lecciones y ejercicios, nada más del repositorio."""
    from conftest import RAIZ

    nombres = {c["name"] for c in servidor_jupyter.api("/api/contents")["content"]}
    assert {"lessons", "exercises"} <= nombres, nombres
    assert not nombres & {"solutions", "tutor_lib", "course", "tests", ".git"}, nombres
    lecciones = {c["name"] for c in servidor_jupyter.api("/api/contents/lessons")["content"]}
    assert lecciones >= {p.name for p in (RAIZ / "lessons").glob("[0-9][0-9]_*.ipynb")}, lecciones
    # el ejercicio resuelto que ya estaba en la carpeta (el trabajo del estudiante) no se pisó con la versión en blanco
    suyo = (servidor_jupyter.carpeta / RUTA).read_bytes()
    assert suyo != (RAIZ / RUTA).read_bytes()
    registro = servidor_jupyter.registro.read_text(encoding="utf-8", errors="replace")
    assert f"Tu carpeta de trabajo: {servidor_jupyter.carpeta.resolve()}" in registro, registro[:2000]
    n_lecciones = len(list((RAIZ / "lessons").glob("[0-9][0-9]_*.ipynb")))
    n_ejercicios = len(list((RAIZ / "exercises").glob("ej*/ej*.ipynb"))) - 1  # el resuelto ya estaba
    assert f"Copié {n_lecciones} lecciones y {n_ejercicios} ejercicios del curso." in registro, registro[:2000]
