"""``tutor_lib.juez.multiproceso.lanzar``: varios procesos de gloo de verdad, y nada se queda colgado (ej13)."""

from __future__ import annotations

import time

import pytest

from tutor_lib.juez.multiproceso import lanzar


def sumar_rangos(extra):
    t = torch.tensor([float(dist.get_rank()) + extra])  # noqa: F821 (torch y dist existen en cada proceso)
    dist.all_reduce(t)  # noqa: F821
    return t.item()


def solo_el_cero_reduce():
    t = torch.ones(1)  # noqa: F821
    if dist.get_rank() == 0:  # noqa: F821
        dist.all_reduce(t)  # noqa: F821 (el otro proceso nunca llega: el 0 espera para siempre)
    return t.item()


def el_uno_no_termina():
    import time as reloj

    if dist.get_rank() == 1:  # noqa: F821
        while True:
            reloj.sleep(1)
    t = torch.ones(1)  # noqa: F821
    dist.all_reduce(t)  # noqa: F821
    return t.item()


TOPE, PISO, HUECO, TERCIO = float("inf"), float("-inf"), float("nan"), 1 / 3


def usa_constantes_raras():
    return [TOPE, PISO, HUECO != HUECO, TERCIO == 1 / 3]


def falla_con_clave():
    return {"a": 1}["b"]


@pytest.mark.timeout(120)
def test_dos_procesos_de_verdad_suman_sus_rangos():
    assert lanzar("sumar_rangos(extra)", 2, funciones=[sumar_rangos], extra=10) == [21.0, 21.0]
    assert lanzar("[rank, world_size]", 3) == [[0, 3], [1, 3], [2, 3]]


@pytest.mark.timeout(120)
def test_una_colectiva_que_un_proceso_no_hace_da_una_pista_en_espanol():
    """El proceso 1 termina sin hacer el all_reduce: el 0 se entera (conexión cerrada) y la pista lo explica."""
    with pytest.raises(RuntimeError) as error:
        lanzar("solo_el_cero_reduce()", 2, funciones=[solo_el_cero_reduce], tiempo_max=30, tiempo_colectivas=5)
    mensaje = str(error.value)
    assert "Traceback" not in mensaje and "mismas operaciones colectivas" in mensaje, mensaje


@pytest.mark.timeout(120)
def test_un_proceso_que_no_termina_se_mata_a_tiempo():
    inicio = time.monotonic()
    with pytest.raises(TimeoutError) as error:
        lanzar("el_uno_no_termina()", 2, funciones=[el_uno_no_termina], tiempo_max=8, tiempo_colectivas=3)
    assert time.monotonic() - inicio < 18
    assert "Traceback" not in str(error.value)


@pytest.mark.timeout(120)
def test_las_constantes_inf_y_nan_llegan_a_cada_proceso():
    """repr(float('inf')) es «inf»: copiada tal cual, la constante sería un nombre sin definir en el proceso."""
    assert lanzar("usa_constantes_raras()", 2, funciones=[usa_constantes_raras]) == [
        [float("inf"), float("-inf"), True, True]] * 2


@pytest.mark.timeout(120)
def test_el_error_del_codigo_llega_con_su_tipo():
    with pytest.raises(KeyError):
        lanzar("falla_con_clave()", 2, funciones=[falla_con_clave])


@pytest.mark.parametrize("argumentos,tipo", [
    ({"codigo": 3}, TypeError),
    ({"codigo": "1", "procesos": 0}, ValueError),
    ({"codigo": "1", "procesos": 99}, ValueError),
    ({"codigo": "1", "tiempo_max": 0}, ValueError),
    ({"codigo": "1", "funciones": [print]}, TypeError),
])
def test_argumentos_malos_con_mensaje_en_espanol(argumentos, tipo):
    with pytest.raises(tipo, match="debe"):
        lanzar(**argumentos)
