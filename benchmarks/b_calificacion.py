"""Tiempo de calificar con nbgrader: por asignación para una entrega y para una clase de 30.

Una entrega = reconstruirla, ``nbgrader autograde`` con el kernel aislado y
``nbgrader generate_feedback`` (lo que hace ``tutor calificar`` por estudiante).
La clase de 30 corre ``tutor_lib.calificador.calificar_clase`` de verdad sobre
30 carpetas con la solución de referencia. Todo se mide al correrlo.

Es lento (unos 3 min por asignación para la clase de 30 en una CPU de 2
núcleos), por eso la clase de 30 solo corre con ``TUTOR_BENCH_CLASE=1``; sin
esa variable se mide una entrega por asignación y la fila de la clase dice que
no se midió.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import nbformat

from tutor_lib.calificador import CursoTemporal, asignaciones, calificar_clase, entrega_de_referencia, fuente

ESTUDIANTES = 30


def _una_entrega(asig: str, carpeta: Path) -> tuple[float, float, float, Path]:
    """(preparar el curso, calificar una entrega, puntos) y la ruta de la entrega usada."""
    t0 = time.perf_counter()
    with CursoTemporal(asig) as curso:
        preparar = time.perf_counter() - t0
        nb = entrega_de_referencia(nbformat.read(fuente(asig), as_version=4), curso.liberado)
        ruta = carpeta / f"{asig}.ipynb"
        nbformat.write(nb, ruta)
        t1 = time.perf_counter()
        cal = curso.calificar("medida", ruta)
        una = time.perf_counter() - t1
    return preparar, una, cal.puntos, ruta


def medir() -> list[tuple[str, str, str]]:
    filas = []
    clase = os.environ.get("TUTOR_BENCH_CLASE") == "1"
    tmp = Path(tempfile.mkdtemp(prefix="bench-calificar-"))
    try:
        for asig in asignaciones():
            preparar, una, puntos, ruta = _una_entrega(asig, tmp)
            filas.append((f"calificar {asig}: 1 entrega", f"{una:.1f} s",
                          f"autograde + feedback, kernel aislado; {puntos:g} puntos; preparar el curso {preparar:.1f} s"))
            if clase:
                entregas = tmp / f"clase_{asig}"
                for i in range(ESTUDIANTES):
                    (entregas / f"est{i:02d}").mkdir(parents=True)
                    shutil.copy2(ruta, entregas / f"est{i:02d}" / ruta.name)
                t = time.perf_counter()
                datos = calificar_clase(asig, entregas, tmp / f"notas_{asig}")
                total = time.perf_counter() - t
                bien = sum(1 for e in datos["estudiantes"].values() if e["estado"] == "calificado")
                filas.append((f"calificar {asig}: clase de {ESTUDIANTES}", f"{total:.0f} s",
                              f"{total / ESTUDIANTES:.1f} s por entrega; {bien}/{ESTUDIANTES} calificadas; tutor calificar completo"))
            else:
                filas.append((f"calificar {asig}: clase de {ESTUDIANTES}", "no medido",
                              "corre con TUTOR_BENCH_CLASE=1 (tarda ~3 min por asignación)"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    json.dumps(filas)
    return filas
