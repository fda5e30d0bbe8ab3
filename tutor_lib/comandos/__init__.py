"""Subcomandos del comando ``tutor`` (capa fina sobre los módulos puros)."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Resultado:
    """Lo que devuelve un subcomando: datos para ``--json``, texto para personas y avisos.

    ``avisos`` son frases en español que ``tutor`` imprime en stderr (con o sin
    ``--json``), sin cambiar el código de salida.
    """

    datos: dict[str, Any] = field(default_factory=dict)
    texto: str = ""
    codigo: int = 0
    avisos: list[str] = field(default_factory=list)


def leer_pasos(opcion: str, texto: str | None, *, fraccion: bool) -> int | float | None:
    """Lee de la línea de órdenes un entero de pasos o (si ``fraccion``) un float en [0, 1).

    Es la semántica de ``warmup_steps``/``logging_steps`` en transformers 5; la usan
    ``tutor warmup`` y ``tutor configurar``. Entrada inválida: ``ValueError`` en español.
    """
    if texto is None:
        return None
    texto = str(texto).strip()
    try:
        entero = int(texto)
    except ValueError:
        pass
    else:
        if entero < 0:
            raise ValueError(
                f"{opcion} no puede ser negativo: da un entero de pasos o una fracción en [0, 1); recibí {texto!r}."
            )
        return entero
    try:
        valor = float(texto)
    except ValueError:
        raise ValueError(f"{opcion} debe ser un entero de pasos o una fracción en [0, 1); recibí {texto!r}.") from None
    if not math.isfinite(valor) or valor < 0:
        raise ValueError(f"{opcion} debe ser ≥ 0 y finito; recibí {texto!r}.")
    if valor >= 1:
        if not valor.is_integer():
            raise ValueError(f"{opcion} ≥ 1 debe ser un entero de pasos; recibí {texto!r} (¿querías una fracción < 1?).")
        return int(valor)
    if not fraccion:
        raise ValueError(f"{opcion} debe ser un entero; recibí {texto!r}.")
    return valor


def preparar_modelo_del_hub(nombre: str, alternativas: str) -> None:
    """Comprueba, antes de llamar a transformers, que se puede leer el config de ``nombre`` (``--modelo``).

    Sirve sin red si ``nombre`` es una ruta local, uno de ``recursos.configs_incluidos()``
    o un modelo que ya está en la caché de Hugging Face. Sin Hub (``HF_HUB_OFFLINE=1``
    o sin conexión con huggingface.co, probada con un límite de 1.5 s) y sin caché,
    lanza ``ValueError`` en español al momento, con ``alternativas`` como sugerencia,
    en vez de dejar que huggingface_hub reintente durante medio minuto. Sin conexión
    pero con caché, activa ``HF_HUB_OFFLINE`` para que transformers lea la caché sin
    reintentos. Lo usan ``tutor vram`` y ``tutor lora``.
    """
    from pathlib import Path

    from tutor_lib import entorno, recursos

    incluidos = recursos.configs_incluidos()
    if Path(nombre).exists() or nombre in incluidos:
        return
    if entorno.hub_desactivado_por_entorno():
        motivo = "pediste trabajar sin el Hub (HF_HUB_OFFLINE o TRANSFORMERS_OFFLINE está activo)"
    elif entorno.hub_accesible(1.5):
        return
    else:
        motivo = "no hay conexión con el Hub de Hugging Face (huggingface.co)"
    os.environ["HF_HUB_OFFLINE"] = "1"  # antes de importar huggingface_hub: lo lee al importarse
    try:
        from huggingface_hub import try_to_load_from_cache

        en_cache = isinstance(try_to_load_from_cache(nombre, "config.json"), str)
    except Exception:  # noqa: BLE001 - nombre con forma inválida o huggingface_hub ausente: no está en caché
        en_cache = False
    if en_cache:
        return
    raise ValueError(
        f"No pude obtener la configuración de {nombre!r}: {motivo} y ese modelo no está en la caché local. "
        f"Sin red, el curso trae la de {', '.join(incluidos)}. Para otro modelo usa {alternativas}."
    )
