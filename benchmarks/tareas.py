"""Tareas medibles que comparten las pruebas y la tabla de benchmarks."""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass
class ResultadoAjuste:
    exactitud_validacion: float
    exactitud_antes: float
    exactitud_entrenamiento: float
    segundos: float
    pasos: int
    ejemplos_entrenamiento: int


def ajustar_resenas(epocas: float = 2.0, lote: int = 16, lr: float = 1e-4, max_length: int = 128,
                    carpeta: str = "/tmp/tutor_ajuste_resenas", semilla: int = 42) -> ResultadoAjuste:
    """Fine-tuning en modo rápido de all-MiniLM-L6-v2 sobre ``resenas`` (CPU).

    Es la prueba de humo del curso: si este ajuste no aprende, ninguna lección
    que entrene un clasificador en modo rápido tiene sentido. Mide la exactitud en
    validación antes y después, y en entrenamiento después (cuánto se ajustó).
    all-MiniLM-L6-v2 es un modelo inglés: generaliza poco a reseñas en español.
    """
    import numpy as np
    from transformers import DataCollatorWithPadding, Trainer, TrainingArguments

    from tutor_lib import entorno, recursos

    entorno.fijar_semilla(semilla)
    datos = recursos.cargar_dataset("resenas", modo="rapido")
    tokenizer, modelo = recursos.cargar_clasificador(num_labels=2, modo="rapido")

    def tokenizar(lote_):
        return tokenizer(lote_["text"], truncation=True, max_length=max_length)

    datos = datos.map(tokenizar, batched=True, remove_columns=[c for c in datos["train"].column_names if c != "label"])
    metrica = recursos.MetricaLocal("accuracy")

    def calcular_metricas(pred):
        logits, etiquetas = pred
        return metrica.compute(predictions=np.argmax(logits, axis=-1), references=etiquetas)

    argumentos = TrainingArguments(
        output_dir=carpeta,
        num_train_epochs=epocas,
        per_device_train_batch_size=lote,
        per_device_eval_batch_size=64,
        learning_rate=lr,
        warmup_steps=0.1,
        weight_decay=0.01,
        eval_strategy="no",
        save_strategy="no",
        logging_steps=10,
        report_to="none",
        use_cpu=True,
        seed=semilla,
        disable_tqdm=True,
    )
    trainer = Trainer(
        model=modelo,
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
    return ResultadoAjuste(despues, antes, en_entrenamiento, segundos, trainer.state.global_step, len(datos["train"]))
