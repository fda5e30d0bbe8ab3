"""``tutor curso``: abre JupyterLab en la carpeta del curso."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tutor_lib.comandos import Resultado

NOMBRE = "curso"
AYUDA = "Abre JupyterLab con las lecciones del curso (o lo sirve sin navegador con --sin-navegador)."


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
    parser.add_argument("--carpeta", default=None, help="carpeta del curso (por defecto, la del repositorio)")


def ejecutar(args) -> Resultado:
    if not 0 < args.puerto < 65536:
        raise ValueError(f"El puerto debe estar entre 1 y 65535; recibí {args.puerto}.")
    carpeta = Path(args.carpeta) if args.carpeta else raiz_del_curso()
    if not carpeta.is_dir():
        raise FileNotFoundError(f"No existe la carpeta del curso: {carpeta}")
    comando = [
        sys.executable,
        "-m",
        "jupyterlab",
        f"--ServerApp.root_dir={carpeta}",
        f"--ServerApp.ip={args.ip}",
        f"--ServerApp.port={args.puerto}",
        "--ServerApp.port_retries=0",
    ]
    if args.sin_navegador:
        comando.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # contenedores y CI corren como root
        comando.append("--allow-root")
    if args.token is not None:
        comando.append(f"--IdentityProvider.token={args.token}")
    inicio = carpeta / "lessons" / "00_bienvenida.ipynb"
    if inicio.exists() and not args.sin_navegador:
        comando.append(f"--LabApp.default_url=/lab/tree/lessons/{inicio.name}")
    codigo = subprocess.call(comando, env={**os.environ, "TUTOR_RAIZ": str(carpeta)})
    return Resultado(datos={"codigo": codigo}, texto="JupyterLab se cerró.", codigo=codigo)
