"""Las reglas del diagnóstico, en el orden en que mirarías la curva (ver :mod:`tutor_lib.curvas`)."""

from __future__ import annotations

import math
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
    CAIDA_SIN_APRENDER,
    RUIDO_SIN_APRENDER,
    SOBRE_SU_MEJOR,
    FACTOR_VALIDACION_SANA,
    TENDENCIA_SOBRE_SALTOS,
    BRECHA_PEQUENA,
    CLASES_MAX_COLA,
)
from tutor_lib.curvas.azar import Explosion, buscar_explosion, clases_de, estimar_azar, origen_estimado
from tutor_lib.curvas.veredicto import REMEDIOS, _contraer, _resultado, _veces  # noqa: F401 (REMEDIOS, como antes)


# --------------------------------------------------------------------------- diagnóstico

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
        return _nombrar_picos(_reglas(c), c)


#: Un registro es un pico que la explicación debe nombrar si vale al menos esto por el nivel final de su curva...
PICO_SOBRE_FINAL = 100.0
#: ... y al menos esto por lo más bajo registrado antes (no es el arranque de una curva que baja).
PICO_SOBRE_LO_ANTERIOR = 3.0


def _pico_suelto(y: np.ndarray, final: float) -> int | None:
    """El índice del registro más alto que vale ≥ 100 veces ``final`` y ≥ 3 veces lo más bajo antes; o ``None``."""
    if len(y) < 2 or not final > 0:
        return None
    antes = np.minimum.accumulate(y)[:-1]
    candidatos = np.flatnonzero((y[1:] >= PICO_SOBRE_FINAL * final) & (y[1:] >= PICO_SOBRE_LO_ANTERIOR * antes)) + 1
    return int(candidatos[np.argmax(y[candidatos])]) if len(candidatos) else None


def _nombrar_picos(d: Diagnostico, c: Curvas) -> Diagnostico:
    """Ninguna explicación calla un registro ≥ 100 veces el nivel final que subió desde lo anterior.

    Las reglas miran la curva suavizada; esto mira los registros uno por uno, en entrenamiento y validación,
    y agrega una frase con el pico si la explicación no lo cita ya.
    """
    agregados = []
    for nombre, pasos, serie in (("entrenamiento", c.pasos_entrenamiento, c.entrenamiento),
                                 ("validación", c.pasos_validacion, c.validacion)):
        x, y = np.asarray(pasos, dtype=float), np.asarray(serie, dtype=float)
        finitos = np.isfinite(y)
        x, y = x[finitos], y[finitos]
        if len(y) < 3:
            continue
        final = float(np.median(y[-_puntos_extremos(len(y)):]))
        if not final > 0:
            continue
        i = _pico_suelto(y, final)
        if i is None or _fmt(float(y[i])) in d.explicacion:
            continue
        agregados.append(f"Ojo: la pérdida de {nombre} llegó a {_fmt(float(y[i]))} en {_Contexto(c).donde(x[i])}, "
                         f"{_veces(float(y[i]) / final)} veces su nivel final ({_fmt(final)}).")
    if not agregados:
        return d
    d.evidencia["picos_nombrados"] = len(agregados)
    return Diagnostico(d.categoria, _contraer(d.explicacion + " " + " ".join(agregados)), d.remedios, d.mejor_paso,
                       d.evidencia)


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
    if ini_n <= 1e-12 and float(yf[0]) > 0:
        # empezó positiva y subió más de un billón de veces: no hay nada que comparar, explotó
        i_pico = int(np.argmax(yf))
        evidencia["region_problema"] = [float(xf[0]), float(xf[-1])]
        texto = (
            f"La pérdida de entrenamiento empieza en {_fmt(float(yf[0]))} y sube hasta {_fmt(escala)} en "
            f"{ctx.donde(xf[i_pico])}, {_veces(escala / float(yf[0]))} veces su primer registro: el "
            "entrenamiento está divergiendo."
        )
        return _resultado("divergencia", texto, evidencia, mejor_paso)
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
    # --- la explosión (sin suavizar: la mediana móvil borra un pico de un registro) y el nivel del azar
    estallido = buscar_explosion(yf, k, final)
    azar, origen_azar = c.azar, c.origen_azar
    if azar is None and not c.sin_azar:
        estimado = estimar_azar(yf, k, estallido)
        if estimado is not None:
            azar, origen_azar = estimado
            evidencia["azar_estimado"] = True
            evidencia["origen_azar"] = origen_azar
    if estallido is not None:
        evidencia["explosion"] = {
            "tipo": estallido.tipo, "paso": _paso_entero(xf[estallido.indice_pico]), "pico": estallido.pico,
            "veces": estallido.veces, "nivel_despues": estallido.nivel_cola, "quedo_plana": estallido.cola_plana,
        }
    notas = ""
    if no_finitos.any():
        notas = (
            f" Hubo {int(no_finitos.sum())} registro{'s' if no_finitos.sum() > 1 else ''} NaN/inf sueltos "
            "que se ignoraron porque la curva siguió después."
        )

    # --- 2. divergencia: explotó y quedó adivinando (solo si se conoce el nivel del azar)
    if azar:
        pico = float(np.max(yf))
        nivel = nivel_final_alto * escala
        evidencia["nivel_azar"] = azar
        if pico > EXPLOSION_SOBRE_AZAR * azar and nivel >= FRACCION_AZAR_FINAL * azar:
            i_pico = int(np.argmax(yf))
            evidencia["region_problema"] = [float(xf[i_pico]), float(xf[-1])]
            texto = (
                f"La pérdida de entrenamiento explotó: llegó a {_fmt(pico)} en {ctx.donde(xf[i_pico])}, "
                f"{_veces(pico / azar)} veces el nivel del azar ({origen_azar}), y desde ahí se quedó en "
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

    # --- 2c. explotó (un registro cien veces lo de antes, o un arranque ya explotado)
    if estallido is not None:
        return _tras_explosion(estallido, ctx, xf, yf, inicial, final, azar, origen_azar, evidencia, mejor_paso,
                               notas)

    # --- 2d. nunca aprendió y rebota por encima de su mejor nivel (la tasa es demasiado alta, no le falta tiempo)
    sobre_mejor = (tercio_final - minimo_n) / minimo_n if minimo_n > 0 else 0.0
    azar_rebote, origen_rebote = azar, origen_azar
    if c.azar is None and not c.sin_azar:
        # lo más bajo que llegó una corrida que nunca aprendió es el azar: ln(C) para algún C (mejor estimación
        # que su arranque, que puede venir inflado por los primeros pasos)
        clases = clases_de(minimo_n * escala, CLASES_MAX_COLA)
        if clases is not None:
            azar_rebote = math.log(clases)
            origen_rebote = origen_estimado(clases, "cerca de lo más bajo que llegó")
    sobre_azar = azar_rebote is not None and minimo_n * escala >= 0.97 * azar_rebote and (
        tercio_final * escala >= (1 + SOBRE_SU_MEJOR) * azar_rebote)
    # con un ruido mayor que RUIDO_MAXIMO lo que se ve es inestabilidad (regla 3), no un rebote sobre el azar
    primer_tercio = float(np.median(y_n[: max(2, n // 3)]))
    nunca_bajo = min(tercio_final, minimo_n) >= (1 - CAIDA_SIN_APRENDER) * primer_tercio
    # con el azar exacto (config.json) basta quedar siempre por encima de él; estimado, hace falta además ver
    # el rebote: ruido moderado y una cola más alta que su mejor nivel por más que ese ruido
    rebota = RUIDO_SIN_APRENDER < ruido <= RUIDO_MAXIMO and sobre_mejor > max(SOBRE_SU_MEJOR, ruido)
    if nunca_bajo and sobre_azar and (rebota or (c.azar is not None and ruido <= RUIDO_MAXIMO)):
        if azar_rebote != azar:
            evidencia.update(nivel_azar=azar_rebote, azar_estimado=True, origen_azar=origen_rebote)
        azar, origen_azar = azar_rebote, origen_rebote
        evidencia["region_problema"] = [float(xf[0]), float(xf[-1])]
        texto = (
            f"La pérdida de entrenamiento nunca bajó de verdad: la mediana de su primer tercio es "
            f"{_fmt(primer_tercio * escala)}, lo más bajo que llegó "
            f"(suavizada) fue {_fmt(minimo_n * escala)} y desde {ctx.donde(float(xf[-max(2, n // 3)]))} su mediana es "
            f"{_fmt(tercio_final * escala)}, un {_fmt_pct(sobre_mejor)} por encima de ese mínimo, con ruido "
            f"(se aparta de su tendencia un {_fmt_pct(ruido)} de la inicial)."
        )
        texto += (f" El nivel del azar es {_fmt(azar)} ({origen_azar}): el modelo "
                  + ("pierde más que uno que adivina." if tercio_final * escala > azar else "no pasa de adivinar."))
        texto += (" Una tasa demasiado baja baja poco pero sin rebotar; esto es un optimizador que salta por "
                  "encima del mínimo en cada paso: la tasa es demasiado alta, entrenar más no lo arregla.")
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
    validacion_a_saltos = rugosidad_val > RUGOSIDAD_VALIDACION_MAXIMA
    if validacion_a_saltos and not (ruido_cuenta or rebote > REBOTE_MAXIMO or pico_local) and u and u["en_u"]:
        # el entrenamiento es suave y la validación, aunque salte, sube mucho más de lo que salta: la tendencia
        # (memorizar) es lo que hay que atender; con una validación pequeña cada evaluación es ruidosa
        inicio_val = float(np.median(yvf[:2]))
        tendencia = (u["val_final"] - u["val_min"]) / inicio_val if inicio_val > 0 else 0.0
        evidencia["subida_validacion_sobre_saltos"] = tendencia / rugosidad_val
        if tendencia > TENDENCIA_SOBRE_SALTOS * rugosidad_val:
            validacion_a_saltos = False
            notas += (f" La validación salta de una evaluación a otra (un {_fmt_pct(rugosidad_val)} de su valor "
                      f"inicial de media), pero sube mucho más que eso: con pocos ejemplos de validación cada "
                      "evaluación es ruidosa, y la tendencia es la de memorizar.")
    if ruido_cuenta or rebote > REBOTE_MAXIMO or pico_local or validacion_a_saltos:
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
        referencia = azar if azar else inicial
        # dos órdenes de magnitud entre validación y entrenamiento no son ruido de evaluación, aunque la diferencia
        # sea pequeña frente al azar (entrenamiento en 1e-4 y validación en 0.2 que nunca baja)
        if (val_final > COCIENTE_BRECHA_EXTREMA * final and val_final - final > BRECHA_MINIMA * referencia) or (
                val_final > FACTOR_VALIDACION_SANA * final and val_final - final > BRECHA_PEQUENA * referencia):
            evidencia["region_problema"] = [float(xvf[0]), float(max(xvf[-1], xf[-1]))]
            cociente = f"{_veces(val_final / final)} veces la de entrenamiento" if final > 0 else "con el entrenamiento en 0"
            texto = (
                f"La pérdida de validación terminó en {_fmt(val_final)}, {cociente} ({_fmt(final)}); "
                f"su mínimo fue {_fmt(val_min)} en {ctx.donde(xvf[j_min])}. Una brecha así dice que el modelo "
                "memoriza los datos de entrenamiento y no generaliza"
                + (f" (la diferencia, {_fmt(val_final - final)}, es una parte grande del nivel del azar, "
                   f"{origen_azar})" if azar else "")
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

    # --- 6. sano, si la validación alcanza para descartar el sobreajuste y se cumplen TODAS sus condiciones
    if m >= MIN_EVALUACIONES:
        return _sano_o_no_concluyente(ctx, xf, yf, xvf, yvf, inicial, final, caida, rebote, azar, origen_azar,
                                      evidencia, mejor_paso, notas)
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


def _tras_explosion(e: Explosion, ctx, xf, yf, inicial, final, azar, origen_azar, evidencia, mejor_paso, notas):
    """Explotó y no terminó peor que al empezar: ¿colapsó (divergencia) o se recuperó (inestable)?"""
    paso_pico = float(xf[e.indice_pico])
    evidencia["region_problema"] = [paso_pico, float(xf[-1])]
    if e.tipo == "salto":
        texto = (f"La pérdida de entrenamiento explotó en {ctx.donde(paso_pico)}: llegó a {_fmt(e.pico)}, "
                 f"{_veces(e.veces)} veces lo más bajo que había registrado antes ({_fmt(e.antes)}).")
    else:
        texto = (f"La pérdida de entrenamiento ya había explotado en su primer tramo: llegó a {_fmt(e.pico)} en "
                 f"{ctx.donde(paso_pico)}, más de lo que vale una entropía cruzada al empezar y "
                 f"{_veces(e.veces)} veces su nivel final ({_fmt(final)}).")
    primero = float(yf[0])
    aprendio_antes = e.antes is not None and e.antes <= 0.5 * primero
    if aprendio_antes:
        colapso = e.nivel_cola >= math.sqrt(e.antes * primero)
    elif azar is not None:
        colapso = e.nivel_cola >= FRACCION_AZAR_FINAL * azar
    else:
        colapso = e.tipo == "salto" and e.nivel_cola >= FRACCION_AZAR_FINAL * primero
    if e.cola_plana and colapso:
        texto += f" Después quedó plana en {_fmt(e.nivel_cola)}"
        if aprendio_antes:
            texto += (f", más cerca de donde empezó ({_fmt(primero)}) que de lo que había aprendido "
                      f"({_fmt(e.antes)}): lo aprendido se perdió.")
        elif azar is not None:
            texto += f", el nivel del azar ({origen_azar}): el modelo colapsó y ya no aprende."
        else:
            texto += f", donde empezó ({_fmt(primero)}): el modelo colapsó y ya no aprende."
        return _resultado("divergencia", texto + notas, evidencia, mejor_paso)
    if e.cola_plana and not aprendio_antes and azar is None and e.nivel_cola > 0.5 * primero:
        texto += (f" Después quedó plana en {_fmt(e.nivel_cola)} y sin el nivel del azar no se puede saber si "
                  "eso es haber aprendido algo o haber colapsado (pasa num_clases o guarda el config.json).")
        return _resultado("no_concluyente", texto + notas, evidencia, mejor_paso)
    texto += (f" Después se recuperó: terminó en {_fmt(final)}"
              + (f", por debajo del nivel del azar ({origen_azar})" if azar is not None and final < azar else "")
              + (", y seguía bajando." if not e.cola_plana else ".")
              + " Un pico así deja el modelo en un lugar distinto del que tenía: guarda checkpoints y revisa "
              "que el mejor sea de antes del pico.")
    return _resultado("inestable", texto + notas, evidencia, mejor_paso)


def _sano_o_no_concluyente(ctx, xf, yf, xvf, yvf, inicial, final, caida, rebote, azar, origen_azar, evidencia,
                           mejor_paso, notas):
    """«Sano» es un hallazgo: todas sus condiciones se cumplen. Si alguna no, ``no_concluyente`` con cuál."""
    val_min, val_final = evidencia["validacion_minima"], evidencia["validacion_final"]
    j_min = int(np.argmin(yvf))
    i_max = int(np.argmax(yf))
    for nombre, xs, ys, fin in (("entrenamiento", xf, yf, final), ("validación", xvf, yvf, val_final)):
        i = _pico_suelto(ys, fin)
        if i is not None:
            # la mediana móvil lo borra, pero un registro cien veces por encima del final no es una corrida sana
            evidencia["region_problema"] = [float(xs[i]), float(xs[min(i + 1, len(xs) - 1)])]
            texto = (f"La pérdida de {nombre} llegó a {_fmt(float(ys[i]))} en {ctx.donde(float(xs[i]))}, "
                     f"{_veces(float(ys[i]) / fin)} veces su nivel final ({_fmt(fin)}), y volvió a bajar: un pico "
                     f"suelto, que la curva suavizada no muestra. De principio a fin el entrenamiento pasó de "
                     f"{_fmt(inicial)} a {_fmt(final)}.")
            return _resultado("inestable", texto + notas, evidencia, mejor_paso)
    fallas = []
    if final > 0 and val_final > FACTOR_VALIDACION_SANA * final:
        fallas.append(f"la validación terminó en {_fmt(val_final)}, {_veces(val_final / final)} veces el "
                      f"entrenamiento ({_fmt(final)}), aunque no subió")
    if azar is not None and final > (1 - CAIDA_MINIMA) * azar:
        fallas.append(f"el entrenamiento terminó en {_fmt(final)}, sin bajar claramente del nivel del azar "
                      f"({origen_azar})")
    recorrido = float(np.max(yvf)) - val_min
    if val_min > 0 and val_final > (1 + SUBIDA_VALIDACION) * val_min and val_final - val_min > 0.25 * recorrido:
        fallas.append(f"la validación subió de su mínimo, {_fmt(val_min)}, a {_fmt(val_final)}, sin que el "
                      "entrenamiento bajara en ese tramo")
    if fallas:
        texto = (f"Ninguna regla de problema se cumple (la pérdida de entrenamiento bajó de {_fmt(inicial)} a "
                 f"{_fmt(final)}), pero tampoco todas las condiciones de una corrida sana: " + "; ".join(fallas)
                 + ". Las señales se contradicen: mira la gráfica antes de fiarte de esta corrida.")
        evidencia["condiciones_sin_cumplir"] = len(fallas)
        return _resultado("no_concluyente", texto + notas, evidencia, mejor_paso)
    if i_max == 0:
        alto = f"su registro más alto fue el primero ({_fmt(float(yf[0]))})"
    else:
        alto = (f"su registro más alto fue {_fmt(float(yf[i_max]))} en {ctx.donde(float(xf[i_max]))} y la curva "
                f"suavizada nunca volvió a subir más de un {_fmt_pct(rebote)} de la inicial")
    cociente = f", {_veces(val_final / final)} veces el entrenamiento final" if final > 0 else ""
    texto = (
        f"La pérdida de entrenamiento bajó de {_fmt(inicial)} a {_fmt(final)} ({_fmt_pct(caida)} menos); {alto}. "
        f"La de validación tuvo su mínimo, {_fmt(val_min)}, en {ctx.donde(float(xvf[j_min]))} y terminó en "
        f"{_fmt(val_final)}{cociente}, a no más de un {_fmt_pct(max(0.0, val_final / val_min - 1))} de ese mínimo."
    )
    if azar is not None:
        texto += f" Su nivel final es un {_fmt_pct(final / azar)} del nivel del azar ({origen_azar})."
    return _resultado("sano", texto + notas, evidencia, mejor_paso)


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
