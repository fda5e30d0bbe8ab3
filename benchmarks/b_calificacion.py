"""Tiempo de calificar con nbgrader: por asignación para una entrega y para una clase de 30.

Una entrega = reconstruirla, ``nbgrader autograde`` con el kernel aislado y
``nbgrader generate_feedback`` (lo que hace ``tutor calificar`` por estudiante).
La clase de 30 corre ``tutor_lib.calificacion.motor.clase.calificar_clase`` de verdad sobre
30 carpetas con la solución de referencia. Todo se mide al correrlo.

La clase de 30 es lenta (unos 5 min por asignación en una CPU de 2 núcleos),
por eso solo corre si se pide: ``TUTOR_BENCH_CLASE=1`` (todas) o una lista
(``TUTOR_BENCH_CLASE=ej04_warmup,ej11_qlora``). ``TUTOR_BENCH_PROCESOS`` fija
cuántas entregas a la vez (por omisión, la mitad de los núcleos, como
``tutor calificar``). Las filas de clase que no se pidieron dicen «no medido».

**Antes y después.** ``TUTOR_BENCH_ANTES=<commit>`` mide además, lado a lado y
en la misma corrida, una entrega de cada asignación con el motor de ese commit
(extraído con ``git archive`` a una carpeta temporal; por ejemplo ``17633d3``,
el último sin el proceso del juez), y la fila dice el cociente.
``TUTOR_BENCH_ASIGNACIONES=ej11_qlora,ej04_warmup`` limita las asignaciones.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from tutor_lib.calificacion.motor.calificador import CursoTemporal, asignaciones, entrega_de_referencia, fuente
from tutor_lib.calificacion.motor.clase import calificar_clase

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


_MEDIR_ANTES = """
import json, sys, tempfile, time
from pathlib import Path
import nbformat
from tutor_lib.calificacion.motor.calificador import CursoTemporal, entrega_de_referencia, fuente
asig = sys.argv[1]
with CursoTemporal(asig) as curso:
    nb = entrega_de_referencia(nbformat.read(fuente(asig), as_version=4), curso.liberado)
    ruta = Path(tempfile.mkdtemp()) / f"{asig}.ipynb"
    nbformat.write(nb, ruta)
    t = time.perf_counter()
    cal = curso.calificar("medida", ruta)
    print(json.dumps({"segundos": time.perf_counter() - t, "puntos": cal.puntos, "estado": cal.estado}))
"""


def _antes(commit: str, tmp: Path) -> Path:
    """El repositorio tal como estaba en ``commit``, en una carpeta temporal (sin tocar el actual)."""
    raiz = Path(__file__).resolve().parents[1]
    destino = tmp / f"antes-{commit}"
    destino.mkdir()
    archivo = subprocess.run(["git", "archive", commit], cwd=raiz, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(destino)], input=archivo, check=True)
    return destino


def _una_entrega_antes(repo: Path, asig: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(repo), "TUTOR_CURSO": str(repo)}
    proc = subprocess.run([sys.executable, "-c", _MEDIR_ANTES, asig], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=900)
    if proc.returncode != 0:
        raise RuntimeError(f"el motor de antes falló con {asig}: {proc.stderr[-500:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def medir() -> list[tuple[str, str, str]]:
    filas = []
    pedido = os.environ.get("TUTOR_BENCH_CLASE", "")
    commit_antes = os.environ.get("TUTOR_BENCH_ANTES", "")
    solo = [a for a in os.environ.get("TUTOR_BENCH_ASIGNACIONES", "").split(",") if a]
    procesos = int(os.environ.get("TUTOR_BENCH_PROCESOS", "0")) or max(1, (os.cpu_count() or 2) // 2)
    tmp = Path(tempfile.mkdtemp(prefix="bench-calificar-"))
    try:
        repo_antes = _antes(commit_antes, tmp) if commit_antes else None
        for asig in asignaciones():
            if solo and asig not in solo:
                continue
            preparar, una, puntos, ruta = _una_entrega(asig, tmp)
            filas.append((f"calificar {asig}: 1 entrega", f"{una:.1f} s",
                          f"autograde + feedback, kernel aislado, pruebas en el juez; {puntos:g} puntos; "
                          f"preparar el curso {preparar:.1f} s"))
            if repo_antes is not None:
                antes = _una_entrega_antes(repo_antes, asig)
                filas.append((f"calificar {asig}: 1 entrega, motor de {commit_antes}", f"{antes['segundos']:.1f} s",
                              f"pruebas en el kernel del estudiante; {antes['puntos']:g} puntos; "
                              f"ahora/antes = {una / antes['segundos']:.2f}"))
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
