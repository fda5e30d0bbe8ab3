"""Las líneas de las pruebas ocultas y cómo taparlas en un texto que se va a guardar o publicar.

Una prueba oculta le pide al kernel del estudiante código que puede traer sus
propias líneas (``alumno.ejecutar('''...''')``): el estudiante las ve en su
kernel. El juez nunca repite el texto de una excepción del estudiante
(:func:`tutor_lib.calificacion.juez.puente.interpretar`) y lo que el kernel publica mientras
el juez pregunta no se guarda (:mod:`tutor_lib.calificacion.juez.ejecutor`). Queda un camino:
que una prueba muestre en su mensaje un dato que devolvió el estudiante (un
texto, el nombre de un tipo) y que ese dato sea una línea de una prueba oculta.

Por eso, como defensa de más, todo texto que sale del calificador (las salidas
de las pruebas, el registro de nbgrader, los mensajes de la retroalimentación)
pasa por :func:`tapar_ocultas`, que reemplaza cada línea oculta (también escrita
como ``repr`` o como JSON) por ``[…]``. Un texto codificado (base64, al revés)
no se reconoce: las pruebas no deben mostrar textos largos del estudiante.
Lo usan :mod:`tutor_lib.calificacion.juez.ejecutor`, :mod:`tutor_lib.calificacion.motor.calificador` y
:mod:`tutor_lib.calificacion.retroalimentacion`.
"""

from __future__ import annotations

import json

INICIO, FIN = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"
TAPADO = "[…]"


def lineas_ocultas(celdas, minimo: int = 16) -> list[str]:
    """Las líneas entre ``BEGIN``/``END HIDDEN TESTS`` de ``celdas`` con ``minimo`` caracteres o más.

    Sin espacios a los lados, sin repetir y de la más larga a la más corta (así una
    línea que contiene a otra se tapa entera).
    """
    lineas, dentro = set(), False
    for celda in celdas:
        fuente = celda.get("source", "") if hasattr(celda, "get") else ""
        if isinstance(fuente, list):
            fuente = "".join(x for x in fuente if isinstance(x, str))
        for linea in str(fuente).splitlines():
            if INICIO in linea:
                dentro = True
            elif FIN in linea:
                dentro = False
            elif dentro and len(linea.strip()) >= minimo:
                lineas.add(linea.strip())
        dentro = False  # una región sin cierre termina con su celda
    return sorted(lineas, key=lambda l: (-len(l), l))


def _formas(linea: str) -> set[str]:
    return {linea, repr(linea)[1:-1], json.dumps(linea)[1:-1], json.dumps(linea, ensure_ascii=False)[1:-1]}


def tapar_ocultas(texto, ocultas: list[str]):
    """``texto`` con cada línea de ``ocultas`` (también como ``repr`` o JSON) reemplazada por ``[…]``."""
    if not ocultas or not isinstance(texto, str) or not texto:
        return texto
    for linea in ocultas:
        for forma in _formas(linea):
            if forma in texto:
                texto = texto.replace(forma, TAPADO)
    return texto


def tapar(valor, ocultas: list[str]):
    """``valor`` (texto, o listas y diccionarios de textos, como una salida de nbformat) con las líneas tapadas."""
    if not ocultas:
        return valor
    if isinstance(valor, str):
        return tapar_ocultas(valor, ocultas)
    if isinstance(valor, list):
        return [tapar(v, ocultas) for v in valor]
    if isinstance(valor, dict):
        return {k: tapar(v, ocultas) for k, v in valor.items()}
    return valor
