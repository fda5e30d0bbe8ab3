"""Tipos del configurador: :class:`Hallazgo`, :class:`Configuracion` (se valida al crearla) y :class:`Revision`.

Se usa en lessons/04_warmup_y_regularizacion y en ``tutor configurar``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from tutor_lib import warmup as _warmup
from tutor_lib.configurador.constantes import (
    ALPHA_POR_DEFECTO,
    ESTRATEGIAS_EVAL,
    ESTRATEGIAS_GUARDADO,
    METODOS,
    MODELOS,
    NIVELES,
    PRECISIONES,
    R_POR_DEFECTO,
    SECUENCIA_POR_DEFECTO,
    TAREAS,
    UMBRAL_CAUSAL,
    RangoLR,
)
from tutor_lib.configurador.formato import _gib, _pct, _plural
from tutor_lib.formato import entero
from tutor_lib.configurador.validacion import (
    _booleano,
    _entero,
    _gpu,
    _info_gpu,
    _nombre_gpu,
    _opcion,
    _parametros,
    _pasos_o_fraccion,
    _real,
    _valor_enum,
    _warmup_valido,
)


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
            f"Método: {c.metodo} ({_TAREAS_EN_TEXTO.get(c.tarea_efectiva, c.tarea_efectiva)}), "
            + entero(c.parametros) + " parámetros",
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
# De los argumentos de las funciones a una Configuracion
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


#: Cómo se escribe cada tarea en el texto (el valor del código, ``"clasificacion"``, va sin tilde).
_TAREAS_EN_TEXTO = {"clasificacion": "clasificación", "causal": "modelo de lenguaje causal",
                    "mascara": "modelo de lenguaje con máscara", "base": "sin cabeza"}


# --- la memoria de una revisión, en texto y en JSON (lo usan Revision y el widget) ---


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
