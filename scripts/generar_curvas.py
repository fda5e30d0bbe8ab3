"""Genera el corpus etiquetado de curvas de entrenamiento REALES de ``tests/datos/curvas/``.

Cada curva sale de entrenar de verdad un modelo diminuto con el ``Trainer`` de
transformers en CPU, con una patología provocada a propósito. Se guarda el
``trainer.state.log_history`` tal cual lo escribe el Trainer (con ``NaN`` o
``Infinity`` si aparecen), junto con la etiqueta, la semilla, los ajustes de la
corrida y una partición fija:

* ``"particion": "ajuste"`` (``CORRIDAS`` + ``CORRIDAS_SEGUNDA_TANDA`` +
  ``CORRIDAS_TERCERA_TANDA``, 150 curvas): con ellas se fijaron los umbrales
  de ``tutor_lib/curvas.py``;
* ``"particion": "reserva"`` (``CORRIDAS_RESERVA``, 90 curvas, el 37 %):
  semillas y ajustes nuevos, generadas y etiquetadas (mirando solo sus
  gráficas sin veredicto y sus números) antes de pasarles el diagnóstico. Con
  ellas se mide la exactitud en ``tests/test_curvas.py`` y
  ``benchmarks/b_curvas.py``.

Historia de la partición, para que la cifra de la reserva sea honesta:

1. Primera reserva: una de cada tres de las 71 primeras corridas. Dio 20/22
   (91 %). Los dos fallos eran fronteras entre ``inestable`` y
   ``divergencia``: un BERT sin ``zero_grad`` que en 300 pasos solo oscilaba
   (se subió su lr, ver su ``nota``) y una curva caótica cuyo «nivel final» se
   medía con solo 3 puntos (la regla pasó a usar también la mediana del último
   tercio). Esa reserva, ya mirada, pasó a ``ajuste``.
2. Segunda reserva: ``CORRIDAS_SEGUNDA_TANDA`` (34 corridas nuevas). Dio 31/34
   (91 %), otra vez en la frontera ``inestable``/``divergencia``/``subajuste``:
   un warmup explosivo cuyo «nivel inicial» ya incluía la subida (ahora se
   toma el primer registro si es menor), una curva ruidosa que aprende poco
   (se añadió la rugosidad de la validación como señal de inestabilidad) y una
   etiqueta cambiada a ciegas y devuelta después (ver la ``nota`` del Llama de
   semilla 235). También pasó a ``ajuste``.
3. Tercera reserva: ``CORRIDAS_TERCERA_TANDA`` (45 corridas, semillas 301+).
   Su revisión a ciegas cambió una etiqueta (el SGD sin ``zero_grad`` de
   semilla 335 oscila sin subir: ``inestable``). Dio 42/45 (93 %): dos
   regresiones con lr bajísima y ruido de lotes moderado se tomaron por
   inestables (ahora un ruido moderado solo cuenta si la validación también
   salta o no hay validación) y aquella SGD, porque «peor que al empezar» se
   medía contra la mediana de los primeros puntos, que ya incluía la bajada
   inicial (ahora se compara con el primer registro). También pasó a ``ajuste``.
4. Reserva actual: ``CORRIDAS_RESERVA`` (90 corridas, semillas 401+, el 37 %
   del corpus). Se etiquetó antes de pasarle el diagnóstico, aplicando a la
   gráfica y a sus números las definiciones escritas de cada categoría (las
   de ``tutor_lib/curvas.py``); eso cambió dos etiquetas provocadas a
   ``sano`` (ver sus ``nota``): un modelo lineal cuya curva es idéntica a la
   de un entrenamiento que convergió, y una lr alta que solo dio ruido moderado.

Uso (nunca descarga nada; el corpus entero son unos 8 minutos de CPU, unos
4–5 minutos en 2 núcleos libres, porque corre una corrida por núcleo)::

    .venv/bin/python scripts/generar_curvas.py            # todo el corpus
    .venv/bin/python scripts/generar_curvas.py --graficas /tmp/curvas  # + PNG por curva
    .venv/bin/python scripts/generar_curvas.py --solo sano_01 divergencia_03

Tareas sintéticas (los datos se generan aquí, con semilla):

* ``vectores``: clasificación de vectores de 16 dimensiones en C clases (2…8); las
  etiquetas las pone un «maestro» (un MLP aleatorio fijo), así que la tarea es
  aprendible pero no lineal.
* ``regresion``: el mismo maestro con salida continua multiplicada por una
  ``escala`` (0.05 … 50), para tener pérdidas MSE de magnitudes muy distintas
  (de 10⁻³ a 10³).
* ``texto``: secuencias de 12 tokens de un vocabulario de 40; la etiqueta es 1 si
  hay más tokens «positivos» (2‥11) que «negativos» (12‥21). Se entrena un BERT
  o un Llama diminutos creados desde su configuración (sin pesos descargados).

Cómo se provoca cada categoría:

* ``sano``: tasa de aprendizaje razonable, datos suficientes, pasos hasta meseta.
* ``subajuste``: tasa de aprendizaje demasiado baja (AdamW con 1e-5…2e-6 o SGD
  con 1e-3…1e-4), o un modelo lineal para una tarea no lineal (un «maestro»
  par, que un modelo lineal no puede imitar), o weight decay enorme.
* ``sobreajuste``: pocos ejemplos (32…300) con un modelo grande durante
  muchas épocas, a menudo con ruido en las etiquetas de entrenamiento.
* ``divergencia``: SGD o AdamW con tasa de aprendizaje enorme y sin recorte de
  gradiente (``max_grad_norm=0``); SGD sin ``zero_grad``. Algunas con el filtro
  ``logging_nan_inf_filter`` por defecto (el Trainer registra entonces
  ``loss = 0.0`` cuando la pérdida ya es ``NaN``: una trampa real que el
  diagnóstico tiene que ver en ``grad_norm``/``eval_loss``).
* ``inestable``: AdamW con tasa de aprendizaje alta y lotes pequeños; warmup
  que sube hasta una tasa excesiva y luego decae; AdamW con recorte de
  gradiente y sin ``zero_grad`` (``TrainerSinZeroGrad``: los gradientes se
  acumulan entre pasos).
* ``indeterminado``: corridas demasiado cortas, sin evaluación, o con una sola
  evaluación (el diagnóstico no puede descartar el sobreajuste).

Etiquetas revisadas a mano. La etiqueta viene de cómo se provocó la corrida y
luego se comprobó mirando la gráfica de cada una (``--graficas``). Lo que la
revisión cambió (las corridas afectadas lo dicen en su campo ``nota``):

* AdamW sin ``zero_grad`` con lr=1e-3 se planeó como ``inestable``, pero la
  curva bajaba suave y parecía sana: esa variante se descartó. Con lr=3e-3 y
  sin recorte de gradiente la pérdida baja y luego sube por encima de donde
  empezó: esas corridas quedan como ``divergencia``. Con lr=3e-2 y recorte
  (``max_grad_norm=1``) la pérdida oscila en sierra sin subir: ``inestable``.
  SGD sin ``zero_grad`` acaba explotando: ``divergencia``.
* AdamW con lr enorme (1…5) explotaba dentro de la primera ventana de
  ``logging_steps``: la curva registrada empezaba altísima y «bajaba» (o se
  quedaba plana en el nivel del azar) y no se veía la divergencia. Se quitaron
  y se sustituyeron por un warmup hasta lr=1.0 que después se queda constante.
* SGD con lr=2 y lotes de 8 se planeó como ``inestable``, pero la pérdida pasó
  de 5 a 10⁴ y terminó en ~300: se reetiquetó como ``divergencia``.
* El BERT con SGD lr=1 explotaba dentro de los primeros 10 pasos; se registra
  cada 2 pasos para que la curva muestre la explosión.
* Warmup hasta un pico de lr 0.03…0.06 solo daba bultos pequeños,
  indistinguibles del ruido normal: se subió el pico a 0.1…0.3 con decaimiento
  lineal (pico y recuperación: ``inestable``). Un warmup hasta lr=1.0 con
  decaimiento lineal explotaba y volvía justo al nivel inicial (ambiguo): se
  usa ``constant_with_warmup`` para la corrida de ``divergencia``.
* AdamW lr=0.03 con lotes de 8 en BERT/Llama dejaba la pérdida en el nivel del
  azar con poco ruido: ni claramente inestable ni otra cosa; se descartó.
* Segunda tanda: la revisión a ciegas cambió el Llama sin ``zero_grad`` con
  lr=2e-3 (semilla 235) de ``divergencia`` a ``inestable`` porque en la
  gráfica logarítmica parecía volver a su inicio; con los números termina un
  28 % por encima tras una explosión, que es la definición escrita de
  divergencia, y se devolvió a su etiqueta provocada. Ese cambio de vuelta se
  hizo DESPUÉS de medir esa tanda (que contó ese caso como fallo) y de ver el
  diagnóstico, cuando la tanda ya pasaba a ``ajuste``.
* ``sobreajuste`` con 32…128 ejemplos: la validación sube desde la primera
  evaluación (sin fase de bajada); se añadieron corridas con 150…300 ejemplos
  que muestran la «U». En dos de regresión la validación queda plana mientras
  el entrenamiento baja a casi 0 (sobreajuste por brecha).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import math
import os
import sys
import tempfile
import time
import types
import warnings
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[1]
CARPETA_CORPUS = RAIZ / "tests" / "datos" / "curvas"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("MPLBACKEND", "Agg")

CATEGORIAS = ("sano", "sobreajuste", "subajuste", "inestable", "divergencia", "indeterminado")

#: Campos del log que dependen del reloj: se quitan para que el corpus sea
#: reproducible byte a byte (el diagnóstico no los usa).
CAMPOS_DE_TIEMPO = ("_runtime", "_per_second", "total_flos")


# --------------------------------------------------------------------------- corridas

def _c(categoria, **ajustes):
    """Una corrida: categoría provocada + ajustes (los que falten toman el valor base)."""
    return (categoria, ajustes)


NOTA_ZG = "Planeada como inestable (AdamW sin zero_grad); la pérdida baja y luego sube por encima de donde empezó: divergencia."
NOTA_BRECHA = "La validación queda plana desde el principio mientras el entrenamiento baja a casi 0: sobreajuste por brecha."

BASE = dict(
    tarea="vectores",
    clases=4,
    escala=1.0,
    modelo="mlp",
    oculta=64,
    capas=1,
    n_entrenamiento=4000,
    n_validacion=400,
    ruido_etiquetas=0.0,
    optim="adamw_torch",
    lr=3e-3,
    scheduler="linear",
    warmup=0.0,
    weight_decay=0.0,
    max_steps=300,
    lote=32,
    logging_steps=10,
    eval_strategy="steps",
    eval_steps=25,
    num_train_epochs=None,
    max_grad_norm=1.0,
    sin_zero_grad=False,
    filtro_nan=True,
    eval_al_inicio=False,
    maestro_par=False,
    nota="",
)

CORRIDAS = [
    # ------------------------------------------------------------------ sano
    _c("sano", semilla=1),
    _c("sano", semilla=2, clases=2, lr=2e-3, scheduler="cosine"),
    _c("sano", semilla=3, clases=8, max_steps=400, eval_steps=40, eval_al_inicio=True),
    _c("sano", semilla=4, tarea="regresion", escala=1.0, lr=3e-3),
    _c("sano", semilla=5, tarea="texto", modelo="bert", lr=3e-3, max_steps=300, logging_steps=10, eval_steps=30),
    _c("sano", semilla=6, tarea="regresion", escala=10.0, lr=1e-2, max_steps=400, eval_steps=40),
    _c("sano", semilla=7, tarea="texto", modelo="llama", lr=3e-3, max_steps=300, eval_steps=30),
    _c("sano", semilla=8, tarea="regresion", escala=0.05, lr=3e-3),
    _c("sano", semilla=9, clases=4, optim="sgd", lr=0.1, max_steps=400, eval_steps=40, scheduler="constant"),
    _c("sano", semilla=10, clases=2, eval_strategy="epoch", n_entrenamiento=1600, num_train_epochs=6, max_steps=-1, logging_steps=10),
    _c("sano", semilla=11, tarea="texto", modelo="bert", lr=2e-3, max_steps=300, warmup=0.1, eval_steps=25),
    _c("sano", semilla=12, clases=8, lote=64, lr=5e-3, max_steps=250, logging_steps=5, eval_steps=25),
    # ------------------------------------------------------------------ sobreajuste
    _c("sobreajuste", semilla=21, n_entrenamiento=256, oculta=512, capas=2, ruido_etiquetas=0.3, max_steps=600, lote=16, eval_steps=25, lr=1e-3, eval_al_inicio=True),
    _c("sobreajuste", semilla=22, tarea="texto", modelo="bert", n_entrenamiento=200, ruido_etiquetas=0.2, max_steps=600, lote=16, eval_steps=25, lr=1e-3),
    _c("sobreajuste", semilla=23, tarea="texto", modelo="llama", n_entrenamiento=150, ruido_etiquetas=0.2, max_steps=500, lote=16, eval_steps=25, lr=2e-3),
    _c("sobreajuste", semilla=24, n_entrenamiento=200, oculta=256, capas=2, ruido_etiquetas=0.2, max_steps=500, lote=16, eval_steps=25, lr=1e-3, clases=8),
    _c("sobreajuste", semilla=25, n_entrenamiento=300, oculta=512, capas=2, ruido_etiquetas=0.3, max_steps=600, lote=32, eval_steps=30, lr=1e-3, clases=2),
    _c("sobreajuste", semilla=26, n_entrenamiento=64, oculta=512, capas=2, ruido_etiquetas=0.3, max_steps=400, lote=16, eval_steps=20, lr=1e-3),
    _c("sobreajuste", semilla=27, tarea="texto", modelo="bert", n_entrenamiento=64, ruido_etiquetas=0.3, max_steps=400, lote=16, eval_steps=20, lr=3e-3),
    _c("sobreajuste", semilla=28, n_entrenamiento=64, oculta=512, capas=2, ruido_etiquetas=0.3, eval_strategy="epoch", num_train_epochs=80, max_steps=-1, lote=16, logging_steps=8, lr=1e-3),
    _c("sobreajuste", semilla=29, tarea="regresion", escala=10.0, n_entrenamiento=32, oculta=512, capas=2, ruido_etiquetas=0.5, max_steps=400, lote=8, eval_steps=20, lr=3e-3, nota=NOTA_BRECHA),
    _c("sobreajuste", semilla=30, tarea="regresion", n_entrenamiento=128, oculta=512, capas=2, ruido_etiquetas=0.5, max_steps=500, lote=16, eval_steps=25, lr=1e-3, nota=NOTA_BRECHA),
    _c("sobreajuste", semilla=31, n_entrenamiento=48, oculta=512, capas=2, max_steps=500, lote=16, eval_steps=25, lr=1e-3, clases=8),
    _c("sobreajuste", semilla=32, tarea="texto", modelo="bert", n_entrenamiento=48, ruido_etiquetas=0.2, max_steps=500, lote=16, eval_steps=25, lr=2e-3, scheduler="constant"),
    # ------------------------------------------------------------------ subajuste
    _c("subajuste", semilla=41, lr=1e-5),
    _c("subajuste", semilla=42, lr=3e-6, clases=8),
    _c("subajuste", semilla=43, modelo="lineal", tarea="vectores", clases=2, maestro_par=True),
    _c("subajuste", semilla=44, tarea="texto", modelo="bert", lr=1e-5, max_steps=300, eval_steps=30),
    _c("subajuste", semilla=45, optim="sgd", lr=1e-3, scheduler="constant"),
    _c("subajuste", semilla=46, tarea="regresion", lr=1e-5, escala=10.0),
    _c("subajuste", semilla=47, weight_decay=200.0, lr=3e-3, clases=4),
    _c("subajuste", semilla=48, tarea="texto", modelo="llama", lr=5e-6, max_steps=300, eval_steps=30),
    _c("subajuste", semilla=49, modelo="lineal", tarea="regresion", escala=1.0, maestro_par=True),
    _c("subajuste", semilla=50, lr=1e-5, eval_strategy="no", clases=2),
    _c("subajuste", semilla=51, optim="sgd", lr=3e-4, scheduler="constant", tarea="regresion", escala=0.05),
    _c("subajuste", semilla=52, lr=5e-6, eval_strategy="epoch", n_entrenamiento=1600, num_train_epochs=6, max_steps=-1),
    # ------------------------------------------------------------------ divergencia
    _c("divergencia", semilla=61, optim="sgd", lr=50.0, max_grad_norm=0.0, scheduler="constant"),
    _c("divergencia", semilla=62, optim="sgd", lr=30.0, max_grad_norm=0.0, scheduler="constant", filtro_nan=False),
    _c("divergencia", semilla=63, tarea="regresion", escala=10.0, optim="sgd", lr=0.5, max_grad_norm=0.0, scheduler="constant"),
    _c("divergencia", semilla=64, lr=3e-3, sin_zero_grad=True, scheduler="constant", max_grad_norm=0.0, nota=NOTA_ZG),
    _c("divergencia", semilla=65, optim="sgd", lr=1e-2, sin_zero_grad=True, scheduler="constant", max_grad_norm=0.0),
    _c("divergencia", semilla=66, tarea="texto", modelo="bert", lr=2e-3, sin_zero_grad=True, scheduler="constant", max_grad_norm=0.0,
       nota="Con lr=1e-3 y 300 pasos solo se veían oscilaciones crecientes que terminaban cerca del inicio (indistinguible de inestable); con lr=2e-3 diverge claramente."),
    _c("divergencia", semilla=67, tarea="regresion", escala=1.0, optim="sgd", lr=2.0, max_grad_norm=0.0, scheduler="constant", filtro_nan=False),
    _c("divergencia", semilla=68, optim="sgd", lr=80.0, max_grad_norm=0.0, scheduler="constant", eval_strategy="no"),
    _c("divergencia", semilla=69, lr=3e-3, sin_zero_grad=True, scheduler="constant", max_grad_norm=0.0, clases=8, nota=NOTA_ZG),
    _c("divergencia", semilla=70, lr=1.0, warmup=0.3, max_grad_norm=0.0, scheduler="constant_with_warmup"),
    _c("divergencia", semilla=71, optim="sgd", lr=3e-2, sin_zero_grad=True, scheduler="constant", max_grad_norm=0.0, tarea="regresion"),
    _c("divergencia", semilla=72, optim="sgd", lr=2.0, lote=8, scheduler="constant", max_grad_norm=0.0,
       nota="Planeada como inestable (SGD lr=2, lotes de 8); la pérdida pasó de 5 a 1e4 y terminó en ~300: divergencia."),
    _c("divergencia", semilla=73, tarea="texto", modelo="bert", optim="sgd", lr=1.0, lote=8, scheduler="constant", max_grad_norm=0.0, logging_steps=2, eval_steps=20,
       nota="Con logging_steps=10 la explosión quedaba dentro de la primera ventana; se registra cada 2 pasos."),
    _c("divergencia", semilla=74, tarea="texto", modelo="llama", lr=1e-3, sin_zero_grad=True, scheduler="constant", max_grad_norm=0.0, nota=NOTA_ZG),
    # ------------------------------------------------------------------ inestable
    _c("inestable", semilla=81, lr=0.05, lote=8, scheduler="constant"),
    _c("inestable", semilla=82, lr=0.1, warmup=0.3, max_grad_norm=0.0),
    _c("inestable", semilla=83, lr=0.03, lote=8, scheduler="constant", capas=2, oculta=128, max_grad_norm=0.0),
    _c("inestable", semilla=84, lr=0.02, lote=8, scheduler="constant", capas=2, oculta=128, max_grad_norm=0.0, clases=2),
    _c("inestable", semilla=85, lr=0.1, warmup=0.3, max_grad_norm=0.0, clases=8),
    _c("inestable", semilla=86, lr=3e-2, sin_zero_grad=True, scheduler="constant",
       nota="AdamW sin zero_grad con recorte de gradiente: sierra sin tendencia a subir, inestable."),
    _c("inestable", semilla=87, tarea="regresion", lr=0.05, lote=8, scheduler="constant"),
    _c("inestable", semilla=88, optim="sgd", lr=0.5, lote=8, scheduler="constant", max_grad_norm=0.0),
    _c("inestable", semilla=89, lr=0.2, warmup=0.25, max_grad_norm=0.0, clases=2),
    _c("inestable", semilla=90, optim="sgd", lr=1.0, lote=8, scheduler="constant", max_grad_norm=0.0),
    _c("inestable", semilla=91, lr=0.08, lote=8, scheduler="constant", clases=8),
    _c("inestable", semilla=92, optim="sgd", lr=0.5, lote=4, scheduler="constant", max_grad_norm=0.0, clases=8),
    _c("inestable", semilla=93, lr=0.3, warmup=0.3, max_grad_norm=0.0),
    # ------------------------------------------------------------------ indeterminado
    _c("indeterminado", semilla=101, max_steps=8, logging_steps=4, eval_steps=4),
    _c("indeterminado", semilla=102, eval_strategy="no"),
    _c("indeterminado", semilla=103, tarea="texto", modelo="bert", max_steps=300, eval_strategy="no"),
    _c("indeterminado", semilla=104, max_steps=12, logging_steps=4, eval_steps=6, tarea="regresion"),
    _c("indeterminado", semilla=105, eval_strategy="epoch", n_entrenamiento=3200, num_train_epochs=1, max_steps=-1),
    _c("indeterminado", semilla=106, tarea="regresion", escala=10.0, lr=1e-2, max_steps=300, eval_strategy="no"),
    _c("indeterminado", semilla=107, max_steps=6, logging_steps=2, eval_strategy="no", clases=2),
    _c("indeterminado", semilla=108, tarea="texto", modelo="llama", eval_strategy="epoch", n_entrenamiento=3200, num_train_epochs=1, max_steps=-1),
]


#: Segunda tanda (semillas 201+): fue la reserva de la segunda ronda; tras medirla
#: (31/34) y revisar sus fallos pasó a ``ajuste``. Siguen la numeración de cada
#: categoría (sano_13, ...).
CORRIDAS_SEGUNDA_TANDA = [
    # ------------------------------------------------------------------ sano
    _c("sano", semilla=201, oculta=128, lr=2e-3, max_steps=350, eval_steps=35),
    _c("sano", semilla=202, tarea="texto", modelo="llama", lr=2e-3, warmup=0.1, max_steps=300, eval_steps=30),
    _c("sano", semilla=203, tarea="regresion", escala=3.0, lr=5e-3, scheduler="cosine"),
    _c("sano", semilla=204, clases=8, optim="sgd", lr=0.2, scheduler="constant", max_steps=400, eval_steps=40),
    _c("sano", semilla=205, tarea="texto", modelo="bert", lr=1e-3, eval_strategy="epoch", n_entrenamiento=1600, num_train_epochs=8, max_steps=-1),
    _c("sano", semilla=206, clases=2, lote=16, lr=1e-3, max_steps=400, logging_steps=20, eval_steps=40),
    # ------------------------------------------------------------------ sobreajuste
    _c("sobreajuste", semilla=211, n_entrenamiento=160, oculta=512, capas=2, ruido_etiquetas=0.25, max_steps=600, lote=16, eval_steps=30, lr=1e-3),
    _c("sobreajuste", semilla=212, tarea="texto", modelo="bert", n_entrenamiento=120, ruido_etiquetas=0.25, max_steps=600, lote=16, eval_steps=30, lr=1.5e-3),
    _c("sobreajuste", semilla=213, tarea="regresion", escala=3.0, n_entrenamiento=64, oculta=512, capas=2, ruido_etiquetas=0.5, max_steps=500, lote=16, eval_steps=25, lr=2e-3),
    _c("sobreajuste", semilla=214, clases=8, n_entrenamiento=96, oculta=256, capas=2, max_steps=400, lote=16, eval_steps=20, lr=2e-3),
    _c("sobreajuste", semilla=215, tarea="texto", modelo="llama", n_entrenamiento=100, ruido_etiquetas=0.3, max_steps=500, lote=16, eval_steps=25, lr=2e-3),
    _c("sobreajuste", semilla=216, clases=2, n_entrenamiento=200, oculta=512, capas=3, ruido_etiquetas=0.3, eval_strategy="epoch", num_train_epochs=60, max_steps=-1, lote=16, logging_steps=13, lr=1e-3),
    # ------------------------------------------------------------------ subajuste
    _c("subajuste", semilla=221, lr=2e-6),
    _c("subajuste", semilla=222, tarea="texto", modelo="bert", lr=3e-6, eval_steps=30),
    _c("subajuste", semilla=223, tarea="regresion", escala=3.0, optim="sgd", lr=1e-4, scheduler="constant"),
    _c("subajuste", semilla=224, modelo="lineal", clases=4, maestro_par=True),
    _c("subajuste", semilla=225, clases=8, weight_decay=100.0, lr=1e-3),
    _c("subajuste", semilla=226, tarea="texto", modelo="llama", lr=2e-6, eval_strategy="epoch", n_entrenamiento=3200, num_train_epochs=3, max_steps=-1),
    # ------------------------------------------------------------------ divergencia
    _c("divergencia", semilla=231, clases=2, optim="sgd", lr=20.0, max_grad_norm=0.0, scheduler="constant"),
    _c("divergencia", semilla=232, clases=2, lr=5e-3, sin_zero_grad=True, scheduler="constant", max_grad_norm=0.0),
    _c("divergencia", semilla=233, clases=8, lr=2.0, warmup=0.3, max_grad_norm=0.0, scheduler="constant_with_warmup"),
    _c("divergencia", semilla=234, clases=8, optim="sgd", lr=2e-2, sin_zero_grad=True, scheduler="constant", max_grad_norm=0.0),
    _c("divergencia", semilla=235, tarea="texto", modelo="llama", lr=2e-3, sin_zero_grad=True, scheduler="constant", max_grad_norm=0.0,
       nota="En la revisión a ciegas se reetiquetó como inestable (oscila fuerte, de 0.55 a 1.8); con los números "
            "termina un 28 % por encima de su inicio tras la explosión, que es la definición de divergencia: "
            "se devolvió a la etiqueta provocada."),
    _c("divergencia", semilla=236, tarea="regresion", optim="sgd", lr=1.0, max_grad_norm=0.0, scheduler="constant", filtro_nan=False),
    # ------------------------------------------------------------------ inestable
    _c("inestable", semilla=241, clases=2, lr=0.06, lote=8, scheduler="constant"),
    _c("inestable", semilla=242, lr=0.15, warmup=0.3, max_grad_norm=0.0),
    _c("inestable", semilla=243, optim="sgd", lr=0.8, lote=8, scheduler="constant", max_grad_norm=0.0),
    _c("inestable", semilla=244, tarea="regresion", lr=0.08, lote=8, scheduler="constant"),
    _c("inestable", semilla=245, clases=8, lr=5e-2, sin_zero_grad=True, scheduler="constant"),
    _c("inestable", semilla=246, clases=8, lr=0.25, warmup=0.3, max_grad_norm=0.0),
    # ------------------------------------------------------------------ indeterminado
    _c("indeterminado", semilla=251, max_steps=10, logging_steps=5, eval_steps=5),
    _c("indeterminado", semilla=252, tarea="texto", modelo="bert", eval_strategy="no"),
    _c("indeterminado", semilla=253, tarea="regresion", eval_strategy="epoch", n_entrenamiento=3200, num_train_epochs=1, max_steps=-1),
    _c("indeterminado", semilla=254, max_steps=200, logging_steps=50, eval_steps=50),
]


#: Tercera tanda (semillas 301+): fue la reserva de la tercera ronda; tras medirla
#: (42/45) y revisar sus fallos pasó a ``ajuste``.
CORRIDAS_TERCERA_TANDA = [
    # ------------------------------------------------------------------ sano
    _c("sano", semilla=301, oculta=96, lr=2.5e-3, eval_steps=30),
    _c("sano", semilla=302, clases=2, lr=1.5e-3, scheduler="cosine", max_steps=350, eval_steps=35),
    _c("sano", semilla=303, tarea="regresion", escala=0.3, lr=4e-3),
    _c("sano", semilla=304, tarea="texto", modelo="bert", lr=2.5e-3, warmup=0.05, eval_steps=30),
    _c("sano", semilla=305, tarea="texto", modelo="llama", lr=1.5e-3, max_steps=350, eval_steps=35),
    _c("sano", semilla=306, clases=8, lote=64, lr=4e-3, logging_steps=5, eval_steps=25),
    _c("sano", semilla=307, tarea="regresion", escala=20.0, lr=1e-2, max_steps=400, eval_steps=40),
    _c("sano", semilla=308, optim="sgd", lr=0.15, scheduler="constant", capas=2, oculta=64, max_steps=400, eval_steps=40),
    # ------------------------------------------------------------------ sobreajuste
    _c("sobreajuste", semilla=311, n_entrenamiento=128, oculta=512, capas=2, ruido_etiquetas=0.35, max_steps=500, lote=16, eval_steps=25, lr=1e-3),
    _c("sobreajuste", semilla=312, clases=2, n_entrenamiento=250, oculta=384, capas=2, ruido_etiquetas=0.3, max_steps=600, eval_steps=30, lr=1e-3),
    _c("sobreajuste", semilla=313, tarea="texto", modelo="bert", n_entrenamiento=160, ruido_etiquetas=0.25, max_steps=600, lote=16, eval_steps=30, lr=1e-3),
    _c("sobreajuste", semilla=314, tarea="texto", modelo="llama", n_entrenamiento=80, ruido_etiquetas=0.2, max_steps=500, lote=16, eval_steps=25, lr=2.5e-3),
    _c("sobreajuste", semilla=315, tarea="regresion", n_entrenamiento=48, oculta=512, capas=2, ruido_etiquetas=0.6, max_steps=500, lote=8, eval_steps=25, lr=2e-3),
    _c("sobreajuste", semilla=316, clases=8, n_entrenamiento=64, oculta=512, capas=2, max_steps=400, lote=16, eval_steps=20, lr=1.5e-3),
    _c("sobreajuste", semilla=317, n_entrenamiento=96, oculta=512, capas=2, ruido_etiquetas=0.2, eval_strategy="epoch", num_train_epochs=70, max_steps=-1, lote=16, logging_steps=6, lr=1e-3),
    _c("sobreajuste", semilla=318, tarea="texto", modelo="bert", n_entrenamiento=64, ruido_etiquetas=0.1, max_steps=400, lote=16, eval_steps=20, lr=3e-3, scheduler="constant"),
    # ------------------------------------------------------------------ subajuste
    _c("subajuste", semilla=321, lr=4e-6),
    _c("subajuste", semilla=322, clases=2, optim="sgd", lr=5e-4, scheduler="constant"),
    _c("subajuste", semilla=323, tarea="texto", modelo="bert", lr=5e-6, eval_steps=30),
    _c("subajuste", semilla=324, tarea="texto", modelo="llama", lr=3e-6, eval_steps=30),
    _c("subajuste", semilla=325, tarea="regresion", escala=20.0, lr=3e-6),
    _c("subajuste", semilla=326, modelo="lineal", tarea="regresion", escala=5.0, maestro_par=True),
    _c("subajuste", semilla=327, clases=8, weight_decay=300.0, lr=2e-3),
    _c("subajuste", semilla=328, lr=8e-6, eval_strategy="epoch", n_entrenamiento=1600, num_train_epochs=6, max_steps=-1),
    # ------------------------------------------------------------------ divergencia
    _c("divergencia", semilla=331, clases=8, optim="sgd", lr=25.0, max_grad_norm=0.0, scheduler="constant"),
    _c("divergencia", semilla=332, optim="sgd", lr=60.0, max_grad_norm=0.0, scheduler="constant", filtro_nan=False),
    _c("divergencia", semilla=333, tarea="regresion", escala=3.0, optim="sgd", lr=0.8, max_grad_norm=0.0, scheduler="constant"),
    _c("divergencia", semilla=334, lr=4e-3, sin_zero_grad=True, scheduler="constant", max_grad_norm=0.0),
    _c("divergencia", semilla=336, tarea="texto", modelo="bert", lr=3e-3, sin_zero_grad=True, scheduler="constant", max_grad_norm=0.0),
    _c("divergencia", semilla=337, lr=1.5, warmup=0.3, max_grad_norm=0.0, scheduler="constant_with_warmup"),
    _c("divergencia", semilla=338, clases=8, optim="sgd", lr=3.0, lote=8, scheduler="constant", max_grad_norm=0.0),
    # ------------------------------------------------------------------ inestable
    _c("inestable", semilla=341, lr=0.07, lote=8, scheduler="constant"),
    _c("inestable", semilla=342, clases=2, lr=0.12, warmup=0.3, max_grad_norm=0.0),
    _c("inestable", semilla=343, clases=8, optim="sgd", lr=0.6, lote=8, scheduler="constant", max_grad_norm=0.0),
    _c("inestable", semilla=344, tarea="regresion", escala=3.0, lr=0.06, lote=8, scheduler="constant"),
    _c("inestable", semilla=345, lr=4e-2, sin_zero_grad=True, scheduler="constant"),
    _c("inestable", semilla=346, lr=0.2, warmup=0.3, max_grad_norm=0.0),
    _c("inestable", semilla=347, clases=2, capas=2, oculta=128, lr=0.025, lote=8, scheduler="constant", max_grad_norm=0.0),
    _c("inestable", semilla=348, clases=8, lr=0.1, lote=8, scheduler="constant"),
    _c("inestable", semilla=335, clases=2, optim="sgd", lr=1.5e-2, sin_zero_grad=True, scheduler="constant", max_grad_norm=0.0,
       nota="Planeada como divergencia (SGD sin zero_grad); en la revisión a ciegas oscila entre 0.45 y 0.85 y su "
            "último tercio queda a la altura del inicio (0.71 frente a 0.69): inestable."),
    # ------------------------------------------------------------------ indeterminado
    _c("indeterminado", semilla=351, clases=2, max_steps=12, logging_steps=4, eval_steps=4),
    _c("indeterminado", semilla=352, tarea="texto", modelo="llama", eval_strategy="no"),
    _c("indeterminado", semilla=353, clases=8, eval_strategy="epoch", n_entrenamiento=3200, num_train_epochs=1, max_steps=-1),
    _c("indeterminado", semilla=354, tarea="regresion", escala=5.0, eval_strategy="no"),
    _c("indeterminado", semilla=355, tarea="texto", modelo="bert", max_steps=20, logging_steps=5, eval_steps=10),
]


#: Reserva (cuarta ronda, semillas 401+): ajustes nuevos (otros números de clases,
#: escalas, tamaños y lotes), generados y etiquetados mirando solo sus gráficas sin
#: veredicto y sus números, ANTES de pasarles el diagnóstico. No se usan para fijar
#: umbrales.
CORRIDAS_RESERVA = [
    # ------------------------------------------------------------------ sano
    _c("sano", semilla=401, clases=3, oculta=80, lr=3e-3, eval_steps=30),
    _c("sano", semilla=402, clases=5, lote=48, lr=2e-3, scheduler="cosine", max_steps=400, eval_steps=40),
    _c("sano", semilla=403, tarea="regresion", escala=2.0, lr=3e-3, logging_steps=5, eval_steps=25),
    _c("sano", semilla=404, tarea="regresion", escala=50.0, lr=2e-2, max_steps=400, eval_steps=40),
    _c("sano", semilla=405, tarea="texto", modelo="bert", lr=2e-3, max_steps=350, eval_steps=35),
    _c("sano", semilla=406, tarea="texto", modelo="llama", lr=2.5e-3, warmup=0.1, eval_steps=30),
    _c("sano", semilla=407, clases=6, optim="sgd", lr=0.12, scheduler="constant", max_steps=450, eval_steps=45),
    _c("sano", semilla=408, clases=2, eval_strategy="epoch", n_entrenamiento=2000, num_train_epochs=5, max_steps=-1),
    # ------------------------------------------------------------------ sobreajuste
    _c("sobreajuste", semilla=411, clases=3, n_entrenamiento=140, oculta=512, capas=2, ruido_etiquetas=0.3, max_steps=500, lote=16, eval_steps=25, lr=1e-3),
    _c("sobreajuste", semilla=412, clases=5, n_entrenamiento=180, oculta=384, capas=2, ruido_etiquetas=0.25, max_steps=600, lote=16, eval_steps=30, lr=1.5e-3),
    _c("sobreajuste", semilla=413, tarea="texto", modelo="bert", n_entrenamiento=100, ruido_etiquetas=0.3, max_steps=500, lote=16, eval_steps=25, lr=2e-3),
    _c("sobreajuste", semilla=414, tarea="texto", modelo="llama", n_entrenamiento=120, ruido_etiquetas=0.15, max_steps=500, lote=16, eval_steps=25, lr=2e-3),
    _c("sobreajuste", semilla=415, tarea="regresion", escala=2.0, n_entrenamiento=80, oculta=512, capas=2, ruido_etiquetas=0.5, max_steps=500, lote=16, eval_steps=25, lr=1.5e-3),
    _c("sobreajuste", semilla=416, clases=6, n_entrenamiento=72, oculta=512, capas=3, max_steps=400, lote=16, eval_steps=20, lr=1e-3),
    _c("sobreajuste", semilla=417, clases=2, n_entrenamiento=150, oculta=512, capas=2, ruido_etiquetas=0.35, eval_strategy="epoch", num_train_epochs=50, max_steps=-1, lote=16, logging_steps=10, lr=1e-3),
    _c("sobreajuste", semilla=418, tarea="regresion", escala=50.0, n_entrenamiento=40, oculta=256, capas=2, ruido_etiquetas=0.4, max_steps=400, lote=8, eval_steps=20, lr=3e-3),
    # ------------------------------------------------------------------ subajuste
    _c("subajuste", semilla=421, clases=3, lr=3e-6),
    _c("subajuste", semilla=422, clases=5, optim="sgd", lr=2e-4, scheduler="constant"),
    _c("subajuste", semilla=423, tarea="texto", modelo="bert", lr=2e-6, eval_steps=30),
    _c("subajuste", semilla=424, tarea="texto", modelo="llama", lr=4e-6, lote=16, eval_steps=30),
    _c("subajuste", semilla=425, tarea="regresion", escala=50.0, lr=2e-6),
    _c("subajuste", semilla=426, modelo="lineal", clases=2, maestro_par=True, lr=1e-2),
    _c("subajuste", semilla=427, clases=6, weight_decay=150.0, lr=3e-3),
    _c("subajuste", semilla=428, tarea="regresion", escala=2.0, optim="sgd", lr=2e-4, scheduler="constant", eval_strategy="epoch", n_entrenamiento=1600, num_train_epochs=6, max_steps=-1),
    # ------------------------------------------------------------------ divergencia
    _c("divergencia", semilla=431, clases=3, optim="sgd", lr=40.0, max_grad_norm=0.0, scheduler="constant"),
    _c("divergencia", semilla=432, tarea="regresion", escala=2.0, optim="sgd", lr=3.0, max_grad_norm=0.0, scheduler="constant", filtro_nan=False),
    _c("divergencia", semilla=433, clases=5, lr=5e-3, sin_zero_grad=True, scheduler="constant", max_grad_norm=0.0),
    _c("divergencia", semilla=434, tarea="texto", modelo="bert", lr=4e-3, sin_zero_grad=True, scheduler="constant", max_grad_norm=0.0),
    _c("divergencia", semilla=435, clases=6, optim="sgd", lr=2.5e-2, sin_zero_grad=True, scheduler="constant", max_grad_norm=0.0),
    _c("divergencia", semilla=436, clases=3, lr=3.0, warmup=0.3, max_grad_norm=0.0, scheduler="constant_with_warmup"),
    _c("divergencia", semilla=437, tarea="texto", modelo="bert", optim="sgd", lr=2.0, lote=8, scheduler="constant", max_grad_norm=0.0, logging_steps=2, eval_steps=20),
    _c("divergencia", semilla=438, clases=5, optim="sgd", lr=4.0, lote=8, scheduler="constant", max_grad_norm=0.0),
    # ------------------------------------------------------------------ inestable
    _c("inestable", semilla=441, clases=3, lr=0.08, lote=8, scheduler="constant"),
    _c("inestable", semilla=442, clases=5, lr=0.18, warmup=0.3, max_grad_norm=0.0),
    _c("inestable", semilla=443, clases=6, optim="sgd", lr=0.7, lote=8, scheduler="constant", max_grad_norm=0.0),
    _c("inestable", semilla=444, tarea="regresion", escala=2.0, lr=0.07, lote=8, scheduler="constant"),
    _c("inestable", semilla=445, clases=5, lr=3.5e-2, sin_zero_grad=True, scheduler="constant"),
    _c("inestable", semilla=446, clases=3, lr=0.3, warmup=0.3, max_grad_norm=0.0),
    _c("inestable", semilla=447, clases=6, capas=2, oculta=128, lr=0.03, lote=8, scheduler="constant", max_grad_norm=0.0),
    _c("inestable", semilla=448, clases=2, lr=0.09, lote=8, scheduler="constant"),
    # ------------------------------------------------------------------ indeterminado
    _c("indeterminado", semilla=451, clases=5, max_steps=15, logging_steps=5, eval_steps=5),
    _c("indeterminado", semilla=452, tarea="texto", modelo="bert", eval_strategy="no", max_steps=250),
    _c("indeterminado", semilla=453, clases=3, eval_strategy="epoch", n_entrenamiento=3200, num_train_epochs=1, max_steps=-1),
    _c("indeterminado", semilla=454, tarea="regresion", escala=50.0, lr=2e-2, eval_strategy="no"),
    _c("indeterminado", semilla=455, tarea="texto", modelo="llama", max_steps=16, logging_steps=4, eval_steps=8),
    # ------------------------------------------------------------------ segundo lote de la reserva
    _c("sano", semilla=461, oculta=48, lr=4e-3, max_steps=250, logging_steps=5, eval_steps=25),
    _c("sano", semilla=462, clases=3, lote=16, lr=1e-3, max_steps=500, logging_steps=20, eval_steps=50),
    _c("sano", semilla=463, tarea="regresion", escala=0.5, lr=5e-3, scheduler="cosine", eval_steps=30),
    _c("sano", semilla=464, tarea="texto", modelo="bert", lr=1.5e-3, warmup=0.1, max_steps=400, eval_steps=40),
    _c("sano", semilla=465, tarea="texto", modelo="llama", lr=3e-3, max_steps=250, eval_steps=25),
    _c("sano", semilla=466, clases=6, lr=3e-3, lote=64, eval_steps=30),
    _c("sano", semilla=467, tarea="regresion", escala=10.0, optim="sgd", lr=0.05, scheduler="constant", max_steps=400, eval_steps=40),
    _c("sano", semilla=468, clases=5, capas=2, oculta=64, lr=2e-3, max_steps=350, eval_steps=35),
    _c("sano", semilla=486, modelo="lineal", tarea="regresion", escala=0.5, maestro_par=True, lr=5e-3,
       nota="Provocada como subajuste (modelo lineal para una función par), pero la curva baja de 0.55 a 0.25 y "
            "se aplana con entrenamiento ≈ validación: es indistinguible de un entrenamiento que ya convergió. "
            "La curva sola no puede saber que el modelo es demasiado pequeño; se etiqueta por lo que muestra."),
    _c("sano", semilla=504, tarea="regresion", escala=0.5, lr=0.06, lote=8, scheduler="constant",
       nota="Provocada como inestable (lr alta, lotes de 8), pero la pérdida baja de 0.48 a 0.057 con ruido "
            "moderado y la validación casi monótona: no se ve inestabilidad; se etiqueta como sano."),
    _c("sobreajuste", semilla=471, n_entrenamiento=200, oculta=512, capas=2, ruido_etiquetas=0.3, max_steps=600, lote=16, eval_steps=30, lr=8e-4),
    _c("sobreajuste", semilla=472, clases=6, n_entrenamiento=150, oculta=384, capas=2, ruido_etiquetas=0.2, max_steps=500, lote=16, eval_steps=25, lr=1e-3),
    _c("sobreajuste", semilla=473, tarea="texto", modelo="bert", n_entrenamiento=140, ruido_etiquetas=0.2, max_steps=600, lote=16, eval_steps=30, lr=1.5e-3),
    _c("sobreajuste", semilla=474, tarea="texto", modelo="llama", n_entrenamiento=60, ruido_etiquetas=0.25, max_steps=400, lote=16, eval_steps=20, lr=3e-3),
    _c("sobreajuste", semilla=475, tarea="regresion", escala=0.5, n_entrenamiento=60, oculta=512, capas=2, ruido_etiquetas=0.6, max_steps=500, lote=8, eval_steps=25, lr=2e-3),
    _c("sobreajuste", semilla=476, clases=3, n_entrenamiento=48, oculta=512, capas=2, max_steps=400, lote=8, eval_steps=20, lr=2e-3),
    _c("sobreajuste", semilla=477, clases=5, n_entrenamiento=100, oculta=512, capas=2, ruido_etiquetas=0.3, eval_strategy="epoch", num_train_epochs=60, max_steps=-1, lote=16, logging_steps=7, lr=1e-3),
    _c("sobreajuste", semilla=478, tarea="texto", modelo="bert", n_entrenamiento=80, ruido_etiquetas=0.2, max_steps=500, lote=16, eval_steps=25, lr=2.5e-3, scheduler="constant"),
    _c("subajuste", semilla=481, clases=6, lr=5e-6),
    _c("subajuste", semilla=482, clases=3, optim="sgd", lr=3e-4, scheduler="constant"),
    _c("subajuste", semilla=483, tarea="texto", modelo="bert", lr=4e-6, max_steps=250, eval_steps=25),
    _c("subajuste", semilla=484, tarea="texto", modelo="llama", lr=1e-6, eval_steps=30),
    _c("subajuste", semilla=485, tarea="regresion", escala=0.5, lr=4e-6),
    _c("subajuste", semilla=487, weight_decay=250.0, lr=2e-3),
    _c("subajuste", semilla=488, clases=5, lr=3e-6, eval_strategy="epoch", n_entrenamiento=1600, num_train_epochs=6, max_steps=-1),
    _c("divergencia", semilla=491, clases=6, optim="sgd", lr=35.0, max_grad_norm=0.0, scheduler="constant"),
    _c("divergencia", semilla=492, clases=2, optim="sgd", lr=45.0, max_grad_norm=0.0, scheduler="constant", filtro_nan=False),
    _c("divergencia", semilla=493, tarea="regresion", escala=5.0, optim="sgd", lr=0.6, max_grad_norm=0.0, scheduler="constant"),
    _c("divergencia", semilla=494, clases=3, lr=4.5e-3, sin_zero_grad=True, scheduler="constant", max_grad_norm=0.0),
    _c("divergencia", semilla=495, tarea="texto", modelo="llama", lr=3e-3, sin_zero_grad=True, scheduler="constant", max_grad_norm=0.0),
    _c("divergencia", semilla=496, clases=5, optim="sgd", lr=2e-2, sin_zero_grad=True, scheduler="constant", max_grad_norm=0.0),
    _c("divergencia", semilla=497, clases=6, lr=2.5, warmup=0.3, max_grad_norm=0.0, scheduler="constant_with_warmup"),
    _c("divergencia", semilla=498, optim="sgd", lr=3.5, lote=8, scheduler="constant", max_grad_norm=0.0),
    _c("inestable", semilla=501, clases=6, lr=0.07, lote=8, scheduler="constant"),
    _c("inestable", semilla=502, lr=0.14, warmup=0.3, max_grad_norm=0.0),
    _c("inestable", semilla=503, clases=3, optim="sgd", lr=0.9, lote=8, scheduler="constant", max_grad_norm=0.0),
    _c("inestable", semilla=505, clases=3, lr=4e-2, sin_zero_grad=True, scheduler="constant"),
    _c("inestable", semilla=506, clases=6, lr=0.22, warmup=0.3, max_grad_norm=0.0),
    _c("inestable", semilla=507, capas=2, oculta=128, lr=0.03, lote=8, scheduler="constant", max_grad_norm=0.0),
    _c("inestable", semilla=508, clases=5, lr=0.1, lote=8, scheduler="constant"),
    _c("indeterminado", semilla=511, clases=6, max_steps=10, logging_steps=5, eval_steps=5),
    _c("indeterminado", semilla=512, tarea="texto", modelo="llama", eval_strategy="no"),
    _c("indeterminado", semilla=513, tarea="regresion", escala=0.5, eval_strategy="epoch", n_entrenamiento=3200, num_train_epochs=1, max_steps=-1),
    _c("indeterminado", semilla=514, clases=5, eval_strategy="no"),
    _c("indeterminado", semilla=515, clases=3, max_steps=200, logging_steps=40, eval_steps=40),
]


def nombres_de_corridas() -> list[tuple[str, str, dict]]:
    """Devuelve (nombre, categoría, ajustes completos + partición) con nombres ``<categoria>_<nn>``."""
    contador: dict[str, int] = {}
    salida = []
    tandas = (
        ("ajuste", CORRIDAS),
        ("ajuste", CORRIDAS_SEGUNDA_TANDA),
        ("ajuste", CORRIDAS_TERCERA_TANDA),
        ("reserva", CORRIDAS_RESERVA),
    )
    for particion, lista in tandas:
        for categoria, ajustes in lista:
            contador[categoria] = contador.get(categoria, 0) + 1
            n = contador[categoria]
            completos = {**BASE, **ajustes, "particion": particion}
            salida.append((f"{categoria}_{n:02d}", categoria, completos))
    return salida


# --------------------------------------------------------------------------- datos y modelos

def _importar():
    import torch
    from torch import nn

    return torch, nn


def construir_datos(aj: dict, semilla: int):
    """Crea (entrenamiento, validación) de la tarea sintética con esta semilla."""
    torch, _ = _importar()
    g = torch.Generator().manual_seed(1000 + semilla)
    tarea = aj["tarea"]

    class ConjuntoDict(torch.utils.data.Dataset):
        def __init__(self, columnas):
            self.columnas = columnas

        def __len__(self):
            return len(next(iter(self.columnas.values())))

        def __getitem__(self, i):
            return {k: v[i] for k, v in self.columnas.items()}

    n_tr, n_va = aj["n_entrenamiento"], aj["n_validacion"]
    if tarea in ("vectores", "regresion"):
        d, h = 16, 32
        w1 = torch.randn(d, h, generator=g) * (1.5 / math.sqrt(d))
        salidas = aj["clases"] if tarea == "vectores" else 1
        w2 = torch.randn(h, salidas, generator=g) / math.sqrt(h)

        def maestro(x):
            if aj["maestro_par"]:
                # función par: un modelo lineal no puede hacer nada mejor que la media
                z = (x @ w1) ** 2 - 1.0
                return torch.tanh(z) @ w2 * 3.0
            return torch.tanh(x @ w1) @ w2 * 3.0

        x = torch.randn(n_tr + n_va, d, generator=g)
        salida = maestro(x)
        if tarea == "vectores":
            if salidas == 2 and aj["maestro_par"]:
                y = (salida[:, 0] > salida[:, 0].median()).long()
            else:
                y = salida.argmax(1)
            y_tr = y[:n_tr].clone()
            if aj["ruido_etiquetas"] > 0:
                cambia = torch.rand(n_tr, generator=g) < aj["ruido_etiquetas"]
                y_tr[cambia] = torch.randint(0, salidas, (int(cambia.sum()),), generator=g)
            return (
                ConjuntoDict({"x": x[:n_tr], "labels": y_tr}),
                ConjuntoDict({"x": x[n_tr:], "labels": y[n_tr:]}),
            )
        y = salida[:, 0] / salida[:, 0].std() * aj["escala"]
        y_tr = y[:n_tr].clone()
        if aj["ruido_etiquetas"] > 0:
            y_tr += torch.randn(n_tr, generator=g) * aj["ruido_etiquetas"] * aj["escala"]
        return (
            ConjuntoDict({"x": x[:n_tr], "labels": y_tr}),
            ConjuntoDict({"x": x[n_tr:], "labels": y[n_tr:]}),
        )
    # texto
    largo, vocab = 12, 40
    ids = torch.randint(2, vocab, (n_tr + n_va, largo), generator=g)
    pos = ((ids >= 2) & (ids < 12)).sum(1)
    neg = ((ids >= 12) & (ids < 22)).sum(1)
    y = (pos > neg).long()
    y_tr = y[:n_tr].clone()
    if aj["ruido_etiquetas"] > 0:
        cambia = torch.rand(n_tr, generator=g) < aj["ruido_etiquetas"]
        y_tr[cambia] = 1 - y_tr[cambia]
    mascara = torch.ones_like(ids)
    return (
        ConjuntoDict({"input_ids": ids[:n_tr], "attention_mask": mascara[:n_tr], "labels": y_tr}),
        ConjuntoDict({"input_ids": ids[n_tr:], "attention_mask": mascara[n_tr:], "labels": y[n_tr:]}),
    )


def construir_modelo(aj: dict):
    """Modelo diminuto: MLP/lineal de torch envuelto para el Trainer, o BERT/Llama desde config."""
    _, nn = _importar()
    if aj["modelo"] in ("bert", "llama"):
        if aj["modelo"] == "bert":
            from transformers import BertConfig, BertForSequenceClassification

            cfg = BertConfig(
                vocab_size=40, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                intermediate_size=64, max_position_embeddings=16, num_labels=2,
                hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
            )
            return BertForSequenceClassification(cfg)
        from transformers import LlamaConfig, LlamaForSequenceClassification

        cfg = LlamaConfig(
            vocab_size=40, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
            num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=16,
            num_labels=2, pad_token_id=0,
        )
        return LlamaForSequenceClassification(cfg)

    regresion = aj["tarea"] == "regresion"
    salidas = 1 if regresion else aj["clases"]

    class RedPequena(nn.Module):
        """MLP (o modelo lineal) que devuelve ``{"loss", "logits"}`` como un modelo de HF."""

        def __init__(self):
            super().__init__()
            if aj["modelo"] == "lineal":
                self.red = nn.Linear(16, salidas)
            else:
                capas, ancho = [], 16
                for _ in range(aj["capas"]):
                    capas += [nn.Linear(ancho, aj["oculta"]), nn.ReLU()]
                    ancho = aj["oculta"]
                capas.append(nn.Linear(ancho, salidas))
                self.red = nn.Sequential(*capas)

        def forward(self, x, labels=None):
            logits = self.red(x)
            salida = {"logits": logits}
            if labels is not None:
                if regresion:
                    salida["loss"] = nn.functional.mse_loss(logits[:, 0], labels)
                else:
                    salida["loss"] = nn.functional.cross_entropy(logits, labels)
            return salida

    return RedPequena()


def _clase_trainer():
    from transformers import Trainer

    class TrainerSinZeroGrad(Trainer):
        """Trainer que «olvida» ``zero_grad``: los gradientes se suman de un paso al siguiente.

        El bucle interno del Trainer llama a ``model.zero_grad()`` tras cada
        ``optimizer.step()``; aquí esa llamada no hace nada, igual que un bucle
        manual al que le falta ``optimizer.zero_grad()``.
        """

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.model.zero_grad = types.MethodType(lambda self, set_to_none=True: None, self.model)

    return Trainer, TrainerSinZeroGrad


def entrenar(aj: dict, semilla: int, carpeta: str) -> list[dict]:
    """Entrena una corrida y devuelve su ``log_history`` (lista de dicts del Trainer)."""
    from transformers import PrinterCallback, ProgressCallback, TrainingArguments, set_seed

    Trainer, TrainerSinZeroGrad = _clase_trainer()
    set_seed(semilla)
    entrenamiento, validacion = construir_datos(aj, semilla)
    set_seed(semilla)
    modelo = construir_modelo(aj)
    argumentos = dict(
        output_dir=carpeta,
        per_device_train_batch_size=aj["lote"],
        per_device_eval_batch_size=256,
        learning_rate=aj["lr"],
        lr_scheduler_type=aj["scheduler"],
        warmup_steps=aj["warmup"],
        weight_decay=aj["weight_decay"],
        optim=aj["optim"],
        logging_steps=aj["logging_steps"],
        eval_strategy=aj["eval_strategy"],
        save_strategy="no",
        report_to="none",
        use_cpu=True,
        disable_tqdm=True,
        seed=semilla,
        data_seed=semilla,
        max_grad_norm=aj["max_grad_norm"],
        logging_nan_inf_filter=aj["filtro_nan"],
        dataloader_num_workers=0,
        log_level="error",
    )
    if aj["eval_al_inicio"]:
        argumentos["eval_on_start"] = True
    if aj["eval_strategy"] == "steps":
        argumentos["eval_steps"] = aj["eval_steps"]
    if aj["num_train_epochs"] is not None:
        argumentos["num_train_epochs"] = aj["num_train_epochs"]
    if aj["max_steps"] and aj["max_steps"] > 0:
        argumentos["max_steps"] = aj["max_steps"]
    clase = TrainerSinZeroGrad if aj["sin_zero_grad"] else Trainer
    trainer = clase(
        model=modelo,
        args=TrainingArguments(**argumentos),
        train_dataset=entrenamiento,
        eval_dataset=validacion if aj["eval_strategy"] != "no" else None,
    )
    for cb in (PrinterCallback, ProgressCallback):
        trainer.remove_callback(cb)
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        trainer.train()
    return trainer.state.log_history


# --------------------------------------------------------------------------- guardado

def _redondear(valor):
    if isinstance(valor, float):
        if math.isfinite(valor) and valor != 0.0:
            return float(f"{valor:.6g}")
        return valor
    return valor


def limpiar_log(log_history: list[dict]) -> list[dict]:
    """Redondea a 6 cifras significativas y quita los campos de reloj."""
    limpio = []
    for entrada in log_history:
        nueva = {}
        for clave, valor in entrada.items():
            if any(clave.endswith(s) or clave == s for s in CAMPOS_DE_TIEMPO):
                continue
            nueva[clave] = _redondear(valor)
        limpio.append(nueva)
    return limpio


def describir(categoria: str, aj: dict) -> str:
    """Texto corto, en español, de cómo se provocó la corrida."""
    partes = [f"tarea {aj['tarea']}", f"modelo {aj['modelo']}", f"optimizador {aj['optim']} lr={aj['lr']:g}"]
    if aj["sin_zero_grad"]:
        partes.append("sin zero_grad")
    if aj["warmup"]:
        partes.append(f"warmup {aj['warmup']:g}")
    if aj["ruido_etiquetas"]:
        partes.append(f"ruido en etiquetas {aj['ruido_etiquetas']:g}")
    partes.append(f"{aj['n_entrenamiento']} ejemplos")
    if aj["eval_strategy"] == "no":
        partes.append("sin evaluación")
    if not aj["max_grad_norm"]:
        partes.append("sin recorte de gradiente")
    if aj["weight_decay"]:
        partes.append(f"weight_decay {aj['weight_decay']:g}")
    return f"{categoria}: " + ", ".join(partes)


def guardar(nombre: str, categoria: str, aj: dict, log_history: list[dict], carpeta: Path) -> Path:
    """Escribe ``<carpeta>/<nombre>.json`` con etiqueta, semilla, ajustes y log."""
    ajustes = {k: v for k, v in aj.items() if k not in ("semilla", "nota", "particion")}
    documento = {
        "categoria": categoria,
        "particion": aj["particion"],
        "semilla": aj["semilla"],
        "descripcion": describir(categoria, aj),
        "ajustes": ajustes,
        "log_history": limpiar_log(log_history),
    }
    if aj.get("nota"):
        documento["nota"] = aj["nota"]
    ruta = carpeta / f"{nombre}.json"
    texto = json.dumps(documento, ensure_ascii=False, separators=(",", ":"), allow_nan=True)
    ruta.write_text(texto + "\n", encoding="utf-8")
    return ruta


def _preparar_proceso() -> None:
    import torch

    torch.set_num_threads(1)  # modelos diminutos: un hilo por proceso es lo más rápido
    logging.getLogger("transformers").setLevel(logging.ERROR)


def _generar_una(tarea: tuple[str, str, dict, str, str | None]) -> tuple[str, float, int]:
    """Entrena y guarda una corrida (se ejecuta en un proceso aparte si hay varios)."""
    nombre, categoria, aj, salida, graficas = tarea
    _preparar_proceso()
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        log = entrenar(aj, aj["semilla"], tmp)
    ruta = guardar(nombre, categoria, aj, log, Path(salida))
    if graficas:
        sys.path.insert(0, str(RAIZ))
        from tutor_lib.curvas import graficar

        Path(graficas).mkdir(parents=True, exist_ok=True)
        # sin veredicto: la etiqueta se revisa a ciegas, sin ver lo que dice el diagnóstico
        fig = graficar(ruta, con_veredicto=False)
        fig.axes[0].set_title(f"{nombre} (etiqueta: {categoria})", fontsize=9)
        fig.savefig(Path(graficas) / f"{nombre}.png", dpi=70)
    return nombre, time.time() - t0, ruta.stat().st_size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Genera el corpus de curvas etiquetadas.")
    parser.add_argument("--salida", type=Path, default=CARPETA_CORPUS)
    parser.add_argument("--solo", nargs="*", help="nombres de corridas (p. ej. sano_01)")
    parser.add_argument("--particion", choices=("ajuste", "reserva"), help="genera solo esa partición")
    parser.add_argument(
        "--graficas", type=Path, help="carpeta donde guardar un PNG por curva (sin veredicto, para revisar etiquetas)"
    )
    parser.add_argument(
        "--procesos", type=int, default=min(2, os.cpu_count() or 1),
        help="corridas en paralelo, una por núcleo (por defecto 2); el resultado no cambia",
    )
    args = parser.parse_args(argv)

    args.salida.mkdir(parents=True, exist_ok=True)
    if not args.solo and not args.particion:
        # corpus completo: fuera los JSON viejos de corridas que ya no existen
        for viejo in args.salida.glob("*_[0-9][0-9].json"):
            viejo.unlink()
    tareas = [
        (nombre, categoria, aj, str(args.salida), str(args.graficas) if args.graficas else None)
        for nombre, categoria, aj in nombres_de_corridas()
        if not (args.solo and nombre not in args.solo)
        and not (args.particion and aj["particion"] != args.particion)
    ]
    inicio = time.time()
    if args.procesos > 1 and len(tareas) > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        contexto = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=args.procesos, mp_context=contexto) as grupo:
            resultados = grupo.map(_generar_una, tareas)
            for nombre, segundos, tamano in resultados:
                print(f"{nombre:18s} {segundos:6.1f} s  {tamano / 1024:5.1f} KiB", flush=True)
    else:
        for tarea in tareas:
            nombre, segundos, tamano = _generar_una(tarea)
            print(f"{nombre:18s} {segundos:6.1f} s  {tamano / 1024:5.1f} KiB", flush=True)
    print(f"Total: {len(tareas)} corridas en {time.time() - inicio:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
