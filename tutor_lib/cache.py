"""La caché del curso: dónde guarda lo que construye y cómo publica una carpeta sin dejarla a medias.

Aparte de ``recursos`` (que la reexporta) para que los modelos que el curso convierte (``tutor_lib.modelos.e5``,
``tutor_lib.modelos.smollm2``) la usen sin importar ``recursos``, que a su vez los importa a ellos.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def carpeta_cache() -> Path:
    """Carpeta donde el curso guarda lo que construye (``TUTOR_CACHE`` o ~/.cache/tutor_lib)."""
    base = os.environ.get("TUTOR_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "tutor_lib"
    )
    return Path(base)


def carpeta_temporal(destino: Path) -> Path:
    """Una carpeta vacía junto a ``destino`` donde escribir una conversión antes de publicarla."""
    temporal = destino.with_name(destino.name + f".tmp{os.getpid()}")
    shutil.rmtree(temporal, ignore_errors=True)
    temporal.mkdir(parents=True)
    return temporal


def publicar_carpeta(temporal: Path, destino: Path, completa) -> Path:
    """Renombra ``temporal`` a ``destino``: una conversión interrumpida no deja una carpeta a medias que parezca buena.

    Si otro proceso (otra lección, otro kernel) publicó la misma conversión antes, se queda la suya, siempre que
    ``completa(destino)`` lo confirme. La usan ``tutor_lib.modelos.e5`` y ``tutor_lib.modelos.smollm2``.
    """
    if destino.exists():
        shutil.rmtree(destino, ignore_errors=True)
    try:
        temporal.rename(destino)
    except OSError:
        shutil.rmtree(temporal, ignore_errors=True)
        if not completa(destino):
            raise
    return destino
