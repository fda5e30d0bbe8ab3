"""La gráfica de un diagnóstico: las dos curvas, el mínimo de validación y la zona del problema."""

from __future__ import annotations

from typing import Any

import numpy as np

from tutor_lib.curvas.lectura import Diagnostico, leer_curvas
from tutor_lib.curvas.reglas import _desenmascarar_ceros, _diagnosticar_curvas
from tutor_lib.curvas.formato import _fmt


# --------------------------------------------------------------------------- gráfica

#: Paleta de Okabe e Ito, segura para daltonismo.
COLORES = {
    "entrenamiento": "#0072B2",
    "validacion": "#E69F00",
    "minimo": "#009E73",
    "region": "#CC79A7",
    "no_finito": "#D55E00",
}


def graficar(
    fuente: Any = None,
    *,
    entrenamiento: Any = None,
    validacion: Any = None,
    pasos: Any = None,
    pasos_validacion: Any = None,
    num_clases: int | None = None,
    diagnostico: Diagnostico | None = None,
    ax: Any = None,
    con_veredicto: bool = True,
):
    """Dibuja las curvas de entrenamiento y validación con el diagnóstico en el título.

    Marca el mínimo de validación, sombrea la zona del problema y marca los
    NaN/inf. Devuelve la ``matplotlib.figure.Figure``. Colores de Okabe-Ito
    (seguros para daltonismo) y además estilos de línea distintos. Con
    ``con_veredicto=False`` dibuja solo los datos (sin zona ni veredicto), para
    que practiques el diagnóstico a ojo antes de ver la respuesta. ``num_clases``, como en
    :func:`diagnosticar`. Se usa en lessons/09_curvas_de_entrenamiento.
    """
    from matplotlib.figure import Figure

    curvas = leer_curvas(
        fuente, entrenamiento=entrenamiento, validacion=validacion, pasos=pasos, pasos_validacion=pasos_validacion,
        num_clases=num_clases,
    )
    if diagnostico is None:
        diagnostico = _diagnosticar_curvas(curvas)
    if ax is None:
        fig = Figure(figsize=(8, 4.5), layout="constrained")
        ax = fig.add_subplot()
    else:
        fig = ax.figure

    x = np.asarray(curvas.pasos_entrenamiento, dtype=float)
    y, _ = _desenmascarar_ceros(curvas)
    xv = np.asarray(curvas.pasos_validacion, dtype=float)
    yv = np.asarray(curvas.validacion, dtype=float)
    fin_t, fin_v = np.isfinite(y), np.isfinite(yv)
    positivos = np.concatenate([y[fin_t], yv[fin_v]])
    positivos = positivos[positivos > 0]
    if len(x):
        ax.plot(x[fin_t], y[fin_t], "-", color=COLORES["entrenamiento"], lw=1.6, label="entrenamiento")
    if len(xv):
        ax.plot(xv[fin_v], yv[fin_v], "--o", color=COLORES["validacion"], lw=1.6, ms=4, label="validación")
    if len(positivos) and positivos.max() > 100 * positivos.min():
        ax.set_yscale("log")
    region = diagnostico.evidencia.get("region_problema") if con_veredicto else None
    if region:
        ax.axvspan(region[0], region[1], color=COLORES["region"], alpha=0.18, lw=0, label="zona del problema")
    if diagnostico.mejor_paso is not None:
        v = diagnostico.evidencia["validacion_minima"]
        ax.plot([diagnostico.mejor_paso], [v], marker="*", ms=14, ls="none", color=COLORES["minimo"],
                markeredgecolor="black", label=f"mínimo de validación ({_fmt(v)})")
    malos = np.concatenate([x[~fin_t], xv[~fin_v]])
    if len(malos):
        # los NaN/inf no tienen altura: se marcan con una x arriba del todo
        ax.plot(malos, np.full(len(malos), 0.97), "x", color=COLORES["no_finito"], ms=6,
                transform=ax.get_xaxis_transform(), clip_on=False, label="NaN / inf")
    primero = diagnostico.evidencia.get("paso_no_finito") if con_veredicto else None
    if primero is not None:
        ax.axvline(primero, color=COLORES["no_finito"], ls=":", lw=1.5, label="la pérdida deja de ser un número")
    if con_veredicto and diagnostico.categoria == "subajuste" and ax.get_yscale() == "linear":
        ax.set_ylim(bottom=0)  # con el eje desde 0 se ve lo poco que bajó
    eje = {"paso": "Paso de entrenamiento", "época": "Época", "registro": "Registro (orden en el log)"}[curvas.eje]
    ax.set_xlabel(eje)
    ax.set_ylabel("Pérdida (escala log)" if ax.get_yscale() == "log" else "Pérdida")
    if con_veredicto:
        ax.set_title(f"Diagnóstico: {diagnostico.categoria}" + (
            f" · mejor paso {diagnostico.mejor_paso}" if diagnostico.mejor_paso is not None else ""))
    else:
        ax.set_title("Curvas de pérdida (¿qué diagnóstico les darías?)")
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="best")
    return fig
