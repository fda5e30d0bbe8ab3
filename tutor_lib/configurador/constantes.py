"""Constantes del configurador: opciones válidas, modelos de referencia, fuentes y rangos de las reglas.

Son los umbrales que aplican :mod:`tutor_lib.configurador.reglas` y
:mod:`tutor_lib.configurador.reglas_gpu`, y las opciones de ``tutor configurar``.
Se usa en lessons/04_warmup_y_regularizacion.
"""

from __future__ import annotations

from dataclasses import dataclass


METODOS: tuple[str, ...] = ("completo", "lora", "qlora", "sft")
"""``completo``: se entrenan todos los pesos; ``lora``/``qlora``: solo adaptadores
(QLoRA con el modelo base en 4 bits); ``sft``: ajuste supervisado completo de un
modelo causal con ``trl.SFTTrainer``."""

TAREAS: tuple[str, ...] = ("clasificacion", "causal")
PRECISIONES: tuple[str, ...] = ("fp32", "fp16", "bf16")
ESTRATEGIAS_EVAL: tuple[str, ...] = ("no", "steps", "epoch")
ESTRATEGIAS_GUARDADO: tuple[str, ...] = ("no", "steps", "epoch", "best")
NIVELES: tuple[str, ...] = ("ok", "aviso", "error")

#: Valor de ``logging_steps`` cuando no lo das (transformers 5: 500).
LOGGING_STEPS_POR_DEFECTO = 500
#: Valor de ``save_steps`` cuando no lo das (transformers 5: 500).
SAVE_STEPS_POR_DEFECTO = 500
#: r y lora_alpha cuando no los das (los de la lección de LoRA/QLoRA con trl).
R_POR_DEFECTO = 16
ALPHA_POR_DEFECTO = 32
#: Longitud de secuencia por defecto (tokens) para estimar activaciones.
SECUENCIA_POR_DEFECTO = {"clasificacion": 128, "causal": 1024}
#: Desde cuántos parámetros se supone un modelo causal si no das ``tarea``.
UMBRAL_CAUSAL = 1_000_000_000

#: Modelos de referencia (widget y ``tutor configurar --parametros distilbert``):
#: clave → (etiqueta, parámetros exactos con su cabeza, tarea).
MODELOS: dict[str, tuple[str, int, str]] = {
    "distilbert": ("DistilBERT (66 M)", 66_955_010, "clasificacion"),
    "bert-base": ("BERT-base (110 M)", 109_483_778, "clasificacion"),
    "llama-3.2-1b": ("Llama-3.2-1B (1.2 B)", 1_235_814_400, "causal"),
    "llama-3-8b": ("Llama-3-8B (8 B)", 8_030_261_248, "causal"),
}

FUENTES: dict[str, str] = {
    "bert": "Devlin et al. 2019, BERT, apéndice A.3 (lr 2e-5 a 5e-5, 2 a 4 épocas, lote 16 o 32)",
    "roberta": "Liu et al. 2019, RoBERTa, tabla 10 (lr 1e-5 a 3e-5, warmup del 6 %, weight decay 0.1)",
    "lora": "Hu et al. 2021, LoRA (RoBERTa en GLUE: lr 4e-4 a 5e-4, lote 16, decenas de épocas; GPT-2: lr 2e-4)",
    "qlora": (
        "Dettmers et al. 2023, QLoRA (lr 2e-4 hasta 13B y 1e-4 en 33B/65B, lote 16 a 64, "
        "max_grad_norm 0.3, optimizadores paginados)"
    ),
    "alpaca": "Taori et al. 2023, Stanford Alpaca (SFT completo de LLaMA-7B: lr 2e-5, 3 épocas, lote 128)",
    "playbook": "Godbole et al. 2023, Deep Learning Tuning Playbook (Google Research)",
    "adamw": "Loshchilov y Hutter 2019, AdamW: weight decay desacoplado",
    "pascanu": "Pascanu et al. 2013, recorte de la norma del gradiente",
    "warmup": (
        "BERT (run_classifier.py: warmup del 10 %), RoBERTa y LoRA (6 %), repositorio de QLoRA (3 %); "
        "transformers 5: warmup_steps float en [0, 1) es una fracción"
    ),
    "transformers": "Documentación de transformers 5: TrainingArguments",
    "transformers_validacion": "transformers 5: TrainingArguments.__post_init__ lanza ValueError",
    "transformers_trainer": "transformers 5: Trainer.__init__ lanza ValueError",
    "callback": "transformers 5: EarlyStoppingCallback.on_train_begin",
    "scheduler": "transformers 5: get_scheduler ('constant' no usa num_warmup_steps)",
    "nvidia": "NVIDIA: bf16 nativo desde Ampere (capacidad de cómputo 8.0); la T4 es 7.5",
    "cpu": "transformers 5 y accelerate: en CPU fp16 se ignora; bf16 exige use_cpu=True",
    "vram": "tutor_lib.vram: pesos, gradientes, estados del optimizador y activaciones",
}


@dataclass(frozen=True)
class RangoLR:
    """Rango de tasas de aprendizaje sin aviso para un método, con su fuente."""

    minimo: float
    maximo: float
    tipica: float
    fuente: str


#: (método, tarea) → rango de lr. ``sft`` siempre es causal.
RANGOS_LR: dict[tuple[str, str], RangoLR] = {
    ("completo", "clasificacion"): RangoLR(1e-5, 1e-4, 2e-5, FUENTES["bert"]),
    ("completo", "causal"): RangoLR(5e-6, 5e-5, 2e-5, FUENTES["alpaca"]),
    ("sft", "causal"): RangoLR(5e-6, 5e-5, 2e-5, FUENTES["alpaca"]),
    ("lora", "clasificacion"): RangoLR(5e-5, 5e-4, 4e-4, FUENTES["lora"]),
    ("lora", "causal"): RangoLR(5e-5, 5e-4, 2e-4, FUENTES["lora"]),
    ("qlora", "clasificacion"): RangoLR(1e-5, 5e-4, 2e-4, FUENTES["qlora"]),
    ("qlora", "causal"): RangoLR(1e-5, 5e-4, 2e-4, FUENTES["qlora"]),
}

#: Fracción de warmup sin aviso (3 % a 10 % de los pasos totales).
WARMUP_MINIMO, WARMUP_MAXIMO = 0.03, 0.10
#: Lote efectivo sin aviso.
LOTE_EFECTIVO_MINIMO, LOTE_EFECTIVO_MAXIMO = 8, 256
#: Por debajo de estos ejemplos se acepta no usar warmup y más épocas.
POCOS_EJEMPLOS = 1000
#: Desde estos ejemplos un LLM rara vez necesita más de 3 épocas.
MUCHOS_EJEMPLOS_LLM = 5000
#: Número de registros (líneas de loss) deseable durante el entrenamiento.
REGISTROS_MINIMOS, REGISTROS_MAXIMOS = 5, 2000
#: Fracción de la memoria de la GPU a partir de la cual avisamos.
MEMORIA_JUSTA = 0.90
