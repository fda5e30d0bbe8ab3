"""Cuentas de LoRA a mano: parámetros entrenables y sobrecosto de FLOPs.

LoRA congela la matriz ``W`` (``d_salida × d_entrada``) de cada capa elegida y
le suma ``B·A``, con ``A`` de ``r × d_entrada`` y ``B`` de ``d_salida × r``:
son ``r·(d_entrada + d_salida)`` parámetros entrenables por capa. Aquí se
cuentan leyendo las formas de las capas (sin crear el adaptador) y las pruebas
comparan el resultado con ``peft.get_peft_model`` (debe ser idéntico).

Se usa en lessons/10_lora.ipynb.
"""

from __future__ import annotations

import numbers
import sys
from dataclasses import dataclass, field
from typing import Any, Sequence

#: Valor de ``modulos`` que, como en peft, elige todas las capas lineales
#: (``nn.Linear`` y ``Conv1D`` de GPT-2) salvo la cabeza de salida.
TODAS_LINEALES = "all-linear"


@dataclass(frozen=True)
class ConteoLora:
    """Resultado de :func:`contar_parametros_lora`.

    ``parametros_entrenables``: parámetros de LoRA (los únicos que se entrenan);
    ``parametros_totales``: base + LoRA (lo que peft llama «all params»);
    ``porcentaje``: 100 × entrenables / totales; ``por_modulo``: entrenables por
    nombre de módulo (por ejemplo ``{"q_proj": ..., "v_proj": ...}``);
    ``capas``: cuántas capas recibieron un adaptador; ``tarea``: la cabeza del
    modelo base (``clasificacion``, ``causal``, ``mascara``, ``base`` o ``None``
    si es otra, ver :mod:`tutor_lib.vram.tareas`) y ``tarea_descripcion``, la
    misma dicha en una línea.
    """

    parametros_entrenables: int
    parametros_totales: int
    porcentaje: float
    por_modulo: dict[str, int] = field(default_factory=dict)
    capas: int = 0
    tarea: str | None = None
    tarea_descripcion: str = ""

    @property
    def parametros_base(self) -> int:
        """Parámetros del modelo original (congelados)."""
        return self.parametros_totales - self.parametros_entrenables


def _entero_positivo(nombre: str, valor: Any) -> int:
    if isinstance(valor, bool) or not isinstance(valor, numbers.Integral):
        raise TypeError(f"{nombre} debe ser un entero ≥ 1; recibí {valor!r} ({type(valor).__name__}).")
    if valor < 1:
        raise ValueError(f"{nombre} debe ser un entero ≥ 1; recibí {valor}.")
    return int(valor)


def sobrecosto_flops(d_entrada: int, d_salida: int, r: int) -> float:
    """Cociente entre los FLOPs del camino LoRA y los de la multiplicación congelada (adimensional).

    Por cada token, ``W·x`` cuesta ``d_entrada·d_salida`` multiplicaciones-sumas y
    ``B·(A·x)`` cuesta ``r·(d_entrada + d_salida)``; el cociente es
    ``r·(d_entrada + d_salida) / (d_entrada·d_salida)``. Para ``d = 4096`` y
    ``r = 16`` da 1/128 ≈ 0.78 %. Se usa en lessons/10_lora.
    """
    d_entrada = _entero_positivo("d_entrada", d_entrada)
    d_salida = _entero_positivo("d_salida", d_salida)
    r = _entero_positivo("r", r)
    return r * (d_entrada + d_salida) / (d_entrada * d_salida)


def _normalizar_modulos(modulos: Any) -> list[str] | str:
    if isinstance(modulos, str):
        texto = modulos.strip()
        if texto.lower() == TODAS_LINEALES:
            return TODAS_LINEALES
        nombres = [n.strip() for n in texto.split(",") if n.strip()]
    elif isinstance(modulos, (list, tuple, set, frozenset)):
        nombres = list(modulos)
        for nombre in nombres:
            if not isinstance(nombre, str):
                raise TypeError(f"Cada módulo debe ser un texto como 'q_proj'; recibí {nombre!r} ({type(nombre).__name__}).")
        nombres = [n.strip() for n in nombres]
    else:
        raise TypeError(
            f"modulos debe ser una lista de nombres (['q_proj', 'v_proj']) o '{TODAS_LINEALES}'; "
            f"recibí {modulos!r} ({type(modulos).__name__})."
        )
    if not nombres or any(not n for n in nombres):
        raise ValueError(f"modulos no puede estar vacío: da nombres como ['q_proj', 'v_proj'] o '{TODAS_LINEALES}'.")
    return list(dict.fromkeys(nombres))


def _obtener_modelo(modelo_o_config: Any, tarea: str | None = None):
    torch = sys.modules.get("torch")  # si te pasan un nn.Module, torch ya está importado
    if torch is not None and isinstance(modelo_o_config, torch.nn.Module):
        return modelo_o_config
    from tutor_lib.vram.tareas import construir_para_tarea

    return construir_para_tarea(modelo_o_config, tarea)


def _dimensiones(modulo) -> tuple[int, int] | None:
    """(d_entrada, d_salida) de una capa que LoRA sabe adaptar, o ``None``."""
    import torch

    try:
        from transformers.pytorch_utils import Conv1D
    except ImportError:  # pragma: no cover
        Conv1D = ()
    if isinstance(modulo, torch.nn.Linear):
        return modulo.in_features, modulo.out_features
    if Conv1D and isinstance(modulo, Conv1D):
        entrada, salida = modulo.weight.shape  # Conv1D de GPT-2 guarda el peso como (entrada, salida)
        return int(entrada), int(salida)
    if isinstance(modulo, torch.nn.Embedding):
        return modulo.num_embeddings, modulo.embedding_dim
    return None


def _es_lineal(modulo) -> bool:
    import torch

    return _dimensiones(modulo) is not None and not isinstance(modulo, torch.nn.Embedding)


def capas_lineales(modelo_o_config: Any) -> list[str]:
    """Nombres cortos (último componente) de las capas lineales del modelo, sin repetir.

    Son los nombres que puedes pasar en ``modulos`` (por ejemplo ``q_proj``).
    Se usa en lessons/10_lora.
    """
    modelo = _obtener_modelo(modelo_o_config)
    return sorted({n.rsplit(".", 1)[-1] for n, m in modelo.named_modules() if n and _es_lineal(m)})


def _excluidas_de_todas_lineales(modelo) -> set[str]:
    """Como peft: en un ``PreTrainedModel`` se excluye la cabeza de salida (``lm_head``)."""
    try:
        from transformers import PreTrainedModel
    except ImportError:  # pragma: no cover
        return set()
    if not isinstance(modelo, PreTrainedModel):
        return set()
    salida = modelo.get_output_embeddings()
    if salida is None:
        return set()
    return {n for n, m in modelo.named_modules() if m is salida}


def contar_parametros_lora(
    modelo_o_config: Any, r: int, modulos: Sequence[str] | str, tarea: str | None = None
) -> ConteoLora:
    """Cuenta los parámetros de LoRA de rango ``r`` sobre ``modulos``, sin crear el adaptador.

    ``modelo_o_config``: un ``nn.Module`` o lo que acepta ``recursos.cargar_config``
    (``PretrainedConfig``, dict, ruta a ``config.json``, nombre del Hub); en ese caso
    se construye en el dispositivo «meta», sin pesos, con la cabeza de ``tarea``
    (``clasificacion``, ``causal``, ``mascara`` o ``base``; ``None``: la clase de
    ``config.architectures``, como ``recursos.construir_en_meta``). ``modulos``: nombres de capa
    como en ``LoraConfig(target_modules=...)`` (una capa se elige si su nombre
    completo es ese o termina en ``.nombre``), una cadena separada por comas o
    ``"all-linear"`` (todas las ``nn.Linear``/``Conv1D`` salvo la cabeza de salida).
    Cada capa elegida suma ``r·(d_entrada + d_salida)`` parámetros. Coincide con
    ``peft.get_peft_model(modelo, LoraConfig(r=r, target_modules=modulos))``
    (sin ``task_type``). Se usa en lessons/10_lora.
    """
    r = _entero_positivo("r", r)
    pedidos = _normalizar_modulos(modulos)
    modelo = _obtener_modelo(modelo_o_config, tarea)

    todas = [(n, m) for n, m in modelo.named_modules() if n]
    elegidas: list[tuple[str, str, Any]] = []  # (nombre completo, clave para por_modulo, módulo)
    if pedidos == TODAS_LINEALES:
        excluidas = _excluidas_de_todas_lineales(modelo)
        for nombre, modulo in todas:
            if _es_lineal(modulo) and nombre not in excluidas:
                elegidas.append((nombre, nombre.rsplit(".", 1)[-1], modulo))
    else:
        encontrados = {p: 0 for p in pedidos}
        for nombre, modulo in todas:
            coinciden = [p for p in pedidos if nombre == p or nombre.endswith("." + p)]
            if not coinciden:
                continue
            for p in coinciden:
                encontrados[p] += 1
            clave = coinciden[0]  # cada capa se cuenta una sola vez, como en peft
            if _dimensiones(modulo) is None:
                raise ValueError(
                    f"La capa {nombre!r} ({type(modulo).__name__}) coincide con {clave!r}, pero LoRA aquí solo adapta "
                    "capas lineales (nn.Linear, Conv1D) y embeddings. Elige capas hoja como: "
                    + ", ".join(_nombres_disponibles(todas))
                    + "."
                )
            elegidas.append((nombre, clave, modulo))
        faltan = [p for p, n in encontrados.items() if n == 0]
        if faltan:
            raise ValueError(
                f"Ninguna capa del modelo se llama {faltan[0]!r}. Capas lineales disponibles: "
                + ", ".join(_nombres_disponibles(todas))
                + f" (o '{TODAS_LINEALES}')."
            )

    por_modulo: dict[str, int] = {}
    for _nombre, clave, modulo in elegidas:
        d_entrada, d_salida = _dimensiones(modulo)
        por_modulo[clave] = por_modulo.get(clave, 0) + r * (d_entrada + d_salida)
    entrenables = sum(por_modulo.values())
    base = sum(p.numel() for p in modelo.parameters())
    totales = base + entrenables
    porcentaje = 100.0 * entrenables / totales if totales else 0.0
    tarea_modelo, descripcion = _tarea_del_modelo(modelo)
    return ConteoLora(entrenables, totales, porcentaje, por_modulo, len(elegidas), tarea_modelo, descripcion)


def _tarea_del_modelo(modelo) -> tuple[str | None, str]:
    """(tarea, descripción) del modelo por su clase (ver :mod:`tutor_lib.vram.tareas`)."""
    from tutor_lib.vram.tareas import describir_tarea, tarea_de_clase

    clase = type(modelo).__name__
    tarea = tarea_de_clase(clase)
    if tarea is None:
        return None, f"la de la clase {clase}"
    etiquetas = getattr(getattr(modelo, "config", None), "num_labels", None)
    return tarea, describir_tarea(tarea, etiquetas)


def _nombres_disponibles(todas) -> list[str]:
    return sorted({n.rsplit(".", 1)[-1] for n, m in todas if _es_lineal(m)})
