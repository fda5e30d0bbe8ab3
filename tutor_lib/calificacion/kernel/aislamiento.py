"""Aislamiento del kernel que ejecuta el código de un estudiante al calificar.

Calificar es ejecutar código ajeno. ``tutor calificar`` y ``tutor corregir``
(ver :mod:`tutor_lib.calificacion.motor.calificador`) arrancan el kernel de nbgrader a través de
este módulo, que antes de convertirse en el kernel (``execve``):

1. abre el archivo del informe (``O_NOFOLLOW``, en una carpeta que el kernel no
   ve) y fija límites: memoria virtual, segundos de CPU, tamaño de archivo,
   sin archivos de núcleo y, si la máquina lo permite, un cgroup v2 con
   ``memory.max`` (cuenta también lo escrito en ``/tmp``) y ``pids.max``;
2. si corre como root (Colab, Docker, CI), entrega las carpetas escribibles a
   un usuario sin privilegios (clave ``uid``; por omisión uno libre entre
   60000 y 64999, sin entrada en ``/etc/passwd``) y el kernel corre con él;
3. entra en espacios de nombres propios (montajes, red, IPC, nombre de máquina y
   PID; sin root, también de usuario): sin red hacia afuera (solo un loopback propio, encendido para que
   varios procesos del kernel hablen entre sí, p. ej. gloo en ej13, y que no llega al del anfitrión); y una
   **vista del disco por lista de permitidos**: una raíz nueva (``pivot_root``; la vieja se desmonta) donde
   reaparecen, en su misma ruta y de solo lectura, solo lo de :data:`SISTEMA` (bibliotecas compartidas,
   programas, unos pocos archivos de ``/etc``) y ``visibles`` (Python, sus paquetes, tutor_lib y las cachés
   de modelos: :func:`rutas_necesarias`), más las ``escribibles``, un ``/tmp`` y un ``/dev/shm`` privados,
   vacíos y de tamaño acotado (clave ``tmp_mb``), un ``/dev`` mínimo (null, zero, full, random, urandom),
   ``/sys`` de solo lectura y un ``/proc`` nuevo que solo muestra los procesos del kernel. Cualquier otra
   ruta no existe para el kernel, dondequiera que el instructor guarde el curso, las entregas o las
   corridas anteriores; los secretos de ``ocultar`` se tapan aunque queden dentro de algo visible;
4. baja al usuario sin privilegios, entra en un último espacio de usuario (los
   montajes quedan *bloqueados*: no se pueden desmontar), prohíbe ganar
   privilegios nuevos (programas setuid) y limita la cantidad de procesos
   (``RLIMIT_NPROC`` si no hubo cgroup);
5. escribe el informe, cierra su descriptor y solo entonces ejecuta el kernel
   con un entorno de variables por lista blanca.

El kernel es el proceso 1 de su espacio de PID: cuando termina o lo matan, el
núcleo mata todo lo que haya lanzado. El informe dice con honestidad qué se
logró (``completo``, ``protecciones``, ``error``); si el sistema no permite
espacios de nombres, el kernel corre solo con los límites (y, si había root,
igual sin root). La guía del instructor (``course/GUIA_INSTRUCTOR.md``)
explica qué protege esto y qué no.

Uso (lo escribe el calificador en el ``kernel.json`` que le da a nbgrader)::

    python -m tutor_lib.calificacion.kernel.aislamiento python -m ipykernel_launcher -f {connection_file}

La configuración llega en la variable de entorno ``TUTOR_AISLAMIENTO`` (JSON).
Claves: ``escribibles``, ``visibles``, ``ocultar`` (listas de rutas; ``tapar``, de
versiones anteriores, se acepta y ya no hace falta), ``informe`` (ruta), ``memoria_mb``, ``cpu_s``, ``archivo_mb``, ``tmp``
(el ``TMPDIR`` del kernel, ``/tmp``) y, opcionales: ``uid``/``gid`` (usuario
del kernel si se corre como root), ``tmp_mb`` (tamaño de ``/tmp`` y de
``/dev/shm``, 256), ``procesos`` (procesos e hilos como máximo, 256),
``cgroup`` (carpeta de un cgroup v2 delegado donde crear el del kernel; por
omisión, el cgroup propio), ``cpu_nucleos`` (tope duro de CPU del cgroup), ``efimeras`` (carpetas
escribibles que el kernel recibe como un tmpfs propio de ``trabajo_mb`` MB, 512, en lugar de la
carpeta real), ``entorno`` (nombres de variables extra que pueden
pasar), ``dispositivos`` (archivos extra de ``/dev``, p. ej. de una GPU) y
``espacios`` (``false``: solo límites).
"""

from __future__ import annotations

import ctypes
import errno
import functools
import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

from tutor_lib.calificacion.kernel.grupos_de_control import (  # noqa: F401
    PROCESOS,
    TMP_MB,
    GrupoDeControl,
    Grupos,
    grupo_de_control,
)

VARIABLE = "TUTOR_AISLAMIENTO"

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
CLONE_NEWPID = 0x20000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUTS = 0x04000000
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_NOATIME = 1024
MS_NODIRATIME = 2048
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MS_RELATIME = 1 << 21

# Banderas de statvfs que hay que conservar al volver a montar (si no, el
# núcleo rechaza el cambio dentro de un espacio de usuario).
_CONSERVAR = (
    (os.ST_NOSUID, MS_NOSUID),
    (os.ST_NODEV, MS_NODEV),
    (os.ST_NOEXEC, MS_NOEXEC),
    (os.ST_NOATIME, MS_NOATIME),
    (os.ST_NODIRATIME, MS_NODIRATIME),
    (os.ST_RELATIME, MS_RELATIME),
)

#: Usuarios del kernel cuando el calificador corre como root: uno libre de este rango
#: (sin entrada en /etc/passwd), distinto para cada kernel que corre a la vez.
UID_BASE = 60000
UID_CANTIDAD = 5000
#: Tamaño por omisión de la carpeta de trabajo del kernel cuando es efímera (un tmpfs), en MB.
TRABAJO_MB = 512
# Tamaño por omisión de /tmp y de /dev/shm dentro del kernel (TMP_MB, en MB) y procesos e hilos como
# máximo (PROCESOS): vienen de tutor_lib.calificacion.kernel.grupos_de_control.
#: Lo único que queda en /dev (más /dev/shm y los enlaces fd, stdin, stdout, stderr).
DISPOSITIVOS = ("null", "zero", "full", "random", "urandom")

# Variables de entorno que nunca deben llegar al código de un estudiante (aunque estén permitidas).
_SECRETOS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "CREDENTIAL")
# Lista blanca: solo estas variables llegan al kernel (y las que la configuración nombre en ``entorno``).
_PERMITIDAS = frozenset({
    "PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TERM",
    "PYTHONPATH", "PYTHONHOME", "PYTHONWARNINGS", "PYTHONHASHSEED", "PYTHONIOENCODING", "PYTHONUTF8",
    "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "PYTHONNOUSERSITE", "PYTHONSAFEPATH",
    "PYTHONPYCACHEPREFIX", "PYDEVD_DISABLE_FILE_VALIDATION",
    "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS", "MALLOC_ARENA_MAX", "KMP_DUPLICATE_LIB_OK",
    "HF_HOME", "HF_HUB_CACHE", "HF_DATASETS_CACHE", "TRANSFORMERS_CACHE", "HF_HUB_OFFLINE",
    "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HUB_DISABLE_TELEMETRY",
    "HF_HUB_DISABLE_PROGRESS_BARS", "HF_HUB_DISABLE_SYMLINKS_WARNING", "HF_HUB_DISABLE_IMPLICIT_TOKEN",
    "HF_DATASETS_DISABLE_PROGRESS_BARS", "TOKENIZERS_PARALLELISM", "TRANSFORMERS_VERBOSITY",
    "TRANSFORMERS_NO_ADVISORY_WARNINGS", "DO_NOT_TRACK", "XDG_CACHE_HOME", "TORCH_HOME",
    "CUDA_VISIBLE_DEVICES", "MPLBACKEND", "MPLCONFIGDIR", "TMPDIR",
    "NBGRADER_EXECUTION", "NBGRADER_VALIDATING", "IPYKERNEL_CELL_NAME", "COLAB_RELEASE_TAG",
    # Por nombre, nunca por prefijo: un secreto llamado TUTOR_* o JUPYTER_* no pasa.
    "LC_ALL", "LC_CTYPE", "LC_NUMERIC", "LC_TIME", "LC_COLLATE", "LC_MONETARY", "LC_MESSAGES",
    "LC_PAPER", "LC_NAME", "LC_ADDRESS", "LC_TELEPHONE", "LC_MEASUREMENT", "LC_IDENTIFICATION",
    "JPY_PARENT_PID", "JPY_SESSION_NAME", "JPY_INTERRUPT_EVENT", "JUPYTER_PLATFORM_DIRS", "JUPYTER_RUNTIME_DIR",
    "TUTOR_MODO", "TUTOR_CACHE", "TUTOR_PRECISION_CPU",
})

_libc = ctypes.CDLL(None, use_errno=True)


def _error(accion: str) -> OSError:
    numero = ctypes.get_errno()
    return OSError(numero, f"{accion}: {os.strerror(numero)}")


def _encender_loopback() -> None:
    """Enciende ``lo`` en el espacio de red recién creado (nace apagado).

    Ese loopback es del espacio de red del kernel, no del anfitrión: conecta los procesos que el
    kernel lance (dos procesos de ``torch.distributed`` con gloo en ej13) y nada más. Los
    servicios del anfitrión en 127.0.0.1 viven en otro espacio y no se alcanzan
    (tests/test_aislamiento.py lo ataca).
    """
    import fcntl
    import socket
    import struct

    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        pedido = struct.pack("16sH22x", b"lo", 0)
        banderas = struct.unpack("16sH22x", fcntl.ioctl(s, siocgifflags, pedido))[1]
        fcntl.ioctl(s, siocsifflags, struct.pack("16sH22x", b"lo", banderas | iff_up))


def _unshare(banderas: int) -> None:
    if _libc.unshare(banderas) != 0:
        raise _error("unshare")


def _mount(origen: str | None, destino: str, tipo: str | None, banderas: int, datos: str | None = None) -> None:
    cod = lambda s: None if s is None else s.encode()  # noqa: E731
    if _libc.mount(cod(origen), cod(destino), cod(tipo), ctypes.c_ulong(banderas), cod(datos)) != 0:
        raise _error(f"mount {destino}")


def _prctl(opcion: int, valor: int) -> None:
    if _libc.prctl(opcion, ctypes.c_ulong(valor), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)) != 0:
        raise _error("prctl")


def _escribir(ruta: str, texto: str) -> None:
    with open(ruta, "w") as f:
        f.write(texto)


def _mapear_usuario(uid: int, gid: int) -> None:
    """Dentro del nuevo espacio de usuario, el mismo uid y gid que afuera."""
    try:
        _escribir("/proc/self/setgroups", "deny")
    except FileNotFoundError:  # núcleos muy viejos
        pass
    _escribir("/proc/self/uid_map", f"{uid} {uid} 1")
    _escribir("/proc/self/gid_map", f"{gid} {gid} 1")


def _banderas_conservadas(ruta: str) -> int:
    try:
        f_flag = os.statvfs(ruta).f_flag
    except OSError:
        return 0
    return sum(ms for st, ms in _CONSERVAR if f_flag & st)


def _decodificar(campo: str) -> str:
    """Los campos de mountinfo escapan espacios y otros caracteres como ``\\040``."""
    return campo.encode().decode("unicode_escape")


def _puntos_de_montaje() -> list[str]:
    with open("/proc/self/mountinfo") as f:
        return [_decodificar(linea.split()[4]) for linea in f]


def limites(conf: dict) -> None:
    """Límites del proceso del kernel (los heredan sus hijos)."""
    import resource

    pares = {
        "memoria_mb": (resource.RLIMIT_AS, 2**20),
        "cpu_s": (resource.RLIMIT_CPU, 1),
        "archivo_mb": (resource.RLIMIT_FSIZE, 2**20),
    }
    for clave, (recurso, escala) in pares.items():
        valor = conf.get(clave)
        if valor:
            resource.setrlimit(recurso, (int(valor * escala), int(valor * escala)))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _limitar_procesos(cantidad: int) -> None:
    """Respaldo sin cgroup: ``RLIMIT_NPROC`` cuenta los procesos e hilos del uid del kernel."""
    import resource

    resource.setrlimit(resource.RLIMIT_NPROC, (cantidad, cantidad))


def _abrir(ruta: str) -> int:
    return os.open(ruta, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)


def dentro_de(ruta: Path, base: Path) -> bool:
    """¿``ruta`` es ``base`` o está debajo de ella? (lo usa también el calificador)"""
    return ruta == base or base in ruta.parents


# -- el informe: un solo canal, abierto antes de aislar y cerrado antes del kernel --------------

def _abrir_informe(ruta: str | None) -> int | None:
    """Descriptor del informe, abierto antes de aislar (el kernel nunca ve esa carpeta).

    No sigue enlaces simbólicos ni abre nada que no sea un archivo común.
    """
    if not ruta:
        return None
    banderas = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(ruta, banderas, 0o600)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    os.ftruncate(fd, 0)
    return fd


def _entregar_informe(fd: int | None, informe: dict) -> None:
    if fd is None:
        return
    try:
        datos = json.dumps(informe, ensure_ascii=False, indent=1).encode()
        while datos:
            datos = datos[os.write(fd, datos):]
    except OSError:
        pass
    finally:
        os.close(fd)


# -- sin root ---------------------------------------------------------------------------------

def _uid_libre() -> int:
    """Un uid del rango del kernel sin entrada en /etc/passwd y sin procesos vivos."""
    import grp
    import pwd

    en_uso = set()
    for entrada in os.scandir("/proc"):
        if entrada.name.isdigit():
            try:
                en_uso.add(entrada.stat().st_uid)
            except OSError:
                pass
    inicio = os.getpid() % UID_CANTIDAD
    for i in range(UID_CANTIDAD):
        uid = UID_BASE + (inicio + i) % UID_CANTIDAD
        if uid in en_uso:
            continue
        try:
            pwd.getpwuid(uid)
            continue
        except KeyError:
            pass
        try:
            grp.getgrgid(uid)
            continue
        except KeyError:
            return uid
    raise OSError(errno.EAGAIN, "no hay ningún uid libre para el kernel")


def usuario_del_kernel(conf: dict) -> tuple[int, int] | None:
    """(uid, gid) al que baja el kernel si el calificador es root; None si no es root."""
    if os.geteuid() != 0:
        return None
    uid = int(conf["uid"]) if conf.get("uid") is not None else _uid_libre()
    gid = int(conf["gid"]) if conf.get("gid") is not None else uid
    if uid == 0 or gid == 0:
        raise ValueError("el uid y el gid del kernel no pueden ser 0")
    return uid, gid


def _entregar_carpetas(carpetas: list[Path], uid: int, gid: int) -> None:
    """Las carpetas escribibles y lo que tienen directamente (p. ej. el archivo de conexión)
    pasan al usuario del kernel. No sigue enlaces ni baja más de un nivel."""
    for carpeta in carpetas:
        fd = os.open(carpeta, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            os.fchown(fd, uid, gid)
            for nombre in os.listdir(fd):
                os.chown(nombre, uid, gid, dir_fd=fd, follow_symlinks=False)
        finally:
            os.close(fd)


def _bajar_a(uid: int, gid: int) -> None:
    """Deja de ser root para siempre: sin grupos extra, uid y gid del kernel, sin capacidades."""
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    # Cambiar de uid vuelve «no volcable» al proceso y entonces no puede escribir su propio
    # /proc/self/uid_map; y borra la señal de muerte del padre.
    _prctl(PR_SET_DUMPABLE, 1)
    _morir_con_el_padre()
    try:
        os.setuid(0)
    except PermissionError:
        return
    raise OSError(errno.EPERM, "el kernel pudo volver a ser root")


# -- espacios de nombres y montajes ----------------------------------------------------------

def _dispositivos_abiertos(conf: dict) -> dict[str, int]:
    """Descriptores de los archivos de /dev que quedarán visibles (antes de tapar /dev)."""
    nombres = list(DISPOSITIVOS)
    for extra in conf.get("dispositivos", []):
        nombre = str(extra).removeprefix("/dev/").strip("/")
        if nombre and ".." not in Path(nombre).parts and nombre not in nombres:
            nombres.append(nombre)
    abiertos = {}
    for nombre in nombres:
        try:
            abiertos[nombre] = os.open(f"/dev/{nombre}", os.O_PATH | os.O_CLOEXEC)
        except OSError:
            if nombre in DISPOSITIVOS:
                raise
    return abiertos


def _dev_minimo(dispositivos: dict[str, int], tmp_mb: int, raiz: str = "") -> None:
    """Un /dev nuevo (en ``raiz``) con solo ``dispositivos``, un /dev/shm privado y acotado, y los enlaces de siempre."""
    dev = raiz + "/dev"
    os.makedirs(dev, mode=0o755, exist_ok=True)
    _mount("tmpfs", dev, "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,mode=0755")
    for nombre, fd in dispositivos.items():
        destino = Path(dev) / nombre
        destino.parent.mkdir(parents=True, exist_ok=True)
        os.close(os.open(destino, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644))
        _mount(f"/proc/self/fd/{fd}", str(destino), None, MS_BIND)
    os.mkdir(dev + "/shm")
    _mount("tmpfs", dev + "/shm", "tmpfs", MS_NOSUID | MS_NODEV, f"size={tmp_mb}m,mode=1777")
    for nombre, destino in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                            ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        os.symlink(destino, f"{dev}/{nombre}")


#: Lo del sistema que el kernel necesita leer: bibliotecas compartidas, programas, zonas horarias y unos
#: pocos archivos de /etc (el cargador dinámico, usuarios, nombres de máquina). Lo que no exista se omite.
#: Todo lo demás del disco no existe para el kernel (ver :func:`aislar`).
SISTEMA = (
    "/usr/lib", "/usr/lib64", "/usr/lib32", "/usr/libx32", "/lib", "/lib64", "/lib32", "/libx32",
    "/usr/bin", "/bin", "/usr/share/zoneinfo", "/usr/lib64-nvidia", "/usr/local/cuda", "/usr/local/nvidia",
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/timezone",
    "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/hosts", "/etc/host.conf", "/etc/gai.conf",
    "/etc/hostname", "/etc/protocols", "/etc/services", "/etc/mime.types", "/etc/os-release",
    "/etc/debian_version", "/etc/fonts",
)
#: pivot_root no tiene función en la libc: su número de llamada al sistema por arquitectura.
_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}
MNT_DETACH = 2


def _resolver(ruta: str) -> tuple[str, list[tuple[str, str]]]:
    """La ruta real de ``ruta`` y los enlaces simbólicos que se cruzan para llegar (ubicación, destino).

    Recorre la ruta parte por parte, como el núcleo: cada enlace que aparece en el camino
    tiene que existir igual dentro de la vista del kernel para que la ruta funcione allí.
    """
    pendientes = [p for p in ruta.split("/") if p]
    actual, enlaces = "/", []
    while pendientes:
        parte = pendientes.pop(0)
        if parte == ".":
            continue
        if parte == "..":
            actual = os.path.dirname(actual) or "/"
            continue
        siguiente = os.path.join(actual, parte)
        if os.path.islink(siguiente):
            if len(enlaces) >= 40:
                raise OSError(errno.ELOOP, f"demasiados enlaces en {ruta}")
            destino = os.readlink(siguiente)
            enlaces.append((siguiente, destino))
            if destino.startswith("/"):
                actual = "/"
            pendientes = [p for p in destino.split("/") if p] + pendientes
        else:
            actual = siguiente
    return actual, enlaces


def _crear_en(raiz: str, ruta: str, carpeta: bool) -> None:
    """Crea ``ruta`` (carpeta o archivo vacío) dentro de ``raiz``, con las carpetas de arriba (0755)."""
    destino = raiz + ruta
    os.makedirs(destino if carpeta else os.path.dirname(destino), mode=0o755, exist_ok=True)
    if not carpeta and not os.path.lexists(destino):
        os.close(os.open(destino, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644))


def _pivotar(raiz: str) -> None:
    """La raíz del espacio de montajes pasa a ser ``raiz`` y la de antes desaparece (no solo un chroot:
    sin la raíz vieja montada en ninguna parte no hay por dónde volver a ella)."""
    numero = _PIVOT_ROOT.get(os.uname().machine)
    if numero is None:
        raise OSError(errno.ENOSYS, f"pivot_root sin número conocido en {os.uname().machine}")
    os.chdir(raiz)
    if _libc.syscall(ctypes.c_long(numero), b".", b".") != 0:
        raise _error("pivot_root")
    if _libc.umount2(b".", MNT_DETACH) != 0:
        raise _error("umount2 de la raíz vieja")
    os.chdir("/")


def aislar(conf: dict, usuario: tuple[int, int] | None = None) -> list[str]:
    """Espacios de nombres y una vista del disco por lista de permitidos; devuelve las protecciones logradas.

    El kernel ve una raíz nueva (un tmpfs de solo lectura) donde reaparecen, en su misma ruta, solo:
    lo de ``SISTEMA``, ``visibles`` (Python, sus paquetes, tutor_lib, las cachés de modelos; de solo
    lectura), ``escribibles`` (su carpeta de trabajo y la de sus sockets), un ``/tmp`` y un ``/dev/shm``
    privados y acotados, un ``/dev`` mínimo, ``/sys`` de solo lectura y ``/proc``. Cualquier otra ruta
    no existe para el kernel, dondequiera que el instructor guarde el curso, las entregas o corridas
    anteriores. ``ocultar`` tapa además secretos que estén dentro de algo visible (solo reaparece
    lo escribible). La clave ``tapar`` de versiones anteriores ya no hace falta: se acepta y no
    cambia nada. Con ``usuario`` (el proceso es root) los espacios de montajes y de red son del root
    real y el kernel no tendrá ninguna capacidad sobre ellos; sin él, se crea además un espacio de
    usuario con el mismo uid.
    """
    logrado: list[str] = []
    cwd = os.getcwd()
    escribibles = [Path(p).resolve() for p in conf.get("escribibles", []) if Path(p).is_dir()]
    pedidas = [str(p) for p in (*SISTEMA, *conf.get("visibles", [])) if os.path.lexists(p)]
    propios = CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
    if usuario is not None:
        _unshare(propios)
    else:
        uid, gid = os.getuid(), os.getgid()
        _unshare(CLONE_NEWUSER | propios)
        _mapear_usuario(uid, gid)
    _encender_loopback()
    logrado.append("sin red: solo un loopback propio, que no llega a los puertos del anfitrión")
    logrado.append("IPC propio: sin memoria compartida ni colas del anfitrión")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)

    # El plan: qué carpetas o archivos reales reaparecen y qué enlaces hay que repetir para llegar a ellos.
    visibles: set[str] = set()
    enlaces: dict[str, str] = {}
    for ruta in [*pedidas, *map(str, escribibles)]:
        try:
            real, cruzados = _resolver(ruta)
        except OSError:
            continue
        enlaces.update(cruzados)
        if os.path.exists(real):
            visibles.add(real)
    libres = {str(p) for p in escribibles}
    visibles -= libres
    montar = sorted(visibles | libres, key=lambda p: (p.count("/"), p))
    # Lo visible que ya queda dentro de otra carpeta visible llega con ella (lo escribible se monta igual).
    cubiertas = [p for p in montar if p not in libres and any(
        o != p and o not in libres and dentro_de(Path(p), Path(o)) for o in montar)]
    montar = [p for p in montar if p not in cubiertas]
    todas = [Path(p) for p in montar]
    fds = {p: os.open(p, os.O_PATH | os.O_CLOEXEC) for p in montar}
    dispositivos = _dispositivos_abiertos(conf)
    tmp_mb = int(conf.get("tmp_mb", TMP_MB))

    base = next(b for b in ("/tmp", "/mnt", "/media", "/srv", "/opt", "/var", "/home") if os.path.isdir(b))
    _mount("tmpfs", base, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755")
    raiz = base  # la raíz nueva se arma aquí (ya en el espacio de montajes propio) y luego se pivota
    os.mkdir(raiz + "/tmp", 0o1777)
    _mount("tmpfs", raiz + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, f"size={tmp_mb}m,mode=1777")
    for p in montar:
        _crear_en(raiz, p, stat.S_ISDIR(os.stat(f"/proc/self/fd/{fds[p]}").st_mode))
    for ubicacion, destino in enlaces.items():
        if any(dentro_de(Path(ubicacion), t) for t in todas) or os.path.lexists(raiz + ubicacion):
            continue  # ya llega con una carpeta montada (o ya se creó)
        os.makedirs(raiz + os.path.dirname(ubicacion), mode=0o755, exist_ok=True)
        os.symlink(destino, raiz + ubicacion)
    # Las carpetas «efímeras» (la de trabajo) son un tmpfs propio y acotado en lugar de la carpeta real:
    # lo que el kernel escribe ahí no ocupa tu disco (ni sus inodos) y desaparece con él.
    efimeras = {str(Path(p).resolve()) for p in conf.get("efimeras", [])} & libres
    trabajo_mb = int(conf.get("trabajo_mb", TRABAJO_MB))
    dueno = usuario or (os.getuid(), os.getgid())
    for p in montar:
        if p in efimeras:
            _mount("tmpfs", raiz + p, "tmpfs", MS_NOSUID | MS_NODEV,
                   f"size={trabajo_mb}m,mode=0700,uid={dueno[0]},gid={dueno[1]}")
        else:
            _mount(f"/proc/self/fd/{fds[p]}", raiz + p, None, MS_BIND | MS_REC)

    # Secretos dentro de algo visible: se tapan; de adentro reaparece solo lo escribible.
    tapadas = []
    for ruta in sorted({Path(p).resolve() for p in conf.get("ocultar", [])}, key=lambda p: len(p.parts)):
        destino = raiz + str(ruta)
        if ruta in escribibles or not os.path.lexists(destino) or not any(dentro_de(ruta, t) for t in todas):
            continue
        if os.path.isdir(destino):
            _mount("tmpfs", destino, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0755")
            for e in escribibles:
                if dentro_de(e, ruta) and e != ruta:
                    os.makedirs(raiz + str(e), exist_ok=True)
                    _mount(f"/proc/self/fd/{fds[str(e)]}", raiz + str(e), None, MS_BIND | MS_REC)
        else:
            _mount(f"/proc/self/fd/{dispositivos['null']}", destino, None, MS_BIND)
        tapadas.append(str(ruta))
    for fd in fds.values():
        os.close(fd)

    _dev_minimo(dispositivos, tmp_mb, raiz)
    for fd in dispositivos.values():
        os.close(fd)
    os.makedirs(raiz + "/sys", exist_ok=True)
    _mount("/sys", raiz + "/sys", None, MS_BIND | MS_REC)
    os.makedirs(raiz + "/proc", exist_ok=True)
    if usuario is None:
        # Sin root, el núcleo solo deja montar el /proc propio si ya hay uno entero a la vista.
        _mount("/proc", raiz + "/proc", None, MS_BIND | MS_REC)
    libres |= {"/tmp", "/dev/shm"}
    # Todo de solo lectura (y sin setuid) salvo lo escribible, antes de pivotar (después no hay /proc
    # para leer los montajes hasta que el kernel monte el suyo).
    fallidos = []
    for punto in _puntos_de_montaje():
        adentro = punto[len(raiz):] or "/"
        if not (punto == raiz or punto.startswith(raiz + "/")) or adentro in libres or adentro == "/proc" \
                or adentro.startswith("/proc/"):
            continue
        try:
            _mount(None, punto, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | _banderas_conservadas(punto))
        except OSError as exc:
            if exc.errno != errno.ENOENT:
                fallidos.append(adentro)
    _pivotar(raiz)
    logrado.append("vista del disco por lista de permitidos: solo el sistema, Python y sus paquetes, "
                   "tutor_lib, las cachés de modelos y lo escribible; cualquier otra ruta no existe")
    logrado.append(f"/tmp y /dev/shm privados, vacíos y de {tmp_mb} MB como máximo")
    if efimeras:
        logrado.append(f"carpeta de trabajo en memoria, de {trabajo_mb} MB como máximo: nada de lo que escribe "
                       "llega a tu disco")
    if tapadas:
        logrado.append("tapadas: " + ", ".join(tapadas))
    logrado.append("/dev mínimo: " + ", ".join(dispositivos))
    logrado.append("todo de solo lectura, /sys incluido" + (f" (salvo {', '.join(fallidos)})" if fallidos else ""))
    logrado.append("escribible: " + ", ".join(sorted(libres)))
    try:
        os.chdir(cwd)
    except OSError:
        os.chdir("/")
    return logrado


def _proc_propio() -> None:
    """Un /proc del espacio de PID del kernel, con /proc/sys y /proc/sysrq-trigger de solo lectura."""
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    for ruta in ("/proc/sys", "/proc/sysrq-trigger"):
        try:
            _mount(ruta, ruta, None, MS_BIND | MS_REC)
            _mount(None, ruta, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
        except OSError:
            pass  # sin esto igual falla: los archivos son del root real


#: Carpetas que nunca se vuelven visibles enteras aunque Python viva en ellas (p. ej. ``sys.prefix``
#: = ``/usr`` en Colab): de ellas se ve solo lo que Python usa.
_AMPLIAS = frozenset({"/", "/usr", "/usr/local", "/opt", "/home", "/root", "/srv", "/var", "/mnt", "/media", "/tmp"})


@functools.lru_cache(maxsize=None)
def _ruta_de_importacion(ejecutable: str) -> tuple[str, ...]:
    """El ``sys.path`` de un intérprete nuevo, sin ``PYTHONPATH`` y desde ``/``: la biblioteca estándar y
    los paquetes instalados (con lo que agregan sus ``.pth``), sin la carpeta actual ni la del script de
    quien califica (``python -m tutor_lib`` pone ahí la carpeta desde donde se lo llamó)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    try:
        proc = subprocess.run([ejecutable, "-E", "-c", "import json, sys; print(json.dumps(sys.path))"], cwd="/",
                              env=env, capture_output=True, text=True, timeout=120)
        rutas = json.loads(proc.stdout.strip().splitlines()[-1])
    except (OSError, ValueError, IndexError, subprocess.SubprocessError):
        import site
        import sysconfig

        rutas = [*sysconfig.get_paths().values(), *site.getsitepackages()]
    return tuple(r for r in rutas if isinstance(r, str) and r.startswith("/") and os.path.isdir(r))


def rutas_necesarias() -> list[str]:
    """Lo que el kernel necesita leer: el intérprete, la biblioteca estándar, los paquetes instalados,
    tutor_lib y las cachés de modelos. Es la lista de permitidos de :func:`aislar` (más ``SISTEMA``):
    nada que dependa de la carpeta desde donde se califica."""
    import sysconfig

    import tutor_lib

    rutas = set()
    for ruta in _ruta_de_importacion(sys.executable):
        # Una carpeta con tutor_lib adentro es el código fuente del curso (una instalación editable vieja la
        # pone en sys.path con un .pth): de ella se ve solo tutor_lib, nunca soluciones ni pruebas.
        if not os.path.isfile(os.path.join(ruta, "tutor_lib", "__init__.py")):
            rutas.add(ruta)
    rutas.add(sys.executable)  # sus enlaces (el de un venv apunta al Python de base) se repiten adentro
    for prefijo in (sys.prefix, sys.base_prefix, sysconfig.get_config_var("LIBDIR") or ""):
        if prefijo and os.path.isdir(prefijo) and os.path.realpath(prefijo) not in _AMPLIAS:
            rutas.add(prefijo)
    rutas.add(str(Path(tutor_lib.__file__).resolve().parent))
    from tutor_lib.cache import carpeta_cache  # TUTOR_CACHE o ~/.cache/tutor_lib: el modelo convertido
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    hf = Path(os.environ.get("HF_HOME", cache / "huggingface"))
    rutas |= {str(carpeta_cache()), str(hf / "hub"), str(hf / "datasets")}
    return sorted(rutas)


def _permitida(nombre: str, extra: set[str]) -> bool:
    if nombre == VARIABLE or any(s in nombre.upper() for s in _SECRETOS):
        return False
    return nombre in _PERMITIDAS or nombre in extra


def permitidas(env: dict[str, str], conf: dict) -> dict[str, str]:
    """Las variables de ``env`` que pueden llegar al kernel: la lista blanca y las de ``entorno`` de ``conf``."""
    extra = {str(n) for n in conf.get("entorno", [])}
    return {k: v for k, v in env.items() if _permitida(k, extra)}


def entorno_limpio(conf: dict, usuario: tuple[int, int] | None = None) -> dict[str, str]:
    """Las variables de entorno del kernel: solo las de la lista blanca (y las de ``entorno``)."""
    env = permitidas(dict(os.environ), conf)
    tmp = conf.get("tmp", "/tmp")
    # Pocos hilos por kernel: menos memoria virtual reservada (el límite es de memoria
    # virtual) y varios estudiantes pueden calificarse a la vez sin pelear por la CPU.
    env.setdefault("OMP_NUM_THREADS", "2")
    env.setdefault("MKL_NUM_THREADS", "2")
    env.setdefault("MALLOC_ARENA_MAX", "2")
    env.update(
        TMPDIR=tmp,
        MPLCONFIGDIR=str(Path(tmp) / "matplotlib"),
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
    )
    if usuario is not None:
        # El uid del kernel no tiene nombre en /etc/passwd: getpass.getuser() lo lee de aquí.
        env["USER"] = env["LOGNAME"] = "alumno"
    return env


#: keyctl no tiene función en la libc: su número de llamada al sistema por arquitectura.
_KEYCTL = {"x86_64": 250, "aarch64": 219, "riscv64": 219, "ppc64le": 271, "s390x": 280}
KEYCTL_JOIN_SESSION_KEYRING = 1


def _llavero_propio() -> None:
    """Un llavero de sesión nuevo y vacío (``keyctl(KEYCTL_JOIN_SESSION_KEYRING, NULL)``).

    Sin esto el kernel hereda el llavero de sesión de quien califica (el de su sesión de SSH o de su
    contenedor): podría leer claves guardadas ahí y dejar datos para el kernel de otro estudiante,
    que hereda el mismo (lo ataca ``tests/test_ataques_nuevos.py::test_llavero_de_sesion``).
    """
    numero = _KEYCTL.get(os.uname().machine)
    if numero is None:
        raise OSError(errno.ENOSYS, f"keyctl sin número conocido en {os.uname().machine}")
    if _libc.syscall(ctypes.c_long(numero), ctypes.c_long(KEYCTL_JOIN_SESSION_KEYRING), None) < 0:
        raise _error("keyctl")


def _morir_con_el_padre() -> None:
    """Si el proceso padre muere (p. ej. el calificador lo mató por tiempo), este también."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _preparar_hijo(usuario: tuple[int, int] | None, con_pid: bool, bloquear: bool, informe: dict, conf: dict,
                   grupo: GrupoDeControl | Grupos | None) -> None:
    """Lo último antes del kernel: /proc nuevo, sin root, montajes bloqueados, sin setuid, procesos."""
    protecciones, problemas = informe["protecciones"], []
    if con_pid:
        try:
            _proc_propio()
            protecciones.append("/proc propio: solo se ven los procesos del kernel")
        except OSError as exc:
            problemas.append(f"no se pudo montar un /proc propio ({exc})")
    bajo = False
    if usuario is not None:
        try:
            _bajar_a(*usuario)
            bajo = True
            protecciones.append(f"sin root: el kernel corre como uid {usuario[0]}, gid {usuario[1]}")
        except OSError as exc:
            problemas.append(f"no se pudo dejar de ser root ({exc})")
    usuario_nuevo = False
    if bloquear:
        uid, gid = os.getuid(), os.getgid()
        try:
            # Último espacio de usuario: los montajes de arriba quedan bloqueados.
            _unshare(CLONE_NEWUSER | CLONE_NEWNS)
            _mapear_usuario(uid, gid)
            usuario_nuevo = True
            protecciones.append("montajes bloqueados")
        except OSError as exc:
            if bajo:
                protecciones.append("montajes bloqueados (el kernel no tiene ninguna capacidad)")
            else:
                problemas.append(f"no se pudieron bloquear los montajes ({exc})")
    try:
        _llavero_propio()
        protecciones.append("llavero de claves del núcleo propio: ni el de quien califica ni el de otro kernel")
    except OSError as exc:
        problemas.append(f"no se pudo darle al kernel un llavero de claves propio ({exc})")
    try:
        _prctl(PR_SET_NO_NEW_PRIVS, 1)
        protecciones.append("sin privilegios nuevos: los programas setuid no dan root")
    except OSError as exc:
        problemas.append(f"no se pudo impedir ganar privilegios ({exc})")
    # RLIMIT_NPROC cuenta los procesos del uid: solo sirve con un uid propio del kernel o
    # dentro de su espacio de usuario (si no, contaría también los tuyos).
    if grupo is None and (bajo or usuario_nuevo):
        procesos = int(conf.get("procesos", PROCESOS))
        try:
            _limitar_procesos(procesos)
            protecciones.append(f"procesos e hilos acotados: RLIMIT_NPROC={procesos} "
                                f"(respaldo: {informe['agotamiento']['detalle']})")
        except (OSError, ValueError) as exc:
            problemas.append(f"no se pudo limitar la cantidad de procesos ({exc})")
    if problemas:
        informe["completo"] = False
        informe["error"] = "; ".join([informe["error"], *problemas] if informe.get("error") else problemas)


#: Si este proceso nació del servidor de :mod:`tutor_lib.calificacion.motor.precarga`: ese módulo, que sabe
#: convertirse en el kernel sin ``execve`` (con torch y transformers ya importados). Lo pone la propia precarga.
EN_PROCESO = None


def _ejecutar(argv: list[str], env: dict[str, str]) -> None:
    """Se convierte en el kernel; si no puede, lo dice y termina.

    Si el programa es el kernel de Jupyter (``-m ipykernel_launcher``), antes su entrada y sus
    salidas estándar (descriptores 0, 1 y 2) pasan a ``/dev/null``: las heredadas son las de
    nbgrader, que lee quien califica, y el kernel guarda una copia de ellas
    (``sys.stdout._original_stdstream_copy``) donde el código del estudiante podría escribir sin
    límite. Lo que el kernel imprime llega igual por sus mensajes, con los máximos de
    :class:`tutor_lib.calificacion.juez.ejecutor.EjecutarConJuez`. Otro programa (las pruebas del aislamiento
    corren ``python -c``) conserva las suyas. El aviso de un fallo va a la salida de errores
    original (una copia que el kernel no hereda).
    """
    aviso = 2

    def avisar(texto: str) -> None:
        try:
            os.write(aviso, f"tutor_lib.calificacion.kernel.aislamiento: {texto}\n".encode())
        except OSError:
            pass

    if "ipykernel_launcher" in argv[1:3]:
        try:
            aviso = os.dup(2)  # sin herencia: execve la cierra y la precarga también (solo conserva 0, 1 y 2)
            nulo = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(nulo, fd)
            os.close(nulo)
        except OSError as exc:
            avisar(f"no se pudo pasar la salida del kernel a {os.devnull} ({exc.strerror})")
    if EN_PROCESO is not None and EN_PROCESO.se_puede(argv):
        EN_PROCESO.correr(argv, env)  # no vuelve: cierra los descriptores y corre el kernel aquí mismo
    try:
        os.execve(argv[0], argv, env)
    except OSError as exc:
        avisar(f"no se pudo ejecutar {argv[0]} ({exc.strerror}); el usuario del kernel tiene que poder leer "
               "el intérprete de Python y sus paquetes")
    os._exit(127)


def _ejecutar_como_init(argv: list[str], env: dict[str, str], preparar, fd_informe: int | None, informe: dict,
                        grupo: GrupoDeControl | Grupos | None) -> None:
    """Corre el kernel como proceso 1 de un espacio de PID nuevo y espera a que termine.

    Cuando el kernel termina (o lo matan), el núcleo mata a todos los procesos que
    el código del estudiante haya lanzado: nada queda corriendo después de calificar.
    Este proceso reenvía las señales (la interrupción de nbgrader llega como SIGINT).
    """
    hijo = os.fork()
    if hijo == 0:
        try:
            _morir_con_el_padre()
            preparar()
            _entregar_informe(fd_informe, informe)
            os.setpgid(0, 0)
            _ejecutar(argv, env)
        finally:
            os._exit(127)
    if fd_informe is not None:
        os.close(fd_informe)
    for sen in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2):
        signal.signal(sen, lambda numero, _marco: os.kill(hijo, numero))
    while True:
        try:
            _, estado = os.waitpid(hijo, 0)
            break
        except ChildProcessError:
            estado = 0
            break
        except InterruptedError:
            continue
    if grupo is not None:
        grupo.soltar()
    os._exit(os.waitstatus_to_exitcode(estado) & 0xFF if os.WIFEXITED(estado) else 1)


def main(argv: list[str]) -> None:
    if not argv:
        sys.exit("uso: python -m tutor_lib.calificacion.kernel.aislamiento PROGRAMA [ARGUMENTOS...]")
    conf = json.loads(os.environ.get(VARIABLE, "{}"))
    # Lo primero: el informe se abre antes de aislar, en una carpeta que el kernel no verá.
    fd_informe = _abrir_informe(conf.get("informe"))
    informe: dict = {
        "limites": {k: conf.get(k) for k in ("memoria_mb", "cpu_s", "archivo_mb")},
        "pid": os.getpid(),
        # True: el kernel nació del servidor de precarga (tutor_lib.calificacion.motor.precarga), sin execve
        "precarga": EN_PROCESO is not None,
    }
    informe["limites"].update(tmp_mb=int(conf.get("tmp_mb", TMP_MB)), procesos=int(conf.get("procesos", PROCESOS)))
    _morir_con_el_padre()
    try:
        limites(conf)
    except (OSError, ValueError, AttributeError, ImportError) as exc:
        informe["limites_error"] = f"no se pudieron fijar todos los límites: {exc}"
    problemas = []
    try:
        usuario = usuario_del_kernel(conf)
    except (OSError, ValueError) as exc:
        usuario = None
        problemas.append(f"corre como root y no se pudo elegir un usuario sin privilegios ({exc})")
    informe["usuario"] = {"root_afuera": os.geteuid() == 0,
                          "uid": usuario[0] if usuario else os.getuid(), "gid": usuario[1] if usuario else os.getgid()}
    if usuario is not None:
        try:
            escribibles = [Path(p).resolve() for p in conf.get("escribibles", []) if Path(p).is_dir()]
            _entregar_carpetas(escribibles, *usuario)
        except OSError as exc:
            problemas.append(f"no se pudieron entregar las carpetas escribibles al usuario del kernel ({exc})")
    grupo, detalle = grupo_de_control(conf)
    informe["agotamiento"] = {"cgroup": grupo is not None, "detalle": detalle}
    if grupo is None:
        informe["agotamiento"]["respaldo"] = f"RLIMIT_NPROC={informe['limites']['procesos']}"
    env = entorno_limpio(conf, usuario)

    aislado = False
    informe["protecciones"] = []
    if conf.get("espacios", True):
        try:
            informe["protecciones"] = aislar(conf, usuario)
            aislado = True
        except (OSError, AttributeError) as exc:
            problemas.append(f"el sistema no permitió aislar el kernel ({exc}); corre solo con límites")
    else:
        problemas.append("sin espacios de nombres (lo pide la configuración): corre solo con límites")
    informe["protecciones"].append("entorno por lista blanca: las demás variables no llegan")
    if grupo is not None:
        informe["protecciones"].append(f"memoria y procesos acotados: {detalle}")
    informe["completo"] = aislado and not problemas
    if problemas:
        informe["error"] = "; ".join(problemas)
    if aislado:
        try:
            _unshare(CLONE_NEWPID)
        except OSError as exc:
            informe["completo"] = False
            informe["error"] = "; ".join([*problemas, f"sin espacio de PID propio ({exc})"])
        else:
            informe["protecciones"].append("procesos propios: al terminar el kernel no queda ninguno")
            _ejecutar_como_init(argv, env, lambda: _preparar_hijo(usuario, True, True, informe, conf, grupo),
                                fd_informe, informe, grupo)
    # Sin espacio de PID (o sin ningún espacio): lo que se pueda y directo al kernel.
    _preparar_hijo(usuario, False, aislado, informe, conf, grupo)
    _entregar_informe(fd_informe, informe)
    _ejecutar(argv, env)


if __name__ == "__main__":
    main(sys.argv[1:])
