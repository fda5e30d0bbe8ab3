"""Filas del presupuesto de cada lección en una T4 (estimaciones de tutor_lib.presupuesto_lecciones, no medidas)."""

from __future__ import annotations


def medir() -> list[tuple[str, str, str]]:
    from tutor_lib import presupuesto_lecciones as pl

    filas = []
    for leccion in pl.LECCIONES:
        p = pl.presupuesto_leccion(leccion)
        filas.append((f"lección {leccion} en una T4 (estimación)", f"{pl._min(p.segundos)}, {pl._gib(p.memoria_bytes)}",
                      f"pico en «{p.fase_mas_pesada.fase.nombre}»; tope {pl.MINUTOS_MAXIMOS} min y la memoria "
                      "utilizable de la T4"))
    return filas
