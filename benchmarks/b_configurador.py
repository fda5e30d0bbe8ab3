"""Filas del configurador: tiempo de ``revisar_configuracion`` y de una actualización del widget (objetivo < 50 ms)."""

from __future__ import annotations

import statistics
import time

REPETICIONES = 50
OBJETIVO_MS = 50.0


def _mediana_ms(funcion, repeticiones: int = REPETICIONES) -> float:
    funcion()  # calentamiento: importaciones perezosas (torch en vram, scheduler de transformers)
    tiempos = []
    for i in range(repeticiones):
        inicio = time.perf_counter()
        funcion(i)
        tiempos.append(time.perf_counter() - inicio)
    return statistics.median(tiempos) * 1000


def _estado(ms: float) -> str:
    return f"objetivo < {OBJETIVO_MS:.0f} ms: {'cumple' if ms < OBJETIVO_MS else 'NO cumple'}"


def medir() -> list[tuple[str, str, str]]:
    from tutor_lib import configurador as cf

    base = dict(metodo="completo", parametros=66e6, ejemplos=3668, lr=2e-5, lote=16, epocas=3, warmup=0.06, gpu="T4")
    lrs = (1e-5, 2e-5, 5e-5, 1e-4)

    revisar = _mediana_ms(lambda i=0: cf.revisar_configuracion(**{**base, "lr": lrs[i % 4]}))
    no_cabe = _mediana_ms(
        lambda i=0: cf.revisar_configuracion(**{**base, "parametros": "llama-3-8b", "tarea": "causal",
                                                 "lr": lrs[i % 4]})
    )
    codigo = _mediana_ms(lambda i=0: cf.codigo_python(**{**base, "lr": lrs[i % 4]}))

    panel = cf.widget_configurador()
    decaimientos = (0.0, 0.01, 0.05, 0.1)

    def cambiar_weight_decay(i=0):
        panel.controles["weight_decay"].value = decaimientos[i % 4]

    def cambiar_lr(i=1):
        panel.controles["lr"].value = lrs[i % 4]

    sin_grafica = _mediana_ms(cambiar_weight_decay)
    veces = panel.veces_graficada
    con_grafica = _mediana_ms(cambiar_lr)
    redibujos = panel.veces_graficada - veces

    return [
        ("configurador: revisar_configuracion()", f"{revisar:.2f} ms",
         f"mediana de {REPETICIONES}, DistilBERT en una T4; {_estado(revisar)}"),
        ("configurador: revisar (no cabe, con sugerencias)", f"{no_cabe:.2f} ms",
         f"mediana de {REPETICIONES}, Llama-3-8B completo en una T4: estima LoRA, QLoRA y lote máximo; {_estado(no_cabe)}"),
        ("configurador: codigo_python()", f"{codigo:.2f} ms", f"mediana de {REPETICIONES}"),
        ("configurador: widget, cambio sin redibujar", f"{sin_grafica:.2f} ms",
         f"weight_decay: hallazgos, cifras, memoria y código; mediana de {REPETICIONES}; {_estado(sin_grafica)}"),
        ("configurador: widget, cambio con gráfica", f"{con_grafica:.2f} ms",
         f"lr: además recalcula el schedule (SVG, ≤ {cf.PUNTOS_GRAFICA} puntos; {redibujos} redibujos); "
         f"mediana de {REPETICIONES}; sin navegador (no cuenta el envío al frontend); {_estado(con_grafica)}"),
    ]


if __name__ == "__main__":  # pragma: no cover
    for fila in medir():
        print(" | ".join(fila))
