"""Evaluar lo que genera un modelo de lenguaje con cuentas que cualquiera puede repetir (lessons/14_proyecto_final).

La pérdida dice cuán probable le parece al modelo la respuesta de referencia; no dice si la respuesta que **genera**
es correcta. Este módulo da dos medidas automáticas, sin otro modelo que juzgue:

* :data:`TAREAS`: instrucciones cortas escritas por el curso cuya respuesta se comprueba con una regla exacta
  (:func:`acierta`): el sentimiento de una frase (la respuesta debe **empezar** por la etiqueta, el formato que
  enseñan las conversaciones de ``instrucciones``), la capital de un país y una conversión de unidades (el número
  exacto, no uno que lo contenga). Ninguna aparece en ``instrucciones``: es un conjunto de prueba aparte.
* :func:`repeticion`: qué fracción de los trigramas de palabras de un texto repite uno anterior (los modelos
  pequeños con decodificación voraz suelen entrar en bucles: «la capital de la capital de la capital…»).

Y una forma de generar para medir: :func:`responder` (voraz, en lotes, con la plantilla de chat del modelo y el
mensaje de sistema del curso), la misma antes y después de entrenar.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass


@dataclass(frozen=True)
class Tarea:
    """Una instrucción con respuesta comprobable: ``tipo`` es sentimiento, capital o conversion."""

    tipo: str
    instruccion: str
    esperadas: tuple[str, ...]


def _t(tipo: str, instruccion: str, *esperadas: str) -> Tarea:
    return Tarea(tipo, instruccion, esperadas)


#: 24 tareas, 8 de cada tipo. Escritas para el curso (no salen de ningún conjunto público).
TAREAS: tuple[Tarea, ...] = (
    _t("sentimiento", "¿Positiva o negativa? 'La comida estaba deliciosa y el mesero fue muy amable.'", "Positiva"),
    _t("sentimiento", "¿Positiva o negativa? 'El producto llegó roto y nadie contesta mis correos.'", "Negativa"),
    _t("sentimiento", "¿Positiva o negativa? 'Me encantó el concierto, la banda sonó increíble.'", "Positiva"),
    _t("sentimiento", "¿Positiva o negativa? 'La película fue aburrida y demasiado larga.'", "Negativa"),
    _t("sentimiento", "¿Positiva o negativa? 'El hotel tenía una vista hermosa y camas cómodas.'", "Positiva"),
    _t("sentimiento", "¿Positiva o negativa? 'Esperé dos horas y nunca me atendieron.'", "Negativa"),
    _t("sentimiento", "¿Positiva o negativa? 'La clase fue clara y aprendí muchísimo.'", "Positiva"),
    _t("sentimiento", "¿Positiva o negativa? 'El teléfono se calienta y la batería no dura nada.'", "Negativa"),
    _t("capital", "¿Cuál es la capital de Francia?", "París"),
    _t("capital", "¿Cuál es la capital de Japón?", "Tokio"),
    _t("capital", "¿Cuál es la capital de Italia?", "Roma"),
    _t("capital", "¿Cuál es la capital de Perú?", "Lima"),
    _t("capital", "¿Cuál es la capital de Alemania?", "Berlín"),
    _t("capital", "¿Cuál es la capital de España?", "Madrid"),
    _t("capital", "¿Cuál es la capital de Chile?", "Santiago"),
    _t("capital", "¿Cuál es la capital de Egipto?", "El Cairo"),
    _t("conversion", "¿Cuántos centímetros hay en 2 metros?", "200"),
    _t("conversion", "¿Cuántos gramos son 3 kilogramos?", "3000"),
    _t("conversion", "¿Cuántos minutos hay en 2 horas?", "120"),
    _t("conversion", "¿Cuántos metros son 4 kilómetros?", "4000"),
    _t("conversion", "¿Cuántos segundos hay en 3 minutos?", "180"),
    _t("conversion", "¿Cuántos mililitros son 2 litros?", "2000"),
    _t("conversion", "¿Cuántas horas hay en 2 días?", "48"),
    _t("conversion", "¿Cuántos días son 3 semanas?", "21"),
)


def _plano(texto: str) -> str:
    """Minúsculas y sin tildes: «París» y «Paris» cuentan igual (el modelo no pierde por una tilde)."""
    descompuesto = unicodedata.normalize("NFD", texto.lower())
    return "".join(c for c in descompuesto if unicodedata.category(c) != "Mn")


#: Lo que separa los miles: espacio (el formato del curso), espacios duros, punto (español) o coma (inglés).
_SEPARADOR_DE_MILES = " \u00a0\u202f.,"
_NUMERO = re.compile(rf"\d{{1,3}}(?:[{_SEPARADOR_DE_MILES}]\d{{3}})+(?!\d)|\d+")


def numeros(texto: str) -> list[str]:
    """Los números enteros de ``texto``, con los separadores de miles quitados.

    «3 000 g y 12» → ["3000", "12"]; «3.000 gramos» y «3,000» → ["3000"]. El límite, a propósito: un punto o una
    coma seguidos de **exactamente** tres cifras se leen como separador de miles, así que «1,500» es 1500 y no
    uno y medio; «2,5» da ["2", "5"]. Las respuestas de :data:`TAREAS` son enteros, así que no hay ambigüedad.
    """
    return [re.sub(rf"[{_SEPARADOR_DE_MILES}]", "", n) for n in _NUMERO.findall(texto)]


def acierta(tarea: Tarea, respuesta: str) -> bool:
    """¿La ``respuesta`` generada resuelve la ``tarea``? Reglas exactas, sin juez:

    * sentimiento: la respuesta **empieza** por la etiqueta esperada (el formato pedido); lo que la rodea sin ser
      texto no cuenta: «**Positiva**», «"Positiva"» o «- Positiva» también empiezan por ella;
    * capital: la capital aparece como palabra completa;
    * conversion: el número exacto aparece como número completo («4000» no acierta con «40000»), con o sin
      separador de miles («4 000», «4.000», «4,000»: ver :func:`numeros`).
    """
    if not isinstance(respuesta, str):
        raise TypeError(f"La respuesta debe ser texto (str); recibí {type(respuesta).__name__}.")
    limpia = re.sub(r"^[\W_]+", "", _plano(respuesta.strip()))  # sin marcas de Markdown, comillas ni viñetas delante
    if tarea.tipo == "sentimiento":
        # detrás de la etiqueta, nada que sea letra o cifra («_» de Markdown sí puede ir)
        return any(re.match(re.escape(_plano(e)) + r"(?![^\W_])", limpia) for e in tarea.esperadas)
    if tarea.tipo == "capital":
        return any(re.search(r"\b" + re.escape(_plano(e)) + r"\b", limpia) for e in tarea.esperadas)
    if tarea.tipo == "conversion":
        return any(e in numeros(respuesta) for e in tarea.esperadas)
    raise ValueError(f"Tipo de tarea desconocido {tarea.tipo!r}; los válidos: sentimiento, capital, conversion.")


def repeticion(texto: str, n: int = 3) -> float:
    """Fracción de los n-gramas de palabras de ``texto`` que repiten uno anterior (0 = ninguno; cerca de 1 = bucle)."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"n debe ser un entero ≥ 1; recibí {n!r}.")
    palabras = re.findall(r"\w+", texto.lower())
    ngramas = [tuple(palabras[i:i + n]) for i in range(len(palabras) - n + 1)]
    if not ngramas:
        return 0.0
    return 1 - len(set(ngramas)) / len(ngramas)


def puntuar(respuestas: list[str], tareas: tuple[Tarea, ...] = TAREAS) -> dict[str, tuple[int, int]]:
    """Aciertos por tipo (en el orden de las tareas) y al final el total: ``{"sentimiento": (aciertos, tareas), …,
    "total": (aciertos, tareas)}``."""
    if len(respuestas) != len(tareas):
        raise ValueError(f"Hay {len(tareas)} tareas y recibí {len(respuestas)} respuestas: deben ser tantas como tareas.")
    cuenta: dict[str, list[int]] = {tarea.tipo: [0, 0] for tarea in tareas} | {"total": [0, 0]}
    for tarea, respuesta in zip(tareas, respuestas):
        for clave in (tarea.tipo, "total"):
            aciertos, total = cuenta[clave]
            cuenta[clave] = [aciertos + acierta(tarea, respuesta), total + 1]
    return {clave: (a, t) for clave, (a, t) in cuenta.items()}


#: Cuántas instrucciones genera :func:`responder` a la vez: más, más memoria; menos, más lento.
LOTE_RESPUESTAS = 16


def responder(modelo, tokenizer, instrucciones: list[str], max_new_tokens: int = 48) -> list[str]:
    """La respuesta voraz del ``modelo`` a cada instrucción, en el mismo orden, solo con el texto nuevo.

    Cada instrucción va como mensaje del usuario tras el mensaje de sistema del curso
    (:data:`tutor_lib.modelos.smollm2.SISTEMA`: sin él, la plantilla de SmolLM2 pone uno en inglés) y pasa
    por la plantilla de chat del ``tokenizer``. Se genera en lotes con relleno a la **izquierda** (el modelo
    continúa desde el último token de cada fila) y sin muestreo (``do_sample=False``, con ``temperature``,
    ``top_p`` y ``top_k`` anulados: el ``generation_config`` de un modelo puede traer valores de muestreo que
    aquí no aplican). El ``tokenizer`` y el modelo quedan como estaban (lado del relleno, modo de
    entrenamiento). Es la generación del proyecto del issue 40 (lessons/14_proyecto_final y el benchmark del
    proyecto); hoy la lección 14 todavía genera con su propia función ``responder``, que esta reemplazará.
    """
    import torch

    from tutor_lib.modelos.smollm2 import SISTEMA

    if isinstance(instrucciones, str) or not isinstance(instrucciones, (list, tuple)):
        raise TypeError(f"instrucciones debe ser una lista de textos; recibí {type(instrucciones).__name__}.")
    malas = [i for i, texto in enumerate(instrucciones) if not isinstance(texto, str)]
    if malas:
        raise TypeError(f"Cada instrucción debe ser texto (str); la n.º {malas[0]} es "
                        f"{type(instrucciones[malas[0]]).__name__}.")
    if isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, int) or max_new_tokens < 1:
        raise ValueError(f"max_new_tokens debe ser un entero ≥ 1; recibí {max_new_tokens!r}.")
    if not getattr(tokenizer, "chat_template", None):
        raise ValueError("El tokenizer no trae plantilla de chat (chat_template): responder necesita una para armar "
                         "cada conversación. Usa el tokenizer de un modelo de instrucciones.")
    relleno = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    if relleno is None:
        raise ValueError("El tokenizer no tiene pad_token ni eos_token: no sé con qué rellenar los lotes.")
    textos = [tokenizer.apply_chat_template([{"role": "system", "content": SISTEMA},
                                             {"role": "user", "content": texto}],
                                            tokenize=False, add_generation_prompt=True)
              for texto in instrucciones]
    # De a lotes de largos parecidos (menos relleno que calcular); al final, de vuelta al orden pedido.
    orden = sorted(range(len(textos)), key=lambda i: len(textos[i]))
    respuestas: list[str] = [""] * len(textos)
    lado, entrenando = tokenizer.padding_side, modelo.training
    tokenizer.padding_side = "left"
    modelo.eval()
    try:
        for inicio in range(0, len(orden), LOTE_RESPUESTAS):
            indices = orden[inicio:inicio + LOTE_RESPUESTAS]
            entrada = tokenizer([textos[i] for i in indices], return_tensors="pt", padding=True,
                                add_special_tokens=False).to(modelo.device)
            with torch.no_grad():
                salida = modelo.generate(**entrada, max_new_tokens=max_new_tokens, do_sample=False, temperature=None,
                                         top_p=None, top_k=None, pad_token_id=relleno)
            nuevos = salida[:, entrada["input_ids"].shape[1]:]
            for i, fila in zip(indices, nuevos):
                respuestas[i] = tokenizer.decode(fila, skip_special_tokens=True).strip()
    finally:
        tokenizer.padding_side = lado
        modelo.train(entrenando)
    return respuestas
