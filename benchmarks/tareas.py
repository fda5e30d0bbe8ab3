"""Tareas medibles que comparten las pruebas y la tabla de benchmarks.

``python -m benchmarks.tareas [MODELO [CARPETA [SEMILLA]]]`` corre el ajuste rápido en un proceso propio y
imprime su resultado en JSON (así la tabla mide la memoria máxima de cada modelo por
separado).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

#: Modelos que compara la tabla: el del modo rápido y all-MiniLM-L6-v2, el modelo inglés que usaba antes.
CANDIDATOS = ("multilingual-e5-small", "all-MiniLM-L6-v2")


@dataclass
class ResultadoAjuste:
    modelo: str
    exactitud_validacion: float
    exactitud_antes: float
    exactitud_entrenamiento: float
    exactitud_nuevas: float
    precision: str
    segundos: float
    pasos: int
    ejemplos_entrenamiento: int
    parametros: int
    entrenables: int
    memoria_maxima_mib: float


def leer_resenas_nuevas() -> tuple[list[str], list[int]]:
    from tutor_lib import recursos

    nuevas = recursos.cargar_resenas_nuevas()
    return list(nuevas["text"]), [int(e) for e in nuevas["label"]]


def _cargar(modelo: str):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from tutor_lib import recursos

    rutas = {"multilingual-e5-small": recursos.ruta_e5, "all-MiniLM-L6-v2": recursos.ruta_minilm}
    if modelo not in rutas:
        raise ValueError(f"Modelo desconocido {modelo!r}; usa uno de {CANDIDATOS}.")
    ruta = rutas[modelo]()
    return AutoTokenizer.from_pretrained(ruta), AutoModelForSequenceClassification.from_pretrained(ruta, num_labels=2)


def receta_de(modelo: str):
    """La receta de cada candidato: la del modo rápido (e5) y la que usaba MiniLM cuando era el modelo rápido."""
    from tutor_lib import recursos

    return recursos.RECETA_E5 if modelo == "multilingual-e5-small" else recursos.RECETA_MINILM


def ajustar_resenas(modelo: str = "multilingual-e5-small", carpeta: str = "/tmp/tutor_ajuste_resenas",
                    semilla: int = 42) -> ResultadoAjuste:
    """El ajuste rápido de ``modelo`` (con ``receta_de(modelo)``) sobre ``resenas``, en CPU.

    Es la prueba de humo del curso: si este ajuste no aprende, ninguna lección que
    entrene un clasificador en modo rápido tiene sentido. Mide la exactitud en
    validación antes y después, en entrenamiento después, y en las reseñas nuevas
    (``recursos.cargar_resenas_nuevas``). Los segundos son solo los del entrenamiento, con la
    precisión de ``entorno.precision_cpu`` (bf16 si la CPU lo tiene por hardware).
    """
    import resource

    import numpy as np
    from transformers import DataCollatorWithPadding, Trainer, TrainingArguments

    from tutor_lib import entorno, recursos

    receta = receta_de(modelo)
    precision = entorno.precision_cpu()  # la misma regla que la lección 03
    entorno.fijar_semilla(semilla)
    datos = recursos.cargar_dataset("resenas", modo="rapido")
    tokenizer, red = _cargar(modelo)
    if receta.congelar_embeddings:
        recursos.congelar_embeddings(red)

    def tokenizar(lote_):
        return tokenizer(lote_["text"], truncation=True, max_length=receta.max_length)

    columnas = [c for c in datos["train"].column_names if c != "label"]
    datos = datos.map(tokenizar, batched=True, remove_columns=columnas)
    if receta.muestras_entrenamiento is not None:
        datos["train"] = datos["train"].shuffle(seed=0).select(range(receta.muestras_entrenamiento))
    metrica = recursos.MetricaLocal("accuracy")

    def calcular_metricas(pred):
        logits, etiquetas = pred
        return metrica.compute(predictions=np.argmax(logits, axis=-1), references=etiquetas)

    argumentos = TrainingArguments(
        output_dir=carpeta,
        num_train_epochs=receta.epocas,
        per_device_train_batch_size=receta.lote,
        per_device_eval_batch_size=64,
        learning_rate=receta.learning_rate,
        warmup_steps=0.1,
        weight_decay=0.01,
        train_sampling_strategy="group_by_length",
        eval_strategy="no",
        save_strategy="no",
        logging_steps=10,
        report_to="none",
        use_cpu=True,
        bf16=precision == "bf16",
        seed=semilla,
        disable_tqdm=True,
    )
    trainer = Trainer(
        model=red,
        args=argumentos,
        train_dataset=datos["train"],
        eval_dataset=datos["validation"],
        processing_class=tokenizer,
        data_collator=DataCollatorWithPadding(tokenizer),
        compute_metrics=calcular_metricas,
    )
    antes = trainer.evaluate()["eval_accuracy"]
    inicio = time.perf_counter()
    trainer.train()
    segundos = time.perf_counter() - inicio
    despues = trainer.evaluate()["eval_accuracy"]
    en_entrenamiento = trainer.evaluate(datos["train"])["eval_accuracy"]
    textos, etiquetas = leer_resenas_nuevas()
    nuevas = datos["train"].from_dict(dict(tokenizer(textos, truncation=True, max_length=receta.max_length),
                                           label=etiquetas))
    en_nuevas = trainer.evaluate(nuevas)["eval_accuracy"]
    memoria = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB → MiB (Linux)
    return ResultadoAjuste(
        modelo, despues, antes, en_entrenamiento, en_nuevas, precision, segundos, trainer.state.global_step,
        len(datos["train"]), recursos.contar_parametros(red), recursos.contar_entrenables(red), memoria,
    )


def ajustar_en_proceso(modelo: str, carpeta: str, semilla: int = 42, precision: str | None = None) -> ResultadoAjuste:
    """``ajustar_resenas`` en un proceso de Python nuevo: memoria máxima propia y los hilos de torch por defecto.

    Las pruebas lo usan así porque otra prueba del mismo proceso puede haber bajado los
    hilos de torch a uno (``torch.set_num_threads``) y el ajuste tardaría el doble.
    ``precision`` ('bf16' o 'fp32') fija ``TUTOR_PRECISION_CPU`` en ese proceso; sin ella,
    decide ``entorno.precision_cpu``.
    """
    import os
    import subprocess

    entorno_hijo = {**os.environ, "TUTOR_MODO": "rapido", "HF_HUB_OFFLINE": "1"}
    if precision is not None:
        entorno_hijo["TUTOR_PRECISION_CPU"] = precision
    proceso = subprocess.run(
        [sys.executable, "-m", "benchmarks.tareas", modelo, carpeta, str(semilla)], capture_output=True, text=True,
        timeout=1800, cwd=Path(__file__).resolve().parents[1], env=entorno_hijo,
    )
    linea = [l for l in proceso.stdout.splitlines() if l.startswith("RESULTADO ")]
    if proceso.returncode or not linea:
        raise RuntimeError(f"el ajuste de {modelo} falló: {proceso.stderr[-800:]}")
    return ResultadoAjuste(**json.loads(linea[-1][len("RESULTADO "):]))


if __name__ == "__main__":
    import os

    os.environ.setdefault("TUTOR_MODO", "rapido")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    argumentos = sys.argv[1:] + [CANDIDATOS[0], "/tmp/tutor_ajuste_resenas", "42"][len(sys.argv) - 1:]
    resultado = ajustar_resenas(argumentos[0], carpeta=argumentos[1], semilla=int(argumentos[2]))
    print("RESULTADO " + json.dumps(asdict(resultado)))
