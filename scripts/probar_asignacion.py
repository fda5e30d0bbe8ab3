"""Prueba una asignación con nbgrader real, como lo harán las pruebas y el instructor.

    python scripts/probar_asignacion.py ej04_warmup            # solución, vacío y variantes
    python scripts/probar_asignacion.py ej04_warmup --rapido   # solo solución y vacío

Califica (1) la solución de referencia: debe sacar todos los puntos
automáticos; (2) el ejercicio sin tocar: 0 en código; (3) cada variante de
``tests/asignaciones/<asig>.py`` (otras soluciones correctas y errores
típicos) debe caer en su rango de puntos. Imprime una tabla por parte y sale
con código 1 si algo no se cumple.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
import time
from pathlib import Path

import nbformat

RAIZ = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(RAIZ))

from tutor_lib.calificacion.motor.calificador import CursoTemporal, Limites, entrega_de_referencia, fuente  # noqa: E402


def variantes(asig: str) -> list[dict]:
    ruta = RAIZ / "tests" / "asignaciones" / f"{asig}.py"
    if not ruta.is_file():
        return []
    spec = importlib.util.spec_from_file_location(f"variantes_{asig}", ruta)
    modulo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(modulo)
    return list(modulo.VARIANTES)


def probar(asig: str, rapido: bool = False) -> bool:
    ok = True
    t0 = time.perf_counter()
    with CursoTemporal(asig, limites=Limites(tiempo_celda=60, tiempo_total=300)) as curso:
        print(f"{asig}: curso temporal listo en {time.perf_counter() - t0:.1f} s")
        fuente_nb = nbformat.read(fuente(asig), as_version=4)
        tmp = Path(tempfile.mkdtemp())
        casos = [("solucion", entrega_de_referencia(fuente_nb, curso.liberado), None),
                 ("vacio", curso.liberado, None)]
        if not rapido:
            for i, v in enumerate(variantes(asig)):
                casos.append((f"variante{i}", entrega_de_referencia(fuente_nb, curso.liberado, v["celdas"]), v))
        for nombre, nb, var in casos:
            ruta = tmp / f"{nombre}.ipynb"
            nbformat.write(nb, ruta)
            t = time.perf_counter()
            cal = curso.calificar(nombre, ruta)
            seg = time.perf_counter() - t
            auto = cal.maximo - cal.pendiente_manual
            if nombre == "solucion":
                esperado, bien = f"= {auto:g}", cal.estado == "calificado" and cal.puntos == auto
            elif nombre == "vacio":
                esperado, bien = "= 0", cal.estado == "calificado" and cal.puntos == 0
            else:
                lo, hi = var["puntos"]
                esperado, bien = f"en [{lo:g}, {hi:g}]", cal.estado == "calificado" and lo <= cal.puntos <= hi
            ok &= bien
            titulo = var["nombre"] if var else nombre
            print(f"{'OK ' if bien else 'MAL'} {titulo}: {cal.puntos:g}/{cal.maximo:g} (esperado {esperado}) "
                  f"[{cal.estado}, {seg:.1f} s]")
            if cal.estado != "calificado":
                print("     ", cal.mensaje)
            for p in cal.partes:
                pts = "?" if p.puntos is None else f"{p.puntos:g}"
                print(f"     {p.id:<28} {pts:>4}/{p.maximo:g}  {p.mensaje[:110]}")
            for a in cal.avisos:
                print("      aviso:", a)
    return ok


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("asignaciones", nargs="+")
    ap.add_argument("--rapido", action="store_true")
    a = ap.parse_args()
    resultados = [probar(x, a.rapido) for x in a.asignaciones]
    sys.exit(0 if all(resultados) else 1)
