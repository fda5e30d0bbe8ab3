"""Ataques nuevos (segunda pasada del issue 39): tipos que ``tests/test_ataques.py`` no cubre.

Igual que allá, toda una clase de ``ej11_qlora`` se califica **una sola vez** con
:func:`tutor_lib.calificacion.motor.clase.calificar_clase` (dos entregas a la vez, ``TMPDIR``
propio): dos compañeros honestos y entregas atacantes hechas con la solución de
referencia más celdas del atacante. Cada ataque imprime ``FUGA[tipo]: ...`` solo
si logra lo que intenta y ``ATAQUE-FIN[tipo]`` al terminar (para probar que
corrió); lo que el kernel no puede ver por sí mismo (procesos que sobreviven,
llaves que quedan en la sesión de quien califica, restos en el disco, el tamaño
del notebook autocalificado) lo revisa la prueba desde afuera, después de
calificar. Los tipos:

* ``llavero``: el llavero de sesión del núcleo (``keyctl``), que el kernel hereda
  de quien califica: leer una llave del instructor, dejarle llaves y pasarle datos
  a otro estudiante;
* ``vecinos``: dos entregas calificadas a la vez buscan un canal entre ellas
  (``/tmp``, ``/dev/shm``, memoria compartida System V, sockets Unix abstractos,
  TCP en 127.0.0.1) y rastros que persistan de un estudiante al siguiente;
* ``descriptores``: descriptores heredados de quien califica (carpetas, archivos
  o sockets de afuera);
* ``limites``: subir límites (rlimits), prioridad de tiempo real, escribir en el
  cgroup, montar un cgroup2 propio o desmontar lo tapado desde un espacio de
  usuario anidado;
* ``sobrevivir``: un demonio (doble ``fork`` + ``setsid``) que siga vivo después
  de calificar;
* ``acaparar``: usar más de un núcleo de la máquina y dejar sin CPU a los
  compañeros que se califican a la vez;
* ``anidar``: un árbol de carpetas de 3000 niveles en la carpeta de trabajo y en
  la de sockets, para que la limpieza de quien califica falle;
* ``disco``: llenar el disco de quien califica desde la carpeta de trabajo;
* ``widgets``: mensajes ``comm`` de widgets, que nbclient guardaba en el notebook
  autocalificado sin los topes de salida, con los pedidos del juez adentro (ya
  atajado en el ejecutor: la prueba lo cuida);
* ``retroalimentacion_lenta`` (sin clase: una sola entrega): HTML anidado en
  markdown y una celda de código enorme hacen que generar la retroalimentación
  tarde más de lo que quien califica le da a cada estudiante.

Seis de estos ataques funcionaban cuando se escribieron (6 de diciembre de 2026): cada prueba lo
dice en un comentario «ANTES FUNCIONABA», con lo que lo ataja ahora. Nunca se marcaron con ``xfail``
ni ``skip``: fallaron hasta que se arregló el calificador.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import platform
import re
import secrets
import stat
import subprocess
import sys
import tempfile
import textwrap
import traceback
from pathlib import Path

import nbformat
import pytest

from tutor_lib.calificacion.motor.calificador import entrega_de_referencia, fuente
from tutor_lib.calificacion.motor.clase import calificar_clase

RAIZ = Path(__file__).resolve().parents[1]
ASIG = "ej11_qlora"  # la asignación que más rápido se califica
#: El secreto que quien califica tiene en su llavero de sesión (un boleto de Kerberos, una clave de cifrado).
SECRETO_LLAVERO = b"boleto-kerberos-del-instructor-5d1e"
DESCRIPCION_SECRETO = "tutor-secreto-instructor"
#: Lo que el calificador deja usar en /tmp (Limites no tiene un tope de disco: 4 veces esto ya es abuso).
TOPE_DISCO_MIB = 1000
#: Salida guardada por notebook como máximo (EjecutarConJuez.max_salida_total) más el notebook y holgura.
TOPE_AUTOCALIFICADO = 20 * 2**20
#: Segundos por estudiante que retroalimentacion_de_todos le da a «nbgrader generate_feedback» (60 + 10 por estudiante).
SEGUNDOS_RETRO_POR_ESTUDIANTE = 10

# Llamadas al sistema de llaveros (add_key, request_key, keyctl) por arquitectura.
_LLAMADAS_LLAVERO = {"x86_64": (248, 249, 250), "aarch64": (217, 218, 219)}
KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_DESCRIBE, KEYCTL_CLEAR, KEYCTL_UNLINK, KEYCTL_READ = 1, 6, 7, 9, 11
KEY_SPEC_SESSION_KEYRING = -3


def _nbg(celda) -> dict:
    return celda.get("metadata", {}).get("nbgrader", {}) or {}


def _hash_y_modo(ruta: Path) -> tuple[str, int]:
    st = os.lstat(ruta)
    return hashlib.sha256(ruta.read_bytes()).hexdigest(), stat.S_IMODE(st.st_mode)


def _lineas_ocultas(nb) -> list[str]:
    lineas, dentro = [], False
    for celda in nb.cells:
        for linea in celda.source.splitlines():
            if "BEGIN HIDDEN TESTS" in linea:
                dentro = True
            elif "END HIDDEN TESTS" in linea:
                dentro = False
            elif dentro and len(linea.strip()) > 24:
                lineas.append(linea.strip())
    return lineas


def _con_celdas(nb, *codigos: str):
    """``nb`` con celdas del atacante justo después de la primera celda de solución."""
    nuevo = nbformat.from_dict(json.loads(nbformat.writes(nb)))
    primera = next(i for i, c in enumerate(nuevo.cells) if _nbg(c).get("solution") and c.cell_type == "code")
    for k, codigo in enumerate(codigos):
        nuevo.cells.insert(primera + 1 + k, nbformat.v4.new_code_cell(textwrap.dedent(codigo)))
    return nuevo


def _rellenar(codigo: str, **valores: str) -> str:
    """Cambia cada ``@@CLAVE@@`` del código del atacante por su valor (sin pelear con las llaves de Python)."""
    for clave, valor in valores.items():
        codigo = codigo.replace(f"@@{clave.upper()}@@", valor)
    assert "@@" not in codigo, "quedó una marca sin valor en el código del atacante"
    return codigo


# --- el llavero del núcleo, visto desde quien califica ----------------------------------------

class _Llavero:
    """``keyctl`` con ctypes (sin keyutils): lo justo para preparar y revisar el llavero de sesión."""

    def __init__(self):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.numeros = _LLAMADAS_LLAVERO.get(platform.machine())

    def _llamar(self, numero: int, *args) -> int:
        return self.libc.syscall(ctypes.c_long(numero), *args)

    def keyctl(self, operacion: int, *args) -> int:
        return self._llamar(self.numeros[2], ctypes.c_long(operacion), *args)

    def unirse_a_sesion_nueva(self, nombre: str) -> int:
        """Como ``pam_keyinit`` al entrar por SSH, o runc al iniciar un contenedor: un llavero de sesión propio."""
        if self.numeros is None:
            return -1
        return self.keyctl(KEYCTL_JOIN_SESSION_KEYRING, ctypes.c_char_p(nombre.encode()))

    def agregar(self, descripcion: str, datos: bytes) -> int:
        return self._llamar(self.numeros[0], ctypes.c_char_p(b"user"), ctypes.c_char_p(descripcion.encode()),
                            ctypes.c_char_p(datos), ctypes.c_size_t(len(datos)), ctypes.c_long(KEY_SPEC_SESSION_KEYRING))

    def llaves_de_sesion(self) -> dict[int, str]:
        """id -> descripción de cada llave del llavero de sesión de este proceso."""
        buf = ctypes.create_string_buffer(16384)
        n = self.keyctl(KEYCTL_READ, ctypes.c_long(KEY_SPEC_SESSION_KEYRING), buf, ctypes.c_long(len(buf)))
        llaves = {}
        for i in range(0, max(0, min(n, len(buf))) - 3, 4):
            kid = int.from_bytes(buf.raw[i:i + 4], sys.byteorder, signed=True)
            desc = ctypes.create_string_buffer(1024)
            m = self.keyctl(KEYCTL_DESCRIBE, ctypes.c_long(kid), desc, ctypes.c_long(len(desc)))
            if m > 0:  # "tipo;uid;gid;permisos;descripción"
                llaves[kid] = desc.value.decode(errors="replace").split(";", 4)[-1]
        return llaves

    def quitar(self, kid: int) -> None:
        self.keyctl(KEYCTL_UNLINK, ctypes.c_long(kid), ctypes.c_long(KEY_SPEC_SESSION_KEYRING))


# --- los ataques -----------------------------------------------------------------------------
# Cada trozo corre dentro de un try: si uno se cae, los demás de la misma celda igual corren.

# Descriptores heredados: ¿queda abierto algo de afuera (una carpeta, un archivo, un socket con nombre)?
DESCRIPTORES = r"""
def _descriptores():
    import os, stat, sys, ipykernel
    import tutor_lib
    propias = [os.getcwd(), os.path.dirname(ipykernel.get_connection_file()), sys.prefix, sys.base_prefix,
               os.path.dirname(os.path.dirname(os.path.realpath(sys.executable))),
               os.path.dirname(tutor_lib.__file__), "/proc", "/dev", "/usr", "/lib", "/etc", "/sys"]
    nombrados = {}
    try:
        with open("/proc/net/unix") as f:
            for linea in f.read().splitlines()[1:]:
                campos = linea.split()
                if len(campos) >= 8:
                    nombrados[campos[6]] = campos[7]
    except OSError:
        pass
    for nombre in sorted(os.listdir("/proc/self/fd"), key=int):
        fd = int(nombre)
        try:
            destino = os.readlink(f"/proc/self/fd/{fd}")
            modo = os.fstat(fd).st_mode
        except OSError:
            continue
        print("FD", fd, stat.filemode(modo), destino)
        if fd <= 2:
            continue
        if destino.startswith("/") and not any(destino == p or destino.startswith(p.rstrip("/") + "/") for p in propias):
            print("FU" "GA[descriptores]: descriptor heredado", fd, "de", destino)
        if destino.startswith("socket:["):
            ruta = nombrados.get(destino[8:-1], "")
            if ruta.startswith("/") and not any(ruta.startswith(p.rstrip("/") + "/") for p in propias):
                print("FU" "GA[descriptores]: socket heredado", fd, "conectado a", ruta)
        if stat.S_ISDIR(modo):
            try:
                hermanos = os.listdir(f"/proc/self/fd/{fd}/..")
                if any(h in hermanos for h in ("privado", "solutions", "juez", "gradebook.db")):
                    print("FU" "GA[descriptores]: por el descriptor", fd, "veo", hermanos[:8])
            except OSError:
                pass
    # fd 1 y 2 son la tubería hacia nbgrader: leerla (abrirla de nuevo para leer) es posible, pero por ahí
    # solo pasa el registro de nbgrader de esta misma entrega; se informa como observación, no como fuga.
    try:
        lectura = os.open("/proc/self/fd/1", os.O_RDONLY | os.O_NONBLOCK)
        os.close(lectura)
        print("OBSERVACION[descriptores]: puedo abrir para leer la tubería de mi salida (la comparto con nbgrader)")
    except OSError:
        pass
try:
    _descriptores()
except Exception as exc:
    print("descriptores falló:", type(exc).__name__, exc)
print("ATAQUE" "-FIN[descriptores]")
"""

# El llavero de sesión: el kernel lo hereda de quien califica (y del servidor de precarga).
LLAVERO = r"""
def _llavero():
    import ctypes, hashlib, platform
    numeros = @@LLAMADAS@@.get(platform.machine())
    if numeros is None:
        print("llavero: arquitectura sin números de llamada conocidos")
        return
    add_key, request_key, keyctl = numeros
    libc = ctypes.CDLL(None, use_errno=True)
    def buscar(descripcion):
        kid = libc.syscall(ctypes.c_long(request_key), ctypes.c_char_p(b"user"), ctypes.c_char_p(descripcion.encode()),
                           None, ctypes.c_long(0))
        if kid < 0:
            return None
        buf = ctypes.create_string_buffer(4096)
        n = libc.syscall(ctypes.c_long(keyctl), ctypes.c_long(11), ctypes.c_long(kid), buf, ctypes.c_long(4096))
        return buf.raw[:max(n, 0)]
    secreto = buscar(@@SECRETO@@)
    if secreto is not None:
        print("FU" "GA[llavero]: leí la llave del instructor,", len(secreto), "bytes, sha256",
              hashlib.sha256(secreto).hexdigest()[:12])
    # Una llave para el compañero (y que quede en la sesión de quien califica); la busca la celda de vecinos.
    libc.syscall(ctypes.c_long(add_key), ctypes.c_char_p(b"user"), ctypes.c_char_p(b"tutor-vecino-@@YO@@"),
                 ctypes.c_char_p(b"rastro"), ctypes.c_size_t(6), ctypes.c_long(-3))
try:
    _llavero()
except Exception as exc:
    print("llavero falló:", type(exc).__name__, exc)
print("ATAQUE" "-FIN[llavero]")
"""

# Dos entregas calificadas a la vez: ¿hay un canal entre ellas, o rastros que persistan?
VECINOS = r"""
def _vecinos():
    import ctypes, os, platform, socket, threading, time
    yo, otro = "@@YO@@", "@@OTRO@@"
    clave = {"a": 0x74757401, "b": 0x74757402}
    libc = ctypes.CDLL(None, use_errno=True)
    llamadas = @@LLAMADAS@@.get(platform.machine())
    carpetas = ["/tmp", "/dev/shm", "/var/tmp", os.path.expanduser("~"), os.path.dirname(os.getcwd())]
    for carpeta in carpetas:
        try:
            with open(os.path.join(carpeta, f"tutor-vecino-{yo}"), "w") as f:
                f.write("rastro")
        except OSError:
            pass
    libc.shmget(ctypes.c_int(clave[yo]), ctypes.c_size_t(4096), ctypes.c_int(0o1000 | 0o666))  # IPC_CREAT
    servidores = []
    try:
        s = socket.socket(socket.AF_UNIX)
        s.bind(f"\0tutor-vecino-{yo}")
        s.listen(4)
        servidores.append(s)
    except OSError:
        pass
    try:
        s = socket.socket(socket.AF_INET)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", 47100 + ord(yo)))
        s.listen(4)
        servidores.append(s)
    except OSError:
        pass
    def atender(s):
        while True:
            try:
                c, _ = s.accept()
                c.close()
            except OSError:
                return
    for s in servidores:
        threading.Thread(target=atender, args=(s,), daemon=True).start()
    inicio = time.time()
    hallazgos = set()
    while time.time() < inicio + 6:  # la ventana entera: así las dos se buscan a la vez
        for carpeta in carpetas:
            if os.path.exists(os.path.join(carpeta, f"tutor-vecino-{otro}")):
                hallazgos.add(f"archivo en {carpeta}")
        if libc.shmget(ctypes.c_int(clave[otro]), ctypes.c_size_t(0), ctypes.c_int(0)) >= 0:
            hallazgos.add("memoria compartida System V")
        if llamadas and libc.syscall(ctypes.c_long(llamadas[1]), ctypes.c_char_p(b"user"),
                                     ctypes.c_char_p(f"tutor-vecino-{otro}".encode()), None, ctypes.c_long(0)) >= 0:
            hallazgos.add("llavero")
        for familia, direccion, nombre in ((socket.AF_UNIX, f"\0tutor-vecino-{otro}", "socket Unix abstracto"),
                                           (socket.AF_INET, ("127.0.0.1", 47100 + ord(otro)), "TCP en 127.0.0.1")):
            c = socket.socket(familia)
            c.settimeout(0.5)
            try:
                c.connect(direccion)
                hallazgos.add(nombre)
            except OSError:
                pass
            finally:
                c.close()
        time.sleep(0.25)
    print("VENTANA[vecinos]", round(inicio, 1), round(time.time(), 1))
    for h in sorted(hallazgos):
        tipo = "llavero" if h == "llavero" else "vecinos"  # el llavero tiene su propia prueba
        print("FU" f"GA[{tipo}]: llego al estudiante", otro, "por", h)
try:
    _vecinos()
except Exception as exc:
    print("vecinos falló:", type(exc).__name__, exc)
print("ATAQUE" "-FIN[vecinos]")
"""

# Límites: subirlos, prioridad de tiempo real, cgroup, y un espacio de usuario anidado (hijo de un solo hilo).
LIMITES = r"""
def _limites():
    import ctypes, os, resource
    for nombre in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NPROC", "RLIMIT_NOFILE", "RLIMIT_CORE"):
        recurso = getattr(resource, nombre)
        blando, duro = resource.getrlimit(recurso)
        if duro == resource.RLIM_INFINITY:
            continue
        for nuevo in (resource.RLIM_INFINITY, duro * 2 + 1):
            try:
                resource.setrlimit(recurso, (blando, nuevo))
                print("FU" "GA[limites]: subí", nombre, "de", duro, "a", nuevo)
                break
            except (ValueError, OSError):
                pass
    try:
        os.setpriority(os.PRIO_PROCESS, 0, -10)
        print("FU" "GA[limites]: prioridad", os.getpriority(os.PRIO_PROCESS, 0))
    except OSError:
        pass
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
        print("FU" "GA[limites]: tiempo real (SCHED_FIFO)")
        os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    except OSError:
        pass
    # Los archivos de mi cgroup (v1 y v2), para escribir.
    try:
        with open("/proc/self/cgroup") as f:
            lineas = f.read().splitlines()
    except OSError:
        lineas = []
    for linea in lineas:
        _, controladores, ruta = linea.split(":", 2)
        carpetas = [f"/sys/fs/cgroup/{c}{ruta}" for c in controladores.split(",") if c] or \
                   [f"/sys/fs/cgroup{ruta}", f"/sys/fs/cgroup/unified{ruta}"]
        for carpeta in carpetas:
            for archivo in ("cgroup.procs", "memory.max", "pids.max", "cpu.max", "memory.limit_in_bytes",
                            "cpu.cfs_quota_us", "pids.max"):
                ruta_archivo = os.path.join(carpeta, archivo)
                try:
                    fd = os.open(ruta_archivo, os.O_WRONLY)
                    os.close(fd)
                    print("FU" "GA[limites]: puedo escribir", ruta_archivo)
                except OSError:
                    pass
    # Un hijo de un solo hilo entra en un espacio de usuario, de montajes y de cgroup nuevos.
    libc = ctypes.CDLL(None, use_errno=True)
    tapadas = []
    with open("/proc/self/mountinfo") as f:
        for linea in f:
            campos = linea.split()
            if " - tmpfs " in linea and "size=64k" in linea:
                tapadas.append(campos[4])
    lectura, escritura = os.pipe()
    pid = os.fork()
    if pid == 0:
        hallado = []
        try:
            os.close(lectura)
            nuevos = 0x10000000 | 0x00020000 | 0x02000000  # CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWCGROUP
            if libc.unshare(nuevos) != 0 and libc.unshare(0x00020000 | 0x02000000) != 0:
                hallado.append("sin espacios anidados")
            else:
                for ruta in tapadas:
                    if libc.umount2(ruta.encode(), 2) == 0:  # MNT_DETACH
                        hallado.append("FU" f"GA[limites]: desmonté {ruta}, que estaba tapada")
                os.makedirs("/tmp/cg-propio", exist_ok=True)
                if libc.mount(b"none", b"/tmp/cg-propio", b"cgroup2", 0, None) == 0:
                    for archivo in ("memory.max", "pids.max", "cpu.max"):
                        try:
                            with open(f"/tmp/cg-propio/{archivo}", "w") as f:
                                f.write("max")
                            hallado.append("FU" f"GA[limites]: escribí {archivo} en un cgroup2 montado por mí")
                        except OSError:
                            pass
        except BaseException as exc:
            hallado.append(f"hijo: {type(exc).__name__}")
        finally:
            os.write(escritura, "\n".join(hallado).encode()[:60000])
            os._exit(0)
    os.close(escritura)
    datos = b""
    while True:
        trozo = os.read(lectura, 65536)
        if not trozo:
            break
        datos += trozo
    os.close(lectura)
    os.waitpid(pid, 0)
    for linea in datos.decode().splitlines():
        print(linea)
try:
    _limites()
except Exception as exc:
    print("limites falló:", type(exc).__name__, exc)
print("ATAQUE" "-FIN[limites]")
"""

# Un demonio que intenta seguir vivo después de calificar (la prueba lo busca por su nombre).
SOBREVIVIR = r"""
def _sobrevivir():
    import os, shutil, sys
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                dormir = shutil.which("sleep")
                try:
                    if dormir:
                        os.execv(dormir, ["@@FANTASMA@@", "300"])
                    os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(300)", "@@FANTASMA@@"])
                except OSError:
                    pass
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
try:
    _sobrevivir()
except Exception as exc:
    print("sobrevivir falló:", type(exc).__name__, exc)
print("ATAQUE" "-FIN[sobrevivir]")
"""

# Acaparar la CPU: ¿hay algo que me limite a un núcleo? Un cgroup propio del kernel (``tutor-*``) con cuota de
# CPU (cpu.max en v2, cpu.cfs_quota_us en v1). Sin eso, con más de un núcleo a mano, le quito CPU a quien se
# califica a la vez. La medición (4 procesos girando 1 s) solo se informa: en una máquina cargada no prueba nada.
ACAPARAR = r"""
def _acaparar():
    import os, resource, time
    cuota = None
    try:
        with open("/proc/self/cgroup") as f:
            lineas = f.read().splitlines()
    except OSError:
        lineas = []
    for linea in lineas:
        _, controladores, ruta = linea.split(":", 2)
        propia = os.path.basename(ruta.rstrip("/")).startswith("tutor-")  # el cgroup de este kernel, no uno compartido
        # Un cgroup cpu propio basta para el reparto justo: para el planificador, todos mis procesos juntos
        # pesan lo que un proceso de otro kernel (cpu.weight / cpu.shares). Un tope duro también vale.
        if controladores == "" and propia:
            for base in ("/sys/fs/cgroup", "/sys/fs/cgroup/unified"):
                if os.path.exists(f"{base}{ruta}/cpu.weight"):
                    cuota = "cgroup v2 cpu propio"
                try:
                    with open(f"{base}{ruta}/cpu.max") as f:
                        limite = f.read().split()[0]
                    if limite != "max":
                        cuota = f"cpu.max={limite}"
                except OSError:
                    pass
        if "cpu" in controladores.split(",") and propia:
            for nombre in ("cpu", "cpu,cpuacct", "cpuacct,cpu"):
                if os.path.exists(f"/sys/fs/cgroup/{nombre}{ruta}/cpu.shares"):
                    cuota = cuota or "cgroup v1 cpu propio"
                try:
                    with open(f"/sys/fs/cgroup/{nombre}{ruta}/cpu.cfs_quota_us") as f:
                        if int(f.read()) > 0:
                            cuota = "cpu.cfs_quota_us"
                except (OSError, ValueError):
                    pass
    nucleos_a_mano = len(os.sched_getaffinity(0))
    antes = resource.getrusage(resource.RUSAGE_CHILDREN)
    inicio = time.time()
    hijos = []
    for _ in range(4):
        pid = os.fork()
        if pid == 0:
            fin = time.time() + 1
            while time.time() < fin:
                pass
            os._exit(0)
        hijos.append(pid)
    for pid in hijos:
        os.waitpid(pid, 0)
    pared = time.time() - inicio
    despues = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (despues.ru_utime - antes.ru_utime) + (despues.ru_stime - antes.ru_stime)
    print(f"NUCLEOS[acaparar] {cpu / pared:.2f} de {nucleos_a_mano} a mano; cuota: {cuota}")
    if cuota is None and nucleos_a_mano > 1:
        print("FU" "GA[acaparar]: ningún cgroup cpu propio me reparte la CPU: puedo usar los", nucleos_a_mano,
              "núcleos mientras califican a mis compañeros")
try:
    _acaparar()
except Exception as exc:
    print("acaparar falló:", type(exc).__name__, exc)
print("ATAQUE" "-FIN[acaparar]")
"""

# Un árbol de 3000 carpetas en la carpeta de trabajo y en la de sockets: shutil.rmtree es recursivo.
ANIDAR = r"""
def _anidar():
    import os, ipykernel
    def anidar(base, niveles=3000):
        fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for _ in range(niveles):
                os.mkdir("a", dir_fd=fd)
                nuevo = os.open("a", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
                os.close(fd)
                fd = nuevo
        finally:
            os.close(fd)
    anidar(os.getcwd())
    sockets = os.path.dirname(ipykernel.get_connection_file())
    anidar(sockets)
    for carpeta in (os.getcwd(), sockets):
        with open(os.path.join(carpeta, "@@MARCA@@"), "w") as f:
            f.write("resto")
try:
    _anidar()
except Exception as exc:
    print("anidar falló:", type(exc).__name__, exc)
print("ATAQUE" "-FIN[anidar]")
"""

# Llenar el disco de quien califica: la carpeta de trabajo está en su disco y no tiene tope total.
DISCO = r"""
def _disco():
    import os
    reservados = 0
    try:
        for i in range(5):
            fd = os.open(f"relleno-{i}", os.O_WRONLY | os.O_CREAT, 0o600)
            try:
                os.posix_fallocate(fd, 0, 200 * 2**20)  # bloques de verdad en el disco, sin escribirlos
                reservados += 200
            finally:
                os.close(fd)
    except OSError as exc:
        print("disco:", exc)
    print("RESERVADOS[disco]", reservados, "MiB")
    if reservados >= @@TOPE@@:
        print("FU" "GA[disco]: reservé", reservados, "MiB en el disco de quien califica")
    for i in range(5):
        try:
            os.remove(f"relleno-{i}")
        except OSError:
            pass
try:
    _disco()
except Exception as exc:
    print("disco falló:", type(exc).__name__, exc)
print("ATAQUE" "-FIN[disco]")
"""

# Mensajes comm de widgets: nbclient guarda su estado en el notebook, sin tope y también mientras el juez pregunta.
WIDGETS = r"""
def _widgets():
    from comm import create_comm
    import tutor_lib.calificacion.juez.puente as puente
    estado = {"_model_name": "ModeloFuga", "_model_module": "fuga", "_model_module_version": "1.0.0"}
    # 1. Una bomba: 4 estados de 10 MiB cada uno (la salida de una celda se recorta en 1 MB).
    relleno = "x" * (10 * 2**20)
    for i in range(4):
        create_comm(target_name="jupyter.widget", data={"state": {**estado, "relleno": relleno, "i": i},
                                                         "buffer_paths": []})
    # 2. Cada pedido del juez, guardado como estado de un widget.
    responder = puente.responder
    def espiar(pedido, espacio=None):
        try:
            create_comm(target_name="jupyter.widget",
                        data={"state": {**estado, "pedido": "ESPI" "ADO: " + pedido}, "buffer_paths": []})
        except Exception:
            pass
        return responder(pedido, espacio)
    puente.responder = espiar
try:
    _widgets()
except Exception as exc:
    print("widgets falló:", type(exc).__name__, exc)
print("ATAQUE" "-FIN[widgets]")
"""

#: Qué tipos lleva cada entrega atacante (en ese orden, una celda cada uno).
ENTREGAS_ATACANTES = {
    # Las dos primeras en orden alfabético: son las dos primeras tareas y se califican a la vez.
    "a1_vecino": ("descriptores", "llavero", "vecinos"),
    "a2_vecino": ("llavero", "limites", "sobrevivir", "acaparar", "vecinos"),
    "anidar": ("anidar", "disco"),
    "widgets": ("widgets",),
}
CODIGO = {"descriptores": DESCRIPTORES, "llavero": LLAVERO, "vecinos": VECINOS, "limites": LIMITES,
          "sobrevivir": SOBREVIVIR, "acaparar": ACAPARAR, "anidar": ANIDAR, "disco": DISCO, "widgets": WIDGETS}


def _donde(tipo: str) -> list[str]:
    return [e for e, tipos in ENTREGAS_ATACANTES.items() if tipo in tipos]


def _procesos_con(texto: str) -> list[int]:
    """Los procesos de esta máquina cuya línea de órdenes contiene ``texto``."""
    pids = []
    for nombre in os.listdir("/proc"):
        if nombre.isdigit() and int(nombre) != os.getpid():
            try:
                with open(f"/proc/{nombre}/cmdline", "rb") as f:
                    if texto.encode() in f.read():
                        pids.append(int(nombre))
            except OSError:
                pass
    return pids


def _borrar_arbol(ruta: Path) -> None:
    """Borra un árbol aunque tenga miles de niveles (``rm -rf`` no es recursivo como shutil.rmtree)."""
    if os.path.lexists(ruta):
        subprocess.run(["rm", "-rf", "--one-file-system", str(ruta)], check=False)


def _restos_con_marca(marca: str) -> list[Path]:
    """Carpetas de sockets en /tmp (``tutor-s-*``) donde quedó el archivo ``marca`` de esta corrida."""
    restos = []
    for carpeta in Path("/tmp").glob("tutor-s-*"):
        try:
            if any((sub / marca).exists() for sub in carpeta.iterdir()) or (carpeta / marca).exists():
                restos.append(carpeta)
        except OSError:
            pass
    return restos


def _detalle_desde_avance(salida: Path) -> dict:
    """Si la corrida se cayó antes de escribir detalle.json, las notas que alcanzó a anotar."""
    detalle = {}
    ruta = salida / "avance.jsonl"
    if ruta.is_file():
        for linea in ruta.read_text(encoding="utf-8").splitlines():
            try:
                d = json.loads(linea)
                detalle[d["estudiante"]] = d["calificacion"]
            except (ValueError, KeyError):
                pass
    return detalle


@pytest.fixture(scope="module")
def liberado():
    """El notebook liberado de la asignación (nbgrader generate_assignment, una vez por módulo)."""
    from tutor_lib.calificacion.motor.calificador import CursoTemporal

    with CursoTemporal(ASIG) as curso:
        return curso.liberado


@pytest.fixture(scope="module")
def clase(tmp_path_factory, liberado):
    """Arma la clase, la califica una vez y anota todo lo que se ve desde afuera."""
    base = tmp_path_factory.mktemp("ataques_nuevos")
    tmp_clase = base / "tmp-de-la-clase"
    tmp_clase.mkdir()
    entregas = base / "entregas"
    entregas.mkdir()
    corrida = secrets.token_hex(6)
    marca = f"tutor-resto-{corrida}"
    fantasma = f"tutor-fantasma-{corrida}"
    fuente_nb = nbformat.read(fuente(ASIG), as_version=4)

    # Canarios: en la carpeta personal de quien califica y en la carpeta temporal.
    canario_home = Path.home() / f".tutor-canario-nuevos-{corrida}"
    canario_home.write_text("export PS1='instructor'\n")
    canario_home.chmod(0o600)
    canario_tmp = tmp_clase / "canario.txt"
    canario_tmp.write_text("no me toques\n")

    # Quien califica entró por SSH (pam_keyinit) o corre en un contenedor (runc): tiene un llavero de sesión
    # propio, con un secreto. El kernel lo hereda si nadie se lo cambia. (Este proceso de pytest se queda con
    # ese llavero nuevo hasta terminar; al final se vacía.)
    llavero = _Llavero()
    con_llavero = llavero.unirse_a_sesion_nueva(f"tutor-sesion-{corrida}") >= 0 and \
        llavero.agregar(DESCRIPCION_SECRETO, SECRETO_LLAVERO) >= 0

    referencia = entrega_de_referencia(fuente_nb, liberado)

    def escribir(nombre: str, nb) -> Path:
        carpeta = entregas / nombre
        carpeta.mkdir()
        ruta = carpeta / f"{ASIG}.ipynb"
        nbformat.write(nb, ruta)
        return ruta

    escribir("honesta_1", referencia)
    escribir("honesta_2", referencia)
    parejas = {"a1_vecino": ("a", "b"), "a2_vecino": ("b", "a")}
    for nombre, tipos in ENTREGAS_ATACANTES.items():
        yo, otro = parejas.get(nombre, ("x", "y"))
        codigos = [_rellenar(CODIGO[t], yo=yo, otro=otro, llamadas=repr(_LLAMADAS_LLAVERO),
                             secreto=repr(DESCRIPCION_SECRETO), fantasma=fantasma, marca=marca,
                             tope=str(TOPE_DISCO_MIB)) for t in tipos]
        escribir(nombre, _con_celdas(referencia, *codigos))

    originales = {p: _hash_y_modo(p) for p in entregas.rglob("*.ipynb")}
    canarios = {p: _hash_y_modo(p) for p in (canario_home, canario_tmp)}
    llaves_antes = set(llavero.llaves_de_sesion()) if con_llavero else set()

    salida = base / "salida"
    viejo_tmp = tempfile.tempdir
    viejo_env = os.environ.get("TMPDIR")
    tempfile.tempdir = str(tmp_clase)
    os.environ["TMPDIR"] = str(tmp_clase)
    excepcion = None
    try:
        calificar_clase(ASIG, entregas, salida, procesos=2)
    except Exception:  # noqa: BLE001 — una entrega no debe poder tumbar la corrida: se anota y se revisa abajo
        excepcion = traceback.format_exc()
    finally:
        tempfile.tempdir = viejo_tmp
        if viejo_env is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = viejo_env

    # Lo que se ve desde afuera, justo después de calificar.
    sobrevivientes = _procesos_con(fantasma)
    llaves_despues = llavero.llaves_de_sesion() if con_llavero else {}
    llaves_dejadas = {k: d for k, d in llaves_despues.items() if k not in llaves_antes}
    restos_tmp = [p.name for p in tmp_clase.iterdir() if p.name.startswith("tutor-")]
    restos_sockets = _restos_con_marca(marca)
    rastros_anfitrion = [str(p) for c in ("/tmp", "/dev/shm", "/var/tmp") for p in Path(c).glob("tutor-vecino-*")]
    ruta_detalle = salida / "detalle.json"
    detalle = json.loads(ruta_detalle.read_text(encoding="utf-8")) if ruta_detalle.is_file() else \
        _detalle_desde_avance(salida)
    resultado = dict(excepcion=excepcion, detalle=detalle, salida=salida, originales=originales,
                     canarios=canarios, ocultas=_lineas_ocultas(fuente_nb), con_llavero=con_llavero,
                     sobrevivientes=sobrevivientes, llaves_dejadas=llaves_dejadas, restos_tmp=restos_tmp,
                     restos_sockets=restos_sockets, rastros_anfitrion=rastros_anfitrion, tmp_clase=tmp_clase)
    try:
        yield resultado
    finally:
        for pid in sobrevivientes:  # solo los procesos de este ataque, por su número
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        for kid in llaves_despues:
            llavero.quitar(kid)
        canario_home.unlink(missing_ok=True)
        for resto in restos_sockets:
            _borrar_arbol(resto)
        _borrar_arbol(tmp_clase)  # árboles de miles de niveles: el rmtree de pytest se caería con ellos


def _retro(clase, id_: str) -> str:
    ruta = clase["salida"] / "retroalimentacion" / id_ / f"{ASIG}.html"
    assert ruta.is_file(), f"falta la retroalimentación de {id_}"
    return ruta.read_text(encoding="utf-8")


def _registro(clase, id_: str) -> str:
    ruta = clase["salida"] / "registros" / f"{id_}.log"
    return ruta.read_text(encoding="utf-8")[-3000:] if ruta.is_file() else "(sin registro)"


def _fugas(clase, tipo: str) -> list[str]:
    """Las líneas ``FUGA[tipo]`` de las entregas que llevan ese ataque (y que el ataque corrió)."""
    lineas = []
    for id_ in _donde(tipo):
        texto = _retro(clase, id_)
        assert f"ATAQUE-FIN[{tipo}]" in texto, f"el ataque {tipo} de {id_} debía correr hasta el final"
        lineas += [l.strip() for l in texto.splitlines() if f"FUGA[{tipo}]" in l]
    return lineas


# --- la clase en conjunto -------------------------------------------------------------------

def test_los_honestos_conservan_su_nota(clase):
    for id_ in ("honesta_1", "honesta_2"):
        d = clase["detalle"][id_]
        assert d["estado"] == "calificado", (d["mensaje"], _registro(clase, id_))
        automaticos = d["maximo"] - sum(p["maximo"] for p in d["partes"] if p["puntos"] is None)
        assert d["puntos"] == automaticos, d["partes"]
        assert d["aislamiento"].get("completo"), d["aislamiento"]


@pytest.mark.parametrize("id_", sorted(ENTREGAS_ATACANTES))
def test_cada_atacante_tiene_la_nota_de_la_referencia(clase, id_):
    esperado = clase["detalle"]["honesta_1"]["puntos"]
    d = clase["detalle"][id_]
    assert d["estado"] == "calificado", (d["mensaje"], _registro(clase, id_))
    assert d["puntos"] == esperado, (d["puntos"], esperado, d["partes"])
    assert d["aislamiento"].get("completo"), d["aislamiento"]


def test_ninguna_salida_dice_fuga_ni_trae_pruebas_ocultas(clase):
    """Resumen: ninguna salida (CSV, JSON, retroalimentación) tiene una línea FUGA ni una prueba oculta."""
    fugas, ocultas = [], []
    for ruta in clase["salida"].rglob("*"):
        if ruta.is_file() and ruta.suffix in (".csv", ".json", ".html", ".jsonl"):
            texto = ruta.read_text(encoding="utf-8", errors="ignore")
            fugas += [f"{ruta.name}: {l.strip()[:160]}" for l in texto.splitlines() if "FUGA[" in l]
            ocultas += [f"{ruta.name}: {o}" for o in clase["ocultas"] if o in texto]
    assert not ocultas, ocultas[:5]
    assert not fugas, fugas[:20]


def test_nada_fuera_de_las_carpetas_del_estudiante_cambia(clase):
    for ruta, antes in {**clase["canarios"], **clase["originales"]}.items():
        assert _hash_y_modo(ruta) == antes, f"{ruta} cambió"


# --- cada tipo de ataque --------------------------------------------------------------------

def test_llavero_de_sesion(clase):
    # ANTES FUNCIONABA. El kernel heredaba el llavero de sesión del núcleo de quien califica (ni un espacio de
    # usuario nuevo ni bajar a otro uid lo cambian): leía sus llaves (aquí, el secreto del instructor), le dejaba
    # llaves y le pasaba datos a otro estudiante calificado a la vez. Lo ataja: aislamiento llama
    # keyctl(KEYCTL_JOIN_SESSION_KEYRING, NULL) antes del kernel (un llavero de sesión nuevo y vacío).
    if not clase["con_llavero"]:
        pytest.skip("este núcleo no deja crear llaveros (seccomp o sin keyctl): el ataque no tiene por dónde entrar")
    problemas = _fugas(clase, "llavero")
    if clase["llaves_dejadas"]:
        problemas.append(f"llaves que dejaron los estudiantes en la sesión de quien califica, aún ahí: "
                         f"{sorted(clase['llaves_dejadas'].values())}")
    assert not problemas, problemas


def test_vecinos_sin_canal_ni_rastros(clase):
    # Hoy se defiende: cada kernel tiene su /tmp, su /dev/shm, su IPC y su red (abstract sockets incluidos).
    fugas = _fugas(clase, "vecinos")
    assert not fugas, fugas
    assert not clase["rastros_anfitrion"], clase["rastros_anfitrion"]
    ventanas = []
    for id_ in _donde("vecinos"):
        ventanas += [(float(a), float(b)) for a, b in re.findall(r"VENTANA\[vecinos\] ([\d.]+) ([\d.]+)", _retro(clase, id_))]
    assert len(ventanas) == 2, ventanas
    (a0, a1), (b0, b1) = ventanas
    assert min(a1, b1) > max(a0, b0), f"las dos entregas debían buscarse a la vez: {ventanas}"


def test_descriptores_heredados(clase):
    # Hoy se defiende: la precarga cierra todo salvo 0, 1 y 2 antes del kernel.
    fugas = _fugas(clase, "descriptores")
    assert not fugas, fugas


def test_limites_no_se_suben(clase):
    # Hoy se defiende: los rlimits duros no suben sin CAP_SYS_RESOURCE del espacio inicial, /sys es de solo
    # lectura y los montajes heredados están bloqueados aunque el kernel cree espacios anidados.
    fugas = _fugas(clase, "limites")
    assert not fugas, fugas


def test_ningun_proceso_sobrevive(clase):
    # Hoy se defiende: el kernel es el proceso 1 de su espacio de PID; al terminar, el núcleo mata al resto.
    assert "ATAQUE-FIN[sobrevivir]" in _retro(clase, _donde("sobrevivir")[0])
    assert not clase["sobrevivientes"], f"procesos del atacante vivos después de calificar: {clase['sobrevivientes']}"


def test_acaparar_la_cpu(clase):
    # ANTES FUNCIONABA. No había tope de CPU por kernel (RLIMIT_CPU es por proceso): 255 procesos girando
    # dejaban sin CPU a las entregas calificadas a la vez, que podían terminar en «tiempo agotado» con 0. Lo
    # ataja: grupos_de_control da a cada kernel un cgroup con cpu.max (v2) o cpu.cfs_quota_us (v1).
    fugas = _fugas(clase, "acaparar")
    assert not fugas, fugas


def test_la_clase_termina_aunque_una_entrega_anide_carpetas(clase):
    # ANTES FUNCIONABA. Un árbol de 3000 carpetas hacía que shutil.rmtree (recursivo en Python 3.11) lanzara
    # RecursionError al cerrar: la clase se caía después de calificar a todos, sin calificaciones.csv, y la
    # carpeta temporal (con la libreta y las pruebas ocultas) quedaba en el disco. Lo ataja: la carpeta de
    # trabajo del kernel es un tmpfs suyo, y lo que queda se borra sin recursión (archivos.borrar_arbol).
    assert clase["excepcion"] is None, "calificar_clase se cayó:\n" + clase["excepcion"][-600:]
    assert (clase["salida"] / "calificaciones.csv").is_file(), "faltan las notas de la clase"


def test_no_quedan_restos_de_la_calificacion(clase):
    # ANTES FUNCIONABA (el mismo de arriba): ver test_la_clase_termina_aunque_una_entrega_anide_carpetas.
    restos = [f"en TMPDIR: {r}" for r in clase["restos_tmp"]] + [f"sockets en /tmp: {r}" for r in clase["restos_sockets"]]
    assert not restos, f"quedaron carpetas de la calificación: {restos}"


def test_el_disco_de_quien_califica_tiene_tope(clase):
    # ANTES FUNCIONABA. La carpeta de trabajo del kernel estaba en el disco de quien califica, sin tope total:
    # una entrega reservaba gigas (aquí 1000 MiB con fallocate) y agotaba los inodos. Lo ataja: la carpeta de
    # trabajo es un tmpfs propio de 512 MiB (aislamiento.trabajo_mb), cuya memoria cuenta el cgroup.
    fugas = _fugas(clase, "disco")
    assert not fugas, fugas


def test_widgets_sin_tope_y_sin_pedidos_del_juez(clase):
    # Funcionaba en 65f9b3b (el notebook autocalificado pesó 40 MiB y guardó 51 pedidos del juez): nbclient
    # guarda en nb.metadata.widgets el estado de todo mensaje comm de jupyter.widget (handle_comm_msg +
    # set_widgets_metadata), sin los topes de salida de EjecutarConJuez.output (1 MB por celda, 10 MB por
    # notebook) y también mientras el juez pregunta: memoria de nbgrader y disco de la salida sin límite.
    # El ejecutor ya lo ataja (store_widget_state=False y handle_comm_msg que no guarda nada); esta prueba lo cuida.
    assert "ATAQUE-FIN[widgets]" in _retro(clase, "widgets")
    ruta = clase["salida"] / "autocalificados" / "widgets.ipynb"
    assert ruta.is_file(), "falta el notebook autocalificado de la entrega widgets"
    tamano = ruta.stat().st_size
    espiados = ruta.read_text(encoding="utf-8", errors="ignore").count("ESPIADO")
    problemas = []
    if tamano > TOPE_AUTOCALIFICADO:
        problemas.append(f"el notebook autocalificado pesa {tamano / 2**20:.0f} MiB")
    if espiados:
        problemas.append(f"{espiados} pedidos del juez guardados en el notebook autocalificado")
    assert not problemas, problemas


# --- sin clase: una entrega cuya retroalimentación no termina -------------------------------

class _Tarde(BaseException):
    """La alarma de la prueba de abajo (BaseException: ninguna biblioteca la atrapa con «except Exception»)."""


def test_retroalimentacion_lenta_con_celdas_hostiles(liberado):
    # ANTES FUNCIONABA. bleach (html5lib) es cuadrático con etiquetas abiertas anidadas: 40 KB de «<div>» en
    # una celda de markdown del estudiante volvían la retroalimentación decenas de veces más lenta, y una sola
    # entrega de 50 MiB hacía que generate_feedback de toda la clase se pasara de tiempo. Lo ataja:
    # retroalimentacion acota el texto de cada celda del estudiante (MAX_FUENTE_CELDA, 20 000 caracteres).
    import signal
    import time

    from tutor_lib.calificacion.reconstruccion import normalizar
    from tutor_lib.calificacion.retroalimentacion import ExportadorRetroalimentacion

    def preparar(nb):
        reconstruido, _ = normalizar(json.loads(nbformat.writes(nb)), liberado)
        for celda in reconstruido.cells:  # lo que anotan NotasConPendientes y PrepararRetroalimentacion
            meta = _nbg(celda)
            if meta.get("grade"):
                meta.update(score=0.0, points=float(meta.get("points", 0)), aprobada=False, pendiente=False)
        return reconstruido

    recursos = {"nbgrader": {"notebook": ASIG, "student": "x", "score": 0, "max_score": 11, "late_penalty": 0}}

    def generar(nb) -> float:
        inicio = time.perf_counter()
        ExportadorRetroalimentacion().from_notebook_node(nb, recursos)
        return time.perf_counter() - inicio

    referencia = entrega_de_referencia(nbformat.read(fuente(ASIG), as_version=4), liberado)
    hostil = _con_celdas(referencia, "x = [1, 2, 'abc']  # comentario\n" * 3000)  # 96 KB de código
    hostil.cells.insert(2, nbformat.v4.new_markdown_cell("<div>" * 8000))  # 40 KB de etiquetas abiertas
    honesta, hostil = preparar(referencia), preparar(hostil)
    generar(honesta)  # la primera vez compila la plantilla
    base = generar(honesta)
    limite = 3 * base + 2  # una entrega no puede costar más que tres honestas (y 2 s de gracia)

    def alarma(*_):
        raise _Tarde()

    anterior = signal.signal(signal.SIGALRM, alarma)
    signal.setitimer(signal.ITIMER_REAL, limite)
    try:
        segundos = generar(hostil)
    except _Tarde:
        pytest.fail(f"la retroalimentación de una entrega hostil tardó más de {limite:.1f} s (la de una honesta, "
                    f"{base:.1f} s): una celda de 40 KB de «<div>» y una de 96 KB de código bastan")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, anterior)
    assert segundos <= limite
