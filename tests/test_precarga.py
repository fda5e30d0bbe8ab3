"""El servidor de precarga y su relevo (tutor_lib.calificacion.motor.precarga), con procesos de verdad.

La calificación entera con precarga la atacan tests/test_ataques.py (la clase
hostil, incluido el ataque «precarga»: buscar secretos en la memoria heredada y
el socket del servidor) y tests/test_escala.py (un trabajador muerto: nada de lo
que colgaba de él sigue vivo; las notas, iguales a las de una calificación sin
precarga). Aquí, el mecanismo: qué hereda el programa, qué no, señales, muerte.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from tutor_lib.calificacion.kernel import aislamiento
from tutor_lib.calificacion.motor import precarga

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="la precarga usa fork y SCM_RIGHTS de Linux")

MARCA = "marca-que-solo-viaja-en-un-pedido-5c1e"


@pytest.fixture(scope="module")
def servidor():
    with precarga.Servidor(["json", "decimal"], aislamiento.entorno_limpio({"tmp": "/tmp"})) as s:
        assert s.ruta, s.informe
        yield s


def _relevo(argv: list[str], ruta: str | None, **kwargs) -> subprocess.CompletedProcess:
    env = {**os.environ, **kwargs.pop("env", {})}
    env.pop(precarga.VARIABLE, None)
    if ruta:
        env[precarga.VARIABLE] = ruta
    return subprocess.run([sys.executable, "-m", "tutor_lib.calificacion.motor.precarga", sys.executable, *argv],
                          env=env, capture_output=True, text=True, timeout=60, **kwargs)


PROGRAMA = ("import os, sys; print('decimal' in sys.modules, sys.argv, os.getcwd(), os.environ.get('X_PRUEBA'), "
            "os.environ.get('TUTOR_PRECARGA') is not None); sys.exit(5)")


def test_sin_servidor_el_relevo_ejecuta_el_programa(tmp_path):
    for ruta in (None, str(tmp_path / "no-existe")):  # sin variable, o con un servidor que no responde
        r = _relevo(["-c", PROGRAMA, "a"], ruta, cwd=tmp_path, env={"X_PRUEBA": "1"})
        assert r.returncode == 5, r.stderr
        assert r.stdout.split(" ", 1)[0] == "False"  # un proceso nuevo: nada precargado
        assert f"['-c', 'a'] {tmp_path} 1" in r.stdout


def test_el_programa_nace_con_lo_precargado_y_todo_lo_suyo(servidor, tmp_path):
    r = _relevo(["-c", PROGRAMA, "a"], servidor.ruta, cwd=tmp_path, env={"X_PRUEBA": "1"})
    assert r.returncode == 5, r.stderr
    assert r.stdout.strip() == f"True ['-c', 'a'] {tmp_path} 1 True", r.stdout
    # python -m: el módulo de la carpeta de trabajo se encuentra, como en un proceso nuevo
    (tmp_path / "mimodulo.py").write_text("import sys\nprint(sys.argv[1:], __name__)\nraise SystemExit(0)\n")
    r = _relevo(["-m", "mimodulo", "x", "y"], servidor.ruta, cwd=tmp_path)
    assert (r.returncode, r.stdout.strip()) == (0, "['x', 'y'] __main__"), r.stderr
    # una excepción: traza en stderr y código 1
    r = _relevo(["-c", "raise ValueError('roto')"], servidor.ruta, cwd=tmp_path)
    assert r.returncode == 1 and "ValueError: roto" in r.stderr


def test_descriptores_como_pass_fds_y_ninguno_mas(servidor, tmp_path):
    leer, escribir = os.pipe()
    codigo = (f"import os; os.write({escribir}, b'hola por la tuberia'); "
              "print(sorted(int(f) for f in os.listdir('/proc/self/fd')))")
    try:
        proc = subprocess.Popen([sys.executable, "-m", "tutor_lib.calificacion.motor.precarga", sys.executable, "-c",
                                 codigo],
                                env={**os.environ, precarga.VARIABLE: servidor.ruta}, pass_fds=(escribir,),
                                stdout=subprocess.PIPE, text=True)
        os.close(escribir)
        assert os.read(leer, 100) == b"hola por la tuberia"
        salida, _ = proc.communicate(timeout=60)
        # el relevo no se quedó con la otra punta: al terminar el programa, la tubería se cierra
        assert os.read(leer, 100) == b""
    finally:
        os.close(leer)
    abiertos = [int(x) for x in salida.strip().strip("[]").split(",")]
    # 0, 1, 2, la tubería en su mismo número y el descriptor con que listdir leyó la carpeta; nada del
    # servidor (su socket, su epoll, sus tuberías) ni de otros pedidos
    extra = set(abiertos) - {0, 1, 2, escribir}
    assert escribir in abiertos and len(extra) <= 1, abiertos


def test_las_senales_llegan_y_si_el_relevo_muere_el_programa_tambien(servidor, tmp_path):
    codigo = ("import os, subprocess, sys, time\n"
              "nieto = subprocess.Popen(['sleep', '120'])\n"
              "try:\n    print(os.getpid(), nieto.pid, flush=True)\n    time.sleep(120)\nexcept KeyboardInterrupt:\n    print('interrumpido', flush=True)\n"
              "    nieto.kill()\n    sys.exit(3)\n")
    env = {**os.environ, precarga.VARIABLE: servidor.ruta}
    argv = [sys.executable, "-m", "tutor_lib.calificacion.motor.precarga", sys.executable, "-c", codigo]
    # SIGINT al relevo (así interrumpe nbgrader un kernel): le llega al programa
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, text=True)
    pid, _ = map(int, proc.stdout.readline().split())
    assert pid != proc.pid  # el programa es un hijo del servidor, no el relevo
    proc.send_signal(signal.SIGINT)
    assert proc.stdout.readline().strip() == "interrumpido"
    assert proc.wait(timeout=30) == 3
    # SIGKILL al relevo (nbgrader se pasó de tiempo): el servidor mata al programa y a su grupo
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, text=True)
    pid, nieto = map(int, proc.stdout.readline().split())
    proc.kill()
    proc.wait()
    limite = time.monotonic() + 15
    while time.monotonic() < limite and any(Path(f"/proc/{p}").exists() and
                                            "zombie" not in _estado(p) for p in (pid, nieto)):
        time.sleep(0.1)
    assert not [p for p in (pid, nieto) if Path(f"/proc/{p}").exists() and "zombie" not in _estado(p)]


def _estado(pid: int) -> str:
    try:
        return next(l for l in Path(f"/proc/{pid}/status").read_text().splitlines() if l.startswith("State:"))
    except (OSError, StopIteration):
        return "zombie"


def _memoria(pid: int) -> bytes:
    """Toda la memoria legible del proceso ``pid`` (para buscar lo que no debería estar)."""
    partes = []
    with open(f"/proc/{pid}/maps") as mapas, open(f"/proc/{pid}/mem", "rb", 0) as mem:
        for linea in mapas:
            campos = linea.split()
            inicio, fin = (int(x, 16) for x in campos[0].split("-"))
            if not campos[1].startswith("r") or fin - inicio > 2**30:
                continue
            try:
                mem.seek(inicio)
                partes.append(mem.read(fin - inicio))
            except (OSError, ValueError, OverflowError):
                pass
    return b"".join(partes)


def test_el_servidor_nunca_lee_un_pedido(servidor, tmp_path):
    # El pedido lleva la marca en su entorno (como el entorno de nbgrader lleva lo del instructor): la lee el
    # hijo, nunca el servidor, de cuya memoria nacen los kernels siguientes.
    r = _relevo(["-c", "import os; print(os.environ['SECRETO_DEL_INSTRUCTOR'][:5])"], servidor.ruta,
                env={"SECRETO_DEL_INSTRUCTOR": MARCA})
    assert r.stdout.strip() == MARCA[:5], r.stderr
    try:
        memoria = _memoria(servidor.proc.pid)
    except PermissionError:
        pytest.skip("sin permiso para leer la memoria del servidor (ptrace_scope): no se comprobó")
    assert len(memoria) > 10 * 2**20  # de verdad se leyó (el intérprete y lo precargado)
    assert MARCA.encode() not in memoria


def test_el_kernel_pide_solo_lo_que_el_aislamiento_deja_pasar(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "postgresql://u:clave@h/b")
    monkeypatch.setenv(aislamiento.VARIABLE, "{}")
    monkeypatch.setenv("PATH", "/usr/bin")
    for argv in (["py", "-m", "tutor_lib.calificacion.kernel.aislamiento", "py", "-m", "ipykernel_launcher"],
                 ["py", "-m", "ipykernel_launcher", "-f", "c.json"]):
        env = precarga._env_del_pedido(argv)
        assert "DATABASE_URL" not in env and env["PATH"] == "/usr/bin" and aislamiento.VARIABLE in env
    assert "DATABASE_URL" in precarga._env_del_pedido(["py", "-c", "nbgrader"])  # nbgrader: su entorno entero


def test_el_servidor_muere_con_quien_lo_lanzo(tmp_path):
    codigo = ("import sys, time\nfrom tutor_lib.calificacion.motor import precarga\n"
              "s = precarga.Servidor([], {'PATH': '/usr/bin:/bin'})\n"
              "print(s.proc.pid, s.carpeta, flush=True)\ntime.sleep(300)\n")
    dueno = subprocess.Popen([sys.executable, "-c", codigo], stdout=subprocess.PIPE, text=True)
    try:
        pid, carpeta = dueno.stdout.readline().split()
        pid = int(pid)
        assert Path(f"/proc/{pid}").exists() and Path(carpeta).is_dir()
        dueno.kill()
        dueno.wait()
        limite = time.monotonic() + 15
        while time.monotonic() < limite and Path(f"/proc/{pid}").exists() and "zombie" not in _estado(pid):
            time.sleep(0.1)
        assert not Path(f"/proc/{pid}").exists() or "zombie" in _estado(pid)
        limite = time.monotonic() + 5
        while time.monotonic() < limite and Path(carpeta).exists():
            time.sleep(0.1)
        assert not Path(carpeta).exists(), "el servidor debía borrar su carpeta (el socket) al irse"
    finally:
        dueno.kill()


def test_modulos_de_solo_lee_las_celdas_del_instructor():
    def celda(codigo, **meta):
        c = nbformat.v4.new_code_cell(codigo)
        c.metadata["nbgrader"] = meta
        return c

    nb = nbformat.v4.new_notebook(cells=[
        celda("import sys\nif 'google.colab' in sys.modules:\n    !pip install algo\nfrom transformers import Trainer, "
              "TrainingArguments\nimport torch.nn as nn\nfrom . import relativo", locked=True),
        celda("import modulo_de_la_solucion", solution=True, locked=False),
        celda("import modulo_de_una_prueba", grade=True, locked=True, points=1),
        celda("import modulo_de_una_celda_agregada"),
    ])
    modulos = precarga.modulos_de(nb)
    assert modulos == ["sys", "transformers:Trainer", "transformers:TrainingArguments", "torch.nn"]
