"""Calificar muchas entregas: entregas por minuto con 1 y 2 trabajadores, y en qué se va el tiempo.

``TUTOR_BENCH_ESCALA=60`` califica 60 entregas repartidas entre tres
asignaciones (``TUTOR_BENCH_ESCALA_ASIGNACIONES``, por omisión las tres que más
rápido se califican), la mitad con la solución de referencia y la mitad sin
resolver, con ``tutor_lib.clase.calificar_clase`` de verdad: primero con 1
trabajador de Dask y luego con 2. Sin la variable no mide nada (son decenas de
minutos en 2 núcleos) y las filas dicen «no medido».

Por entrega se desglosa lo que mide el propio motor: arrancar el kernel
aislado, correr las celdas del estudiante, correr las pruebas en el juez, el
resto de ``nbgrader autograde`` (su arranque, la libreta, escribir el
notebook) y lo que agrega el trabajador (copiar la entrega, leer la libreta).
La preparación de la asignación (``generate_assignment``) es una vez por
corrida, no por entrega. La fila de N máquinas es una **extrapolación** lineal
(cada máquina con sus trabajadores; PostgreSQL y el planificador no limitan a
esa escala), no una medida.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import nbformat

ASIGNACIONES = ("ej09_curvas", "ej11_qlora", "ej06_trainer_avanzado")
TRABAJADORES = (1, 2)


def _clase(asig: str, n: int, carpeta: Path) -> Path:
    from tutor_lib.calificador import CursoTemporal, entrega_de_referencia, fuente

    with CursoTemporal(asig) as curso:
        referencia = entrega_de_referencia(nbformat.read(fuente(asig), as_version=4), curso.liberado)
        vacia = curso.liberado
    raiz = carpeta / f"clase_{asig}"
    for i in range(n):
        (raiz / f"e{i:03d}").mkdir(parents=True)
        nbformat.write(referencia if i % 2 == 0 else vacia, raiz / f"e{i:03d}" / f"{asig}.ipynb")
    return raiz


def medir() -> list[tuple[str, str, str]]:
    from tutor_lib import formato
    from tutor_lib.clase import calificar_clase

    total = int(os.environ.get("TUTOR_BENCH_ESCALA", "0") or 0)
    if total <= 0:
        return [("escala: entregas por minuto", "no medido", "TUTOR_BENCH_ESCALA=60 python -m benchmarks escala")]
    asigs = [a for a in os.environ.get("TUTOR_BENCH_ESCALA_ASIGNACIONES", ",".join(ASIGNACIONES)).split(",") if a]
    por_asig = [total // len(asigs) + (1 if i < total % len(asigs) else 0) for i in range(len(asigs))]
    filas = []
    tmp = Path(tempfile.mkdtemp(prefix="tutor-bench-escala-"))
    try:
        clases = {a: _clase(a, n, tmp) for a, n in zip(asigs, por_asig)}
        ritmo = {}
        for w in TRABAJADORES:
            inicio = time.perf_counter()
            tiempos, estados = [], []
            for a in asigs:
                salida = tmp / f"notas_{a}_{w}"
                calificar_clase(a, clases[a], salida, procesos=w)
                for linea in (salida / "avance.jsonl").read_text().splitlines():
                    d = json.loads(linea)
                    estados.append(d["calificacion"]["estado"])
                    tiempos.append({**d["calificacion"].get("tiempos", {}), "calificacion_s": d["calificacion_s"]})
            segundos = time.perf_counter() - inicio
            ritmo[w] = 60 * len(estados) / segundos
            buenas = sum(e == "calificado" for e in estados)
            filas.append((f"escala: {len(estados)} entregas de {len(asigs)} asignaciones, {w} trabajador(es)",
                          f"{formato.numero(ritmo[w], 1)} entregas/min",
                          f"{formato.numero(segundos, 0)} s en total, {buenas} calificadas; incluye preparar cada "
                          "asignación y arrancar los trabajadores"))
            if w == TRABAJADORES[-1] or len(TRABAJADORES) == 1:
                med = {k: statistics.median(t.get(k, 0.0) for t in tiempos)
                       for k in ("calificacion_s", "nbgrader_s", "arranque_kernel_s", "celdas_estudiante_s", "pruebas_s")}
                resto = med["nbgrader_s"] - med["arranque_kernel_s"] - med["celdas_estudiante_s"] - med["pruebas_s"]
                for nombre, valor in [("entrega completa (mediana)", med["calificacion_s"]),
                                      ("  arrancar el kernel aislado", med["arranque_kernel_s"]),
                                      ("  celdas del estudiante", med["celdas_estudiante_s"]),
                                      ("  pruebas en el juez", med["pruebas_s"]),
                                      ("  resto de nbgrader autograde", resto),
                                      ("  trabajador (copias, libreta)", med["calificacion_s"] - med["nbgrader_s"])]:
                    filas.append((f"escala: {nombre}", f"{formato.numero(valor, 1)} s",
                                  f"con {w} trabajador(es) a la vez; medido por el motor"))
        base = ritmo[TRABAJADORES[-1]]
        for maquinas in (10, 100):
            filas.append((f"escala: {maquinas} máquinas como esta (extrapolación)",
                          f"{formato.numero(base * maquinas, 0)} entregas/min",
                          f"{TRABAJADORES[-1]} trabajadores por máquina × {maquinas}; lineal, NO medido"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return filas
