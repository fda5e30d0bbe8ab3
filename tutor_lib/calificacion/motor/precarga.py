"""Precarga: kernels, jueces y nbgrader que nacen con torch y transformers ya importados.

Al calificar una clase (:mod:`tutor_lib.calificacion.motor.clase`), cada entrega lanza tres
programas de Python: ``nbgrader autograde``, el kernel aislado del estudiante y
el proceso del juez. Casi todo su tiempo era importar lo mismo una y otra vez
(torch, transformers, nbgrader: 6 a 8 s de CPU por entrega en esta máquina).
Aquí un **servidor** importa todo eso una vez por corrida y, para cada programa,
hace ``fork``: el hijo ya tiene los módulos en memoria (compartida, copia al
escribir) y ejecuta el programa dentro de sí mismo, sin ``execve``.

El programa lo pide un **relevo**, que es lo que lanzan nbgrader, el
``kernel.json`` y el juez en lugar del programa::

    TUTOR_PRECARGA=/tmp/tutor-p-xxxx/s python -m tutor_lib.calificacion.motor.precarga python -m ipykernel_launcher ...

El relevo le pasa al servidor su línea de comandos, su entorno, su carpeta y sus
descriptores abiertos (``SCM_RIGHTS``), espera a que el hijo termine, reenvía las
señales que recibe (la interrupción de nbgrader) y termina con el mismo código.
Si el relevo muere (nbgrader lo mató por tiempo), el servidor mata al hijo y a
su grupo. Sin ``TUTOR_PRECARGA``, o si el servidor no responde, el relevo
simplemente ejecuta el programa (``execv``): la calificación es la de siempre,
solo más lenta.

Lo que cuida (lo atacan ``tests/test_precarga.py`` y ``tests/test_ataques.py``):

- el kernel sigue pasando entero por :mod:`tutor_lib.calificacion.kernel.aislamiento` (límites,
  usuario sin privilegios, espacios de nombres, ``/proc`` propio); solo cambia el
  último paso: en lugar de ``execve`` cierra todo descriptor salvo 0, 1 y 2 (lo
  que haría ``O_CLOEXEC``) y corre ``ipykernel`` en el mismo proceso. Esos tres
  ya apuntan a ``/dev/null`` (:func:`tutor_lib.calificacion.kernel.aislamiento._ejecutar`): el kernel
  no hereda la salida de nbgrader ni la tubería de este servidor;
- el servidor arranca con el entorno limpio del kernel y **nunca lee un pedido**:
  hace ``fork`` al aceptar la conexión y es el hijo el que lo lee. Así ningún dato
  de un pedido (el entorno de nbgrader, con lo que tenga el instructor) queda en
  la memoria de la que nacen los kernels siguientes; el relevo del kernel,
  además, manda solo las variables que :mod:`tutor_lib.calificacion.kernel.aislamiento` deja pasar;
- lo único que importa el servidor son módulos instalados: los ``import`` de las
  celdas de preparación y compartidas (nunca de una prueba: ni el nombre de un
  módulo que use una prueba oculta llega al kernel) y una lista fija (ipykernel,
  nbgrader, el juez);
- el socket vive en una carpeta ``0700`` de ``/tmp``: el kernel tiene su propio
  ``/tmp`` vacío y su propio espacio de red, no la ve ni llega a ella.

Diferencias con un proceso nuevo, a sabiendas: la memoria de los módulos
precargados la cuenta el cgroup del servidor, no el del kernel (el límite de
memoria virtual sí la cuenta); ``sys.modules`` ya trae esos módulos antes de la
primera celda (la celda compartida los importaría igual); y el módulo
``rfc3987_syntax`` figura como no instalado (ver ``calificador._NBGRADER``).
Para calificar sin precarga: ``TUTOR_SIN_PRECARGA=1``.
"""

from __future__ import annotations

import array
import ast
import atexit
import gc
import importlib
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import types
from pathlib import Path

#: La variable con la ruta del socket del servidor (la leen los relevos).
VARIABLE = "TUTOR_PRECARGA"
#: Con ``TUTOR_SIN_PRECARGA=1`` se califica como antes: cada programa es un proceso nuevo.
DESACTIVAR = "TUTOR_SIN_PRECARGA"
#: Lo que se precarga siempre: el kernel, el juez, nbgrader y su preprocesador.
FIJOS = (
    "ipykernel.kernelapp", "ipykernel.ipkernel", "ipykernel.zmqshell", "matplotlib_inline.backend_inline",
    "tutor_lib.calificacion.kernel.aislamiento", "tutor_lib.calificacion.juez.proceso",
    "tutor_lib.calificacion.juez.puente",
    "nbgrader.apps.nbgraderapp", "nbgrader.apps.autogradeapp", "nbgrader.preprocessors", "nbclient",
    "tutor_lib.calificacion.juez.ejecutor", "tutor_lib.juez.multiproceso", "tutor_lib.calificacion.retroalimentacion",
)
_MAX_PEDIDO = 8 * 2**20
_MAX_FDS = 64
_INLINE = "module://matplotlib_inline.backend_inline"


# ---------------------------------------------------------------------------
# Qué precargar
# ---------------------------------------------------------------------------

def modulos_de(nb) -> list[str]:
    """Los ``import`` de las celdas que el kernel corre y escribió el instructor, como ``modulo`` o ``modulo:nombre``.

    Solo celdas bloqueadas que no son de solución ni de prueba (preparación y celdas
    compartidas): son iguales en el notebook fuente y en el liberado, y ninguna
    importación de una prueba (oculta o no) llega a ``sys.modules`` del kernel. No
    ejecuta nada: lee el código con :mod:`ast` (las líneas mágicas se traducen antes).
    """
    from IPython.core.inputtransformer2 import TransformerManager

    traductor = TransformerManager()
    vistos: list[str] = []
    for celda in nb.cells:
        meta = celda.get("metadata", {}).get("nbgrader", {})
        if celda.cell_type != "code" or not meta.get("locked") or meta.get("solution") or meta.get("grade"):
            continue
        try:
            arbol = ast.parse(traductor.transform_cell(celda.source))
        except (SyntaxError, ValueError):
            continue
        for nodo in ast.walk(arbol):
            if isinstance(nodo, ast.Import):
                nuevos = [a.name for a in nodo.names]
            elif isinstance(nodo, ast.ImportFrom) and nodo.module and not nodo.level:
                nuevos = [f"{nodo.module}:{a.name}" for a in nodo.names if a.name != "*"] or [nodo.module]
            else:
                continue
            vistos += [n for n in nuevos if n not in vistos]
    return vistos


def _importar(especificacion: str) -> None:
    """Importa ``modulo`` o ``modulo:nombre`` (el nombre se resuelve: transformers importa al pedirlo)."""
    modulo, _, nombre = especificacion.partition(":")
    objeto = importlib.import_module(modulo)
    if nombre and not hasattr(objeto, nombre):
        importlib.import_module(f"{modulo}.{nombre}")


# ---------------------------------------------------------------------------
# Correr un programa de Python dentro de este proceso (lo que haría execve)
# ---------------------------------------------------------------------------

def se_puede(argv: list[str]) -> bool:
    """Si ``argv`` es ``python -m modulo ...`` o ``python -c codigo ...`` con este mismo intérprete."""
    if len(argv) < 3 or argv[1] not in ("-m", "-c"):
        return False
    try:
        return os.path.samefile(argv[0], sys.executable)
    except OSError:
        return False


def _abiertos() -> list[int]:
    nombres = os.listdir("/proc/self/fd")
    return sorted(int(n) for n in nombres if n.isdigit())


def _cerrar_descriptores(conservar: set[int]) -> None:
    """Cierra todo descriptor salvo ``conservar``: lo que ``O_CLOEXEC`` haría en un ``execve``."""
    for fd in _abiertos():
        if fd not in conservar:
            try:
                os.close(fd)
            except OSError:
                pass


def _terminar(codigo: object) -> None:
    """Termina como terminaría el intérprete: ``atexit``, vaciar la salida y el código de salida."""
    if codigo is None:
        codigo = 0
    elif not isinstance(codigo, int):
        sys.stderr.write(f"{codigo}\n")
        codigo = 1
    try:
        atexit._run_exitfuncs()
    except BaseException:  # noqa: BLE001 - como el intérprete: se informa y se sale igual
        traceback.print_exc()
    for flujo in (sys.stdout, sys.stderr):
        try:
            flujo.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(codigo & 0xFF)


def correr(argv: list[str], env: dict[str, str], conservar: frozenset[int] = frozenset({0, 1, 2})) -> None:
    """Se convierte en ``argv`` (``python -m`` o ``python -c``) sin ``execve``; no vuelve.

    Lo usan el hijo del servidor y :mod:`tutor_lib.calificacion.kernel.aislamiento` (su último paso).
    """
    _cerrar_descriptores(set(conservar))
    if argv[1:3] == ["-m", "ipykernel_launcher"]:
        env = {**env}
        env.setdefault("MPLBACKEND", _INLINE)  # lo mismo que pondría ipykernel al arrancar, pero antes
    os.environ.clear()
    os.environ.update(env)
    tempfile.tempdir = None
    if "matplotlib" in sys.modules:  # el backend lo lee matplotlib al importarse: se vuelve a leer del entorno
        import matplotlib
        from matplotlib import rcsetup

        matplotlib.rcParams._set("backend", os.environ.get("MPLBACKEND") or rcsetup._auto_backend_sentinel)
    modo, objetivo, resto = argv[1], argv[2], argv[3:]
    codigo: object = 0
    try:
        if modo == "-m":
            sys.argv = [argv[0], *resto]
            sys.path[0] = os.getcwd()
            if objetivo == "tutor_lib.calificacion.kernel.aislamiento":
                from tutor_lib.calificacion.kernel import aislamiento

                aislamiento.EN_PROCESO = sys.modules[__name__]
                aislamiento.main(resto)
            else:
                import runpy

                runpy.run_module(objetivo, run_name="__main__", alter_sys=True)
        else:
            sys.argv = ["-c", *resto]
            sys.path[0] = ""
            principal = types.ModuleType("__main__")
            principal.__dict__["__builtins__"] = __builtins__
            sys.modules["__main__"] = principal
            exec(compile(objetivo, "<string>", "exec"), principal.__dict__)
    except SystemExit as salida:
        codigo = salida.code
    except BaseException:  # noqa: BLE001 - como el intérprete: traza en stderr y código 1
        traceback.print_exc()
        codigo = 1
    _terminar(codigo)


# ---------------------------------------------------------------------------
# El servidor
# ---------------------------------------------------------------------------

def _recibir(conexion: socket.socket) -> tuple[dict, list[int]]:
    """Un pedido: 4 bytes de largo, el JSON y, con el primer trozo, los descriptores."""
    datos, anc, _, _ = conexion.recvmsg(65536, socket.CMSG_SPACE(_MAX_FDS * 4))
    fds = array.array("i")
    for nivel, tipo, contenido in anc:
        if nivel == socket.SOL_SOCKET and tipo == socket.SCM_RIGHTS:
            fds.frombytes(contenido[: len(contenido) - len(contenido) % fds.itemsize])
    if len(datos) < 4:
        raise ConnectionError("pedido incompleto")
    largo = int.from_bytes(datos[:4], "big")
    if largo > _MAX_PEDIDO:
        raise ConnectionError("pedido demasiado grande")
    cuerpo = bytearray(datos[4:])
    while len(cuerpo) < largo:
        trozo = conexion.recv(min(65536, largo - len(cuerpo)))
        if not trozo:
            raise ConnectionError("pedido incompleto")
        cuerpo += trozo
    return json.loads(bytes(cuerpo)), list(fds)


def _colocar(fds: list[int], destinos: list[int]) -> None:
    """Pone cada descriptor recibido en el número que tenía en el relevo."""
    import fcntl

    if len(fds) != len(destinos):
        raise ValueError("descriptores y destinos no coinciden")
    tope = max([*fds, *destinos, 2]) + 1
    temporales = [fcntl.fcntl(fd, fcntl.F_DUPFD, tope) for fd in fds]
    for fd in fds:
        os.close(fd)
    for temporal, destino in zip(temporales, destinos):
        os.dup2(temporal, destino)
        os.close(temporal)
    for fd in {0, 1, 2} - set(destinos):  # un relevo sin stdin (o sin stdout): /dev/null, como en un proceso nuevo
        nulo = os.open(os.devnull, os.O_RDWR)
        if nulo != fd:
            os.dup2(nulo, fd)
            os.close(nulo)


def _hijo(conexion: socket.socket, cerrar: list[int]) -> None:
    """En el hijo recién nacido: lee el pedido (el padre nunca lo lee) y se convierte en el programa."""
    try:
        os.setsid()
        from tutor_lib.calificacion.kernel.aislamiento import _morir_con_el_padre

        _morir_con_el_padre()
        signal.set_wakeup_fd(-1)
        for sen in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sen, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for fd in cerrar:
            try:
                os.close(fd)
            except OSError:
                pass
        pedido, fds = _recibir(conexion)
        conexion.close()
        destinos = [int(d) for d in pedido["fds"]]
        _colocar(fds, destinos)
        os.chdir(pedido["cwd"])
        os.umask(int(pedido["umask"]))
        argv = [str(a) for a in pedido["argv"]]
        if not se_puede(argv):
            raise ValueError("el servidor de precarga solo corre «python -m» o «python -c»")
        correr(argv, {str(k): str(v) for k, v in pedido["env"].items()}, frozenset(destinos))
    except BaseException:  # noqa: BLE001 - el hijo nunca vuelve al bucle del servidor
        traceback.print_exc()
    os._exit(1)


def _codigo(estado: int) -> int:
    """El código de salida como lo da un shell: 128 + la señal si lo mató una."""
    codigo = os.waitstatus_to_exitcode(estado)
    return codigo if codigo >= 0 else 128 - codigo


def servir(ruta: str, modulos: list[str]) -> None:
    """El servidor: importa ``modulos``, avisa «listo» por stdout y atiende hasta que se cierre su stdin."""
    # Sin PR_SET_PDEATHSIG: iría atado al hilo que lo lanzó (un hilo de Dask). Muere al cerrarse su stdin,
    # que solo tiene abierta quien lo lanzó: también si ese proceso muere.
    sys.modules.setdefault("rfc3987_syntax", None)  # como calificador._NBGRADER
    fallidos = {}
    inicio = time.perf_counter()
    for especificacion in [*FIJOS, *modulos]:
        try:
            _importar(especificacion)
        except BaseException as exc:  # noqa: BLE001 - un módulo que no carga se importará en el hijo
            fallidos[especificacion] = f"{type(exc).__name__}: {exc}"[:300]
    gc.collect()
    gc.freeze()  # los objetos ya importados no se tocan al recolectar: menos páginas copiadas en cada hijo
    oyente = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    oyente.bind(ruta)
    os.chmod(ruta, 0o600)
    oyente.listen(128)
    lector, escritor = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(escritor)
    sondeo = select.epoll()
    sondeo.register(oyente.fileno(), select.EPOLLIN)
    sondeo.register(lector, select.EPOLLIN)
    sondeo.register(0, select.EPOLLIN | select.EPOLLHUP)
    sys.stdout.write(json.dumps({"listo": True, "segundos": time.perf_counter() - inicio,
                                 "fallidos": fallidos}) + "\n")
    sys.stdout.flush()
    hijos: dict[int, socket.socket] = {}  # pid -> conexión con su relevo
    por_fd: dict[int, int] = {}  # descriptor de la conexión -> pid
    try:
        while True:
            for fd, eventos in sondeo.poll():
                if fd == 0:
                    return  # quien lo lanzó cerró la tubería: fin de la corrida
                if fd == lector:
                    try:
                        while os.read(lector, 512):
                            pass
                    except BlockingIOError:
                        pass
                    _recoger(hijos, por_fd, sondeo)
                elif fd == oyente.fileno():
                    try:
                        conexion, _ = oyente.accept()
                    except OSError:
                        continue
                    cerrar = [oyente.fileno(), lector, escritor, sondeo.fileno(), 0, *por_fd]
                    pid = os.fork()
                    if pid == 0:
                        _hijo(conexion, cerrar)
                    try:
                        conexion.sendall(f"pid {pid}\n".encode())
                    except OSError:
                        pass
                    hijos[pid] = conexion
                    por_fd[conexion.fileno()] = pid
                    sondeo.register(conexion.fileno(), select.EPOLLRDHUP)
                elif fd in por_fd:
                    # El relevo murió (nbgrader lo mató, o murió nbgrader): su programa muere con él.
                    pid = por_fd.pop(fd)
                    _matar(pid)
                    sondeo.unregister(fd)
                    conexion = hijos.get(pid)
                    if conexion is not None:
                        conexion.close()
                    hijos[pid] = None  # se recoge al llegar su SIGCHLD
            _recoger(hijos, por_fd, sondeo)
    finally:
        for pid in list(hijos):
            _matar(pid)
        # Si quien lo lanzó murió sin cerrarlo, nadie más borra su carpeta (socket y caché de matplotlib).
        carpeta = os.path.dirname(os.path.abspath(ruta))
        if os.path.basename(carpeta).startswith("tutor-p-"):
            shutil.rmtree(carpeta, ignore_errors=True)


def _matar(pid: int) -> None:
    for accion in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            accion()
        except (ProcessLookupError, PermissionError):
            pass


def _recoger(hijos: dict, por_fd: dict, sondeo) -> None:
    """Recoge los hijos que terminaron y le avisa a cada relevo el código de salida."""
    while True:
        try:
            # Sin recogerlo todavía (WNOWAIT): mientras no se recoja, su número no puede reusarse y
            # matar su grupo no alcanza a nadie más.
            info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return
        if info is None:
            return
        pid = info.si_pid
        _matar(pid)  # lo que quede de su grupo termina con él
        _, estado = os.waitpid(pid, 0)
        conexion = hijos.pop(pid, None)
        if conexion is None:
            continue
        try:
            conexion.sendall(f"fin {_codigo(estado)}\n".encode())
        except OSError:
            pass
        por_fd.pop(conexion.fileno(), None)
        try:
            sondeo.unregister(conexion.fileno())
        except (OSError, ValueError):
            pass
        conexion.close()


class Servidor:
    """El servidor de precarga de una corrida, visto desde quien califica.

    ``modulos``: lo que importa (ver :func:`modulos_de`); ``env``: su entorno (el
    limpio del kernel, ver :func:`tutor_lib.calificacion.kernel.aislamiento.entorno_limpio`). Espera a
    que termine de importar (``limite`` segundos); :attr:`ruta` es el socket que
    va en ``TUTOR_PRECARGA``. Si no llega a estar listo, :attr:`ruta` es None y
    se califica sin precarga.
    """

    def __init__(self, modulos: list[str], env: dict[str, str], limite: float = 180.0):
        self.carpeta = Path(tempfile.mkdtemp(prefix="tutor-p-", dir="/tmp" if Path("/tmp").is_dir() else None))
        self.ruta: str | None = None
        self.informe: dict = {}
        env = {**env, "MPLCONFIGDIR": str(self.carpeta / "matplotlib"), "PYTHONWARNINGS": "ignore"}
        env.pop(VARIABLE, None)
        self._errores = open(self.carpeta / "servidor.err", "wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tutor_lib.calificacion.motor.precarga", "--servir", str(self.carpeta / "s"),
             *modulos],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._errores, cwd=self.carpeta, env=env,
            start_new_session=True,
        )
        listos, _, _ = select.select([self.proc.stdout], [], [], limite)
        linea = self.proc.stdout.readline(2**20) if listos else b""  # una línea de JSON, acotada
        try:
            self.informe = json.loads(linea)
        except ValueError:
            self.informe = {"listo": False, "error": (self.carpeta / "servidor.err").read_text(errors="replace")[-2000:]}
        if self.informe.get("listo"):
            self.ruta = str(self.carpeta / "s")
        else:
            self.cerrar()

    def cerrar(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
        if self.proc.poll() is None:
            _matar(self.proc.pid)
            self.proc.wait()
        self._errores.close()
        shutil.rmtree(self.carpeta, ignore_errors=True)
        self.ruta = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.cerrar()


def activa() -> bool:
    """Si se califica con precarga: solo en Linux y salvo ``TUTOR_SIN_PRECARGA=1``."""
    return sys.platform.startswith("linux") and os.environ.get(DESACTIVAR, "") in ("", "0")


# ---------------------------------------------------------------------------
# El relevo
# ---------------------------------------------------------------------------

def _env_del_pedido(argv: list[str]) -> dict[str, str]:
    """El entorno que viaja al servidor: el del kernel, solo lo que el aislamiento deja pasar."""
    env = dict(os.environ)
    if _es_kernel(argv):
        from tutor_lib.calificacion.kernel import aislamiento

        conf = env.get(aislamiento.VARIABLE, "")
        # la configuración del aislamiento viaja (la lee tutor_lib.calificacion.kernel.aislamiento); lo demás, por
        # su lista blanca
        env = aislamiento.permitidas(env, json.loads(conf or "{}"))
        if conf:
            env[aislamiento.VARIABLE] = conf
    return env


def _es_kernel(argv: list[str]) -> bool:
    """El kernel de un estudiante (aislado o no): a él no le llega la ruta del servidor."""
    return argv[1:3] in (["-m", "tutor_lib.calificacion.kernel.aislamiento"], ["-m", "ipykernel_launcher"])


def _pedir(ruta: str, argv: list[str]) -> int:
    """Pide ``argv`` al servidor y espera su fin; devuelve el código de salida."""
    conexion = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conexion.connect(ruta)
    fds = [fd for fd in _abiertos() if fd != conexion.fileno() and _valido(fd)][:_MAX_FDS]
    datos = json.dumps({"argv": argv, "env": _env_del_pedido(argv), "cwd": os.getcwd(),
                        "umask": _umask(), "fds": fds}).encode()
    mensaje = len(datos).to_bytes(4, "big") + datos
    enviados = conexion.sendmsg([mensaje], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
    try:
        conexion.sendall(mensaje[enviados:])
    except OSError:
        return 1  # los descriptores ya viajaron: no se puede volver atrás y ejecutar aquí
    # El relevo no se queda con nada: si guardara una punta de una tubería, el otro lado no vería su fin.
    nulo = os.open(os.devnull, os.O_RDWR)
    for fd in fds:
        if fd > 2:
            os.close(fd)
        else:
            os.dup2(nulo, fd)
    os.close(nulo)
    pendientes: list[int] = []
    pid = 0

    def reenviar(numero, _marco):
        if pid:
            try:
                os.kill(pid, numero)
            except (ProcessLookupError, PermissionError):
                pass
        else:
            pendientes.append(numero)

    for sen in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2):
        signal.signal(sen, reenviar)
    lector = conexion.makefile("r", encoding="ascii")
    while True:
        try:
            linea = lector.readline()
        except InterruptedError:
            continue
        if not linea:
            return 1  # el servidor murió: el programa murió con él
        clave, _, valor = linea.strip().partition(" ")
        if clave == "pid":
            pid = int(valor)
            for numero in pendientes:
                reenviar(numero, None)
        elif clave == "fin":
            return int(valor)


def _valido(fd: int) -> bool:
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False


def _umask() -> int:
    actual = os.umask(0o022)
    os.umask(actual)
    return actual


def relevar(argv: list[str]) -> None:
    """El relevo: pide ``argv`` al servidor de ``TUTOR_PRECARGA`` o, si no hay, lo ejecuta; no vuelve."""
    # nbgrader y el juez la conservan (los kernels que lance nbgrader también se piden al servidor); el kernel no.
    ruta = os.environ.pop(VARIABLE, "") if _es_kernel(argv) else os.environ.get(VARIABLE, "")
    if sys.platform.startswith("linux"):
        from tutor_lib.calificacion.kernel.aislamiento import _morir_con_el_padre

        _morir_con_el_padre()  # si muere quien lo lanzó (nbgrader), el relevo muere y el servidor mata al programa
    if ruta and se_puede(argv):
        try:
            codigo = _pedir(ruta, argv)
        except (OSError, ValueError):
            pass  # sin servidor: como siempre
        else:
            os._exit(codigo & 0xFF)
    try:
        os.execv(argv[0], argv)
    except OSError as exc:
        sys.stderr.write(f"tutor_lib.calificacion.motor.precarga: no se pudo ejecutar {argv[0]} ({exc.strerror})\n")
    os._exit(127)


def main(argv: list[str]) -> None:
    if argv[:1] == ["--servir"] and len(argv) >= 2:
        servir(argv[1], argv[2:])
        return
    if not argv:
        sys.exit("uso: python -m tutor_lib.calificacion.motor.precarga PROGRAMA [ARGUMENTOS...]  "
                 "(con TUTOR_PRECARGA=SOCKET)")
    relevar(argv)


if __name__ == "__main__":
    main(sys.argv[1:])
