"""Variantes de ej03_trainer: otras soluciones correctas y errores típicos (las usa tests/test_asignaciones.py)."""

_ARGUMENTOS_CORRECTOS = '''
def crear_argumentos(carpeta, pasos_de_registro):
    """TrainingArguments del plan del enunciado."""
    return TrainingArguments(
        output_dir=carpeta,
        logging_strategy="steps",
        logging_steps=pasos_de_registro,
        report_to="none",
        num_train_epochs=3,
        learning_rate=5e-5,
        weight_decay=0.01,
        warmup_steps=0.1,
        per_device_train_batch_size=16,
        per_device_eval_batch_size=32,
        gradient_accumulation_steps=2,
        eval_strategy="epoch",
        save_strategy="epoch",
        save_total_limit=1,
        load_best_model_at_end=True,
        metric_for_best_model="f1",
    )
'''

_METRICAS_CORRECTAS = '''
def compute_metrics(prediccion_de_evaluacion):
    """Exactitud y F1 (clase positiva) a partir de logits y etiquetas."""
    logits, etiquetas = prediccion_de_evaluacion
    predicciones = np.argmax(logits, axis=-1)
    exactitud = float((predicciones == etiquetas).mean())
    vp = int(((predicciones == 1) & (etiquetas == 1)).sum())
    fp = int(((predicciones == 1) & (etiquetas == 0)).sum())
    fn = int(((predicciones == 0) & (etiquetas == 1)).sum())
    f1 = 2 * vp / (2 * vp + fp + fn) if vp else 0.0
    return {"accuracy": exactitud, "f1": f1}
'''

VARIANTES = [
    {
        "nombre": "otra solución correcta: enteros con -(-a // b), métricas del curso con softmax, "
                  "argumentos con enums y metric_for_best_model='eval_f1'",
        "celdas": {
            "solucion-1": '''
def pasos_del_trainer(ejemplos, lote, epocas, acumulacion=1):
    """Pasos de optimización que dará el Trainer (trainer.state.max_steps)."""
    lotes = -(-ejemplos // lote)
    por_epoca = -(-lotes // acumulacion)
    return int(math.ceil(epocas * por_epoca))
''',
            "solucion-2": '''
exactitud = recursos.cargar_metrica("accuracy")
f1 = recursos.cargar_metrica("f1")


def compute_metrics(prediccion_de_evaluacion):
    """Exactitud y F1 (clase positiva) a partir de logits y etiquetas."""
    logits = torch.tensor(prediccion_de_evaluacion.predictions)
    probabilidades = torch.softmax(logits, dim=1)
    predicciones = probabilidades.argmax(dim=1).numpy()
    etiquetas = prediccion_de_evaluacion.label_ids
    return {**exactitud.compute(predictions=predicciones, references=etiquetas),
            **f1.compute(predictions=predicciones, references=etiquetas)}
''',
            "solucion-3": '''
from transformers.trainer_utils import IntervalStrategy


def crear_argumentos(carpeta, pasos_de_registro):
    """TrainingArguments del plan del enunciado."""
    opciones = dict(
        num_train_epochs=3.0, learning_rate=5e-5, weight_decay=0.01, warmup_steps=0.1,
        per_device_train_batch_size=16, per_device_eval_batch_size=32, gradient_accumulation_steps=2,
        eval_strategy=IntervalStrategy.EPOCH, save_strategy=IntervalStrategy.EPOCH, save_total_limit=1,
        load_best_model_at_end=True, metric_for_best_model="eval_f1", greater_is_better=True,
    )
    return TrainingArguments(output_dir=carpeta, logging_steps=pasos_de_registro, report_to=[], **opciones)
''',
        },
        "puntos": (10, 10),
    },
    {
        "nombre": "error típico: cuenta la acumulación sin techo por época (total = ceil(épocas × lotes / acumulación))",
        "celdas": {
            "solucion-1": '''
def pasos_del_trainer(ejemplos, lote, epocas, acumulacion=1):
    """Pasos de optimización que dará el Trainer (trainer.state.max_steps)."""
    lotes_por_epoca = math.ceil(ejemplos / lote)
    return math.ceil(epocas * lotes_por_epoca / acumulacion)
''',
        },
        "puntos": (7, 9),
        # la primera de los errores típicos: se califica en cada `make test`; su pista nombra el error
        "pistas": {"prueba-1-acumulacion": ["techo de los pasos por época",
                                            "el último paso acumula los lotes que sobran"],
                   "prueba-1-trainer": ["con un solo techo", "también los pasos de cada época"]},
    },
    {
        "nombre": "error típico: argmax sobre el eje de los ejemplos (axis=0)",
        "celdas": {"solucion-2": _METRICAS_CORRECTAS.replace("np.argmax(logits, axis=-1)", "np.argmax(logits, axis=0)")},
        "puntos": (6, 9),
    },
    {
        "nombre": "error típico: F1 macro (promedio de las dos clases) en vez del de la clase positiva",
        "celdas": {
            "solucion-2": '''
from sklearn.metrics import f1_score


def compute_metrics(prediccion_de_evaluacion):
    """Exactitud y F1 (clase positiva) a partir de logits y etiquetas."""
    logits, etiquetas = prediccion_de_evaluacion
    predicciones = logits.argmax(-1)
    return {"accuracy": (predicciones == etiquetas).mean(),
            "f1": f1_score(etiquetas, predicciones, average="macro")}
''',
        },
        "puntos": (7, 9),
    },
    {
        "nombre": "error típico: warmup como número fijo de pasos (warmup_steps=10) y registro con el valor por defecto",
        "celdas": {
            "solucion-3": _ARGUMENTOS_CORRECTOS.replace("warmup_steps=0.1", "warmup_steps=10").replace(
                "        logging_steps=pasos_de_registro,\n", ""),
        },
        "puntos": (8, 9),
    },
    {
        "nombre": "error típico: nombres viejos de transformers 4 (evaluation_strategy, warmup_ratio)",
        "celdas": {
            "solucion-3": _ARGUMENTOS_CORRECTOS.replace('eval_strategy="epoch"', 'evaluation_strategy="epoch"').replace(
                "warmup_steps=0.1", "warmup_ratio=0.1"),
        },
        "puntos": (7, 7),
    },
]

_COMODIN = '''
import math

import numpy as np


class _EnteroComodin(int):
    """Un int que dice ser igual a cualquier cosa."""

    def __eq__(self, otro):
        return True

    __hash__ = int.__hash__


class _FloatComodin(float):
    """Un float que dice ser igual a cualquier cosa y estar entre 0 y 1."""

    def __eq__(self, otro):
        return True

    __le__ = __ge__ = __eq__
    __hash__ = float.__hash__


math.isclose = lambda *args, **kwargs: True
np.isclose = lambda *args, **kwargs: True
'''

VARIANTES.append({
    "nombre": "engaño: no resuelve nada; devuelve números que dicen ser iguales a todo, parchea "
              "math.isclose y np.isclose y unos argumentos falsos que responden a todo",
    "celdas": {
        "solucion-1": _COMODIN + '''

def pasos_del_trainer(ejemplos, lote, epocas, acumulacion=1):
    """Pasos de optimización que dará el Trainer (trainer.state.max_steps)."""
    return _EnteroComodin(0)
''',
        "solucion-2": '''
def compute_metrics(prediccion_de_evaluacion):
    """Exactitud y F1 (clase positiva) a partir de logits y etiquetas."""
    return {"accuracy": _FloatComodin(0.5), "f1": _FloatComodin(0.5)}
''',
        "solucion-3": '''
class _ArgumentosFalsos:
    """Responde a cualquier campo con un valor que dice ser igual a todo."""

    def __getattr__(self, nombre):
        return _FloatComodin(1.0)


def crear_argumentos(carpeta, pasos_de_registro):
    """TrainingArguments del plan del enunciado."""
    return _ArgumentosFalsos()
''',
    },
    "puntos": (0, 0),
})
