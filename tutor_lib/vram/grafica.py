"""La tabla en texto de ``tutor vram`` y las barras apiladas por componente.

Se usa en lessons/07_memoria_y_fine_tuning_completo.
"""

from __future__ import annotations

from typing import Any, Mapping

from tutor_lib import formato
from tutor_lib.vram.base import COMPONENTES, ETIQUETAS, GB, GIB, formatear_bytes
from tutor_lib.vram.catalogo import buscar_gpu, memoria_utilizable
from tutor_lib.vram.contabilidad import EstimacionMemoria
from tutor_lib.vram.particion import CONTABILIDAD_EN_PALABRAS

# --------------------------------------------------------------------------
# Texto y gráfica
# --------------------------------------------------------------------------


def tabla(estimacion: EstimacionMemoria) -> str:
    """Tabla en español de una :class:`EstimacionMemoria`, con GiB y GB.

    Se usa en ``tutor vram`` y en lessons/07_memoria_y_fine_tuning_completo.
    """
    if not isinstance(estimacion, EstimacionMemoria):
        raise TypeError(f"tabla necesita una EstimacionMemoria; recibí {type(estimacion).__name__}.")
    e = estimacion
    miles = formato.entero
    lineas = [
        f"Memoria de entrenamiento: método {e.metodo}, precisión {e.precision}, optimizador {e.optimizador}",
        f"Parámetros: {miles(e.parametros)} (entrenables: {miles(e.parametros_entrenables)})",
    ]
    if e.tarea_descripcion:
        lineas.append(f"Tarea: {e.tarea_descripcion}")
    if e.lote is not None:
        lineas.append(f"Lote {e.lote}, secuencia {e.secuencia}" + (" (por dispositivo)" if e.gpus > 1 else ""))
    if e.gpus > 1:
        lineas.append(f"{e.gpus} GPUs con {e.estrategia}: cifras POR GPU; cada una envía "
                      f"{formatear_bytes(e.comunicacion_bytes)} por paso del optimizador")
    if e.metodo == "completo" and e.precision == "mixta":
        lineas.append(f"Contabilidad de la precisión mixta: {e.contabilidad}, {CONTABILIDAD_EN_PALABRAS[e.contabilidad]}")
    lineas.append("")
    ancho = max(len(v) for v in ETIQUETAS.values()) + 2
    lineas.append(f"{'Componente':<{ancho}}{'GiB':>10}{'GB':>10}{'bytes':>20}")
    lineas.append("-" * (ancho + 40))

    def fila(nombre: str, n: int) -> str:
        return f"{nombre:<{ancho}}" + f"{formato.numero(n / GIB, 3):>10}{formato.numero(n / GB, 3):>10}" + f"{miles(n):>20}"

    for k in COMPONENTES:  # las activaciones van aparte, tras el subtotal del estado estático (una sola fila)
        if k != "activaciones":
            lineas.append(fila(ETIQUETAS[k], e.componentes.get(k, 0)))
    lineas.append("-" * (ancho + 40))
    lineas.append(fila("Estado estático", e.estatica_bytes))
    lineas.append(fila(ETIQUETAS["activaciones"], e.activaciones_bytes))
    lineas.append(fila("TOTAL", e.total_bytes))
    if e.gpu:
        g = e.gpu
        veredicto = "CABE" if g["cabe"] else "NO CABE"
        lineas += [
            "",
            f"GPU {g['nombre']} ({g['memoria_nominal']} nominales; {formatear_bytes(g['memoria_total_bytes'])} "
            f"totales; utilizables {formatear_bytes(g['memoria_utilizable_bytes'])}): {veredicto}",
        ]
        if g.get("lote_maximo") is not None:
            lineas.append(f"Lote máximo que cabe con esta secuencia: {g['lote_maximo']}")
    if e.notas:
        lineas += ["", "Notas:"] + [f"  - {n}" for n in e.notas]
    return "\n".join(lineas)


#: Paleta de Okabe e Ito (segura para daltonismo), un color por componente.
PALETA = {
    "pesos": "#0072B2",
    "gradientes": "#E69F00",
    "estados_optimizador": "#009E73",
    "copia_maestra_fp32": "#CC79A7",
    "constantes_cuantizacion": "#56B4E9",
    "activaciones": "#D55E00",
}


def graficar_componentes(estimaciones: Any, gpu: Any = None, unidad: str = "GiB", ax: Any = None, titulo: str | None = None):
    """Barras apiladas por componente (paleta de Okabe e Ito) de una o varias estimaciones.

    ``estimaciones``: una :class:`EstimacionMemoria`, una lista o un dict
    ``{etiqueta: estimación}``. ``gpu`` dibuja una línea con su memoria
    utilizable. ``unidad``: ``"GiB"`` o ``"GB"``. Devuelve el ``Axes``.
    Se usa en lessons/07_memoria_y_fine_tuning_completo.
    """
    if isinstance(estimaciones, EstimacionMemoria):
        estimaciones = {f"{estimaciones.metodo} / {estimaciones.precision}": estimaciones}
    elif isinstance(estimaciones, (list, tuple)):
        estimaciones = {f"{i + 1}. {e.metodo} / {e.precision}" if isinstance(e, EstimacionMemoria) else str(i): e
                        for i, e in enumerate(estimaciones)}
    if not isinstance(estimaciones, Mapping) or not estimaciones:
        raise TypeError("estimaciones debe ser una EstimacionMemoria, una lista no vacía o un dict {etiqueta: estimación}.")
    for e in estimaciones.values():
        if not isinstance(e, EstimacionMemoria):
            raise TypeError(f"Cada elemento debe ser una EstimacionMemoria; recibí {type(e).__name__}.")
    if not isinstance(unidad, str) or unidad.strip().lower() not in ("gib", "gb"):
        raise ValueError(f"unidad debe ser 'GiB' (2³⁰ B) o 'GB' (10⁹ B); recibí {unidad!r}.")
    unidad = "GiB" if unidad.strip().lower() == "gib" else "GB"
    divisor = GIB if unidad == "GiB" else GB
    info = buscar_gpu(gpu) if gpu is not None else None
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(max(5, 1.6 * len(estimaciones) + 3), 4.5))
    nombres = list(estimaciones)
    base = [0.0] * len(nombres)
    for k in COMPONENTES:
        valores = [estimaciones[n].componentes.get(k, 0) / divisor for n in nombres]
        if not any(valores):
            continue
        ax.bar(nombres, valores, bottom=base, color=PALETA[k], label=ETIQUETAS[k], edgecolor="white", linewidth=0.5)
        base = [b + v for b, v in zip(base, valores)]
    if info is not None:
        limite = memoria_utilizable(info) / divisor
        ax.axhline(limite, color="black", linestyle="--", linewidth=1)
        ax.text(len(nombres) - 0.5, limite, f" {info.nombre}: {formato.numero(limite, 1)} {unidad} utilizables",
                va="bottom", ha="right", fontsize=9)
    ax.set_ylabel(f"Memoria ({unidad})")
    ax.set_title(titulo or "Memoria de entrenamiento por componente")
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    return ax
