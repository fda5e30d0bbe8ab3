"""Vista del configurador: hallazgos y cifras en HTML y el schedule de la tasa de aprendizaje en SVG.

Solo texto, sin ipywidgets (:func:`graficar_revision` da además la figura de
matplotlib). Lo pinta el widget de lessons/04_warmup_y_regularizacion.
"""

from __future__ import annotations

import math
from typing import Iterable

from tutor_lib import warmup as _warmup
from tutor_lib.configurador.constantes import NIVELES
from tutor_lib.configurador.formato import _fmt
from tutor_lib.configurador.tipos import Hallazgo, Revision
from tutor_lib.configurador.validacion import _entero, _real
from tutor_lib.formato import entero


#: La marca de cada nivel, en texto, como la salida de ``tutor configurar``: se lee sin color
#: (daltonismo) y con cualquier fuente (los emoji ✅/❌ salían como cajas vacías en un Chromium
#: sin fuente de emoji).
ICONOS = {"ok": "[OK]", "aviso": "[AVISO]", "error": "[ERROR]"}
COLORES = {"ok": "#009E73", "aviso": "#E69F00", "error": "#D55E00"}  # Okabe-Ito
#: Como mucho tantos puntos en la gráfica del widget: la forma del schedule se
#: calcula sobre una versión reducida del entrenamiento y se reescala el eje.
PUNTOS_GRAFICA = 300


def marca_html(nivel: str) -> str:
    """La marca de un nivel como etiqueta HTML: el texto de :data:`ICONOS` («[ERROR]») sobre su color.

    El significado va en el texto; el color (Okabe-Ito, con texto negro: contraste
    de 5.4:1 o más, por encima del 4.5:1 de WCAG AA) solo lo refuerza. Se usa en
    el widget de lessons/04_warmup_y_regularizacion.
    """
    return (
        f'<span class="tutor-marca" data-marca="{nivel}" style="font-family:monospace;font-weight:bold;'
        f'color:#000;background:{COLORES[nivel]};padding:0 0.25em;border-radius:3px;white-space:nowrap">'
        f"{ICONOS[nivel]}</span>"
    )


def hallazgos_html(hallazgos: Iterable[Hallazgo]) -> str:
    """Lista HTML de hallazgos con una marca de texto por nivel ([OK], [AVISO], [ERROR]), mensaje y fuente.

    Cada ``<li>`` lleva ``data-nivel`` y ``data-parametro`` para las pruebas en
    el navegador. Se usa en el widget de lessons/04_warmup_y_regularizacion.
    """
    import html

    filas = []
    for h in hallazgos:
        filas.append(
            f'<li class="tutor-hallazgo tutor-{h.nivel}" data-nivel="{h.nivel}" '
            f'data-parametro="{html.escape(h.parametro)}" '
            f'style="margin:0.3em 0;padding-left:6px;border-left:4px solid {COLORES[h.nivel]}">'
            f'{marca_html(h.nivel)} '
            f'<code>{html.escape(h.parametro)}</code>: {html.escape(h.mensaje)}'
            f'<br><small style="color:#555">Fuente: {html.escape(h.fuente)}</small></li>'
        )
    return '<ul class="tutor-hallazgos" style="list-style:none;padding-left:0;margin:0">' + "".join(filas) + "</ul>"


def resumen_html(revision: Revision) -> str:
    """Cifras derivadas en una línea HTML (lote efectivo, pasos, warmup, memoria).

    Se usa en el widget de lessons/04_warmup_y_regularizacion.
    """
    cifras = [
        ("lote_efectivo", "Lote efectivo", revision.lote_efectivo),
        ("pasos_por_epoca", "Pasos por época", revision.pasos_por_epoca),
        ("pasos_totales", "Pasos totales", revision.pasos_totales),
        ("pasos_warmup", "Pasos de warmup", revision.pasos_warmup),
        ("precision", "Precisión", revision.precision),
    ]
    partes = [f'{etiqueta}: <b data-cifra="{clave}">{valor}</b>' for clave, etiqueta, valor in cifras]
    n = {nivel: sum(h.nivel == nivel for h in revision.hallazgos) for nivel in NIVELES}
    partes.append(" · ".join(f"{marca_html(nivel)} {n[nivel]}" for nivel in ("ok", "aviso", "error")))
    return '<div class="tutor-resumen">' + " · ".join(partes) + "</div>"


def _ticks(maximo: float, n: int = 4) -> list[float]:
    """Marcas redondas (1, 2, 2.5 y 5 × 10^k) entre 0 y ``maximo``."""
    if maximo <= 0:
        return [0.0]
    bruto = maximo / n
    potencia = 10 ** math.floor(math.log10(bruto))
    paso = next(m * potencia for m in (1, 2, 2.5, 5, 10) if m * potencia >= bruto)
    return [i * paso for i in range(int(maximo / paso + 1e-9) + 1)]


def svg_schedule(lr: float, pasos_totales: int, pasos_warmup: int, tipo: str = "linear",
                 ancho: int = 600, alto: int = 280) -> str:
    """Gráfica SVG (texto) de la tasa de aprendizaje en cada paso, con el warmup sombreado.

    Los valores salen de :func:`tutor_lib.warmup.tasas_de_aprendizaje` (el
    scheduler real de transformers). Con más de :data:`PUNTOS_GRAFICA` pasos,
    la curva se calcula sobre un entrenamiento reducido a ese número de pasos
    con el warmup en la misma proporción y se reescala el eje x: la forma es la
    misma. Es SVG y no matplotlib para que el widget se actualice en
    milisegundos. Se usa en el widget de lessons/04_warmup_y_regularizacion.
    """
    import html

    lr = _real("lr", lr, 0.0, 1.0, minimo_incluido=False)
    total = _entero("pasos_totales", pasos_totales, 1, 10**15)
    pasos_warmup = _entero("pasos_warmup", pasos_warmup, 0, 10**15)
    puntos = min(total, PUNTOS_GRAFICA)
    warmup_reducido = pasos_warmup if puntos == total else round(pasos_warmup * puntos / total)
    tasas = _warmup.tasas_de_aprendizaje(lr, puntos, min(warmup_reducido, puntos), tipo)
    izq, der, arr, aba = 80, 16, 32, 50
    w, h = ancho - izq - der, alto - arr - aba
    xmax = max(total - 1, 1)
    escala = (total - 1) / max(puntos - 1, 1)
    ymax = lr * 1.08
    x = lambda paso: izq + w * paso / xmax  # noqa: E731
    y = lambda tasa: arr + h * (1 - tasa / ymax)  # noqa: E731
    trazo = " ".join(f"{x(i * escala):.1f},{y(t):.1f}" for i, t in enumerate(tasas))
    partes = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{ancho}" height="{alto}" role="img" '
        f'class="tutor-schedule" data-pasos="{total}" data-warmup="{pasos_warmup}" '
        f'style="font-family:sans-serif;font-size:14px">',  # como las gráficas de matplotlib de las lecciones
        f"<title>Tasa de aprendizaje por paso ({html.escape(tipo)})</title>",
    ]
    if pasos_warmup > 0:
        fin = x(min(pasos_warmup, xmax))
        partes.append(f'<rect x="{izq}" y="{arr}" width="{fin - izq:.1f}" height="{h}" fill="#e0e0e0"/>')
    for valor in _ticks(xmax):
        partes.append(f'<line x1="{x(valor):.1f}" y1="{arr}" x2="{x(valor):.1f}" y2="{arr + h}" stroke="#eee"/>')
        marca = entero(valor) if float(valor).is_integer() else f"{valor:g}"
        partes.append(f'<text x="{x(valor):.1f}" y="{arr + h + 18}" text-anchor="middle">{marca}</text>')
    for valor in _ticks(lr):
        partes.append(f'<line x1="{izq}" y1="{y(valor):.1f}" x2="{izq + w}" y2="{y(valor):.1f}" stroke="#eee"/>')
        partes.append(f'<text x="{izq - 4}" y="{y(valor) + 4:.1f}" text-anchor="end">{_fmt(valor) if valor else 0}</text>')
    partes += [
        f'<rect x="{izq}" y="{arr}" width="{w}" height="{h}" fill="none" stroke="#888"/>',
        f'<polyline class="tutor-curva" fill="none" stroke="#0072B2" stroke-width="2" points="{trazo}"/>',
        f'<text x="{izq + w / 2}" y="{alto - 8}" text-anchor="middle">Paso de optimización</text>',
        f'<text transform="translate(16,{arr + h / 2}) rotate(-90)" text-anchor="middle">Tasa de aprendizaje</text>',
        f'<text x="{izq + w / 2}" y="20" text-anchor="middle" font-weight="bold" font-size="15px">'
        f"{html.escape(tipo)}: lr máx. {_fmt(lr)}, warmup {entero(pasos_warmup)} de {entero(total)} pasos</text>",
        "</svg>",
    ]
    return "".join(partes)


def graficar_revision(revision: Revision):
    """Figura de matplotlib con el schedule de una revisión (para un notebook, fuera del widget).

    Capa fina sobre :func:`tutor_lib.warmup.graficar_schedules`.
    Se usa en lessons/04_warmup_y_regularizacion.
    """
    if not isinstance(revision, Revision):
        raise TypeError(f"revision debe ser una Revision de revisar_configuracion(); recibí {type(revision).__name__}.")
    c = revision.configuracion
    return _warmup.graficar_schedules(c.lr, revision.pasos_totales, revision.pasos_warmup, (c.scheduler_efectivo,))
