"""La tarea de un modelo (qué cabeza lleva) y la clase de transformers que la construye.

Un mismo config da modelos de tamaños distintos según la cabeza: BETO con la de
lenguaje con máscara tiene 109 883 418 parámetros; como clasificador de 2 clases,
109 852 418. ``tutor vram`` y ``tutor lora`` eligen aquí **una** tarea por modelo
(:func:`tarea_por_defecto`), la muestran (:func:`describir_tarea`) y la cambian con
``--tarea``. Se usa en lessons/07_memoria_y_fine_tuning_completo y lessons/10_lora.
"""

from __future__ import annotations

from typing import Any

#: Tareas que se pueden pedir, con la clase «Auto» de transformers que construye cada una.
CLASES_AUTO: dict[str, str] = {
    "clasificacion": "AutoModelForSequenceClassification",
    "causal": "AutoModelForCausalLM",
    "mascara": "AutoModelForMaskedLM",
    "base": "AutoModel",
}
TAREAS: tuple[str, ...] = tuple(CLASES_AUTO)

#: Texto de ``--ayuda`` para ``--tarea`` (lo comparten ``tutor vram`` y ``tutor lora``).
AYUDA_TAREA = (
    "qué cabeza lleva el modelo, y por tanto cuántos parámetros tiene: clasificacion "
    "(AutoModelForSequenceClassification, con las etiquetas del config; 2 si no dice), causal "
    "(AutoModelForCausalLM, predice el siguiente token), mascara (AutoModelForMaskedLM, "
    "como se preentrenó BERT) o base (AutoModel, sin cabeza). Por defecto: clasificacion para "
    "un encoder (BERT, RoBERTa...) y causal para un modelo de lenguaje (Llama, Qwen, GPT-2...)"
)

#: Tipos de modelo que son encoders (se afinan como clasificadores en el curso).
TIPOS_ENCODER = frozenset({
    "bert", "distilbert", "roberta", "xlm-roberta", "electra", "camembert", "albert", "deberta",
    "deberta-v2", "mpnet", "modernbert",
})
#: Tipos de modelo de lenguaje causal (decoder).
TIPOS_CAUSALES = frozenset({
    "llama", "mistral", "qwen2", "qwen3", "gemma", "gemma2", "gemma3_text", "phi", "phi3", "gpt2",
    "gpt_neox", "opt", "falcon", "mixtral", "smollm3", "olmo", "olmo2",
})

_SUFIJOS = (
    ("ForSequenceClassification", "clasificacion"),
    ("ForCausalLM", "causal"),
    ("LMHeadModel", "causal"),
    ("ForMaskedLM", "mascara"),
)


def validar_tarea(tarea: Any) -> str:
    """``tarea`` en minúsculas si es una de :data:`TAREAS`; si no, ``ValueError``/``TypeError`` en español."""
    if not isinstance(tarea, str):
        raise TypeError(f"tarea debe ser un texto, una de {', '.join(TAREAS)}; recibí {tarea!r} ({type(tarea).__name__}).")
    limpia = tarea.strip().lower()
    if limpia not in TAREAS:
        raise ValueError(f"tarea desconocida: {tarea!r}. Valores válidos: {', '.join(TAREAS)}.")
    return limpia


def tarea_de_clase(nombre_clase: str) -> str | None:
    """La tarea de una clase de transformers por su nombre (``BertForMaskedLM`` → ``"mascara"``).

    ``"base"`` para ``...Model`` sin cabeza; ``None`` si la clase es de otra tarea
    (``T5ForConditionalGeneration``, ``BertForTokenClassification``...).
    """
    for sufijo, tarea in _SUFIJOS:
        if nombre_clase.endswith(sufijo):
            return tarea
    if nombre_clase.endswith("Model") and "For" not in nombre_clase:
        return "base"
    return None


def tarea_por_defecto(config: Any) -> str | None:
    """La tarea que ``tutor vram`` y ``tutor lora`` usan si no das ``--tarea``.

    * Un encoder (``model_type`` de :data:`TIPOS_ENCODER` o un config cuya
      arquitectura es ``...ForMaskedLM``): ``"clasificacion"``, lo que el curso
      afina con él (BETO: 109 852 418 parámetros con 2 clases), aunque su config
      diga ``BertForMaskedLM``, la cabeza con la que se preentrenó.
    * Si ``config.architectures`` nombra una clase de clasificación o de
      lenguaje causal: esa tarea.
    * Un ``model_type`` de :data:`TIPOS_CAUSALES`: ``"causal"``.
    * Si no: ``None``, y se construye la clase que nombra ``architectures``
      (o ``AutoModel`` si no nombra ninguna).
    """
    tipo = getattr(config, "model_type", "") or ""
    arquitecturas = getattr(config, "architectures", None) or []
    tarea_config = tarea_de_clase(arquitecturas[0]) if arquitecturas else None
    if tipo in TIPOS_ENCODER or tarea_config == "mascara":
        return "clasificacion"
    if tarea_config in ("clasificacion", "causal"):
        return tarea_config
    if tipo in TIPOS_CAUSALES:
        return "causal"
    return None


def describir_tarea(tarea: str | None, etiquetas: int | None = None, clase: str | None = None) -> str:
    """Texto de una línea para la salida: «clasificación de 2 clases (AutoModelForSequenceClassification)».

    ``tarea=None`` describe la clase que se construyó (``clase``), si no es de una
    de las cuatro tareas.
    """
    if tarea is None:
        return f"la de su config ({clase})" if clase else "la de su config"
    tarea = validar_tarea(tarea)
    auto = CLASES_AUTO[tarea]
    if tarea == "clasificacion":
        n = etiquetas if etiquetas else 2
        return f"clasificación de {n} {'clase' if n == 1 else 'clases'} ({auto})"
    if tarea == "causal":
        return f"modelo de lenguaje causal: predice el siguiente token ({auto})"
    if tarea == "mascara":
        return f"modelo de lenguaje con máscara: adivina los tokens tapados ({auto})"
    return f"solo el cuerpo del modelo, sin cabeza ({auto})"


def construir_para_tarea(config: Any, tarea: str | None):
    """Construye en el dispositivo «meta» el modelo de ``config`` con la cabeza de ``tarea``.

    ``tarea=None`` deja que :func:`tutor_lib.recursos.construir_en_meta` elija
    (la clase de ``architectures``). Si la familia del modelo no tiene esa cabeza
    (un Llama con máscara, un GPT-2 sin clasificador...) lanza ``ValueError`` en
    español con las tareas que sí tiene.
    """
    from tutor_lib import recursos

    config = recursos.cargar_config(config)
    if tarea is None:
        return recursos.construir_en_meta(config)
    tarea = validar_tarea(tarea)
    try:
        if tarea == "mascara":  # recursos.construir_en_meta no conoce esta tarea
            import torch
            import transformers

            with torch.device("meta"):
                return transformers.AutoModelForMaskedLM.from_config(config)
        return recursos.construir_en_meta(config, tarea=tarea)
    except ValueError as exc:
        if "Unrecognized configuration class" not in str(exc):
            raise
        raise ValueError(
            f"Los modelos de tipo {getattr(config, 'model_type', '?')!r} no tienen la tarea «{tarea}» en "
            f"transformers ({CLASES_AUTO[tarea]} no los admite). Tareas posibles para este modelo: "
            + ", ".join(tareas_posibles(config)) + "."
        ) from None


def tareas_posibles(config: Any) -> list[str]:
    """Las tareas de :data:`TAREAS` que transformers sabe construir para ``config``."""
    import transformers

    posibles = []
    for tarea, auto in CLASES_AUTO.items():
        mapa = getattr(getattr(transformers, auto), "_model_mapping", None)
        try:
            if mapa is None or type(config) in mapa:
                posibles.append(tarea)
        except Exception:  # noqa: BLE001 - un mapa perezoso que no se deja consultar: la damos por posible
            posibles.append(tarea)
    return posibles
