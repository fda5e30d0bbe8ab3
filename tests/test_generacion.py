"""tutor_lib.generacion: las reglas con que la lección 14 decide si una respuesta generada acierta."""

from __future__ import annotations

import pytest

from tutor_lib import generacion
from tutor_lib.generacion import TAREAS, Tarea, acierta, numeros, puntuar, repeticion


def _tarea(tipo: str) -> Tarea:
    return next(t for t in TAREAS if t.tipo == tipo)


def test_hay_ocho_tareas_de_cada_tipo_y_ninguna_esta_en_instrucciones():
    from collections import Counter

    from tutor_lib import recursos

    assert Counter(t.tipo for t in TAREAS) == {"sentimiento": 8, "capital": 8, "conversion": 8}
    assert len({t.instruccion for t in TAREAS}) == len(TAREAS)
    ds = recursos.cargar_dataset("instrucciones", modo="rapido")
    preguntas = {m["content"] for division in ds for conv in ds[division]["messages"] for m in conv}
    assert not {t.instruccion for t in TAREAS} & preguntas, "una tarea de prueba está en los datos de entrenamiento"


def test_sentimiento_exige_empezar_por_la_etiqueta():
    positiva = next(t for t in TAREAS if t.esperadas == ("Positiva",))
    assert acierta(positiva, "Positiva. Elogia la comida.")
    assert acierta(positiva, "  positiva, porque…")
    assert not acierta(positiva, "Es positiva.")  # el formato pedido es empezar por la etiqueta
    assert not acierta(positiva, "Positivamente buena")  # palabra completa
    assert not acierta(positiva, "Negativa. Se queja.")
    # el formato de Markdown, las comillas o una viñeta delante no cambian la etiqueta con que empieza
    for forma in ("**Positiva**", '"Positiva"', "- Positiva: elogia", "_Positiva_", "¡Positiva!"):
        assert acierta(positiva, forma), forma
    assert not acierta(positiva, "**Negativa**")
    assert not acierta(positiva, "**Es** positiva")


def test_capital_como_palabra_completa_y_sin_importar_tildes():
    paris = next(t for t in TAREAS if t.esperadas == ("París",))
    assert acierta(paris, "La capital de Francia es Paris.")
    assert acierta(paris, "París")
    assert not acierta(paris, "Parísima")
    assert not acierta(paris, "La capital de Francia es Lyon.")
    cairo = next(t for t in TAREAS if t.esperadas == ("El Cairo",))
    assert acierta(cairo, "La capital de Egipto es El Cairo.")


def test_conversion_pide_el_numero_exacto():
    metros = next(t for t in TAREAS if t.esperadas == ("4000",))
    assert acierta(metros, "4 kilómetros son 4000 metros.")
    assert acierta(metros, "Son 4 000 metros.")  # espacio de miles, como escribe el curso
    assert not acierta(metros, "4 kilómetros son 40000000000")  # lo contiene, pero no es
    assert not acierta(metros, "4 kilómetros son 400 metros.")
    assert numeros("3 000 g, 12 y 4000000") == ["3000", "12", "4000000"]
    gramos = next(t for t in TAREAS if t.esperadas == ("3000",))
    for forma in ("3.000 gramos", "3,000", "Son 3\u00a0000 g.", "**3000**"):
        assert acierta(gramos, forma), forma
    assert not acierta(gramos, "3.0 gramos") and not acierta(gramos, "30.000 gramos")
    # el límite, a propósito: punto o coma con tres cifras detrás es separador de miles; con otra cantidad, no
    assert numeros("1,500 y 2,5 y 1.000.000") == ["1500", "2", "5", "1000000"]


def test_repeticion():
    assert repeticion("uno dos tres cuatro cinco") == 0.0
    assert repeticion("la capital de la capital de la capital") == pytest.approx(3 / 6)  # 6 trigramas, 3 distintos
    assert repeticion("a a a a a", n=1) == pytest.approx(4 / 5)
    assert repeticion("corto") == 0.0
    with pytest.raises(ValueError, match="entero ≥ 1"):
        repeticion("x", n=0)


def test_puntuar_y_errores_en_espanol():
    correctas = [t.esperadas[0] + "." for t in TAREAS]
    puntos = puntuar(correctas)
    assert puntos["total"] == (24, 24) and puntos["capital"] == (8, 8)
    assert puntuar(["nada"] * 24)["total"] == (0, 24)
    with pytest.raises(ValueError, match="24 tareas y recibí 3"):
        puntuar(["a", "b", "c"])
    with pytest.raises(TypeError, match="debe ser texto"):
        acierta(_tarea("capital"), None)
    with pytest.raises(ValueError, match="Tipo de tarea desconocido"):
        acierta(Tarea("poema", "Escribe", ("x",)), "x")
    assert generacion.TAREAS is TAREAS


# --------------------------------------------------------------------------
# responder: la generación con que se mide antes y después (issue 40, punto 2)
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def llama_diminuto():
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from tutor_lib import recursos

    ruta = recursos.construir_llama_diminuto()
    return AutoModelForCausalLM.from_pretrained(ruta), AutoTokenizer.from_pretrained(ruta)


def test_responder_genera_voraz_en_lotes_con_el_sistema_del_curso(llama_diminuto):
    from tutor_lib.modelos.smollm2 import SISTEMA

    modelo, tokenizer = llama_diminuto
    # tres largos distintos: el orden por largo (y por lo tanto cada lote) es el mismo se pidan como se pidan
    instrucciones = ["Hola", "¿Qué tal tu día?", "Escribe una frase larga sobre el curso de ajuste fino en español."]
    vistas = []
    original = modelo.generate

    def espia(**kwargs):
        vistas.append(kwargs)
        return original(**kwargs)

    modelo.generate = espia
    modelo.train()
    tokenizer.padding_side = "right"
    try:
        respuestas = generacion.responder(modelo, tokenizer, instrucciones, max_new_tokens=5)
        al_reves = generacion.responder(modelo, tokenizer, instrucciones[::-1], max_new_tokens=5)
    finally:
        del modelo.generate
    assert respuestas == al_reves[::-1]  # cada respuesta vuelve a su instrucción
    assert respuestas == generacion.responder(modelo, tokenizer, instrucciones, max_new_tokens=5)  # voraz: repetible
    assert all(isinstance(r, str) and r == r.strip() for r in respuestas)
    # el estado del tokenizer y del modelo queda como estaba
    assert tokenizer.padding_side == "right" and modelo.training
    # un solo lote, voraz, sin muestreo, rellenado a la izquierda, con el sistema del curso
    assert len(vistas) == 2
    kwargs = vistas[0]
    assert kwargs["do_sample"] is False and kwargs["max_new_tokens"] == 5
    assert kwargs["temperature"] is None and kwargs["top_p"] is None and kwargs["top_k"] is None
    ids, atencion = kwargs["input_ids"], kwargs["attention_mask"]
    assert ids.shape[0] == 3
    assert atencion[:, -1].all() and not atencion[0, 0], "el relleno debe ir a la izquierda"
    for fila, mascara, instruccion in zip(ids, atencion, sorted(instrucciones, key=len)):
        texto = tokenizer.decode(fila[mascara.bool()])
        assert SISTEMA in texto and instruccion in texto and texto.endswith("<|assistant|>\n")
    # solo el texto nuevo: nada del sistema ni de la instrucción
    assert not any(SISTEMA in r for r in respuestas)


def test_responder_lista_vacia_y_entradas_malas_en_espanol(llama_diminuto):
    modelo, tokenizer = llama_diminuto
    assert generacion.responder(modelo, tokenizer, []) == []
    with pytest.raises(TypeError, match="lista de textos"):
        generacion.responder(modelo, tokenizer, "una sola instrucción")
    with pytest.raises(TypeError, match="n.º 1 es int"):
        generacion.responder(modelo, tokenizer, ["hola", 3])
    for malo in (0, -2, 1.5, True):
        with pytest.raises(ValueError, match="max_new_tokens"):
            generacion.responder(modelo, tokenizer, ["hola"], max_new_tokens=malo)
    plantilla = tokenizer.chat_template
    tokenizer.chat_template = None
    try:
        with pytest.raises(ValueError, match="plantilla de chat"):
            generacion.responder(modelo, tokenizer, ["hola"])
    finally:
        tokenizer.chat_template = plantilla
