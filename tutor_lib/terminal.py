"""La terminal de JupyterLab que abre ``tutor curso``: ``python``, ``pip``, ``jupyter`` y ``tutor`` son los del curso.

JupyterLab abre cada terminal con la orden de ``ServerApp.terminado_settings`` (``shell_command``). Dos cosas
reescriben el PATH que hereda del servidor (con ``bin/`` del entorno del curso primero):

* el shell de sesión (``-l``) lee ``/etc/profile``, que en Debian y Ubuntu fija el PATH desde cero;
* el shell interactivo lee ``~/.bashrc``, donde pyenv, conda o nvm ponen sus carpetas delante.

Con bash, la terminal lee primero tu ``~/.bashrc`` y después un archivo propio (``--rcfile``) que vuelve a
poner ``bin/`` del curso al principio del PATH y define ``VIRTUAL_ENV``, como ``source .venv/bin/activate``.
Con otro shell POSIX (zsh, dash, ksh) se conserva el shell y solo se repone el PATH tras el perfil de sesión:
un ``~/.zshrc`` que lo reescriba gana (la terminal lo avisa con ``command -v python``).

Se usa en :mod:`tutor_lib.comandos.curso`; lo prueba ``tests/test_curso_terminal.py``.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

#: Shells que entienden ``PATH=...; export PATH; exec ...`` (los demás reciben bash o sh).
SHELLS_POSIX = ("bash", "sh", "dash", "zsh", "ksh")

#: Nombre del archivo que lee el bash interactivo de la terminal en lugar de ``~/.bashrc`` (y que lo incluye).
NOMBRE_RCFILE = "bashrc"


def carpeta_de_binarios() -> Path:
    """La carpeta ``bin/`` del entorno del curso, donde pip instaló ``tutor``, ``python``, ``pip`` y ``jupyter``.

    No se resuelven enlaces simbólicos: en un venv, ``.venv/bin/python`` apunta al Python del
    sistema, y la carpeta que interesa es ``.venv/bin``.
    """
    return Path(sys.executable).parent


def entorno_virtual() -> Path | None:
    """La carpeta del entorno virtual del curso (``sys.prefix``), o ``None`` si el curso corre sin venv."""
    return Path(sys.prefix) if sys.prefix != sys.base_prefix else None


def texto_del_rcfile(binarios: Path | None = None, venv: Path | None = None) -> str:
    """El archivo que bash lee al abrir la terminal: tu ``~/.bashrc`` y después el entorno del curso.

    ``binarios`` va primero en el PATH (una sola vez); ``venv``, si lo hay, queda en ``VIRTUAL_ENV``.
    ``hash -r`` olvida las rutas que bash recordaba de antes (la de ``python`` de pyenv, por ejemplo).
    """
    binarios = carpeta_de_binarios() if binarios is None else binarios
    ruta = shlex.quote(str(binarios))
    lineas = [
        "# Terminal de JupyterLab del curso (lo escribe tutor curso: tutor_lib/terminal.py).",
        "# Primero tu configuración de siempre; después el entorno del curso, para que python, pip,",
        "# jupyter y tutor sean los del curso aunque tu ~/.bashrc ponga otras carpetas delante.",
        'if [ -f "$HOME/.bashrc" ]; then . "$HOME/.bashrc"; fi',
        f'PATH={ruta}:"$PATH"',
        "export PATH",
    ]
    if venv is not None:
        lineas += [f"VIRTUAL_ENV={shlex.quote(str(venv))}", "export VIRTUAL_ENV", "unset PYTHONHOME"]
    lineas += ["hash -r", ""]
    return "\n".join(lineas)


def escribir_rcfile(carpeta: Path) -> Path:
    """Escribe :func:`texto_del_rcfile` en ``carpeta`` (solo legible por ti) y devuelve su ruta."""
    carpeta = Path(carpeta)
    carpeta.mkdir(parents=True, exist_ok=True)
    ruta = carpeta / NOMBRE_RCFILE
    ruta.write_text(texto_del_rcfile(carpeta_de_binarios(), entorno_virtual()), encoding="utf-8")
    ruta.chmod(0o600)
    return ruta


def elegir_shell(entorno: dict | None = None) -> str | None:
    """El shell de la terminal: el tuyo (``$SHELL``) si es POSIX; si no (fish, nushell, sin ``$SHELL``), bash o sh."""
    entorno = os.environ if entorno is None else entorno
    shell = entorno.get("SHELL") or ""
    if Path(shell).name not in SHELLS_POSIX or not shutil.which(shell):
        shell = shutil.which("bash") or shutil.which("sh") or ""
    return shell or None


def orden_de_la_terminal(rcfile: Path | None = None, entorno: dict | None = None) -> list[str] | None:
    """La orden con que JupyterLab abre cada terminal (``ServerApp.terminado_settings``).

    Un shell de sesión (lee ``/etc/profile``) que pone ``bin/`` del curso primero y se reemplaza por un shell
    interactivo. Si ese shell es bash y hay ``rcfile`` (:func:`escribir_rcfile`), el bash interactivo lo lee
    en lugar de ``~/.bashrc``: tu ``~/.bashrc`` corre igual, y después el curso repone su PATH. Sin
    ``rcfile`` o con otro shell, el interactivo lee sus archivos de siempre. ``None`` en Windows (JupyterLab
    usa su valor por defecto).
    """
    if os.name == "nt":
        return None
    shell = elegir_shell(entorno)
    if shell is None:
        return None
    binarios = shlex.quote(str(carpeta_de_binarios()))
    venv = entorno_virtual()
    activar = f"VIRTUAL_ENV={shlex.quote(str(venv))}; export VIRTUAL_ENV; " if venv is not None else ""
    interactivo = shlex.quote(shell)
    if rcfile is not None and Path(shell).name == "bash":
        interactivo += f" --rcfile {shlex.quote(str(rcfile))}"
    return [shell, "-l", "-c", f'PATH={binarios}:"$PATH"; export PATH; {activar}exec {interactivo} -i']
