"""Schedules de tasa de aprendizaje con el código del propio transformers.

Aquí no hay fórmulas escritas a mano: cada valor sale de un optimizador real de
torch y del scheduler que crea ``transformers.get_scheduler``, el mismo que usa
el ``Trainer``. Así, lo que ves en la tabla o en la gráfica es exactamente lo
que el ``Trainer`` usaría con esos ``TrainingArguments``.

* :func:`pasos_por_epoca`, :func:`pasos_totales`: cuántos pasos de optimización
  hace el ``Trainer`` (con techos, acumulación de gradientes y ``max_steps``).
* :func:`pasos_de_warmup`: qué significa ``warmup_steps`` en transformers 5
  (un float en [0, 1) es una fracción de los pasos totales).
* :func:`tasas_de_aprendizaje`, :func:`tabla_warmup`, :func:`graficar_schedules`,
  :func:`widget_warmup`: valores, tabla, gráfica y widget.
* :func:`tasas_usadas_por_trainer`: entrena un modelo diminuto con un
  ``Trainer`` real y anota la tasa que usó en cada paso (para comprobarlo).

Se usa en lessons/04_warmup_y_regularizacion.ipynb.

torch y transformers se importan dentro de las funciones: importar este módulo
es instantáneo (lo carga el comando ``tutor`` aunque no lo uses).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from tutor_lib.formato import cientifico

#: Schedules que se pueden calcular de antemano (todos los ``SchedulerType`` de
#: transformers 5.24 salvo los que dependen de una métrica). Una prueba comprueba
#: que esta lista coincide con la de la versión instalada.
TIPOS: tuple[str, ...] = (
    "linear",
    "cosine",
    "cosine_with_restarts",
    "polynomial",
    "constant",
    "constant_with_warmup",
    "inverse_sqrt",
    "cosine_with_min_lr",
    "cosine_warmup_with_min_lr",
    "warmup_stable_decay",
)

#: Schedules que cambian la tasa según una métrica (la pérdida de evaluación):
#: su curva no se conoce antes de entrenar, así que no se pueden tabular.
TIPOS_SEGUN_METRICA: tuple[str, ...] = ("reduce_lr_on_plateau", "greedy")

#: Valores que ponemos cuando un schedule exige un argumento extra y no lo das.
#: ``warmup_stable_decay`` usa además ``FRACCION_DECAIMIENTO_WSD`` para
#: ``num_decay_steps``.
OPCIONES_POR_DEFECTO: dict[str, dict[str, Any]] = {
    "cosine_with_min_lr": {"min_lr_rate": 0.1},
    "cosine_warmup_with_min_lr": {"min_lr_rate": 0.1},
}

#: Fracción de los pasos totales que dura el decaimiento de ``warmup_stable_decay``
#: si no das ``num_decay_steps`` ni ``num_stable_steps``.
FRACCION_DECAIMIENTO_WSD = 0.1

#: Límite de pasos para calcular una curva completa (evita congelar el notebook).
MAX_PASOS = 1_000_000

#: Paleta de Okabe e Ito, segura para daltonismo.
PALETA_OKABE_ITO = (
    "#0072B2",  # azul
    "#D55E00",  # bermellón
    "#009E73",  # verde azulado
    "#CC79A7",  # púrpura rojizo
    "#E69F00",  # naranja
    "#56B4E9",  # celeste
    "#F0E442",  # amarillo
    "#000000",  # negro
)
_ESTILOS_LINEA = ("-", "--", "-.", ":")

_ARGUMENTOS_FIJOS = {"optimizer", "num_warmup_steps", "num_training_steps", "last_epoch"}


# --------------------------------------------------------------------------
# Validación (mensajes en español)
# --------------------------------------------------------------------------


def _entero(nombre: str, valor: Any, minimo: int | None = None, maximo: int | None = None) -> int:
    if isinstance(valor, bool) or not isinstance(valor, numbers.Integral):
        raise TypeError(f"{nombre} debe ser un número entero; recibí {valor!r} ({type(valor).__name__}).")
    valor = int(valor)
    if (minimo is not None and valor < minimo) or (maximo is not None and valor > maximo):
        rango = _describir_rango(minimo, maximo)
        raise ValueError(f"{nombre} debe ser un entero {rango}; recibí {valor}.")
    return valor


def _describir_rango(minimo, maximo) -> str:
    if minimo is not None and maximo is not None:
        return f"entre {minimo} y {maximo}"
    if minimo is not None:
        return f"≥ {minimo}"
    return f"≤ {maximo}"


def _real(
    nombre: str,
    valor: Any,
    minimo: float | None = None,
    maximo: float | None = None,
    *,
    minimo_incluido: bool = True,
    maximo_incluido: bool = True,
) -> float:
    if isinstance(valor, bool) or not isinstance(valor, numbers.Real):
        raise TypeError(f"{nombre} debe ser un número; recibí {valor!r} ({type(valor).__name__}).")
    valor = float(valor)
    if not math.isfinite(valor):
        raise ValueError(f"{nombre} debe ser un número finito; recibí {valor}.")
    fuera = False
    if minimo is not None:
        fuera |= valor < minimo if minimo_incluido else valor <= minimo
    if maximo is not None:
        fuera |= valor > maximo if maximo_incluido else valor >= maximo
    if fuera:
        izq = "[" if minimo_incluido else "("
        der = "]" if maximo_incluido else ")"
        a = "-∞" if minimo is None else f"{minimo:g}"
        b = "∞" if maximo is None else f"{maximo:g}"
        if maximo is None:
            der = ")"
        raise ValueError(f"{nombre} debe estar en {izq}{a}, {b}{der}; recibí {valor:g}.")
    return valor


def _validar_tipo(tipo: Any) -> str:
    valor = getattr(tipo, "value", tipo)  # acepta también transformers.SchedulerType
    if not isinstance(valor, str):
        raise TypeError(f"tipo debe ser un texto como 'linear'; recibí {tipo!r} ({type(tipo).__name__}).")
    if valor in TIPOS_SEGUN_METRICA:
        raise ValueError(
            f"El schedule {valor!r} cambia la tasa según una métrica de evaluación (la pérdida), así que su curva "
            "no se puede calcular antes de entrenar. Elige uno de: " + ", ".join(TIPOS) + "."
        )
    if valor not in TIPOS:
        raise ValueError(f"Tipo de schedule desconocido: {valor!r}. Elige uno de: " + ", ".join(TIPOS) + ".")
    return valor


def _validar_lr(lr: Any) -> float:
    return _real("lr (tasa de aprendizaje)", lr, 0.0, None, minimo_incluido=False)


# --------------------------------------------------------------------------
# Cuántos pasos hace el Trainer
# --------------------------------------------------------------------------


def pasos_por_epoca(
    ejemplos: int,
    lote: int,
    acumulacion: int = 1,
    dispositivos: int = 1,
    *,
    descartar_ultimo: bool = False,
) -> int:
    """Pasos de optimización por época, contados como el ``Trainer`` de transformers 5.

    ``ejemplos``: tamaño del conjunto de entrenamiento; ``lote``:
    ``per_device_train_batch_size``; ``acumulacion``: ``gradient_accumulation_steps``;
    ``dispositivos``: procesos de datos en paralelo (GPUs). Cada dispositivo ve
    ``ceil(ceil(ejemplos / lote) / dispositivos)`` lotes (el último puede quedar
    incompleto) y se da un paso cada ``acumulacion`` lotes, redondeando hacia
    arriba. ``descartar_ultimo`` equivale a ``dataloader_drop_last=True``.
    Se usa en lessons/04_warmup_y_regularizacion.
    """
    ejemplos = _entero("ejemplos", ejemplos, 1)
    lote = _entero("lote", lote, 1)
    acumulacion = _entero("acumulacion", acumulacion, 1)
    dispositivos = _entero("dispositivos", dispositivos, 1)
    if not isinstance(descartar_ultimo, bool):
        raise TypeError(f"descartar_ultimo debe ser True o False; recibí {descartar_ultimo!r}.")
    if descartar_ultimo:
        lotes = (ejemplos // lote) // dispositivos
        if lotes == 0:
            raise ValueError(
                f"Con descartar_ultimo=True, {ejemplos} ejemplos no llenan ni un lote de {lote} por dispositivo "
                f"en {dispositivos} dispositivo(s): el Trainer no tendría datos. Usa al menos {lote * dispositivos} ejemplos."
            )
    else:
        lotes = math.ceil(math.ceil(ejemplos / lote) / dispositivos)
    return max(math.ceil(lotes / acumulacion), 1)


def pasos_totales(
    ejemplos: int,
    lote: int,
    epocas: float,
    acumulacion: int = 1,
    dispositivos: int = 1,
    max_pasos: int = -1,
    *,
    descartar_ultimo: bool = False,
) -> int:
    """Pasos de optimización de todo el entrenamiento (``trainer.state.max_steps``).

    Igual que el ``Trainer``: ``ceil(epocas × pasos_por_epoca)``; ``epocas`` puede
    ser fraccionario (``num_train_epochs=2.5``). Si ``max_pasos`` > 0 manda sobre
    las épocas (como ``max_steps``). Ejemplo: 1000 ejemplos, lote 16, 3 épocas:
    ``ceil(1000/16) = 63`` pasos por época, 189 en total.
    Se usa en lessons/04_warmup_y_regularizacion.
    """
    max_pasos = _entero("max_pasos", max_pasos)
    if max_pasos == 0:
        raise ValueError("max_pasos debe ser -1 (usar las épocas) o un entero ≥ 1; recibí 0.")
    por_epoca = pasos_por_epoca(ejemplos, lote, acumulacion, dispositivos, descartar_ultimo=descartar_ultimo)
    if max_pasos > 0:
        return max_pasos
    epocas = _real("epocas", epocas, 0.0, None, minimo_incluido=False)
    return math.ceil(epocas * por_epoca)


def pasos_de_warmup(warmup: float, pasos_totales: int) -> int:
    """Pasos de warmup que resultan de ``TrainingArguments(warmup_steps=warmup)``.

    En transformers 5 ``warmup_ratio`` ya no existe: un float en [0, 1) es una
    fracción de los pasos totales, redondeada hacia arriba (``ceil``); un valor
    ≥ 1 es un número de pasos (si es float se trunca: ``1.0`` es 1 paso, no el
    100 %). Devuelve un entero de pasos. Se usa en lessons/04_warmup_y_regularizacion.
    """
    total = _entero("pasos_totales", pasos_totales, 1)
    if isinstance(warmup, bool) or not isinstance(warmup, numbers.Real):
        raise TypeError(
            f"warmup debe ser un entero de pasos o una fracción en [0, 1); recibí {warmup!r} ({type(warmup).__name__})."
        )
    if isinstance(warmup, numbers.Integral):
        return _entero("warmup", warmup, 0)
    valor = _real("warmup", warmup, 0.0, None)
    if valor >= 1:
        return int(valor)
    return math.ceil(total * valor)


# --------------------------------------------------------------------------
# Valores del schedule
# --------------------------------------------------------------------------


def _funcion_del_schedule(tipo: str):
    from transformers.optimization import TYPE_TO_SCHEDULER_FUNCTION
    from transformers.trainer_utils import SchedulerType

    return TYPE_TO_SCHEDULER_FUNCTION[SchedulerType(tipo)]


def opciones_validas(tipo: str) -> tuple[str, ...]:
    """Nombres de las opciones extra que acepta el schedule ``tipo`` (``lr_scheduler_kwargs``).

    Se usa en lessons/04_warmup_y_regularizacion.
    """
    import inspect

    tipo = _validar_tipo(tipo)
    if tipo in ("constant", "constant_with_warmup"):
        return ()  # get_scheduler no les pasa opciones extra
    firma = inspect.signature(_funcion_del_schedule(tipo))
    return tuple(n for n in firma.parameters if n not in _ARGUMENTOS_FIJOS)


def _opciones_efectivas(
    tipo: str, lr: float, total: int, warmup: int, opciones: dict, validas: tuple[str, ...] | None = None
) -> dict:
    # ``validas`` permite a tutor_lib.warmup_puro validar sin importar transformers
    validas = opciones_validas(tipo) if validas is None else validas
    desconocidas = sorted(set(opciones) - set(validas))
    if desconocidas:
        lista = ", ".join(validas) if validas else "ninguna"
        raise TypeError(
            f"El schedule {tipo!r} no acepta la opción {desconocidas[0]!r}. Opciones válidas: {lista}."
        )
    efectivas = dict(OPCIONES_POR_DEFECTO.get(tipo, {}))
    if "min_lr" in opciones:
        efectivas.pop("min_lr_rate", None)
    efectivas.update(opciones)
    for clave, valor in efectivas.items():
        if valor is None:
            continue
        if clave in ("min_lr_rate", "min_lr_ratio", "warmup_lr_rate"):
            _real(clave, valor, 0.0, 1.0)
        elif clave == "min_lr":
            _real(clave, valor, 0.0, lr)
        elif clave == "lr_end":
            _real("lr_end", valor, 0.0, lr, maximo_incluido=False)
        elif clave in ("power", "num_cycles"):
            _real(clave, valor, 0.0, None, minimo_incluido=False)
        elif clave == "timescale":
            _entero(clave, valor, 1)
        elif clave in ("num_decay_steps", "num_stable_steps"):
            _entero(clave, valor, 0)
        elif clave in ("warmup_type", "decay_type"):
            if valor not in ("linear", "cosine", "1-sqrt"):
                raise ValueError(f"{clave} debe ser 'linear', 'cosine' o '1-sqrt'; recibí {valor!r}.")
    if tipo == "polynomial" and "lr_end" not in efectivas and lr <= 1e-7:
        raise ValueError(
            f"El schedule 'polynomial' baja hasta lr_end=1e-07 por defecto, así que lr debe ser mayor; recibí {lr:g}. "
            "Pasa un lr_end menor que lr."
        )
    if tipo == "cosine_with_min_lr" or tipo == "cosine_warmup_with_min_lr":
        if efectivas.get("min_lr") is not None and efectivas.get("min_lr_rate") is not None:
            raise ValueError(
                f"Da min_lr o min_lr_rate, no ambos; recibí min_lr={efectivas['min_lr']!r} "
                f"y min_lr_rate={efectivas['min_lr_rate']!r}."
            )
    if tipo == "warmup_stable_decay":
        if efectivas.get("num_decay_steps") is None:
            estable = efectivas.get("num_stable_steps")
            if estable is None:
                decaimiento = min(math.ceil(FRACCION_DECAIMIENTO_WSD * total), max(total - warmup, 0))
            else:
                decaimiento = max(total - warmup - estable, 0)
            efectivas["num_decay_steps"] = decaimiento
    return efectivas


def tasas_de_aprendizaje(
    lr: float,
    pasos_totales: int,
    pasos_warmup: int | float = 0,
    tipo: str = "linear",
    **opciones: Any,
) -> list[float]:
    """Tasa de aprendizaje (misma unidad que ``lr``) en cada paso de optimización 0, 1, …, pasos_totales−1.

    Construye un optimizador de torch sobre un parámetro de mentira y el
    scheduler de ``transformers.get_scheduler(tipo, ..., scheduler_specific_kwargs=opciones)``,
    y lee la tasa antes de cada ``scheduler.step()``: el elemento ``i`` es la
    tasa con la que se da el paso ``i`` (el primero, con warmup, usa 0).
    ``pasos_warmup`` acepta pasos o una fracción en [0, 1) como ``warmup_steps``.
    ``opciones`` son las de ``lr_scheduler_kwargs`` (ver :func:`opciones_validas`);
    si faltan las obligatorias se usan ``OPCIONES_POR_DEFECTO``. Ojo: ``constant``
    ignora el warmup, igual que en el ``Trainer``.
    Se usa en lessons/04_warmup_y_regularizacion.
    """
    lr = _validar_lr(lr)
    total = _entero("pasos_totales", pasos_totales, 1, MAX_PASOS)
    tipo = _validar_tipo(tipo)
    warmup = pasos_de_warmup(pasos_warmup, total)
    efectivas = _opciones_efectivas(tipo, lr, total, warmup, opciones)

    import warnings

    import torch
    from transformers import get_scheduler

    parametro = torch.nn.Parameter(torch.zeros(1))
    optimizador = torch.optim.SGD([parametro], lr=lr)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            scheduler = get_scheduler(
                tipo,
                optimizer=optimizador,
                num_warmup_steps=warmup,
                num_training_steps=total,
                scheduler_specific_kwargs=efectivas,
            )
        except (ValueError, TypeError, ZeroDivisionError) as exc:
            raise ValueError(f"transformers rechazó el schedule {tipo!r} con las opciones {efectivas}: {exc}") from exc
        grupo = optimizador.param_groups[0]
        tasas = [float(grupo["lr"])]
        optimizador.step()  # sin gradiente no cambia nada; evita el aviso de orden de torch
        for _ in range(total - 1):
            scheduler.step()
            tasas.append(float(grupo["lr"]))
    return tasas


@dataclass(frozen=True)
class FilaWarmup:
    """Una fila de la tabla: el paso de optimización y su tasa de aprendizaje."""

    paso: int
    lr: float

    def __iter__(self):  # permite ``for paso, lr in filas``
        return iter((self.paso, self.lr))


def _pasos_por_defecto(total: int, warmup: int) -> list[int]:
    candidatos = {0, warmup // 5, warmup // 2, warmup, (warmup + total) // 2, total - 1}
    return sorted(p for p in candidatos if 0 <= p < total)


def tabla_warmup(
    lr: float,
    pasos_totales: int,
    pasos_warmup: int | float,
    pasos: Iterable[int] | None = None,
    tipo: str = "linear",
    **opciones: Any,
) -> list[FilaWarmup]:
    """Filas ``(paso, lr)`` para imprimir: la tasa con la que se da cada paso pedido.

    Con ``lr=2e-5`` y 100 pasos de warmup lineal: el paso 0 usa 0, el 20 usa
    4e-6 y el 50 usa 1e-5. Si ``pasos`` es ``None`` se eligen el inicio, un
    quinto y la mitad del warmup, su final, el medio de lo que sigue y el último
    paso. Cada paso debe estar en [0, pasos_totales−1].
    Se usa en lessons/04_warmup_y_regularizacion.
    """
    tasas = tasas_de_aprendizaje(lr, pasos_totales, pasos_warmup, tipo, **opciones)
    total = len(tasas)
    if pasos is None:
        pasos = _pasos_por_defecto(total, pasos_de_warmup(pasos_warmup, total))
    if isinstance(pasos, (str, bytes)) or not isinstance(pasos, Iterable):
        raise TypeError(f"pasos debe ser una lista de enteros; recibí {pasos!r}.")
    filas = []
    for paso in pasos:
        paso = _entero("paso", paso, 0, total - 1)
        filas.append(FilaWarmup(paso, tasas[paso]))
    return filas


def tabla_como_texto(filas: Sequence[FilaWarmup | tuple[int, float]]) -> str:
    """Texto de una tabla de dos columnas (paso, tasa) con notación científica.

    Se usa en lessons/04_warmup_y_regularizacion y en ``tutor warmup``.
    """
    lineas = [f"{'Paso':>8}  {'Tasa de aprendizaje':>20}", f"{'-' * 8}  {'-' * 20}"]
    for paso, lr in filas:
        lineas.append(f"{paso:>8d}  {cientifico(lr, 3):>20}")
    return "\n".join(lineas)


# --------------------------------------------------------------------------
# Gráfica y widget
# --------------------------------------------------------------------------


def graficar_schedules(
    lr: float,
    pasos_totales: int,
    pasos_warmup: int | float = 0,
    tipos: Sequence[str] = ("linear", "cosine", "constant_with_warmup"),
    opciones: dict[str, dict[str, Any]] | None = None,
    *,
    titulo: str | None = None,
    ax=None,
):
    """Figura de matplotlib con varios schedules superpuestos y el warmup sombreado.

    Eje x: paso de optimización; eje y: tasa de aprendizaje. ``opciones`` asigna
    a cada tipo sus ``lr_scheduler_kwargs``. Colores de Okabe-Ito y estilos de
    línea distintos, para leerse también en blanco y negro. Devuelve la ``Figure``.
    Se usa en lessons/04_warmup_y_regularizacion.
    """
    import matplotlib.pyplot as plt
    from matplotlib.ticker import ScalarFormatter

    if isinstance(tipos, str):
        tipos = (tipos,)
    tipos = list(tipos)
    if not tipos:
        raise ValueError("tipos debe tener al menos un schedule, por ejemplo ('linear', 'cosine').")
    opciones = opciones or {}
    if not isinstance(opciones, dict):
        raise TypeError(f"opciones debe ser un dict {{tipo: {{opción: valor}}}}; recibí {opciones!r}.")
    curvas = {t: tasas_de_aprendizaje(lr, pasos_totales, pasos_warmup, t, **opciones.get(t, {})) for t in tipos}
    total = len(next(iter(curvas.values())))
    warmup = pasos_de_warmup(pasos_warmup, total)

    if ax is None:
        figura, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    else:
        figura = ax.figure
    if warmup > 0:
        ax.axvspan(0, min(warmup, total - 1), color="0.88", zorder=0, label=f"Warmup ({warmup} pasos)")
    for i, (tipo, tasas) in enumerate(curvas.items()):
        ax.plot(
            range(total),
            tasas,
            color=PALETA_OKABE_ITO[i % len(PALETA_OKABE_ITO)],
            linestyle=_ESTILOS_LINEA[i % len(_ESTILOS_LINEA)],
            linewidth=2.2,
            label=tipo,
        )
    ax.set_xlabel("Paso de optimización", fontsize=12)
    ax.set_ylabel("Tasa de aprendizaje", fontsize=12)
    ax.set_title(titulo or f"Schedules de la tasa de aprendizaje (lr máxima = {lr:g})", fontsize=13)
    ax.set_xlim(0, max(total - 1, 1))
    ax.set_ylim(bottom=0)
    formato = ScalarFormatter(useMathText=True)
    formato.set_powerlimits((-3, 3))
    ax.yaxis.set_major_formatter(formato)
    ax.tick_params(labelsize=11)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=11, frameon=False)
    figura.tight_layout()
    return figura


def resumen_warmup(lr: float, pasos_totales: int, warmup: int | float, tipo: str, paso: int, **opciones) -> str:
    """Texto corto: pasos de warmup y tasa en el paso ``paso`` (lo que muestra el widget).

    Se usa en lessons/04_warmup_y_regularizacion.
    """
    total = _entero("pasos_totales", pasos_totales, 1, MAX_PASOS)
    w = pasos_de_warmup(warmup, total)
    paso = _entero("paso", paso, 0, total - 1)
    tasas = tasas_de_aprendizaje(lr, total, w, tipo, **opciones)
    return (
        f"Pasos totales: {total} · pasos de warmup: {w} · "
        f"tasa en el paso {paso}: {cientifico(tasas[paso], 3)} (máxima {cientifico(lr, 1)})"
    )


#: Tasas de aprendizaje que ofrecen los widgets, como valores exactos. Un deslizador logarítmico
#: (``FloatLogSlider``) redondea el exponente a su paso: 2e-5 se volvía 10**-4.7 = 1.995e-5 en el
#: navegador sin que la lectura lo mostrara. Con una lista, lo que ves es lo que se calcula.
OPCIONES_LR = (1e-6, 2e-6, 5e-6, 1e-5, 2e-5, 3e-5, 5e-5, 1e-4, 2e-4, 3e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2)


def opciones_lr(lr: float) -> list[tuple[str, float]]:
    """Opciones ``(etiqueta, valor)`` para un ``SelectionSlider`` de tasa de aprendizaje, incluido ``lr``.

    Se usa en los widgets de lessons/04_warmup_y_regularizacion.
    """
    valores = sorted(set(OPCIONES_LR) | {_validar_lr(lr)})
    return [(cientifico(v, 1), v) for v in valores]


def widget_warmup(
    lr: float = 2e-5,
    ejemplos: int = 1000,
    lote: int = 16,
    epocas: float = 3.0,
    acumulacion: int = 1,
    warmup: float = 0.1,
    tipo: str = "linear",
):
    """Widget interactivo: eliges lr, datos, lote, épocas, warmup y schedule y se redibuja la curva.

    Es una capa fina sobre :func:`pasos_totales`, :func:`pasos_de_warmup`,
    :func:`resumen_warmup` y :func:`graficar_schedules`. El objeto devuelto
    expone ``.controles`` (dict de widgets), ``.salida_texto`` (HTML con el
    resumen), ``.salida_grafica`` (imagen PNG) y ``.actualizar()``.
    Se usa en lessons/04_warmup_y_regularizacion.
    """
    import io
    import threading

    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    estilo = {"description_width": "150px"}
    ancho = widgets.Layout(width="480px")
    controles = {
        "lr": widgets.SelectionSlider(
            options=opciones_lr(lr), value=_validar_lr(lr), description="Tasa de aprendizaje",
            style=estilo, layout=ancho,
        ),
        "ejemplos": widgets.BoundedIntText(
            value=_entero("ejemplos", ejemplos, 1, 1_000_000), min=1, max=1_000_000, description="Ejemplos",
            style=estilo, layout=ancho,
        ),
        "lote": widgets.IntSlider(
            value=_entero("lote", lote, 1, 256), min=1, max=256, description="Tamaño de lote", style=estilo, layout=ancho
        ),
        "epocas": widgets.FloatSlider(
            value=_real("epocas", epocas, 0.1, 20), min=0.1, max=20, step=0.1, description="Épocas",
            style=estilo, layout=ancho,
        ),
        "acumulacion": widgets.IntSlider(
            value=_entero("acumulacion", acumulacion, 1, 64), min=1, max=64, description="Acumulación",
            style=estilo, layout=ancho,
        ),
        "warmup": widgets.FloatSlider(
            value=_real("warmup", warmup, 0.0, 0.5), min=0.0, max=0.5, step=0.01, description="Warmup (fracción)",
            style=estilo, layout=ancho,
        ),
        "tipo": widgets.Dropdown(options=list(TIPOS), value=_validar_tipo(tipo), description="Schedule", style=estilo, layout=ancho),
        "paso": widgets.IntSlider(value=0, min=0, max=1, description="Paso a consultar", style=estilo, layout=ancho),
    }
    salida_texto = widgets.HTML()
    salida_grafica = widgets.Image(format="png")

    class PanelWarmup(widgets.VBox):
        """Panel del widget de warmup (ver :func:`widget_warmup`)."""

    panel = PanelWarmup([*controles.values(), salida_texto, salida_grafica])
    panel.controles = controles
    panel.salida_texto = salida_texto
    panel.salida_grafica = salida_grafica

    bloqueo = threading.RLock()

    def actualizar(_cambio=None) -> None:
        # ipykernel puede atender mensajes de widgets en varios hilos; matplotlib (mathtext) no es
        # seguro entre hilos: dos redibujos a la vez fallaban con un ParseException. Uno por vez.
        with bloqueo:
            _actualizar()

    def _actualizar() -> None:
        c = {k: w.value for k, w in controles.items()}
        try:
            total = pasos_totales(c["ejemplos"], c["lote"], c["epocas"], c["acumulacion"])
            total = min(total, MAX_PASOS)
            if controles["paso"].max != total - 1:
                controles["paso"].max = max(total - 1, 0)
            paso = min(c["paso"], total - 1)
            salida_texto.value = resumen_warmup(c["lr"], total, c["warmup"], c["tipo"], paso)
            figura = graficar_schedules(c["lr"], total, c["warmup"], (c["tipo"],))
            ax = figura.axes[0]
            ax.axvline(paso, color="0.3", linewidth=1, linestyle=":")
            buffer = io.BytesIO()
            figura.savefig(buffer, format="png")
            plt.close(figura)
            salida_grafica.value = buffer.getvalue()
        except (ValueError, TypeError) as exc:
            salida_texto.value = f"<b>Revisa los valores:</b> {exc}"

    panel.actualizar = actualizar
    for control in controles.values():
        control.observe(actualizar, names="value")
    actualizar()
    return panel


# --------------------------------------------------------------------------
# Comprobación con un Trainer real
# --------------------------------------------------------------------------


@dataclass
class RegistroTrainer:
    """Lo que anotó un ``Trainer`` real: tasa en cada paso y pasos contados.

    ``tasas``: la tasa del optimizador justo antes de cada ``optimizer.step()``
    (evento ``on_pre_optimizer_step``); ``tasas_inicio_paso``: la misma tasa leída
    en ``on_step_begin``; ``tasas_registro``: la columna ``learning_rate`` que el
    propio ``Trainer`` escribe en ``log_history`` (``logging_steps=1``); ``pasos_totales``: ``trainer.state.max_steps``;
    ``pasos_warmup``: ``args.get_warmup_steps(max_steps)``.
    """

    tasas: list[float] = field(default_factory=list)
    tasas_inicio_paso: list[float] = field(default_factory=list)
    tasas_registro: list[float] = field(default_factory=list)
    pasos_totales: int = 0
    pasos_warmup: int = 0


def tasas_usadas_por_trainer(
    lr: float,
    ejemplos: int,
    lote: int,
    epocas: float = 1.0,
    acumulacion: int = 1,
    warmup: int | float = 0,
    tipo: str = "linear",
    max_pasos: int = -1,
    *,
    descartar_ultimo: bool = False,
    **opciones: Any,
) -> RegistroTrainer:
    """Entrena un modelo diminuto (una capa lineal) con un ``Trainer`` real en CPU y anota la tasa de cada paso.

    Sirve para comprobar que :func:`tasas_de_aprendizaje` y :func:`pasos_totales`
    coinciden con lo que hace el ``Trainer``. Tarda unos segundos con pocos
    cientos de pasos. Se usa en lessons/04_warmup_y_regularizacion.
    """
    import tempfile

    import torch
    from transformers import Trainer, TrainerCallback, TrainingArguments
    from transformers.trainer_callback import PrinterCallback

    lr = _validar_lr(lr)
    tipo = _validar_tipo(tipo)
    ejemplos = _entero("ejemplos", ejemplos, 1)
    # valida con los mismos mensajes que pasos_totales y completa las opciones
    # obligatorias igual que tasas_de_aprendizaje, para que ambos sean comparables
    total = pasos_totales(ejemplos, lote, epocas, acumulacion, 1, max_pasos, descartar_ultimo=descartar_ultimo)
    efectivas = _opciones_efectivas(tipo, lr, total, pasos_de_warmup(warmup, total), opciones)

    class _ModeloDiminuto(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lineal = torch.nn.Linear(2, 1)

        def forward(self, x, labels=None):
            salida = self.lineal(x).squeeze(-1)
            return {"loss": torch.nn.functional.mse_loss(salida, labels), "logits": salida}

    datos = [{"x": torch.tensor([i / ejemplos, 1.0]), "labels": torch.tensor(float(i % 3))} for i in range(ejemplos)]
    registro = RegistroTrainer()

    class _Anotador(TrainerCallback):
        def on_step_begin(self, args, state, control, optimizer=None, **kwargs):
            registro.tasas_inicio_paso.append(float(optimizer.param_groups[0]["lr"]))

        def on_pre_optimizer_step(self, args, state, control, optimizer=None, **kwargs):
            registro.tasas.append(float(optimizer.param_groups[0]["lr"]))

    torch.manual_seed(0)
    with tempfile.TemporaryDirectory(prefix="tutor_warmup_") as carpeta:
        argumentos = TrainingArguments(
            output_dir=carpeta,
            learning_rate=lr,
            per_device_train_batch_size=lote,
            num_train_epochs=epocas,
            gradient_accumulation_steps=acumulacion,
            max_steps=max_pasos,
            warmup_steps=warmup,
            lr_scheduler_type=tipo,
            lr_scheduler_kwargs=efectivas,
            dataloader_drop_last=descartar_ultimo,
            use_cpu=True,
            report_to="none",
            save_strategy="no",
            logging_strategy="steps",
            logging_steps=1,
            disable_tqdm=True,
            seed=0,
        )
        trainer = Trainer(model=_ModeloDiminuto(), args=argumentos, train_dataset=datos, callbacks=[_Anotador()])
        trainer.remove_callback(PrinterCallback)  # sin esto imprime las métricas finales
        trainer.train()
        registro.tasas_registro = [float(f["learning_rate"]) for f in trainer.state.log_history if "learning_rate" in f]
        registro.pasos_totales = trainer.state.max_steps
        registro.pasos_warmup = argumentos.get_warmup_steps(trainer.state.max_steps)
    return registro
