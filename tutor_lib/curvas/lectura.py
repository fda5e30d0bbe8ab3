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

from tutor_lib.curvas.formato import _fmt, _fmt_epoca, _fmt_paso
from tutor_lib.curvas.umbrales import MIN_PUNTOS_ENTRENAMIENTO


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
    #: El ``config.json`` dice que no hay nivel del azar (regresión, multi-etiqueta, token classification...):
    #: entonces las reglas no lo estiman con la curva.
    sin_azar: bool = False
    #: El archivo del que se leyeron (vacío si vinieron de la memoria), para nombrarlo en los mensajes.
    origen: str = ""
    #: Lo que la lectura tuvo que arreglar y conviene decir (pasos desordenados o repetidos, ``loss`` nulos...).
    avisos: tuple[str, ...] = ()
    #: Datos del registro para explicar una curva vacía: ``n_registros`` (entradas de ``log_history``) y,
    #: ``ultimo_paso`` (el mayor ``step`` registrado) y, si el ``trainer_state.json`` los trae,
    #: ``global_step``, ``max_steps``, ``logging_steps`` y ``eval_steps``.
    registro: dict[str, Any] = field(default_factory=dict)


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


class _Contexto:
    """Datos comunes para redactar las explicaciones (paso + época)."""

    def __init__(self, curvas: Curvas):
        self.c = curvas

    def donde(self, x: float) -> str:
        eje = self.c.eje
        texto = f"{'el ' if eje != 'época' else 'la '}{eje} {_fmt_paso(x)}"
        ep = self.c.epocas.get(x)
        if ep is not None and eje == "paso":
            texto += f" (época {_fmt_epoca(ep)})"
        return texto


def _numero(valor: Any, que: str) -> float:
    if isinstance(valor, bool):
        raise TypeError(f"{que} debe ser un número, no un booleano ({valor!r}).")
    if isinstance(valor, (int, float, np.integer, np.floating)):
        try:
            return float(valor)
        except OverflowError:  # un entero de JSON con cientos de cifras: no cabe en un float
            return math.inf if valor > 0 else -math.inf
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


def _avisos_de_orden(pasos: list[float], que: str, eje: str) -> list[str]:
    """Lo que :func:`_ordenar_sin_duplicados` va a cambiar en ``pasos``, dicho en español (o nada)."""
    avisos = []
    if any(a > b for a, b in zip(pasos, pasos[1:])):
        avisos.append(f"Los registros de la pérdida de {que} no estaban en orden de {eje}: se ordenaron.")
    veces: dict[float, int] = {}
    for p in pasos:
        veces[p] = veces.get(p, 0) + 1
    repetidos = sorted(p for p, n in veces.items() if n > 1)
    if repetidos:
        primero = repetidos[0]
        nombre = f"{'la' if eje == 'época' else 'el'} {eje} {_fmt_x(primero)}"
        texto = (f"{len(repetidos)} valores del eje ({eje}) se repiten" if len(repetidos) > 1
                 else f"{'Una' if eje == 'época' else 'Un'} {eje} se repite")
        avisos.append(
            f"{texto} en la pérdida de {que} ({nombre}, {veces[primero]} veces"
            f"{', entre otros' if len(repetidos) > 1 else ''}): se usó el último registro de cada "
            f"{eje}. Pasa si el archivo junta dos corridas; si no es tu caso, revisa de dónde salió."
        )
    return avisos


def _fmt_x(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _posicion(x: float, que: str, eje: str) -> float:
    """Comprueba que un paso (o época) es finito y no negativo, como los que cuenta el Trainer."""
    if not math.isfinite(x):
        raise ValueError(f"{que} vale {x}: cada {eje} debe ser un número finito.")
    if x < 0:
        raise ValueError(
            f"{que} vale {_fmt_x(x)}: el Trainer cuenta {'las épocas' if eje == 'época' else 'los pasos'} "
            "desde 0, así que no puede ser negativo."
        )
    return x


def curvas_desde_log_history(log_history: list[dict]) -> Curvas:
    """Separa el ``trainer.state.log_history`` del Trainer en curva de entrenamiento y de validación.

    Toma ``loss`` (y ``grad_norm``) de los registros de entrenamiento y
    ``eval_loss`` de las evaluaciones; ignora el resumen final (``train_loss``,
    ``train_runtime``...) salvo para el caso en que no haya nada más. Los pasos
    negativos o no finitos son un error; los desordenados o repetidos se
    ordenan (gana el último registro de cada paso) y se dice en ``avisos``,
    igual que los ``loss``/``eval_loss`` nulos, que se ignoran.
    Se usa en lessons/09_curvas_de_entrenamiento.
    """
    if not isinstance(log_history, (list, tuple)):
        tipo = "null" if log_history is None else type(log_history).__name__
        raise TypeError(f"log_history debe ser una lista de diccionarios; recibí {tipo}.")
    entradas = []
    for i, entrada in enumerate(log_history):
        if not isinstance(entrada, dict):
            raise TypeError(
                f"log_history[{i}] debe ser un diccionario como los que escribe el Trainer; "
                f"recibí {'null' if entrada is None else type(entrada).__name__}."
            )
        entradas.append(entrada)
    utiles = [e for e in entradas if e.get("loss") is not None or e.get("eval_loss") is not None]
    avisos: list[str] = []
    if all(e.get("step") is not None for e in utiles):
        eje = "paso"
        x_de = lambda e, i: _numero(e["step"], f"log_history[{i}]['step']")  # noqa: E731
    elif all(e.get("epoch") is not None for e in utiles):
        eje = "época"
        x_de = lambda e, i: _numero(e["epoch"], f"log_history[{i}]['epoch']")  # noqa: E731
        avisos.append("No todos los registros tienen 'step': el eje x de las curvas es la época.")
    else:
        eje = "registro"
        x_de = lambda e, i: float(i + 1)  # noqa: E731
        avisos.append("No todos los registros tienen 'step' ni 'epoch': el eje x es el orden de los registros.")

    pt, vt, gn, pv, vv = [], [], [], [], []
    epocas: dict[float, float] = {}
    resumen = None
    nulos = {"loss": 0, "eval_loss": 0}
    for i, e in enumerate(entradas):
        for clave in nulos:
            if clave in e and e[clave] is None:
                nulos[clave] += 1
        if e.get("loss") is None and e.get("eval_loss") is None:
            if e.get("train_loss") is not None:
                resumen = _numero(e["train_loss"], f"log_history[{i}]['train_loss']")
            continue
        que = f"log_history[{i}]['step']" if eje == "paso" else (
            f"log_history[{i}]['epoch']" if eje == "época" else f"log_history[{i}]")
        x = _posicion(x_de(e, i), que, eje)
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
    for clave, n in nulos.items():
        if n:
            avisos.append(
                f"{n} registro{'s' if n > 1 else ''} de log_history tiene{'n' if n > 1 else ''} "
                f"'{clave}': null (sin valor): se ignor{'aron' if n > 1 else 'ó'}."
            )
    avisos += _avisos_de_orden(pt, "entrenamiento", eje) + _avisos_de_orden(pv, "validación", eje)
    pt, vt, gn = _ordenar_sin_duplicados(pt, vt, gn)
    pv, vv = _ordenar_sin_duplicados(pv, vv)
    registro: dict[str, Any] = {"n_registros": len(entradas)}
    pasos_enteros = [e["step"] for e in entradas if _es_entero_positivo(e.get("step"))]
    if pasos_enteros:  # el del resumen final cuenta: es el total de pasos de la corrida
        registro["ultimo_paso"] = max(pasos_enteros)
    return Curvas(tuple(pt), tuple(vt), tuple(pv), tuple(vv), tuple(gn), epocas, eje, resumen,
                  avisos=tuple(avisos), registro=registro)


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
        for i, p in enumerate(lista):
            _posicion(p, f"{nombre}[{i}]", "paso")
    avisos = _avisos_de_orden(pt, "entrenamiento", "paso") + _avisos_de_orden(pv, "validación", "paso")
    pt, tr = _ordenar_sin_duplicados(pt, tr)
    pv, va = _ordenar_sin_duplicados(pv, va)
    return Curvas(tuple(pt), tuple(tr), tuple(pv), tuple(va), avisos=tuple(avisos))


#: Cabezas cuya pérdida es una sola decisión entre C clases, y las de un modelo de lenguaje (ln del vocabulario).
CABEZAS_DE_CLASES = ("ForSequenceClassification", "ForImageClassification", "ForAudioClassification")
CABEZAS_DE_LENGUAJE = ("CausalLM", "LMHead")


def _tipo_sin_azar(config: dict) -> bool:
    """``problem_type`` dice regresión o multi-etiqueta: no hay una sola decisión entre C clases."""
    tipo = config.get("problem_type")
    return isinstance(tipo, str) and tipo in {"regression", "multi_label_classification"}


def _arquitecturas(config: dict) -> str:
    """Los nombres de ``architectures`` en un solo texto; un config.json escrito a mano puede traer cualquier
    cosa, así que solo cuentan los nombres que son texto."""
    lista = config.get("architectures")
    if isinstance(lista, str):
        lista = [lista]
    return " ".join(a for a in lista if isinstance(a, str)) if isinstance(lista, (list, tuple)) else ""


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
    if not isinstance(config, dict) or _tipo_sin_azar(config):
        return None
    arquitecturas = _arquitecturas(config)
    vocabulario = config.get("vocab_size")
    es_lenguaje = any(t in arquitecturas for t in CABEZAS_DE_LENGUAJE) or (
        not arquitecturas and "num_labels" not in config and "id2label" not in config
    )
    if es_lenguaje and isinstance(vocabulario, int) and not isinstance(vocabulario, bool) and vocabulario >= 2:
        return math.log(vocabulario), f"ln({vocabulario}) = {_fmt(math.log(vocabulario))}, vocabulario de {vocabulario} piezas"
    if arquitecturas and not any(t in arquitecturas for t in CABEZAS_DE_CLASES):
        return None  # token classification, QA, ...: la pérdida no es la de una sola decisión entre C clases
    clases = config.get("num_labels")
    if clases is None and isinstance(config.get("id2label"), dict):
        clases = len(config["id2label"])
    if isinstance(clases, int) and not isinstance(clases, bool) and clases >= 2:
        return math.log(clases), f"ln({clases}) = {_fmt(math.log(clases))}, {clases} clases"
    return None


def _dice_que_no_hay_azar(config: Any) -> bool:
    """El config.json dice que la pérdida no es la de elegir entre C clases (regresión, otra cabeza)."""
    if not isinstance(config, dict):
        return False
    arquitecturas = _arquitecturas(config)
    return _tipo_sin_azar(config) or (
        bool(arquitecturas) and not any(t in arquitecturas for t in CABEZAS_DE_CLASES + CABEZAS_DE_LENGUAJE))


def _con_azar(curvas: "Curvas", config: Any = None, num_clases: Any = None) -> "Curvas":
    azar = nivel_de_azar(config, num_clases)
    if azar is None:
        return replace(curvas, sin_azar=True) if _dice_que_no_hay_azar(config) else curvas
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


#: Un trainer_state.json más grande que esto no se lee: ocuparía varias veces su tamaño en memoria.
TAMANO_MAXIMO = 256 * 2**20

#: Los datos del trainer_state.json que sirven para explicar una curva vacía (ver :func:`exigir_entrenamiento`).
CLAVES_DEL_ESTADO = ("global_step", "max_steps", "logging_steps", "eval_steps")


def _archivo_de_estado(ruta: str | os.PathLike) -> Path:
    """El ``trainer_state.json`` al que apunta una ruta (archivo, checkpoint o carpeta de corrida)."""
    ruta = Path(ruta)
    if not ruta.exists():
        raise FileNotFoundError(f"No existe la ruta {str(ruta)!r}: pasa un trainer_state.json o una carpeta de checkpoint.")
    if not ruta.is_dir():
        return ruta
    if (ruta / "trainer_state.json").is_file():
        return ruta / "trainer_state.json"
    candidatos, sin_estado, otros = [], [], []
    try:
        subcarpetas = sorted(sub for sub in ruta.iterdir() if sub.is_dir())
    except OSError as exc:
        raise FileNotFoundError(f"No pude leer la carpeta {str(ruta)!r} ({exc.strerror or exc}).") from None
    for sub in subcarpetas:
        m = re.fullmatch(r"checkpoint-(\d+)", sub.name)
        if m and (sub / "trainer_state.json").is_file():
            candidatos.append((int(m.group(1)), sub / "trainer_state.json"))
        elif m:
            sin_estado.append(sub.name)
        elif sub.name.startswith("checkpoint"):
            otros.append(sub.name)
    if not candidatos:
        detalle = ""
        if sin_estado:
            verbo = "tiene" if len(sin_estado) == 1 else "tienen"
            detalle += f" {_subcarpetas(sin_estado)} no {verbo} trainer_state.json."
        if otros:
            detalle += (f" {_subcarpetas(otros)} no {'se llama' if len(otros) == 1 else 'se llaman'} checkpoint-N "
                        "con N un número, como las que escribe el Trainer.")
        raise FileNotFoundError(
            f"En la carpeta {str(ruta)!r} no hay trainer_state.json ni subcarpetas checkpoint-N que lo tengan."
            + detalle + " Pasa la ruta del archivo, o guárdalo al terminar con trainer.save_state()."
        )
    return max(candidatos)[1]


def _subcarpetas(nombres: list[str]) -> str:
    """«La subcarpeta checkpoint-abc» o «Las subcarpetas a, b, c (y 2 más)»."""
    if len(nombres) == 1:
        return f"La subcarpeta {nombres[0]}"
    resto = f" (y {len(nombres) - 3} más)" if len(nombres) > 3 else ""
    return f"Las subcarpetas {', '.join(nombres[:3])}{resto}"


def _leer_json(ruta: Path) -> Any:
    nombre = str(ruta)
    try:
        tamano = ruta.stat().st_size
        if tamano > TAMANO_MAXIMO:
            raise ValueError(
                f"{nombre!r} pesa {tamano / 2**20:.0f} MiB, más de los {TAMANO_MAXIMO // 2**20} MiB que se leen: "
                "¿es de verdad un trainer_state.json? Si lo es, entrena con un logging_steps mayor."
            )
        texto = ruta.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{nombre!r} no es un archivo de texto JSON (UTF-8).") from None
    except IsADirectoryError:
        raise ValueError(f"{nombre!r} es una carpeta sin trainer_state.json.") from None
    except OSError as exc:
        raise ValueError(f"No pude leer {nombre!r} ({exc.strerror or exc}).") from None
    if not texto.strip():
        raise ValueError(
            f"{nombre!r} está vacío: quizá la escritura se cortó. Usa otro checkpoint-N o vuelve a guardarlo "
            "con trainer.save_state()."
        )
    try:
        return json.loads(texto)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{nombre!r} no es JSON válido (línea {exc.lineno}, columna {exc.colno}): pasa el trainer_state.json "
            "que guarda el Trainer, o un JSON con {\"entrenamiento\": [...], \"validacion\": [...]}."
        ) from None
    except (ValueError, RecursionError):  # un número con miles de cifras, o miles de corchetes anidados
        raise ValueError(
            f"{nombre!r} no se puede leer como JSON: tiene un número con demasiadas cifras o demasiados niveles "
            "anidados. No parece un trainer_state.json."
        ) from None


def _tipo_json(valor: Any) -> str:
    """El nombre JSON de un valor leído: «un número», «un texto», «null»..."""
    if valor is None:
        return "null"
    if isinstance(valor, bool):
        return f"un booleano ({'true' if valor else 'false'})"
    if isinstance(valor, (int, float)):
        return f"un número ({valor!r:.30})"
    if isinstance(valor, str):
        return f"un texto ({valor!r:.40})"
    return type(valor).__name__


def _curvas_de_archivo(archivo: Path) -> "Curvas":
    """Las curvas de un archivo JSON, con los errores de su contenido atribuidos al archivo."""
    contenido = _leer_json(archivo)
    nombre = str(archivo)
    if not isinstance(contenido, (dict, list)):
        raise ValueError(
            f"{nombre!r} contiene {_tipo_json(contenido)}, no un trainer_state.json: se espera un objeto JSON con "
            "log_history (el que guarda el Trainer en cada checkpoint-N o con trainer.save_state()) o "
            "{\"entrenamiento\": [...], \"validacion\": [...]}."
        )
    try:
        curvas = leer_curvas(contenido)
    except (ValueError, TypeError) as exc:
        motivo = str(exc)
        if motivo[:2].istitle():  # «La lista...» → «la lista...», tras los dos puntos
            motivo = motivo[0].lower() + motivo[1:]
        raise type(exc)(
            f"En {nombre!r}: {motivo} Si editaste el archivo, corrígelo; si no, vuelve a generarlo "
            "(el Trainer lo escribe en cada checkpoint-N o con trainer.save_state())."
        ) from None
    registro = dict(curvas.registro)
    if isinstance(contenido, dict):
        registro.update({k: contenido[k] for k in CLAVES_DEL_ESTADO if _es_entero_positivo(contenido.get(k))})
    return replace(curvas, origen=nombre, registro=registro)


def _es_entero_positivo(valor: Any) -> bool:
    return isinstance(valor, int) and not isinstance(valor, bool) and valor > 0


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
        return _con_azar(_curvas_de_archivo(archivo), _config_de_la_corrida(archivo), num_clases)
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


# --------------------------------------------------------------------------- para tutor diagnosticar

def exigir_entrenamiento(curvas: Curvas) -> None:
    """``ValueError`` en español si no hay ni un registro de pérdida de entrenamiento: dice por qué y qué cambiar.

    :func:`~tutor_lib.curvas.diagnosticar` responde «indeterminado» a una curva
    así; ``tutor diagnosticar`` prefiere un error (código 2) que explique cómo
    volver a entrenar para tenerla. La validación sola tampoco alcanza: sin la
    curva de entrenamiento no se distingue un modelo que no aprende de uno que memoriza.
    """
    if curvas.entrenamiento:
        return
    archivo = repr(curvas.origen) if curvas.origen else "El log_history"
    r = curvas.registro
    n = r.get("n_registros")
    m = len(curvas.validacion)
    if n == 0:
        texto = f"{archivo}: log_history está vacío, el Trainer no registró nada."
    elif m:
        texto = (
            f"{archivo}: log_history tiene {m} evaluaci{'ón' if m == 1 else 'ones'} (eval_loss) pero ninguna "
            "pérdida de entrenamiento (loss). La validación sola no alcanza para diagnosticar: sin la curva de "
            "entrenamiento no se distingue un modelo que no aprende de uno que memoriza."
        )
    elif curvas.resumen_perdida is not None:
        texto = (
            f"{archivo}: log_history solo trae el resumen final (train_loss = {_fmt(curvas.resumen_perdida)}, "
            "el promedio de toda la corrida), no la curva: ningún registro tiene loss."
        )
    elif n == 1:
        texto = f"{archivo}: el único registro de log_history no tiene loss (la pérdida de entrenamiento)."
    else:
        texto = f"{archivo}: ninguno de los {n} registros de log_history tiene loss (la pérdida de entrenamiento)."
    pasos = r.get("global_step") or r.get("max_steps") or r.get("ultimo_paso")
    cada = r.get("logging_steps")
    if pasos and cada and cada > pasos:
        texto += (
            f" La corrida dio {pasos} pasos con logging_steps={cada}: el Trainer registra loss cada "
            "logging_steps pasos, así que no llegó a hacerlo ni una vez."
        )
    elif pasos and cada:
        texto += (
            f" La corrida dio {pasos} pasos con logging_steps={cada} y aun así no registró loss: "
            "¿entrenaste con logging_strategy='no'?"
        )
    else:
        texto += (
            " Pasa cuando la corrida da menos pasos que logging_steps (500 por defecto): el Trainer registra "
            "loss cada logging_steps pasos."
        )
    if not pasos:
        sugerido = "logging_steps=0.05 (un registro cada 5 % de los pasos)"
    elif pasos >= 40:
        sugerido = f"logging_steps={pasos // 20} (unos 20 registros en {pasos} pasos)"
    else:
        sugerido = f"logging_steps=1 (un registro en cada uno de los {pasos} pasos)"
    texto += f" Vuelve a entrenar con logging_steps menor que el total de pasos, p. ej. {sugerido}."
    if not m:
        texto += (" Para tener también la curva de validación, usa eval_strategy='steps' con eval_steps "
                  "(o eval_strategy='epoch').")
    if pasos and pasos < MIN_PUNTOS_ENTRENAMIENTO:
        texto += (f" Con menos de {MIN_PUNTOS_ENTRENAMIENTO} registros el diagnóstico no distingue una tendencia "
                  "del ruido: entrena también más pasos.")
    raise ValueError(texto)


#: Con más registros que esto, :func:`aligerar` se queda con uno de cada tantos. El tiempo de las reglas
#: de :mod:`tutor_lib.curvas.reglas` crece más rápido que los registros (la ventana de la mediana móvil
#: crece con ellos): medido en una CPU compartida, 1.6 s con 10 000 registros y 23 s con 100 000.
MAX_REGISTROS = 10_000


def _cada(n: int, maximo: int) -> list[int]:
    """Los índices de uno de cada ``ceil(n / maximo)`` registros, con el primero y el último siempre."""
    b = math.ceil(n / maximo)
    indices = list(range(0, n, b))
    if indices[-1] != n - 1:
        indices.append(n - 1)
    return indices


def aligerar(curvas: Curvas, maximo: int = MAX_REGISTROS) -> Curvas:
    """Las curvas con a lo sumo unos ``maximo`` registros en cada una, y un aviso que lo dice.

    Con más, se queda con uno de cada ``b`` registros a intervalos iguales (el
    primero y el último siempre): la curva que habrías registrado con un
    ``logging_steps`` ``b`` veces mayor. Las reglas miden medianas de ventanas
    proporcionales a la longitud, así que el veredicto es el de la curva
    completa salvo en casos de frontera. ``registro["aligerado"]`` guarda, por
    curva, (registros originales, uno de cada cuántos). Sin cambios si no hace falta.
    """
    from tutor_lib.formato import entero

    cambios: dict[str, Any] = {}
    avisos = list(curvas.avisos)
    aligerado: dict[str, tuple[int, int]] = {}
    n = len(curvas.entrenamiento)
    if n > maximo:
        i = _cada(n, maximo)
        aligerado["entrenamiento"] = (n, math.ceil(n / maximo))
        gn = curvas.normas_gradiente
        cambios.update(
            pasos_entrenamiento=tuple(curvas.pasos_entrenamiento[j] for j in i),
            entrenamiento=tuple(curvas.entrenamiento[j] for j in i),
            normas_gradiente=tuple(gn[j] for j in i) if len(gn) == n else gn,
        )
        avisos.append(
            f"La curva de entrenamiento tiene {entero(n)} registros: para que el diagnóstico tarde segundos y no "
            f"minutos se usa 1 de cada {math.ceil(n / maximo)} (con el primero y el último), como si logging_steps "
            "fuera ese número de veces mayor. Las cifras pueden diferir un poco de las de la curva completa."
        )
    m = len(curvas.validacion)
    if m > maximo:
        i = _cada(m, maximo)
        aligerado["validacion"] = (m, math.ceil(m / maximo))
        cambios.update(pasos_validacion=tuple(curvas.pasos_validacion[j] for j in i),
                       validacion=tuple(curvas.validacion[j] for j in i))
        avisos.append(
            f"La curva de validación tiene {entero(m)} evaluaciones: se usa 1 de cada {math.ceil(m / maximo)} "
            "(con la primera y la última)."
        )
    if not cambios:
        return curvas
    registro = {**curvas.registro, "aligerado": aligerado}
    return replace(curvas, avisos=tuple(avisos), registro=registro, **cambios)
