"""Estimación de las activaciones que autograd guarda en un paso (Llama y BERT, sdpa o eager, con o sin
gradient checkpointing).

Se usa en lessons/07_memoria_y_fine_tuning_completo y lessons/11_qlora.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any, Sequence

from tutor_lib.vram.base import (
    ATENCIONES, DISPOSITIVOS, FAMILIAS, _LOTE_TOPE, _booleano, _entero, _opcion, _opcional_entero, _real,
)
from tutor_lib.vram.estructura import _Forma

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


