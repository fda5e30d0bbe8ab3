"""En la terminal de JupyterLab, ``python``, ``pip``, ``jupyter`` y ``tutor`` son los del curso (issue 43, punto 13).

Un ``~/.bashrc`` con pyenv o conda pone sus carpetas delante del PATH al abrir cada terminal. Las pruebas
toman la orden exacta que ``tutor curso`` le da a JupyterLab (``ServerApp.terminado_settings``), la corren con
un HOME falso cuyo ``.bashrc`` pone primero una carpeta con un ``python`` falso, y le escriben por la entrada
estándar lo que escribiría quien estudia. La prueba de JupyterLab de verdad (terminal abierta por su API) está
en ``tests/test_curso_inicio.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tutor_lib.comandos.curso import preparar_arranque
from tutor_lib.terminal import orden_de_la_terminal

RAIZ = Path(__file__).resolve().parents[1]
BINARIOS = Path(sys.executable).parent
ORDENES = ("python", "pip", "jupyter", "tutor")
#: Dónde encuentra el shell cada orden (dash acepta un solo nombre por ``command -v``).
BUSCAR = "for orden in " + " ".join(ORDENES) + '; do command -v "$orden"; done'

pytestmark = pytest.mark.skipif(os.name == "nt" or shutil.which("bash") is None, reason="necesita bash (POSIX)")


@pytest.fixture
def casa(tmp_path):
    """Un HOME cuyo .bashrc pone delante una carpeta con python, pip y jupyter falsos (como pyenv)."""
    casa = tmp_path / "casa"
    falsos = casa / "falsos"
    falsos.mkdir(parents=True)
    for nombre in ORDENES[:3]:
        guion = falsos / nombre
        guion.write_text("#!/bin/sh\necho FALSO\n")
        guion.chmod(0o755)
    (casa / ".bashrc").write_text('export PATH="$HOME/falsos:$PATH"\nexport MARCA_BASHRC=leido\n')
    return casa


def _orden_configurada(tmp_path, monkeypatch, shell: str) -> list[str]:
    """La orden de la terminal tal como ``tutor curso`` la pasa a JupyterLab (el JSON de su argumento)."""
    monkeypatch.setenv("SHELL", shell)
    arranque = preparar_arranque(tmp_path, token="t", privada=tmp_path / "privada")
    prefijo = "--ServerApp.terminado_settings=shell_command="
    argumento = next(a for a in arranque.comando if a.startswith(prefijo))
    return json.loads(argumento[len(prefijo):])


def _escribir_en_la_terminal(orden: list[str], casa: Path, texto: str) -> str:
    """Corre ``orden`` como lo haría JupyterLab (con HOME y un PATH de sistema) y le escribe ``texto``."""
    entorno = {"HOME": str(casa), "PATH": "/usr/bin:/bin", "TERM": "dumb", "LANG": "C.UTF-8"}
    r = subprocess.run(orden, input=texto + "\nexit\n", capture_output=True, text=True, timeout=60, env=entorno)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


def _rutas(salida: str) -> dict[str, str]:
    return {Path(linea).name: linea for linea in salida.split() if linea.startswith("/")}


def test_con_bash_las_ordenes_son_las_del_curso_aunque_el_bashrc_ponga_otras(tmp_path, monkeypatch, casa):
    orden = _orden_configurada(tmp_path, monkeypatch, shutil.which("bash"))
    assert orden[:2] == [shutil.which("bash"), "-l"] and "--rcfile" in orden[3], orden
    salida = _escribir_en_la_terminal(
        orden, casa, BUSCAR + '; echo "MARCA=$MARCA_BASHRC VENV=$VIRTUAL_ENV"')
    rutas = _rutas(salida)
    for nombre in ORDENES:
        assert rutas.get(nombre) == str(BINARIOS / nombre), salida
    assert "MARCA=leido" in salida, "el .bashrc de quien estudia se lee igual"
    if sys.prefix != sys.base_prefix:
        assert f"VENV={sys.prefix}" in salida, salida
    # y python responde de verdad: es el del curso, con tutor_lib
    salida = _escribir_en_la_terminal(orden, casa, 'python -c "import sys, tutor_lib; print(sys.prefix)"')
    assert sys.prefix in salida.split(), salida


def test_sin_el_archivo_de_arranque_gana_el_bashrc(casa):
    """La prueba de arriba puede fallar: sin ``--rcfile`` (la orden de antes), el python es el falso."""
    orden = orden_de_la_terminal(None, {"SHELL": shutil.which("bash")})
    assert "--rcfile" not in orden[3]
    rutas = _rutas(_escribir_en_la_terminal(orden, casa, "command -v python tutor"))
    assert rutas["python"] == str(casa / "falsos" / "python")
    assert rutas["tutor"] == str(BINARIOS / "tutor")


def test_el_archivo_de_arranque_se_escribe_en_la_carpeta_privada(tmp_path, monkeypatch):
    orden = _orden_configurada(tmp_path, monkeypatch, shutil.which("bash"))
    rcfile = tmp_path / "privada" / "bashrc"
    assert str(rcfile) in orden[3]
    assert oct(rcfile.stat().st_mode & 0o777) == oct(0o600)
    texto = rcfile.read_text()
    # primero el .bashrc de quien estudia, después el PATH del curso
    assert texto.index('. "$HOME/.bashrc"') < texto.index(f"PATH={BINARIOS}")


@pytest.mark.parametrize("shell", ["/usr/bin/fish", "/no/existe/bash", ""])
def test_un_shell_que_no_entiende_la_orden_recibe_bash(tmp_path, monkeypatch, casa, shell):
    """fish o un $SHELL que no existe: la terminal usa bash, con el archivo de arranque del curso."""
    orden = _orden_configurada(tmp_path, monkeypatch, shell)
    assert orden[0] == shutil.which("bash") and "--rcfile" in orden[3], orden
    rutas = _rutas(_escribir_en_la_terminal(orden, casa, "command -v python"))
    assert rutas["python"] == str(BINARIOS / "python")


@pytest.mark.skipif(shutil.which("dash") is None, reason="sin dash")
def test_con_otro_shell_posix_se_conserva_y_tiene_el_path_del_curso(tmp_path, monkeypatch, casa):
    """Con dash (o zsh, ksh) se respeta el shell; el PATH del curso se repone tras el perfil de sesión."""
    dash = shutil.which("dash")
    orden = _orden_configurada(tmp_path, monkeypatch, dash)
    assert orden[0] == dash and "--rcfile" not in orden[3], orden
    rutas = _rutas(_escribir_en_la_terminal(orden, casa, BUSCAR))
    for nombre in ORDENES:
        assert rutas.get(nombre) == str(BINARIOS / nombre), rutas
