"""Medición exacta: bytes reales de parámetros, gradientes y estado del optimizador de un modelo de verdad,
y de lo que autograd guarda en un forward.

Se usa en lessons/07_memoria_y_fine_tuning_completo y lessons/13_mas_alla_de_una_gpu.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from tutor_lib.vram.base import _booleano

# --------------------------------------------------------------------------
# Medición exacta
# --------------------------------------------------------------------------


def _almacen(t) -> tuple[Any, int, int] | None:
    """(clave única del almacenamiento, bytes) de un tensor; ``None`` si no ocupa memoria real.

    Un ``DTensor`` (un parámetro de FSDP2 o de ``torch.distributed.tensor``) cuenta solo su parte local:
    lo que este proceso guarda de verdad (lessons/13_mas_alla_de_una_gpu).
    """
    if hasattr(t, "to_local") and hasattr(t, "device_mesh"):
        t = t.to_local()
    try:
        s = t.untyped_storage()
        if t.device.type == "meta":
            return None
        ptr = s.data_ptr()
    except (RuntimeError, AttributeError, NotImplementedError):
        return None
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
    ``optimizador.step()``: antes los estados aún no existen. Con FSDP (parámetros
    ``DTensor``) cuenta lo que guarda **este** proceso: su partición.
    Se usa en lessons/07_memoria_y_fine_tuning_completo y lessons/13_mas_alla_de_una_gpu.
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


