"""Calificar muchas entregas: entregas por minuto con 1 y 2 trabajadores, en qué se va el tiempo y las metas.

``TUTOR_BENCH_ESCALA=60`` califica 60 entregas repartidas entre tres
asignaciones (``TUTOR_BENCH_ESCALA_ASIGNACIONES``, por omisión las tres que más
rápido se califican), la mitad con la solución de referencia y la mitad sin
resolver, con ``tutor_lib.calificacion.motor.clase.calificar_clase`` de verdad: primero con 1
trabajador de Dask y luego con 2, con la precarga (:mod:`tutor_lib.calificacion.motor.precarga`)
como la usa ``tutor calificar``. Además mide, en la misma corrida:

- unas pocas entregas **sin precarga** (``TUTOR_SIN_PRECARGA=1``), para comparar;
- una **clase de 30** de la asignación más lenta de las tres con 2 trabajadores,
  de punta a punta (preparar, iniciar el servidor, calificar, retroalimentación);
- ``tutor corregir`` (la autoevaluación de quien estudia) de punta a punta, como
  un proceso nuevo desde la terminal.

Sin la variable no mide nada (son minutos en 2 núcleos) y las filas dicen «no
medido». Por entrega se desglosa lo que mide el propio motor: arrancar el
kernel aislado, correr las celdas del estudiante, correr las pruebas en el
juez, el resto de ``nbgrader autograde`` (su arranque, la libreta, escribir el
notebook) y lo que agrega el trabajador (copiar la entrega, leer la libreta).
Preparar la asignación (``generate_assignment``) e iniciar el servidor de
precarga es una vez por corrida y trabajador, no por entrega. La fila de N
máquinas es una **extrapolación** lineal (cada máquina con sus trabajadores;
PostgreSQL y el planificador no limitan a esa escala), no una medida.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ASIGNACIONES = ("ej09_curvas", "ej11_qlora", "ej06_trainer_avanzado")
TRABAJADORES = (1, 2)
#: Metas del issue 17 (2 núcleos, nada más corriendo).
META_ENTREGA_S = 8.0
META_CLASE_30_S = 150.0
META_CORREGIR_S = 15.0


#: Segundos de preparar cada asignación (``generate_assignment``), medidos al armar las clases.
_PREPARAR: list[float] = []


def _clase(asig: str, n: int, carpeta: Path, nombre: str | None = None) -> Path:
    from tutor_lib.calificacion.motor.calificador import CursoTemporal, entrega_de_referencia, fuente

    inicio = time.perf_counter()
    with CursoTemporal(asig) as curso:
        _PREPARAR.append(time.perf_counter() - inicio)
        referencia = entrega_de_referencia(nbformat.read(fuente(asig), as_version=4), curso.liberado)
        vacia = curso.liberado
    raiz = carpeta / (nombre or f"clase_{asig}")
    for i in range(n):
        (raiz / f"e{i:03d}").mkdir(parents=True)
        nbformat.write(referencia if i % 2 == 0 else vacia, raiz / f"e{i:03d}" / f"{asig}.ipynb")
    return raiz


def _leer(salida: Path) -> list[dict]:
    return [json.loads(l) for l in (salida / "avance.jsonl").read_text().splitlines()]


def _desglose(lineas: list[dict]) -> dict[str, float]:
    tiempos = [{**d["calificacion"].get("tiempos", {}), "calificacion_s": d["calificacion_s"]} for d in lineas]
    med = {k: statistics.median(t.get(k, 0.0) for t in tiempos)
           for k in ("calificacion_s", "nbgrader_s", "arranque_kernel_s", "celdas_estudiante_s", "pruebas_s")}
    med["resto"] = med["nbgrader_s"] - med["arranque_kernel_s"] - med["celdas_estudiante_s"] - med["pruebas_s"]
    med["trabajador"] = med["calificacion_s"] - med["nbgrader_s"]
    return med


def _filas_desglose(med: dict[str, float], etiqueta: str, nota: str, meta: str = "") -> list[tuple[str, str, str]]:
    from tutor_lib import formato

    filas = [(f"escala: {etiqueta} (mediana)", f"{formato.numero(med['calificacion_s'], 1)} s",
              f"{nota}; {meta}" if meta else nota)]
    for nombre, clave in [("  arrancar el kernel aislado", "arranque_kernel_s"),
                          ("  celdas del estudiante", "celdas_estudiante_s"), ("  pruebas en el juez", "pruebas_s"),
                          ("  resto de nbgrader autograde", "resto"), ("  trabajador (copias, libreta)", "trabajador")]:
        filas.append((f"escala: {nombre}", f"{formato.numero(med[clave], 1)} s", nota))
    return filas


def _meta(valor: float, meta: float) -> str:
    from tutor_lib import formato

    return f"meta ≤ {formato.numero(meta, 0)} s: {'se cumple' if valor <= meta else 'NO se cumple'}"


def _corregir(asig: str, tmp: Path, veces: int = 2) -> tuple[float, float]:
    """(mediana de segundos, puntos) de ``tutor corregir`` sobre la solución de referencia, como proceso nuevo."""
    from tutor_lib.calificacion.motor.calificador import CursoTemporal, entrega_de_referencia, fuente

    with CursoTemporal(asig) as curso:
        nb = entrega_de_referencia(nbformat.read(fuente(asig), as_version=4), curso.liberado)
    ruta = tmp / "corregir" / f"{asig}.ipynb"
    ruta.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, ruta)
    segundos, puntos = [], 0.0
    for _ in range(veces):
        inicio = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "tutor_lib", "corregir", str(ruta), "--json"],
                           capture_output=True, text=True, timeout=600)
        segundos.append(time.perf_counter() - inicio)
        puntos = json.loads(r.stdout)["puntos"] if r.returncode == 0 else float("nan")
    return statistics.median(segundos), puntos


def medir() -> list[tuple[str, str, str]]:
    from tutor_lib import formato
    from tutor_lib.calificacion.motor.clase import calificar_clase
    from tutor_lib.calificacion.motor.precarga import DESACTIVAR

    total = int(os.environ.get("TUTOR_BENCH_ESCALA", "0") or 0)
    if total <= 0:
        return [("escala: entregas por minuto", "no medido", "TUTOR_BENCH_ESCALA=60 python -m benchmarks escala")]
    asigs = [a for a in os.environ.get("TUTOR_BENCH_ESCALA_ASIGNACIONES", ",".join(ASIGNACIONES)).split(",") if a]
    por_asig = [total // len(asigs) + (1 if i < total % len(asigs) else 0) for i in range(len(asigs))]
    filas = []
    tmp = Path(tempfile.mkdtemp(prefix="tutor-bench-escala-"))
    try:
        clases = {a: _clase(a, n, tmp) for a, n in zip(asigs, por_asig)}
        filas.append(("escala: preparar una asignación (generate_assignment)",
                      f"{formato.numero(statistics.median(_PREPARAR), 1)} s",
                      f"mediana de {len(_PREPARAR)}; una vez por corrida (y por trabajador de otra máquina)"))
        ritmo = {}
        for w in TRABAJADORES:
            inicio = time.perf_counter()
            lineas, arranques = [], []
            for a in asigs:
                salida = tmp / f"notas_{a}_{w}"
                calificar_clase(a, clases[a], salida, procesos=w)
                de_a = _leer(salida)
                lineas += de_a
                arranques += [d["calificacion"].get("tiempos", {}).get("precarga_s", 0.0) for d in de_a]
            segundos = time.perf_counter() - inicio
            ritmo[w] = 60 * len(lineas) / segundos
            buenas = sum(d["calificacion"]["estado"] == "calificado" for d in lineas)
            con_precarga = sum(bool(d["calificacion"].get("aislamiento", {}).get("precarga")) for d in lineas)
            filas.append((f"escala: {len(lineas)} entregas de {len(asigs)} asignaciones, {w} trabajador(es)",
                          f"{formato.numero(ritmo[w], 1)} entregas/min",
                          f"{formato.numero(segundos, 0)} s en total, {buenas} calificadas, {con_precarga} con "
                          "precarga; incluye preparar cada asignación e iniciar trabajadores y servidores"))
            med = _desglose(lineas)
            etiqueta = "una entrega sola" if w == 1 else f"una entrega, {w} a la vez"
            filas += _filas_desglose(med, etiqueta, f"con {w} trabajador(es); medido por el motor",
                                     _meta(med["calificacion_s"], META_ENTREGA_S) if w == 1 else "")
            servidores = [s for s in arranques if s > 0]
            if servidores:
                filas.append((f"escala: iniciar el servidor de precarga ({w} trabajador(es))",
                              f"{formato.numero(statistics.median(servidores), 1)} s",
                              f"mediana de {len(servidores)}: una vez por asignación y trabajador"))

        # Sin precarga, para comparar: pocas entregas (cada una tarda lo que antes).
        n_sin = int(os.environ.get("TUTOR_BENCH_ESCALA_SIN", "6") or 0)
        if n_sin > 0:
            clase_sin = _clase(asigs[0], n_sin, tmp, nombre="clase_sin_precarga")
            os.environ[DESACTIVAR] = "1"
            try:
                calificar_clase(asigs[0], clase_sin, tmp / "notas_sin", procesos=1)
            finally:
                os.environ.pop(DESACTIVAR, None)
            med = _desglose(_leer(tmp / "notas_sin"))
            filas += _filas_desglose(med, f"sin precarga: una entrega de {asigs[0]}",
                                     f"{n_sin} entregas con TUTOR_SIN_PRECARGA=1 y 1 trabajador, para comparar")

        # La clase de 30 con 2 trabajadores, de punta a punta.
        lenta = asigs[-1]
        clase_30 = _clase(lenta, 30, tmp, nombre="clase_30")
        inicio = time.perf_counter()
        datos = calificar_clase(lenta, clase_30, tmp / "notas_30", procesos=2)
        segundos = time.perf_counter() - inicio
        buenas = sum(d["estado"] == "calificado" for d in datos["estudiantes"].values())
        filas.append((f"escala: clase de 30 de {lenta}, 2 trabajadores", f"{formato.numero(segundos, 0)} s",
                      f"{buenas}/30 calificadas, de punta a punta (preparar, servidores, retroalimentación); "
                      + _meta(segundos, META_CLASE_30_S)))

        # tutor corregir: la autoevaluación, como proceso nuevo.
        for asig in (asigs[0], lenta):
            segundos, puntos = _corregir(asig, tmp)
            filas.append((f"escala: tutor corregir {asig}", f"{formato.numero(segundos, 1)} s",
                          f"mediana de 2, proceso nuevo, solución de referencia ({formato.numero(puntos, 0)} puntos); "
                          + _meta(segundos, META_CORREGIR_S)))

        base = ritmo[TRABAJADORES[-1]]
        for maquinas in (10, 100):
            filas.append((f"escala: {maquinas} máquinas como esta (extrapolación)",
                          f"{formato.numero(base * maquinas, 0)} entregas/min",
                          f"{TRABAJADORES[-1]} trabajadores por máquina × {maquinas}; lineal, NO medido"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return filas
