"""Qué estadístico es cada cifra que citan el diagnóstico y sus explicaciones (``tutor diagnosticar --json``)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from tutor_lib.curvas.formato import _fmt, _mediana_movil
from tutor_lib.curvas.lectura import Curvas, _Contexto
from tutor_lib.curvas.reglas import _desenmascarar_ceros, _puntos_extremos, _ventana


# --------------------------------------------------------------------------- qué estadístico es cada cifra

@dataclass(frozen=True)
class Medida:
    """Una cifra y qué estadístico es: ``corta`` sin artículo («mediana de los 4 primeros registros»),
    ``larga`` como frase completa («la mediana de los 4 primeros registros de entrenamiento»).

    Ambas son ``None`` si no se pudo comprobar qué estadístico es: entonces nadie lo afirma.
    """

    valor: float
    corta: str | None = None
    larga: str | None = None
    #: La ventana de la mediana móvil, en las cifras de la curva suavizada.
    ventana: int | None = None


def _igual(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _extremo(valor: float, serie: np.ndarray, lado: str, ks: list[int], femenino: bool) -> int | None:
    """El ``k`` de ``ks`` para el que ``valor`` es la mediana de los ``k`` primeros (o últimos) de ``serie``."""
    for k in ks:
        if 1 <= k <= len(serie):
            tramo = serie[:k] if lado == "primeros" else serie[-k:]
            if _igual(float(np.median(tramo)), valor):
                return k
    return None


def _frase_extremo(valor: float, k: int | None, lado: str, serie: str, singular: str, plural: str,
                   femenino: bool) -> Medida:
    """La :class:`Medida` de «la mediana de los k primeros registros» (o «el primer registro» si k = 1)."""
    if k is None:
        return Medida(valor)
    if k == 1:
        adjetivo = {("primeros", False): "primer", ("primeros", True): "primera",
                    ("últimos", False): "último", ("últimos", True): "última"}[lado, femenino]
        corta = f"{adjetivo} {singular}"
        return Medida(valor, corta, f"{'la' if femenino else 'el'} {corta}{serie}")
    lado_g = lado[:-2] + "as" if femenino else lado
    corta = f"mediana de {'las' if femenino else 'los'} {k} {lado_g} {plural}"
    return Medida(valor, corta, f"la {corta}{serie}")


def medidas(curvas: Curvas, evidencia: dict) -> dict[str, Medida]:
    """Qué estadístico es cada cifra de la curva que citan el diagnóstico y sus cifras.

    Devuelve ``{nombre: Medida}``. Los nombres son los de ``evidencia``
    (``perdida_inicial``, ``perdida_final``, ``perdida_minima_entrenamiento``,
    ``entrenamiento_en_mejor_paso``, ``validacion_final``) y además
    ``primer_registro`` y ``ultimo_registro`` de entrenamiento (los extremos
    de la curva tal como la dibuja la gráfica) y ``ultima_validacion``. Cada
    descripción se comprueba recalculando el número con los datos; si no
    coincide (porque las reglas cambiaron), la :class:`Medida` queda sin
    descripción y nadie la afirma.
    """
    y, _ = _desenmascarar_ceros(curvas)
    finitos = np.isfinite(y)
    x = np.asarray(curvas.pasos_entrenamiento, dtype=float)[finitos]
    y = y[finitos]
    salida: dict[str, Medida] = {}
    if not len(y):
        return salida
    n = len(y)
    donde = _Contexto(curvas).donde
    finito = "" if finitos.all() else " con valor"
    for nombre, i, adjetivo in (("primer_registro", 0, "primer"), ("ultimo_registro", -1, "último")):
        salida[nombre] = Medida(float(y[i]), f"{adjetivo} registro{finito}",
                                f"el {adjetivo} registro de entrenamiento{finito}, en {donde(x[i])}")
    ks = [_puntos_extremos(n)]  # los tamaños de ventana que usan las reglas
    for nombre, lado in (("perdida_inicial", "primeros"), ("perdida_final", "últimos")):
        if nombre in evidencia:
            valor = float(evidencia[nombre])
            # la inicial es la mediana de los primeros k, salvo que el primer registro sea menor: se prueban ambos
            k = _extremo(valor, y, lado, [*ks, 1], femenino=False)
            salida[nombre] = _frase_extremo(valor, k, lado, " de entrenamiento", "registro", "registros", False)
    ventanas = [_ventana(n)]
    suaves: dict[int, np.ndarray] = {}  # la mediana móvil de una curva larga cuesta: una vez por ventana
    for nombre, en in (("perdida_minima_entrenamiento", None),
                       ("entrenamiento_en_mejor_paso", evidencia.get("paso_validacion_minima"))):
        if nombre not in evidencia:
            continue
        valor = float(evidencia[nombre])
        salida[nombre] = Medida(valor)
        for w in ventanas:
            if w not in suaves:
                suaves[w] = _mediana_movil(y, w)
            suave = suaves[w]
            medido = float(suave.min()) if en is None else float(np.interp(float(en), x, suave))
            if _igual(medido, valor):
                curva = f"curva suavizada con una mediana móvil de {w} registros"
                if en is None:
                    salida[nombre] = Medida(valor, f"mínimo de la {curva}",
                                            f"el mínimo de la curva de entrenamiento suavizada con una mediana "
                                            f"móvil de {w} registros", w)
                else:
                    salida[nombre] = Medida(valor, f"{curva}, en {donde(en)}",
                                            f"la curva de entrenamiento suavizada con una mediana móvil de {w} "
                                            f"registros, en {donde(en)}", w)
                break
    yv = np.asarray(curvas.validacion, dtype=float)
    yv = yv[np.isfinite(yv)]
    if len(yv):
        salida["ultima_validacion"] = Medida(float(yv[-1]), "última evaluación",
                                             "la última evaluación de validación")
    if "validacion_final" in evidencia:
        valor, m = float(evidencia["validacion_final"]), len(yv)
        kv = [max(1, min(_puntos_extremos(m), m // 3))] if _puntos_extremos else list(range(1, 11))
        k = _extremo(valor, yv, "últimos", kv, femenino=True)
        salida["validacion_final"] = _frase_extremo(valor, k, "últimos", " de validación", "evaluación",
                                                    "evaluaciones", True)
    return salida


def _aparece(valor: float, texto: str) -> bool:
    """¿Está la cifra ``valor`` (escrita con :func:`_fmt`) en ``texto`` como número, no dentro de otro?"""
    return re.search(rf"(?<![\d.]){re.escape(_fmt(valor))}(?![\d])", texto) is not None


#: Las cifras que puede citar una explicación, en el orden en que se describen.
_CITABLES = ("perdida_inicial", "perdida_final", "validacion_final", "ultima_validacion",
             "entrenamiento_en_mejor_paso", "perdida_minima_entrenamiento")


def nota_de_cifras(curvas: Curvas, evidencia: dict, explicacion: str,
                   cifras: dict[str, Medida] | None = None) -> str:
    """Una frase que dice qué estadístico es cada cifra de la curva que cita ``explicacion``.

    La explicación compara niveles (medianas de varios registros, la curva
    suavizada), no puntos sueltos, mientras la gráfica dibuja cada registro: sin
    esta nota, «bajó de 7.06 a 4.49» parece contradecir una gráfica que empieza
    en 7.4. Una cifra escrita igual que otra ya descrita no se repite (salvo la
    inicial igual a la final, «de 1.42 a 1.42»). Devuelve ``""`` si la
    explicación no cita ninguna de esas cifras. ``cifras``, si ya las tienes
    de :func:`medidas`, evita recalcularlas.
    """
    if cifras is None:
        cifras = medidas(curvas, evidencia)
    partes: dict[str, str] = {}
    for nombre in _CITABLES:
        medida = cifras.get(nombre)
        if medida is None or not medida.larga or not _aparece(medida.valor, explicacion):
            continue
        escrita = _fmt(medida.valor)
        if escrita not in partes:
            partes[escrita] = f"{escrita} es {medida.larga}"
        elif nombre == "perdida_final" and _fmt(cifras.get("perdida_inicial", Medida(math.nan)).valor) == escrita:
            partes[escrita] += f", y también {medida.larga}"
    if not partes:
        return ""
    texto = "Cómo se midieron estas cifras: " + "; ".join(partes.values()) + "."
    if "primer_registro" in cifras:
        texto += (f" La gráfica dibuja cada registro: el primero vale {_fmt(cifras['primer_registro'].valor)} "
                  f"y el último {_fmt(cifras['ultimo_registro'].valor)}.")
    return texto
