"""Filas del diagnóstico de curvas: exactitud en los dos corpus de curvas reales y tiempo por diagnóstico.

* ``tests/datos/curvas/`` (``scripts/generar_curvas.py``): el corpus con que se fijaron los umbrales de
  ``tutor_lib.curvas``; su partición ``"reserva"`` no se usó para fijarlos, pero sale del mismo generador.
* ``tutor_lib/datos/curvas_independientes/`` (``scripts/generar_curvas_independientes.py``, issue 14):
  otros modelos (MLP, CNN, GRU, MiniLM, Llama diminuto, regresión lineal), otros bucles, SGD y AdamW,
  registros cada 1 a 100 pasos; desde el issue 42, también explosiones con Adam y SGD, BatchNorm roto por una
  explosión, SGD por encima del azar, validación de otra distribución y sobreajustes largos con validación
  pequeña. Su partición ``"validacion"`` no se miró al corregir las reglas.

El corpus independiente se mide dos veces: con el ``config.json`` de cada corrida (el nivel del azar exacto) y
**sin** él, solo con ``log_history`` (como un ``trainer_state.json`` suelto: el azar se estima con la curva).

``python -m benchmarks.b_curvas`` imprime además las matrices de confusión.
"""

from __future__ import annotations

from tutor_lib.formato import porcentaje

import io
import json
import time
from collections import Counter
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "datos" / "curvas"


def corpus_de_ajuste() -> list[dict]:
    return [json.loads(r.read_text(encoding="utf-8")) for r in sorted(CORPUS.glob("*.json"))]


def corpus_independiente() -> list[dict]:
    from tutor_lib import recursos

    return list(recursos.cargar_corridas_reales().values())


def confusion(documentos: list[dict], sin_config: bool = False) -> Counter:
    """Cuántas curvas de cada categoría real recibieron cada veredicto: ``{(real, dicho): n}``.

    Con ``sin_config`` se diagnostica solo ``log_history``, como un ``trainer_state.json`` sin ``config.json``.
    """
    from tutor_lib.curvas import diagnosticar

    return Counter((d["categoria"], diagnosticar(d["log_history"] if sin_config else d).categoria)
                   for d in documentos)


def tabla_de_confusion(matriz: Counter) -> str:
    """La matriz en texto: filas = categoría real, columnas = veredicto (también ``no_concluyente``)."""
    from tutor_lib.curvas import CATEGORIAS, VEREDICTOS

    cortas = {c: c[:6] for c in VEREDICTOS}
    lineas = ["real \\ dicho   " + " ".join(f"{cortas[c]:>6}" for c in VEREDICTOS) + "  aciertos"]
    for real in CATEGORIAS:
        fila = [matriz[(real, dicho)] for dicho in VEREDICTOS]
        total = sum(fila)
        if not total:
            continue
        lineas.append(f"{real:<15} " + " ".join(f"{n:>6}" for n in fila)
                      + f"  {matriz[(real, real)]}/{total}")
    return "\n".join(lineas)


def _filas_de_exactitud(nombre: str, matriz: Counter, nota: str) -> list[tuple[str, str, str]]:
    from tutor_lib.curvas import CATEGORIAS

    filas = []
    for categoria in CATEGORIAS:
        n = sum(v for (real, _), v in matriz.items() if real == categoria)
        bien = matriz[(categoria, categoria)]
        valor = f"{porcentaje(bien / n, 0)} ({bien}/{n})" if n else "—"
        filas.append((f"curvas: exactitud en {nombre}, {categoria}", valor, nota))
    total = sum(matriz.values())
    bien = sum(v for (real, dicho), v in matriz.items() if real == dicho)
    filas.append((f"curvas: exactitud en {nombre}, total", f"{porcentaje(bien / total)} ({bien}/{total})", nota))
    return filas


def medir() -> list[tuple[str, str, str]]:
    from tutor_lib.curvas import diagnosticar, graficar

    documentos = corpus_de_ajuste()
    reserva = [d for d in documentos if d["particion"] == "reserva"]
    independientes = corpus_independiente()
    validacion = [d for d in independientes if d["particion"] == "validacion"]
    filas = _filas_de_exactitud("la reserva del corpus de ajuste", confusion(reserva),
                                f"{len(reserva)} de {len(documentos)} curvas, mismo generador que el ajuste")
    matriz = confusion(validacion)
    filas += _filas_de_exactitud(
        "el corpus independiente (validación)", matriz,
        f"{len(validacion)} de {len(independientes)} curvas de otros modelos y bucles, no miradas al ajustar",
    )
    sin_config = confusion(validacion, sin_config=True)
    filas += _filas_de_exactitud(
        "el corpus independiente (validación, sin config.json)", sin_config,
        "solo log_history, como un trainer_state.json suelto: el nivel del azar se estima con la curva",
    )
    for etiqueta, m in (("con config.json", confusion(independientes)),
                        ("sin config.json", confusion(independientes, sin_config=True))):
        sanas_falsas = sum(m[(real, "sano")] for real in ("divergencia", "sobreajuste"))
        filas.append((f"curvas: divergencias o sobreajustes llamados «sano» (independiente, {etiqueta})",
                      str(sanas_falsas), "las dos particiones; la meta de los issues 14 y 42 es 0"))

    repeticiones = 3
    inicio = time.perf_counter()
    for _ in range(repeticiones):
        for d in documentos:
            diagnosticar(d)
    por_diagnostico = (time.perf_counter() - inicio) / (repeticiones * len(documentos))

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


if __name__ == "__main__":
    independientes = corpus_independiente()
    for nombre, documentos in (("corpus de ajuste, partición reserva",
                                [d for d in corpus_de_ajuste() if d["particion"] == "reserva"]),
                               ("corpus independiente, partición validación",
                                [d for d in independientes if d["particion"] == "validacion"]),
                               ("corpus independiente, partición desarrollo",
                                [d for d in independientes if d["particion"] == "desarrollo"])):
        print(f"\n{nombre} ({len(documentos)} curvas)\n" + tabla_de_confusion(confusion(documentos)))
        if nombre.startswith("corpus independiente"):
            print(f"\n{nombre}, sin config.json\n" + tabla_de_confusion(confusion(documentos, sin_config=True)))
