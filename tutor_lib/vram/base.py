"""Constantes, validación de argumentos y formato de bytes que comparten los módulos de :mod:`tutor_lib.vram`.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Sequence

from tutor_lib import formato

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


