"""Tiempo de calificar con nbgrader: por asignación para una entrega y para una clase de 30.

Una entrega = reconstruirla, ``nbgrader autograde`` con el kernel aislado y
``nbgrader generate_feedback`` (lo que hace ``tutor calificar`` por estudiante).
La clase de 30 corre ``tutor_lib.calificador.calificar_clase`` de verdad sobre
30 carpetas con la solución de referencia. Todo se mide al correrlo.

La clase de 30 es lenta (unos 5 min por asignación en una CPU de 2 núcleos),
por eso solo corre si se pide: ``TUTOR_BENCH_CLASE=1`` (todas) o una lista
(``TUTOR_BENCH_CLASE=ej04_warmup,ej11_qlora``). ``TUTOR_BENCH_PROCESOS`` fija
cuántas entregas a la vez (por omisión, la mitad de los núcleos, como
``tutor calificar``). Las filas de clase que no se pidieron dicen «no medido».
"""

from __future__ import annotations

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
    pedido = os.environ.get("TUTOR_BENCH_CLASE", "")
    procesos = int(os.environ.get("TUTOR_BENCH_PROCESOS", "0")) or max(1, (os.cpu_count() or 2) // 2)
    tmp = Path(tempfile.mkdtemp(prefix="bench-calificar-"))
    try:
        for asig in asignaciones():
            preparar, una, puntos, ruta = _una_entrega(asig, tmp)
            filas.append((f"calificar {asig}: 1 entrega", f"{una:.1f} s",
                          f"autograde + feedback, kernel aislado; {puntos:g} puntos; preparar el curso {preparar:.1f} s"))
            if pedido == "1" or asig in pedido.split(","):
                entregas = tmp / f"clase_{asig}"
                for i in range(ESTUDIANTES):
                    (entregas / f"est{i:02d}").mkdir(parents=True)
                    shutil.copy2(ruta, entregas / f"est{i:02d}" / ruta.name)
                t = time.perf_counter()
                datos = calificar_clase(asig, entregas, tmp / f"notas_{asig}", procesos=procesos)
                total = time.perf_counter() - t
                bien = sum(1 for e in datos["estudiantes"].values() if e["estado"] == "calificado")
                filas.append((f"calificar {asig}: clase de {ESTUDIANTES}", f"{total:.0f} s",
                              f"{bien}/{ESTUDIANTES} calificadas; {procesos} a la vez; con retroalimentación; "
                              f"{os.cpu_count()} núcleos"))
            else:
                filas.append((f"calificar {asig}: clase de {ESTUDIANTES}", "no medido",
                              "pídelo con TUTOR_BENCH_CLASE=1 o una lista de asignaciones"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return filas
