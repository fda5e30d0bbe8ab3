"""Leer curvas: ``log_history``, ``trainer_state.json`` (y el ``config.json`` de su corrida) o listas.

Se usa en lessons/09_curvas_de_entrenamiento y en ``tutor diagnosticar``.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from tutor_lib.curvas.texto import _fmt


# --------------------------------------------------------------------------- datos

@dataclass(frozen=True)
class Curvas:
    """Las dos curvas ya separadas, ordenadas por paso y sin duplicados.

    Los valores pueden incluir ``nan``/``inf`` tal como se registraron.
    ``eje`` dice qué es el eje x: ``"paso"``, ``"época"`` o ``"registro"``.
    """

    pasos_entrenamiento: tuple[float, ...]
    entrenamiento: tuple[float, ...]
    pasos_validacion: tuple[float, ...] = ()
    validacion: tuple[float, ...] = ()
    normas_gradiente: tuple[float | None, ...] = ()
    epocas: dict[float, float] = field(default_factory=dict)
    eje: str = "paso"
    resumen_perdida: float | None = None
    #: Pérdida de un modelo que adivina (ln de las clases o del vocabulario), si se conoce.
    azar: float | None = None
    #: De dónde sale ``azar``, en palabras («ln(10), 10 clases»).
    origen_azar: str = ""


@dataclass
class Diagnostico:
    """Veredicto sobre una curva: categoría, explicación con sus números y remedios."""

    categoria: str
    explicacion: str
    remedios: list[str]
    mejor_paso: int | float | None
    evidencia: dict[str, Any] = field(default_factory=dict)

    def como_dict(self) -> dict[str, Any]:
        """Forma estable para ``--json``: categoría, explicación, remedios y mejor paso."""
        return {
            "categoria": self.categoria,
            "explicacion": self.explicacion,
            "remedios": list(self.remedios),
            "mejor_paso": self.mejor_paso,
        }


def _numero(valor: Any, que: str) -> float:
    if isinstance(valor, bool):
        raise TypeError(f"{que} debe ser un número, no un booleano ({valor!r}).")
    if isinstance(valor, (int, float, np.integer, np.floating)):
        return float(valor)
    if isinstance(valor, str):
        texto = valor.strip().lower()
        if texto in {"nan", "inf", "+inf", "-inf", "infinity", "-infinity"}:
            return float(texto.replace("infinity", "inf"))
        try:
            return float(texto)
        except ValueError:
            raise ValueError(f"{que} debe ser un número; recibí el texto {valor!r}.") from None
    if hasattr(valor, "item"):
        try:
            return float(valor.item())
        except (TypeError, ValueError):
            pass
    raise TypeError(f"{que} debe ser un número; recibí {type(valor).__name__} ({valor!r:.60}).")


def _lista_de_numeros(valores: Any, que: str) -> list[float]:
    if valores is None:
        return []
    if isinstance(valores, (str, bytes, dict)):
        raise TypeError(f"{que} debe ser una lista de números, no {type(valores).__name__}.")
    try:
        lista = list(valores)
    except TypeError:
        raise TypeError(f"{que} debe ser una lista de números; recibí {type(valores).__name__}.") from None
    return [_numero(v, f"{que}[{i}]") for i, v in enumerate(lista)]


def _ordenar_sin_duplicados(pasos: list[float], valores: list[float], extra: list[float] | None = None):
    """Ordena por paso; si un paso se repite se queda el ÚLTIMO registrado (p. ej. al reanudar)."""
    por_paso: dict[float, int] = {}
    for i, p in enumerate(pasos):
        por_paso[p] = i
    orden = sorted(por_paso.items(), key=lambda kv: kv[0])
    indices = [i for _, i in orden]
    salida = ([pasos[i] for i in indices], [valores[i] for i in indices])
    if extra is not None:
        salida += ([extra[i] for i in indices],)
    return salida


def curvas_desde_log_history(log_history: list[dict]) -> Curvas:
    """Separa el ``trainer.state.log_history`` del Trainer en curva de entrenamiento y de validación.

    Toma ``loss`` (y ``grad_norm``) de los registros de entrenamiento y
    ``eval_loss`` de las evaluaciones; ignora el resumen final (``train_loss``,
    ``train_runtime``...) salvo para el caso en que no haya nada más.
    Se usa en lessons/09_curvas_de_entrenamiento.
    """
    if not isinstance(log_history, (list, tuple)):
        raise TypeError(f"log_history debe ser una lista de diccionarios; recibí {type(log_history).__name__}.")
    entradas = []
    for i, entrada in enumerate(log_history):
        if not isinstance(entrada, dict):
            raise TypeError(
                f"log_history[{i}] debe ser un diccionario como los que escribe el Trainer; "
                f"recibí {type(entrada).__name__}."
            )
        entradas.append(entrada)
    utiles = [e for e in entradas if e.get("loss") is not None or e.get("eval_loss") is not None]
    if all(e.get("step") is not None for e in utiles):
        eje = "paso"
        x_de = lambda e, i: _numero(e["step"], f"log_history[{i}]['step']")  # noqa: E731
    elif all(e.get("epoch") is not None for e in utiles):
        eje = "época"
        x_de = lambda e, i: _numero(e["epoch"], f"log_history[{i}]['epoch']")  # noqa: E731
    else:
        eje = "registro"
        x_de = lambda e, i: float(i + 1)  # noqa: E731

    pt, vt, gn, pv, vv = [], [], [], [], []
    epocas: dict[float, float] = {}
    resumen = None
    for i, e in enumerate(entradas):
        if e.get("loss") is None and e.get("eval_loss") is None:
            if e.get("train_loss") is not None:
                resumen = _numero(e["train_loss"], f"log_history[{i}]['train_loss']")
            continue
        x = x_de(e, i)
        if not math.isfinite(x):
            raise ValueError(f"log_history[{i}] tiene un {eje} no finito ({x}); los pasos deben ser números finitos.")
        if e.get("epoch") is not None and eje == "paso":
            try:
                epoca = _numero(e["epoch"], f"log_history[{i}]['epoch']")
            except (TypeError, ValueError):
                epoca = math.nan
            if math.isfinite(epoca):
                epocas[x] = epoca
        if e.get("loss") is not None:
            pt.append(x)
            vt.append(_numero(e["loss"], f"log_history[{i}]['loss']"))
            g = e.get("grad_norm")
            gn.append(_numero(g, f"log_history[{i}]['grad_norm']") if g is not None else None)
        if e.get("eval_loss") is not None:
            pv.append(x)
            vv.append(_numero(e["eval_loss"], f"log_history[{i}]['eval_loss']"))
    pt, vt, gn = _ordenar_sin_duplicados(pt, vt, gn)
    pv, vv = _ordenar_sin_duplicados(pv, vv)
    return Curvas(tuple(pt), tuple(vt), tuple(pv), tuple(vv), tuple(gn), epocas, eje, resumen)


def curvas_desde_listas(
    entrenamiento: Any,
    validacion: Any = None,
    pasos: Any = None,
    pasos_validacion: Any = None,
) -> Curvas:
    """Arma las curvas desde listas simples de pérdidas (y, si quieres, sus pasos).

    Sin ``pasos``, el entrenamiento va en los pasos 1, 2, 3... Sin
    ``pasos_validacion``, si hay tantas validaciones como puntos de
    entrenamiento comparten pasos; si no, se reparten como evaluaciones al final
    de cada época: la i-ésima en ``último_paso · i / n_validaciones``.
    Se usa en lessons/09_curvas_de_entrenamiento.
    """
    tr = _lista_de_numeros(entrenamiento, "entrenamiento")
    va = _lista_de_numeros(validacion, "validacion")
    if not tr:
        raise ValueError(
            "La lista de pérdidas de entrenamiento está vacía: hace falta al menos un valor "
            "(idealmente varias decenas, uno por cada logging_steps)."
        )
    if pasos is None:
        pt = [float(i + 1) for i in range(len(tr))]
    else:
        pt = _lista_de_numeros(pasos, "pasos")
        if len(pt) != len(tr):
            raise ValueError(
                f"pasos tiene {len(pt)} valores y entrenamiento {len(tr)}: deben tener la misma longitud."
            )
    if pasos_validacion is None:
        if len(va) == len(tr):
            pv = list(pt)
        else:
            ultimo = max(pt)
            pv = [ultimo * (i + 1) / len(va) for i in range(len(va))]
            if all(float(p).is_integer() for p in pt):
                pv = [float(round(p)) for p in pv]
    else:
        pv = _lista_de_numeros(pasos_validacion, "pasos_validacion")
        if len(pv) != len(va):
            raise ValueError(
                f"pasos_validacion tiene {len(pv)} valores y validacion {len(va)}: deben tener la misma longitud."
            )
    for nombre, lista in (("pasos", pt), ("pasos_validacion", pv)):
        malos = [p for p in lista if not math.isfinite(p)]
        if malos:
            raise ValueError(f"{nombre} contiene {malos[0]}: los pasos deben ser números finitos.")
    pt, tr = _ordenar_sin_duplicados(pt, tr)
    pv, va = _ordenar_sin_duplicados(pv, va)
    return Curvas(tuple(pt), tuple(tr), tuple(pv), tuple(va))


def nivel_de_azar(config: Any = None, num_clases: Any = None) -> tuple[float, str] | None:
    """La pérdida de entropía cruzada de un modelo que adivina, y de dónde sale; ``None`` si no se sabe.

    Un clasificador que reparte la probabilidad por igual entre C clases tiene
    pérdida ln(C); un modelo de lenguaje que no aprendió nada, ln(vocabulario).
    ``config`` es el ``config.json`` de la corrida (el que guarda el Trainer en
    cada checkpoint) o un dict con ``num_labels`` o ``vocab_size``; ``num_clases``
    lo fija a mano. En regresión (``problem_type="regression"``) o
    multi-etiqueta no hay un nivel del azar de este tipo. Se usa en
    lessons/09_curvas_de_entrenamiento.
    """
    if num_clases is not None:
        if isinstance(num_clases, bool) or not isinstance(num_clases, int) or num_clases < 2:
            raise ValueError(f"El número de clases (num_clases o --clases) debe ser un entero ≥ 2; recibí {num_clases!r}.")
        return math.log(num_clases), f"ln({num_clases}) = {_fmt(math.log(num_clases))}, {num_clases} clases"
    if not isinstance(config, dict):
        return None
    tipo = config.get("problem_type")
    if isinstance(tipo, str) and tipo in {"regression", "multi_label_classification"}:
        return None
    lista = config.get("architectures")
    if isinstance(lista, str):
        lista = [lista]
    # un config.json escrito a mano puede traer cualquier cosa: solo cuentan los nombres en texto
    arquitecturas = " ".join(a for a in lista if isinstance(a, str)) if isinstance(lista, (list, tuple)) else ""
    vocabulario = config.get("vocab_size")
    es_lenguaje = "CausalLM" in arquitecturas or "LMHead" in arquitecturas or (
        not arquitecturas and "num_labels" not in config and "id2label" not in config
    )
    if es_lenguaje and isinstance(vocabulario, int) and not isinstance(vocabulario, bool) and vocabulario >= 2:
        return math.log(vocabulario), f"ln({vocabulario}) = {_fmt(math.log(vocabulario))}, vocabulario de {vocabulario} piezas"
    if arquitecturas and not any(t in arquitecturas for t in ("ForSequenceClassification", "ForImageClassification",
                                                              "ForAudioClassification")):
        return None  # token classification, QA, ...: la pérdida no es la de una sola decisión entre C clases
    clases = config.get("num_labels")
    if clases is None and isinstance(config.get("id2label"), dict):
        clases = len(config["id2label"])
    if isinstance(clases, int) and not isinstance(clases, bool) and clases >= 2:
        return math.log(clases), f"ln({clases}) = {_fmt(math.log(clases))}, {clases} clases"
    return None


def _con_azar(curvas: "Curvas", config: Any = None, num_clases: Any = None) -> "Curvas":
    azar = nivel_de_azar(config, num_clases)
    if azar is None:
        return curvas
    return replace(curvas, azar=azar[0], origen_azar=azar[1])


def _config_de_la_corrida(archivo: Path) -> dict | None:
    """El ``config.json`` junto a un ``trainer_state.json`` (en su carpeta o en la de arriba), si lo hay."""
    for carpeta in (archivo.parent, archivo.parent.parent):
        candidato = carpeta / "config.json"
        if candidato.is_file():
            try:
                contenido = json.loads(candidato.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError):
                return None
            return contenido if isinstance(contenido, dict) else None
    return None


def cargar_log_history(ruta: str | os.PathLike) -> Any:
    """Lee el JSON de una ruta: ``trainer_state.json``, una carpeta de checkpoint o de corrida.

    En una carpeta busca ``trainer_state.json``; si no está, toma el
    ``checkpoint-N`` con la N más alta que lo tenga. Acepta los literales
    ``NaN``/``Infinity`` que escribe Python. Devuelve el objeto JSON leído.
    Se usa en lessons/09_curvas_de_entrenamiento.
    """
    return _leer_json(_archivo_de_estado(ruta))


def _archivo_de_estado(ruta: str | os.PathLike) -> Path:
    """El ``trainer_state.json`` al que apunta una ruta (archivo, checkpoint o carpeta de corrida)."""
    ruta = Path(ruta)
    if not ruta.exists():
        raise FileNotFoundError(f"No existe la ruta {str(ruta)!r}: pasa un trainer_state.json o una carpeta de checkpoint.")
    if not ruta.is_dir():
        return ruta
    if (ruta / "trainer_state.json").is_file():
        return ruta / "trainer_state.json"
    candidatos = [(int(m.group(1)), sub / "trainer_state.json") for sub in ruta.iterdir()
                  if (m := re.fullmatch(r"checkpoint-(\d+)", sub.name)) and (sub / "trainer_state.json").is_file()]
    if not candidatos:
        raise FileNotFoundError(
            f"En la carpeta {str(ruta)!r} no hay trainer_state.json ni subcarpetas checkpoint-N que lo tengan."
        )
    return max(candidatos)[1]


def _leer_json(ruta: Path) -> Any:
    try:
        texto = ruta.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{str(ruta)!r} no es un archivo de texto JSON (UTF-8).") from None
    try:
        return json.loads(texto)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{str(ruta)!r} no es JSON válido (línea {exc.lineno}, columna {exc.colno}).") from None


def leer_curvas(
    fuente: Any = None,
    *,
    entrenamiento: Any = None,
    validacion: Any = None,
    pasos: Any = None,
    pasos_validacion: Any = None,
    num_clases: int | None = None,
) -> Curvas:
    """Convierte cualquier entrada aceptada en :class:`Curvas`.

    ``fuente`` puede ser: un ``log_history`` (lista de dicts), el contenido de
    un ``trainer_state.json`` (dict con ``log_history``; si trae también
    ``config``, se lee de ahí el nivel del azar), un dict
    ``{"entrenamiento": [...], "validacion": [...], "pasos": [...]}``, una lista
    de pérdidas, una ruta (archivo o carpeta: si junto al ``trainer_state.json``
    está el ``config.json`` del modelo, se lee de él cuántas clases o piezas de
    vocabulario hay) o unas :class:`Curvas`. También puedes pasar las listas por
    nombre, y ``num_clases`` si la pérdida es una entropía cruzada entre tantas
    clases. Se usa en lessons/09_curvas_de_entrenamiento.
    """
    if fuente is None:
        if entrenamiento is None:
            raise ValueError(
                "No hay datos: pasa un log_history, una ruta a trainer_state.json o la lista entrenamiento=[...]."
            )
        return _con_azar(curvas_desde_listas(entrenamiento, validacion, pasos, pasos_validacion), None, num_clases)
    if entrenamiento is not None:
        raise ValueError("Pasa la fuente o la lista entrenamiento=..., no las dos a la vez.")
    if isinstance(fuente, Curvas):
        return _con_azar(fuente, None, num_clases)
    if isinstance(fuente, (str, os.PathLike)):
        archivo = _archivo_de_estado(fuente)
        return _con_azar(leer_curvas(_leer_json(archivo)), _config_de_la_corrida(archivo), num_clases)
    if isinstance(fuente, dict):
        if "log_history" in fuente:
            return _con_azar(curvas_desde_log_history(fuente["log_history"]), fuente.get("config"), num_clases)
        if "entrenamiento" in fuente:
            curvas = curvas_desde_listas(
                fuente["entrenamiento"],
                fuente.get("validacion"),
                fuente.get("pasos"),
                fuente.get("pasos_validacion"),
            )
            return _con_azar(curvas, fuente.get("config"), num_clases)
        claves = ", ".join(map(str, list(fuente)[:6])) or "ninguna"
        raise ValueError(
            "El diccionario debe tener 'log_history' (trainer_state.json) o 'entrenamiento' "
            f"(y opcionalmente 'validacion', 'pasos'); tiene estas claves: {claves}."
        )
    if isinstance(fuente, (list, tuple)) or type(fuente).__name__ in {"ndarray", "Tensor", "Series"}:
        lista = list(fuente)
        if not lista:
            raise ValueError("La lista está vacía: no hay ninguna pérdida que diagnosticar.")
        if all(isinstance(e, dict) for e in lista):
            return _con_azar(curvas_desde_log_history(lista), None, num_clases)
        return _con_azar(curvas_desde_listas(lista, validacion, pasos, pasos_validacion), None, num_clases)
    raise TypeError(
        "No sé leer curvas de un objeto de tipo "
        f"{type(fuente).__name__}: usa un log_history, una ruta o una lista de pérdidas."
    )
