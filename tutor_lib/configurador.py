"""Configurador de hiperparámetros: reglas (puras) → hallazgos + ``TrainingArguments``/``SFTConfig``.

Le das lo que piensas poner en ``TrainingArguments`` (método, tamaño del
modelo y de los datos, tasa de aprendizaje, lote, épocas, warmup, precisión,
GPU, estrategias de evaluación y guardado...) y :func:`revisar_configuracion`
te devuelve una :class:`Revision`: una lista de :class:`Hallazgo` (``ok``,
``aviso`` o ``error``), cada uno con el parámetro de ``TrainingArguments`` al
que se refiere, qué pasa y qué hacer, y la fuente en la que se apoya (artículo,
guía o código de transformers), más las cifras derivadas: pasos por época,
pasos totales, pasos de warmup, lote efectivo y memoria estimada.

* :func:`revisar_configuracion`: las reglas (puras; una revisión tarda menos de un milisegundo).
* :func:`argumentos_de_entrenamiento`: el diccionario de argumentos con los
  nombres actuales de transformers 5 (``eval_strategy``, ``warmup_steps``
  float, ``use_cpu``...).
* :func:`construir_training_arguments`, :func:`construir_sft_config`: los
  objetos reales de transformers y trl.
* :func:`codigo_python`: el mismo resultado como código para pegar en un notebook.
* :func:`widget_configurador`: el widget de la lección (capa fina encima).

Los pasos se cuentan con :mod:`tutor_lib.warmup` (igual que el ``Trainer``) y
la memoria con :mod:`tutor_lib.vram`. Se usa en lessons/04_warmup_y_regularizacion.

Los rangos de las reglas vienen de estas fuentes (ver :data:`FUENTES`):

==========================  =================  ===========================================
método / tarea              lr sin aviso       fuente
==========================  =================  ===========================================
completo / clasificación    1e-5 … 1e-4        BERT (2e-5…5e-5), RoBERTa (1e-5…3e-5)
completo / causal, ``sft``  5e-6 … 5e-5        Stanford Alpaca (2e-5)
``lora``                    5e-5 … 5e-4        LoRA (4e-4…5e-4 en RoBERTa, 2e-4 en GPT-2)
``qlora``                   1e-5 … 5e-4        QLoRA (2e-4 hasta 13B; 1e-4 en 33B/65B)
==========================  =================  ===========================================

Una tasa más de 10 veces por encima del máximo es un ``error``; fuera del
rango, un ``aviso``.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from dataclasses import dataclass
from typing import Any, Iterable

from tutor_lib import warmup as _warmup

# --------------------------------------------------------------------------
# Constantes: opciones válidas, fuentes y rangos
# --------------------------------------------------------------------------

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
    "llama-3.2-1b": ("Llama-3.2-1B (1,2 B)", 1_235_814_400, "causal"),
    "llama-3-8b": ("Llama-3-8B (8 B)", 8_030_261_248, "causal"),
}

FUENTES: dict[str, str] = {
    "bert": "Devlin et al. 2019, BERT, apéndice A.3 (lr 2e-5 a 5e-5, 2 a 4 épocas, lote 16 o 32)",
    "roberta": "Liu et al. 2019, RoBERTa, tabla 10 (lr 1e-5 a 3e-5, warmup del 6 %, weight decay 0,1)",
    "lora": "Hu et al. 2021, LoRA (RoBERTa en GLUE: lr 4e-4 a 5e-4, lote 16, decenas de épocas; GPT-2: lr 2e-4)",
    "qlora": (
        "Dettmers et al. 2023, QLoRA (lr 2e-4 hasta 13B y 1e-4 en 33B/65B, lote 16 a 64, "
        "max_grad_norm 0,3, optimizadores paginados)"
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


# --------------------------------------------------------------------------
# Tipos de datos
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Hallazgo:
    """Un resultado de la revisión.

    ``nivel``: ``"ok"``, ``"aviso"`` o ``"error"``; ``parametro``: el campo de
    ``TrainingArguments`` (u otra pieza: ``"memoria"``, ``"EarlyStoppingCallback"``,
    ``"lora_alpha"``) al que se refiere; ``mensaje``: qué pasa y qué hacer;
    ``fuente``: en qué se apoya la regla.
    """

    nivel: str
    parametro: str
    mensaje: str
    fuente: str

    def a_dict(self) -> dict[str, str]:
        """El hallazgo como diccionario (para ``--json``)."""
        return {"nivel": self.nivel, "parametro": self.parametro, "mensaje": self.mensaje, "fuente": self.fuente}


@dataclass(frozen=True)
class Configuracion:
    """Lo que piensas pasar a ``TrainingArguments``, ya validado.

    Los nombres son los del curso (``lr``, ``lote``, ``epocas``...) salvo los
    que copian tal cual un argumento de transformers (``weight_decay``,
    ``logging_steps``, ``eval_strategy``...). ``None`` significa «no lo pongo»:
    se usa el valor por defecto de transformers 5 o uno deducido (ver cada
    regla). Se usa en lessons/04_warmup_y_regularizacion.
    """

    metodo: str = "completo"
    parametros: int = MODELOS["distilbert"][1]
    ejemplos: int = 1000
    lr: float = 2e-5
    lote: int = 16
    acumulacion: int = 1
    dispositivos: int = 1
    epocas: float = 3.0
    warmup: int | float = 0
    weight_decay: float = 0.0
    max_grad_norm: float | None = 1.0
    precision: str | None = None
    gpu: Any = None
    logging_steps: int | float | None = None
    eval_strategy: str = "no"
    eval_steps: int | float | None = None
    save_strategy: str = "steps"
    save_steps: int | float | None = None
    load_best_model_at_end: bool = False
    metric_for_best_model: str | None = None
    paciencia: int | None = None
    r: int | None = None
    lora_alpha: float | None = None
    tarea: str | None = None
    secuencia: int | None = None
    checkpointing: bool | None = None
    scheduler: str | None = None
    max_pasos: int = -1

    def __post_init__(self) -> None:
        poner = object.__setattr__
        poner(self, "metodo", _opcion("metodo", self.metodo, METODOS))
        poner(self, "parametros", _parametros(self.parametros))
        poner(self, "ejemplos", _entero("ejemplos", self.ejemplos, 1, 10**12))
        poner(self, "lr", _real("lr (tasa de aprendizaje)", self.lr, 0.0, 1.0, minimo_incluido=False))
        poner(self, "lote", _entero("lote", self.lote, 1, 65536))
        poner(self, "acumulacion", _entero("acumulacion", self.acumulacion, 1, 65536))
        poner(self, "dispositivos", _entero("dispositivos", self.dispositivos, 1, 65536))
        poner(self, "epocas", _real("epocas", self.epocas, 0.0, 10000.0, minimo_incluido=False))
        poner(self, "warmup", _warmup_valido(self.warmup))
        poner(self, "weight_decay", _real("weight_decay", self.weight_decay, 0.0, 100.0))
        if self.max_grad_norm is not None:
            poner(self, "max_grad_norm", _real("max_grad_norm", self.max_grad_norm, -1e6, 1e6))
        if self.precision is not None:
            precision = self.precision.strip().lower() if isinstance(self.precision, str) else self.precision
            poner(self, "precision", None if precision in ("auto", "automatica", "automática") else
                  _opcion("precision", precision, PRECISIONES))
        poner(self, "gpu", _gpu(self.gpu))
        for nombre in ("logging_steps", "eval_steps", "save_steps"):
            if getattr(self, nombre) is not None:
                poner(self, nombre, _pasos_o_fraccion(nombre, getattr(self, nombre)))
        poner(self, "eval_strategy", _opcion("eval_strategy", _valor_enum(self.eval_strategy), ESTRATEGIAS_EVAL))
        poner(self, "save_strategy", _opcion("save_strategy", _valor_enum(self.save_strategy), ESTRATEGIAS_GUARDADO))
        poner(self, "load_best_model_at_end", _booleano("load_best_model_at_end", self.load_best_model_at_end))
        if self.metric_for_best_model is not None:
            if not isinstance(self.metric_for_best_model, str) or not self.metric_for_best_model.strip():
                raise TypeError(
                    "metric_for_best_model debe ser un texto como 'eval_loss' o 'eval_accuracy'; "
                    f"recibí {self.metric_for_best_model!r}."
                )
        if self.paciencia is not None:
            poner(self, "paciencia", _entero("paciencia (early_stopping_patience)", self.paciencia, 1, 10000))
        if self.r is not None:
            poner(self, "r", _entero("r (rango de LoRA)", self.r, 1, 4096))
        if self.lora_alpha is not None:
            poner(self, "lora_alpha", _real("lora_alpha", self.lora_alpha, 0.0, 1e6, minimo_incluido=False))
        if self.tarea is not None:
            poner(self, "tarea", _opcion("tarea", self.tarea, TAREAS))
        if self.metodo == "sft" and self.tarea == "clasificacion":
            raise ValueError(
                "El método 'sft' entrena un modelo causal (generativo) con trl: no admite tarea='clasificacion'. "
                "Usa metodo='completo', 'lora' o 'qlora' para un clasificador."
            )
        if self.secuencia is not None:
            poner(self, "secuencia", _entero("secuencia (tokens)", self.secuencia, 1, 10**7))
        if self.checkpointing is not None:
            poner(self, "checkpointing", _booleano("checkpointing", self.checkpointing))
        if self.scheduler is not None:
            validos = _warmup.TIPOS + _warmup.TIPOS_SEGUN_METRICA
            poner(self, "scheduler", _opcion("scheduler (lr_scheduler_type)", _valor_enum(self.scheduler), validos))
        max_pasos = _entero("max_pasos", self.max_pasos, -1, 10**12)
        if max_pasos == 0:
            raise ValueError("max_pasos debe ser -1 (usar las épocas) o un entero ≥ 1; recibí 0.")
        poner(self, "max_pasos", max_pasos)

    # --- valores deducidos -------------------------------------------------
    @property
    def tarea_efectiva(self) -> str:
        """``tarea`` si la diste; si no, ``causal`` para ``sft``/``qlora`` o modelos ≥ 1 B, y ``clasificacion`` en otro caso."""
        if self.tarea is not None:
            return self.tarea
        if self.metodo in ("sft", "qlora") or self.parametros >= UMBRAL_CAUSAL:
            return "causal"
        return "clasificacion"

    @property
    def usa_lora(self) -> bool:
        return self.metodo in ("lora", "qlora")

    @property
    def r_efectivo(self) -> int:
        return self.r if self.r is not None else R_POR_DEFECTO

    @property
    def alpha_efectivo(self) -> float:
        return self.lora_alpha if self.lora_alpha is not None else ALPHA_POR_DEFECTO

    @property
    def secuencia_efectiva(self) -> int:
        return self.secuencia if self.secuencia is not None else SECUENCIA_POR_DEFECTO[self.tarea_efectiva]

    @property
    def checkpointing_efectivo(self) -> bool:
        """``checkpointing`` si lo diste; si no, activado en modelos causales (como ``SFTConfig``)."""
        if self.checkpointing is not None:
            return self.checkpointing
        return self.tarea_efectiva == "causal"

    @property
    def scheduler_efectivo(self) -> str:
        """``linear`` para clasificadores (BERT), ``cosine`` para modelos causales si no das ``scheduler``."""
        if self.scheduler is not None:
            return self.scheduler
        return "cosine" if self.tarea_efectiva == "causal" else "linear"

    @property
    def lote_efectivo(self) -> int:
        """per_device_train_batch_size × gradient_accumulation_steps × dispositivos."""
        return self.lote * self.acumulacion * self.dispositivos

    @property
    def es_cpu(self) -> bool:
        return self.gpu == "cpu"

    @property
    def info_gpu(self):
        """La :class:`~tutor_lib.entorno.InfoGPU` de la GPU elegida (``None`` en CPU o sin GPU)."""
        if self.gpu is None or self.gpu == "cpu":
            return None
        return _info_gpu(self.gpu)

    @property
    def precision_efectiva(self) -> str:
        """La precisión pedida o, si no la das, la que recomienda :func:`tutor_lib.entorno.precision_recomendada`."""
        if self.precision is not None:
            return self.precision
        from tutor_lib.entorno import precision_recomendada

        return precision_recomendada(self.info_gpu)


@dataclass
class Revision:
    """Resultado de :func:`revisar_configuracion`: hallazgos y cifras derivadas.

    ``pasos_por_epoca``, ``pasos_totales`` y ``pasos_warmup`` son los del
    ``Trainer`` (de :mod:`tutor_lib.warmup`); ``lote_efectivo`` = lote ×
    acumulación × dispositivos; ``memoria`` es la ``EstimacionMemoria`` de
    :mod:`tutor_lib.vram`; ``cabe`` es ``None`` si no diste una GPU;
    ``fraccion_memoria`` es la memoria estimada entre la de la GPU.
    """

    configuracion: Configuracion
    hallazgos: list[Hallazgo]
    pasos_por_epoca: int
    pasos_totales: int
    pasos_warmup: int
    lote_efectivo: int
    memoria: Any
    cabe: bool | None
    fraccion_memoria: float | None
    precision: str
    registros: int
    evaluaciones: int
    rango_lr: RangoLR

    @property
    def errores(self) -> list[Hallazgo]:
        return [h for h in self.hallazgos if h.nivel == "error"]

    @property
    def avisos(self) -> list[Hallazgo]:
        return [h for h in self.hallazgos if h.nivel == "aviso"]

    @property
    def nivel(self) -> str:
        """El peor nivel de todos los hallazgos (``error`` > ``aviso`` > ``ok``)."""
        if self.errores:
            return "error"
        return "aviso" if self.avisos else "ok"

    def de(self, parametro: str) -> list[Hallazgo]:
        """Hallazgos sobre un parámetro concreto, p. ej. ``revision.de("learning_rate")``."""
        return [h for h in self.hallazgos if h.parametro == parametro]

    def nivel_de(self, parametro: str) -> str | None:
        """El peor nivel de los hallazgos sobre ``parametro`` (``None`` si no hay ninguno)."""
        niveles = [h.nivel for h in self.de(parametro)]
        for nivel in ("error", "aviso", "ok"):
            if nivel in niveles:
                return nivel
        return None

    def a_dict(self) -> dict[str, Any]:
        """Todo lo que sirve para ``--json``: hallazgos, cifras y memoria (números y textos)."""
        return {
            "hallazgos": [h.a_dict() for h in self.hallazgos],
            "resumen": {n: sum(h.nivel == n for h in self.hallazgos) for n in NIVELES},
            "nivel": self.nivel,
            "pasos_por_epoca": self.pasos_por_epoca,
            "pasos_totales": self.pasos_totales,
            "pasos_warmup": self.pasos_warmup,
            "lote_efectivo": self.lote_efectivo,
            "precision": self.precision,
            "registros": self.registros,
            "evaluaciones": self.evaluaciones,
            "memoria": _memoria_a_dict(self.memoria),
            "cabe": self.cabe,
            "fraccion_memoria": self.fraccion_memoria,
            "gpu": _nombre_gpu(self.configuracion.gpu),
            "rango_lr": dataclasses.asdict(self.rango_lr),
        }

    def como_texto(self) -> str:
        """Lista en español con [OK]/[AVISO]/[ERROR] y un resumen de las cifras."""
        etiquetas = {"ok": "[OK]   ", "aviso": "[AVISO]", "error": "[ERROR]"}
        c = self.configuracion
        lineas = [
            f"Método: {c.metodo} ({c.tarea_efectiva}), " + f"{c.parametros:,}".replace(",", ".") + " parámetros",
            f"Lote efectivo: {self.lote_efectivo} · pasos por época: {self.pasos_por_epoca} · "
            f"pasos totales: {self.pasos_totales} · pasos de warmup: {self.pasos_warmup}",
            _texto_memoria(self),
            "",
        ]
        for h in self.hallazgos:
            lineas.append(f"{etiquetas[h.nivel]} {h.parametro}: {h.mensaje}")
            lineas.append(f"        Fuente: {h.fuente}")
        n = {nivel: sum(h.nivel == nivel for h in self.hallazgos) for nivel in NIVELES}
        lineas.append("")
        lineas.append(
            f"Resumen: {n['ok']} ok, {_plural(n['aviso'], 'aviso', 'avisos')}, {_plural(n['error'], 'error', 'errores')}."
        )
        return "\n".join(lineas)


# --------------------------------------------------------------------------
# Validación (mensajes en español)
# --------------------------------------------------------------------------


def _entero(nombre: str, valor: Any, minimo: int, maximo: int) -> int:
    if isinstance(valor, bool) or not isinstance(valor, numbers.Real):
        raise TypeError(f"{nombre} debe ser un número entero; recibí {valor!r} ({type(valor).__name__}).")
    if not isinstance(valor, numbers.Integral):
        if not math.isfinite(valor) or not float(valor).is_integer():
            raise TypeError(f"{nombre} debe ser un número entero; recibí {valor!r}.")
    valor = int(valor)
    if not minimo <= valor <= maximo:
        raise ValueError(f"{nombre} debe ser un entero entre {minimo} y {maximo}; recibí {valor}.")
    return valor


def _real(nombre: str, valor: Any, minimo: float, maximo: float, *, minimo_incluido: bool = True) -> float:
    if isinstance(valor, bool) or not isinstance(valor, numbers.Real):
        raise TypeError(f"{nombre} debe ser un número; recibí {valor!r} ({type(valor).__name__}).")
    valor = float(valor)
    if not math.isfinite(valor):
        raise ValueError(f"{nombre} debe ser un número finito; recibí {valor}.")
    debajo = valor < minimo if minimo_incluido else valor <= minimo
    if debajo or valor > maximo:
        izquierda = "[" if minimo_incluido else "("
        raise ValueError(f"{nombre} debe estar en {izquierda}{minimo:g}, {maximo:g}]; recibí {valor:g}.")
    return valor


def _valor_enum(valor: Any) -> Any:
    return getattr(valor, "value", valor)  # acepta IntervalStrategy.EPOCH, SchedulerType.LINEAR...


def _opcion(nombre: str, valor: Any, validas: Iterable[str]) -> str:
    validas = tuple(validas)
    if not isinstance(valor, str):
        raise TypeError(f"{nombre} debe ser un texto, uno de {', '.join(validas)}; recibí {valor!r}.")
    limpio = valor.strip().lower().replace("ó", "o")
    if limpio not in validas:
        raise ValueError(f"{nombre} desconocido: {valor!r}. Opciones válidas: {', '.join(validas)}.")
    return limpio


def _booleano(nombre: str, valor: Any) -> bool:
    if not isinstance(valor, bool):
        raise TypeError(f"{nombre} debe ser True o False; recibí {valor!r}.")
    return valor


def _parametros(valor: Any) -> int:
    if isinstance(valor, str):
        clave = valor.strip().lower()
        if clave in MODELOS:
            return MODELOS[clave][1]
        try:
            valor = float(clave)
        except ValueError:
            raise ValueError(
                f"parametros desconocido: {valor!r}. Da un número (p. ej. 66e6) o uno de: {', '.join(MODELOS)}."
            ) from None
    if hasattr(valor, "num_parameters") and callable(valor.num_parameters):
        valor = int(valor.num_parameters())
    elif hasattr(valor, "to_dict") and hasattr(valor, "model_type"):
        valor = _parametros_de_config(valor)
    if isinstance(valor, bool) or not isinstance(valor, numbers.Real):
        raise TypeError(
            "parametros debe ser un número de parámetros (p. ej. 66e6), un nombre de MODELOS, un modelo o "
            f"su configuración; recibí {valor!r} ({type(valor).__name__})."
        )
    if not math.isfinite(valor) or not 1 <= valor <= 1e13:
        raise ValueError(f"parametros debe estar entre 1 y 1e13; recibí {valor!r}.")
    return int(round(valor))


def _parametros_de_config(config: Any) -> int:
    """Parámetros exactos de una configuración de transformers (modelo en el dispositivo «meta», sin pesos)."""
    from tutor_lib import recursos

    return recursos.contar_parametros(recursos.construir_en_meta(config))


def _warmup_valido(valor: Any) -> int | float:
    if isinstance(valor, bool) or not isinstance(valor, numbers.Real):
        raise TypeError(
            f"warmup debe ser un entero de pasos (≥ 0) o una fracción en [0, 1); recibí {valor!r} ({type(valor).__name__})."
        )
    if isinstance(valor, numbers.Integral):
        return _entero("warmup", valor, 0, 10**12)
    valor = float(valor)
    if not math.isfinite(valor) or valor < 0:
        raise ValueError(f"warmup debe ser un entero de pasos (≥ 0) o una fracción en [0, 1); recibí {valor}.")
    if valor >= 1 and not valor.is_integer():
        raise ValueError(
            f"warmup={valor} es ambiguo: transformers 5 lo truncaría a {int(valor)} pasos. Da un entero de pasos "
            "o una fracción en [0, 1) (0.06 = 6 % de los pasos totales)."
        )
    return valor if valor < 1 else int(valor)


def _pasos_o_fraccion(nombre: str, valor: Any) -> int | float:
    if isinstance(valor, bool) or not isinstance(valor, numbers.Real):
        raise TypeError(f"{nombre} debe ser un entero ≥ 1 o una fracción en (0, 1); recibí {valor!r}.")
    valor = float(valor) if not isinstance(valor, numbers.Integral) else int(valor)
    if not math.isfinite(valor) or valor <= 0:
        raise ValueError(f"{nombre} debe ser un entero ≥ 1 o una fracción en (0, 1); recibí {valor}.")
    if valor < 1:
        return float(valor)
    if float(valor) != int(valor):
        raise ValueError(f"{nombre} debe ser un entero si es ≥ 1 (transformers lo exige); recibí {valor}.")
    return int(valor)


def _pasos_de_intervalo(valor: int | float, pasos_totales: int) -> int:
    """Intervalo en pasos de ``logging_steps``/``eval_steps``/``save_steps`` (una fracción se multiplica por el total)."""
    if valor < 1:
        return max(1, math.ceil(pasos_totales * valor))
    return int(valor)


# --------------------------------------------------------------------------
# GPU y memoria (a través de tutor_lib.vram)
# --------------------------------------------------------------------------


def _gpu(valor: Any) -> Any:
    """Normaliza la GPU: ``None`` (sin indicar), ``"cpu"`` o el nombre del catálogo de :mod:`tutor_lib.vram`."""
    if valor is None:
        return None
    from tutor_lib.entorno import InfoGPU

    if isinstance(valor, InfoGPU):
        return valor
    if not isinstance(valor, str):
        raise TypeError(f"gpu debe ser un nombre como 'T4', 'cpu' o None; recibí {valor!r} ({type(valor).__name__}).")
    limpio = valor.strip()
    if limpio.lower() in ("cpu", "ninguna", "sin gpu"):
        return "cpu"
    return _buscar_gpu(limpio)


def _catalogo() -> dict[str, Any]:
    from tutor_lib import vram

    return vram.GPUS


def _buscar_gpu(nombre: str) -> str:
    """Clave del catálogo de :mod:`tutor_lib.vram` (acepta alias como 'h100' o 'rtx4090')."""
    from tutor_lib import vram

    try:
        info = vram.buscar_gpu(nombre)
    except ValueError as exc:
        raise ValueError(f"{exc} También vale 'cpu'.") from None
    for clave, gpu in _catalogo().items():
        if gpu is info:
            return clave
    return info.nombre  # pragma: no cover - buscar_gpu siempre devuelve una del catálogo


def _info_gpu(gpu: Any):
    from tutor_lib.entorno import InfoGPU

    if isinstance(gpu, InfoGPU):
        return gpu
    return _catalogo()[gpu]


def _nombre_gpu(gpu: Any) -> str | None:
    if gpu is None or isinstance(gpu, str):
        return gpu
    return getattr(gpu, "nombre", str(gpu))


def nombres_de_gpus() -> list[str]:
    """Nombres del catálogo de GPUs de :mod:`tutor_lib.vram` (los que acepta ``gpu=``).

    Se usa en lessons/04_warmup_y_regularizacion y en ``tutor configurar --gpu``.
    """
    return list(_catalogo())


def _precision_vram(config: Configuracion, precision: str) -> str:
    """Traduce la precisión de ``TrainingArguments`` a la de :func:`tutor_lib.vram.estimar_memoria`.

    fp16 siempre es mixta (pesos maestros en fp32: el escalador de pérdida no
    admite gradientes fp16). bf16 es mixta en un clasificador (el checkpoint se
    carga en fp32) y «bf16» puro en un modelo causal (transformers 5 carga el
    dtype del checkpoint, casi siempre bf16).
    """
    if precision == "fp32":
        return "fp32"
    if precision == "bf16" and config.tarea_efectiva == "causal":
        return "bf16"
    return "mixta"


def _optimizador(config: Configuracion) -> str:
    """``adamw_8bit`` para QLoRA en GPU (el ``optim="paged_adamw_8bit"`` que se genera); ``adamw`` si no."""
    return "adamw_8bit" if config.metodo == "qlora" and config.info_gpu is not None else "adamw"


def _argumentos_vram(config: Configuracion, precision: str) -> dict[str, Any]:
    return dict(
        parametros=config.parametros,
        metodo="completo" if config.metodo == "sft" else config.metodo,
        precision=_precision_vram(config, precision),
        optimizador=_optimizador(config),
        r=config.r_efectivo if config.usa_lora else None,
        checkpointing=config.checkpointing_efectivo,
        tarea=config.tarea_efectiva,
    )


def _estimar_memoria(config: Configuracion, precision: str):
    from tutor_lib import vram

    return vram.estimar_memoria(lote=config.lote, secuencia=config.secuencia_efectiva,
                                **_argumentos_vram(config, precision))


def _memoria_gpu_bytes(config: Configuracion) -> int | None:
    """Memoria utilizable de la GPU (total − contexto de CUDA − fragmentación, de :mod:`tutor_lib.vram`)."""
    info = config.info_gpu
    if info is None:
        return None
    from tutor_lib import vram

    return int(vram.memoria_utilizable(info))


def _memoria_a_dict(memoria: Any) -> dict[str, Any]:
    if memoria is None:
        return {}
    if hasattr(memoria, "a_dict"):
        datos = memoria.a_dict()
    elif dataclasses.is_dataclass(memoria):
        datos = dataclasses.asdict(memoria)
    else:  # pragma: no cover - por si vram cambia de tipo
        datos = dict(vars(memoria))
    datos = {k: _a_json(v) for k, v in datos.items()}
    if "total_bytes" in datos:
        datos.setdefault("total_gib", round(datos["total_bytes"] / 2**30, 3))
    return datos


def _a_json(valor: Any) -> Any:
    if isinstance(valor, dict):
        return {str(k): _a_json(v) for k, v in valor.items()}
    if isinstance(valor, (list, tuple)):
        return [_a_json(v) for v in valor]
    if isinstance(valor, (str, int, float, bool)) or valor is None:
        return valor
    if dataclasses.is_dataclass(valor):
        return _a_json(dataclasses.asdict(valor))
    return str(valor)


def _gib(bytes_: float) -> str:
    return f"{bytes_ / 2**30:.1f} GiB".replace(".", ",")


def _texto_memoria(revision: Revision) -> str:
    total = getattr(revision.memoria, "total_bytes", None)
    if total is None:
        return "Memoria estimada: desconocida"
    texto = f"Memoria estimada: {_gib(total)}"
    memoria_gpu = _memoria_gpu_bytes(revision.configuracion)
    if memoria_gpu:
        texto += (
            f" de {_gib(memoria_gpu)} utilizables en la {_nombre_gpu(revision.configuracion.gpu)} "
            f"({_pct(revision.fraccion_memoria)})"
        )
    return texto


# --------------------------------------------------------------------------
# Las reglas
# --------------------------------------------------------------------------


def _como_configuracion(configuracion: Any, opciones: dict[str, Any]) -> Configuracion:
    if configuracion is None:
        return Configuracion(**opciones)
    if isinstance(configuracion, Revision):
        configuracion = configuracion.configuracion
    if not isinstance(configuracion, Configuracion):
        raise TypeError(
            "El primer argumento debe ser una Configuracion o una Revision (o pasa los valores con nombre: "
            f"revisar_configuracion(metodo='lora', ...)); recibí {type(configuracion).__name__}."
        )
    return dataclasses.replace(configuracion, **opciones) if opciones else configuracion


def _fmt(x: float) -> str:
    """Número corto para mensajes, como se escribe en código: 2e-05 → 2e-5, 0.0001 → 1e-4."""
    if x != 0 and abs(x) < 1e-2:
        mantisa, exponente = f"{x:.2e}".split("e")
        mantisa = mantisa.rstrip("0").rstrip(".")
        return f"{mantisa}e{int(exponente)}"
    return f"{x:.3g}"


def _pct(fraccion: float, decimales: int = 0) -> str:
    """Porcentaje al estilo español: 0.061 → «6,1 %»."""
    return f"{fraccion * 100:.{decimales}f} %".replace(".", ",")


def _plural(n: int, singular: str, plural: str) -> str:
    return f"{n} {singular if n == 1 else plural}"


def _regla_lr(c: Configuracion, rango: RangoLR) -> list[Hallazgo]:
    lr = c.lr
    descripcion = {
        "completo": "ajuste completo",
        "sft": "SFT completo",
        "lora": "LoRA",
        "qlora": "QLoRA",
    }[c.metodo] + (" de un modelo causal" if c.tarea_efectiva == "causal" else " de un clasificador")
    hallazgos = []
    if lr > 10 * rango.maximo:
        hallazgos.append(Hallazgo(
            "error", "learning_rate",
            f"lr={_fmt(lr)} es más de 10 veces el máximo habitual para {descripcion} ({_fmt(rango.maximo)}): "
            "el entrenamiento diverge o el modelo olvida lo que aprendió en el preentrenamiento (olvido "
            f"catastrófico). Empieza con {_fmt(rango.tipica)}.",
            rango.fuente,
        ))
    elif lr > rango.maximo:
        hallazgos.append(Hallazgo(
            "aviso", "learning_rate",
            f"lr={_fmt(lr)} está por encima del rango habitual para {descripcion} "
            f"({_fmt(rango.minimo)} a {_fmt(rango.maximo)}): la pérdida puede oscilar o dispararse. "
            f"Prueba {_fmt(rango.tipica)} y sube solo si aprende demasiado despacio.",
            rango.fuente,
        ))
    elif lr < rango.minimo:
        hallazgos.append(Hallazgo(
            "aviso", "learning_rate",
            f"lr={_fmt(lr)} está por debajo del rango habitual para {descripcion} "
            f"({_fmt(rango.minimo)} a {_fmt(rango.maximo)}): aprenderá muy despacio y puede parecer que "
            f"no aprende nada en las épocas que tienes. Prueba {_fmt(rango.tipica)}.",
            rango.fuente,
        ))
    else:
        hallazgos.append(Hallazgo(
            "ok", "learning_rate",
            f"lr={_fmt(lr)} está dentro del rango habitual para {descripcion} "
            f"({_fmt(rango.minimo)} a {_fmt(rango.maximo)}).",
            rango.fuente,
        ))
    if c.metodo == "qlora" and c.parametros >= 30e9 and lr > 1e-4 and hallazgos[0].nivel == "ok":
        hallazgos[0] = Hallazgo(
            "aviso", "learning_rate",
            f"Con un modelo de {c.parametros / 1e9:.0f} B parámetros, QLoRA usó lr=1e-4 (2e-4 solo hasta 13B): "
            f"lr={_fmt(lr)} es alto para este tamaño. Baja a 1e-4.",
            FUENTES["qlora"],
        )
    return hallazgos


def _limite_epocas(c: Configuracion) -> tuple[float, str, str]:
    """(máximo de épocas sin aviso, explicación, fuente) según tarea, método y tamaño de los datos."""
    if c.tarea_efectiva == "causal":
        if c.ejemplos >= MUCHOS_EJEMPLOS_LLM:
            return 3, f"con {MUCHOS_EJEMPLOS_LLM} ejemplos o más, un LLM suele necesitar 1 a 3 épocas", FUENTES["alpaca"]
        if c.ejemplos < POCOS_EJEMPLOS:
            return 10, f"con menos de {POCOS_EJEMPLOS} ejemplos pueden hacer falta más épocas, hasta unas 10", FUENTES["qlora"]
        return 5, "con unos miles de ejemplos, un LLM suele necesitar 2 a 5 épocas", FUENTES["qlora"]
    if c.usa_lora:
        limite = 100 if c.ejemplos < POCOS_EJEMPLOS else 80
        return limite, "LoRA necesita más épocas que el ajuste completo (decenas en GLUE)", FUENTES["lora"]
    if c.ejemplos < POCOS_EJEMPLOS:
        return 10, f"con menos de {POCOS_EJEMPLOS} ejemplos hasta unas 10 épocas es razonable", FUENTES["bert"]
    return 5, "para afinar un clasificador tipo BERT bastan 2 a 4 épocas", FUENTES["bert"]


def _regla_epocas(c: Configuracion, epocas: float) -> Hallazgo:
    limite, motivo, fuente = _limite_epocas(c)
    texto_epocas = f"{epocas:g} épocas" if c.max_pasos <= 0 else f"max_steps={c.max_pasos} (≈ {epocas:.2g} épocas)"
    if epocas > limite:
        return Hallazgo(
            "aviso", "num_train_epochs",
            f"{texto_epocas} con {c.ejemplos} ejemplos es mucho: {motivo}. Más épocas = riesgo de "
            "sobreajuste (el modelo memoriza: la pérdida de entrenamiento baja y la de validación sube). "
            f"Baja a {limite:g} o menos, evalúa cada época y usa EarlyStoppingCallback.",
            fuente,
        )
    if c.tarea_efectiva == "clasificacion" and not c.usa_lora and epocas < 2 and c.ejemplos < 50_000:
        return Hallazgo(
            "aviso", "num_train_epochs",
            f"{texto_epocas} con {c.ejemplos} ejemplos puede quedarse corto: BERT recomienda 2 a 4 épocas. "
            "Sube a 3 y vigila la pérdida de validación.",
            FUENTES["bert"],
        )
    return Hallazgo("ok", "num_train_epochs", f"{texto_epocas} con {c.ejemplos} ejemplos es razonable: {motivo}.", fuente)


def _regla_warmup(c: Configuracion, total: int, pasos_warmup: int) -> Hallazgo:
    fuente = FUENTES["warmup"]
    if c.scheduler_efectivo == "constant" and pasos_warmup > 0:
        return Hallazgo(
            "aviso", "warmup_steps",
            f"lr_scheduler_type='constant' ignora warmup_steps: los {pasos_warmup} pasos de warmup no se "
            "aplican. Usa lr_scheduler_type='constant_with_warmup' si quieres warmup con tasa constante.",
            FUENTES["scheduler"],
        )
    if c.scheduler_efectivo in _warmup.TIPOS_SEGUN_METRICA:
        return Hallazgo(
            "ok", "warmup_steps",
            f"Con lr_scheduler_type='{c.scheduler_efectivo}' la tasa depende de la métrica de evaluación: "
            "no se puede revisar el warmup de antemano.",
            FUENTES["scheduler"],
        )
    if pasos_warmup >= total:
        return Hallazgo(
            "error", "warmup_steps",
            f"{pasos_warmup} pasos de warmup con solo {total} pasos totales: la tasa de aprendizaje nunca llega "
            f"a lr={_fmt(c.lr)} y todo el entrenamiento va en la rampa. Usa una fracción: warmup_steps=0.06 "
            f"({math.ceil(0.06 * total)} pasos).",
            fuente,
        )
    fraccion = pasos_warmup / total
    # Con una fracción pedida (warmup_steps=0.1) se juzga lo pedido: el redondeo hacia arriba del Trainer
    # puede dar 10,1 % y eso no es «demasiado warmup».
    pedida = c.warmup if isinstance(c.warmup, float) and 0 < c.warmup < 1 else fraccion
    if pasos_warmup == 0:
        if c.ejemplos < POCOS_EJEMPLOS:
            return Hallazgo(
                "ok", "warmup_steps",
                f"Sin warmup: con menos de {POCOS_EJEMPLOS} ejemplos suele dar igual. Si la pérdida salta al "
                "principio, pon warmup_steps=0.06.",
                fuente,
            )
        return Hallazgo(
            "aviso", "warmup_steps",
            f"Sin warmup, los primeros pasos usan ya lr={_fmt(c.lr)} con los estados de Adam aún vacíos y "
            "pueden desestabilizar el modelo. Pon warmup_steps=0.06 (en transformers 5 un float en [0, 1) es "
            f"una fracción: {math.ceil(0.06 * total)} de tus {total} pasos).",
            fuente,
        )
    if pedida < WARMUP_MINIMO:
        return Hallazgo(
            "aviso", "warmup_steps",
            f"{pasos_warmup} pasos de warmup son el {_pct(fraccion, 1)} de {total}: casi no hay rampa. Lo habitual es "
            f"del 3 % al 10 %: warmup_steps=0.06 ({math.ceil(0.06 * total)} pasos).",
            fuente,
        )
    if pedida > WARMUP_MAXIMO:
        return Hallazgo(
            "aviso", "warmup_steps",
            f"{pasos_warmup} pasos de warmup son el {_pct(fraccion)} de {total}: pasas demasiado tiempo con la tasa "
            f"por debajo de lr={_fmt(c.lr)}. Lo habitual es del 3 % al 10 %: warmup_steps=0.06.",
            fuente,
        )
    return Hallazgo(
        "ok", "warmup_steps",
        f"{pasos_warmup} pasos de warmup ({_pct(fraccion, 1)} de {total}): dentro del 3 % al 10 % habitual. "
        "Recuerda que el primer paso se da con lr=0.",
        fuente,
    )


def _regla_lote(c: Configuracion, pasos_por_epoca: int) -> list[Hallazgo]:
    efectivo = c.lote_efectivo
    desglose = f"{c.lote} × {c.acumulacion} de acumulación × {c.dispositivos} dispositivo(s) = {efectivo}"
    hallazgos = []
    if efectivo < LOTE_EFECTIVO_MINIMO:
        hallazgos.append(Hallazgo(
            "aviso", "per_device_train_batch_size",
            f"Lote efectivo {desglose}: muy pequeño, el gradiente es muy ruidoso. Si la memoria no da para más, "
            f"sube gradient_accumulation_steps hasta un lote efectivo de 16 o 32 (p. ej. "
            f"acumulación {max(1, math.ceil(16 / (c.lote * c.dispositivos)))}).",
            FUENTES["bert"] + "; " + FUENTES["qlora"],
        ))
    elif efectivo > LOTE_EFECTIVO_MAXIMO:
        hallazgos.append(Hallazgo(
            "aviso", "per_device_train_batch_size",
            f"Lote efectivo {desglose}: muy grande para afinar; das pocos pasos y la tasa de aprendizaje habitual "
            "deja de servir (al cambiar el lote hay que volver a ajustar lr). Baja a 16–64.",
            FUENTES["playbook"],
        ))
    else:
        hallazgos.append(Hallazgo(
            "ok", "per_device_train_batch_size", f"Lote efectivo {desglose}: razonable.", FUENTES["bert"]
        ))
    if efectivo > c.ejemplos:
        hallazgos.append(Hallazgo(
            "aviso", "gradient_accumulation_steps",
            f"El lote efectivo ({efectivo}) es mayor que el dataset ({c.ejemplos} ejemplos): cada época es un "
            f"solo paso de optimización ({pasos_por_epoca} por época). Baja el lote o la acumulación.",
            FUENTES["playbook"],
        ))
    return hallazgos


def _regla_precision(c: Configuracion) -> Hallazgo:
    pedida = c.precision
    efectiva = c.precision_efectiva
    info = c.info_gpu
    if c.gpu is None:
        if efectiva == "fp32":
            texto = ("Precisión fp32: sin GPU indicada no se elige precisión mixta. Indica la GPU (gpu='T4', "
                     "'cpu'...) para elegir fp16/bf16 según su capacidad de cómputo y revisar la memoria.")
        else:
            texto = (f"Precisión {efectiva}: no indicaste la GPU, así que no puedo comprobar que la admita "
                     "(bf16 exige capacidad de cómputo ≥ 8.0; una T4 no la tiene).")
        return Hallazgo("ok", "bf16" if efectiva == "bf16" else "fp16", texto, FUENTES["nvidia"])
    if c.es_cpu:
        if efectiva == "fp16":
            return Hallazgo(
                "aviso", "fp16",
                "fp16=True en CPU: el Trainer no falla, pero lo ignora y calcula en fp32 (no hay escalador de "
                "pérdida en CPU). Quita fp16; argumentos_de_entrenamiento() ya usa fp32 con use_cpu=True.",
                FUENTES["cpu"],
            )
        if efectiva == "bf16":
            return Hallazgo(
                "aviso", "bf16",
                "bf16=True en CPU solo funciona con use_cpu=True (si no, TrainingArguments lanza ValueError) y "
                "solo acelera en CPU con instrucciones bf16 (AMX); en la mayoría es más lento que fp32. "
                "Usa fp32 salvo que lo hayas medido.",
                FUENTES["cpu"],
            )
        return Hallazgo("ok", "fp16", "fp32 en CPU: correcto (use_cpu=True).", FUENTES["cpu"])
    capacidad = f"{info.capacidad[0]}.{info.capacidad[1]}"
    if efectiva == "bf16" and not info.soporta_bf16:
        return Hallazgo(
            "error", "bf16",
            f"bf16=True en una {info.nombre} (capacidad {capacidad}): no tiene bf16 nativo, TrainingArguments "
            "lanza ValueError o el entrenamiento se emula muy lento. Usa fp16=True (con escalador de pérdida); "
            "argumentos_de_entrenamiento() ya lo cambia por ti.",
            FUENTES["nvidia"],
        )
    if efectiva == "fp32":
        recomendada = "bf16" if info.soporta_bf16 else "fp16"
        return Hallazgo(
            "aviso", "fp16",
            f"fp32 en una {info.nombre}: desaprovechas los Tensor Cores y gastas más memoria en activaciones. "
            f"Usa {recomendada}=True (precisión mixta).",
            FUENTES["nvidia"],
        )
    if efectiva == "fp16" and info.soporta_bf16:
        return Hallazgo(
            "aviso", "fp16",
            f"fp16 en una {info.nombre} (capacidad {capacidad}): funciona, pero bf16 tiene el rango de fp32 y no "
            "necesita escalador de pérdida. Usa bf16=True.",
            FUENTES["nvidia"],
        )
    origen = "elegida por la capacidad de cómputo" if pedida is None else "pedida"
    return Hallazgo(
        "ok", "bf16" if efectiva == "bf16" else "fp16",
        f"{efectiva} ({origen}) en una {info.nombre} con capacidad {capacidad}: correcto.",
        FUENTES["nvidia"],
    )


def _regla_logging(c: Configuracion, total: int) -> tuple[Hallazgo, int]:
    valor = c.logging_steps if c.logging_steps is not None else LOGGING_STEPS_POR_DEFECTO
    intervalo = _pasos_de_intervalo(valor, total)
    registros = total // intervalo
    por_defecto = " (el valor por defecto de transformers 5)" if c.logging_steps is None else ""
    sugerido = logging_steps_sugerido(total)
    if registros == 0:
        return Hallazgo(
            "aviso", "logging_steps",
            f"logging_steps={valor:g}{por_defecto} con {total} pasos totales: no verás ni una sola línea de "
            f"pérdida durante el entrenamiento. Usa logging_steps={sugerido}.",
            FUENTES["transformers"],
        ), registros
    if registros < REGISTROS_MINIMOS:
        return Hallazgo(
            "aviso", "logging_steps",
            f"logging_steps={valor:g}{por_defecto}: solo {_plural(registros, 'registro', 'registros')} de la pérdida en {total} pasos, "
            f"muy pocos para leer la curva. Usa logging_steps={sugerido}.",
            FUENTES["transformers"],
        ), registros
    if registros > REGISTROS_MAXIMOS:
        return Hallazgo(
            "aviso", "logging_steps",
            f"logging_steps={valor:g}: {registros} registros en {total} pasos; la curva sale ruidosa y el "
            f"registro ralentiza. Usa logging_steps={sugerido}.",
            FUENTES["transformers"],
        ), registros
    return Hallazgo(
        "ok", "logging_steps",
        f"logging_steps={valor:g}{por_defecto}: {registros} registros de la pérdida en {total} pasos.",
        FUENTES["transformers"],
    ), registros


def _evaluaciones(c: Configuracion, total: int, epocas: float) -> tuple[int, int | None]:
    """(número de evaluaciones durante el entrenamiento, intervalo en pasos si la estrategia es 'steps')."""
    if c.eval_strategy == "no":
        return 0, None
    if c.eval_strategy == "epoch":
        return max(1, math.ceil(epocas - 1e-9)), None
    valor = c.eval_steps if c.eval_steps is not None else (
        c.logging_steps if c.logging_steps is not None else LOGGING_STEPS_POR_DEFECTO
    )
    intervalo = _pasos_de_intervalo(valor, total)
    return total // intervalo, intervalo


def _regla_evaluacion(c: Configuracion, total: int, evaluaciones: int, intervalo: int | None) -> Hallazgo:
    necesita = c.load_best_model_at_end or c.paciencia is not None or c.save_strategy == "best"
    if c.eval_strategy == "no":
        if c.scheduler_efectivo in _warmup.TIPOS_SEGUN_METRICA:
            return Hallazgo(
                "error", "eval_strategy",
                f"lr_scheduler_type='{c.scheduler_efectivo}' cambia la tasa según la pérdida de evaluación, pero "
                "eval_strategy='no': TrainingArguments lanza ValueError. Usa eval_strategy='epoch'.",
                FUENTES["transformers_validacion"],
            )
        if necesita:
            return Hallazgo(
                "error", "eval_strategy",
                "eval_strategy='no' pero pides elegir el mejor modelo (load_best_model_at_end, "
                "save_strategy='best' o early stopping): sin evaluaciones no hay con qué compararlos. "
                "Usa eval_strategy='epoch' y pasa un eval_dataset al Trainer.",
                FUENTES["transformers_validacion"],
            )
        return Hallazgo(
            "aviso", "eval_strategy",
            "eval_strategy='no': no verás la pérdida de validación durante el entrenamiento, así que no sabrás "
            "si sobreajusta. Usa eval_strategy='epoch' (y pasa un eval_dataset al Trainer).",
            FUENTES["transformers"],
        )
    if evaluaciones == 0:
        nivel = "error" if necesita else "aviso"
        return Hallazgo(
            nivel, "eval_steps",
            f"eval_steps={intervalo} con {total} pasos totales: no habrá ninguna evaluación durante el "
            f"entrenamiento. Usa eval_steps={logging_steps_sugerido(total, objetivo=10)} o eval_strategy='epoch'."
            + (" Sin evaluaciones no se puede elegir el mejor modelo." if necesita else ""),
            FUENTES["transformers"],
        )
    if c.eval_strategy == "steps" and c.eval_steps is None:
        return Hallazgo(
            "aviso", "eval_steps",
            f"eval_strategy='steps' sin eval_steps: transformers usa logging_steps ({intervalo} pasos), así que "
            f"evalúa {_plural(evaluaciones, 'vez', 'veces')}; evaluar tan a menudo puede costar más que entrenar. Pon eval_steps "
            "explícito.",
            FUENTES["transformers"],
        )
    cada = "época" if c.eval_strategy == "epoch" else f"{intervalo} pasos"
    return Hallazgo(
        "ok", "eval_strategy", f"Se evalúa cada {cada}: {_plural(evaluaciones, 'evaluación', 'evaluaciones')} en total.", FUENTES["transformers"]
    )


def _regla_mejor_modelo(c: Configuracion, total: int, intervalo_eval: int | None) -> list[Hallazgo]:
    hallazgos = []
    if c.save_strategy == "best" and not c.load_best_model_at_end and c.metric_for_best_model is None:
        hallazgos.append(Hallazgo(
            "error", "metric_for_best_model",
            "save_strategy='best' sin metric_for_best_model: el Trainer lanza ValueError porque no sabe qué "
            "es «mejor». Pon metric_for_best_model='eval_loss' (o 'eval_accuracy').",
            FUENTES["transformers_trainer"],
        ))
    if not c.load_best_model_at_end:
        return hallazgos
    if c.save_strategy != "best" and c.eval_strategy != "no":
        if c.eval_strategy != c.save_strategy:
            hallazgos.append(Hallazgo(
                "error", "save_strategy",
                f"load_best_model_at_end=True exige que save_strategy coincida con eval_strategy (o que sea "
                f"'best'), pero tienes eval_strategy='{c.eval_strategy}' y save_strategy='{c.save_strategy}': "
                f"TrainingArguments lanza ValueError. Usa save_strategy='{c.eval_strategy}'.",
                FUENTES["transformers_validacion"],
            ))
        elif c.eval_strategy == "steps":
            guardar = _pasos_de_intervalo(
                c.save_steps if c.save_steps is not None else SAVE_STEPS_POR_DEFECTO, total
            )
            if intervalo_eval and guardar % intervalo_eval != 0:
                hallazgos.append(Hallazgo(
                    "error", "save_steps",
                    f"load_best_model_at_end=True exige que save_steps ({guardar}) sea múltiplo de eval_steps "
                    f"({intervalo_eval}): si no, el mejor modelo evaluado puede no estar guardado. "
                    f"TrainingArguments lanza ValueError. Usa save_steps={intervalo_eval}.",
                    FUENTES["transformers_validacion"],
                ))
    if c.metric_for_best_model is None:
        hallazgos.append(Hallazgo(
            "aviso", "metric_for_best_model",
            "load_best_model_at_end=True sin metric_for_best_model: se elige el checkpoint con menor eval_loss. "
            "Si te importa otra métrica, pon metric_for_best_model='eval_accuracy' (o 'eval_f1'); "
            "greater_is_better se deduce del nombre (False si termina en 'loss').",
            FUENTES["transformers"],
        ))
    elif not any(h.nivel == "error" for h in hallazgos):
        mayor = not c.metric_for_best_model.endswith("loss")
        hallazgos.append(Hallazgo(
            "ok", "metric_for_best_model",
            f"Al final se carga el checkpoint con {'mayor' if mayor else 'menor'} {c.metric_for_best_model} "
            f"(greater_is_better={mayor}). Asegúrate de que compute_metrics la devuelve.",
            FUENTES["transformers"],
        ))
    return hallazgos


def _regla_early_stopping(c: Configuracion, evaluaciones: int) -> list[Hallazgo]:
    if c.paciencia is None:
        return []
    parametro = "EarlyStoppingCallback"
    hallazgos = []
    if c.eval_strategy == "no":
        hallazgos.append(Hallazgo(
            "error", parametro,
            "EarlyStoppingCallback con eval_strategy='no': al empezar a entrenar falla con AssertionError "
            "(necesita evaluaciones para decidir cuándo parar). Usa eval_strategy='epoch'.",
            FUENTES["callback"],
        ))
    if c.metric_for_best_model is None and not c.load_best_model_at_end:
        hallazgos.append(Hallazgo(
            "error", parametro,
            "EarlyStoppingCallback sin metric_for_best_model: falla con AssertionError al empezar. Pon "
            "load_best_model_at_end=True (usa eval_loss) o metric_for_best_model='eval_loss'.",
            FUENTES["callback"],
        ))
    if not c.load_best_model_at_end:
        hallazgos.append(Hallazgo(
            "aviso", "load_best_model_at_end",
            "EarlyStoppingCallback sin load_best_model_at_end=True: para, pero te quedas con el último modelo, "
            "que es peor que el mejor (transformers 5 solo lo advierte en el registro). Pon "
            "load_best_model_at_end=True con save_strategy igual a eval_strategy.",
            FUENTES["callback"],
        ))
    if c.eval_strategy != "no" and 0 < evaluaciones <= c.paciencia:
        hallazgos.append(Hallazgo(
            "aviso", parametro,
            f"Con paciencia {c.paciencia} y solo {evaluaciones} evaluaciones, el early stopping nunca podrá "
            "cortar antes del final. Evalúa más a menudo o baja la paciencia.",
            FUENTES["callback"],
        ))
    if not hallazgos:
        hallazgos.append(Hallazgo(
            "ok", parametro,
            f"EarlyStoppingCallback(early_stopping_patience={c.paciencia}) tiene lo que necesita: evaluaciones, "
            f"load_best_model_at_end=True y una métrica.",
            FUENTES["callback"],
        ))
    return hallazgos


def _regla_weight_decay(c: Configuracion) -> Hallazgo:
    wd = c.weight_decay
    if wd > 1:
        return Hallazgo(
            "error", "weight_decay",
            f"weight_decay={wd:g} es enorme: con AdamW cada paso multiplica los pesos por (1 − lr × {wd:g}) y los "
            "empuja hacia cero. Casi seguro es un error de escala: ¿querías 0.01?",
            FUENTES["adamw"],
        )
    if wd > 0.1:
        return Hallazgo(
            "aviso", "weight_decay",
            f"weight_decay={wd:g} está por encima de lo habitual (0 a 0.1; BERT usó 0.01 y RoBERTa 0.1): "
            "regulariza de más y puede frenar el aprendizaje. Prueba 0.01.",
            FUENTES["adamw"] + "; " + FUENTES["roberta"],
        )
    if wd == 0:
        return Hallazgo(
            "ok", "weight_decay",
            "weight_decay=0 (el valor por defecto): sin regularización L2 desacoplada. Si sobreajusta, prueba 0.01.",
            FUENTES["adamw"],
        )
    return Hallazgo(
        "ok", "weight_decay", f"weight_decay={wd:g}: dentro de lo habitual (0 a 0.1).", FUENTES["adamw"] + "; " + FUENTES["roberta"]
    )


def _regla_max_grad_norm(c: Configuracion) -> Hallazgo:
    norma = c.max_grad_norm
    if norma is None or norma == 0:
        return Hallazgo(
            "aviso", "max_grad_norm",
            f"max_grad_norm={norma}: desactiva el recorte de gradientes; un lote raro puede dar un paso enorme "
            "y estropear el modelo. Deja el valor por defecto, 1.0" + (" (QLoRA usó 0.3)." if c.metodo == "qlora" else "."),
            FUENTES["pascanu"],
        )
    if norma < 0:
        return Hallazgo(
            "error", "max_grad_norm",
            f"max_grad_norm={norma:g} no tiene sentido (una norma es ≥ 0): el Trainer lo trata como «sin "
            "recorte» sin avisar. Usa 1.0" + (" (QLoRA usó 0.3)." if c.metodo == "qlora" else "."),
            FUENTES["pascanu"],
        )
    return Hallazgo(
        "ok", "max_grad_norm",
        f"max_grad_norm={norma:g}: se recorta la norma del gradiente a {norma:g}"
        + (" (QLoRA usó 0.3)." if c.metodo == "qlora" and norma != 0.3 else "."),
        FUENTES["qlora"] if c.metodo == "qlora" else FUENTES["pascanu"],
    )


def _regla_lora(c: Configuracion) -> list[Hallazgo]:
    if not c.usa_lora:
        return []
    r, alpha = c.r_efectivo, c.alpha_efectivo
    escala = alpha / r
    hallazgos = []
    if r > 256:
        hallazgos.append(Hallazgo(
            "aviso", "r",
            f"r={r} es muy alto: en el artículo de LoRA, rangos de 1 a 64 rinden parecido (GPT-3) y con r tan "
            "grande pierdes buena parte del ahorro de memoria. Prueba r=16.",
            FUENTES["lora"],
        ))
    else:
        hallazgos.append(Hallazgo("ok", "r", f"r={r}: rango razonable (de 4 a 64 es lo habitual).", FUENTES["lora"]))
    if escala > 4:
        hallazgos.append(Hallazgo(
            "aviso", "lora_alpha",
            f"lora_alpha/r = {alpha:g}/{r} = {escala:g}: la actualización de LoRA se multiplica por {escala:g}, "
            "como subir la tasa de aprendizaje. Lo habitual es lora_alpha entre r/4 y 2r.",
            FUENTES["lora"],
        ))
    elif escala < 0.25:
        hallazgos.append(Hallazgo(
            "aviso", "lora_alpha",
            f"lora_alpha/r = {alpha:g}/{r} = {escala:.3g}: la actualización de LoRA se encoge mucho, como bajar la "
            "tasa de aprendizaje. Lo habitual es lora_alpha entre r/4 (QLoRA: 16/64) y 2r.",
            FUENTES["qlora"],
        ))
    else:
        hallazgos.append(Hallazgo(
            "ok", "lora_alpha", f"lora_alpha/r = {alpha:g}/{r} = {escala:.3g}: escala habitual.", FUENTES["lora"]
        ))
    return hallazgos


def _sugerencias_memoria(c: Configuracion, precision: str, memoria_gpu: int) -> list[str]:
    sugerencias = []
    if c.metodo in ("completo", "sft"):
        for metodo, nombre in (("lora", "LoRA"), ("qlora", "QLoRA")):
            otra = _estimar_memoria(dataclasses.replace(c, metodo=metodo), precision)
            if otra.total_bytes <= memoria_gpu:
                sugerencias.append(f"{nombre} (≈ {_gib(otra.total_bytes)})")
                break
    elif c.metodo == "lora":
        otra = _estimar_memoria(dataclasses.replace(c, metodo="qlora"), precision)
        if otra.total_bytes <= memoria_gpu:
            sugerencias.append(f"QLoRA (≈ {_gib(otra.total_bytes)})")
    if not c.checkpointing_efectivo:
        otra = _estimar_memoria(dataclasses.replace(c, checkpointing=True), precision)
        sugerencias.append(f"gradient checkpointing (≈ {_gib(otra.total_bytes)})")
    if c.lote > 1:
        maximo = _lote_maximo(c, precision)
        if maximo:
            acumulacion = math.ceil(c.lote * c.acumulacion / maximo)
            sugerencias.append(
                f"lote {maximo} con gradient_accumulation_steps={acumulacion} (mismo lote efectivo)"
            )
    if precision == "fp32" and c.gpu not in (None, "cpu"):
        sugerencias.append("precisión mixta (fp16/bf16) para reducir las activaciones")
    if not sugerencias:
        sugerencias.append("una GPU con más memoria o un modelo más pequeño")
    return sugerencias


def _lote_maximo(c: Configuracion, precision: str) -> int | None:
    """El mayor lote por dispositivo que cabe en la GPU (:func:`tutor_lib.vram.lote_maximo`); ``None`` si ni 1 cabe."""
    from tutor_lib import vram

    maximo = vram.lote_maximo(c.info_gpu, c.secuencia_efectiva, **_argumentos_vram(c, precision))
    return min(maximo, c.lote - 1) or None


def _regla_memoria(c: Configuracion, memoria: Any, precision: str) -> tuple[list[Hallazgo], bool | None, float | None]:
    memoria_gpu = _memoria_gpu_bytes(c)
    total = memoria.total_bytes
    if memoria_gpu is None:
        return [], None, None
    fraccion = total / max(memoria_gpu, 1)
    nombre = _nombre_gpu(c.gpu)
    from tutor_lib import vram

    cabe = bool(vram.cabe(memoria, c.info_gpu))
    if not cabe:
        sugerencias = _sugerencias_memoria(c, precision, memoria_gpu)
        estatica = getattr(memoria, "estatica_bytes", 0)
        explicacion = (
            f"Solo pesos, gradientes y estados del optimizador ocupan {_gib(estatica)}: ni con lote 1 cabría, "
            "así que bajar el lote o el checkpointing no bastan. "
            if estatica > memoria_gpu else
            f"Las activaciones ({_gib(memoria.activaciones_bytes)}) crecen con el lote y la secuencia. "
        )
        return [Hallazgo(
            "error", "memoria",
            f"No cabe: se estiman {_gib(total)} y la {nombre} tiene {_gib(memoria_gpu)} utilizables "
            f"({_pct(fraccion)}). Tendrás «CUDA out of memory» en el primer paso. " + explicacion
            + "Prueba: " + "; ".join(sugerencias) + ".",
            FUENTES["vram"],
        )], False, fraccion
    if fraccion > MEMORIA_JUSTA:
        return [Hallazgo(
            "aviso", "memoria",
            f"Va justo: {_gib(total)} de {_gib(memoria_gpu)} utilizables en la {nombre} ({_pct(fraccion)}). La fragmentación y "
            "los picos de la evaluación pueden agotarla: baja el lote y sube la acumulación.",
            FUENTES["vram"],
        )], True, fraccion
    return [Hallazgo(
        "ok", "memoria", f"Cabe: {_gib(total)} de {_gib(memoria_gpu)} utilizables en la {nombre} ({_pct(fraccion)}).",
        FUENTES["vram"],
    )], True, fraccion


def revisar_configuracion(configuracion: Configuracion | Revision | None = None, /, **opciones: Any) -> Revision:
    """Revisa una configuración de entrenamiento y devuelve hallazgos y cifras derivadas.

    Acepta una :class:`Configuracion` o sus campos con nombre::

        revisar_configuracion(metodo="completo", parametros=66e6, ejemplos=3668,
                              lr=2e-5, lote=16, epocas=3, warmup=0.06, gpu="T4")

    Reglas (cada una da un hallazgo ``ok``, ``aviso`` o ``error`` con su fuente):
    tasa de aprendizaje según método (:data:`RANGOS_LR`), épocas según datos y
    método, warmup fuera del 3–10 % (``error`` si cubre todo el entrenamiento),
    lote efectivo, precisión frente a la GPU (bf16 en una T4 es ``error``),
    ``logging_steps``/``eval_steps`` frente a la duración, ``load_best_model_at_end``
    y sus estrategias, requisitos de ``EarlyStoppingCallback``, memoria frente a la
    GPU (``error`` si no cabe, con sugerencias), ``weight_decay``, ``max_grad_norm``
    y ``r``/``lora_alpha``. Una entrada inválida lanza ``ValueError``/``TypeError``.
    Es pura y rápida (sin torch). Se usa en lessons/04_warmup_y_regularizacion.
    """
    c = _como_configuracion(configuracion, opciones)
    por_epoca = _warmup.pasos_por_epoca(c.ejemplos, c.lote, c.acumulacion, c.dispositivos)
    total = _warmup.pasos_totales(c.ejemplos, c.lote, c.epocas, c.acumulacion, c.dispositivos, c.max_pasos)
    pasos_warmup = _warmup.pasos_de_warmup(c.warmup, total)
    epocas = c.epocas if c.max_pasos <= 0 else c.max_pasos / por_epoca
    rango = RANGOS_LR[(c.metodo, c.tarea_efectiva)]
    precision = c.precision_efectiva

    hallazgos: list[Hallazgo] = []
    hallazgos += _regla_lr(c, rango)
    hallazgos.append(_regla_epocas(c, epocas))
    hallazgos.append(_regla_warmup(c, total, pasos_warmup))
    hallazgos += _regla_lote(c, por_epoca)
    hallazgos.append(_regla_precision(c))
    hallazgo_log, registros = _regla_logging(c, total)
    hallazgos.append(hallazgo_log)
    evaluaciones, intervalo_eval = _evaluaciones(c, total, epocas)
    hallazgos.append(_regla_evaluacion(c, total, evaluaciones, intervalo_eval))
    hallazgos += _regla_mejor_modelo(c, total, intervalo_eval)
    hallazgos += _regla_early_stopping(c, evaluaciones)
    hallazgos.append(_regla_weight_decay(c))
    hallazgos.append(_regla_max_grad_norm(c))
    hallazgos += _regla_lora(c)
    memoria = _estimar_memoria(c, precision)
    hallazgos_memoria, cabe, fraccion = _regla_memoria(c, memoria, precision)
    hallazgos += hallazgos_memoria

    return Revision(
        configuracion=c,
        hallazgos=hallazgos,
        pasos_por_epoca=por_epoca,
        pasos_totales=total,
        pasos_warmup=pasos_warmup,
        lote_efectivo=c.lote_efectivo,
        memoria=memoria,
        cabe=cabe,
        fraccion_memoria=fraccion,
        precision=precision,
        registros=registros,
        evaluaciones=evaluaciones,
        rango_lr=rango,
    )


def logging_steps_sugerido(pasos_totales: int, objetivo: int = 25) -> int:
    """Un ``logging_steps`` redondo que da unos ``objetivo`` registros en ``pasos_totales`` pasos.

    Redondea hacia abajo a 1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500...
    Se usa en lessons/04_warmup_y_regularizacion.
    """
    total = _entero("pasos_totales", pasos_totales, 1, 10**15)
    objetivo = _entero("objetivo", objetivo, 1, 10**6)
    bruto = max(1, total // objetivo)
    mejor = 1
    potencia = 1
    while potencia <= bruto:
        for m in (1, 2, 2.5, 5):
            candidato = int(m * potencia)
            if candidato == m * potencia and candidato <= bruto:
                mejor = max(mejor, candidato)
        potencia *= 10
    return mejor


# --------------------------------------------------------------------------
# Generación: TrainingArguments / SFTConfig con los nombres de transformers 5
# --------------------------------------------------------------------------


def _nombre_checkpointing() -> str:
    """``activation_checkpointing`` si la versión instalada lo tiene (5.x reciente); si no, ``gradient_checkpointing``.

    Lee el código fuente de ``transformers/training_args.py`` como texto en vez
    de importarlo (importar transformers tarda segundos).
    """
    return _nombre_checkpointing_cacheado()


def _leer_nombre_checkpointing() -> str:
    import importlib.util
    from pathlib import Path

    try:
        especificacion = importlib.util.find_spec("transformers")
        if especificacion is None or especificacion.origin is None:
            return "gradient_checkpointing"
        texto = (Path(especificacion.origin).parent / "training_args.py").read_text(encoding="utf-8")
    except (OSError, ImportError, ValueError):  # pragma: no cover - instalación rara
        return "gradient_checkpointing"
    return "activation_checkpointing" if "\n    activation_checkpointing:" in texto else "gradient_checkpointing"


_CACHE_CHECKPOINTING: list[str] = []


def _nombre_checkpointing_cacheado() -> str:
    if not _CACHE_CHECKPOINTING:
        _CACHE_CHECKPOINTING.append(_leer_nombre_checkpointing())
    return _CACHE_CHECKPOINTING[0]


def clase_de_argumentos(configuracion: Configuracion | Revision | None = None, /, **opciones: Any) -> str:
    """``"SFTConfig"`` para modelos causales (``sft``, o LoRA/QLoRA sobre un LLM) y ``"TrainingArguments"`` si no.

    Se usa en lessons/04_warmup_y_regularizacion.
    """
    c = _como_configuracion(configuracion, opciones)
    return "SFTConfig" if c.tarea_efectiva == "causal" else "TrainingArguments"


def _precision_segura(c: Configuracion, corregir: bool) -> str:
    """La precisión efectiva, cambiada por la recomendada si la pedida falla en ese hardware."""
    precision = c.precision_efectiva
    if not corregir:
        return precision
    if c.es_cpu and precision == "fp16":
        return "fp32"
    info = c.info_gpu
    if info is not None and precision == "bf16" and not info.soporta_bf16:
        return "fp16"
    return precision


def argumentos_de_entrenamiento(
    configuracion: Configuracion | Revision | None = None,
    /,
    *,
    output_dir: str = "salida",
    corregir: bool = True,
    **opciones: Any,
) -> dict[str, Any]:
    """Diccionario de argumentos para ``TrainingArguments(**d)`` (o ``SFTConfig(**d)``) con nombres de transformers 5.

    Usa solo nombres actuales: ``eval_strategy``, ``warmup_steps`` (un float en
    [0, 1) es una fracción), ``use_cpu=True`` en CPU, ``report_to="none"``,
    ``activation_checkpointing`` (o ``gradient_checkpointing`` en versiones que
    no lo tienen). ``fp16``/``bf16`` salen de la capacidad de cómputo de la GPU
    si no das ``precision``. Si no das ``logging_steps`` se elige uno que dé
    unos 25 registros (el 500 por defecto no registra nada en un entrenamiento
    corto); con ``eval_strategy="steps"`` y sin ``eval_steps``, unas 10
    evaluaciones; con ``save_strategy="steps"`` y sin ``save_steps``, unos 5
    checkpoints (como mucho 2 guardados a la vez: ``save_total_limit=2``). Para modelos causales añade lo de ``SFTConfig``
    (``max_length``, ``packing``).

    Con ``corregir=True`` (por defecto) se arreglan los errores que tienen un
    único arreglo seguro: bf16 en una GPU sin bf16 → fp16; fp16 en CPU → fp32;
    ``save_strategy``/``save_steps`` alineados con la evaluación si pides
    ``load_best_model_at_end``. El resto se copia tal cual: revisa antes los
    hallazgos con :func:`revisar_configuracion`.
    Se usa en lessons/04_warmup_y_regularizacion.
    """
    c = _como_configuracion(configuracion, opciones)
    if not isinstance(output_dir, str) or not output_dir.strip():
        raise TypeError(f"output_dir debe ser una ruta (texto no vacío); recibí {output_dir!r}.")
    if not isinstance(corregir, bool):
        raise TypeError(f"corregir debe ser True o False; recibí {corregir!r}.")
    total = _warmup.pasos_totales(c.ejemplos, c.lote, c.epocas, c.acumulacion, c.dispositivos, c.max_pasos)
    precision = _precision_segura(c, corregir)
    causal = c.tarea_efectiva == "causal"

    d: dict[str, Any] = {"output_dir": output_dir}
    if c.max_pasos > 0:
        d["max_steps"] = c.max_pasos
    else:
        d["num_train_epochs"] = int(c.epocas) if float(c.epocas).is_integer() else c.epocas
    d["per_device_train_batch_size"] = c.lote
    d["per_device_eval_batch_size"] = 2 * c.lote
    d["gradient_accumulation_steps"] = c.acumulacion
    d["learning_rate"] = c.lr
    d["lr_scheduler_type"] = c.scheduler_efectivo
    d["warmup_steps"] = c.warmup
    d["weight_decay"] = c.weight_decay
    d["max_grad_norm"] = c.max_grad_norm if c.max_grad_norm is not None else 0.0
    d["bf16"] = precision == "bf16"
    d["fp16"] = precision == "fp16"
    if c.es_cpu:
        d["use_cpu"] = True
    if c.checkpointing_efectivo or causal:  # SFTConfig lo activa por defecto: siempre explícito
        d[_nombre_checkpointing()] = c.checkpointing_efectivo
    if c.metodo == "qlora" and c.info_gpu is not None:
        d["optim"] = "paged_adamw_8bit"
    d["logging_steps"] = c.logging_steps if c.logging_steps is not None else logging_steps_sugerido(total)

    eval_steps = None
    d["eval_strategy"] = c.eval_strategy
    if c.eval_strategy == "steps":
        eval_steps = c.eval_steps if c.eval_steps is not None else logging_steps_sugerido(total, objetivo=10)
        d["eval_steps"] = eval_steps
    save_strategy = c.save_strategy
    save_steps = c.save_steps
    if corregir and c.load_best_model_at_end and c.eval_strategy != "no" and save_strategy != "best":
        if save_strategy != c.eval_strategy:
            save_strategy = c.eval_strategy
            save_steps = None
        if save_strategy == "steps" and eval_steps is not None:
            guardar = _pasos_de_intervalo(save_steps if save_steps is not None else SAVE_STEPS_POR_DEFECTO, total)
            if guardar % _pasos_de_intervalo(eval_steps, total) != 0:
                save_steps = None
            if save_steps is None:
                save_steps = eval_steps
    d["save_strategy"] = save_strategy
    if save_strategy == "steps":
        d["save_steps"] = save_steps if save_steps is not None else (
            eval_steps if eval_steps is not None else logging_steps_sugerido(total, objetivo=5)
        )
    if save_strategy != "no":
        d["save_total_limit"] = 2
    if c.load_best_model_at_end:
        d["load_best_model_at_end"] = True
    if c.metric_for_best_model is not None:
        d["metric_for_best_model"] = c.metric_for_best_model
    elif corregir and save_strategy == "best" and not c.load_best_model_at_end:
        d["metric_for_best_model"] = "eval_loss"
    if causal:
        d["max_length"] = c.secuencia_efectiva
        d["packing"] = False
    d["report_to"] = "none"
    d["seed"] = 42
    return d


def _argumentos_sin_sft(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k not in ("max_length", "packing")}


def construir_training_arguments(
    configuracion: Configuracion | Revision | None = None, /, *, output_dir: str = "salida", corregir: bool = True,
    **opciones: Any,
):
    """Crea un ``transformers.TrainingArguments`` real a partir de :func:`argumentos_de_entrenamiento`.

    En un modelo causal deja fuera ``max_length``/``packing`` (son de ``SFTConfig``).
    Si transformers rechaza la combinación, lanza ``ValueError`` en español con
    su mensaje original. Se usa en lessons/04_warmup_y_regularizacion.
    """
    d = _argumentos_sin_sft(argumentos_de_entrenamiento(configuracion, output_dir=output_dir, corregir=corregir, **opciones))
    from transformers import TrainingArguments

    return _construir(TrainingArguments, d)


def construir_sft_config(
    configuracion: Configuracion | Revision | None = None, /, *, output_dir: str = "salida", corregir: bool = True,
    **opciones: Any,
):
    """Crea un ``trl.SFTConfig`` real (``max_length``, ``packing``, precisión explícita) para un modelo causal.

    ``SFTConfig`` activa bf16 y el checkpointing por defecto: aquí siempre se
    pasan explícitos, para que no falle en una T4 ni en CPU. Lanza
    ``ValueError`` si la tarea es de clasificación.
    Se usa en lessons/04_warmup_y_regularizacion y en la lección de QLoRA y SFT.
    """
    c = _como_configuracion(configuracion, opciones)
    if c.tarea_efectiva != "causal":
        raise ValueError(
            "SFTConfig es para modelos causales (metodo='sft', o LoRA/QLoRA sobre un LLM con tarea='causal'); "
            "esta configuración es de clasificación: usa construir_training_arguments()."
        )
    d = argumentos_de_entrenamiento(c, output_dir=output_dir, corregir=corregir)
    from trl import SFTConfig

    return _construir(SFTConfig, d)


def _construir(clase, d: dict[str, Any]):
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            return clase(**d)
    except (ValueError, TypeError) as exc:
        raise ValueError(
            f"{clase.__name__} rechazó la configuración: {exc}. Revisa los hallazgos de nivel error con "
            "revisar_configuracion()."
        ) from exc


def _comentario(clave: str, valor: Any, c: Configuracion, total: int, precision_pedida: str) -> str:
    if clave == "warmup_steps":
        pasos = _warmup.pasos_de_warmup(valor, total)
        if isinstance(valor, float) and valor < 1:
            return f"fracción: {_pct(valor, 1 if (valor * 100) % 1 else 0)} de {total} pasos = {pasos} pasos de warmup"
        return f"{pasos} de {total} pasos"
    if clave == "gradient_accumulation_steps":
        return f"lote efectivo {c.lote_efectivo}"
    if clave in ("fp16", "bf16") and valor:
        info = c.info_gpu
        if info is not None:
            texto = f"{info.nombre}: capacidad {info.capacidad[0]}.{info.capacidad[1]}"
            if precision_pedida != clave:
                texto += f" (pediste {precision_pedida})"
            return texto
    if clave == "use_cpu":
        return "sin GPU"
    if clave == "logging_steps":
        return f"≈ {total // _pasos_de_intervalo(valor, total)} registros en {total} pasos"
    if clave == "num_train_epochs":
        return f"{total} pasos de optimización en total"
    if clave == "report_to":
        return "sin wandb ni tensorboard"
    return ""


def codigo_python(
    configuracion: Configuracion | Revision | None = None,
    /,
    *,
    output_dir: str = "salida",
    corregir: bool = True,
    clase: str | None = None,
    variable: str = "args",
    **opciones: Any,
) -> str:
    """Código Python para pegar en un notebook que crea los mismos ``TrainingArguments``/``SFTConfig``.

    ``clase``: ``"TrainingArguments"`` o ``"SFTConfig"`` (por defecto, la de
    :func:`clase_de_argumentos`). Ejecutar el código da un objeto con el mismo
    ``to_dict()`` que :func:`construir_training_arguments`/:func:`construir_sft_config`.
    Se usa en lessons/04_warmup_y_regularizacion.
    """
    c = _como_configuracion(configuracion, opciones)
    clase = clase if clase is not None else clase_de_argumentos(c)
    if clase not in ("TrainingArguments", "SFTConfig"):
        raise ValueError(f"clase debe ser 'TrainingArguments' o 'SFTConfig'; recibí {clase!r}.")
    if not isinstance(variable, str) or not variable.isidentifier():
        raise ValueError(f"variable debe ser un nombre de Python válido; recibí {variable!r}.")
    if clase == "SFTConfig" and c.tarea_efectiva != "causal":
        raise ValueError("SFTConfig es para modelos causales; esta configuración es de clasificación.")
    d = argumentos_de_entrenamiento(c, output_dir=output_dir, corregir=corregir)
    if clase == "TrainingArguments":
        d = _argumentos_sin_sft(d)
    total = _warmup.pasos_totales(c.ejemplos, c.lote, c.epocas, c.acumulacion, c.dispositivos, c.max_pasos)
    modulo = "trl" if clase == "SFTConfig" else "transformers"
    lineas = [f"from {modulo} import {clase}", "", f"{variable} = {clase}("]
    for clave, valor in d.items():
        linea = f"    {clave}={valor!r},"
        comentario = _comentario(clave, valor, c, total, c.precision_efectiva)
        if comentario:
            linea = f"{linea:<48}  # {comentario}"
        lineas.append(linea)
    lineas.append(")")
    return "\n".join(lineas) + "\n"


# --------------------------------------------------------------------------
# El widget (capa fina: recoge valores, llama a revisar_configuracion y pinta)
# --------------------------------------------------------------------------

ICONOS = {"ok": "✅", "aviso": "⚠️", "error": "❌"}
COLORES = {"ok": "#009E73", "aviso": "#E69F00", "error": "#D55E00"}  # Okabe-Ito
#: Como mucho tantos puntos en la gráfica del widget: la forma del schedule se
#: calcula sobre una versión reducida del entrenamiento y se reescala el eje.
PUNTOS_GRAFICA = 300

_OPCIONES_EJEMPLOS = (100, 250, 500, 1000, 2000, 3668, 5000, 10_000, 25_000, 50_000, 100_000, 500_000)
_OPCIONES_LOTE = (1, 2, 4, 8, 16, 32, 64, 128, 256)
_OPCIONES_ACUMULACION = (1, 2, 4, 8, 16, 32, 64)
_ETIQUETAS_METODO = (
    ("Ajuste completo", "completo"),
    ("LoRA", "lora"),
    ("QLoRA (base en 4 bits)", "qlora"),
    ("SFT completo (trl)", "sft"),
)


def hallazgos_html(hallazgos: Iterable[Hallazgo]) -> str:
    """Lista HTML de hallazgos con icono por nivel (✅ ok, ⚠️ aviso, ❌ error), mensaje y fuente.

    Cada ``<li>`` lleva ``data-nivel`` y ``data-parametro`` para las pruebas en
    el navegador. Se usa en el widget de lessons/04_warmup_y_regularizacion.
    """
    import html

    filas = []
    for h in hallazgos:
        filas.append(
            f'<li class="tutor-hallazgo tutor-{h.nivel}" data-nivel="{h.nivel}" '
            f'data-parametro="{html.escape(h.parametro)}" '
            f'style="margin:0.3em 0;padding-left:6px;border-left:4px solid {COLORES[h.nivel]}">'
            f'<span title="{h.nivel}">{ICONOS[h.nivel]}</span> '
            f'<code>{html.escape(h.parametro)}</code>: {html.escape(h.mensaje)}'
            f'<br><small style="color:#555">Fuente: {html.escape(h.fuente)}</small></li>'
        )
    return '<ul class="tutor-hallazgos" style="list-style:none;padding-left:0;margin:0">' + "".join(filas) + "</ul>"


def resumen_html(revision: Revision) -> str:
    """Cifras derivadas en una línea HTML (lote efectivo, pasos, warmup, memoria).

    Se usa en el widget de lessons/04_warmup_y_regularizacion.
    """
    cifras = [
        ("lote_efectivo", "Lote efectivo", revision.lote_efectivo),
        ("pasos_por_epoca", "Pasos por época", revision.pasos_por_epoca),
        ("pasos_totales", "Pasos totales", revision.pasos_totales),
        ("pasos_warmup", "Pasos de warmup", revision.pasos_warmup),
        ("precision", "Precisión", revision.precision),
    ]
    partes = [f'{etiqueta}: <b data-cifra="{clave}">{valor}</b>' for clave, etiqueta, valor in cifras]
    n = {nivel: sum(h.nivel == nivel for h in revision.hallazgos) for nivel in NIVELES}
    partes.append(f"{ICONOS['ok']} {n['ok']} · {ICONOS['aviso']} {n['aviso']} · {ICONOS['error']} {n['error']}")
    return '<div class="tutor-resumen">' + " · ".join(partes) + "</div>"


def _ticks(maximo: float, n: int = 4) -> list[float]:
    """Marcas redondas (1, 2, 2,5, 5 × 10^k) entre 0 y ``maximo``."""
    if maximo <= 0:
        return [0.0]
    bruto = maximo / n
    potencia = 10 ** math.floor(math.log10(bruto))
    paso = next(m * potencia for m in (1, 2, 2.5, 5, 10) if m * potencia >= bruto)
    return [i * paso for i in range(int(maximo / paso + 1e-9) + 1)]


def svg_schedule(lr: float, pasos_totales: int, pasos_warmup: int, tipo: str = "linear",
                 ancho: int = 560, alto: int = 240) -> str:
    """Gráfica SVG (texto) de la tasa de aprendizaje en cada paso, con el warmup sombreado.

    Los valores salen de :func:`tutor_lib.warmup.tasas_de_aprendizaje` (el
    scheduler real de transformers). Con más de :data:`PUNTOS_GRAFICA` pasos,
    la curva se calcula sobre un entrenamiento reducido a ese número de pasos
    con el warmup en la misma proporción y se reescala el eje x: la forma es la
    misma. Es SVG y no matplotlib para que el widget se actualice en
    milisegundos. Se usa en el widget de lessons/04_warmup_y_regularizacion.
    """
    import html

    lr = _real("lr", lr, 0.0, 1.0, minimo_incluido=False)
    total = _entero("pasos_totales", pasos_totales, 1, 10**15)
    pasos_warmup = _entero("pasos_warmup", pasos_warmup, 0, 10**15)
    puntos = min(total, PUNTOS_GRAFICA)
    warmup_reducido = pasos_warmup if puntos == total else round(pasos_warmup * puntos / total)
    tasas = _warmup.tasas_de_aprendizaje(lr, puntos, min(warmup_reducido, puntos), tipo)
    izq, der, arr, aba = 62, 12, 26, 40
    w, h = ancho - izq - der, alto - arr - aba
    xmax = max(total - 1, 1)
    escala = (total - 1) / max(puntos - 1, 1)
    ymax = lr * 1.08
    x = lambda paso: izq + w * paso / xmax  # noqa: E731
    y = lambda tasa: arr + h * (1 - tasa / ymax)  # noqa: E731
    trazo = " ".join(f"{x(i * escala):.1f},{y(t):.1f}" for i, t in enumerate(tasas))
    partes = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{ancho}" height="{alto}" role="img" '
        f'class="tutor-schedule" data-pasos="{total}" data-warmup="{pasos_warmup}" '
        f'style="font-family:sans-serif;font-size:11px">',
        f"<title>Tasa de aprendizaje por paso ({html.escape(tipo)})</title>",
    ]
    if pasos_warmup > 0:
        fin = x(min(pasos_warmup, xmax))
        partes.append(f'<rect x="{izq}" y="{arr}" width="{fin - izq:.1f}" height="{h}" fill="#e0e0e0"/>')
    for valor in _ticks(xmax):
        partes.append(f'<line x1="{x(valor):.1f}" y1="{arr}" x2="{x(valor):.1f}" y2="{arr + h}" stroke="#eee"/>')
        partes.append(f'<text x="{x(valor):.1f}" y="{arr + h + 14}" text-anchor="middle">{valor:g}</text>')
    for valor in _ticks(lr):
        partes.append(f'<line x1="{izq}" y1="{y(valor):.1f}" x2="{izq + w}" y2="{y(valor):.1f}" stroke="#eee"/>')
        partes.append(f'<text x="{izq - 4}" y="{y(valor) + 4:.1f}" text-anchor="end">{_fmt(valor) if valor else 0}</text>')
    partes += [
        f'<rect x="{izq}" y="{arr}" width="{w}" height="{h}" fill="none" stroke="#888"/>',
        f'<polyline class="tutor-curva" fill="none" stroke="#0072B2" stroke-width="2" points="{trazo}"/>',
        f'<text x="{izq + w / 2}" y="{alto - 6}" text-anchor="middle">Paso de optimización</text>',
        f'<text transform="translate(12,{arr + h / 2}) rotate(-90)" text-anchor="middle">Tasa de aprendizaje</text>',
        f'<text x="{izq + w / 2}" y="16" text-anchor="middle" font-weight="bold">'
        f"{html.escape(tipo)}: lr máx. {_fmt(lr)}, warmup {pasos_warmup} de {total} pasos</text>",
        "</svg>",
    ]
    return "".join(partes)


def graficar_revision(revision: Revision):
    """Figura de matplotlib con el schedule de una revisión (para un notebook, fuera del widget).

    Capa fina sobre :func:`tutor_lib.warmup.graficar_schedules`.
    Se usa en lessons/04_warmup_y_regularizacion.
    """
    if not isinstance(revision, Revision):
        raise TypeError(f"revision debe ser una Revision de revisar_configuracion(); recibí {type(revision).__name__}.")
    c = revision.configuracion
    return _warmup.graficar_schedules(c.lr, revision.pasos_totales, revision.pasos_warmup, (c.scheduler_efectivo,))


def _opciones_con(valores: tuple, valor: Any) -> list:
    return sorted(set(valores) | {valor})


def widget_configurador(
    metodo: str = "completo",
    modelo: str = "distilbert",
    ejemplos: int = 3668,
    lr: float = 2e-5,
    lote: int = 16,
    acumulacion: int = 1,
    epocas: float = 3.0,
    warmup: float = 0.06,
    weight_decay: float = 0.01,
    precision: str = "auto",
    gpu: str = "T4",
    eval_strategy: str = "no",
    logging_steps: int = LOGGING_STEPS_POR_DEFECTO,
    checkpointing: str = "auto",
):
    """Widget del configurador: controles → :func:`revisar_configuracion` → hallazgos, cifras, memoria y gráfica.

    Devuelve un ``VBox`` con estos atributos (para el notebook y las pruebas):
    ``controles`` (dict nombre → widget; las claves son los nombres de
    :class:`Configuracion` más ``modelo``), ``salida_hallazgos`` (HTML con la
    lista de hallazgos), ``salida_resumen`` (HTML con las cifras),
    ``barra_memoria`` (``FloatProgress``: fracción de la GPU), ``texto_memoria``,
    ``grafica`` (HTML con el SVG del schedule de la tasa de aprendizaje, ver
    :func:`svg_schedule`),
    ``salida_codigo`` (el código de ``TrainingArguments`` para pegar),
    ``revision`` (la última :class:`Revision`) y ``actualizar()``. Los
    deslizadores solo actualizan al soltarlos y la gráfica solo se redibuja si
    cambian lr, pasos, warmup o schedule (objetivo: < 50 ms por actualización).
    Se usa en lessons/04_warmup_y_regularizacion.
    """
    import html

    import ipywidgets as widgets

    gpus = nombres_de_gpus()
    modelo = _opcion("modelo", modelo, MODELOS)
    if gpu not in (*gpus, "cpu"):
        gpu = _gpu(gpu)
    estilo = {"description_width": "150px"}
    ancho = widgets.Layout(width="430px")
    comun = dict(style=estilo, layout=ancho)
    deslizador = dict(continuous_update=False, **comun)
    controles = {
        "metodo": widgets.Dropdown(options=_ETIQUETAS_METODO, value=_opcion("metodo", metodo, METODOS),
                                   description="Método", **comun),
        "modelo": widgets.Dropdown(options=[(v[0], k) for k, v in MODELOS.items()], value=modelo,
                                   description="Modelo", **comun),
        "ejemplos": widgets.SelectionSlider(
            options=_opciones_con(_OPCIONES_EJEMPLOS, _entero("ejemplos", ejemplos, 1, 10**12)), value=int(ejemplos),
            description="Ejemplos de entrenamiento", **deslizador),
        "lr": widgets.SelectionSlider(
            options=_warmup.opciones_lr(_real("lr", lr, 0.0, 1.0, minimo_incluido=False)),
            value=float(lr), description="Tasa de aprendizaje", **deslizador),
        "lote": widgets.SelectionSlider(options=_opciones_con(_OPCIONES_LOTE, _entero("lote", lote, 1, 65536)),
                                        value=int(lote), description="Lote por dispositivo", **deslizador),
        "acumulacion": widgets.SelectionSlider(
            options=_opciones_con(_OPCIONES_ACUMULACION, _entero("acumulacion", acumulacion, 1, 65536)),
            value=int(acumulacion), description="Acumulación de gradientes", **deslizador),
        "epocas": widgets.FloatSlider(value=_real("epocas", epocas, 0.5, 30.0), min=0.5, max=30, step=0.5,
                                      description="Épocas", **deslizador),
        "warmup": widgets.FloatSlider(value=_real("warmup", warmup, 0.0, 0.5), min=0.0, max=0.5, step=0.01,
                                      description="Warmup (fracción)", **deslizador),
        "weight_decay": widgets.FloatSlider(value=_real("weight_decay", weight_decay, 0.0, 0.5), min=0.0, max=0.5,
                                            step=0.01, description="Weight decay", **deslizador),
        "precision": widgets.Dropdown(
            options=[("automática (según la GPU)", "auto"), ("fp32", "fp32"), ("fp16", "fp16"), ("bf16", "bf16")],
            value=precision, description="Precisión", **comun),
        "gpu": widgets.Dropdown(options=[("CPU (sin GPU)", "cpu")] + [(g, g) for g in gpus], value=gpu,
                                description="GPU", **comun),
        "eval_strategy": widgets.Dropdown(options=[("no evaluar", "no"), ("cada época", "epoch")],
                                          value=eval_strategy, description="Evaluación", **comun),
        "logging_steps": widgets.Dropdown(
            options=[("500 (por defecto)", 500), ("100", 100), ("50", 50), ("25", 25), ("10", 10), ("1", 1)],
            value=logging_steps, description="logging_steps", **comun),
        "checkpointing": widgets.Dropdown(
            options=[("automático", "auto"), ("sí", "si"), ("no", "no")], value=checkpointing,
            description="Gradient checkpointing", **comun),
    }
    salida_resumen = widgets.HTML()
    barra_memoria = widgets.FloatProgress(value=0.0, min=0.0, max=1.0, description="Memoria", style=estilo,
                                          layout=widgets.Layout(width="430px"))
    texto_memoria = widgets.HTML()
    salida_hallazgos = widgets.HTML()
    grafica = widgets.HTML()
    salida_codigo = widgets.HTML()
    codigo_plegable = widgets.Accordion(children=[salida_codigo], titles=("Código para pegar en tu notebook",))
    codigo_plegable.selected_index = None

    estado: dict[str, Any] = {"clave_grafica": None}

    columnas = list(controles.values())
    mitad = (len(columnas) + 1) // 2

    class PanelConfigurador(widgets.VBox):
        """Panel del configurador de hiperparámetros (ver :func:`widget_configurador`)."""

    panel = PanelConfigurador([
        widgets.HBox([widgets.VBox(columnas[:mitad]), widgets.VBox(columnas[mitad:])]),
        salida_resumen,
        widgets.HBox([barra_memoria, texto_memoria]),
        salida_hallazgos,
        grafica,
        codigo_plegable,
    ])
    panel.controles = controles
    panel.salida_resumen = salida_resumen
    panel.barra_memoria = barra_memoria
    panel.texto_memoria = texto_memoria
    panel.salida_hallazgos = salida_hallazgos
    panel.grafica = grafica
    panel.salida_codigo = salida_codigo
    panel.revision = None
    panel.veces_graficada = 0

    def configuracion() -> Configuracion:
        v = {k: w.value for k, w in controles.items()}
        _, parametros, tarea = MODELOS[v["modelo"]]
        eval_strategy_ = v["eval_strategy"]
        return Configuracion(
            metodo=v["metodo"], parametros=parametros, tarea=tarea, ejemplos=v["ejemplos"], lr=v["lr"],
            lote=v["lote"], acumulacion=v["acumulacion"], epocas=v["epocas"], warmup=v["warmup"],
            weight_decay=v["weight_decay"], precision=None if v["precision"] == "auto" else v["precision"],
            gpu=v["gpu"], eval_strategy=eval_strategy_,
            save_strategy="epoch" if eval_strategy_ == "epoch" else "steps",
            logging_steps=v["logging_steps"],
            checkpointing=None if v["checkpointing"] == "auto" else v["checkpointing"] == "si",
        )

    def dibujar(revision: Revision) -> None:
        c = revision.configuracion
        clave = (c.lr, revision.pasos_totales, revision.pasos_warmup, c.scheduler_efectivo)
        if clave == estado["clave_grafica"]:
            return
        total = revision.pasos_totales
        grafica.value = svg_schedule(c.lr, total, revision.pasos_warmup, c.scheduler_efectivo)
        estado["clave_grafica"] = clave
        panel.veces_graficada += 1

    def actualizar(_cambio=None) -> None:
        try:
            revision = revisar_configuracion(configuracion())
        except (ValueError, TypeError) as exc:
            salida_hallazgos.value = (
                f'<div class="tutor-hallazgos tutor-error">{ICONOS["error"]} <b>Revisa los valores:</b> '
                f"{html.escape(str(exc))}</div>"
            )
            return
        panel.revision = revision
        salida_resumen.value = resumen_html(revision)
        salida_hallazgos.value = hallazgos_html(revision.hallazgos)
        total = getattr(revision.memoria, "total_bytes", 0)
        if revision.fraccion_memoria is None:
            barra_memoria.value = 0.0
            barra_memoria.bar_style = ""
            texto_memoria.value = f"Memoria estimada: {_gib(total)} (sin GPU con la que comparar)"
        else:
            barra_memoria.value = min(revision.fraccion_memoria, 1.0)
            barra_memoria.bar_style = (
                "danger" if not revision.cabe else "warning" if revision.fraccion_memoria > MEMORIA_JUSTA else "success"
            )
            texto_memoria.value = html.escape(_texto_memoria(revision))
        salida_codigo.value = "<pre>" + html.escape(codigo_python(revision)) + "</pre>"
        dibujar(revision)

    panel.configuracion = configuracion
    panel.actualizar = actualizar
    for control in controles.values():
        control.observe(actualizar, names="value")
    actualizar()
    return panel
