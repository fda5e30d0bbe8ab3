"""Aislamiento del kernel que ejecuta el código de un estudiante al calificar.

Calificar es ejecutar código ajeno. ``tutor calificar`` y ``tutor corregir``
(ver :mod:`tutor_lib.calificador`) arrancan el kernel de nbgrader a través de
este módulo, que antes de convertirse en el kernel (``execv``):

1. fija límites del sistema: memoria virtual, segundos de CPU, tamaño de
   archivo y archivos de núcleo (``setrlimit``);
2. entra en espacios de nombres de Linux propios (usuario, montajes y red):
   sin red (solo un loopback apagado), con todo el sistema de archivos de solo
   lectura, con ``/tmp`` y ``/dev/shm`` vacíos y privados, con las carpetas
   secretas tapadas (fuente con soluciones y pruebas ocultas, libreta de
   calificaciones, otras entregas, la carpeta personal) y con una sola carpeta
   escribible: la de trabajo de esa entrega;
3. entra en un segundo espacio de usuario y de montajes: así los montajes
   quedan *bloqueados* y el código del estudiante no puede desmontarlos aunque
   sea «root» dentro de su espacio.

Lo que logró queda en ``aislamiento.json`` dentro de la carpeta de ejecución,
para que el calificador lo informe con honestidad. Si el sistema no permite
espacios de usuario (algunos contenedores), el kernel corre solo con los
límites y el informe lo dice. La guía del instructor
(``course/GUIA_INSTRUCTOR.md``) explica qué protege esto y qué no.

Uso (lo escribe el calificador en el ``kernel.json`` que le da a nbgrader)::

    python -m tutor_lib.aislamiento python -m ipykernel_launcher -f {connection_file}

La configuración llega en la variable de entorno ``TUTOR_AISLAMIENTO`` (JSON).
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
from pathlib import Path

VARIABLE = "TUTOR_AISLAMIENTO"

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
CLONE_NEWPID = 0x20000000
PR_SET_PDEATHSIG = 1

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

# Variables de entorno que nunca deben llegar al código de un estudiante.
_SECRETOS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "CREDENTIAL")

_libc = ctypes.CDLL(None, use_errno=True)


def _error(accion: str) -> OSError:
    numero = ctypes.get_errno()
    return OSError(numero, f"{accion}: {os.strerror(numero)}")


def _unshare(banderas: int) -> None:
    if _libc.unshare(banderas) != 0:
        raise _error("unshare")


def _mount(origen: str | None, destino: str, tipo: str | None, banderas: int, datos: str | None = None) -> None:
    cod = lambda s: None if s is None else s.encode()  # noqa: E731
    if _libc.mount(cod(origen), cod(destino), cod(tipo), ctypes.c_ulong(banderas), cod(datos)) != 0:
        raise _error(f"mount {destino}")


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


def _puntos_de_montaje() -> list[str]:
    puntos = []
    with open("/proc/self/mountinfo") as f:
        for linea in f:
            campo = linea.split()[4]
            puntos.append(campo.encode().decode("unicode_escape"))
    return puntos


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


def _abrir(ruta: str) -> int:
    return os.open(ruta, os.O_PATH | os.O_DIRECTORY)


def dentro_de(ruta: Path, base: Path) -> bool:
    """¿``ruta`` es ``base`` o está debajo de ella? (lo usa también el calificador)"""
    return ruta == base or base in ruta.parents


def aislar(conf: dict) -> list[str]:
    """Espacios de nombres y montajes; devuelve la lista de protecciones logradas.

    ``conf``: ``escribibles`` (carpetas de trabajo), ``visibles`` (lo que el
    kernel necesita leer: Python, paquetes, cachés de modelos), ``tapar``
    (carpetas que se vacían, p. ej. la personal; lo visible de adentro
    reaparece) y ``ocultar`` (secretos: se tapan aunque estén dentro de algo
    visible). Nunca se tapa una carpeta que contiene una escribible.
    """
    logrado: list[str] = []
    uid, gid = os.getuid(), os.getgid()
    _unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET)
    _mapear_usuario(uid, gid)
    logrado.append("sin red")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)

    def existentes(clave: str) -> list[Path]:
        return [Path(p).resolve() for p in conf.get(clave, []) if Path(p).exists()]

    escribibles, visibles = existentes("escribibles"), existentes("visibles")
    # Antes de tapar nada, un descriptor de cada carpeta que debe reaparecer.
    reaparecen = sorted(set(escribibles + visibles), key=lambda p: len(p.parts))
    fds = {p: _abrir(str(p)) for p in reaparecen if p.is_dir()}

    def tapar(ruta: Path) -> bool:
        if any(dentro_de(w, ruta) for w in escribibles):
            return False
        if ruta.is_dir():
            _mount("tmpfs", str(ruta), "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0755")
        else:
            _mount("/dev/null", str(ruta), None, MS_BIND)
        return True

    privados = [d for d in ("/tmp", "/dev/shm") if Path(d).is_dir()]
    for d in privados:
        _mount("tmpfs", d, "tmpfs", MS_NOSUID | MS_NODEV, "size=1g,mode=1777")
    tapadas = [str(r) for r in existentes("tapar") if tapar(r)]
    for ruta, fd in fds.items():
        ruta.mkdir(parents=True, exist_ok=True)  # si quedó debajo de un tmpfs nuevo
        _mount(f"/proc/self/fd/{fd}", str(ruta), None, MS_BIND | MS_REC)
        os.close(fd)
    tapadas += [str(r) for r in existentes("ocultar") if tapar(r)]
    logrado.append("/tmp y /dev/shm privados y vacíos")
    if tapadas:
        logrado.append("ocultas: " + ", ".join(tapadas))

    # Todo de solo lectura salvo lo escribible y los archivos especiales.
    libres = {str(p) for p in escribibles} | set(privados)
    fallidos = []
    for punto in _puntos_de_montaje():
        if punto in libres or (punto.startswith(("/proc", "/sys", "/dev")) and punto != "/dev/shm"):
            continue
        try:
            _mount(None, punto, None, MS_BIND | MS_REMOUNT | MS_RDONLY | _banderas_conservadas(punto))
        except OSError:
            fallidos.append(punto)
    logrado.append("todo de solo lectura" + (f" (salvo {', '.join(fallidos)})" if fallidos else ""))
    logrado.append("escribible: " + ", ".join(sorted(libres)))

    # La carpeta actual del proceso apunta todavía a la carpeta de antes de los montajes:
    # se vuelve a entrar por su ruta para quedar en la versión montada (escribible).
    try:
        os.chdir(os.getcwd())
    except OSError:
        os.chdir("/")

    # Segundo espacio: los montajes de arriba quedan bloqueados para el estudiante.
    _unshare(CLONE_NEWUSER | CLONE_NEWNS)
    _mapear_usuario(uid, gid)
    logrado.append("montajes bloqueados")
    return logrado


def rutas_necesarias() -> list[str]:
    """Lo que el kernel necesita leer: el intérprete, los paquetes y las cachés de modelos."""
    import tutor_lib

    rutas = {sys.prefix, sys.base_prefix, str(Path(os.path.realpath(sys.executable)).parent.parent)}
    rutas |= {p for p in sys.path if p and os.path.isdir(p)}
    rutas.add(str(Path(tutor_lib.__file__).resolve().parent))
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    hf = Path(os.environ.get("HF_HOME", cache / "huggingface"))
    rutas |= {str(cache / "tutor_lib"), str(hf / "hub"), str(hf / "datasets")}
    return sorted(rutas)


def entorno_limpio(conf: dict) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not any(s in k.upper() for s in _SECRETOS) and k != VARIABLE}
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
    return env


def _morir_con_el_padre() -> None:
    """Si el proceso padre muere (p. ej. el calificador lo mató por tiempo), este también."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _ejecutar_como_init(argv: list[str], env: dict[str, str]) -> None:
    """Corre el kernel como proceso 1 de un espacio de PID nuevo y espera a que termine.

    Cuando el kernel termina (o lo matan), el núcleo mata a todos los procesos que
    el código del estudiante haya lanzado: nada queda corriendo después de calificar.
    Este proceso reenvía las señales (la interrupción de nbgrader llega como SIGINT).
    """
    _unshare(CLONE_NEWPID)
    hijo = os.fork()
    if hijo == 0:
        _morir_con_el_padre()
        os.setpgid(0, 0)
        os.execve(argv[0], argv, env)
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
    os._exit(os.waitstatus_to_exitcode(estado) & 0xFF if os.WIFEXITED(estado) else 1)


def main(argv: list[str]) -> None:
    if not argv:
        sys.exit("uso: python -m tutor_lib.aislamiento PROGRAMA [ARGUMENTOS...]")
    conf = json.loads(os.environ.get(VARIABLE, "{}"))
    informe: dict = {"limites": {k: conf.get(k) for k in ("memoria_mb", "cpu_s", "archivo_mb")}, "pid": os.getpid()}
    try:
        _morir_con_el_padre()
        limites(conf)
    except (OSError, ValueError, AttributeError, ImportError) as exc:
        informe["limites_error"] = f"no se pudieron fijar todos los límites: {exc}"
    try:
        informe["protecciones"] = aislar(conf) if conf.get("espacios", True) else []
        informe["completo"] = bool(informe["protecciones"])
    except (OSError, AttributeError) as exc:
        informe["protecciones"] = []
        informe["completo"] = False
        informe["error"] = f"el sistema no permitió aislar el kernel ({exc}); corre solo con límites"
    env = entorno_limpio(conf)
    propio_pid = informe["completo"]
    if propio_pid:
        informe["protecciones"].append("procesos propios: al terminar el kernel no queda ninguno")
    if conf.get("informe"):
        # La carpeta del informe es la de ejecución, que sigue siendo escribible.
        try:
            Path(conf["informe"]).write_text(json.dumps(informe, ensure_ascii=False, indent=1))
        except OSError:
            pass
    if propio_pid:
        try:
            _ejecutar_como_init(argv, env)
        except OSError:
            pass  # sin espacio de PID: se ejecuta directo
    os.execve(argv[0], argv, env)


if __name__ == "__main__":
    main(sys.argv[1:])
