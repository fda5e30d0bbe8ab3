"""La forma de un modelo (capas, ancho, vocabulario) y sus tensores, desde un número, un config o un ``nn.Module``.

Con un config se construye el modelo en el dispositivo «meta» y las cuentas son exactas; con un número
de parámetros la forma se estima. Lo usan :mod:`.contabilidad` y :mod:`.activaciones`.
"""

from __future__ import annotations

import math
import numbers
import os
import sys
from dataclasses import dataclass, field
from typing import Any

from tutor_lib.vram.base import _numero_de_parametros
from tutor_lib.vram.tareas import construir_para_tarea, describir_tarea, tarea_de_clase

# --------------------------------------------------------------------------
# Forma del modelo
# --------------------------------------------------------------------------

_VOCABULARIO_TIPICO = 32000
_TIPOS_BERT = {
    "bert", "distilbert", "roberta", "xlm-roberta", "electra", "camembert", "albert", "deberta",
    "deberta-v2", "mpnet", "modernbert",
}


@dataclass(frozen=True)
class _Forma:
    oculto: float
    capas: float
    cabezas: float
    cabezas_kv: float
    vocabulario: float
    intermedio: float
    familia: str = "llama"
    cabeza: str = "lm"  # "lm" | "clasificacion" | "ninguna"
    etiquetas: int = 2
    exacta: bool = False
    dropout: float = 0.0


def _forma_continua(parametros: float) -> _Forma:
    """Forma tipo Llama (continua y creciente) que reparte ``parametros``.

    Supone ``capas = oculto/128``, ``cabezas = oculto/128`` (128 por cabeza),
    ``intermedio = 8/3·oculto`` y 12·oculto² parámetros por capa; el cuerpo
    se resuelve como ``12·oculto³/128 ≈ parametros``. Llama-2-7B da ≈ 4200
    (real: 4096, 32 capas).
    """
    d = max((parametros * 128 / 12) ** (1 / 3), 1.0)
    capas = max(d / 128, 1.0)
    cabezas = max(d / 128, 1.0)
    return _Forma(d, capas, cabezas, cabezas, _VOCABULARIO_TIPICO, 8 * d / 3)


def forma_estimada(parametros: Any) -> dict[str, int]:
    """Forma aproximada (tipo Llama) de un modelo del que solo sabes cuántos parámetros tiene.

    Devuelve ``oculto``, ``capas``, ``cabezas``, ``intermedio`` y ``vocabulario``
    redondeados. Es una **estimación** para poder estimar activaciones y LoRA
    sin config: con un ``config.json`` las cuentas son exactas. Para 7e9 da
    oculto ≈ 4200 y 33 capas (Llama-2-7B real: 4096 y 32).
    Se usa en lessons/07_memoria_y_fine_tuning_completo.
    """
    f = _forma_continua(_numero_de_parametros(parametros))
    return {
        "oculto": round(f.oculto),
        "capas": round(f.capas),
        "cabezas": round(f.cabezas),
        "intermedio": round(f.intermedio),
        "vocabulario": int(f.vocabulario),
    }


def _forma_de_config(config, modelo) -> _Forma:
    tipo = getattr(config, "model_type", "") or ""
    familia = "bert" if tipo in _TIPOS_BERT else "llama"

    def leer(*nombres, defecto=None):
        for nombre in nombres:
            valor = getattr(config, nombre, None)
            if isinstance(valor, numbers.Real) and not isinstance(valor, bool) and valor > 0:
                return float(valor)
        return defecto

    d = leer("hidden_size", "n_embd", "d_model", "dim", defecto=None)
    if d is None:
        raise ValueError(f"No encuentro el tamaño oculto (hidden_size) en el config de tipo {tipo!r}.")
    capas = leer("num_hidden_layers", "n_layer", "n_layers", "num_layers", defecto=1.0)
    cabezas = leer("num_attention_heads", "n_head", "n_heads", defecto=max(d / 64, 1.0))
    kv = leer("num_key_value_heads", defecto=cabezas)
    vocab = leer("vocab_size", defecto=_VOCABULARIO_TIPICO)
    intermedio = leer("intermediate_size", "n_inner", "hidden_dim", "ffn_dim", defecto=4 * d)
    clase = type(modelo).__name__
    if clase.endswith("ForCausalLM") or clase.endswith("LMHeadModel"):
        cabeza = "lm"
    elif clase.endswith("ForSequenceClassification"):
        cabeza = "clasificacion"
    else:
        cabeza = "ninguna"
    etiquetas = int(getattr(config, "num_labels", 2) or 2)
    dropout = max(
        (float(v) for v in (getattr(config, n, 0.0) for n in ("hidden_dropout_prob", "attention_probs_dropout_prob",
                                                             "attention_dropout", "dropout", "attention_dropout_prob"))
         if isinstance(v, numbers.Real) and not isinstance(v, bool) and 0 <= v < 1),
        default=0.0,
    )
    return _Forma(d, capas, cabezas, kv, vocab, intermedio, familia, cabeza, etiquetas, True, dropout)


# --------------------------------------------------------------------------
# Estructura de un modelo (config, nn.Module o número)
# --------------------------------------------------------------------------


@dataclass
class _Estructura:
    parametros: int
    forma: _Forma
    tensores: list[int] | None  # elementos de cada tensor de parámetros (None: se desconoce)
    cuantizables: list[int] | None  # elementos de cada peso lineal que bitsandbytes cuantiza
    elementos_cuantizables: float  # suma de lo anterior (o su estimación)
    capas_cuantizables: float
    pesos_lineales: float  # elementos de los pesos de nn.Linear (copias de autocast)
    lineal_mayor: float
    modelo: Any = None
    notas: list[str] = field(default_factory=list)
    origen_cuantizables: str = ""
    #: La tarea (cabeza) del modelo contado: una de ``tareas.TAREAS`` o ``None`` si es otra.
    tarea: str | None = None
    #: Esa tarea en una línea («clasificación de 2 clases (AutoModelForSequenceClassification)»).
    tarea_descripcion: str = ""

    def preparar_cuantizables(self) -> None:
        """Qué pesos cuantizaría bitsandbytes (solo hace falta en QLoRA y con un modelo)."""
        if self.modelo is not None and self.cuantizables is None:
            self.cuantizables = [_elementos(m.weight) for _, m in _modulos_cuantizables(self.modelo)]
            self.elementos_cuantizables = float(sum(self.cuantizables))
            self.capas_cuantizables = float(len(self.cuantizables))


def _elementos(p) -> int:
    """Elementos lógicos de un parámetro (un ``Params4bit`` guarda la mitad en bytes empaquetados)."""
    estado = getattr(p, "quant_state", None)
    if estado is not None and getattr(estado, "shape", None) is not None:
        return int(math.prod(estado.shape))
    return int(p.numel())


def _modulos_cuantizables(modelo) -> list[tuple[str, Any]]:
    """Capas que ``BitsAndBytesConfig(load_in_4bit=True)`` convierte en ``Linear4bit``.

    Replica la regla de transformers: toda ``nn.Linear`` (exactamente) o ``Conv1D``
    salvo la cabeza de salida, la última capa, los pesos atados y
    ``_keep_in_fp32_modules``.
    """
    import torch

    try:
        from transformers.pytorch_utils import Conv1D
    except ImportError:  # pragma: no cover
        Conv1D = ()
    try:
        from transformers.quantizers.base import get_keys_to_not_convert
        from transformers.quantizers.quantizers_utils import should_convert_module

        excluir = list(get_keys_to_not_convert(modelo)) + list(getattr(modelo, "_keep_in_fp32_modules", None) or [])
    except Exception:  # noqa: BLE001 - otra versión de transformers: regla aproximada
        salida = modelo.get_output_embeddings() if hasattr(modelo, "get_output_embeddings") else None
        excluir = [n for n, m in modelo.named_modules() if salida is not None and m is salida]

        def should_convert_module(nombre, patrones):
            return not any(nombre == p or nombre.endswith("." + p) for p in patrones)

    ya_cuantizada = ()
    if "bitsandbytes" in sys.modules:  # un modelo ya cargado en 4 bits: bitsandbytes ya está importado
        try:
            ya_cuantizada = (sys.modules["bitsandbytes"].nn.Linear4bit,)
        except AttributeError:  # pragma: no cover
            pass
    elegidas = []
    for nombre, modulo in modelo.named_modules():
        if not nombre:
            continue
        if ya_cuantizada and isinstance(modulo, ya_cuantizada):
            elegidas.append((nombre, modulo))
        elif (type(modulo) is torch.nn.Linear or (Conv1D and isinstance(modulo, Conv1D))) and should_convert_module(
            nombre, excluir
        ):
            elegidas.append((nombre, modulo))
    return elegidas


def _estructura_de_modelo(modelo) -> _Estructura:
    import torch

    parametros = list(modelo.parameters())
    if not parametros:
        raise ValueError("El modelo no tiene parámetros: no hay nada que entrenar ni que contar.")
    tensores = [_elementos(p) for p in parametros]
    lineales = [_elementos(m.weight) for _, m in modelo.named_modules() if isinstance(m, torch.nn.Linear)]
    config = getattr(modelo, "config", None)
    notas = []
    if config is not None and hasattr(config, "model_type"):
        forma = _forma_de_config(config, modelo)
    else:
        forma = _forma_continua(sum(tensores))
        notas.append("El modelo no trae config de transformers: las activaciones usan una forma tipo Llama estimada.")
    clase = type(modelo).__name__
    tarea = tarea_de_clase(clase)
    etiquetas = int(getattr(config, "num_labels", 2) or 2) if config is not None else None
    return _Estructura(
        parametros=sum(tensores),
        forma=forma,
        tensores=tensores,
        cuantizables=None,  # se calculan solo para QLoRA (ver _Estructura.preparar_cuantizables)
        elementos_cuantizables=0.0,
        capas_cuantizables=0.0,
        pesos_lineales=float(sum(lineales)),
        lineal_mayor=float(max(lineales, default=0)),
        modelo=modelo,
        notas=notas,
        tarea=tarea,
        tarea_descripcion=describir_tarea(tarea, etiquetas, clase) if tarea else f"la de la clase {clase}",
    )


def _estructura_de_numero(n: int, fraccion_lineal: float | None, tarea: str | None = None) -> _Estructura:
    f = _forma_continua(n)
    if tarea == "clasificacion":  # encoder tipo BERT con un clasificador de 2 etiquetas
        f = _Forma(f.oculto, f.capas, f.cabezas, f.cabezas_kv, f.vocabulario, 4 * f.oculto, "bert", "clasificacion")
    elif tarea == "mascara":  # encoder tipo BERT con la cabeza de lenguaje (logits sobre el vocabulario)
        f = _Forma(f.oculto, f.capas, f.cabezas, f.cabezas_kv, f.vocabulario, 4 * f.oculto, "bert", "lm")
    elif tarea == "base":
        f = _Forma(f.oculto, f.capas, f.cabezas, f.cabezas_kv, f.vocabulario, f.intermedio, cabeza="ninguna")
    embeddings = min(2 * f.vocabulario * f.oculto, n / 2)
    if fraccion_lineal is None:
        cuantizables = max(n - embeddings - (2 * f.capas + 1) * f.oculto, 0.0)
        origen = "estimada con una forma tipo Llama (embeddings y lm_head sin cuantizar)"
    else:
        cuantizables = fraccion_lineal * n
        origen = f"la que diste (fraccion_lineal={fraccion_lineal:g})"
    notas = [
        "Diste solo un número de parámetros: el estado estático es exacto salvo los contadores «step» de AdamW "
        "(4 B por tensor); la forma del modelo (activaciones, LoRA) es una estimación tipo Llama. "
        "Con un config.json todo sale exacto.",
    ]
    return _Estructura(
        parametros=n,
        forma=f,
        tensores=None,
        cuantizables=None,
        elementos_cuantizables=cuantizables,
        capas_cuantizables=7 * f.capas,
        pesos_lineales=cuantizables,
        lineal_mayor=f.oculto * f.intermedio,
        notas=notas,
        origen_cuantizables=f"QLoRA: fracción de parámetros en capas lineales cuantizables {origen}.",
        tarea=tarea or "causal",
        tarea_descripcion=describir_tarea(tarea or "causal") + (
            ", forma tipo BERT estimada" if tarea in ("clasificacion", "mascara") else ", forma tipo Llama estimada"
        ),
    )


def _cargar_estructura(parametros: Any, tarea: str | None, fraccion_lineal: float | None) -> _Estructura:
    torch = sys.modules.get("torch")  # un nn.Module solo existe si torch ya está importado: no lo importes por un número
    es_modulo = torch is not None and isinstance(parametros, torch.nn.Module)
    if es_modulo:
        return _estructura_de_modelo(parametros)
    if isinstance(parametros, bool):
        raise TypeError("parametros no puede ser un booleano: da un número, un config, una ruta o un modelo.")
    if isinstance(parametros, numbers.Real):
        return _estructura_de_numero(_numero_de_parametros(parametros), fraccion_lineal, tarea)
    if isinstance(parametros, (str, os.PathLike, dict)) or type(parametros).__name__.endswith("Config"):
        from tutor_lib import recursos

        if isinstance(parametros, str) and not parametros.strip():
            raise ValueError("parametros está vacío: da un número, una ruta a config.json o un nombre del Hub.")
        config = recursos.cargar_config(parametros)
        try:
            modelo = construir_para_tarea(config, tarea)
        except (ValueError, TypeError):
            raise
        except Exception as exc:  # noqa: BLE001 - config incoherente: mensaje en español
            raise ValueError(f"No pude construir el modelo de ese config ({type(exc).__name__}: {exc}).") from exc
        return _estructura_de_modelo(modelo)
    raise TypeError(
        "parametros debe ser un número (p. ej. 7e9), un PretrainedConfig, un dict, la ruta a un config.json, "
        f"un nombre del Hub o un nn.Module; recibí {type(parametros).__name__}."
    )


