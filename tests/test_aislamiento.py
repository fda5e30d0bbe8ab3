"""Ataques al envoltorio del kernel del estudiante (:mod:`tutor_lib.calificacion.kernel.aislamiento`), sin nbgrader.

Cada prueba corre un script de Python bajo ``python -m tutor_lib.calificacion.kernel.aislamiento`` con una
configuración como la del calificador, armada en carpetas de ``tmp_path``: una carpeta de
trabajo escribible, la carpeta personal y la de la prueba tapadas, el informe en una
carpeta que el kernel no ve. El script intenta el ataque desde adentro y devuelve lo que
pasó; la prueba comprueba que falló. Aquí y en CI corren como root (el kernel baja a un
uid sin privilegios); sin root también tienen sentido (el kernel sigue con tu uid, y las
comprobaciones que solo valen con root se saltan).
"""

from __future__ import annotations

import ctypes
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tutor_lib.calificacion.kernel import aislamiento

RAIZ = Path(__file__).resolve().parents[1]
ES_ROOT = os.geteuid() == 0

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="el aislamiento solo existe en Linux")

PRELUDIO = r'''
import json, os, sys
def intento(f):
    try:
        r = f()
        return "PUDO" if r is None else f"PUDO: {str(r)[:80]}"
    except BaseException as e:
        return f"{type(e).__name__}:{getattr(e, 'errno', '')}"
res = {}
'''
FINAL = '\nprint("RESULTADO=" + json.dumps(res))\n'


@dataclass
class Corrida:
    res: dict
    informe: dict
    salida: str
    codigo: int
    segundos: float


def correr(tmp_path: Path, codigo: str, *, valores: dict | None = None, env_extra: dict | None = None,
           trabajo: Path | None = None, timeout: int = 60, **conf_extra) -> Corrida:
    """Corre ``codigo`` (con ``valores`` como variables) en el kernel aislado y devuelve su ``res``."""
    trabajo = trabajo or tmp_path / "trabajo"
    trabajo.mkdir(mode=0o700, parents=True, exist_ok=True)
    privado = tmp_path / "privado"
    privado.mkdir(mode=0o700, parents=True, exist_ok=True)
    informe = privado / "informe.json"
    conf = {
        "escribibles": [str(trabajo)],
        "visibles": aislamiento.rutas_necesarias(),
        "tapar": [str(Path.home()), str(tmp_path)],
        "ocultar": [str(privado)],
        "memoria_mb": 2048,
        "cpu_s": 60,
        "informe": str(informe),
    }
    conf.update(conf_extra)
    env = {**os.environ, "PYTHONPATH": str(RAIZ), aislamiento.VARIABLE: json.dumps(conf), **(env_extra or {})}
    script = PRELUDIO + "".join(f"{k} = {v!r}\n" for k, v in (valores or {}).items()) + codigo + FINAL
    inicio = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "tutor_lib.calificacion.kernel.aislamiento", sys.executable, "-c",
                           script], cwd=trabajo, env=env, capture_output=True, text=True, timeout=timeout)
    segundos = time.monotonic() - inicio
    salida = proc.stdout + proc.stderr
    linea = next((l for l in proc.stdout.splitlines() if l.startswith("RESULTADO=")), None)
    assert linea is not None, f"el script no terminó (código {proc.returncode}):\n{salida[-3000:]}"
    ruta_informe = Path(conf["informe"])
    try:
        es_archivo = ruta_informe.is_file() and not ruta_informe.is_symlink()
        datos_informe = json.loads(ruta_informe.read_text()) if es_archivo else {}
    except (OSError, ValueError):
        datos_informe = {}
    return Corrida(json.loads(linea.removeprefix("RESULTADO=")), datos_informe, salida, proc.returncode, segundos)


def fallo(valor: str) -> bool:
    return not valor.startswith("PUDO")


# --- 1. nada de root real adentro -----------------------------------------------------------


ATAQUE_ROOT = r'''
res["uid"], res["gid"], res["grupos"] = os.getuid(), os.getgid(), os.getgroups()
res["uid_map"] = open("/proc/self/uid_map").read().split()
res["escribir_archivo_visible"] = intento(lambda: open(VISIBLE + "/de_root.txt", "a").write("x") and None)
res["escribir_archivo_de_root"] = intento(lambda: open("datos/de_root.txt", "a").write("x") and None)
res["crear_en_carpeta_de_root"] = intento(lambda: open("datos/ajena/nuevo.txt", "w").close())
res["proc_sys"] = intento(lambda: open("/proc/sys/vm/drop_caches", "w").write("1") and None)
res["sysrq"] = intento(lambda: open("/proc/sysrq-trigger", "w").write("h") and None)
res["leer_0700"] = intento(lambda: open(SECRETA + "/clave.txt").read())
res["listar_0700"] = intento(lambda: os.listdir(SECRETA))
res["volver_a_root"] = intento(lambda: os.setuid(0))
res["grupos_de_root"] = intento(lambda: os.setgroups([0]))
res["regalar_a_root"] = intento(lambda: (open("propio.txt", "w").close(), os.chown("propio.txt", 0, 0))[1])
'''


def test_sin_root_real_adentro(tmp_path):
    trabajo = tmp_path / "trabajo"
    # De quien califica, dentro de lo escribible: el kernel recibe la carpeta y lo que tiene
    # directamente, no lo que está más abajo.
    (trabajo / "datos" / "ajena").mkdir(parents=True)
    (trabajo / "datos" / "de_root.txt").write_text("original")
    visible = tmp_path / "visible"
    visible.mkdir()
    (visible / "de_root.txt").write_text("original")
    secreta = tmp_path / "secreta"
    secreta.mkdir(mode=0o700)
    (secreta / "clave.txt").write_text("secreto")
    c = correr(tmp_path, ATAQUE_ROOT, valores={"VISIBLE": str(visible), "SECRETA": str(secreta)},
               visibles=[*aislamiento.rutas_necesarias(), str(visible), str(secreta)])
    r = c.res
    for clave in ("escribir_archivo_visible", "proc_sys", "sysrq", "volver_a_root", "grupos_de_root", "regalar_a_root"):
        assert fallo(r[clave]), (clave, r[clave])
    assert r["uid"] != 0 and int(r["uid_map"][1]) != 0, r
    if ES_ROOT:
        assert aislamiento.UID_BASE <= r["uid"] < aislamiento.UID_BASE + aislamiento.UID_CANTIDAD, r["uid"]
        assert r["gid"] == r["uid"] and r["grupos"] == [], r
        with pytest.raises(KeyError):
            pwd.getpwuid(r["uid"])  # sin entrada en /etc/passwd
        assert c.informe["usuario"] == {"root_afuera": True, "uid": r["uid"], "gid": r["gid"]}
        # Solo el uid sin privilegios impide esto (el montaje es escribible o la carpeta es visible):
        for clave in ("escribir_archivo_de_root", "crear_en_carpeta_de_root", "leer_0700", "listar_0700"):
            assert r[clave].startswith("PermissionError"), (clave, r[clave])
    else:
        assert r["uid"] == os.getuid(), "sin root, el kernel sigue con el mismo uid"
    if ES_ROOT:
        assert (trabajo / "datos" / "de_root.txt").read_text() == "original"
        assert not (trabajo / "datos" / "ajena" / "nuevo.txt").exists()
    assert (visible / "de_root.txt").read_text() == "original"
    assert c.informe.get("completo"), c.informe


@pytest.mark.skipif(not ES_ROOT, reason="elegir el usuario del kernel solo tiene sentido como root")
def test_usuario_configurable_y_distinto_para_cada_kernel(tmp_path):
    c = correr(tmp_path / "a", 'res["ids"] = [os.getuid(), os.getgid()]', uid=61234, gid=61235)
    assert c.res["ids"] == [61234, 61235] and c.informe["completo"], (c.res, c.informe)
    # Dos kernels a la vez: uids distintos.
    codigo = 'import time; time.sleep(1.5); res["uid"] = os.getuid()'
    corridas: list[Corrida] = []
    hilos = [threading.Thread(target=lambda n=n: corridas.append(correr(tmp_path / n, codigo))) for n in ("uno", "dos")]
    for h in hilos:
        h.start()
    for h in hilos:
        h.join(60)
    uids = [c.res["uid"] for c in corridas]
    assert len(uids) == 2 and uids[0] != uids[1], uids


@pytest.mark.skipif(not ES_ROOT, reason="solo como root")
def test_si_no_puede_dejar_de_ser_root_el_informe_lo_dice(tmp_path):
    c = correr(tmp_path, 'res["uid"] = os.getuid()', uid=0)
    assert c.informe["completo"] is False, c.informe
    assert "root" in c.informe["error"], c.informe["error"]


# --- 2. /proc nuevo, /sys de solo lectura, /dev mínimo, /run tapado (y sin IPC del anfitrión) ----


ATAQUE_PROC = r'''
import socket
TOKEN = TOKEN_AL_REVES[::-1]  # así no aparece en la línea de órdenes de este mismo script
lineas = []
for p in os.listdir("/proc"):
    if p.isdigit():
        try:
            lineas.append(open(f"/proc/{p}/cmdline", "rb").read().decode(errors="replace"))
        except OSError:
            pass
res["procesos"] = [p for p in os.listdir("/proc") if p.isdigit()]
res["token_visible"] = any(TOKEN in l for l in lineas)
res["mi_pid"] = os.getpid()
res["sys_ro"] = bool(os.statvfs("/sys").f_flag & os.ST_RDONLY)
if os.path.isdir("/sys/fs/cgroup"):
    res["sys_cgroup"] = intento(lambda: os.mkdir("/sys/fs/cgroup/tutor_ataque"))
res["dev"] = sorted(os.listdir("/dev"))
res["dev_null"] = intento(lambda: open("/dev/null", "w").write("x") and None)
res["dev_urandom"] = len(open("/dev/urandom", "rb").read(16))
def lleno():
    with open("/dev/full", "wb", buffering=0) as f:
        f.write(b"x")
res["dev_full"] = intento(lleno)
res["dev_crear"] = intento(lambda: open("/dev/nuevo", "w").close())
res["run"] = sorted(os.listdir("/run")) if os.path.isdir("/run") else []
def conectar(direccion):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(3)
    s.connect(direccion)
    s.close()
for nombre, direccion in SOCKETS.items():
    res["socket_" + nombre] = intento(lambda: conectar(direccion))
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
res["memoria_compartida"] = libc.shmget(CLAVE_SHM, 0, 0) != -1  # la del anfitrión
'''


def test_proc_sys_dev_y_run_propios(tmp_path):
    token = f"tutor-token-{os.getpid()}-{time.time_ns()}"
    espia = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", token])
    servidores, sockets = [], {}

    def escuchar(nombre: str, direccion: str) -> None:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(direccion)
        s.listen(1)
        servidores.append(s)
        sockets[nombre] = direccion

    (tmp_path / "sockets").mkdir()
    escuchar("carpeta_temporal", str(tmp_path / "sockets" / "anfitrion.sock"))
    escuchar("abstracto", f"\0tutor-prueba-{os.getpid()}")
    en_run = Path(f"/run/tutor-prueba-{os.getpid()}.sock")
    libc = ctypes.CDLL(None, use_errno=True)
    clave_shm = 0x74750000 + os.getpid() % 0x10000
    id_shm = libc.shmget(clave_shm, 4096, 0o1000 | 0o666)  # IPC_CREAT: memoria compartida del anfitrión
    assert id_shm != -1
    try:
        escuchar("run", str(en_run))
    except OSError:
        pass  # sin permiso para escribir en /run: se prueba lo demás
    try:
        for direccion in sockets.values():  # desde afuera, todos responden
            cliente = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            cliente.connect(direccion)
            cliente.close()
        for _ in range(100):  # recién lanzado, todavía no tiene su línea de órdenes
            if token in Path(f"/proc/{espia.pid}/cmdline").read_text():
                break
            time.sleep(0.05)
        assert token in Path(f"/proc/{espia.pid}/cmdline").read_text()
        c = correr(tmp_path, ATAQUE_PROC,
                   valores={"TOKEN_AL_REVES": token[::-1], "SOCKETS": sockets, "CLAVE_SHM": clave_shm})
    finally:
        libc.shmctl(id_shm, 0, None)  # IPC_RMID
        espia.kill()
        espia.wait()
        for s in servidores:
            s.close()
        en_run.unlink(missing_ok=True)
    r = c.res
    assert r["token_visible"] is False, "desde adentro se ven procesos del anfitrión"
    assert r["mi_pid"] == 1 and len(r["procesos"]) <= 2, r["procesos"]
    assert r["sys_ro"] is True
    if "sys_cgroup" in r:
        assert fallo(r["sys_cgroup"]), r["sys_cgroup"]
    esperados = {*aislamiento.DISPOSITIVOS, "shm", "fd", "stdin", "stdout", "stderr"}
    assert set(r["dev"]) == esperados, r["dev"]  # sin pts, tty, discos ni nada más del anfitrión
    assert r["dev_null"] == "PUDO" and r["dev_urandom"] == 16
    assert r["dev_full"] == "OSError:28", r["dev_full"]  # ENOSPC: /dev/full funciona como tal
    assert fallo(r["dev_crear"]), r["dev_crear"]
    assert r["run"] == [], r["run"]
    for nombre in sockets:
        assert fallo(r["socket_" + nombre]), (nombre, r["socket_" + nombre])
    assert r["memoria_compartida"] is False, "desde adentro se ve la memoria compartida del anfitrión"
    assert c.informe.get("completo"), c.informe


# --- 3. variables de entorno por lista blanca --------------------------------------------------


def test_entorno_por_lista_blanca(tmp_path):
    secretas = {
        "DATABASE_URL": "postgres://profe:clave@servidor/notas",
        "AWS_ACCESS_KEY_ID": "AKIAPRUEBA",
        "GITHUB_TOKEN": "ghp_prueba",
        "HF_TOKEN": "hf_prueba",
        "JUPYTER_TOKEN": "jt_prueba",
        "VARIABLE_DESCONOCIDA": "quien sabe",
        # Secretos con nombres de prefijos que antes pasaban enteros (TUTOR_*, JUPYTER_*, JPY_*, LC_*):
        # ahora pasa una lista explícita de nombres, no prefijos (issue 39, punto 6).
        "TUTOR_LIBRETA": "postgresql://profe:clave-tutor@servidor/notas",
        "JUPYTER_SERVER_URL": "http://127.0.0.1:8888/?clave=jupyter",
        "JPY_USUARIO_CLAVE": "clave-jpy",
        "LC_CLAVE_PRIVADA": "clave-lc",
    }
    codigo = 'res["env"] = dict(os.environ)\nres["env1"] = open("/proc/1/environ").read()'
    c = correr(tmp_path, codigo, env_extra={**secretas, "LC_ALL": "C.UTF-8", "MI_EXTRA": "si"}, entorno=["MI_EXTRA"])
    env = c.res["env"]
    for nombre, valor in secretas.items():
        assert nombre not in env, nombre
        assert valor not in c.res["env1"], nombre
    assert aislamiento.VARIABLE not in env
    assert env["PATH"] and env["HOME"] and env["TMPDIR"] == "/tmp" and env["HF_HUB_OFFLINE"] == "1", env
    assert env["LC_ALL"] == "C.UTF-8" and env["MI_EXTRA"] == "si", env


# --- 4. la carpeta temporal entera tapada, salvo lo escribible ---------------------------------


ATAQUE_TMP = r'''
import tempfile
res["listar_trabajos"] = sorted(os.listdir(os.path.dirname(PROPIA)))
res["listar_calificador"] = sorted(os.listdir(CALIFICADOR))
res["listar_raiz_tmp"] = sorted(os.listdir(RAIZ_TMP))
res["leer_ajena"] = intento(lambda: open(AJENA + "/entrega.py").read())
res["leer_privado"] = intento(lambda: os.listdir(CALIFICADOR + "/privado"))
res["escribir_propia"] = intento(lambda: open(PROPIA + "/hola.txt", "w").write("hola") and None)
res["escribir_calificador"] = intento(lambda: open(CALIFICADOR + "/intruso.txt", "w").close())
res["marca_visible"] = os.path.exists(MARCA)
res["gettempdir"] = tempfile.gettempdir()
'''


@pytest.mark.parametrize("donde", ["var_tmp", "tmp_path"])
@pytest.mark.parametrize("tapar_calificador", [False, True])
def test_carpeta_temporal_tapada(tmp_path, donde, tapar_calificador):
    if donde == "var_tmp":
        raiz_tmp = Path(tempfile.mkdtemp(prefix="tutor-prueba-", dir="/var/tmp"))
    else:
        raiz_tmp = tmp_path / "tmp_del_calificador"
        raiz_tmp.mkdir()
    marca = Path(tempfile.mkstemp(prefix="tutor-marca-", dir="/tmp")[1])
    try:
        calificador = raiz_tmp / "tutor-ej01-xyz"  # como CursoTemporal.D
        propia = calificador / "trabajo" / "ana"
        ajena = calificador / "trabajo" / "beto"
        for carpeta in (propia, ajena, calificador / "privado"):
            carpeta.mkdir(parents=True, mode=0o700)
        (ajena / "entrega.py").write_text("respuesta = 42")
        (calificador / "privado" / "gradebook.db").write_text("notas")
        tapar = [str(Path.home())] + ([str(calificador)] if tapar_calificador else [])
        # Sin tapar tmp_path ni el calificador: lo tapa solo la regla de la carpeta temporal.
        c = correr(tmp_path, ATAQUE_TMP, trabajo=propia, tapar=tapar, escribibles=[str(propia)],
                   env_extra={"TMPDIR": str(raiz_tmp)},
                   valores={"PROPIA": str(propia), "AJENA": str(ajena), "CALIFICADOR": str(calificador),
                            "RAIZ_TMP": str(raiz_tmp), "MARCA": str(marca)})
        r = c.res
        assert r["listar_trabajos"] == ["ana"], r["listar_trabajos"]
        assert r["listar_calificador"] == ["trabajo"], r["listar_calificador"]
        assert r["listar_raiz_tmp"] == [calificador.name], r["listar_raiz_tmp"]
        for clave in ("leer_ajena", "leer_privado", "escribir_calificador"):
            assert fallo(r[clave]), (clave, r[clave])
        assert r["escribir_propia"] == "PUDO", r["escribir_propia"]
        assert (propia / "hola.txt").read_text() == "hola"  # lo escrito llega a la carpeta real
        assert r["marca_visible"] is False and r["gettempdir"] == "/tmp", r
        assert c.informe.get("completo"), c.informe
    finally:
        marca.unlink(missing_ok=True)
        if donde == "var_tmp":
            shutil.rmtree(raiz_tmp, ignore_errors=True)


# --- 5. agotamiento: procesos y /tmp ---------------------------------------------------------


BOMBA = r'''
import time
# MARCA
inicio, fallos = time.monotonic(), 0
while time.monotonic() - inicio < 2:
    try:
        os.fork()  # padre e hijo siguen multiplicándose
    except OSError:
        fallos += 1
        time.sleep(0.01)
if os.getpid() != 1:
    time.sleep(120)  # los hijos quedan vivos: los mata el núcleo cuando termina el proceso 1
    os._exit(0)
res["vivos"] = len([p for p in os.listdir("/proc") if p.isdigit()])
res["fallos"] = fallos
'''


def _procesos_con(marca: str) -> list[int]:
    encontrados = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if marca in (p / "cmdline").read_bytes().decode(errors="replace"):
                    encontrados.append(int(p.name))
            except OSError:
                pass
    return encontrados


def test_bomba_de_fork_termina_rapido(tmp_path):
    marca = f"bomba-{os.getpid()}-{time.time_ns()}"
    try:
        c = correr(tmp_path, BOMBA.replace("MARCA", marca), procesos=32, timeout=60)
    finally:
        for _ in range(50):  # nada queda corriendo (se da un momento al núcleo para limpiar)
            restos = _procesos_con(marca)
            if not restos:
                break
            time.sleep(0.1)
        for pid in restos:
            os.kill(pid, signal.SIGKILL)
    assert not restos, f"quedaron {len(restos)} procesos de la bomba vivos"
    assert c.segundos < 30, c.segundos
    assert c.res["fallos"] > 0, "la bomba nunca encontró el límite"
    assert c.res["vivos"] <= 32, c.res["vivos"]
    if not c.informe.get("agotamiento", {}).get("cgroup"):
        assert c.informe.get("agotamiento", {}).get("respaldo") == "RLIMIT_NPROC=32", c.informe["agotamiento"]
    assert c.informe.get("completo"), c.informe


LLENAR_TMP = r'''
import resource
def tamano(ruta):
    v = os.statvfs(ruta)
    return v.f_blocks * v.f_frsize // 2**20
res["tmp_mb"], res["shm_mb"] = tamano("/tmp"), tamano("/dev/shm")
res["memoria"] = resource.getrlimit(resource.RLIMIT_AS)[0] // 2**20
bloque, escrito = b"x" * 2**24, 0
try:
    with open("/tmp/relleno", "wb") as f:
        while escrito < 400 * 2**20:
            f.write(bloque)
            f.flush()
            escrito += len(bloque)
    res["error"] = None
except OSError as e:
    res["error"] = e.errno
res["escrito_mb"] = escrito // 2**20
os.remove("/tmp/relleno")
'''


def test_tmp_acotado(tmp_path):
    c = correr(tmp_path, LLENAR_TMP)
    r = c.res
    assert r["tmp_mb"] == aislamiento.TMP_MB and r["shm_mb"] == aislamiento.TMP_MB, r
    assert r["error"] == 28, r  # ENOSPC antes de llegar a 400 MB
    assert r["escrito_mb"] <= aislamiento.TMP_MB, r
    assert r["memoria"] == 2048, "el límite de memoria virtual de siempre sigue"


# --- 6. el informe no se puede falsificar desde adentro ----------------------------------------


FALSIFICAR = r'''
res["existe"] = os.path.lexists(INFORME)
falso = json.dumps({"completo": True, "protecciones": ["FALSIFICADO"]})
res["escribir"] = intento(lambda: open(INFORME, "w").write(falso) and None)
res["escribir_carpeta"] = intento(lambda: open(os.path.dirname(INFORME) + "/otro.json", "w").close())
enlaces = []
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        continue
    for fd in fds:
        try:
            enlaces.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            pass
res["descriptores"] = enlaces
'''


def test_el_informe_no_se_puede_falsificar(tmp_path):
    informe = tmp_path / "privado" / "informe.json"
    c = correr(tmp_path, FALSIFICAR, valores={"INFORME": str(informe)})
    r = c.res
    assert r["existe"] is False, "el informe se ve desde adentro"
    assert fallo(r["escribir"]) and fallo(r["escribir_carpeta"]), r
    assert not [e for e in r["descriptores"] if "informe" in e or "privado" in e], r["descriptores"]
    assert c.informe.get("completo") and "FALSIFICADO" not in informe.read_text(), c.informe


def test_el_informe_no_sigue_enlaces(tmp_path):
    (tmp_path / "privado").mkdir(mode=0o700)
    victima = tmp_path / "victima.txt"
    victima.write_text("original")
    (tmp_path / "privado" / "informe.json").symlink_to(victima)
    c = correr(tmp_path, 'res["ok"] = True')
    assert c.res["ok"] and victima.read_text() == "original"
    os.unlink(tmp_path / "privado" / "informe.json")
    os.mkfifo(tmp_path / "privado" / "informe.json")  # tampoco se queda esperando en una tubería
    c = correr(tmp_path, 'res["ok"] = True', timeout=30)
    assert c.res["ok"]


# --- lo que ya había: sin red y montajes bloqueados ------------------------------------------


ATAQUE_MONTAJES = r'''
import ctypes, socket, _socket
def conectar():
    s = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    s.settimeout(3)
    s.connect(("1.1.1.1", 80))
res["red"] = intento(conectar)
res["interfaces"] = [nombre for _, nombre in socket.if_nameindex()]
libc = ctypes.CDLL(None, use_errno=True)
def llamar(resultado):
    if resultado != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
desmontar = lambda ruta: llamar(libc.umount2(ruta.encode(), 2))
remontar_rw = lambda ruta: llamar(libc.mount(None, ruta.encode(), None, ctypes.c_ulong(4096 | 32), None))
res["escribir_repo"] = intento(lambda: open(RAIZ + "/atacante.txt", "w").close())
res["desmontar_home"] = intento(lambda: desmontar(HOME))
res["remontar_raiz"] = intento(lambda: remontar_rw("/"))
# Con un espacio de usuario propio (ahí sí es «root»), los montajes siguen bloqueados.
res["espacio_propio"] = intento(lambda: llamar(libc.unshare(0x10000000 | 0x00020000)))
res["desmontar_home_2"] = intento(lambda: desmontar(HOME))
res["desmontar_tmp_2"] = intento(lambda: desmontar("/tmp"))
res["remontar_raiz_2"] = intento(lambda: remontar_rw("/"))
'''


def test_sin_red_y_montajes_bloqueados(tmp_path):
    c = correr(tmp_path, ATAQUE_MONTAJES, valores={"RAIZ": str(RAIZ), "HOME": str(Path.home())})
    r = c.res
    assert r["red"] == "OSError:101", r["red"]  # ENETUNREACH: no hay ninguna interfaz con salida
    assert r["interfaces"] == ["lo"], r["interfaces"]
    for clave in ("escribir_repo", "desmontar_home", "remontar_raiz", "desmontar_home_2", "desmontar_tmp_2",
                  "remontar_raiz_2"):
        assert fallo(r[clave]), (clave, r[clave])
    assert not (RAIZ / "atacante.txt").exists()


ATAQUE_LOOPBACK = r'''
import socket, subprocess
def conectar(puerto):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(3)
    s.connect(("127.0.0.1", puerto))
    return s.recv(64).decode()
# El servidor del anfitrión escucha en su 127.0.0.1: desde adentro no debe responder.
res["anfitrion"] = intento(lambda: conectar(PUERTO_ANFITRION))
# Un socket Unix «abstracto» (sin archivo) del anfitrión: esos nombres son del espacio de red, así que
# encender el loopback propio no debe abrir ese camino.
def conectar_abstracto():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(3)
    s.connect(NOMBRE_ABSTRACTO)
    return s.recv(64).decode()
res["abstracto"] = intento(conectar_abstracto)
# El loopback propio sí: un servidor y un cliente, ambos adentro.
servidor = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
servidor.bind(("127.0.0.1", 0)); servidor.listen(1); servidor.settimeout(10)
puerto = servidor.getsockname()[1]
hijo = subprocess.Popen([sys.executable, "-c",
    f"import socket; s = socket.create_connection(('127.0.0.1', {puerto}), 3); s.sendall(b'hola de adentro')"])
cliente, _ = servidor.accept()
res["propio"] = cliente.recv(64).decode()
hijo.wait(10)
# Dos procesos de torch.distributed con gloo, como en ej13: un all_reduce de verdad.
GLOO = """
import os, torch, torch.distributed as dist
dist.init_process_group("gloo")
t = torch.tensor([float(dist.get_rank() + 1)])
dist.all_reduce(t)
os.write(1, f"SUMA {dist.get_world_size()} {t.item()}\\n".encode())  # una sola escritura: las líneas de los dos procesos no se mezclan
dist.destroy_process_group()
"""
open("gloo_prueba.py", "w").write(GLOO)
env = {**os.environ, "GLOO_SOCKET_IFNAME": "lo", "OMP_NUM_THREADS": "1"}
salida = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
                         "gloo_prueba.py"],
                        capture_output=True, text=True, timeout=120, env=env)
res["gloo"] = salida.stdout.count("SUMA 2 3.0")  # una línea por proceso (pueden llegar mezcladas)
res["gloo_error"] = salida.stderr[-600:] if salida.returncode else ""
'''


def test_loopback_propio_si_el_del_anfitrion_no(tmp_path):
    """El kernel tiene un loopback encendido (gloo en ej13) que no llega a los puertos del anfitrión."""
    servidor = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    servidor.bind(("127.0.0.1", 0))
    servidor.listen(4)
    servidor.settimeout(0.2)
    atendidos = []
    abstracto = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    nombre_abstracto = f"\0tutor-prueba-{os.getpid()}"
    abstracto.bind(nombre_abstracto)
    abstracto.listen(4)
    abstracto.settimeout(0.2)

    def atender():
        fin = time.monotonic() + 150
        while time.monotonic() < fin and not atendidos:
            for escucha in (servidor, abstracto):
                try:
                    conexion, _ = escucha.accept()
                except OSError:
                    continue
                conexion.sendall(b"secreto del anfitrion")
                conexion.close()

    hilo = threading.Thread(target=atender, daemon=True)
    hilo.start()
    try:
        c = correr(tmp_path, ATAQUE_LOOPBACK, valores={"PUERTO_ANFITRION": servidor.getsockname()[1],
                                                       "NOMBRE_ABSTRACTO": nombre_abstracto},
                   timeout=180, cpu_s=200, memoria_mb=8192)
    finally:
        atendidos.append(0)
        servidor.close()
        abstracto.close()
    r = c.res
    assert fallo(r["anfitrion"]) and "secreto" not in r["anfitrion"], r["anfitrion"]
    assert fallo(r["abstracto"]) and "secreto" not in r["abstracto"], r["abstracto"]
    assert r["propio"] == "hola de adentro"
    assert r["gloo"] == 2, (r["gloo"], r["gloo_error"])


def test_cgroup_v2_cuando_la_maquina_lo_permite(tmp_path, monkeypatch):
    """Aquí no hay un cgroup v2 delegado: se comprueba la plomería sobre un árbol de archivos falso
    (en una máquina con cgroup v2 delegado, las pruebas de arriba corren con él: ver el informe)."""
    base = tmp_path / "cgroup"
    base.mkdir()
    (base / "cgroup.controllers").write_text("cpu memory pids\n")
    (base / "cgroup.subtree_control").write_text("")
    (base / "cgroup.procs").write_text("")
    (base / "tutor-4999999999").mkdir()  # lo que dejó un kernel que ya no existe
    from tutor_lib.calificacion.kernel import grupos_de_control

    monkeypatch.setattr(grupos_de_control, "_cgroup_propio", lambda: base)
    monkeypatch.setattr(grupos_de_control, "_cgroups_v1", lambda: {})  # sin v2, nada de v1 de verdad aquí
    grupo, detalle = aislamiento.grupo_de_control({"procesos": 40, "memoria_mb": 1000, "tmp_mb": 100,
                                                   "cpu_nucleos": 1})
    assert grupo is not None, detalle
    os.close(grupo.fd_base)
    os.close(grupo.fd_origen)
    hoja = base / f"tutor-{os.getpid()}"
    assert (hoja / "pids.max").read_text() == "40"
    assert int((hoja / "memory.max").read_text()) == 1200 * 2**20, "memoria del kernel más /tmp y /dev/shm"
    assert (hoja / "memory.swap.max").read_text() == "0"
    assert (hoja / "cgroup.procs").read_text() == str(os.getpid())
    assert (base / "cgroup.subtree_control").read_text() == "+memory +pids +cpu"
    assert (hoja / "cpu.max").read_text() == "100000 100000"
    assert not (base / "tutor-4999999999").exists()
    assert "pids.max=40" in detalle and "memory.max=1200 MB" in detalle and "cpu.max=1" in detalle, detalle
    (base / "cgroup.controllers").write_text("cpu\n")
    grupo, detalle = aislamiento.grupo_de_control({})
    assert grupo is None and "memory y pids" in detalle, detalle


def test_cgroups_v1_cuando_no_hay_v2(tmp_path, monkeypatch):
    """Sin cgroup v2 delegado, las jerarquías v1 (Docker con cgroup v1, esta máquina de CI): un cgroup
    hoja por controlador, con memoria, procesos y un cpu propio (reparto justo; tope con cpu_nucleos)."""
    from tutor_lib.calificacion.kernel import grupos_de_control

    propios = {}
    for controlador in ("memory", "pids", "cpu"):
        propios[controlador] = tmp_path / controlador
        propios[controlador].mkdir()
        (propios[controlador] / "cgroup.procs").write_text("")
    monkeypatch.setattr(grupos_de_control, "_cgroup_propio", lambda: None)
    monkeypatch.setattr(grupos_de_control, "_cgroups_v1", lambda: propios)
    grupo, detalle = aislamiento.grupo_de_control({"procesos": 40, "memoria_mb": 1000, "tmp_mb": 100,
                                                   "cpu_nucleos": 2})
    assert grupo is not None, detalle
    for g in grupo.grupos:
        os.close(g.fd_base)
        os.close(g.fd_origen)
    hoja = f"tutor-{os.getpid()}"
    assert (propios["pids"] / hoja / "pids.max").read_text() == "40"
    assert int((propios["memory"] / hoja / "memory.limit_in_bytes").read_text()) == 1200 * 2**20
    assert (propios["cpu"] / hoja / "cpu.cfs_quota_us").read_text() == "200000"
    for controlador in propios:
        assert (propios[controlador] / hoja / "cgroup.procs").read_text() == str(os.getpid())
    assert "cgroups v1" in detalle and "cpu propio" in detalle, detalle


def test_el_kernel_puede_leer_la_cache_del_curso_donde_este(monkeypatch, tmp_path):
    """El modelo convertido vive en la caché del curso; si TUTOR_CACHE la mueve, el kernel la sigue viendo."""
    monkeypatch.setenv("TUTOR_CACHE", str(tmp_path / "cache"))
    assert str(tmp_path / "cache") in aislamiento.rutas_necesarias()


# --- 9. la vista del disco es una lista de permitidos (issue 39, puntos 1 y 2) -----------------------


ATAQUE_PERMITIDOS = r'''
permitidas = tuple(PERMITIDAS)
sueltos, carpetas_vistas = [], 0
for base, carpetas, archivos in os.walk("/"):
    carpetas[:] = [c for c in carpetas if os.path.join(base, c) not in permitidas
                   and os.path.join(base, c) not in ("/proc", "/sys", "/dev", "/tmp")]
    carpetas_vistas += 1
    sueltos += [os.path.join(base, a) for a in archivos if os.path.join(base, a) not in permitidas]
res["sueltos"] = sueltos[:20]
res["carpetas_vistas"] = carpetas_vistas
res["secreto"] = intento(lambda: open(SECRETO).read())
res["secreto_existe"] = os.path.exists(SECRETO)
res["listar_curso"] = intento(lambda: os.listdir(CURSO))
res["raiz"] = sorted(os.listdir("/"))
import torch  # lo necesario para calificar sigue a la mano
res["torch"] = torch.tensor([1.0, 2.0]).sum().item()
'''


def test_la_vista_del_disco_es_una_lista_de_permitidos(tmp_path):
    """Fuera de $HOME y de /tmp (p. ej. una copia del curso en /srv) nada aparece si no está en la lista."""
    lugar = next((l for l in ("/srv", "/opt", "/mnt") if os.access(l, os.W_OK)), None)
    if lugar is None:
        pytest.skip("ni /srv, ni /opt, ni /mnt se pueden escribir")
    curso = Path(tempfile.mkdtemp(prefix="tutor-curso-", dir=lugar))
    try:
        (curso / "solutions").mkdir()
        secreto = curso / "solutions" / "ej01.ipynb"
        secreto.write_text("# BEGIN HIDDEN TESTS")
        secreto.chmod(0o644)
        curso.chmod(0o755)
        visibles = aislamiento.rutas_necesarias()
        # Lo permitido, visto como lo ve el kernel: cada ruta pedida y su destino real.
        permitidas = set()
        for ruta in [*aislamiento.SISTEMA, *visibles]:
            if os.path.lexists(ruta):
                permitidas |= {ruta, os.path.realpath(ruta)}
        c = correr(tmp_path, ATAQUE_PERMITIDOS, valores={"SECRETO": str(secreto), "CURSO": str(curso),
                                                          "PERMITIDAS": sorted(permitidas)})
        r = c.res
        assert r["secreto_existe"] is False and fallo(r["secreto"]) and fallo(r["listar_curso"]), r
        assert r["sueltos"] == [], f"archivos fuera de la lista de permitidos: {r['sueltos']}"
        assert Path(lugar).name not in r["raiz"], r["raiz"]
        assert r["torch"] == 3.0
        assert c.informe.get("completo"), c.informe
    finally:
        shutil.rmtree(curso, ignore_errors=True)


def test_rutas_necesarias_no_depende_de_la_carpeta_actual(tmp_path, monkeypatch):
    """``python -m tutor_lib`` pone la carpeta actual en sys.path[0]: no debe volverse visible."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    rutas = aislamiento.rutas_necesarias()
    assert not any(aislamiento.dentro_de(tmp_path, Path(r)) or aislamiento.dentro_de(Path(r), tmp_path) for r in rutas), rutas
    assert str(RAIZ) not in rutas and str(RAIZ / "tutor_lib") in rutas, rutas
