"""Memoria de GPU de un fine-tuning: contabilidad por componente, medición exacta y catálogo de GPUs.

Tres partes, de la más pura a la más física:

1. **Contabilidad (pura)**: :func:`estimar_memoria` suma, en bytes enteros,
   ``pesos``, ``gradientes``, ``estados_optimizador``, ``copia_maestra_fp32``,
   ``constantes_cuantizacion`` (el *estado estático*, exacto si das un
   ``config``) y ``activaciones`` (una **estimación**, ver
   :func:`estimar_activaciones`). Métodos ``completo``, ``lora`` y ``qlora``;
   precisiones ``fp32``, ``mixta`` y ``bf16``; optimizadores ``adamw``,
   ``adamw_8bit``, ``sgd`` y ``sgd_momentum``.
2. **Medición (exacta)**: :func:`medir_estado` cuenta los bytes reales de
   parámetros, gradientes y estado del optimizador de un modelo de verdad;
   :func:`medir_activaciones` cuenta lo que autograd guarda durante un forward.
3. **Catálogo de GPUs**: :data:`GPUS`, :func:`cabe` y :func:`lote_maximo`.

Unidades: todo se cuenta en **bytes**. «GB» son 10⁹ bytes y «GiB» son 2³⁰
bytes (1 GiB ≈ 1.074 GB); los textos muestran siempre las dos.

Cuentas por parámetro entrenable con AdamW (ver :func:`bytes_por_parametro`):

* ``fp32``: 4 (pesos) + 4 (gradientes) + 8 (m y v) = **16 B**.
* ``mixta`` (AMP de PyTorch, la que usa el ``Trainer`` con ``fp16=True`` o
  ``bf16=True`` sobre un modelo cargado en fp32): 4 + 4 + 8 = **16 B**, más
  copias transitorias en 16 bits de los pesos de las capas lineales durante el
  paso (se suman a las activaciones). La contabilidad del artículo de ZeRO
  reparte los mismos 16 B de otra forma: 2 (pesos fp16) + 2 (gradientes fp16)
  + 4 (copia maestra fp32) + 8 (m y v); elígela con ``contabilidad="zero"``.
* ``bf16`` puro (transformers 5 carga el checkpoint en bf16 y lo entrena con
  ``bf16=True``): 2 + 2 + 2 + 2 = **8 B**, porque ``torch.optim.AdamW`` crea
  ``exp_avg`` y ``exp_avg_sq`` con el dtype del parámetro.
* AdamW guarda además un contador ``step`` (tensor fp32 de 4 B) **por tensor**
  de parámetros: se suma cuando se conoce la estructura (``config``/modelo).

Se usa en lessons/07_memoria_y_fine_tuning_completo, lessons/10_lora y
lessons/11_qlora.
"""

from __future__ import annotations

import math
import numbers
import os
import sys
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from tutor_lib import formato
from tutor_lib.entorno import InfoGPU

# --------------------------------------------------------------------------
# Constantes
# --------------------------------------------------------------------------

METODOS = ("completo", "lora", "qlora")
PRECISIONES = ("fp32", "mixta", "bf16")
OPTIMIZADORES = ("adamw", "adamw_8bit", "sgd", "sgd_momentum")
CONTABILIDADES = ("amp", "zero")
ATENCIONES = ("sdpa", "eager")
FAMILIAS = ("llama", "bert")
DISPOSITIVOS = ("cuda", "cpu")

#: Componentes de la memoria, en el orden en que se apilan en las gráficas.
COMPONENTES = (
    "pesos",
    "gradientes",
    "estados_optimizador",
    "copia_maestra_fp32",
    "constantes_cuantizacion",
    "activaciones",
)

#: Nombres en español para tablas y gráficas.
ETIQUETAS = {
    "pesos": "Pesos",
    "gradientes": "Gradientes",
    "estados_optimizador": "Estados del optimizador",
    "copia_maestra_fp32": "Copia maestra FP32",
    "constantes_cuantizacion": "Constantes de cuantización",
    "activaciones": "Activaciones (estimación)",
}

GB = 10**9
GIB = 2**30
MIB = 2**20

#: Tope de ``parametros`` aceptado (10 billones): más allá es casi seguro un error de tecleo.
PARAMETROS_MAXIMOS = 10**13

#: Cuantización NF4 de bitsandbytes: un ``absmax`` por bloque de 64 pesos y,
#: con doble cuantización, un ``absmax`` fp32 por bloque de 256 ``absmax``.
BLOQUE_NF4 = 64
BLOQUE_DOBLE_CUANTIZACION = 256
#: Cada capa cuantizada guarda su tabla NF4 (16 valores fp32) y, con doble
#: cuantización, la tabla dinámica de 8 bits (256 fp32) y un ``offset`` fp32.
BYTES_TABLA_NF4 = 16 * 4
BYTES_TABLA_DINAMICA = 256 * 4
BYTES_OFFSET = 4

#: AdamW de 8 bits de bitsandbytes: bloques de 256, tensores con menos de 4096
#: elementos se quedan con estados fp32, y dos tablas de 256 fp32 compartidas.
BLOQUE_ADAM_8BIT = 256
MINIMO_8BIT = 4096
BYTES_TABLAS_8BIT = 2 * 256 * 4

#: Contador ``step`` de ``torch.optim.AdamW``: un tensor fp32 escalar por tensor de parámetros.
BYTES_PASO_ADAMW = 4

#: Margen de una GPU real: contexto de CUDA + espacios de trabajo de cuBLAS
#: (típicamente 0.3–0.6 GiB con PyTorch) y un 5 % por fragmentación del asignador.
CONTEXTO_CUDA_BYTES = 512 * MIB
FRACCION_FRAGMENTACION = 0.05

_LOTE_TOPE = 1 << 20

# --------------------------------------------------------------------------
# Validación
# --------------------------------------------------------------------------


def _entero(nombre: str, valor: Any, minimo: int = 1, maximo: int | None = None) -> int:
    if isinstance(valor, bool) or not isinstance(valor, numbers.Integral):
        rango = f"entre {minimo} y {maximo}" if maximo is not None else f"≥ {minimo}"
        raise TypeError(f"{nombre} debe ser un entero {rango}; recibí {valor!r} ({type(valor).__name__}).")
    valor = int(valor)
    if valor < minimo or (maximo is not None and valor > maximo):
        rango = f"entre {minimo} y {maximo}" if maximo is not None else f"≥ {minimo}"
        raise ValueError(f"{nombre} debe ser un entero {rango}; recibí {valor}.")
    return valor


def _opcional_entero(nombre: str, valor: Any, minimo: int = 1, maximo: int | None = None) -> int | None:
    return None if valor is None else _entero(nombre, valor, minimo, maximo)


def _opcion(nombre: str, valor: Any, validas: Sequence[str]) -> str:
    if not isinstance(valor, str):
        raise TypeError(f"{nombre} debe ser un texto, uno de {', '.join(validas)}; recibí {valor!r} ({type(valor).__name__}).")
    limpio = valor.strip().lower()
    if limpio not in validas:
        raise ValueError(f"{nombre} desconocido: {valor!r}. Valores válidos: {', '.join(validas)}.")
    return limpio


def _booleano(nombre: str, valor: Any) -> bool:
    if not isinstance(valor, bool):
        raise TypeError(f"{nombre} debe ser True o False; recibí {valor!r} ({type(valor).__name__}).")
    return valor


def _real(nombre: str, valor: Any, minimo: float, maximo: float, incluir_minimo: bool = True) -> float:
    if isinstance(valor, bool) or not isinstance(valor, numbers.Real):
        raise TypeError(f"{nombre} debe ser un número entre {minimo} y {maximo}; recibí {valor!r} ({type(valor).__name__}).")
    valor = float(valor)
    fuera = not math.isfinite(valor) or valor > maximo or (valor < minimo if incluir_minimo else valor <= minimo)
    if fuera:
        raise ValueError(f"{nombre} debe estar entre {minimo} y {maximo}; recibí {valor}.")
    return valor


def _numero_de_parametros(valor: Any) -> int:
    """Un número de parámetros: entero (o real con valor entero, como 7e9) entre 1 y 10¹³."""
    if isinstance(valor, bool) or not isinstance(valor, numbers.Real):
        raise TypeError(f"parametros debe ser un número; recibí {valor!r} ({type(valor).__name__}).")
    if isinstance(valor, numbers.Integral):
        n = int(valor)
    else:
        x = float(valor)
        if not math.isfinite(x) or x != math.floor(x):
            raise ValueError(f"parametros debe ser un número entero de parámetros entre 1 y 1e13; recibí {valor!r}.")
        n = int(x)
    if n < 1 or n > PARAMETROS_MAXIMOS:
        raise ValueError(f"parametros debe estar entre 1 y 1e13; recibí {valor!r}.")
    return n


# --------------------------------------------------------------------------
# Formato
# --------------------------------------------------------------------------


def formatear_bytes(n: Any) -> str:
    """Texto con GiB (2³⁰ B) y GB (10⁹ B) a la vez, p. ej. ``'104.3 GiB (112.0 GB)'``.

    Por debajo de 1 GiB usa MiB y MB. Se usa en lessons/07_memoria_y_fine_tuning_completo.
    """
    if isinstance(n, bool) or not isinstance(n, numbers.Real) or not math.isfinite(float(n)):
        raise TypeError(f"formatear_bytes necesita un número finito de bytes; recibí {n!r}.")
    n = float(n)
    if abs(n) >= GIB:
        return f"{formato.numero(n / GIB, 1)} GiB ({formato.numero(n / GB, 1)} GB)"
    return f"{formato.numero(n / MIB, 1)} MiB ({formato.numero(n / 1e6, 1)} MB)"


# --------------------------------------------------------------------------
# Bytes por parámetro (la tabla de la lección 07)
# --------------------------------------------------------------------------


def _bytes_estados(optimizador: str, bytes_param: int) -> float:
    """Bytes de estado por parámetro entrenable (sin constantes ni contadores)."""
    return {"adamw": 2 * bytes_param, "adamw_8bit": 2, "sgd": 0, "sgd_momentum": bytes_param}[optimizador]


def bytes_por_parametro(
    metodo: str = "completo", precision: str = "mixta", optimizador: str = "adamw", contabilidad: str = "amp"
) -> dict[str, float]:
    """Bytes por parámetro de cada componente del estado estático (sin activaciones).

    Para ``completo`` son bytes por parámetro entrenado; para ``lora``/``qlora``
    se devuelven dos grupos: ``base`` (por parámetro congelado; en qlora, por
    parámetro de una capa lineal cuantizada, sin contar las constantes) y los
    componentes del adaptador (por parámetro de LoRA, en fp32 como los crea
    peft). No incluye los contadores ``step`` ni las constantes de bloque.
    Ejemplo: ``completo``/``mixta``/``adamw`` → 4 + 4 + 8 = 16.
    Se usa en lessons/07_memoria_y_fine_tuning_completo.
    """
    metodo = _opcion("metodo", metodo, METODOS)
    precision = _opcion("precision", precision, PRECISIONES)
    optimizador = _opcion("optimizador", optimizador, OPTIMIZADORES)
    contabilidad = _opcion("contabilidad", contabilidad, CONTABILIDADES)
    if metodo == "completo":
        if precision == "mixta" and contabilidad == "zero":
            return {"pesos": 2, "gradientes": 2, "estados_optimizador": _bytes_estados(optimizador, 4), "copia_maestra_fp32": 4}
        b = 2 if precision == "bf16" else 4
        return {"pesos": b, "gradientes": b, "estados_optimizador": _bytes_estados(optimizador, b), "copia_maestra_fp32": 0}
    base = 4 if precision == "fp32" else 2
    if metodo == "qlora":
        base = 0.5
    return {"base": base, "pesos": 4, "gradientes": 4, "estados_optimizador": _bytes_estados(optimizador, 4), "copia_maestra_fp32": 0}


# --------------------------------------------------------------------------
# Cuantización NF4 (QLoRA)
# --------------------------------------------------------------------------


def bytes_nf4(elementos: int, doble_cuantizacion: bool = True) -> tuple[int, int]:
    """Bytes de una matriz cuantizada a NF4 por bitsandbytes: ``(pesos, constantes)``.

    ``pesos`` = ⌈n/2⌉ (dos valores de 4 bits por byte). ``constantes``: sin doble
    cuantización, un ``absmax`` fp32 por bloque de 64 (4/64 = 0.0625 B por
    parámetro) más la tabla NF4 de la capa (16 × fp32 = 64 B); con doble
    cuantización, el ``absmax`` pasa a 8 bits (1 B por bloque de 64) más un
    ``absmax`` fp32 por cada 256 bloques, la tabla de 8 bits (256 × fp32 =
    1024 B), un ``offset`` fp32 y la tabla NF4: ≈ 8/64 + 32/(64·256) ≈ 0.127
    bits por parámetro. Coincide byte a byte con ``Params4bit.quant_state`` en
    bitsandbytes 0.50. Se usa en lessons/11_qlora.
    """
    n = _entero("elementos", elementos)
    doble_cuantizacion = _booleano("doble_cuantizacion", doble_cuantizacion)
    pesos = (n + 1) // 2
    bloques = -(-n // BLOQUE_NF4)
    if not doble_cuantizacion:
        return pesos, 4 * bloques + BYTES_TABLA_NF4
    bloques2 = -(-bloques // BLOQUE_DOBLE_CUANTIZACION)
    return pesos, bloques + 4 * bloques2 + BYTES_TABLA_DINAMICA + BYTES_OFFSET + BYTES_TABLA_NF4


def _nf4_aproximado(elementos: float, capas: float, doble: bool) -> tuple[float, float]:
    """Versión continua de :func:`bytes_nf4` para un número de parámetros sin estructura."""
    if not doble:
        return elementos / 2, elementos * 4 / BLOQUE_NF4 + capas * BYTES_TABLA_NF4
    constantes = elementos / BLOQUE_NF4 + elementos * 4 / (BLOQUE_NF4 * BLOQUE_DOBLE_CUANTIZACION)
    return elementos / 2, constantes + capas * (BYTES_TABLA_DINAMICA + BYTES_OFFSET + BYTES_TABLA_NF4)


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
# Estimación de activaciones
# --------------------------------------------------------------------------

#: Las capas lineales de un bloque, agrupadas por la entrada que comparten.
#: ``"d"``: la entrada mide ``oculto``; ``"i"``: mide ``intermedio``.
_GRUPOS_LINEALES = {
    "llama": (
        (("q_proj", "k_proj", "v_proj"), "d"),
        (("o_proj",), "d"),
        (("gate_proj", "up_proj"), "d"),
        (("down_proj",), "i"),
    ),
    "bert": (
        (("query", "key", "value"), "d"),
        (("attention.output.dense",), "d"),
        (("intermediate.dense",), "d"),
        (("output.dense",), "i"),
    ),
}


def _modulos_de_familia(familia: str) -> tuple[str, ...]:
    return tuple(m for grupo, _ in _GRUPOS_LINEALES[familia] for m in grupo)


def _rol_lineal(nombre: str, familia: str) -> str | None:
    """El papel (p. ej. ``q_proj``, ``attention.output.dense``) de una capa por su nombre completo."""
    for modulo in sorted(_modulos_de_familia(familia), key=len, reverse=True):
        if nombre == modulo or nombre.endswith("." + modulo):
            return modulo
    return None


@dataclass
class EstimacionActivaciones:
    """Resultado de :func:`estimar_activaciones`: una **estimación** en bytes.

    ``total_bytes`` es la suma de ``terminos`` (bytes por término; el ajuste de
    LoRA puede ser negativo); ``notas`` explica los supuestos.
    """

    total_bytes: int
    terminos: dict[str, int] = field(default_factory=dict)
    notas: list[str] = field(default_factory=list)
    es_estimacion: bool = True


def _activaciones(
    lote: float,
    secuencia: float,
    forma: _Forma,
    b: int,
    *,
    autocast: bool = False,
    checkpointing: bool = False,
    atencion: str = "sdpa",
    dropout: float | None = None,
    dispositivo: str = "cuda",
    lora_r: float = 0,
    lora_modulos: Sequence[str] = (),
) -> EstimacionActivaciones:
    """Núcleo sin validación (admite formas continuas). Ver :func:`estimar_activaciones`."""
    if dropout is None:
        dropout = forma.dropout
    B, S = float(lote), float(secuencia)
    T = B * S
    d, L, h = forma.oculto, forma.capas, forma.cabezas
    d_kv = d * forma.cabezas_kv / h
    I, V = forma.intermedio, forma.vocabulario
    b16 = 2 if autocast else b  # dtype de las salidas de las matmuls
    res = 4 if autocast else b  # dtype del flujo residual y de las normas
    mascara = 1 if dispositivo == "cuda" else b16  # máscara de dropout: bool en CUDA, del dtype en CPU
    hay_dropout = dropout > 0
    usa_s2 = atencion == "eager" or (hay_dropout and dispositivo == "cpu")

    # --- por capa ---
    if forma.familia == "llama":
        if autocast:
            ocultos = T * (d + 2 * d_kv) * 2 + 7 * T * d * 4
        else:
            ocultos = T * (6 * d + 2 * d_kv) * b16 + 2 * T * d * 4
        mlp = 4 * T * I * b16
        normas = 2 * T * 4
        softmax = 4 + (b16 if b16 != 4 else 0)  # softmax en fp32 + copia al dtype del modelo
    else:
        ocultos = (4 * T * d * 2 + 4 * T * d * 4) if autocast else 8 * T * d * b
        if hay_dropout:
            ocultos += 2 * T * d * mascara
        mlp = 2 * T * I * b16
        normas = 2 * 2 * T * 4
        softmax = b16
    if usa_s2:
        por_s2 = softmax + ((mascara + b16) if hay_dropout else 0)
        atn = B * h * S * S * por_s2
    else:
        atn = B * h * S * 4  # logsumexp fp32 de los núcleos fusionados

    # --- ajuste de LoRA: una capa congelada no guarda su entrada ---
    ajuste = 0.0
    if lora_r > 0 and lora_modulos is not None:
        elegidos = set(lora_modulos)
        for grupo, medida in _GRUPOS_LINEALES[forma.familia]:
            e = d if medida == "d" else I
            adaptados = [m for m in grupo if m in elegidos]
            if not adaptados:
                ajuste -= T * e * b16
            elif autocast:
                ajuste += len(adaptados) * T * (e + lora_r) * 2 - T * e * 2
            elif b16 != 4:
                ajuste += len(adaptados) * T * (e * 4 + lora_r * 4) - T * e * b16
            else:
                ajuste += len(adaptados) * T * lora_r * 4

    por_capa = ocultos + mlp + normas + atn + ajuste

    # --- una sola vez ---
    if forma.familia == "llama":
        fijo = T * d * (4 + res) + T * 4 + T * d * b16 + 2 * S * (d / h) * res + 2 * T * 8
    else:
        fijo = T * d * res + 2 * T * 4 + T * 8 + (B * d * 2 if autocast else T * d * b)
        if hay_dropout:
            fijo += T * d * mascara
    if forma.cabeza == "lm":
        logits = T * V * (b16 + 4) + (T * V * 4 if b16 != 4 else 0)
    elif forma.cabeza == "clasificacion":
        logits = B * forma.etiquetas * (b16 + 8)
    else:
        logits = 0.0

    if checkpointing:
        entradas = L * T * d * res
        terminos = {
            "entradas_de_capa": entradas,
            "una_capa_recalculada": por_capa,
            "logits_y_perdida": logits,
            "otros": fijo,
        }
    else:
        terminos = {
            "estados_ocultos": L * ocultos,
            "mlp": L * mlp,
            "atencion": L * atn,
            "normas": L * normas,
            "ajuste_lora": L * ajuste,
            "logits_y_perdida": logits,
            "otros": fijo,
        }
    terminos = {k: int(round(v)) for k, v in terminos.items()}
    total = max(sum(terminos.values()), 0)
    notas = [
        "Activaciones: es una ESTIMACIÓN (lo que autograd guarda en el forward más los logits), "
        "no una medición; el asignador de CUDA añade picos y fragmentación."
    ]
    if usa_s2:
        notas.append(
            "Atención «eager»: se guardan las puntuaciones lote × cabezas × secuencia² por capa "
            "(crece con el cuadrado de la secuencia)."
        )
    else:
        notas.append("Atención sdpa/flash: no se materializa la matriz secuencia² (solo un logsumexp por fila).")
    if forma.cabeza == "lm":
        notas.append(
            "Logits: lote × secuencia × vocabulario en el dtype del modelo, más una copia fp32 para la pérdida "
            "y la salida fp32 de log_softmax que guarda la entropía cruzada."
        )
    if hay_dropout:
        notas.append(
            f"Dropout {dropout:g}: se guardan sus máscaras ({'1 B por valor en CUDA' if dispositivo == 'cuda' else 'del dtype en CPU'})."
        )
    if checkpointing:
        notas.append("Gradient checkpointing: se guardan solo las entradas de cada capa y se recalcula una capa cada vez.")
    return EstimacionActivaciones(total, terminos, notas)


def estimar_activaciones(
    lote: int,
    secuencia: int,
    oculto: int,
    capas: int,
    cabezas: int,
    vocabulario: int,
    intermedio: int | None = None,
    bytes_por_valor: int = 2,
    checkpointing: bool = False,
    *,
    cabezas_kv: int | None = None,
    familia: str = "llama",
    atencion: str = "sdpa",
    autocast: bool = False,
    dropout: float = 0.0,
    etiquetas: int | None = None,
    dispositivo: str = "cuda",
    lora_r: int = 0,
    lora_modulos: Sequence[str] | str | None = None,
) -> EstimacionActivaciones:
    """ESTIMACIÓN de la memoria de activaciones (bytes) de un paso de entrenamiento.

    Cuenta los tensores que autograd guarda en el forward, término a término
    (``T = lote·secuencia``, por capa):

    * ``familia="llama"`` (RMSNorm, SwiGLU): ``T·(6·oculto + 2·oculto_kv)`` valores
      de ``bytes_por_valor`` + 2 copias fp32 de las normas; MLP ``4·T·intermedio``.
    * ``familia="bert"`` (LayerNorm, GELU): ``8·T·oculto``; MLP ``2·T·intermedio``.
    * Atención ``"eager"``: las puntuaciones ``lote·cabezas·secuencia²`` (softmax en
      fp32 y su copia en 16 bits en Llama). ``"sdpa"`` (por defecto en transformers 5,
      núcleos flash/eficientes en GPU): solo ``lote·cabezas·secuencia·4``.
    * Logits (``etiquetas=None``: cabeza de lenguaje): ``T·vocabulario`` en el dtype
      del modelo + una copia fp32 (``T·vocabulario·4``) + la copia de log_softmax
      de la pérdida (otros ``T·vocabulario·4``). Con ``etiquetas`` la cabeza es un
      clasificador sobre un token por ejemplo.
    * ``checkpointing=True``: solo la entrada de cada capa + una capa recalculada.
    * ``autocast=True``: precisión mixta con pesos fp32 (flujo residual en fp32).
    * ``dropout`` > 0: máscaras de 1 B (CUDA) o del dtype (``dispositivo="cpu"``).
    * ``lora_r``/``lora_modulos``: con la base congelada, las capas lineales sin
      adaptador no guardan su entrada; las adaptadas guardan una copia para LoRA.

    En modelos diminutos (Llama y BERT en CPU) coincide con
    :func:`medir_activaciones` dentro de un ±30 % (ver tests/test_vram.py).
    Se usa en lessons/07_memoria_y_fine_tuning_completo.
    """
    lote = _entero("lote", lote, 1, _LOTE_TOPE)
    secuencia = _entero("secuencia", secuencia, 1, 10**7)
    oculto = _entero("oculto", oculto, 1, 10**6)
    capas = _entero("capas", capas, 1, 10**4)
    cabezas = _entero("cabezas", cabezas, 1, 10**4)
    vocabulario = _entero("vocabulario", vocabulario, 1, 10**8)
    intermedio = _opcional_entero("intermedio", intermedio, 1, 10**7)
    if bytes_por_valor not in (1, 2, 4, 8) or isinstance(bytes_por_valor, bool):
        if isinstance(bytes_por_valor, bool) or not isinstance(bytes_por_valor, numbers.Integral):
            raise TypeError(f"bytes_por_valor debe ser 2 (fp16/bf16) o 4 (fp32); recibí {bytes_por_valor!r}.")
        raise ValueError(f"bytes_por_valor debe ser 1, 2, 4 u 8; recibí {bytes_por_valor}.")
    checkpointing = _booleano("checkpointing", checkpointing)
    cabezas_kv = _opcional_entero("cabezas_kv", cabezas_kv, 1, cabezas)
    familia = _opcion("familia", familia, FAMILIAS)
    atencion = _opcion("atencion", atencion, ATENCIONES)
    autocast = _booleano("autocast", autocast)
    if autocast and bytes_por_valor != 2:
        raise ValueError(f"autocast=True calcula en 16 bits: bytes_por_valor debe ser 2; recibí {bytes_por_valor}.")
    dropout = _real("dropout", dropout, 0.0, 0.99)
    etiquetas = _opcional_entero("etiquetas", etiquetas, 1, 10**6)
    dispositivo = _opcion("dispositivo", dispositivo, DISPOSITIVOS)
    lora_r = _entero("lora_r", lora_r, 0, 10**5)
    modulos = _normalizar_modulos_familia(lora_modulos, familia) if lora_r > 0 else ()
    if lora_r > 0 and not modulos:
        raise ValueError("Con lora_r > 0 indica lora_modulos (p. ej. ['q_proj', 'v_proj'] o 'all-linear').")
    forma = _Forma(
        oculto, capas, cabezas, cabezas_kv or cabezas, vocabulario, intermedio or 4 * oculto, familia,
        "clasificacion" if etiquetas else "lm", etiquetas or 2, True,
    )
    return _activaciones(
        lote, secuencia, forma, int(bytes_por_valor), autocast=autocast, checkpointing=checkpointing,
        atencion=atencion, dropout=dropout, dispositivo=dispositivo, lora_r=lora_r, lora_modulos=modulos,
    )


def _normalizar_modulos_familia(modulos: Any, familia: str) -> tuple[str, ...]:
    validos = _modulos_de_familia(familia)
    if modulos is None:
        return ()
    if isinstance(modulos, str):
        if modulos.strip().lower() == "all-linear":
            return validos
        modulos = [m.strip() for m in modulos.split(",") if m.strip()]
    if not isinstance(modulos, (list, tuple, set, frozenset)):
        raise TypeError(f"lora_modulos debe ser una lista de nombres o 'all-linear'; recibí {modulos!r}.")
    salida = []
    for m in modulos:
        if not isinstance(m, str):
            raise TypeError(f"Cada módulo debe ser un texto; recibí {m!r} ({type(m).__name__}).")
        if m not in validos:
            raise ValueError(f"Módulo desconocido para la familia {familia!r}: {m!r}. Válidos: {', '.join(validos)} o 'all-linear'.")
        salida.append(m)
    return tuple(dict.fromkeys(salida))


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
    )


def _estructura_de_numero(n: int, fraccion_lineal: float | None, tarea: str | None = None) -> _Estructura:
    f = _forma_continua(n)
    if tarea == "clasificacion":  # encoder tipo BERT con un clasificador de 2 etiquetas
        f = _Forma(f.oculto, f.capas, f.cabezas, f.cabezas_kv, f.vocabulario, 4 * f.oculto, "bert", "clasificacion")
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
            modelo = recursos.construir_en_meta(config, tarea=tarea)
        except (ValueError, TypeError):
            raise
        except Exception as exc:  # noqa: BLE001 - config incoherente: mensaje en español
            raise ValueError(f"No pude construir el modelo de ese config ({type(exc).__name__}: {exc}).") from exc
        return _estructura_de_modelo(modelo)
    raise TypeError(
        "parametros debe ser un número (p. ej. 7e9), un PretrainedConfig, un dict, la ruta a un config.json, "
        f"un nombre del Hub o un nn.Module; recibí {type(parametros).__name__}."
    )


# --------------------------------------------------------------------------
# LoRA
# --------------------------------------------------------------------------

_DIMENSIONES_LLAMA = {
    "q_proj": ("d", "d"), "k_proj": ("d", "kv"), "v_proj": ("d", "kv"), "o_proj": ("d", "d"),
    "gate_proj": ("d", "i"), "up_proj": ("d", "i"), "down_proj": ("i", "d"),
}


@dataclass
class _Lora:
    entrenables: float
    tensores: list[float]  # elementos de cada tensor A y B
    modulos_por_capa: tuple[str, ...]  # papeles adaptados en un bloque (para las activaciones)


def _normalizar_objetivos(modulos: Any) -> list[str] | str:
    if isinstance(modulos, str):
        texto = modulos.strip()
        if texto.lower() == "all-linear":
            return "all-linear"
        nombres = [n.strip() for n in texto.split(",") if n.strip()]
    elif isinstance(modulos, (list, tuple, set, frozenset)):
        nombres = []
        for n in modulos:
            if not isinstance(n, str):
                raise TypeError(f"Cada módulo debe ser un texto como 'q_proj'; recibí {n!r} ({type(n).__name__}).")
            nombres.append(n.strip())
    else:
        raise TypeError(f"modulos debe ser una lista de nombres o 'all-linear'; recibí {modulos!r} ({type(modulos).__name__}).")
    if not nombres or any(not n for n in nombres):
        raise ValueError("modulos no puede estar vacío: da nombres como ['q_proj', 'v_proj'] o 'all-linear'.")
    return list(dict.fromkeys(nombres))


def _lora_en_modelo(est: _Estructura, r: int, objetivos) -> _Lora:
    import torch

    try:
        from transformers.pytorch_utils import Conv1D
    except ImportError:  # pragma: no cover
        Conv1D = ()
    modelo = est.modelo

    def dims(m):
        if isinstance(m, torch.nn.Linear):
            return m.in_features, m.out_features
        if Conv1D and isinstance(m, Conv1D):
            return int(m.weight.shape[0]), int(m.weight.shape[1])
        if isinstance(m, torch.nn.Embedding):
            return m.num_embeddings, m.embedding_dim
        return None

    elegidas = []
    if objetivos == "all-linear":
        salida = modelo.get_output_embeddings() if hasattr(modelo, "get_output_embeddings") else None
        for nombre, m in modelo.named_modules():
            if nombre and m is not salida and dims(m) and not isinstance(m, torch.nn.Embedding):
                elegidas.append((nombre, m))
    else:
        vistos = set()
        for nombre, m in modelo.named_modules():
            clave = next((o for o in objetivos if nombre == o or nombre.endswith("." + o)), None)
            if clave is None:
                continue
            if dims(m) is None:
                raise ValueError(f"La capa {nombre!r} ({type(m).__name__}) no es lineal: LoRA no la puede adaptar.")
            vistos.add(clave)
            elegidas.append((nombre, m))
        faltan = [o for o in objetivos if o not in vistos]
        if faltan:
            disponibles = sorted({n.rsplit(".", 1)[-1] for n, m in modelo.named_modules() if n and dims(m)})
            raise ValueError(
                f"Ninguna capa del modelo se llama {faltan[0]!r}. Capas disponibles: {', '.join(disponibles)} o 'all-linear'."
            )
    tensores: list[float] = []
    for _, m in elegidas:
        entrada, salida_ = dims(m)
        tensores += [r * entrada, salida_ * r]
    entrenables = sum(tensores)
    try:  # la cuenta oficial del curso vive en tutor_lib.lora
        from tutor_lib import lora as _lora_mod

        conteo = _lora_mod.contar_parametros_lora(modelo, r, objetivos)
        if conteo.parametros_entrenables != entrenables:
            est.notas.append(
                f"Aviso: tutor_lib.lora cuenta {formato.entero(conteo.parametros_entrenables)} parámetros de LoRA y esta "
                f"cuenta {formato.entero(int(entrenables))}; se usa la de tutor_lib.lora."
            )
            entrenables = conteo.parametros_entrenables
    except ImportError:  # pragma: no cover - lora.py aún no existe
        pass
    # Papeles adaptados dentro del primer bloque, para el ajuste de activaciones.
    roles = set()
    for nombre, _ in elegidas:
        rol = _rol_lineal(nombre, est.forma.familia)
        if rol:
            roles.add(rol)
    return _Lora(float(entrenables), tensores, tuple(sorted(roles)))


_DIMENSIONES_BERT = {
    "query": ("d", "d"), "key": ("d", "d"), "value": ("d", "d"), "attention.output.dense": ("d", "d"),
    "intermediate.dense": ("d", "i"), "output.dense": ("i", "d"),
}


def _lora_en_numero(est: _Estructura, r: int, objetivos) -> _Lora:
    f = est.forma
    dimensiones = _DIMENSIONES_BERT if f.familia == "bert" else _DIMENSIONES_LLAMA
    medidas = {"d": f.oculto, "kv": f.oculto * f.cabezas_kv / f.cabezas, "i": f.intermedio}
    if objetivos == "all-linear":
        nombres = list(dimensiones)
    else:
        nombres = []
        for n in objetivos:  # «dense» en BERT elige las tres capas densas de cada bloque, como en peft
            nombres += [m for m in dimensiones if m == n or m.endswith("." + n)] or [n]
        nombres = list(dict.fromkeys(nombres))
    desconocidos = [n for n in nombres if n not in dimensiones]
    if desconocidos:
        tipo = "BERT" if f.familia == "bert" else "Llama"
        raise ValueError(
            f"Con solo un número de parámetros supongo nombres de {tipo} y no conozco {desconocidos[0]!r}; "
            f"usa {', '.join(dimensiones)} o 'all-linear', o da un config.json."
        )
    tensores: list[float] = []
    for n in nombres:
        entrada, salida = (medidas[x] for x in dimensiones[n])
        tensores += [r * entrada * f.capas, salida * r * f.capas]
    est.notas.append("LoRA: parámetros entrenables estimados con una forma aproximada (da un config para la cifra exacta).")
    return _Lora(float(sum(tensores)), tensores, tuple(nombres))


# --------------------------------------------------------------------------
# Estimación de memoria
# --------------------------------------------------------------------------


@dataclass
class EstimacionMemoria:
    """Resultado de :func:`estimar_memoria` (todo en bytes enteros).

    ``estatica_bytes`` = pesos + gradientes + estados del optimizador + copia
    maestra + constantes de cuantización (exacta con un config); ``activaciones_bytes``
    es una **estimación**; ``componentes`` tiene las seis claves de
    :data:`COMPONENTES`; ``gpu`` (si diste una) dice si cabe y el lote máximo.
    """

    parametros: int
    parametros_entrenables: int
    estatica_bytes: int
    activaciones_bytes: int
    total_bytes: int
    componentes: dict[str, int]
    notas: list[str] = field(default_factory=list)
    metodo: str = "completo"
    precision: str = "mixta"
    optimizador: str = "adamw"
    lote: int | None = None
    secuencia: int | None = None
    activaciones_detalle: dict[str, int] = field(default_factory=dict)
    gpu: dict[str, Any] | None = None

    def a_dict(self) -> dict[str, Any]:
        """Diccionario listo para JSON (lo usa ``tutor vram --json``)."""
        return asdict(self)


def _bytes_optimizador(optimizador: str, tensores: Iterable[float], bytes_param: int, conocidos: bool) -> float:
    """Estado del optimizador para tensores entrenables de ``tensores`` elementos."""
    total = 0.0
    hay_8bit = False
    for n in tensores:
        if optimizador == "adamw":
            total += 2 * n * bytes_param + (BYTES_PASO_ADAMW if conocidos else 0)
        elif optimizador == "sgd_momentum":
            total += n * bytes_param
        elif optimizador == "adamw_8bit":
            if conocidos and n < MINIMO_8BIT:
                total += 8 * n
            else:
                hay_8bit = True
                bloques = math.ceil(n / BLOQUE_ADAM_8BIT) if conocidos else n / BLOQUE_ADAM_8BIT
                total += 2 * n + 2 * 4 * bloques
    if hay_8bit:
        total += BYTES_TABLAS_8BIT
    return total


class _Calculo:
    """Todo lo que no depende del lote: así :func:`lote_maximo` no reconstruye el modelo."""

    def __init__(
        self, parametros, metodo, precision, optimizador, r, modulos, checkpointing, doble_cuantizacion,
        contabilidad, atencion, preparar_kbit, fraccion_lineal, tarea,
    ):
        self.metodo = _opcion("metodo", metodo, METODOS)
        self.precision = _opcion("precision", precision, PRECISIONES)
        self.optimizador = _opcion("optimizador", optimizador, OPTIMIZADORES)
        self.contabilidad = _opcion("contabilidad", contabilidad, CONTABILIDADES)
        self.atencion = _opcion("atencion", atencion, ATENCIONES)
        self.checkpointing = _booleano("checkpointing", checkpointing)
        self.doble = _booleano("doble_cuantizacion", doble_cuantizacion)
        self.preparar_kbit = _booleano("preparar_kbit", preparar_kbit)
        if fraccion_lineal is not None:
            fraccion_lineal = _real("fraccion_lineal", fraccion_lineal, 0.0, 1.0)
        if tarea is not None:
            tarea = _opcion("tarea", tarea, ("causal", "clasificacion", "base"))
        notas: list[str] = []
        usa_lora = self.metodo in ("lora", "qlora")
        if usa_lora:
            if r is None:
                r = 16
                notas.append("Sin r: uso r=16.")
            if modulos is None:
                modulos = "all-linear"
                notas.append("Sin modulos: uso 'all-linear' (todas las capas lineales salvo la cabeza de salida).")
            self.r = _entero("r", r, 1, 4096)
            objetivos = _normalizar_objetivos(modulos)
        else:
            if r is not None:
                _entero("r", r, 1, 4096)
            if modulos is not None:
                _normalizar_objetivos(modulos)
            if r is not None or modulos is not None:
                notas.append("r y modulos solo cuentan con metodo 'lora' o 'qlora'; aquí se ignoran.")
            self.r = 0
        est = _cargar_estructura(parametros, tarea, fraccion_lineal)
        self.est = est
        self.lora = None
        if usa_lora:
            self.lora = (_lora_en_modelo if est.modelo is not None else _lora_en_numero)(est, self.r, objetivos)
        self.conocidos = est.tensores is not None
        self.componentes, notas_est = self._estatica()
        self.notas = notas + notas_est + est.notas

    # -- estado estático --
    def _estatica(self) -> tuple[dict[str, float], list[str]]:
        est, p, opt = self.est, self.precision, self.optimizador
        c = {k: 0.0 for k in COMPONENTES}
        notas = []
        tensores = est.tensores if self.conocidos else [float(est.parametros)]
        if self.metodo == "completo":
            if p == "mixta" and self.contabilidad == "zero":
                c["pesos"] = 2 * est.parametros
                c["gradientes"] = 2 * est.parametros
                c["copia_maestra_fp32"] = 4 * est.parametros
                c["estados_optimizador"] = _bytes_optimizador(opt, tensores, 4, self.conocidos)
                notas.append(
                    "Contabilidad de ZeRO: pesos y gradientes en 16 bits + copia maestra fp32 + estados fp32 "
                    "(los mismos bytes que la de AMP, repartidos de otra forma)."
                )
            else:
                b = 2 if p == "bf16" else 4
                c["pesos"] = b * est.parametros
                c["gradientes"] = b * est.parametros
                c["estados_optimizador"] = _bytes_optimizador(opt, tensores, b, self.conocidos)
                if p == "mixta":
                    notas.append(
                        "Precisión mixta (AMP): pesos, gradientes y estados en fp32 (los pesos fp32 son la copia "
                        "maestra); autocast añade copias de 16 bits de los pesos de las capas lineales durante el "
                        "paso, sumadas a las activaciones."
                    )
                elif p == "bf16":
                    notas.append(
                        "bf16 puro: sin copia maestra fp32; AdamW guarda m y v en bf16 (8 B por parámetro en total). "
                        "Pasos muy pequeños pueden perderse por redondeo en bf16."
                    )
            self.entrenables = est.parametros
            return c, notas

        # LoRA y QLoRA: base congelada + adaptador en fp32 (peft autocast_adapter_dtype=True)
        lora = self.lora
        b_base = 4 if p == "fp32" else 2
        if self.metodo == "lora":
            base = b_base * est.parametros
        else:
            est.preparar_cuantizables()
            if est.origen_cuantizables:
                notas.append(est.origen_cuantizables)
            b_resto = 4 if (p == "fp32" or self.preparar_kbit) else 2
            resto = est.parametros - est.elementos_cuantizables
            if est.cuantizables is not None:
                pesos_q = constantes = 0
                for n in est.cuantizables:
                    w, k = bytes_nf4(n, self.doble)
                    pesos_q += w
                    constantes += k
            else:
                pesos_q, constantes = _nf4_aproximado(est.elementos_cuantizables, est.capas_cuantizables, self.doble)
            base = pesos_q + b_resto * resto
            c["constantes_cuantizacion"] = constantes
            notas.append(
                "QLoRA: capas lineales en NF4 (0.5 B por parámetro) + constantes por bloque de 64 "
                + ("con doble cuantización (≈0.127 bits por parámetro)" if self.doble else "sin doble cuantización (0.5 bits por parámetro)")
                + f"; embeddings, normas y lm_head en {'fp32' if b_resto == 4 else '16 bits'}."
            )
            if not self.preparar_kbit and p != "fp32":
                notas.append(
                    "Si llamas a peft.prepare_model_for_kbit_training, pasa a fp32 todo lo no cuantizado "
                    "(+2 B por parámetro de embeddings, normas y lm_head): usa preparar_kbit=True."
                )
        c["pesos"] = base + 4 * lora.entrenables
        c["gradientes"] = 4 * lora.entrenables
        c["estados_optimizador"] = _bytes_optimizador(
            self.optimizador, lora.tensores if self.conocidos else [lora.entrenables], 4, self.conocidos
        )
        notas.append(
            "LoRA: la base está congelada (sin gradientes ni estados); los adaptadores A y B son fp32 "
            "(peft los crea así) y se entrenan con 4 + 4 + estados del optimizador por parámetro."
        )
        self.entrenables = lora.entrenables
        return c, notas

    # -- activaciones --
    def activaciones(self, lote: int, secuencia: int) -> tuple[float, dict[str, int], list[str]]:
        p = self.precision
        autocast = self.metodo == "completo" and p == "mixta"
        b = 4 if p == "fp32" else 2
        act = _activaciones(
            lote, secuencia, self.est.forma, b, autocast=autocast, checkpointing=self.checkpointing,
            atencion=self.atencion, lora_r=self.r if self.lora else 0,
            lora_modulos=self.lora.modulos_por_capa if self.lora else (),
        )
        total = float(act.total_bytes)
        detalle = dict(act.terminos)
        notas = list(act.notas)
        if autocast:
            copias = 2 * self.est.pesos_lineales
            detalle["copias_autocast"] = int(round(copias))
            total += copias
            notas.append(
                f"Autocast guarda copias de 16 bits de los pesos de las capas lineales: {formatear_bytes(copias)} "
                "transitorios incluidos en «activaciones»."
            )
        if p == "bf16":
            notas.append(
                "bf16: activaciones de un modelo bf16 tal cual; con autocast (Trainer con bf16=True) algunas "
                "operaciones (normas, softmax) guardan fp32 y pueden ocupar algo más."
            )
        if self.metodo == "qlora":
            transitorio = 2 * self.est.lineal_mayor if p != "fp32" else 4 * self.est.lineal_mayor
            detalle["peso_descuantizado"] = int(round(transitorio))
            total += transitorio
            notas.append("QLoRA: cada capa descuantiza su peso a 16 bits al vuelo (se cuenta la capa más grande).")
        return total, detalle, notas

    def para_lote(self, lote: int | None, secuencia: int | None) -> EstimacionMemoria:
        componentes = {k: int(round(v)) for k, v in self.componentes.items()}
        notas = list(self.notas)
        detalle: dict[str, int] = {}
        if lote is not None and secuencia is not None:
            act, detalle, notas_act = self.activaciones(lote, secuencia)
            componentes["activaciones"] = int(round(act))
            notas += notas_act
        else:
            notas.append("Sin lote y secuencia no estimo activaciones: solo el estado estático.")
        estatica = sum(v for k, v in componentes.items() if k != "activaciones")
        if self.conocidos and self.optimizador == "adamw":
            notas.append("AdamW: incluye un contador «step» fp32 (4 B) por tensor entrenable.")
        notas.append("No incluye los buffers del modelo (p. ej. inv_freq de RoPE): unos pocos KiB.")
        return EstimacionMemoria(
            parametros=int(self.est.parametros),
            parametros_entrenables=int(round(self.entrenables)),
            estatica_bytes=estatica,
            activaciones_bytes=componentes["activaciones"],
            total_bytes=estatica + componentes["activaciones"],
            componentes=componentes,
            notas=notas,
            metodo=self.metodo,
            precision=self.precision,
            optimizador=self.optimizador,
            lote=lote,
            secuencia=secuencia,
            activaciones_detalle=detalle,
        )

    def lote_maximo(self, gpu: InfoGPU, secuencia: int) -> int:
        utilizable = memoria_utilizable(gpu)

        def cabe_lote(b: int) -> bool:
            return self.para_lote(b, secuencia).total_bytes <= utilizable

        if not cabe_lote(1):
            return 0
        bajo, alto = 1, 2
        while alto <= _LOTE_TOPE and cabe_lote(alto):
            bajo, alto = alto, alto * 2
        alto = min(alto, _LOTE_TOPE + 1)
        while alto - bajo > 1:
            medio = (bajo + alto) // 2
            if cabe_lote(medio):
                bajo = medio
            else:
                alto = medio
        return bajo


def _argumentos(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    defectos = dict(
        metodo="completo", precision="mixta", optimizador="adamw", r=None, modulos=None, checkpointing=False,
        doble_cuantizacion=True, contabilidad="amp", atencion="sdpa", preparar_kbit=False, fraccion_lineal=None,
        tarea=None,
    )
    desconocidos = set(kwargs) - set(defectos) - {"parametros"}
    if desconocidos:
        raise TypeError(f"Argumento desconocido: {sorted(desconocidos)[0]!r}. Válidos: parametros, {', '.join(defectos)}.")
    return {**defectos, **kwargs}


def estimar_memoria(
    parametros: Any,
    metodo: str = "completo",
    precision: str = "mixta",
    optimizador: str = "adamw",
    r: int | None = None,
    modulos: Sequence[str] | str | None = None,
    lote: int | None = None,
    secuencia: int | None = None,
    checkpointing: bool = False,
    doble_cuantizacion: bool = True,
    gpu: Any = None,
    *,
    contabilidad: str = "amp",
    atencion: str = "sdpa",
    preparar_kbit: bool = False,
    fraccion_lineal: float | None = None,
    tarea: str | None = None,
) -> EstimacionMemoria:
    """Memoria de GPU de un paso de entrenamiento, por componente y en bytes.

    ``parametros``: un número (``7e9``), un ``PretrainedConfig``, un dict, la ruta
    a un ``config.json``, un nombre del Hub (solo la configuración, sin pesos; en
    modo rápido sin red da error) o un ``nn.Module``. Con un config se construye
    el modelo en el dispositivo «meta» y las cuentas son exactas (lm_head y
    embeddings atados incluidos, una sola vez). Con un número, la forma (para
    activaciones y LoRA) y la fracción cuantizable de QLoRA se estiman
    (``fraccion_lineal`` la fija a mano); con un número se supone un modelo de
    lenguaje tipo Llama (logits sobre 32 000 tokens) salvo ``tarea="clasificacion"``
    (encoder tipo BERT con un clasificador) o ``tarea="base"`` (sin cabeza).

    ``metodo``: ``completo``, ``lora`` o ``qlora`` (``r``, ``modulos``; por
    defecto 16 y ``"all-linear"``). ``precision``: ``fp32``, ``mixta`` o ``bf16``.
    ``optimizador``: ``adamw``, ``adamw_8bit``, ``sgd``, ``sgd_momentum``.
    ``lote`` y ``secuencia`` (juntos) añaden la **estimación** de activaciones;
    ``checkpointing`` activa gradient checkpointing. ``doble_cuantizacion`` solo
    afecta a QLoRA. ``gpu`` (nombre de :data:`GPUS` o ``InfoGPU``) añade
    ``cabe`` y ``lote_maximo``. Ejemplo: 7e9 parámetros, completo, mixta, AdamW
    → 112e9 bytes de estado estático (≈ 104.3 GiB).
    Se usa en lessons/07_memoria_y_fine_tuning_completo, lessons/10_lora y lessons/11_qlora.
    """
    lote = _opcional_entero("lote", lote, 1, _LOTE_TOPE)
    secuencia = _opcional_entero("secuencia", secuencia, 1, 10**7)
    if (lote is None) != (secuencia is None) and lote is not None:
        raise ValueError("Para estimar activaciones da lote y secuencia juntos (p. ej. lote=8, secuencia=512).")
    info = buscar_gpu(gpu) if gpu is not None else None
    calculo = _Calculo(
        parametros, metodo, precision, optimizador, r, modulos, checkpointing, doble_cuantizacion,
        contabilidad, atencion, preparar_kbit, fraccion_lineal, tarea,
    )
    resultado = calculo.para_lote(lote, secuencia)
    if info is not None:
        utilizable = memoria_utilizable(info)
        resultado.gpu = {
            "nombre": info.nombre,
            "memoria_nominal": getattr(info, "memoria_nominal", formatear_bytes(info.memoria_bytes)),
            "memoria_total_bytes": int(info.memoria_bytes),
            "memoria_utilizable_bytes": utilizable,
            "soporta_bf16": info.soporta_bf16,
            "cabe": resultado.total_bytes <= utilizable,
            "lote_maximo": calculo.lote_maximo(info, secuencia) if secuencia is not None else None,
        }
        if secuencia is None:
            resultado.notas.append("Para calcular el lote máximo en la GPU indica la secuencia.")
        if calculo.precision == "bf16" and not info.soporta_bf16:
            resultado.notas.append(
                f"La {info.nombre} (capacidad {info.capacidad[0]}.{info.capacidad[1]}) no tiene bf16 real: "
                "usa precisión mixta con fp16 (precision='mixta')."
            )
    return resultado


def lote_maximo(gpu: Any, secuencia: int, **kwargs: Any) -> int:
    """El mayor lote (ejemplos por paso y dispositivo) cuya estimación cabe en ``gpu``; 0 si no cabe ni 1.

    ``kwargs`` son los de :func:`estimar_memoria` salvo ``lote`` y ``gpu``
    (``parametros`` es obligatorio). Busca por duplicación y bisección sobre la
    memoria utilizable de :func:`memoria_utilizable`.
    Se usa en lessons/07_memoria_y_fine_tuning_completo.
    """
    if "lote" in kwargs or "gpu" in kwargs:
        raise TypeError("lote_maximo calcula el lote: no pases 'lote' ni 'gpu' en los argumentos extra.")
    if "parametros" not in kwargs:
        raise TypeError("lote_maximo necesita parametros=... (número, config o modelo).")
    info = buscar_gpu(gpu)
    secuencia = _entero("secuencia", secuencia, 1, 10**7)
    args = _argumentos(kwargs)
    calculo = _Calculo(
        args["parametros"], args["metodo"], args["precision"], args["optimizador"], args["r"], args["modulos"],
        args["checkpointing"], args["doble_cuantizacion"], args["contabilidad"], args["atencion"],
        args["preparar_kbit"], args["fraccion_lineal"], args["tarea"],
    )
    return calculo.lote_maximo(info, secuencia)


# --------------------------------------------------------------------------
# Catálogo de GPUs
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class GPU(InfoGPU):
    """Una GPU del catálogo: ``InfoGPU`` + la memoria nominal de la hoja de datos.

    ``memoria_bytes`` es la memoria total que ve CUDA (lo que muestra
    ``nvidia-smi`` en MiB, típico); ``memoria_nominal`` es la etiqueta comercial
    («16 GB»). :func:`memoria_utilizable` resta el contexto de CUDA y la
    fragmentación.
    """

    memoria_nominal: str = ""
    nota: str = ""

    @property
    def memoria_utilizable_bytes(self) -> int:
        return memoria_utilizable(self)


def _gpu(nombre, nominal, mib, capacidad, nota=""):
    return GPU(nombre=nombre, memoria_bytes=mib * MIB, capacidad=capacidad, memoria_nominal=nominal, nota=nota)


#: Catálogo: clave → :class:`GPU`. Memoria total típica según ``nvidia-smi``;
#: bf16 real solo con capacidad de cómputo ≥ 8.0 (la T4 es 7.5).
GPUS: dict[str, GPU] = {
    "T4": _gpu("T4", "16 GB", 15360, (7, 5), "Colab gratis; 16 GiB físicos, 15 360 MiB visibles con ECC; sin bf16"),
    "L4": _gpu("L4", "24 GB", 23034, (8, 9), "Colab de pago"),
    "A10G": _gpu("A10G", "24 GB", 23028, (8, 6), "AWS g5"),
    "RTX 3090": _gpu("RTX 3090", "24 GB", 24576, (8, 6)),
    "RTX 4090": _gpu("RTX 4090", "24 GB", 24564, (8, 9)),
    "A100 40GB": _gpu("A100 40GB", "40 GB", 40960, (8, 0), "Colab de pago"),
    "A100 80GB": _gpu("A100 80GB", "80 GB", 81920, (8, 0)),
    "H100 80GB": _gpu("H100 80GB", "80 GB", 81559, (9, 0), "SXM"),
    "H200 141GB": _gpu("H200 141GB", "141 GB", 143771, (9, 0)),
}

_ALIAS_GPU = {
    "3090": "RTX 3090", "4090": "RTX 4090", "h100": "H100 80GB", "h200": "H200 141GB",
    "a10040": "A100 40GB", "a10080": "A100 80GB", "teslat4": "T4", "a10": "A10G",
}


def _clave(texto: str) -> str:
    return "".join(ch for ch in texto.lower() if ch.isalnum())


def buscar_gpu(gpu: Any) -> InfoGPU:
    """Devuelve la GPU del catálogo por nombre (sin distinguir mayúsculas ni espacios) o la ``InfoGPU`` dada.

    Acepta ``"T4"``, ``"a100 80gb"``, ``"rtx4090"``, ``"H100"``… o una
    ``entorno.InfoGPU`` (la GPU detectada con ``entorno.info_gpu()``).
    Se usa en lessons/07_memoria_y_fine_tuning_completo.
    """
    if isinstance(gpu, InfoGPU):
        return gpu
    if not isinstance(gpu, str):
        raise TypeError(f"gpu debe ser un nombre como 'T4' o una InfoGPU; recibí {gpu!r} ({type(gpu).__name__}).")
    buscada = _clave(gpu)
    for clave, info in GPUS.items():
        if _clave(clave) == buscada:
            return info
    if buscada in _ALIAS_GPU:
        return GPUS[_ALIAS_GPU[buscada]]
    if buscada == "a100":
        raise ValueError("Hay dos A100: di 'A100 40GB' (la de Colab) o 'A100 80GB'.")
    raise ValueError(f"GPU desconocida: {gpu!r}. Elige una de: {', '.join(GPUS)}.")


def memoria_utilizable(gpu: Any) -> int:
    """Bytes que un entrenamiento puede usar de verdad en ``gpu``.

    Memoria total − contexto de CUDA (512 MiB) y, de lo que queda, un 5 % por
    fragmentación del asignador de PyTorch. En una T4: 15 360 MiB →
    ≈ 13.8 GiB (14.8 GB). Se usa en lessons/07_memoria_y_fine_tuning_completo.
    """
    info = buscar_gpu(gpu)
    libre = max(int(info.memoria_bytes) - CONTEXTO_CUDA_BYTES, 0)
    return int(libre * (1 - FRACCION_FRAGMENTACION))


def cabe(estimacion: Any, gpu: Any) -> bool:
    """``True`` si ``estimacion`` (una :class:`EstimacionMemoria` o bytes) cabe en la memoria utilizable de ``gpu``.

    Se usa en lessons/07_memoria_y_fine_tuning_completo.
    """
    if isinstance(estimacion, EstimacionMemoria):
        total = estimacion.total_bytes
    elif isinstance(estimacion, numbers.Real) and not isinstance(estimacion, bool):
        total = float(estimacion)
        if not math.isfinite(total) or total < 0:
            raise ValueError(f"La memoria a comprobar debe ser un número de bytes ≥ 0; recibí {estimacion!r}.")
    else:
        raise TypeError(
            f"cabe necesita una EstimacionMemoria o un número de bytes; recibí {type(estimacion).__name__}."
        )
    return total <= memoria_utilizable(gpu)


# --------------------------------------------------------------------------
# Medición exacta
# --------------------------------------------------------------------------


def _almacen(t) -> tuple[Any, int, int] | None:
    """(clave única del almacenamiento, bytes) de un tensor; ``None`` si no ocupa memoria real."""
    try:
        s = t.untyped_storage()
    except (RuntimeError, AttributeError, NotImplementedError):
        return None
    if t.device.type == "meta":
        return None
    ptr = s.data_ptr()
    if ptr == 0:
        return None
    return (t.device.type, t.device.index, ptr), s.nbytes()


def _tensores_de(objeto: Any, profundidad: int = 0) -> Iterable[Any]:
    import torch

    if profundidad > 4:
        return
    if isinstance(objeto, torch.Tensor):
        yield objeto
    elif isinstance(objeto, Mapping):
        for v in objeto.values():
            yield from _tensores_de(v, profundidad + 1)
    elif isinstance(objeto, (list, tuple)):
        for v in objeto:
            yield from _tensores_de(v, profundidad + 1)
    elif hasattr(objeto, "to_tuple"):  # ModelOutput
        yield from _tensores_de(objeto.to_tuple(), profundidad + 1)


def _tensores_de_cuantizacion(estado: Any, profundidad: int = 0) -> Iterable[Any]:
    import torch

    if estado is None or profundidad > 2:
        return
    for nombre in ("absmax", "code", "offset"):
        valor = getattr(estado, nombre, None)
        if isinstance(valor, torch.Tensor):
            yield valor
    yield from _tensores_de_cuantizacion(getattr(estado, "state2", None), profundidad + 1)


def _comprobar_modulo(modelo: Any) -> None:
    import torch

    if not isinstance(modelo, torch.nn.Module):
        raise TypeError(f"Necesito un modelo de PyTorch (nn.Module); recibí {type(modelo).__name__}.")


def medir_estado(modelo: Any, optimizador: Any = None) -> dict[str, int]:
    """Bytes EXACTOS del estado de un modelo real: pesos, gradientes y optimizador.

    Cuenta almacenamientos únicos (un peso atado o un tensor compartido cuenta
    una vez): ``pesos`` (parámetros; en 4 bits, los bytes empaquetados),
    ``constantes_cuantizacion`` (``quant_state`` de bitsandbytes), ``gradientes``
    (``p.grad``), ``estados_optimizador`` (todos los tensores de
    ``optimizador.state``: m, v, ``step``, tablas de 8 bits…), ``buffers`` (aparte)
    y ``total`` (todo salvo los buffers). Llámala tras un paso de
    ``optimizador.step()``: antes los estados aún no existen.
    Se usa en lessons/07_memoria_y_fine_tuning_completo.
    """
    _comprobar_modulo(modelo)
    if optimizador is not None and not hasattr(optimizador, "state"):
        raise TypeError(f"optimizador debe ser un torch.optim.Optimizer; recibí {type(optimizador).__name__}.")
    vistos: set = set()
    resultado = {"pesos": 0, "constantes_cuantizacion": 0, "gradientes": 0, "estados_optimizador": 0, "buffers": 0}

    def sumar(componente: str, tensores: Iterable[Any]) -> None:
        for t in tensores:
            info = _almacen(t)
            if info is None or info[0] in vistos:
                continue
            vistos.add(info[0])
            resultado[componente] += info[1]

    parametros = list(modelo.parameters())
    sumar("pesos", parametros)
    for p in parametros:
        sumar("constantes_cuantizacion", _tensores_de_cuantizacion(getattr(p, "quant_state", None)))
    sumar("gradientes", [p.grad for p in parametros if p.grad is not None])
    if optimizador is not None:
        for estado in optimizador.state.values():
            sumar("estados_optimizador", _tensores_de(estado))
    sumar("buffers", modelo.buffers())
    resultado["total"] = sum(v for k, v in resultado.items() if k != "buffers")
    return resultado


def medir_activaciones(modelo: Any, entradas: Any, incluir_salida: bool = True) -> int:
    """Bytes EXACTOS que autograd guarda durante un forward (más la salida, si ``incluir_salida``).

    Usa ``torch.autograd.graph.saved_tensors_hooks`` para ver cada tensor que
    el grafo guarda para el backward y suma sus almacenamientos únicos, sin
    contar parámetros, buffers ni constantes de cuantización (ya están en el
    estado estático). Con ``incluir_salida`` suma los tensores de la salida
    (logits, pérdida), vivos hasta el backward. ``entradas``: un dict de
    tensores (``modelo(**entradas)``) o un tensor (``modelo(entradas)``). No hace
    el backward. Se usa en lessons/07_memoria_y_fine_tuning_completo.
    """
    import torch

    _comprobar_modulo(modelo)
    incluir_salida = _booleano("incluir_salida", incluir_salida)
    if not isinstance(entradas, (Mapping, torch.Tensor)):
        raise TypeError(f"entradas debe ser un dict de tensores o un tensor; recibí {type(entradas).__name__}.")
    excluidos = set()
    for t in list(modelo.parameters()) + list(modelo.buffers()):
        info = _almacen(t)
        if info:
            excluidos.add(info[0])
        for c in _tensores_de_cuantizacion(getattr(t, "quant_state", None)):
            info = _almacen(c)
            if info:
                excluidos.add(info[0])
    guardados: dict[Any, int] = {}
    referencias: list[Any] = []  # mantiene vivos los tensores: ninguna dirección se reutiliza

    def empaquetar(t):
        referencias.append(t)
        info = _almacen(t)
        if info is not None and info[0] not in excluidos:
            guardados[info[0]] = info[1]
        return t

    with torch.autograd.graph.saved_tensors_hooks(empaquetar, lambda t: t):
        salida = modelo(**entradas) if isinstance(entradas, Mapping) else modelo(entradas)
    if incluir_salida:
        for t in _tensores_de(salida):
            info = _almacen(t)
            if info is not None and info[0] not in excluidos:
                guardados.setdefault(info[0], info[1])
    total = sum(guardados.values())
    del salida, referencias
    return total


# --------------------------------------------------------------------------
# Texto y gráfica
# --------------------------------------------------------------------------


def tabla(estimacion: EstimacionMemoria) -> str:
    """Tabla en español de una :class:`EstimacionMemoria`, con GiB y GB.

    Se usa en ``tutor vram`` y en lessons/07_memoria_y_fine_tuning_completo.
    """
    if not isinstance(estimacion, EstimacionMemoria):
        raise TypeError(f"tabla necesita una EstimacionMemoria; recibí {type(estimacion).__name__}.")
    e = estimacion
    miles = formato.entero
    lineas = [
        f"Memoria de entrenamiento: método {e.metodo}, precisión {e.precision}, optimizador {e.optimizador}",
        f"Parámetros: {miles(e.parametros)} (entrenables: {miles(e.parametros_entrenables)})",
    ]
    if e.lote is not None:
        lineas.append(f"Lote {e.lote}, secuencia {e.secuencia}")
    lineas.append("")
    ancho = max(len(v) for v in ETIQUETAS.values()) + 2
    lineas.append(f"{'Componente':<{ancho}}{'GiB':>10}{'GB':>10}{'bytes':>20}")
    lineas.append("-" * (ancho + 40))

    def fila(nombre: str, n: int) -> str:
        return f"{nombre:<{ancho}}" + f"{formato.numero(n / GIB, 3):>10}{formato.numero(n / GB, 3):>10}" + f"{miles(n):>20}"

    for k in COMPONENTES:  # las activaciones van aparte, tras el subtotal del estado estático (una sola fila)
        if k != "activaciones":
            lineas.append(fila(ETIQUETAS[k], e.componentes.get(k, 0)))
    lineas.append("-" * (ancho + 40))
    lineas.append(fila("Estado estático", e.estatica_bytes))
    lineas.append(fila(ETIQUETAS["activaciones"], e.activaciones_bytes))
    lineas.append(fila("TOTAL", e.total_bytes))
    if e.gpu:
        g = e.gpu
        veredicto = "CABE" if g["cabe"] else "NO CABE"
        lineas += [
            "",
            f"GPU {g['nombre']} ({g['memoria_nominal']} nominales; {formatear_bytes(g['memoria_total_bytes'])} "
            f"totales; utilizables {formatear_bytes(g['memoria_utilizable_bytes'])}): {veredicto}",
        ]
        if g.get("lote_maximo") is not None:
            lineas.append(f"Lote máximo que cabe con esta secuencia: {g['lote_maximo']}")
    if e.notas:
        lineas += ["", "Notas:"] + [f"  - {n}" for n in e.notas]
    return "\n".join(lineas)


#: Paleta de Okabe e Ito (segura para daltonismo), un color por componente.
PALETA = {
    "pesos": "#0072B2",
    "gradientes": "#E69F00",
    "estados_optimizador": "#009E73",
    "copia_maestra_fp32": "#CC79A7",
    "constantes_cuantizacion": "#56B4E9",
    "activaciones": "#D55E00",
}


def graficar_componentes(estimaciones: Any, gpu: Any = None, unidad: str = "GiB", ax: Any = None, titulo: str | None = None):
    """Barras apiladas por componente (paleta de Okabe e Ito) de una o varias estimaciones.

    ``estimaciones``: una :class:`EstimacionMemoria`, una lista o un dict
    ``{etiqueta: estimación}``. ``gpu`` dibuja una línea con su memoria
    utilizable. ``unidad``: ``"GiB"`` o ``"GB"``. Devuelve el ``Axes``.
    Se usa en lessons/07_memoria_y_fine_tuning_completo.
    """
    if isinstance(estimaciones, EstimacionMemoria):
        estimaciones = {f"{estimaciones.metodo} / {estimaciones.precision}": estimaciones}
    elif isinstance(estimaciones, (list, tuple)):
        estimaciones = {f"{i + 1}. {e.metodo} / {e.precision}" if isinstance(e, EstimacionMemoria) else str(i): e
                        for i, e in enumerate(estimaciones)}
    if not isinstance(estimaciones, Mapping) or not estimaciones:
        raise TypeError("estimaciones debe ser una EstimacionMemoria, una lista no vacía o un dict {etiqueta: estimación}.")
    for e in estimaciones.values():
        if not isinstance(e, EstimacionMemoria):
            raise TypeError(f"Cada elemento debe ser una EstimacionMemoria; recibí {type(e).__name__}.")
    if not isinstance(unidad, str) or unidad.strip().lower() not in ("gib", "gb"):
        raise ValueError(f"unidad debe ser 'GiB' (2³⁰ B) o 'GB' (10⁹ B); recibí {unidad!r}.")
    unidad = "GiB" if unidad.strip().lower() == "gib" else "GB"
    divisor = GIB if unidad == "GiB" else GB
    info = buscar_gpu(gpu) if gpu is not None else None
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(max(5, 1.6 * len(estimaciones) + 3), 4.5))
    nombres = list(estimaciones)
    base = [0.0] * len(nombres)
    for k in COMPONENTES:
        valores = [estimaciones[n].componentes.get(k, 0) / divisor for n in nombres]
        if not any(valores):
            continue
        ax.bar(nombres, valores, bottom=base, color=PALETA[k], label=ETIQUETAS[k], edgecolor="white", linewidth=0.5)
        base = [b + v for b, v in zip(base, valores)]
    if info is not None:
        limite = memoria_utilizable(info) / divisor
        ax.axhline(limite, color="black", linestyle="--", linewidth=1)
        ax.text(len(nombres) - 0.5, limite, f" {info.nombre}: {formato.numero(limite, 1)} {unidad} utilizables",
                va="bottom", ha="right", fontsize=9)
    ax.set_ylabel(f"Memoria ({unidad})")
    ax.set_title(titulo or "Memoria de entrenamiento por componente")
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    return ax


__all__ = [
    "BLOQUE_NF4", "COMPONENTES", "ETIQUETAS", "GB", "GIB", "GPU", "GPUS", "PALETA",
    "EstimacionActivaciones", "EstimacionMemoria", "buscar_gpu", "bytes_nf4", "bytes_por_parametro", "cabe",
    "estimar_activaciones", "estimar_memoria", "forma_estimada", "formatear_bytes", "graficar_componentes",
    "lote_maximo", "medir_activaciones", "medir_estado", "memoria_utilizable", "tabla",
]
