"""``tutor curso``: abre JupyterLab en tu carpeta de trabajo (o, con ``--profesor``, en la del curso).

Quien estudia no trabaja sobre los notebooks que sigue git: ``tutor curso`` crea (la primera vez) o
completa ``trabajo/`` con copias de ``lessons/`` y ``exercises/`` y abre JupyterLab ahí
(:mod:`tutor_lib.trabajo`). ``--carpeta`` sirve una carpeta tal cual, sin copias.

Al arrancar imprime en español la dirección que funciona, con su token (uno al azar si no das ``--token``).
En la terminal de JupyterLab, ``python``, ``pip``, ``jupyter`` y ``tutor`` son los del curso
(:mod:`tutor_lib.terminal`). Los kernels hablan con JupyterLab por un canal cifrado y, en la interfaz de
estudiante, el de un notebook cerrado se apaga tras una hora sin actividad. Lo prueban
``tests/test_curso.py``, ``tests/test_curso_inicio.py`` y ``tests/test_curso_terminal.py``.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

from tutor_lib.comandos import Resultado
# se conservan aquí sus nombres de siempre: los importan pruebas y otros módulos
from tutor_lib.terminal import SHELLS_POSIX, carpeta_de_binarios, escribir_rcfile, orden_de_la_terminal

__all__ = ["SHELLS_POSIX", "carpeta_de_binarios", "orden_de_la_terminal"]

NOMBRE = "curso"
AYUDA = ("Abre JupyterLab en tu carpeta de trabajo, con tus copias de las lecciones y los ejercicios "
         "(o lo sirve sin navegador con --sin-navegador); con --profesor, la interfaz de nbgrader del instructor.")


def raiz_del_curso() -> Path:
    """La carpeta que contiene lessons/ (el repositorio clonado)."""
    candidata = Path(__file__).resolve().parents[2]
    if (candidata / "lessons").is_dir():
        return candidata
    return Path.cwd()


def configurar(parser) -> None:
    parser.add_argument("--sin-navegador", action="store_true", help="modo servidor: no abre un navegador")
    parser.add_argument("--ip", default="127.0.0.1", help="dirección donde escuchar (por defecto 127.0.0.1)")
    parser.add_argument("--puerto", type=int, default=8888, help="puerto (por defecto 8888)")
    parser.add_argument("--token", default=None,
                        help="token de acceso (por defecto, uno al azar; la dirección que se imprime lo incluye)")
    parser.add_argument("--trabajo", default=None,
                        help="tu carpeta de trabajo (por defecto, trabajo/ en la carpeta del curso, que git ignora)")
    parser.add_argument("--carpeta", default=None,
                        help="sirve esta carpeta tal cual, sin carpeta de trabajo (para preparar material o probar)")
    parser.add_argument("--profesor", action="store_true",
                        help="interfaz del instructor: menú Nbgrader y formgrader con course/nbgrader_config.py")


def ejecutar(args) -> Resultado:
    if not 0 < args.puerto < 65536:
        raise ValueError(f"El puerto debe estar entre 1 y 65535; recibí {args.puerto}.")
    if args.carpeta and args.trabajo:
        raise ValueError("Usa --carpeta (servir una carpeta tal cual) o --trabajo (tu carpeta de trabajo), no los dos.")
    if args.profesor and args.trabajo:
        raise ValueError("La interfaz del instructor trabaja en la carpeta del curso: --trabajo es para estudiantes.")
    token = elegir_token(args.token)
    # absoluta: JupyterLab corre con cwd en la carpeta, y una ruta relativa se resolvería dos veces
    carpeta = (Path(args.carpeta).expanduser() if args.carpeta else raiz_del_curso()).resolve()
    if not carpeta.is_dir():
        raise FileNotFoundError(f"No existe la carpeta del curso: {carpeta}")
    sincronizacion = None
    if not args.profesor and not args.carpeta:
        from tutor_lib import trabajo

        destino = Path(args.trabajo).expanduser() if args.trabajo else carpeta / trabajo.CARPETA_POR_DEFECTO
        sincronizacion = trabajo.sincronizar(carpeta, destino)
        # con --json, stdout queda para el JSON del final
        print(sincronizacion.texto(), file=sys.stderr if args.json else sys.stdout, flush=True)
        carpeta = sincronizacion.carpeta
    directorio = carpeta  # donde corre JupyterLab: ahí abre la terminal del lanzador
    if args.profesor:
        # formgrader lee nbgrader_config.py de la carpeta donde corre el servidor
        configuracion = carpeta / "course" / "nbgrader_config.py"
        if not configuracion.is_file():
            raise FileNotFoundError(
                f"La interfaz del instructor necesita la configuración de nbgrader del curso: no existe {configuracion}."
            )
        directorio = configuracion.parent
    with tempfile.TemporaryDirectory(prefix="tutor-curso-") as privada:
        # una carpeta solo tuya mientras JupyterLab corre: el archivo del token y el de la terminal
        arranque = preparar_arranque(
            carpeta, ip=args.ip, puerto=args.puerto, token=token,
            profesor=args.profesor, sin_navegador=args.sin_navegador, privada=Path(privada),
        )
        print(arranque.mensaje, file=sys.stderr if args.json else sys.stdout, flush=True)
        # cwd: la terminal que se abre desde el lanzador empieza en la carpeta del servidor, no en root_dir
        codigo = correr_jupyterlab(arranque, cwd=directorio)
    datos = {"codigo": codigo, "carpeta": str(carpeta), "url": arranque.url,
             "trabajo": None if sincronizacion is None else sincronizacion.como_dict()}
    return Resultado(datos=datos, texto="JupyterLab se cerró.", codigo=codigo)


class _Cierre(Exception):
    """Llegó SIGTERM o SIGHUP a ``tutor curso``: se cierra JupyterLab como con Ctrl+C."""


def _cerrar_por_senal(numero, marco):
    raise _Cierre(numero)


def correr_jupyterlab(arranque: Arranque, cwd: Path) -> int:
    """Corre JupyterLab hasta que se cierra y devuelve su código de salida.

    Ctrl+C (aquí o en la terminal, que se lo manda también a JupyterLab) no deja una traza de Python: JupyterLab
    recibe SIGTERM, apaga sus kernels y termina; un segundo Ctrl+C lo corta sin esperar. Lo mismo si alguien
    cierra ``tutor curso`` con ``kill`` (SIGTERM) o cierra su terminal (SIGHUP): JupyterLab no queda huérfano
    con sus kernels ocupando memoria, y la carpeta privada del token se borra.
    """
    senales = [s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s is not None]
    anteriores = {}
    try:
        for senal in senales:
            anteriores[senal] = signal.signal(senal, _cerrar_por_senal)
    except ValueError:  # fuera del hilo principal no se pueden cambiar: se sigue sin ellos
        pass
    proceso = None
    try:
        proceso = subprocess.Popen(arranque.comando, env=arranque.entorno, cwd=cwd)
        return proceso.wait()
    except (KeyboardInterrupt, _Cierre):
        if proceso is None:
            return 0
        print("\nCerrando JupyterLab y sus kernels...", file=sys.stderr, flush=True)
        proceso.terminate()
        try:
            proceso.wait(timeout=60)
        except (KeyboardInterrupt, _Cierre, subprocess.TimeoutExpired):
            proceso.kill()
            proceso.wait()
        return 0
    finally:
        for senal, anterior in anteriores.items():
            signal.signal(senal, anterior)


@dataclass
class Arranque:
    """Todo lo que ``tutor curso`` necesita para abrir JupyterLab: la orden, su entorno y lo que imprime."""

    comando: list[str]
    entorno: dict = field(repr=False)
    url: str
    mensaje: str


def elegir_token(token: str | None = None, entorno: dict | None = None) -> str:
    """El token de acceso de JupyterLab: ``--token``, o el de ``JUPYTER_TOKEN``, o uno nuevo al azar.

    Con un token que ``tutor curso`` conoce, la dirección que imprime en español es la que funciona
    (JupyterLab solo imprime completo el token que genera él, y en inglés).
    """
    entorno = os.environ if entorno is None else entorno
    if token is None:
        token = entorno.get("JUPYTER_TOKEN") or secrets.token_hex(24)
    if not token.strip():
        raise ValueError("El token no puede estar vacío: sin token, cualquiera que llegue al puerto puede "
                         "ejecutar código en tu máquina. Omite --token y el curso genera uno al azar.")
    if any(c.isspace() for c in token):
        raise ValueError(f"El token no puede tener espacios; recibí {token!r}.")
    return token


def direccion(ip: str, puerto: int, token: str, ruta: str = "/lab") -> str:
    """La dirección que se abre en el navegador, con ``?token=...``.

    ``127.0.0.1`` se escribe ``localhost``; ``0.0.0.0`` (todas las interfaces) no es una dirección que un
    navegador pueda abrir, así que se escribe ``<dirección-de-esta-máquina>`` para que la completes.
    """
    anfitrion = {"127.0.0.1": "localhost", "0.0.0.0": "<dirección-de-esta-máquina>",
                 "": "localhost", "::": "<dirección-de-esta-máquina>"}.get(ip, ip)
    if ":" in anfitrion and not anfitrion.startswith("<"):  # IPv6 va entre corchetes
        anfitrion = f"[{anfitrion}]"
    return f"http://{anfitrion}:{puerto}{ruta}?" + urllib.parse.urlencode({"token": token})


def mensaje_de_inicio(url: str, sin_navegador: bool, profesor: bool = False) -> str:
    """Lo que ``tutor curso`` imprime al arrancar: la dirección completa (una vez) y cómo cerrar."""
    lineas = [f"El curso se sirve en {url}"]
    if sin_navegador:
        lineas.append("Ábrela en tu navegador; para cerrar el curso, Ctrl+C aquí.")
    else:
        lineas.append("JupyterLab la abre en tu navegador; si no se abre, cópiala ahí. "
                      "Para cerrar el curso, Ctrl+C aquí.")
    if not profesor:
        horas = KERNEL_INACTIVO_S / 3600
        plazo = "una hora" if horas == 1 else f"{horas:g} horas"
        lineas.append(f"Para liberar memoria, cerrar la pestaña de una lección apaga su kernel, y JupyterLab apaga "
                      f"el de una lección sin pestaña tras {plazo} sin actividad; al terminar una lección, cierra su "
                      "pestaña o usa Kernel > Apagar Kernel (en inglés, Kernel > Shut Down Kernel).")
    return "\n".join(lineas)


def preparar_arranque(carpeta: Path, *, ip: str = "127.0.0.1", puerto: int = 8888, token: str,
                      profesor: bool = False, sin_navegador: bool = False, privada: Path,
                      base: dict | None = None) -> Arranque:
    """La orden de JupyterLab, su entorno y el mensaje de inicio, sin ejecutar nada.

    ``privada`` es una carpeta solo tuya que dura lo que dura JupyterLab: ahí quedan el archivo del token
    (JupyterLab lo lee de ``JUPYTER_TOKEN_FILE``; así no aparece en la lista de procesos, que cualquier
    usuario de la máquina puede leer) y el archivo de arranque de la terminal (:mod:`tutor_lib.terminal`).
    """
    comando = [
        sys.executable,
        "-m",
        "jupyterlab",
        f"--ServerApp.root_dir={carpeta}",
        f"--ServerApp.ip={ip}",
        f"--ServerApp.port={puerto}",
        "--ServerApp.port_retries=0",
        *argumentos_de_interfaz(profesor),
        *argumentos_de_kernels(profesor),
    ]
    if sin_navegador:
        comando.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # contenedores y CI corren como root
        comando.append("--allow-root")
    inicio = carpeta / "lessons" / "00_bienvenida.ipynb"
    if inicio.exists():  # también en modo servidor: quien abre la dirección llega a la lección 0
        comando.append(f"--LabApp.default_url=/lab/tree/lessons/{inicio.name}")
    privada.mkdir(parents=True, exist_ok=True)
    privada.chmod(0o700)
    terminal = orden_de_la_terminal(escribir_rcfile(privada) if os.name != "nt" else None)
    if terminal:
        comando.append(f"--ServerApp.terminado_settings=shell_command={json.dumps(terminal)}")
    archivo_token = privada / "token"
    archivo_token.touch(mode=0o600)
    archivo_token.write_text(token, encoding="utf-8")  # sin salto de línea: JupyterLab lo lee tal cual
    entorno = entorno_de_jupyter(carpeta, base)
    entorno.pop("JUPYTER_TOKEN", None)  # tendría prioridad sobre el archivo
    entorno["JUPYTER_TOKEN_FILE"] = str(archivo_token)
    url = direccion(ip, puerto, token)
    return Arranque(comando=comando, entorno=entorno, url=url,
                    mensaje=mensaje_de_inicio(url, sin_navegador, profesor))


#: Extensiones de servidor de nbgrader: la de estudiante no las carga (ni avisa que le falta su configuración).
EXTENSIONES_NBGRADER = (
    "nbgrader.server_extensions.formgrader",
    "nbgrader.server_extensions.validate_assignment",
    "nbgrader.server_extensions.assignment_list",
    "nbgrader.server_extensions.course_list",
)


def argumentos_de_interfaz(profesor: bool = False) -> list[str]:
    """Opciones de JupyterLab para la interfaz de estudiante (por defecto) o la del instructor.

    Las dos usan los ajustes de ``tutor_lib/datos/jupyter/<interfaz>/`` (sin noticias ni búsqueda de
    versiones) y un gestor de extensiones de solo lectura: nada sale a internet. La de estudiante
    desactiva además nbgrader, en la página (``page_config.json``) y en el servidor.
    """
    ajustes = Path(__file__).resolve().parents[1] / "datos" / "jupyter" / ("profesor" if profesor else "estudiante")
    argumentos = [
        f"--LabApp.app_settings_dir={ajustes}",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",
    ]
    if not profesor:
        argumentos += [f"--ServerApp.jpserver_extensions={nombre}=False" for nombre in EXTENSIONES_NBGRADER]
    return argumentos


#: Segundos sin actividad tras los cuales JupyterLab apaga el kernel de un notebook cerrado (interfaz de estudiante).
KERNEL_INACTIVO_S = 3600
#: Cada cuántos segundos revisa JupyterLab qué kernels pasaron ese tiempo sin actividad.
REVISION_DE_KERNELS_S = 300


def argumentos_de_kernels(profesor: bool = False) -> list[str]:
    """Opciones de JupyterLab para sus kernels: canal cifrado y, en la interfaz de estudiante, apagado de inactivos.

    * Cada lección deja un kernel que puede ocupar varios GiB de memoria; cerrar la pestaña no lo apaga. En
      la interfaz de estudiante, JupyterLab apaga el que lleva :data:`KERNEL_INACTIVO_S` segundos sin
      actividad y sin pestaña conectada (``cull_connected=False``: el de una lección abierta no se toca,
      aunque pienses una hora antes de correr la celda siguiente; ``cull_busy=False``: tampoco uno que
      entrena).
    * Con ``transport_encryption="auto"``, jupyter_client cifra el canal con el kernel (CurveZMQ) y ipykernel
      no avisa en inglés «Kernel is running over TCP without encryption» en la consola de ``tutor curso``.
    """
    argumentos = []
    if cifrado_de_kernels_disponible():
        argumentos.append("--KernelManager.transport_encryption=auto")
    if not profesor:
        argumentos += [
            f"--MappingKernelManager.cull_idle_timeout={KERNEL_INACTIVO_S}",
            f"--MappingKernelManager.cull_interval={REVISION_DE_KERNELS_S}",
            "--MappingKernelManager.cull_connected=False",
            "--MappingKernelManager.cull_busy=False",
        ]
    return argumentos


def cifrado_de_kernels_disponible() -> bool:
    """Si jupyter_client sabe dar claves CurveZMQ a un kernel (``KernelManager.transport_encryption``, de la
    versión 8.10 con que se prueba el curso) y pyzmq trae CurveZMQ.

    Sin eso no se pide cifrado: sin CurveZMQ, ``transport_encryption="auto"`` haría fallar el arranque.
    """
    try:
        import zmq
        from jupyter_client.manager import KernelManager
    except ImportError:
        return False
    return "transport_encryption" in KernelManager.class_trait_names() and bool(zmq.has("curve"))


def entorno_de_jupyter(carpeta: Path, base: dict | None = None) -> dict:
    """Variables de entorno de JupyterLab: las actuales, con el entorno del curso primero en el PATH.

    Así la terminal de JupyterLab (que hereda este PATH) encuentra ``tutor`` y el Python del curso
    aunque nadie haya activado el entorno virtual (``make curso`` no lo activa).
    """
    base = dict(os.environ if base is None else base)
    binarios = str(carpeta_de_binarios())
    resto = [p for p in base.get("PATH", "").split(os.pathsep) if p and p != binarios]
    return {**base, "PATH": os.pathsep.join([binarios, *resto]), "TUTOR_RAIZ": str(carpeta)}
