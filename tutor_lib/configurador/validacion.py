"""Validación de las entradas del configurador (mensajes en español) y nombres de GPU.

Comprueba el tipo y el rango de cada campo de
:class:`~tutor_lib.configurador.Configuracion` (``TypeError``/``ValueError``
con el valor recibido) y normaliza la GPU contra el catálogo de
:mod:`tutor_lib.vram`. Se usa en lessons/04_warmup_y_regularizacion y en
``tutor configurar``.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Iterable

from tutor_lib.configurador.constantes import MODELOS


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
# GPU: nombres del catálogo de tutor_lib.vram
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
