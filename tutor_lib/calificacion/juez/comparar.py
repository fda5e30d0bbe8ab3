"""Comparar lo que devolvió el estudiante con lo esperado, revisando primero tipo y forma.

``torch.allclose``, ``np.allclose`` y ``==`` entre tensores **difunden**
(*broadcasting*): un tensor vacío, uno de forma ``(1,)`` o una columna
``(n, 1)`` pueden «coincidir» con lo esperado sin tener su forma, y
``all(math.isclose(a, b) for a, b in zip(...))`` da verdadero con una lista
vacía. Por eso las pruebas de las asignaciones (``solutions/*``) comparan con
:func:`comparar_valores`, que antes de mirar los números revisa, en este
orden:

1. el tipo: un tensor de torch donde se espera un tensor, un arreglo de NumPy
   donde se espera un arreglo, un número donde se espera un número, y
   listas, tuplas y diccionarios con los mismos elementos o claves;
2. la forma (o el largo), con un mensaje en español que nombra la esperada y
   la recibida;
3. la clase de ``dtype`` (booleano, entero o de punto flotante): un tensor de
   enteros no pasa por uno de flotantes;
4. los valores, con ``rtol`` y ``atol`` (o exactos, con ``exacto=True``).

Las pruebas corren en el proceso del juez (:mod:`tutor_lib.calificacion.juez`) con valores
que :mod:`tutor_lib.calificacion.juez.datos` reconstruyó como tipos reales: aquí no se
llama a ningún método de un objeto del estudiante. En tu notebook, las
pruebas visibles usan la misma función y ves los mismos mensajes.

    from tutor_lib.juez import comparar_valores

    comparar_valores(salida, esperada, atol=1e-6, que="La salida de tu capa",
                     mensaje="Al crearla, la capa debe dar la salida de base (B = 0)")
"""

from __future__ import annotations

import math
import sys

__all__ = ["comparar_valores", "forma_de", "revisar_forma", "valores_coinciden"]

_TIPOS_NUMERO = (int, float)


def _torch():
    return sys.modules.get("torch")


def _numpy():
    return sys.modules.get("numpy")


def _es_tensor(valor, exacto: bool = False) -> bool:
    """¿Es un tensor de torch? Con ``exacto``, solo los tipos reales (como los que reconstruye el juez)."""
    torch = _torch()
    if torch is None:
        return False
    return type(valor) in (torch.Tensor, torch.nn.Parameter) if exacto else isinstance(valor, torch.Tensor)


def _es_arreglo(valor, exacto: bool = False) -> bool:
    np = _numpy()
    if np is None:
        return False
    return type(valor) is np.ndarray if exacto else isinstance(valor, np.ndarray)


def _es_numero(valor) -> bool:
    """Un número de Python o un escalar de NumPy (no ``bool``: ``True`` no es un 1 que se pueda comparar)."""
    if type(valor) is bool:
        return False
    if type(valor) in _TIPOS_NUMERO:
        return True
    np = _numpy()
    return np is not None and isinstance(valor, (np.integer, np.floating)) and type(valor).__module__ == "numpy"


def _nombre_tipo(valor) -> str:
    if _es_tensor(valor):
        return f"un tensor de torch ({str(valor.dtype).removeprefix('torch.')}, forma {forma_de(valor)})"
    if _es_arreglo(valor):
        return f"un arreglo de NumPy ({valor.dtype}, forma {forma_de(valor)})"
    t = type(valor)
    nombres = {type(None): "None", bool: "un bool", int: "un int", float: "un float", str: "un texto",
               list: "una lista", tuple: "una tupla", dict: "un dict"}
    return nombres.get(t, f"un {t.__module__}.{t.__qualname__}" if t.__module__ != "builtins" else f"un {t.__name__}")


def forma_de(valor) -> tuple[int, ...] | None:
    """La forma de un tensor o arreglo como tupla de ``int`` (``None`` si ``valor`` no tiene forma)."""
    if _es_tensor(valor) or _es_arreglo(valor):
        return tuple(int(n) for n in valor.shape)
    return None


def _clase_dtype(valor) -> str:
    """«booleano», «entero», «de punto flotante» o «complejo»: lo que importa al comparar."""
    if _es_tensor(valor):
        torch = _torch()
        if valor.dtype == torch.bool:
            return "booleano"
        if valor.is_complex():
            return "complejo"
        return "de punto flotante" if valor.is_floating_point() else "entero"
    np = _numpy()
    if np.issubdtype(valor.dtype, np.bool_):
        return "booleano"
    if np.issubdtype(valor.dtype, np.complexfloating):
        return "complejo"
    if np.issubdtype(valor.dtype, np.floating):
        return "de punto flotante"
    if np.issubdtype(valor.dtype, np.integer):
        return "entero"
    return str(valor.dtype)


def _elementos(n: int) -> str:
    return "1 elemento" if n == 1 else f"{n} elementos"


def _texto_forma(forma: tuple) -> str:
    return "(" + ", ".join(str(n) for n in forma) + ("," if len(forma) == 1 else "") + ")"


class _Distintos(Exception):
    """Uso interno: la primera diferencia encontrada, con su mensaje en español."""


def revisar_forma(valor, forma, que: str = "Tu resultado") -> None:
    """``AssertionError`` en español si ``valor`` no es un tensor o arreglo de forma ``forma``.

    ``forma`` es una tupla de enteros; ``None`` en una posición acepta cualquier largo en ese eje.
    """
    recibida = forma_de(valor)
    if recibida is None:
        raise AssertionError(f"{que}: se esperaba un tensor; llegó {_nombre_tipo(valor)}.")
    esperada = tuple(forma)
    if len(recibida) != len(esperada) or any(e is not None and e != r for e, r in zip(esperada, recibida)):
        texto = _texto_forma(tuple("?" if e is None else e for e in esperada))
        raise AssertionError(
            f"{que}: se esperaba forma {texto}; llegó forma {_texto_forma(recibida)}.")


def _comparar(recibido, esperado, rtol, atol, exacto, nan_iguales, que) -> None:
    """Lanza :class:`_Distintos` con la primera diferencia (tipo, forma, dtype o valores)."""
    if _es_tensor(esperado) or _es_arreglo(esperado):
        de_torch = _es_tensor(esperado)
        if not (_es_tensor(recibido, exacto=True) if de_torch else _es_arreglo(recibido, exacto=True)):
            tipo = "un tensor de torch" if de_torch else "un arreglo de NumPy"
            raise _Distintos(f"{que}: se esperaba {tipo}; llegó {_nombre_tipo(recibido)}.", "tipo")
        if forma_de(recibido) != forma_de(esperado):
            raise _Distintos(f"{que}: se esperaba forma {_texto_forma(forma_de(esperado))}; llegó forma "
                             f"{_texto_forma(forma_de(recibido))}.", "forma")
        clase, clase_esperada = _clase_dtype(recibido), _clase_dtype(esperado)
        if clase != clase_esperada:
            raise _Distintos(f"{que}: se esperaba un dtype {clase_esperada}; llegó uno {clase} ({recibido.dtype}).",
                             "dtype")
        if _valores_iguales(recibido, esperado, rtol, atol, exacto, nan_iguales, de_torch):
            return
        raise _Distintos(f"{que}: los valores no son los esperados{_diferencia(recibido, esperado, de_torch)}.",
                         "valores")
    if _es_numero(esperado):
        if not _es_numero(recibido):
            raise _Distintos(f"{que}: se esperaba un número; llegó {_nombre_tipo(recibido)}.", "tipo")
        a, b = float(recibido), float(esperado)
        dos_nan = nan_iguales and math.isnan(a) and math.isnan(b)
        iguales = dos_nan or (recibido == esperado if exacto else math.isclose(a, b, rel_tol=rtol, abs_tol=atol))
        if not iguales:
            raise _Distintos(f"{que}: llegó {recibido!r} y se esperaba {esperado!r}.", "valores")
        return
    if type(esperado) in (list, tuple):
        if type(recibido) not in (list, tuple):
            raise _Distintos(f"{que}: se esperaba una lista o tupla; llegó {_nombre_tipo(recibido)}.", "tipo")
        if len(recibido) != len(esperado):
            raise _Distintos(f"{que}: se esperaba una lista de {_elementos(len(esperado))}; llegó una de "
                             f"{_elementos(len(recibido))}.", "forma")
        for i, (r, e) in enumerate(zip(recibido, esperado)):
            _comparar(r, e, rtol, atol, exacto, nan_iguales, f"{que}[{i}]")
        return
    if type(esperado) is dict:
        if type(recibido) is not dict:
            raise _Distintos(f"{que}: se esperaba un dict; llegó {_nombre_tipo(recibido)}.", "tipo")
        if set(recibido) != set(esperado):
            faltan = sorted(map(repr, set(esperado) - set(recibido)))
            sobran = sorted(map(repr, set(recibido) - set(esperado)))
            detalle = "; ".join(([f"faltan {', '.join(faltan)}"] if faltan else [])
                                + ([f"sobran {', '.join(sobran)}"] if sobran else []))
            raise _Distintos(f"{que}: las claves no son las esperadas ({detalle[:300]}).", "forma")
        for clave in esperado:
            _comparar(recibido[clave], esperado[clave], rtol, atol, exacto, nan_iguales, f"{que}[{clave!r}]")
        return
    if esperado is None or type(esperado) in (bool, str):
        if type(recibido) is not type(esperado) or recibido != esperado:
            raise _Distintos(f"{que}: llegó {recibido!r} y se esperaba {esperado!r}.", "valores")
        return
    raise TypeError(f"comparar_valores no sabe comparar {_nombre_tipo(esperado)} (el valor esperado de la prueba).")


def _valores_iguales(recibido, esperado, rtol, atol, exacto, nan_iguales, de_torch) -> bool:
    if de_torch:
        torch = _torch()
        if recibido.numel() == 0:
            return True
        if recibido.dtype == torch.bool or not (recibido.is_floating_point() or recibido.is_complex()):
            if recibido.dtype == torch.bool:
                return bool(torch.equal(recibido.cpu(), esperado.cpu().to(torch.bool)))
            return bool(torch.equal(recibido.cpu().to(torch.int64), esperado.cpu().to(torch.int64)))
        a = recibido.detach().cpu().to(torch.complex128 if recibido.is_complex() else torch.float64)
        b = esperado.detach().cpu().to(a.dtype)
        if exacto:
            iguales = (a == b) | (torch.isnan(a) & torch.isnan(b)) if nan_iguales else a == b
            return bool(iguales.all())
        return bool(torch.allclose(a, b, rtol=rtol, atol=atol, equal_nan=nan_iguales))
    np = _numpy()
    if recibido.size == 0:
        return True
    if exacto or not np.issubdtype(recibido.dtype, np.inexact):
        return bool(np.array_equal(recibido, esperado, equal_nan=nan_iguales and np.issubdtype(recibido.dtype, np.inexact)))
    return bool(np.allclose(recibido, esperado, rtol=rtol, atol=atol, equal_nan=nan_iguales))


def _diferencia(recibido, esperado, de_torch) -> str:
    try:
        if de_torch:
            torch = _torch()
            if not (recibido.is_floating_point() or recibido.is_complex()):
                return f" ({int((recibido.cpu().to(torch.int64) != esperado.cpu().to(torch.int64)).sum())} valores distintos)"
            d = (recibido.detach().cpu().double() - esperado.detach().cpu().double()).abs().max().item()
        else:
            np = _numpy()
            if not np.issubdtype(recibido.dtype, np.inexact):
                return f" ({int((recibido != esperado).sum())} valores distintos)"
            d = float(np.max(np.abs(recibido.astype(np.float64) - esperado.astype(np.float64))))
        return f" (diferencia máxima {d:.3g})"
    except Exception:  # noqa: BLE001 — el detalle es opcional: el mensaje principal ya dice qué pasa
        return ""


def comparar_valores(recibido, esperado, *, rtol: float = 1e-5, atol: float = 1e-8, exacto: bool = False,
                     nan_iguales: bool = False, que: str = "Tu resultado", mensaje: str | None = None) -> None:
    """Revisa que ``recibido`` sea como ``esperado``: tipo, forma, clase de dtype y valores.

    ``esperado`` es un tensor de torch, un arreglo de NumPy, un número, ``None``, un ``bool``, un texto, o
    listas, tuplas y dicts de esas cosas (se recorren elemento por elemento). Si algo no coincide, lanza
    ``AssertionError`` con un mensaje en español: el tipo, la forma (esperada y recibida) o el dtype que
    no corresponde; y si lo que difiere son los valores, ``mensaje`` (la pista de la prueba) o uno
    genérico con la diferencia máxima. ``que`` nombra el valor en esos mensajes («La salida de tu capa»).
    Los números se comparan con ``rtol`` y ``atol`` como ``math.isclose`` / ``torch.allclose``; con
    ``exacto=True``, exactamente. Se usa en las pruebas de ``solutions/*``.
    """
    try:
        _comparar(recibido, esperado, rtol, atol, exacto, nan_iguales, que)
    except _Distintos as error:
        texto, motivo = error.args
        if motivo == "valores" and mensaje:
            texto = mensaje
        raise AssertionError(texto) from None


def valores_coinciden(recibido, esperado, *, rtol: float = 1e-5, atol: float = 1e-8, exacto: bool = False,
                      nan_iguales: bool = False) -> bool:
    """``True`` si :func:`comparar_valores` no encontraría ninguna diferencia (tipo, forma, dtype, valores).

    Para condiciones compuestas y para comprobar que algo *cambió* (``not valores_coinciden(...)``).
    """
    try:
        _comparar(recibido, esperado, rtol, atol, exacto, nan_iguales, "el valor")
    except _Distintos:
        return False
    return True
