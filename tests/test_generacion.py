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
