"""Cómo arranca ``tutor curso`` (issue 43, puntos 13, 16, 17 y 19).

* 16: la dirección que imprime en español es la que funciona, con su token, y es la única vez que el token
  completo aparece en la consola.
* 17: los kernels que arranca el curso (JupyterLab de ``tutor curso`` y el ejecutor de ``make test`` y
  ``make sitio``, ``sitio.cache.cliente_rapido``) no avisan en inglés «Kernel is running over TCP without
  encryption».
* 19: la interfaz de estudiante apaga los kernels inactivos y lo dice al arrancar.
* 13, con JupyterLab de verdad: una terminal abierta por su API encuentra el python del curso.

Las primeras pruebas miran la orden que se construye, sin arrancar nada; la última arranca ``tutor curso``
con un HOME falso, le habla por HTTP y WebSocket como el navegador y lo cierra con Ctrl+C.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

from tutor_lib.comandos import curso

RAIZ = Path(__file__).resolve().parents[1]
BINARIOS = Path(sys.executable).parent
AVISO_TCP = "without encryption"


def _arranque(tmp_path, **opciones):
    opciones.setdefault("token", "ficha123")
    return curso.preparar_arranque(tmp_path, privada=tmp_path / "privada", **opciones)


def _opcion(comando: list[str], nombre: str) -> str | None:
    prefijo = f"--{nombre}="
    return next((a[len(prefijo):] for a in comando if a.startswith(prefijo)), None)


# --------------------------------------------------------------------------
# 16: la dirección con su token
# --------------------------------------------------------------------------


def test_la_direccion_impresa_lleva_el_token_que_recibe_jupyterlab(tmp_path):
    arranque = _arranque(tmp_path, puerto=8931, sin_navegador=True)
    assert arranque.url == "http://localhost:8931/lab?token=ficha123"
    assert arranque.mensaje.count(arranque.url) == 1 and "Ctrl+C" in arranque.mensaje
    # JupyterLab lee el token de un archivo privado (JUPYTER_TOKEN_FILE), no de la lista de procesos
    archivo = Path(arranque.entorno["JUPYTER_TOKEN_FILE"])
    assert archivo.read_text() == "ficha123" and archivo.stat().st_mode & 0o077 == 0
    assert "JUPYTER_TOKEN" not in arranque.entorno
    assert not any("ficha123" in argumento for argumento in arranque.comando), arranque.comando
    assert _opcion(arranque.comando, "ServerApp.port") == "8931"


def test_sin_token_se_genera_uno_nuevo_cada_vez():
    primero, segundo = curso.elegir_token(None, {}), curso.elegir_token(None, {})
    assert re.fullmatch(r"[0-9a-f]{48}", primero) and primero != segundo
    assert curso.elegir_token(None, {"JUPYTER_TOKEN": "delentorno"}) == "delentorno"
    assert curso.elegir_token("mio", {"JUPYTER_TOKEN": "delentorno"}) == "mio"


@pytest.mark.parametrize("token", ["", "   ", "con espacio"])
def test_un_token_vacio_o_con_espacios_es_un_error_en_espanol(token):
    r = subprocess.run([sys.executable, "-m", "tutor_lib", "curso", "--sin-navegador", "--carpeta", str(RAIZ),
                        "--token", token], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "token" in r.stderr and ("vacío" in r.stderr or "espacios" in r.stderr), r.stderr


@pytest.mark.parametrize("ip, esperada", [
    ("127.0.0.1", "http://localhost:8888/lab?token=t"),
    ("0.0.0.0", "http://<dirección-de-esta-máquina>:8888/lab?token=t"),
    ("::1", "http://[::1]:8888/lab?token=t"),
    ("192.168.0.7", "http://192.168.0.7:8888/lab?token=t"),
])
def test_direccion_segun_la_ip(ip, esperada):
    assert curso.direccion(ip, 8888, "t") == esperada


def test_con_navegador_el_mensaje_tambien_trae_la_direccion(tmp_path):
    arranque = _arranque(tmp_path, sin_navegador=False)
    assert "--no-browser" not in arranque.comando
    assert arranque.url in arranque.mensaje and "navegador" in arranque.mensaje


# --------------------------------------------------------------------------
# 19: apagar kernels inactivos (interfaz de estudiante)
# --------------------------------------------------------------------------


def test_la_interfaz_de_estudiante_apaga_los_kernels_inactivos(tmp_path):
    from jupyter_server.services.kernels.kernelmanager import MappingKernelManager

    estudiante = _arranque(tmp_path).comando
    profesor = _arranque(tmp_path, profesor=True).comando
    opciones = {
        "MappingKernelManager.cull_idle_timeout": str(curso.KERNEL_INACTIVO_S),
        "MappingKernelManager.cull_interval": str(curso.REVISION_DE_KERNELS_S),
        "MappingKernelManager.cull_connected": "False",
        "MappingKernelManager.cull_busy": "False",
    }
    configurables = MappingKernelManager.class_trait_names(config=True)
    for nombre, valor in opciones.items():
        assert nombre.split(".")[1] in configurables, f"{nombre} ya no existe en jupyter_server"
        assert _opcion(estudiante, nombre) == valor, (nombre, estudiante)
        assert _opcion(profesor, nombre) is None
    assert curso.KERNEL_INACTIVO_S == 3600


def test_el_mensaje_de_inicio_explica_el_apagado(tmp_path):
    estudiante = _arranque(tmp_path).mensaje
    assert "una hora sin actividad" in estudiante and "Kernel > Apagar Kernel" in estudiante
    assert "Shut Down Kernel" in estudiante  # quien eligió la interfaz en inglés
    assert "una hora" not in _arranque(tmp_path, profesor=True).mensaje
    assert len(estudiante.splitlines()) == 3


# --------------------------------------------------------------------------
# 17: kernels sin el aviso de TCP sin cifrar
# --------------------------------------------------------------------------


def test_jupyterlab_pide_el_canal_cifrado_con_sus_kernels(tmp_path):
    from jupyter_client.manager import KernelManager

    if not curso.cifrado_de_kernels_disponible():
        pytest.skip("este jupyter_client o pyzmq no saben cifrar el canal con el kernel")
    assert "transport_encryption" in KernelManager.class_trait_names(config=True)
    for profesor in (False, True):
        comando = _arranque(tmp_path, profesor=profesor).comando
        assert _opcion(comando, "KernelManager.transport_encryption") == "auto", comando


_EJECUTAR = textwrap.dedent("""
    import sys
    from pathlib import Path
    import nbformat
    sys.path.insert(0, {raiz!r})
    from sitio import cache

    ruta = Path({ruta!r})
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(6 * 7)")])
    nbformat.write(nb, ruta)
    if sys.argv[1] == "curso":
        cliente = cache.cliente_rapido(nb, ruta, 120)
    else:  # el cliente de nbclient tal cual, sin la configuración del curso
        from nbclient import NotebookClient
        cliente = NotebookClient(nb, timeout=120, kernel_name="python3")
    cliente.execute()
    print("SALIDA=" + nb.cells[0].outputs[0]["text"].strip())
""")


def _ejecutar_cuaderno(tmp_path, cliente: str) -> subprocess.CompletedProcess:
    guion = tmp_path / "ejecutar.py"
    guion.write_text(_EJECUTAR.format(raiz=str(RAIZ), ruta=str(tmp_path / "mini.ipynb")))
    # el kernel hereda el stderr de este proceso: ahí escribe ipykernel su aviso
    return subprocess.run([sys.executable, str(guion), cliente], capture_output=True, text=True, timeout=180,
                          cwd=tmp_path)


def test_el_ejecutor_del_curso_no_deja_el_aviso_de_tcp(tmp_path):
    control = _ejecutar_cuaderno(tmp_path, "nbclient")
    assert "SALIDA=42" in control.stdout, control.stderr[-2000:]
    if AVISO_TCP not in control.stderr:
        pytest.skip("este ipykernel no avisa del TCP sin cifrar: no hay nada que comprobar")
    r = _ejecutar_cuaderno(tmp_path, "curso")
    assert "SALIDA=42" in r.stdout, r.stderr[-2000:]
    assert AVISO_TCP not in r.stderr, r.stderr[-2000:]


# --------------------------------------------------------------------------
# JupyterLab de verdad: dirección, kernel, terminal y Ctrl+C
# --------------------------------------------------------------------------


def _puerto_libre() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _leer(archivo: Path) -> str:
    return archivo.read_text(encoding="utf-8", errors="replace") if archivo.exists() else ""


async def _ejecutar_en_kernel(base: str, token: str, kernel: str, codigo: str) -> str:
    from tornado.websocket import websocket_connect

    ws = await websocket_connect(f"{base.replace('http', 'ws')}/api/kernels/{kernel}/channels?token={token}")
    sesion, mensaje = uuid.uuid4().hex, uuid.uuid4().hex
    await ws.write_message(json.dumps({
        "header": {"msg_id": mensaje, "msg_type": "execute_request", "username": "", "session": sesion,
                   "version": "5.3"},
        "parent_header": {}, "metadata": {}, "channel": "shell",
        "content": {"code": codigo, "silent": False, "store_history": False, "allow_stdin": False}}))
    limite = time.monotonic() + 120
    while time.monotonic() < limite:
        m = json.loads(await asyncio.wait_for(ws.read_message(), 120))
        if m.get("parent_header", {}).get("msg_id") == mensaje and m["msg_type"] == "stream":
            ws.close()
            return m["content"]["text"]
    raise AssertionError("el kernel no respondió en 120 s")


async def _escribir_en_terminal(base: str, token: str, nombre: str, orden: str, fin: str) -> str:
    from tornado.websocket import websocket_connect

    ws = await websocket_connect(f"{base.replace('http', 'ws')}/terminals/websocket/{nombre}?token={token}")
    await asyncio.sleep(1)  # que el shell termine de leer su arranque
    await ws.write_message(json.dumps(["stdin", orden + "\r"]))
    texto, limite = "", time.monotonic() + 60
    while time.monotonic() < limite and fin not in texto:  # la orden escribe fin partido: su eco no cuenta
        m = await asyncio.wait_for(ws.read_message(), 60)
        if m is None:
            break
        tipo, *contenido = json.loads(m)
        if tipo == "stdout":
            texto += contenido[0]
    ws.close()
    return texto


def _en_otro_hilo(corrutina):
    """``asyncio.run`` en un hilo propio: bajo make test el Playwright de las pruebas del navegador (fixture de
    sesión) deja un bucle de eventos corriendo en el hilo principal, y ahí asyncio.run se niega."""
    with concurrent.futures.ThreadPoolExecutor(1) as hilo:
        return hilo.submit(asyncio.run, corrutina).result()


def _post(url: str) -> dict:
    return json.load(urllib.request.urlopen(urllib.request.Request(url, data=b"{}", method="POST"), timeout=30))


@pytest.mark.skipif(os.name == "nt", reason="Ctrl+C por grupo de procesos: POSIX")
def test_tutor_curso_de_verdad(tmp_path):
    casa, servida, salida = tmp_path / "casa", tmp_path / "servida", tmp_path / "salida.txt"
    (casa / "falsos").mkdir(parents=True)
    servida.mkdir()
    falso = casa / "falsos" / "python"
    falso.write_text("#!/bin/sh\necho FALSO\n")
    falso.chmod(0o755)
    (casa / ".bashrc").write_text('export PATH="$HOME/falsos:$PATH"\n')
    puerto = _puerto_libre()
    entorno = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER")}
    entorno.update(HOME=str(casa), SHELL="/bin/bash", JUPYTER_RUNTIME_DIR=str(tmp_path / "rt"))
    with open(salida, "wb") as f:
        proceso = subprocess.Popen(
            [sys.executable, "-m", "tutor_lib", "curso", "--sin-navegador", "--carpeta", str(servida),
             "--puerto", str(puerto)],
            stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=entorno, cwd=tmp_path,
            start_new_session=True)
    base = f"http://127.0.0.1:{puerto}"
    pid_kernel = None
    try:
        limite, token = time.monotonic() + 60, None
        while token is None and time.monotonic() < limite and proceso.poll() is None:
            hallado = re.search(rf"El curso se sirve en http://localhost:{puerto}/lab\?token=([0-9a-f]{{48}})",
                                _leer(salida))
            token = hallado and hallado.group(1)
            time.sleep(0.2)
        assert token, "tutor curso no imprimió la dirección con token:\n" + _leer(salida)[-3000:]
        limite = time.monotonic() + 150
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
                break
            except OSError:
                assert proceso.poll() is None, "JupyterLab terminó:\n" + _leer(salida)[-3000:]
                assert time.monotonic() < limite, "JupyterLab no respondió en 150 s:\n" + _leer(salida)[-3000:]
                time.sleep(0.5)
        # 16: la dirección impresa abre JupyterLab; sin el token, no entra nadie
        with urllib.request.urlopen(f"http://localhost:{puerto}/lab?token={token}", timeout=30) as r:
            assert r.status == 200 and b"JupyterLab" in r.read()
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(f"{base}/api/kernels", timeout=10)

        # 17: un kernel arranca y responde (su aviso, si lo hubiera, iría a la salida de tutor curso)
        kernel = _post(f"{base}/api/kernels?token={token}")["id"]
        pid_kernel = int(_en_otro_hilo(_ejecutar_en_kernel(base, token, kernel, "import os; print(os.getpid())")))

        # 13: la terminal encuentra el python del curso aunque el .bashrc ponga otro delante
        terminal = _post(f"{base}/api/terminals?token={token}")["name"]
        texto = _en_otro_hilo(_escribir_en_terminal(
            base, token, terminal, "command -v python pip jupyter tutor; echo LIS''TO", "LISTO"))
        rutas = set(re.findall(r"(/\S+/(?:python|pip|jupyter|tutor))\b", texto))
        assert {str(BINARIOS / o) for o in ("python", "pip", "jupyter", "tutor")} <= rutas, texto
        assert str(falso) not in rutas, texto

        # Ctrl+C (a todo el grupo, como la consola): JupyterLab apaga sus kernels y tutor sale sin traza
        os.killpg(proceso.pid, signal.SIGINT)
        assert proceso.wait(timeout=120) == 0, _leer(salida)[-3000:]
    finally:
        if proceso.poll() is None:
            os.killpg(proceso.pid, signal.SIGKILL)
            proceso.wait()
    texto = _leer(salida)
    print(texto)  # con -s se ve lo que vería quien estudia
    assert "Traceback" not in texto and "Cerrando JupyterLab" in texto, texto[-3000:]
    assert texto.count(token) == 1, "el token completo se imprime una sola vez, en español:\n" + texto[-3000:]
    assert AVISO_TCP not in texto, texto[-3000:]
    assert "una hora sin actividad" in texto
    assert f"Culling kernels with idle durations > {curso.KERNEL_INACTIVO_S} seconds" in texto  # JupyterLab lo aplicó
    limite = time.monotonic() + 30
    while time.monotonic() < limite:
        try:
            os.kill(pid_kernel, 0)
        except ProcessLookupError:
            break
        time.sleep(0.5)
    else:
        pytest.fail(f"el kernel {pid_kernel} siguió vivo tras cerrar el curso")


@pytest.mark.skipif(os.name == "nt", reason="señales POSIX")
def test_kill_a_tutor_curso_cierra_jupyterlab_y_borra_el_token(tmp_path):
    """``kill PID`` (SIGTERM) solo a ``tutor curso``: JupyterLab no queda huérfano y la carpeta privada se borra."""
    temporal, servida, salida = tmp_path / "tmp", tmp_path / "servida", tmp_path / "salida.txt"
    temporal.mkdir()
    servida.mkdir()
    puerto = _puerto_libre()
    entorno = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER")}
    entorno.update(TMPDIR=str(temporal), JUPYTER_RUNTIME_DIR=str(tmp_path / "rt"))
    with open(salida, "wb") as f:
        proceso = subprocess.Popen(
            [sys.executable, "-m", "tutor_lib", "curso", "--sin-navegador", "--carpeta", str(servida),
             "--puerto", str(puerto), "--token", "ficha"],
            stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=entorno, start_new_session=True)
    try:
        limite = time.monotonic() + 150
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{puerto}/api/status?token=ficha", timeout=2)
                break
            except OSError:
                assert proceso.poll() is None, _leer(salida)[-3000:]
                assert time.monotonic() < limite, "JupyterLab no respondió en 150 s:\n" + _leer(salida)[-3000:]
                time.sleep(0.5)
        assert list(temporal.glob("tutor-curso-*/token")), "el token vive en la carpeta privada mientras corre"
        proceso.send_signal(signal.SIGTERM)  # solo a tutor, no a su grupo
        assert proceso.wait(timeout=120) == 0, _leer(salida)[-3000:]
        limite = time.monotonic() + 30
        while time.monotonic() < limite:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{puerto}/api/status?token=ficha", timeout=2)
                time.sleep(0.5)
            except OSError:
                break
        else:
            pytest.fail("JupyterLab siguió sirviendo después de cerrar tutor curso")
    finally:
        try:  # JupyterLab vive en el grupo de tutor: nada queda corriendo aunque la prueba falle
            os.killpg(proceso.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proceso.wait()
    assert not list(temporal.glob("tutor-curso-*")), "la carpeta privada (con el token) no se borró"
    assert "Traceback" not in _leer(salida)
