"""Mediciones de tutor_lib.warmup: igualdad con un Trainer real y tiempo de cálculo.

``medir()`` devuelve filas ``(nombre, valor, nota)``; todos los valores se miden
al correrlo (nada está escrito a mano). Tarda unos 15 s en una CPU de 2 núcleos.
"""

from __future__ import annotations

import statistics
import time

from tutor_lib import warmup

# 50 ejemplos, lote 4 -> 13 lotes por época (el último incompleto), 3 épocas -> 39 pasos
_EJEMPLOS, _LOTE, _EPOCAS = 50, 4, 3

_COMBINACIONES = [
    # ejemplos, lote, épocas, acumulación, max_pasos, descartar_ultimo
    (37, 4, 2.5, 3, -1, False),
    (17, 5, 2, 2, -1, False),
    (9, 4, 1, 4, -1, False),
    (30, 4, 3, 1, 7, False),
    (11, 4, 2, 1, -1, True),
]


def _igualdad_por_tipo() -> tuple[int, int, int]:
    """(tipos idénticos, tipos probados, pasos por corrida)."""
    identicos = 0
    pasos = 0
    for i, tipo in enumerate(warmup.TIPOS):
        valor_warmup = 0.1 if i % 2 == 0 else 3
        registro = warmup.tasas_usadas_por_trainer(1e-3, _EJEMPLOS, _LOTE, _EPOCAS, 1, valor_warmup, tipo)
        esperadas = warmup.tasas_de_aprendizaje(1e-3, registro.pasos_totales, valor_warmup, tipo)
        pasos = registro.pasos_totales
        if registro.tasas == registro.tasas_inicio_paso == registro.tasas_registro == esperadas:
            identicos += 1
    return identicos, len(warmup.TIPOS), pasos


def _igualdad_de_pasos() -> tuple[int, int]:
    bien = 0
    for ejemplos, lote, epocas, acumulacion, max_pasos, descartar in _COMBINACIONES:
        registro = warmup.tasas_usadas_por_trainer(
            1e-3, ejemplos, lote, epocas, acumulacion, 0.2, "linear", max_pasos, descartar_ultimo=descartar
        )
        calculados = warmup.pasos_totales(
            ejemplos, lote, epocas, acumulacion, max_pasos=max_pasos, descartar_ultimo=descartar
        )
        if calculados == registro.pasos_totales == len(registro.tasas):
            bien += 1
    return bien, len(_COMBINACIONES)


def _milisegundos(funcion, repeticiones: int) -> float:
    funcion()  # calentamiento (importaciones)
    tiempos = []
    for _ in range(repeticiones):
        inicio = time.perf_counter()
        funcion()
        tiempos.append(time.perf_counter() - inicio)
    return 1000 * statistics.median(tiempos)


def medir() -> list[tuple[str, str, str]]:
    """Filas (nombre, valor, nota) con lo medido en esta máquina."""
    filas: list[tuple[str, str, str]] = []

    identicos, probados, pasos = _igualdad_por_tipo()
    filas.append(
        (
            "warmup: igualdad con un Trainer real",
            f"{identicos}/{probados} tipos idénticos paso a paso ({pasos} pasos)",
            "tasa leída en on_pre_optimizer_step, on_step_begin y log_history; igualdad exacta de floats",
        )
    )

    bien, combinaciones = _igualdad_de_pasos()
    filas.append(
        (
            "warmup: pasos_totales = trainer.state.max_steps",
            f"{bien}/{combinaciones} combinaciones",
            "acumulación, épocas fraccionarias, último lote incompleto, max_steps, drop_last",
        )
    )

    tabla = warmup.tabla_warmup(2e-5, 500, 100, pasos=(0, 20, 50))
    filas.append(
        (
            "warmup: tabla corregida de la fuente",
            ", ".join(f"paso {p}: {lr:.1e}" for p, lr in tabla),
            "lr=2e-5, 100 pasos de warmup lineal (la fuente tenía valores mil veces menores)",
        )
    )

    ms_1000 = _milisegundos(lambda: warmup.tasas_de_aprendizaje(2e-5, 1000, 0.1, "cosine"), 20)
    filas.append(
        (
            "warmup: tiempo de tasas_de_aprendizaje (1000 pasos)",
            f"{ms_1000:.2f} ms por llamada",
            "mediana de 20; optimizador y scheduler reales de torch/transformers",
        )
    )
    ms_100k = _milisegundos(lambda: warmup.tasas_de_aprendizaje(2e-5, 100_000, 0.1, "linear"), 3)
    filas.append(
        (
            "warmup: tiempo de tasas_de_aprendizaje (100 000 pasos)",
            f"{ms_100k:.0f} ms por llamada",
            "mediana de 3",
        )
    )
    return filas


if __name__ == "__main__":
    for nombre, valor, nota in medir():
        print(f"{nombre:<55} {valor:<45} {nota}")
