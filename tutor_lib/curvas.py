"""Diagnóstico de curvas de entrenamiento a partir de ``log_history`` y su gráfica.

Se usa en lessons/09_curvas_de_entrenamiento.

Todo es puro salvo :func:`cargar_log_history` (lee un archivo) y
:func:`graficar` (dibuja). Las reglas son pocas, con nombre y explicables: cada
umbral es una constante de este módulo con un comentario que dice qué mide.
Las reglas son **independientes de la escala**: todo se mide relativo a la
pérdida inicial (o, en validación, relativo a su propio mínimo), así que una
pérdida MSE de 90 y una entropía cruzada de 0.7 se juzgan igual. Para no
confundir ruido con tendencia se comparan medianas de ventanas, no puntos
sueltos.

El orden de las reglas importa y es el mismo que seguirías mirando la curva:

1. ``divergencia``: la pérdida termina en NaN/inf (también el «0.0» que el
   Trainer escribe cuando la pérdida ya es NaN), sube y se queda arriba,
   termina peor que su primer registro, o explota y no se recupera.
2. ``indeterminado``: hay muy pocos puntos para decir nada.
3. ``inestable``: picos que no son tendencia, sierras grandes, o una
   validación que va a saltos. La validación se mide siempre con los mismos
   ejemplos: si ella es suave, un ruido moderado en el entrenamiento es ruido
   de los lotes, no un modelo inestable.
4. ``sobreajuste``: la validación tocó un mínimo y luego subió mientras el
   entrenamiento seguía bajando (o la brecha es enorme y la validación no mejora).
5. ``subajuste``: la pérdida casi no bajó, o sigue bajando en línea recta.
6. ``sano`` si hay validación suficiente para descartar el sobreajuste;
   si no, ``indeterminado`` (nunca adivina).

Límite que conviene saber: «sano» quiere decir «las curvas no muestran ningún
problema», no «el mejor modelo posible». Un modelo demasiado pequeño que se
aplana enseguida da la misma curva que uno que ya convergió; solo comparando
con otra corrida (o con una referencia) se ve la diferencia.

Los umbrales se fijaron mirando solo la partición ``"ajuste"`` del corpus de
curvas reales de ``tests/datos/curvas/`` (ver ``scripts/generar_curvas.py``,
que cuenta también cómo se midió la partición ``"reserva"``).
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tutor_lib.formato import porcentaje

CATEGORIAS = ("sano", "sobreajuste", "subajuste", "inestable", "divergencia", "indeterminado")

# --------------------------------------------------------------------------- umbrales
#: Menos puntos de entrenamiento que esto (finitos) no permiten juzgar una forma.
MIN_PUNTOS_ENTRENAMIENTO = 6
#: Evaluaciones mínimas para hablar de la tendencia de la validación
#: (con 1 o 2 puntos no se distingue «tocó fondo y subió» de ruido).
MIN_EVALUACIONES = 3
#: Ventana (en puntos) de la mediana móvil con la que se suaviza el entrenamiento.
VENTANA_SUAVIZADO = 5
#: El nivel final es la mediana de los últimos puntos: un 10 % de la curva,
#: pero al menos 2 y como mucho 4 (nunca un punto suelto). El nivel inicial,
#: la escala de casi todas las reglas, es la mediana de los primeros puntos, o
#: el primer registro si es menor (una explosión que ya empezó no cuenta como
#: «inicio»).
FRACCION_EXTREMOS = 0.1
PUNTOS_EXTREMOS_MIN = 2
PUNTOS_EXTREMOS_MAX = 4

#: Divergencia: la mediana del último tercio de la curva, y también la de los
#: últimos puntos, superan el primer registro en más de este factor (terminó
#: peor que cuando empezó: 1.25 = un 25 % por encima). Se usa el tercio entero
#: además de los últimos puntos para que un par de picos al final de una curva
#: ruidosa no cuenten como tendencia.
FACTOR_PEOR_QUE_INICIO = 1.25
#: Divergencia: la mediana del último tercio y la de los últimos puntos (la
#: menor de las dos) quedaron por encima del mejor tramo de la curva (la menor
#: mediana de ``FRACCION_TRAMO_MEJOR`` de los puntos seguidos) en más de esta
#: fracción de la pérdida inicial: bajó, volvió a subir y se quedó arriba. Una
#: curva inestable ronda 0.1–0.3; una que diverge, 0.9 o más.
SUBIDA_SOSTENIDA = 0.5
FRACCION_TRAMO_MEJOR = 1 / 6
#: Divergencia: la curva suavizada llegó a subir más que la pérdida inicial
#: entera (una explosión) y al final quedó a menos de ``CAIDA_TRAS_EXPLOSION``
#: por debajo del inicio: explotó y lo aprendido se perdió. (Si tras la
#: explosión termina claramente por debajo del inicio, es ``inestable``.)
REBOTE_EXPLOSION = 1.0
CAIDA_TRAS_EXPLOSION = 0.1

#: Inestable: ruido típico (mediana del |residuo| respecto de la mediana móvil)
#: mayor que esta fracción de la pérdida inicial. Un entrenamiento sano con
#: lotes pequeños anda por 0.01–0.03. Un ruido moderado (entre ``RUIDO_MAXIMO``
#: y ``RUIDO_ALTO``) puede ser solo el ruido de los lotes: cuenta como
#: inestabilidad si no hay validación suficiente para comprobarlo; si la hay y
#: es suave (ver ``RUGOSIDAD_VALIDACION_MAXIMA``), el modelo no está saltando.
RUIDO_MAXIMO = 0.05
RUIDO_ALTO = 0.1
#: Inestable: la curva suavizada volvió a subir, respecto de su mínimo hasta ese
#: momento, más que esta fracción de la pérdida inicial (pico que luego baja).
REBOTE_MAXIMO = 0.15

#: Inestable: la validación (medida siempre con los mismos ejemplos, así que
#: no tiene ruido de lotes) se aparta de la mediana con sus dos vecinas, de
#: media, más que esta fracción de su valor inicial. Una curva sana o que
#: sobreajusta es casi monótona: 0–0.04. Hace falta un mínimo de evaluaciones.
RUGOSIDAD_VALIDACION_MAXIMA = 0.06
MIN_EVALUACIONES_RUGOSIDAD = 5

#: Sobreajuste: la validación final supera su mínimo en más de esta fracción
#: del propio mínimo (10 %: más que el ruido típico de una evaluación).
SUBIDA_VALIDACION = 0.1
#: Sobreajuste por brecha: el entrenamiento final es menos que esta fracción de
#: la validación final...
COCIENTE_BRECHA = 0.25
#: ... y la diferencia entre ambas es más que esta fracción de la pérdida inicial.
BRECHA_MINIMA = 0.2

#: Subajuste: la pérdida bajó menos que esta fracción de la inicial.
CAIDA_MINIMA = 0.2
#: Subajuste: en el último tramo (``FRACCION_TRAMO_FINAL`` de los pasos) la
#: pérdida sigue bajando a más de esta fracción de su ritmo medio: no convergió.
PENDIENTE_FINAL_MAXIMA = 0.5
FRACCION_TRAMO_FINAL = 0.4
#: ... salvo que ya haya bajado más que esto (entonces es sano aunque siga bajando).
CAIDA_SUFICIENTE = 0.8


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


def cargar_log_history(ruta: str | os.PathLike) -> Any:
    """Lee el JSON de una ruta: ``trainer_state.json``, una carpeta de checkpoint o de corrida.

    En una carpeta busca ``trainer_state.json``; si no está, toma el
    ``checkpoint-N`` con la N más alta que lo tenga. Acepta los literales
    ``NaN``/``Infinity`` que escribe Python. Devuelve el objeto JSON leído.
    Se usa en lessons/09_curvas_de_entrenamiento.
    """
    ruta = Path(ruta)
    if not ruta.exists():
        raise FileNotFoundError(f"No existe la ruta {str(ruta)!r}: pasa un trainer_state.json o una carpeta de checkpoint.")
    if ruta.is_dir():
        directo = ruta / "trainer_state.json"
        if directo.is_file():
            ruta = directo
        else:
            candidatos = []
            for sub in ruta.iterdir():
                m = re.fullmatch(r"checkpoint-(\d+)", sub.name)
                if m and (sub / "trainer_state.json").is_file():
                    candidatos.append((int(m.group(1)), sub / "trainer_state.json"))
            if not candidatos:
                raise FileNotFoundError(
                    f"En la carpeta {str(ruta)!r} no hay trainer_state.json ni subcarpetas checkpoint-N que lo tengan."
                )
            ruta = max(candidatos)[1]
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
) -> Curvas:
    """Convierte cualquier entrada aceptada en :class:`Curvas`.

    ``fuente`` puede ser: un ``log_history`` (lista de dicts), el contenido de
    un ``trainer_state.json`` (dict con ``log_history``), un dict
    ``{"entrenamiento": [...], "validacion": [...], "pasos": [...]}``, una lista
    de pérdidas, una ruta (archivo o carpeta) o unas :class:`Curvas`. También
    puedes pasar las listas por nombre. Se usa en lessons/09_curvas_de_entrenamiento.
    """
    if fuente is None:
        if entrenamiento is None:
            raise ValueError(
                "No hay datos: pasa un log_history, una ruta a trainer_state.json o la lista entrenamiento=[...]."
            )
        return curvas_desde_listas(entrenamiento, validacion, pasos, pasos_validacion)
    if entrenamiento is not None:
        raise ValueError("Pasa la fuente o la lista entrenamiento=..., no las dos a la vez.")
    if isinstance(fuente, Curvas):
        return fuente
    if isinstance(fuente, (str, os.PathLike)):
        return leer_curvas(cargar_log_history(fuente))
    if isinstance(fuente, dict):
        if "log_history" in fuente:
            return curvas_desde_log_history(fuente["log_history"])
        if "entrenamiento" in fuente:
            return curvas_desde_listas(
                fuente["entrenamiento"],
                fuente.get("validacion"),
                fuente.get("pasos"),
                fuente.get("pasos_validacion"),
            )
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
            return curvas_desde_log_history(lista)
        return curvas_desde_listas(lista, validacion, pasos, pasos_validacion)
    raise TypeError(
        "No sé leer curvas de un objeto de tipo "
        f"{type(fuente).__name__}: usa un log_history, una ruta o una lista de pérdidas."
    )


# --------------------------------------------------------------------------- utilidades numéricas

def _mediana_movil(y: np.ndarray, ventana: int) -> np.ndarray:
    mitad = ventana // 2
    return np.array([np.median(y[max(0, i - mitad): i + mitad + 1]) for i in range(len(y))])


def _fmt(x: float) -> str:
    """Número corto y legible: 3 cifras significativas (0.381, 12.4, 1.2e+04)."""
    if x is None:
        return "—"
    if not math.isfinite(x):
        return "NaN" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    if x == 0:
        return "0"
    if 1e-3 <= abs(x) < 1e4:
        return f"{x:.3g}"
    return f"{x:.2e}"


def _fmt_pct(fraccion: float) -> str:
    return porcentaje(fraccion, 0)


def _paso_entero(x: float | None):
    if x is None:
        return None
    return int(x) if float(x).is_integer() else float(x)


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


def _fmt_paso(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.3g}"


def _fmt_epoca(e: float) -> str:
    return str(int(round(e))) if abs(e - round(e)) < 0.05 else f"{e:.1f}"


# --------------------------------------------------------------------------- remedios

REMEDIOS = {
    "sano": [
        "Guarda el modelo del mejor paso de validación y evalúalo en el conjunto de prueba.",
        "Si la validación aún bajaba al final, puedes entrenar algunos pasos más.",
        "Conserva esta configuración como referencia antes de probar cambios.",
    ],
    "sobreajuste": [
        "Quédate con el checkpoint del mejor paso: load_best_model_at_end=True, "
        "metric_for_best_model='eval_loss' y save_strategy igual a eval_strategy.",
        "Para a tiempo con EarlyStoppingCallback(early_stopping_patience=2 o 3).",
        "Entrena menos épocas o con una tasa de aprendizaje menor.",
        "Regulariza: más weight_decay (0.01–0.1), dropout, o entrena menos parámetros (LoRA).",
        "Consigue más datos o aumenta los que tienes, y revisa si hay etiquetas con ruido.",
    ],
    "subajuste": [
        "Sube la tasa de aprendizaje (prueba ×3 y ×10) o revisa que el scheduler no la deje en casi cero.",
        "Entrena más pasos o épocas: la pérdida todavía no se aplanó.",
        "Usa un modelo con más capacidad o descongela más capas.",
        "Baja el weight_decay si es grande, y comprueba que las etiquetas correspondan a las entradas.",
    ],
    "inestable": [
        "Baja la tasa de aprendizaje (÷3 a ÷10).",
        "Usa un warmup más largo (warmup_steps=0.05–0.1 del total) para no llegar de golpe al pico de lr.",
        "Activa el recorte de gradiente: max_grad_norm=1.0.",
        "Usa un lote más grande o gradient_accumulation_steps para reducir el ruido del gradiente.",
        "En un bucle manual, comprueba que llamas a optimizer.zero_grad() en cada paso.",
    ],
    "divergencia": [
        "Baja mucho la tasa de aprendizaje (÷10) y añade warmup.",
        "Activa el recorte de gradiente: max_grad_norm=1.0.",
        "En un bucle manual, comprueba que llamas a optimizer.zero_grad() en cada paso: "
        "si falta, los gradientes se acumulan y la pérdida acaba subiendo.",
        "Busca NaN o valores enormes en los datos de entrada y en las etiquetas.",
        "Con fp16, prueba bf16 (si tu GPU lo soporta) o fp32.",
    ],
    "indeterminado": [
        "Registra más puntos: baja logging_steps (por defecto es 500, demasiado para un conjunto pequeño).",
        "Activa la evaluación: eval_strategy='steps' con eval_steps, o 'epoch'.",
        "Entrena más pasos antes de sacar conclusiones.",
    ],
}


# --------------------------------------------------------------------------- diagnóstico

def _contraer(texto: str) -> str:
    """«de el paso» → «del paso», «a el paso» → «al paso»."""
    return re.sub(r"\b([Dd]e|[Aa]) el\b", lambda m: m.group(1) + "l", texto)


def _resultado(categoria, explicacion, evidencia, mejor_paso, remedios_extra=()):
    remedios = list(remedios_extra) + list(REMEDIOS[categoria])
    return Diagnostico(categoria, _contraer(explicacion), remedios, mejor_paso, evidencia)


def diagnosticar(
    fuente: Any = None,
    *,
    entrenamiento: Any = None,
    validacion: Any = None,
    pasos: Any = None,
    pasos_validacion: Any = None,
) -> Diagnostico:
    """Diagnostica una curva de entrenamiento: sano, sobreajuste, subajuste, inestable, divergencia o indeterminado.

    Acepta lo mismo que :func:`leer_curvas` (``log_history``, ruta a
    ``trainer_state.json`` o carpeta, o listas). La explicación cita los
    números de ESTA curva; ``evidencia`` guarda todos los números usados y
    ``mejor_paso`` es el paso con la menor pérdida de validación (o ``None``).
    Se usa en lessons/09_curvas_de_entrenamiento.
    """
    curvas = leer_curvas(
        fuente, entrenamiento=entrenamiento, validacion=validacion, pasos=pasos, pasos_validacion=pasos_validacion
    )
    return _diagnosticar_curvas(curvas)


def _diagnosticar_curvas(c: Curvas) -> Diagnostico:
    with np.errstate(all="ignore"):
        return _reglas(c)


def _reglas(c: Curvas) -> Diagnostico:
    ctx = _Contexto(c)
    x = np.asarray(c.pasos_entrenamiento, dtype=float)
    y = np.asarray(c.entrenamiento, dtype=float)
    xv = np.asarray(c.pasos_validacion, dtype=float)
    yv = np.asarray(c.validacion, dtype=float)
    for nombre, serie, pasos_ in (("entrenamiento", y, x), ("validación", yv, xv)):
        negativos = np.flatnonzero(np.isfinite(serie) & (serie < 0))
        if len(negativos):
            i = negativos[0]
            raise ValueError(
                f"La pérdida de {nombre} es negativa ({_fmt(serie[i])} en {ctx.donde(pasos_[i])}): "
                "estas reglas comparan cocientes y necesitan pérdidas ≥ 0 (entropía cruzada, MSE...)."
            )

    evidencia: dict[str, Any] = {
        "n_puntos_entrenamiento": int(len(y)),
        "n_puntos_validacion": int(len(yv)),
    }

    # --- la trampa de logging_nan_inf_filter: loss=0.0 con grad_norm NaN es un NaN disfrazado
    y, disfrazados = _desenmascarar_ceros(c)
    if disfrazados.any():
        evidencia["ceros_con_grad_norm_nan"] = int(disfrazados.sum())

    finitos_v = np.isfinite(yv)
    mejor_paso = None
    if finitos_v.any():
        iv = int(np.argmin(np.where(finitos_v, yv, np.inf)))
        mejor_paso = _paso_entero(xv[iv])
        evidencia["validacion_minima"] = float(yv[iv])
        evidencia["paso_validacion_minima"] = mejor_paso

    # --- 1. divergencia por NaN/inf al final
    no_finitos = ~np.isfinite(y)
    evidencia["puntos_no_finitos"] = int(no_finitos.sum())
    if len(y) and no_finitos[-1]:
        j = len(y) - 1
        while j > 0 and no_finitos[j - 1]:
            j -= 1
        primero = x[j]
        previo = y[:j][np.isfinite(y[:j])]
        evidencia["paso_no_finito"] = _paso_entero(primero)
        evidencia["region_problema"] = [float(primero), float(x[-1])]
        texto = (
            f"A partir de {ctx.donde(primero)} la pérdida de entrenamiento deja de ser un número "
            f"({'NaN disfrazado de 0.0: el Trainer con logging_nan_inf_filter=True registra 0.0 cuando la pérdida es NaN, y grad_norm es NaN' if disfrazados[j:].any() else 'NaN o infinito'}) "
            f"y ya no se recupera ({len(y) - j} de {len(y)} registros)."
        )
        if len(previo):
            texto += (
                f" Antes de eso pasó de {_fmt(previo[0])} a {_fmt(previo[-1])}"
                + (f", con un máximo de {_fmt(previo.max())}" if previo.max() > 3 * previo[0] else "")
                + "."
            )
        return _resultado("divergencia", texto, evidencia, mejor_paso)
    if len(yv) and not np.isfinite(yv[-1]):
        j = len(yv) - 1
        while j > 0 and not np.isfinite(yv[j - 1]):
            j -= 1
        evidencia["paso_no_finito"] = _paso_entero(xv[j])
        evidencia["region_problema"] = [float(xv[j]), float(max(xv[-1], x[-1] if len(x) else xv[-1]))]
        texto = (
            f"La pérdida de validación es NaN o infinita desde {ctx.donde(xv[j])} hasta el final: "
            "el modelo produjo valores no numéricos, señal de que los pesos se desbordaron."
        )
        return _resultado("divergencia", texto, evidencia, mejor_paso)

    # --- limpieza: fuera los no finitos sueltos (en medio de la curva)
    xf, yf = x[~no_finitos], y[~no_finitos]
    n = len(yf)
    if n < MIN_PUNTOS_ENTRENAMIENTO:
        if n == 0 and len(yv) == 0:
            texto = "No hay ningún valor de pérdida de entrenamiento registrado"
            if c.resumen_perdida is not None:
                texto += f" (solo el resumen final, train_loss = {_fmt(c.resumen_perdida)})"
            texto += ": la corrida fue más corta que logging_steps o no registró nada."
        else:
            texto = (
                f"Solo hay {n} punto{'s' if n != 1 else ''} de pérdida de entrenamiento "
                f"y {int(finitos_v.sum())} de validación; con menos de {MIN_PUNTOS_ENTRENAMIENTO} "
                "puntos no se puede distinguir una tendencia del ruido."
            )
        return _resultado("indeterminado", texto, evidencia, mejor_paso)

    # --- rasgos del entrenamiento (todo relativo a la pérdida inicial)
    k = _puntos_extremos(n)
    escala = float(np.max(yf))
    if escala <= 0:
        texto = (
            f"La pérdida de entrenamiento vale 0 en los {n} puntos: no hay nada que comparar "
            "(¿la pérdida se está calculando?)."
        )
        return _resultado("indeterminado", texto, evidencia, mejor_paso)
    y_n = yf / escala  # todo en [0, 1]: sin desbordes con valores enormes; las reglas son cocientes
    # nivel inicial (escala de todas las reglas): la mediana de los primeros puntos,
    # salvo que la curva ya esté subiendo desde el primer registro (una explosión
    # temprana): entonces el primero
    ini_n = min(float(y_n[0]), float(np.median(y_n[:k])))
    fin_n = float(np.median(y_n[-k:]))
    inicial, final = ini_n * escala, fin_n * escala
    if ini_n <= 1e-12:
        texto = (
            f"La pérdida de entrenamiento empieza en {_fmt(inicial)} y luego sube hasta {_fmt(escala)}: "
            "sin una pérdida inicial positiva no hay con qué comparar (¿la pérdida se está calculando bien?)."
        )
        return _resultado("indeterminado", texto, evidencia, mejor_paso)
    suave = _mediana_movil(y_n, VENTANA_SUAVIZADO)
    minimo_n = float(suave.min())
    i_min = int(np.argmin(suave))
    minimo_acumulado = np.minimum.accumulate(suave)
    rebotes = (suave - minimo_acumulado) / ini_n
    i_rebote = int(np.argmax(rebotes))
    rebote = float(rebotes[i_rebote])
    residuos = np.abs(y_n - suave) / ini_n
    ruido = float(np.median(residuos))
    caida = (ini_n - fin_n) / ini_n
    tercio_final = float(np.median(y_n[-max(2, n // 3):]))
    ancho = max(3, int(n * FRACCION_TRAMO_MEJOR))
    medianas_tramos = [float(np.median(y_n[i: i + ancho])) for i in range(0, n - ancho + 1)]
    i_mejor = int(np.argmin(medianas_tramos))
    mejor_tramo = medianas_tramos[i_mejor]
    # «se queda arriba»: cuenta lo más bajo entre la mediana del último tercio y la de los últimos puntos
    nivel_final_alto = min(tercio_final, fin_n)
    subida_final = (nivel_final_alto - mejor_tramo) / ini_n
    tramo = xf >= xf[0] + (1 - FRACCION_TRAMO_FINAL) * (xf[-1] - xf[0])
    pendiente_relativa = _pendiente_relativa(xf, suave, tramo)
    evidencia.update(
        perdida_inicial=inicial,
        perdida_final=final,
        perdida_minima_entrenamiento=minimo_n * escala,
        paso_minimo_entrenamiento=_paso_entero(xf[i_min]),
        caida_relativa=caida,
        subida_desde_mejor_tramo=subida_final,
        mediana_ultimo_tercio=tercio_final * escala,
        mediana_mejor_tramo=mejor_tramo * escala,
        rebote_maximo=rebote,
        paso_rebote=_paso_entero(xf[i_rebote]),
        ruido_relativo=ruido,
        pendiente_final_relativa=pendiente_relativa,
    )
    notas = ""
    if no_finitos.any():
        notas = (
            f" Hubo {int(no_finitos.sum())} registro{'s' if no_finitos.sum() > 1 else ''} NaN/inf sueltos "
            "que se ignoraron porque la curva siguió después."
        )

    # --- 2. divergencia por tendencia: termina peor que empezó, o sube y se queda arriba
    # «peor que al empezar» se compara con el primer registro, como lo leerías tú
    peor_que_inicio = nivel_final_alto > FACTOR_PEOR_QUE_INICIO * float(y_n[0])
    subida_sostenida = subida_final > SUBIDA_SOSTENIDA
    explosion = rebote > REBOTE_EXPLOSION and caida < CAIDA_TRAS_EXPLOSION
    if explosion and not (peor_que_inicio or subida_sostenida):
        i0 = int(np.argmin(suave[: i_rebote + 1]))
        evidencia["region_problema"] = [float(xf[i0]), float(xf[-1])]
        texto = (
            f"La pérdida de entrenamiento explotó: de {_fmt(suave[i0] * escala)} en {ctx.donde(xf[i0])} "
            f"subió hasta {_fmt(float(np.max(yf)))} y, aunque luego bajó, terminó en {_fmt(final)}, "
            f"no mejor que al empezar ({_fmt(inicial)}): lo aprendido se perdió."
        )
        return _resultado("divergencia", texto + notas, evidencia, mejor_paso)
    if peor_que_inicio or subida_sostenida:
        x_mejor = float(xf[i_mejor + ancho // 2])
        x_tercio = float(xf[-max(2, n // 3)])
        evidencia["region_problema"] = [x_mejor, float(xf[-1])]
        texto = (
            f"La pérdida de entrenamiento llegó a su mejor tramo, con una mediana de {_fmt(mejor_tramo * escala)}, "
            f"hacia {ctx.donde(x_mejor)}; luego subió y se quedó arriba: desde {ctx.donde(x_tercio)} hasta el "
            f"final su mediana es {_fmt(tercio_final * escala)}, "
        )
        if peor_que_inicio:
            texto += f"por encima de su primer registro ({_fmt(float(yf[0]))})."
        elif mejor_tramo > 0:
            texto += f"{tercio_final / mejor_tramo:.1f} veces su mejor tramo."
        else:
            texto += "muy por encima de su mejor tramo."
        texto += " El entrenamiento está divergiendo."
        if float(np.max(yf)) > 10 * inicial:
            texto += f" Llegó a valer {_fmt(float(np.max(yf)))}."
        return _resultado("divergencia", texto + notas, evidencia, mejor_paso)

    # --- 3. inestable: ruido grande, picos que no son tendencia, o validación a saltos
    xvf, yvf = xv[finitos_v], yv[finitos_v]
    m = len(yvf)
    rugosidad_val = _rugosidad(yvf)
    evidencia["rugosidad_validacion"] = rugosidad_val
    hay_validacion_para_ruido = m >= MIN_EVALUACIONES_RUGOSIDAD
    ruido_cuenta = ruido > RUIDO_ALTO or (ruido > RUIDO_MAXIMO and not hay_validacion_para_ruido)
    evidencia["ruido_de_lotes"] = bool(ruido > RUIDO_MAXIMO and not ruido_cuenta)
    if ruido_cuenta or rebote > REBOTE_MAXIMO or rugosidad_val > RUGOSIDAD_VALIDACION_MAXIMA:
        if rebote > REBOTE_MAXIMO:
            i0 = int(np.argmin(suave[: i_rebote + 1]))
            desde, hasta = float(xf[i0]), float(xf[i_rebote])
            j = i_rebote
            while j + 1 < n and suave[j + 1] > minimo_acumulado[i_rebote]:
                j += 1
            evidencia["region_problema"] = [desde, float(xf[j])]
            pico = float(yf[i0: j + 1].max())
            texto = (
                f"La pérdida de entrenamiento (suavizada con una mediana de {VENTANA_SUAVIZADO} puntos) volvió "
                f"a subir de {_fmt(suave[i0] * escala)} en {ctx.donde(desde)} a {_fmt(suave[i_rebote] * escala)} "
                f"en {ctx.donde(hasta)}, un salto del {_fmt_pct(rebote)} de la pérdida inicial "
                f"({_fmt(inicial)}); el punto más alto de ese tramo fue {_fmt(pico)}."
            )
        elif ruido_cuenta:
            evidencia["region_problema"] = [float(xf[0]), float(xf[-1])]
            texto = (
                f"La pérdida de entrenamiento oscila mucho: se aparta de su tendencia un "
                f"{_fmt_pct(ruido)} de la pérdida inicial ({_fmt(inicial)}) en un punto típico, "
                f"y va de {_fmt(float(yf.min()))} a {_fmt(float(yf.max()))}."
            )
        else:
            evidencia["region_problema"] = [float(min(xvf[0], xf[0])), float(max(xvf[-1], xf[-1]))]
            texto = (
                f"La pérdida de validación va a saltos: se mide siempre con los mismos ejemplos, así que el "
                f"ruido de los lotes no la afecta, y aun así cada evaluación se aparta de sus vecinas un "
                f"{_fmt_pct(rugosidad_val)} de su valor inicial ({_fmt(float(np.median(yvf[:2])))}) de media; "
                f"va de {_fmt(float(yvf.min()))} a {_fmt(float(yvf.max()))}. Es el modelo el que salta de un "
                "lado a otro, no la medida."
            )
        if ruido_cuenta and rebote > REBOTE_MAXIMO:
            texto += f" Además el ruido típico es del {_fmt_pct(ruido)} de la pérdida inicial."
        texto += f" De principio a fin pasó de {_fmt(inicial)} a {_fmt(final)}."
        return _resultado("inestable", texto + notas, evidencia, mejor_paso)
    if evidencia["ruido_de_lotes"]:
        notas += (
            f" La pérdida de entrenamiento es ruidosa (se aparta de su tendencia un {_fmt_pct(ruido)} de la "
            "inicial), pero la de validación es suave: ese ruido viene de los lotes, no de un modelo inestable."
        )

    # --- 4. sobreajuste (necesita validación suficiente)
    if m >= MIN_EVALUACIONES:
        kv = max(1, min(_puntos_extremos(m), m // 3))
        val_final = float(np.median(yvf[-kv:]))
        j_min = int(np.argmin(yvf))
        val_min = float(yvf[j_min])
        subida_val = (val_final - val_min) / val_min if val_min > 0 else (math.inf if val_final > 0 else 0.0)
        entren_en_min = float(np.interp(xvf[j_min], xf, suave * escala))
        sigue_bajando = final < entren_en_min
        tercio = xvf >= xvf[0] + (2 / 3) * (xvf[-1] - xvf[0])
        sin_mejora_final = (
            tercio.any() and (~tercio).any() and yvf[tercio].min() >= yvf[~tercio].min() * 0.98
        )
        brecha_rel = (val_final - final) / inicial
        evidencia.update(
            validacion_final=val_final,
            subida_validacion=subida_val,
            brecha_relativa=brecha_rel,
            entrenamiento_en_mejor_paso=entren_en_min,
        )
        if subida_val > SUBIDA_VALIDACION and j_min < m - kv and sigue_bajando:
            evidencia["region_problema"] = [float(xvf[j_min]), float(max(xvf[-1], xf[-1]))]
            texto = (
                f"La pérdida de validación tocó su mínimo, {_fmt(val_min)}, en {ctx.donde(xvf[j_min])} "
                f"y subió a {_fmt(val_final)} (+{_fmt_pct(subida_val)}) mientras la de entrenamiento "
                f"seguía bajando, de {_fmt(entren_en_min)} a {_fmt(final)}: el modelo memoriza los datos "
                "de entrenamiento en vez de generalizar."
            )
            return _resultado("sobreajuste", texto + notas, evidencia, mejor_paso)
        if (
            sin_mejora_final
            and final < COCIENTE_BRECHA * val_final
            and brecha_rel > BRECHA_MINIMA
            and caida > CAIDA_MINIMA
        ):
            evidencia["region_problema"] = [float(xvf[j_min]), float(max(xvf[-1], xf[-1]))]
            texto = (
                f"La pérdida de entrenamiento bajó de {_fmt(inicial)} a {_fmt(final)}, pero la de validación "
                f"se estancó: su mínimo fue {_fmt(val_min)} en {ctx.donde(xvf[j_min])} y terminó en "
                f"{_fmt(val_final)}, {val_final / final:.0f} veces la de entrenamiento. Esa brecha "
                "dice que el modelo memoriza en vez de generalizar."
                if final > 0
                else f"La pérdida de entrenamiento llegó a 0 mientras la de validación se quedó en {_fmt(val_final)}."
            )
            return _resultado("sobreajuste", texto + notas, evidencia, mejor_paso)

    # --- 5. subajuste: casi no bajó, o sigue bajando en línea recta
    if caida < CAIDA_MINIMA:
        evidencia["region_problema"] = [float(xf[0]), float(xf[-1])]
        texto = (
            f"La pérdida de entrenamiento apenas bajó: de {_fmt(inicial)} a {_fmt(final)} ("
            + (f"solo un {_fmt_pct(caida)} menos" if caida >= 0.005 else "prácticamente nada")
            + f") en {_fmt_paso(xf[-1] - xf[0])} {'pasos' if c.eje == 'paso' else c.eje + 's'}."
        )
        if m >= 1:
            texto += f" La de validación terminó en {_fmt(float(yvf[-1]))}."
        texto += " El modelo no está aprendiendo lo suficiente."
        return _resultado("subajuste", texto + notas, evidencia, mejor_paso)
    if pendiente_relativa > PENDIENTE_FINAL_MAXIMA and caida < CAIDA_SUFICIENTE:
        x_tramo = float(xf[tramo][0])
        evidencia["region_problema"] = [x_tramo, float(xf[-1])]
        texto = (
            f"La pérdida de entrenamiento bajó de {_fmt(inicial)} a {_fmt(final)} y en el último tramo, "
            f"desde {ctx.donde(x_tramo)}, sigue bajando al {_fmt_pct(pendiente_relativa)} de su ritmo medio: "
            "todavía no se aplanó, el modelo necesita más entrenamiento o una tasa de aprendizaje mayor."
        )
        return _resultado("subajuste", texto + notas, evidencia, mejor_paso)

    # --- 6. sano, si la validación alcanza para descartar el sobreajuste
    if m >= MIN_EVALUACIONES:
        texto = (
            f"La pérdida de entrenamiento bajó de {_fmt(inicial)} a {_fmt(final)} "
            f"({_fmt_pct(caida)} menos) sin picos ni subidas, y la de validación acompañó: su mínimo fue "
            f"{_fmt(evidencia['validacion_minima'])} en {ctx.donde(xvf[int(np.argmin(yvf))])} y terminó en "
            f"{_fmt(evidencia['validacion_final'])}."
        )
        return _resultado("sano", texto + notas, evidencia, mejor_paso)
    texto = (
        f"La pérdida de entrenamiento bajó de {_fmt(inicial)} a {_fmt(final)} sin problemas visibles, pero "
        + (
            "no hay ninguna evaluación"
            if m == 0
            else f"solo hay {m} evaluación{'es' if m != 1 else ''} de validación"
        )
        + f" (hacen falta al menos {MIN_EVALUACIONES}): sin la curva de validación no se puede "
        "descartar el sobreajuste."
    )
    return _resultado("indeterminado", texto + notas, evidencia, mejor_paso)


def _puntos_extremos(n: int) -> int:
    return int(min(PUNTOS_EXTREMOS_MAX, max(PUNTOS_EXTREMOS_MIN, round(n * FRACCION_EXTREMOS))))


def _desenmascarar_ceros(c: Curvas) -> tuple[np.ndarray, np.ndarray]:
    """Devuelve la pérdida de entrenamiento con los «0.0 disfrazados» cambiados a NaN.

    Con ``logging_nan_inf_filter=True`` (el valor por defecto) el Trainer no
    registra NaN: suma 0 y escribe ``loss = 0.0``, pero ``grad_norm`` sí queda
    NaN/inf. Una pérdida exactamente 0 con ``grad_norm`` no finito es un NaN.
    """
    y = np.asarray(c.entrenamiento, dtype=float)
    disfrazados = np.zeros(len(y), dtype=bool)
    if len(c.normas_gradiente) == len(y):
        grad_no_finita = np.asarray(
            [g is not None and not math.isfinite(g) for g in c.normas_gradiente], dtype=bool
        )
        disfrazados = (y == 0) & grad_no_finita
    return np.where(disfrazados, np.nan, y), disfrazados


def _rugosidad(v: np.ndarray) -> float:
    """Cuánto se aparta cada evaluación interior de la mediana con sus dos vecinas, relativo al inicio.

    Una curva monótona da 0 (la mediana de tres puntos seguidos es el del
    medio); una que sube y baja a saltos da mucho. Con menos de
    ``MIN_EVALUACIONES_RUGOSIDAD`` evaluaciones devuelve 0.
    """
    if len(v) < MIN_EVALUACIONES_RUGOSIDAD:
        return 0.0
    escala = float(np.max(v))
    if escala <= 0:
        return 0.0
    vn = v / escala
    inicial = float(np.median(vn[:2]))
    if inicial <= 1e-12:
        return 0.0
    medianas = np.array([np.median(vn[i - 1: i + 2]) for i in range(1, len(vn) - 1)])
    return float(np.mean(np.abs(vn[1:-1] - medianas)) / inicial)


def _pendiente_relativa(x: np.ndarray, suave: np.ndarray, tramo: np.ndarray) -> float:
    """Ritmo de bajada en el tramo final dividido por el ritmo medio de toda la curva."""
    if tramo.sum() < 3 or x[-1] == x[0]:
        return 0.0
    ritmo_medio = (suave[0] - suave[-1]) / (x[-1] - x[0])
    if ritmo_medio <= 0:
        return 0.0
    pendiente = np.polyfit(x[tramo], suave[tramo], 1)[0]
    return float(-pendiente / ritmo_medio)


# --------------------------------------------------------------------------- gráfica

#: Paleta de Okabe e Ito, segura para daltonismo.
COLORES = {
    "entrenamiento": "#0072B2",
    "validacion": "#E69F00",
    "minimo": "#009E73",
    "region": "#CC79A7",
    "no_finito": "#D55E00",
}


def graficar(
    fuente: Any = None,
    *,
    entrenamiento: Any = None,
    validacion: Any = None,
    pasos: Any = None,
    pasos_validacion: Any = None,
    diagnostico: Diagnostico | None = None,
    ax: Any = None,
    con_veredicto: bool = True,
):
    """Dibuja las curvas de entrenamiento y validación con el diagnóstico en el título.

    Marca el mínimo de validación, sombrea la zona del problema y marca los
    NaN/inf. Devuelve la ``matplotlib.figure.Figure``. Colores de Okabe-Ito
    (seguros para daltonismo) y además estilos de línea distintos. Con
    ``con_veredicto=False`` dibuja solo los datos (sin zona ni veredicto), para
    que practiques el diagnóstico a ojo antes de ver la respuesta.
    Se usa en lessons/09_curvas_de_entrenamiento.
    """
    from matplotlib.figure import Figure

    curvas = leer_curvas(
        fuente, entrenamiento=entrenamiento, validacion=validacion, pasos=pasos, pasos_validacion=pasos_validacion
    )
    if diagnostico is None:
        diagnostico = _diagnosticar_curvas(curvas)
    if ax is None:
        fig = Figure(figsize=(8, 4.5), layout="constrained")
        ax = fig.add_subplot()
    else:
        fig = ax.figure

    x = np.asarray(curvas.pasos_entrenamiento, dtype=float)
    y, _ = _desenmascarar_ceros(curvas)
    xv = np.asarray(curvas.pasos_validacion, dtype=float)
    yv = np.asarray(curvas.validacion, dtype=float)
    fin_t, fin_v = np.isfinite(y), np.isfinite(yv)
    positivos = np.concatenate([y[fin_t], yv[fin_v]])
    positivos = positivos[positivos > 0]
    if len(x):
        ax.plot(x[fin_t], y[fin_t], "-", color=COLORES["entrenamiento"], lw=1.6, label="entrenamiento")
    if len(xv):
        ax.plot(xv[fin_v], yv[fin_v], "--o", color=COLORES["validacion"], lw=1.6, ms=4, label="validación")
    if len(positivos) and positivos.max() > 100 * positivos.min():
        ax.set_yscale("log")
    region = diagnostico.evidencia.get("region_problema") if con_veredicto else None
    if region:
        ax.axvspan(region[0], region[1], color=COLORES["region"], alpha=0.18, lw=0, label="zona del problema")
    if diagnostico.mejor_paso is not None:
        v = diagnostico.evidencia["validacion_minima"]
        ax.plot([diagnostico.mejor_paso], [v], marker="*", ms=14, ls="none", color=COLORES["minimo"],
                markeredgecolor="black", label=f"mínimo de validación ({_fmt(v)})")
    malos = np.concatenate([x[~fin_t], xv[~fin_v]])
    if len(malos):
        # los NaN/inf no tienen altura: se marcan con una x arriba del todo
        ax.plot(malos, np.full(len(malos), 0.97), "x", color=COLORES["no_finito"], ms=6,
                transform=ax.get_xaxis_transform(), clip_on=False, label="NaN / inf")
    primero = diagnostico.evidencia.get("paso_no_finito") if con_veredicto else None
    if primero is not None:
        ax.axvline(primero, color=COLORES["no_finito"], ls=":", lw=1.5, label="la pérdida deja de ser un número")
    if con_veredicto and diagnostico.categoria == "subajuste" and ax.get_yscale() == "linear":
        ax.set_ylim(bottom=0)  # con el eje desde 0 se ve lo poco que bajó
    eje = {"paso": "Paso de entrenamiento", "época": "Época", "registro": "Registro (orden en el log)"}[curvas.eje]
    ax.set_xlabel(eje)
    ax.set_ylabel("Pérdida (escala log)" if ax.get_yscale() == "log" else "Pérdida")
    if con_veredicto:
        ax.set_title(f"Diagnóstico: {diagnostico.categoria}" + (
            f" · mejor paso {diagnostico.mejor_paso}" if diagnostico.mejor_paso is not None else ""))
    else:
        ax.set_title("Curvas de pérdida (¿qué diagnóstico les darías?)")
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="best")
    return fig
