"""``tutor curso``: abre JupyterLab en tu carpeta de trabajo (o, con ``--profesor``, en la del curso).

Quien estudia no trabaja sobre los notebooks que sigue git: ``tutor curso`` crea (la primera vez) o
completa ``trabajo/`` con copias de ``lessons/`` y ``exercises/`` y abre JupyterLab ahí
(:mod:`tutor_lib.trabajo`). ``--carpeta`` sirve una carpeta tal cual, sin copias.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from tutor_lib.comandos import Resultado

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
    parser.add_argument("--token", default=None, help="token de acceso (por defecto lo genera JupyterLab)")
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
    comando = [
        sys.executable,
        "-m",
        "jupyterlab",
        f"--ServerApp.root_dir={carpeta}",
        f"--ServerApp.ip={args.ip}",
        f"--ServerApp.port={args.puerto}",
        "--ServerApp.port_retries=0",
        *argumentos_de_interfaz(args.profesor),
    ]
    if args.sin_navegador:
        comando.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # contenedores y CI corren como root
        comando.append("--allow-root")
    if args.token is not None:
        comando.append(f"--IdentityProvider.token={args.token}")
    inicio = carpeta / "lessons" / "00_bienvenida.ipynb"
    if inicio.exists():  # también en modo servidor: quien abre la dirección llega a la lección 0
        comando.append(f"--LabApp.default_url=/lab/tree/lessons/{inicio.name}")
    if args.sin_navegador:
        anfitrion = {"127.0.0.1": "localhost", "0.0.0.0": "<dirección-de-esta-máquina>"}.get(args.ip, args.ip)
        ficha = f"?token={args.token}" if args.token else ""
        print(f"El curso se sirve en http://{anfitrion}:{args.puerto}/lab{ficha}\n"
              + ("" if args.token else "JupyterLab imprime abajo la misma dirección con su token (token=...). ")
              + "Ábrela en tu navegador; para cerrar el curso, Ctrl+C aquí.", flush=True)
    terminal = orden_de_la_terminal()
    if terminal:
        comando.append(f"--ServerApp.terminado_settings=shell_command={json.dumps(terminal)}")
    # cwd: la terminal que se abre desde el lanzador empieza en la carpeta del servidor, no en root_dir
    codigo = subprocess.call(comando, env=entorno_de_jupyter(carpeta), cwd=directorio)
    datos = {"codigo": codigo, "carpeta": str(carpeta),
             "trabajo": None if sincronizacion is None else sincronizacion.como_dict()}
    return Resultado(datos=datos, texto="JupyterLab se cerró.", codigo=codigo)


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


def carpeta_de_binarios() -> Path:
    """La carpeta ``bin/`` del entorno del curso, donde pip instaló ``tutor``.

    No se resuelven enlaces simbólicos: en un venv, ``.venv/bin/python`` apunta al Python del
    sistema, y la carpeta que interesa es ``.venv/bin``.
    """
    return Path(sys.executable).parent


def entorno_de_jupyter(carpeta: Path, base: dict | None = None) -> dict:
    """Variables de entorno de JupyterLab: las actuales, con el entorno del curso primero en el PATH.

    Así la terminal de JupyterLab (que hereda este PATH) encuentra ``tutor`` y el Python del curso
    aunque nadie haya activado el entorno virtual (``make curso`` no lo activa).
    """
    base = dict(os.environ if base is None else base)
    binarios = str(carpeta_de_binarios())
    resto = [p for p in base.get("PATH", "").split(os.pathsep) if p and p != binarios]
    return {**base, "PATH": os.pathsep.join([binarios, *resto]), "TUTOR_RAIZ": str(carpeta)}


#: Shells que entienden ``PATH=...; export PATH; exec ...`` (los demás reciben bash o sh).
SHELLS_POSIX = ("bash", "sh", "dash", "zsh", "ksh")


def orden_de_la_terminal() -> list[str] | None:
    """El shell de las terminales de JupyterLab: de sesión (lee /etc/profile) y con ``tutor`` en el PATH.

    JupyterLab abre un shell de sesión (``-l``) cuando no corre en una terminal, y el /etc/profile de
    Debian y Ubuntu reescribe el PATH: la carpeta del entorno que puso ``entorno_de_jupyter`` se pierde y
    ``tutor`` deja de encontrarse. Por eso el shell de sesión vuelve a ponerla primero y luego se
    reemplaza por un shell interactivo. ``None`` en Windows (JupyterLab usa su valor por defecto).
    """
    if os.name == "nt":
        return None
    shell = os.environ.get("SHELL") or ""
    if Path(shell).name not in SHELLS_POSIX:  # fish, nushell...: la sintaxis de abajo no les sirve
        shell = shutil.which("bash") or shutil.which("sh") or ""
    if not shell:
        return None
    binarios = shlex.quote(str(carpeta_de_binarios()))
    return [shell, "-l", "-c", f'PATH={binarios}:"$PATH"; export PATH; exec {shlex.quote(shell)} -i']
