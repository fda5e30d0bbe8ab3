"""La orden del README para abrir el curso levanta JupyterLab y responde en loopback."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

RAIZ = Path(__file__).resolve().parents[1]


def _puerto_libre() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.skipif(shutil.which("make") is None, reason="make no está instalado")
def test_make_curso_servidor_sirve_las_lecciones():
    puerto, token = _puerto_libre(), secrets.token_hex(16)
    proceso = subprocess.Popen(
        ["make", "curso-servidor", f"PUERTO={puerto}", f"TOKEN={token}"],
        cwd=RAIZ,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env={**os.environ, "JUPYTER_RUNTIME_DIR": str(Path(os.environ.get("TMPDIR", "/tmp")) / f"jr-{puerto}")},
    )
    base = f"http://127.0.0.1:{puerto}"
    try:
        limite = time.monotonic() + 120
        estado = None
        while time.monotonic() < limite:
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2) as r:
                    estado = json.load(r)
                    break
            except OSError:
                if proceso.poll() is not None:
                    pytest.fail("JupyterLab terminó antes de responder:\n" + proceso.stdout.read().decode())
                time.sleep(0.5)
        assert estado is not None, "JupyterLab no respondió en 120 s"
        with urllib.request.urlopen(f"{base}/api/contents/lessons?token={token}", timeout=5) as r:
            nombres = {c["name"] for c in json.load(r)["content"]}
        assert "00_bienvenida.ipynb" in nombres
        # lo servido es la carpeta de trabajo (ignorada por git), no el repositorio
        with urllib.request.urlopen(f"{base}/api/contents?token={token}", timeout=5) as r:
            raiz_servida = {c["name"] for c in json.load(r)["content"]}
        assert {"lessons", "exercises"} <= raiz_servida and "solutions" not in raiz_servida, raiz_servida
        assert (RAIZ / "trabajo" / "lessons" / "00_bienvenida.ipynb").is_file()
        with urllib.request.urlopen(f"{base}/lab?token={token}", timeout=10) as r:
            assert r.status == 200 and b"JupyterLab" in r.read()
        # sin token, la API no deja entrar
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(f"{base}/api/contents/lessons", timeout=5)
        # la raíz lleva a la lección 0 también en modo servidor
        with urllib.request.urlopen(f"{base}/?token={token}", timeout=10) as r:
            assert r.url.endswith("/lab/tree/lessons/00_bienvenida.ipynb") or "00_bienvenida" in r.url, r.url
    finally:
        if proceso.poll() is None:
            os.killpg(proceso.pid, signal.SIGTERM)
            try:
                proceso.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proceso.pid, signal.SIGKILL)
    salida = proceso.stdout.read().decode()
    assert f"El curso se sirve en http://localhost:{puerto}/lab?token={token}" in salida, salida[-2000:]
    assert "Ctrl+C" in salida
    assert f"Tu carpeta de trabajo: {RAIZ / 'trabajo'}" in salida, salida[-2000:]


def test_la_terminal_de_jupyterlab_encuentra_tutor_sin_activar_el_entorno():
    """JupyterLab hereda un PATH con la carpeta del Python del curso primero (ahí pip instala ``tutor``)."""
    import sys

    from tutor_lib.comandos.curso import entorno_de_jupyter

    binarios = str(Path(sys.executable).parent)
    assert (Path(binarios) / "tutor").exists(), "pip instala el comando tutor junto al Python del curso"
    entorno = entorno_de_jupyter(RAIZ, {"PATH": f"/usr/bin:{binarios}:/bin", "OTRA": "1"})
    assert entorno["PATH"].split(os.pathsep) == [binarios, "/usr/bin", "/bin"]
    assert entorno["OTRA"] == "1" and entorno["TUTOR_RAIZ"] == str(RAIZ)
    # el comando que encontraría la terminal es el del curso, y responde
    encontrado = shutil.which("tutor", path=entorno["PATH"])
    assert encontrado == str(Path(binarios) / "tutor")
    ayuda = subprocess.run([encontrado, "--help"], capture_output=True, text=True, timeout=60)
    assert ayuda.returncode == 0 and "corregir" in ayuda.stdout


def test_el_shell_de_la_terminal_repone_el_path_tras_el_profile(monkeypatch):
    """Un shell de sesión lee /etc/profile (que en Debian reescribe el PATH) y luego recupera bin/ del curso."""
    import sys

    from tutor_lib.comandos.curso import orden_de_la_terminal

    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("sin bash")
    monkeypatch.setenv("SHELL", "/usr/bin/fish")  # sintaxis distinta: se usa bash
    orden = orden_de_la_terminal()
    assert orden[0] == bash and orden[1] == "-l"
    # el mismo -c que correría JupyterLab, con un PATH mínimo como el que deja /etc/profile
    script = orden[3].replace(f"exec {bash} -i", "command -v tutor")
    hallado = subprocess.run([bash, "-c", script], capture_output=True, text=True, timeout=30,
                             env={"PATH": "/usr/bin:/bin"})
    assert hallado.stdout.strip() == str(Path(sys.executable).parent / "tutor"), hallado


def test_interfaces_de_estudiante_y_de_profesor(tmp_path):
    """Opciones de JupyterLab de cada interfaz; la del profesor sin course/nbgrader_config.py avisa en español."""
    import json
    import sys

    from tutor_lib.comandos.curso import EXTENSIONES_NBGRADER, argumentos_de_interfaz

    estudiante, profesor = argumentos_de_interfaz(False), argumentos_de_interfaz(True)
    for argumentos in (estudiante, profesor):
        assert "--LabApp.extension_manager=readonly" in argumentos  # nada de consultar PyPI desde la interfaz
        ajustes = Path(next(a for a in argumentos if a.startswith("--LabApp.app_settings_dir=")).split("=", 1)[1])
        avisos = json.loads((ajustes / "overrides.json").read_text())["@jupyterlab/apputils-extension:notification"]
        assert avisos == {"fetchNews": "false", "checkForUpdates": False}
    # cerrar la pestaña de una lección apaga su kernel (issue 43, punto 19: los kernels inactivos se suman)
    ajustes_estudiante = Path(next(a for a in estudiante if a.startswith("--LabApp.app_settings_dir=")).split("=", 1)[1])
    rastreador = json.loads((ajustes_estudiante / "overrides.json").read_text())["@jupyterlab/notebook-extension:tracker"]
    assert rastreador == {"kernelShutdown": True}
    pagina = json.loads((Path(estudiante[0].split("=", 1)[1]) / "page_config.json").read_text())
    assert pagina["disabledExtensions"] == {"@jupyter/nbgrader": True}
    assert not (Path(profesor[0].split("=", 1)[1]) / "page_config.json").exists()
    assert all(f"--ServerApp.jpserver_extensions={e}=False" in estudiante for e in EXTENSIONES_NBGRADER)
    assert not any("jpserver_extensions" in a for a in profesor)

    r = subprocess.run([sys.executable, "-m", "tutor_lib", "curso", "--profesor", "--sin-navegador",
                        "--carpeta", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "necesita la configuración de nbgrader del curso" in r.stderr, r.stderr
