"""Filas del diagnóstico de curvas: exactitud en la reserva del corpus real y tiempo por diagnóstico.

El corpus (``tests/datos/curvas/``) son curvas de entrenamientos reales con el
Trainer en CPU (``scripts/generar_curvas.py``); la partición ``"reserva"`` no
se usó para fijar los umbrales de ``tutor_lib.curvas``.
"""

from __future__ import annotations

from tutor_lib.formato import porcentaje

import io
import json
import time
from collections import Counter
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "datos" / "curvas"


def medir() -> list[tuple[str, str, str]]:
    from tutor_lib.curvas import CATEGORIAS, diagnosticar

    documentos = [json.loads(r.read_text(encoding="utf-8")) for r in sorted(CORPUS.glob("*.json"))]
    reserva = [d for d in documentos if d["particion"] == "reserva"]
    aciertos, totales = Counter(), Counter()
    for d in reserva:
        totales[d["categoria"]] += 1
        aciertos[d["categoria"]] += diagnosticar(d).categoria == d["categoria"]

    repeticiones = 3
    inicio = time.perf_counter()
    for _ in range(repeticiones):
        for d in documentos:
            diagnosticar(d)
    por_diagnostico = (time.perf_counter() - inicio) / (repeticiones * len(documentos))

    filas = []
    for categoria in CATEGORIAS:
        n = totales[categoria]
        valor = f"{porcentaje(aciertos[categoria] / n, 0)} ({aciertos[categoria]}/{n})" if n else "—"
        filas.append((f"curvas: exactitud en reserva, {categoria}", valor, "curvas reales no usadas para ajustar"))
    total = sum(totales.values())
    filas.append((
        "curvas: exactitud en reserva, total",
        f"{porcentaje(sum(aciertos.values()) / total)} ({sum(aciertos.values())}/{total})",
        f"corpus de {len(documentos)} curvas, {total} en reserva",
    ))
    from tutor_lib.curvas import graficar

    inicio = time.perf_counter()
    for d in documentos[::24]:
        graficar(d).savefig(io.BytesIO(), format="png", dpi=80)
    por_grafica = (time.perf_counter() - inicio) / len(documentos[::24])
    filas.append(("curvas: tiempo de graficar + guardar PNG", f"{por_grafica * 1000:.0f} ms", "media de 10 curvas, 80 ppp"))
    puntos = sum(
        sum(1 for e in d["log_history"] if "loss" in e or "eval_loss" in e) for d in documentos
    ) / len(documentos)
    filas.append((
        "curvas: tiempo por diagnóstico",
        f"{por_diagnostico * 1000:.1f} ms",
        f"media sobre el corpus ({puntos:.0f} puntos por curva de media), sin gráfica",
    ))
    return filas
