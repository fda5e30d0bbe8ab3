"""Borrar carpetas que dejó el código de un estudiante, sin recursión y sin seguir enlaces.

``shutil.rmtree`` de Python 3.11 es recursivo: una entrega que anida 3000 carpetas en su carpeta de
sockets le hace lanzar ``RecursionError`` (que ``ignore_errors`` no cubre) y, con rutas de más de
4096 bytes, ni siquiera puede nombrarlas. :func:`borrar_arbol` baja por descriptores (``openat``,
``unlinkat``) con una pila propia y nunca lanza: lo usan el calificador, el reparto de la clase y la
precarga al terminar (lo ataca ``tests/test_ataques_nuevos.py``, entrega ``anidar``).
"""

from __future__ import annotations

import datetime
import os
import stat
from pathlib import Path

_CARPETA = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _abrir_hija(nombre: str, fd: int) -> int:
    try:
        return os.open(nombre, _CARPETA, dir_fd=fd)
    except PermissionError:  # una carpeta 0000 del estudiante (sin root): se le devuelve el permiso
        os.chmod(nombre, 0o700, dir_fd=fd)
        return os.open(nombre, _CARPETA, dir_fd=fd)


def _vaciar_un_paso(fd: int) -> str | None:
    """Borra los archivos de la carpeta ``fd`` hasta encontrar una subcarpeta, cuyo nombre devuelve."""
    with os.scandir(fd) as entradas:
        for entrada in entradas:
            if entrada.is_dir(follow_symlinks=False):
                return entrada.name
            try:
                os.unlink(entrada.name, dir_fd=fd)
            except FileNotFoundError:
                pass
            except PermissionError:
                os.chmod(fd, 0o700)
                os.unlink(entrada.name, dir_fd=fd)
    return None


def borrar_arbol(ruta: str | os.PathLike) -> bool:
    """Borra ``ruta`` (carpeta, archivo o enlace; un enlace se borra, nunca se sigue) sin recursión.

    Devuelve True si ya no existe; False si algo no se pudo borrar (nunca lanza).
    """
    ruta = Path(ruta)
    pila: list[tuple[int, str]] = []
    try:
        modo = os.lstat(ruta).st_mode
        if not stat.S_ISDIR(modo):
            ruta.unlink()
            return True
        pila.append((os.open(ruta, _CARPETA), ""))
        while pila:
            fd, _ = pila[-1]
            hija = _vaciar_un_paso(fd)
            if hija is not None:
                pila.append((_abrir_hija(hija, fd), hija))
                continue
            _, nombre = pila.pop()
            os.close(fd)
            if pila:
                os.rmdir(nombre, dir_fd=pila[-1][0])
        ruta.rmdir()
        return True
    except FileNotFoundError:
        return not os.path.lexists(ruta)
    except (OSError, ValueError):
        return False
    finally:
        for fd, _ in pila:
            try:
                os.close(fd)
            except OSError:
                pass


def nombre_anterior(ruta: Path) -> Path:
    """Un nombre libre junto a ``ruta`` para dejar su versión anterior: ``<ruta>.anterior-<fecha>``.

    Si ya existe (dos corridas en el mismo segundo), ``-2``, ``-3``... Un enlace roto también ocupa el
    nombre. Lo usan ``tutor calificar`` (la corrida anterior) y ``tutor exportar`` (la salida anterior).
    """
    fecha = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    anterior, n = ruta.with_name(f"{ruta.name}.anterior-{fecha}"), 1
    while anterior.exists() or anterior.is_symlink():
        n += 1
        anterior = ruta.with_name(f"{ruta.name}.anterior-{fecha}-{n}")
    return anterior
