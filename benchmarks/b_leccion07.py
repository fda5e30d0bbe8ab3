"""Filas de la lección 07: la cuenta de memoria de tutor_lib.vram frente a la medición exacta.

Repite el código de lessons/07_memoria_y_fine_tuning_completo.ipynb (sección 3 y 6): carga el
clasificador del modo rápido (multilingual-e5-small) con ``recursos.cargar_clasificador``, da un
paso real de AdamW sobre 8 reseñas tokenizadas a 32 tokens y compara ``vram.medir_estado`` con
``vram.estimar_memoria``. No lee el notebook: las cifras se miden en el momento.
tests/lecciones/test_07.py usa estas mismas funciones.
"""

from __future__ import annotations

from tutor_lib.formato import entero

import warnings

#: Los tamaños del modo rápido de la lección 07.
LOTE, SECUENCIA = 8, 32


def _lote(tokenizer, n: int, secuencia: int) -> dict:
    import torch

    from tutor_lib import recursos

    filas = recursos.cargar_dataset("resenas", modo="rapido")["train"].select(range(n))
    lote = tokenizer(list(filas["text"]), padding="max_length", truncation=True, max_length=secuencia,
                     return_tensors="pt")
    lote["labels"] = torch.tensor(list(filas["label"]))
    return dict(lote)


def medir_estado_clasificador(dtype=None, lote: int = LOTE, secuencia: int = SECUENCIA) -> dict[str, int]:
    """Un paso de AdamW en el clasificador del modo rápido (CPU).

    Devuelve los bytes medidos y los estimados del estado estático.

    ``dtype=None`` carga el modelo como la lección (fp32, precisión ``"fp32"`` en la
    calculadora); ``torch.bfloat16`` reproduce el bf16 puro de la sección 6.
    Claves: ``medido``, ``estimado``, ``parametros``, ``tensores``.
    """
    import torch
    from transformers.utils import logging as hf_logging

    from tutor_lib import entorno, recursos, vram

    warnings.filterwarnings("ignore")
    hf_logging.set_verbosity_error()
    extra = {} if dtype is None else {"dtype": dtype}
    tokenizer, modelo = recursos.cargar_clasificador(num_labels=2, modo="rapido", **extra)
    entorno.fijar_semilla(42)
    optimizador = torch.optim.AdamW(modelo.parameters(), lr=2e-5, weight_decay=0.01)
    modelo.train()
    modelo(**_lote(tokenizer, lote, secuencia)).loss.backward()
    optimizador.step()
    medido = vram.medir_estado(modelo, optimizador)["total"]
    precision = "bf16" if dtype == torch.bfloat16 else "fp32"
    estimado = vram.estimar_memoria(parametros=modelo, metodo="completo", precision=precision,
                                    optimizador="adamw").estatica_bytes
    return {
        "medido": medido,
        "estimado": estimado,
        "parametros": recursos.contar_parametros(modelo),
        "tensores": len(list(modelo.parameters())),
    }


def _puntos(n: int) -> str:
    return entero(n)


def medir() -> list[tuple[str, str, str]]:
    import torch

    fp32 = medir_estado_clasificador()
    bf16 = medir_estado_clasificador(torch.bfloat16)
    filas = []
    for nombre, r in (("fp32 + AdamW", fp32), ("bf16 puro + AdamW", bf16)):
        error = 100 * (r["estimado"] - r["medido"]) / r["medido"]
        filas.append((
            f"lección 07: estimación vs medición (clasificador rápido, {nombre})",
            f"{_puntos(r['estimado'])} B estimados / {_puntos(r['medido'])} B medidos",
            f"error {error:+.3f} %; {r['medido'] / r['parametros']:.5f} B por parámetro "
            f"({_puntos(r['parametros'])} parámetros, {r['tensores']} tensores); un paso real, lote {LOTE} × {SECUENCIA}",
        ))
    return filas
