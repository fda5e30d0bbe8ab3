"""Normalización de textos para detectar filas duplicadas en los datos del curso.

La usan ``scripts/dividir_datos.py`` y las pruebas de ``tests/test_datos.py``:
dos filas son la misma si coinciden tras quitar mayúsculas, tildes y puntuación.
"""

from __future__ import annotations

import re
import unicodedata

_NO_ALFANUMERICO = re.compile(r"[^0-9a-zñ ]+")
_ESPACIOS = re.compile(r"\s+")


def normalizar_texto(texto: str) -> str:
    """Minúsculas, sin tildes (la ñ se conserva como n), sin puntuación y con espacios simples."""
    if not isinstance(texto, str):
        raise TypeError(f"Se esperaba un texto (str); recibí {type(texto).__name__}.")
    sin_tildes = "".join(
        c for c in unicodedata.normalize("NFKD", texto.lower()) if not unicodedata.combining(c)
    )
    return _ESPACIOS.sub(" ", _NO_ALFANUMERICO.sub(" ", sin_tildes)).strip()


def clave_normalizada(fila: dict) -> str:
    """Clave de duplicado de una fila de cualquiera de los cuatro datasets."""
    if "messages" in fila:
        return normalizar_texto(" ".join(m["content"] for m in fila["messages"]))
    if "prompt" in fila:
        return normalizar_texto(fila["prompt"])
    if "sentence1" in fila:
        return normalizar_texto(fila["sentence1"] + " || " + fila["sentence2"])
    return normalizar_texto(fila["text"])
