"""Datos planos entre el kernel del estudiante y el juez: JSON, nunca pickle.

Lo que cruza la frontera entre los dos procesos (ver :mod:`tutor_lib.calificacion.juez`)
son solo valores de estos tipos: ``None``, ``bool``, ``int``, ``float``,
``str``, ``list``, ``tuple``, ``dict``, ``set``, tensores de torch, arreglos y
escalares de numpy. Cada valor se escribe en JSON; los que JSON no tiene se
escriben como un objeto con la clave ``"t"`` (el tipo), y los tensores como
sus bytes en base64 con su ``dtype`` y su forma.

Del lado del estudiante, :func:`codificar` rechaza con un mensaje en español
cualquier otro tipo, incluidas las subclases (un ``int`` que dice ser igual a
todo no es un ``int``). Del lado del juez, :func:`decodificar` valida todo lo
que recibe (tipos, tamaños, profundidad, bytes de cada tensor) y reconstruye
objetos *nuevos* de los tipos reales: el juez nunca ejecuta ni compara un
objeto que haya creado el estudiante.
"""

from __future__ import annotations

import base64
import json
import math
import sys

MAX_BYTES = 64 * 2**20  # tamaño máximo de un mensaje
MAX_PROFUNDIDAD = 40

_DTYPES_TORCH = ("float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool")
_DTYPES_NUMPY = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
                 "uint32", "uint64", "bool")


class DatoNoPlano(TypeError):
    """El estudiante devolvió algo que no es un dato plano (mensaje en español)."""


class DatoInvalido(ValueError):
    """Lo que llegó al juez no respeta el formato: se rechaza sin ejecutar nada."""


def _nombre_tipo(valor) -> str:
    t = type(valor)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def _a_plano(valor, profundidad: int):
    if profundidad > MAX_PROFUNDIDAD:
        raise DatoNoPlano("El valor tiene demasiados niveles anidados para enviarlo al juez.")
    t = type(valor)
    if valor is None or t in (bool, int, str):
        return valor
    if t is float:
        if math.isfinite(valor):
            return valor
        return {"t": "float", "v": repr(valor)}
    if t is list:
        return [_a_plano(v, profundidad + 1) for v in valor]
    if t is tuple:
        return {"t": "tuple", "v": [_a_plano(v, profundidad + 1) for v in valor]}
    if t in (set, frozenset):
        return {"t": "set", "v": [_a_plano(v, profundidad + 1) for v in valor]}
    if t is dict:
        return {"t": "dict", "v": [[_a_plano(k, profundidad + 1), _a_plano(v, profundidad + 1)] for k, v in valor.items()]}
    torch = sys.modules.get("torch")
    if torch is not None and t in (torch.Tensor, torch.nn.Parameter):
        tensor = valor.detach().to("cpu").contiguous()
        dtype = str(tensor.dtype).removeprefix("torch.")
        if dtype not in _DTYPES_TORCH:
            raise DatoNoPlano(f"No se puede enviar un tensor de tipo {dtype}.")
        crudo = tensor.view(torch.int16) if dtype == "bfloat16" else tensor
        datos = crudo.numpy().tobytes() if tensor.numel() else b""
        return {"t": "tensor", "dtype": dtype, "forma": list(tensor.shape),
                "b64": base64.b64encode(datos).decode("ascii")}
    np = sys.modules.get("numpy")
    if np is not None and t is np.ndarray:
        if str(valor.dtype) not in _DTYPES_NUMPY:
            raise DatoNoPlano(f"No se puede enviar un arreglo de numpy de tipo {valor.dtype}.")
        return {"t": "ndarray", "dtype": str(valor.dtype), "forma": list(valor.shape),
                "b64": base64.b64encode(np.ascontiguousarray(valor).tobytes()).decode("ascii")}
    if np is not None and isinstance(valor, np.generic) and type(valor).__module__ == "numpy":
        if str(valor.dtype) not in _DTYPES_NUMPY:
            raise DatoNoPlano(f"No se puede enviar un escalar de numpy de tipo {valor.dtype}.")
        return {"t": "npescalar", "dtype": str(valor.dtype), "b64": base64.b64encode(valor.tobytes()).decode("ascii")}
    raise DatoNoPlano(
        f"Tu código devolvió un objeto de tipo {_nombre_tipo(valor)}, que no es un dato plano. "
        "Las pruebas solo reciben números, textos, listas, tuplas, diccionarios, conjuntos y tensores "
        "(o arreglos de numpy)."
    )


def codificar(valor) -> str:
    """``valor`` como texto JSON (lado del estudiante). ``DatoNoPlano`` si no es plano."""
    texto = json.dumps(_a_plano(valor, 0), ensure_ascii=False, allow_nan=False)
    if len(texto) > MAX_BYTES:
        raise DatoNoPlano(f"El valor ocupa {len(texto) // 2**20} MiB: demasiado para enviarlo al juez.")
    return texto


def _de_plano(dato, profundidad: int):
    if profundidad > MAX_PROFUNDIDAD:
        raise DatoInvalido("demasiados niveles anidados")
    t = type(dato)
    if dato is None or t in (bool, int, float, str):
        return dato
    if t is list:
        return [_de_plano(v, profundidad + 1) for v in dato]
    if t is not dict:
        raise DatoInvalido(f"tipo JSON inesperado: {t.__name__}")
    clase = dato.get("t")
    if clase == "float":
        if dato.get("v") not in ("nan", "inf", "-inf"):
            raise DatoInvalido("float especial desconocido")
        return float(dato["v"])
    if clase in ("tuple", "set", "dict"):
        elementos = dato.get("v")
        if type(elementos) is not list:
            raise DatoInvalido(f"{clase} sin lista de elementos")
        if clase == "tuple":
            return tuple(_de_plano(v, profundidad + 1) for v in elementos)
        if clase == "set":
            return {_clave(_de_plano(v, profundidad + 1)) for v in elementos}
        salida = {}
        for par in elementos:
            if type(par) is not list or len(par) != 2:
                raise DatoInvalido("par clave-valor mal formado")
            salida[_clave(_de_plano(par[0], profundidad + 1))] = _de_plano(par[1], profundidad + 1)
        return salida
    if clase in ("tensor", "ndarray", "npescalar"):
        return _arreglo(dato, clase)
    raise DatoInvalido("objeto JSON sin tipo conocido")  # sin repetir lo que llegó: lo escribió el estudiante


def _clave(valor):
    try:
        hash(valor)
    except TypeError:
        raise DatoInvalido("una clave de diccionario o elemento de conjunto no es hashable") from None
    return valor


def _arreglo(dato: dict, clase: str):
    import numpy as np

    dtype, b64 = dato.get("dtype"), dato.get("b64")
    if type(b64) is not str or type(dtype) is not str:
        raise DatoInvalido("tensor sin dtype o sin datos")
    try:
        crudo = base64.b64decode(b64.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise DatoInvalido("bytes de tensor que no son base64") from None
    if clase == "npescalar":
        if dtype not in _DTYPES_NUMPY or len(crudo) != np.dtype(dtype).itemsize:
            raise DatoInvalido("escalar de numpy mal formado")
        return np.frombuffer(crudo, dtype=dtype)[0].copy()
    forma = dato.get("forma")
    if type(forma) is not list or not all(type(n) is int and n >= 0 for n in forma):
        raise DatoInvalido("forma de tensor inválida")
    elementos = math.prod(forma)
    if clase == "ndarray":
        if dtype not in _DTYPES_NUMPY or len(crudo) != elementos * np.dtype(dtype).itemsize:
            raise DatoInvalido("arreglo de numpy con bytes que no cuadran con su forma")
        return np.frombuffer(crudo, dtype=dtype).reshape(forma).copy()
    import torch

    if dtype not in _DTYPES_TORCH:
        raise DatoInvalido("dtype de tensor no permitido")
    tipo = getattr(torch, dtype)
    tamano = torch.empty((), dtype=tipo).element_size()
    if len(crudo) != elementos * tamano:
        raise DatoInvalido("tensor con bytes que no cuadran con su forma")
    if elementos == 0:
        return torch.empty(forma, dtype=tipo)
    if dtype == "bfloat16":
        base = torch.frombuffer(bytearray(crudo), dtype=torch.int16).view(torch.bfloat16)
    else:
        base = torch.frombuffer(bytearray(crudo), dtype=tipo)
    return base.reshape(forma).clone()


def decodificar(texto: str):
    """El valor que describe ``texto`` (lado del juez); ``DatoInvalido`` si no respeta el formato."""
    if type(texto) is not str or len(texto) > MAX_BYTES:
        raise DatoInvalido("mensaje vacío o demasiado grande")

    def sin_constantes(nombre):
        raise DatoInvalido(f"constante JSON no permitida: {nombre}")

    try:
        dato = json.loads(texto, parse_constant=sin_constantes)
    except json.JSONDecodeError as exc:
        raise DatoInvalido(f"JSON dañado: {exc}") from None
    return _de_plano(dato, 0)
