"""Las reglas del diagnóstico, en el orden en que mirarías la curva (ver :mod:`tutor_lib.curvas`)."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from tutor_lib.curvas.formato import _fmt, _fmt_paso, _fmt_pct, _mediana_movil, _paso_entero
from tutor_lib.curvas.lectura import Curvas, Diagnostico, _Contexto, leer_curvas
from tutor_lib.curvas.umbrales import (
    MIN_PUNTOS_ENTRENAMIENTO,
    MIN_EVALUACIONES,
    VENTANA_SUAVIZADO,
    FRACCION_VENTANA,
    FRACCION_EXTREMOS,
    PUNTOS_EXTREMOS_MIN,
    PUNTOS_EXTREMOS_MAX,
    FACTOR_PEOR_QUE_INICIO,
    SUBIDA_SOSTENIDA,
    FRACCION_TRAMO_MEJOR,
    REBOTE_EXPLOSION,
    CAIDA_TRAS_EXPLOSION,
    RUIDO_MAXIMO,
    RUIDO_ALTO,
    PISO_REBOTE_LOCAL,
    REBOTE_LOCAL_MAXIMO,
    REBOTE_MAXIMO,
    RUGOSIDAD_VALIDACION_MAXIMA,
    MIN_EVALUACIONES_RUGOSIDAD,
    SUBIDA_VALIDACION,
    COCIENTE_BRECHA,
    BRECHA_MINIMA,
    CAIDA_MINIMA,
    PENDIENTE_FINAL_MAXIMA,
    FRACCION_TRAMO_FINAL,
    CAIDA_SUFICIENTE,
    EXPLOSION_SOBRE_AZAR,
    FRACCION_AZAR_FINAL,
    COCIENTE_BRECHA_EXTREMA,
    EPOCAS_PARA_MEMORIZAR,
)
from tutor_lib.formato import entero


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

def _veces(cociente: float) -> str:
    """Un cociente como lo lee una persona: «2.5», «38», «211 684» (miles como en course/GLOSARIO.md)."""
    if not math.isfinite(cociente):
        return "infinitas"
    if cociente < 10:
        return f"{cociente:.1f}"
    return entero(round(cociente))


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
    num_clases: int | None = None,
) -> Diagnostico:
    """Diagnostica una curva de entrenamiento: sano, sobreajuste, subajuste, inestable, divergencia o indeterminado.

    Acepta lo mismo que :func:`leer_curvas` (``log_history``, ruta a
    ``trainer_state.json`` o carpeta, o listas). La explicación cita los
    números de ESTA curva; ``evidencia`` guarda todos los números usados y
    ``mejor_paso`` es el paso con la menor pérdida de validación (o ``None``).
    Si se conoce el nivel del azar (``num_clases``, o el ``config.json`` de la
    corrida: ver :func:`nivel_de_azar`), las reglas lo usan para ver una
    corrida que explotó y quedó adivinando. Se usa en lessons/09_curvas_de_entrenamiento.
    """
    curvas = leer_curvas(
        fuente, entrenamiento=entrenamiento, validacion=validacion, pasos=pasos, pasos_validacion=pasos_validacion,
        num_clases=num_clases,
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
            f"y ya no se recupera ({len(y) - j} de {len(y)} registro{'s' if len(y) != 1 else ''})."
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
                f"y {int(finitos_v.sum())} de validación (evaluaciones); con menos de {MIN_PUNTOS_ENTRENAMIENTO} "
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
    ventana = _ventana(n)
    suave = _mediana_movil(y_n, ventana)
    minimo_n = float(suave.min())
    i_min = int(np.argmin(suave))
    minimo_acumulado = np.minimum.accumulate(suave)
    rebotes = (suave - minimo_acumulado) / ini_n
    i_rebote = int(np.argmax(rebotes))
    rebote = float(rebotes[i_rebote])
    # el mismo rebote, relativo al nivel al que había bajado la curva (con un piso): un pico tardío que
    # triplica una pérdida ya baja es pequeño frente a la inicial, pero es un pico
    locales = (suave - minimo_acumulado) / np.maximum(minimo_acumulado, PISO_REBOTE_LOCAL * ini_n)
    i_rebote_local = int(np.argmax(locales))
    rebote_local = float(locales[i_rebote_local])
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
        rebote_local=rebote_local,
        ruido_relativo=ruido,
        pendiente_final_relativa=pendiente_relativa,
    )
    notas = ""
    if no_finitos.any():
        notas = (
            f" Hubo {int(no_finitos.sum())} registro{'s' if no_finitos.sum() > 1 else ''} NaN/inf sueltos "
            "que se ignoraron porque la curva siguió después."
        )

    # --- 2. divergencia: explotó y quedó adivinando (solo si se conoce el nivel del azar)
    if c.azar:
        pico = float(np.max(yf))
        nivel = nivel_final_alto * escala
        evidencia["nivel_azar"] = c.azar
        if pico > EXPLOSION_SOBRE_AZAR * c.azar and nivel >= FRACCION_AZAR_FINAL * c.azar:
            i_pico = int(np.argmax(yf))
            evidencia["region_problema"] = [float(xf[i_pico]), float(xf[-1])]
            texto = (
                f"La pérdida de entrenamiento explotó: llegó a {_fmt(pico)} en {ctx.donde(xf[i_pico])}, "
                f"{_veces(pico / c.azar)} veces el nivel del azar ({c.origen_azar}), y desde ahí se quedó en "
                f"{_fmt(nivel)}, lo que pierde un modelo que adivina. La explosión borró lo aprendido y el "
                "modelo ya no sale de ahí: aunque la curva «baje» desde el pico, no está aprendiendo."
            )
            if finitos_v.any():
                texto += (f" La validación terminó en {_fmt(float(yv[finitos_v][-1]))} "
                          f"({int(finitos_v.sum())} evaluaciones).")
            return _resultado("divergencia", texto + notas, evidencia, mejor_paso)

    # --- 2b. divergencia por tendencia: termina peor que empezó, o sube y se queda arriba
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
            texto += f"{_veces(tercio_final / mejor_tramo)} veces su mejor tramo."
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
    # la forma de U de la validación: la usan esta excepción al ruido y el sobreajuste (paso 4)
    u = _validacion_en_u(xf, suave * escala, final, xvf, yvf) if m >= MIN_EVALUACIONES else None
    if (
        ruido_cuenta
        and hay_validacion_para_ruido
        and rebote <= REBOTE_MAXIMO
        and rebote_local <= REBOTE_LOCAL_MAXIMO
        and rugosidad_val <= RUGOSIDAD_VALIDACION_MAXIMA
        and max(c.epocas.values(), default=0.0) >= EPOCAS_PARA_MEMORIZAR
        and u["en_u"]
    ):
        # validación suave en forma de U tras varias pasadas por los datos: el ruido es de los lotes
        # y lo que pasa es sobreajuste (dentro de la primera época no hay nada que memorizar)
        ruido_cuenta = False
    evidencia["ruido_de_lotes"] = bool(ruido > RUIDO_MAXIMO and not ruido_cuenta)
    pico_local = rebote <= REBOTE_MAXIMO and rebote_local > REBOTE_LOCAL_MAXIMO
    if pico_local:
        i_rebote = i_rebote_local
    if ruido_cuenta or rebote > REBOTE_MAXIMO or pico_local or rugosidad_val > RUGOSIDAD_VALIDACION_MAXIMA:
        if rebote > REBOTE_MAXIMO or pico_local:
            i0 = int(np.argmin(suave[: i_rebote + 1]))
            desde, hasta = float(xf[i0]), float(xf[i_rebote])
            j = i_rebote
            while j + 1 < n and suave[j + 1] > minimo_acumulado[i_rebote]:
                j += 1
            evidencia["region_problema"] = [desde, float(xf[j])]
            pico = float(yf[i0: j + 1].max())
            texto = (
                f"La pérdida de entrenamiento (suavizada con una mediana de {ventana} puntos) volvió "
                f"a subir de {_fmt(suave[i0] * escala)} en {ctx.donde(desde)} a {_fmt(suave[i_rebote] * escala)} "
                + (f"en {ctx.donde(hasta)}, {_veces(suave[i_rebote] / max(suave[i0], 1e-300))} veces el nivel al que "
                   f"había bajado; el punto más alto de ese tramo fue {_fmt(pico)}." if pico_local else
                   f"en {ctx.donde(hasta)}, un salto del {_fmt_pct(rebote)} de la pérdida inicial "
                   f"({_fmt(inicial)}); el punto más alto de ese tramo fue {_fmt(pico)}.")
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
        if ruido_cuenta and (rebote > REBOTE_MAXIMO or pico_local):
            texto += f" Además el ruido típico es del {_fmt_pct(ruido)} de la pérdida inicial."
        texto += f" De principio a fin pasó de {_fmt(inicial)} a {_fmt(final)}."
        return _resultado("inestable", texto + notas, evidencia, mejor_paso)
    if evidencia["ruido_de_lotes"]:
        notas += (
            f" La pérdida de entrenamiento es ruidosa (se aparta de su tendencia un {_fmt_pct(ruido)} de la "
            "inicial), pero la de validación es suave: ese ruido viene de los lotes, no de un modelo inestable."
        )

    # --- 4. sobreajuste (necesita validación suficiente)
    if u is not None:
        j_min, val_min, val_final = u["j_min"], u["val_min"], u["val_final"]
        subida_val, entren_en_min = u["subida_val"], u["entren_en_min"]
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
        if u["en_u"]:
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
                f"{_fmt(val_final)}, {_veces(val_final / final)} veces la de entrenamiento. Esa brecha "
                "dice que el modelo memoriza en vez de generalizar."
                if final > 0
                else f"La pérdida de entrenamiento llegó a 0 mientras la de validación se quedó en {_fmt(val_final)}."
            )
            return _resultado("sobreajuste", texto + notas, evidencia, mejor_paso)
        referencia = c.azar if c.azar else inicial
        if val_final > COCIENTE_BRECHA_EXTREMA * final and val_final - final > BRECHA_MINIMA * referencia:
            evidencia["region_problema"] = [float(xvf[0]), float(max(xvf[-1], xf[-1]))]
            cociente = f"{_veces(val_final / final)} veces la de entrenamiento" if final > 0 else "con el entrenamiento en 0"
            texto = (
                f"La pérdida de validación terminó en {_fmt(val_final)}, {cociente} ({_fmt(final)}); "
                f"su mínimo fue {_fmt(val_min)} en {ctx.donde(xvf[j_min])}. Una brecha así dice que el modelo "
                "memoriza los datos de entrenamiento y no generaliza"
                + (f" (la diferencia, {_fmt(val_final - final)}, es una parte grande del nivel del azar, "
                   f"{c.origen_azar})" if c.azar else "")
                + ", aunque la validación no haya subido."
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


def _validacion_en_u(xf, suave_abs, final, xvf, yvf) -> dict:
    """Los números del sobreajuste «en U»: la validación tocó fondo y subió mientras el entrenamiento bajaba.

    ``suave_abs`` es la curva de entrenamiento suavizada (en sus unidades) y ``yvf`` la validación finita,
    con al menos ``MIN_EVALUACIONES`` puntos. ``en_u`` dice si hay forma de U: la validación final (mediana
    de sus últimos puntos) supera su mínimo en más de ``SUBIDA_VALIDACION``, el mínimo no está entre esos
    últimos puntos, y el entrenamiento terminó por debajo de donde estaba en el mínimo de validación.
    """
    m = len(yvf)
    kv = max(1, min(_puntos_extremos(m), m // 3))
    val_final = float(np.median(yvf[-kv:]))
    j_min = int(np.argmin(yvf))
    val_min = float(yvf[j_min])
    subida_val = (val_final - val_min) / val_min if val_min > 0 else (math.inf if val_final > 0 else 0.0)
    entren_en_min = float(np.interp(xvf[j_min], xf, suave_abs))
    en_u = m >= MIN_EVALUACIONES and subida_val > SUBIDA_VALIDACION and j_min < m - kv and final < entren_en_min
    return dict(en_u=bool(en_u), j_min=j_min, val_min=val_min, val_final=val_final, subida_val=subida_val,
                entren_en_min=entren_en_min)


def _ventana(n: int) -> int:
    """La ventana de la mediana móvil para una curva de ``n`` puntos (impar)."""
    return max(VENTANA_SUAVIZADO, int(n * FRACCION_VENTANA) | 1)


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
