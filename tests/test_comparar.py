"""La comparación de las pruebas (tutor_lib.calificacion.juez.comparar): tipo y forma antes que los valores.

``torch.allclose`` y ``np.allclose`` difunden: un tensor vacío o una columna
``(n, 1)`` «coinciden» con lo esperado. Estas pruebas fijan que
:func:`comparar_valores` no lo permite y que sus mensajes dicen en español qué
forma se esperaba y cuál llegó.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from tutor_lib.calificacion.juez import comparar_valores, revisar_forma, valores_coinciden
from tutor_lib.calificacion.juez.datos import codificar, decodificar


def _mensaje(recibido, esperado, **kw) -> str:
    with pytest.raises(AssertionError) as error:
        comparar_valores(recibido, esperado, **kw)
    return str(error.value)


def test_allclose_difunde_y_por_eso_existe_la_ayuda():
    # Lo que pasaba antes (ej06, prueba oculta de la pérdida): un tensor vacío «igual» a un escalar.
    assert torch.allclose(torch.empty(0), torch.tensor(0.5))
    assert torch.allclose(torch.full((3, 1), 2.0), torch.full((3,), 2.0))
    assert np.allclose(np.empty(0), 0.5)
    assert all(math.isclose(a, b) for a, b in zip([], [1.0, 2.0]))
    assert not valores_coinciden(torch.empty(0), torch.tensor(0.5))
    assert not valores_coinciden(torch.full((3, 1), 2.0), torch.full((3,), 2.0))
    assert not valores_coinciden(np.empty(0), np.float64(0.5))
    assert not valores_coinciden([], [1.0, 2.0])


def test_tensor_vacio_contra_escalar_nombra_las_dos_formas():
    texto = _mensaje(torch.empty(0), torch.tensor(0.53), que="La pérdida")
    assert texto == "La pérdida: se esperaba forma (); llegó forma (0,).", texto


def test_forma_que_difunde_nombra_las_dos_formas():
    texto = _mensaje(torch.zeros(4, 1), torch.zeros(4), que="Tu salida")
    assert texto == "Tu salida: se esperaba forma (4,); llegó forma (4, 1).", texto
    texto = _mensaje(np.zeros((1, 3)), np.zeros(3), que="La matriz")
    assert "forma (3,)" in texto and "forma (1, 3)" in texto, texto


def test_tipo_y_clase_de_dtype():
    assert "se esperaba un tensor de torch; llegó una lista" in _mensaje([1.0, 2.0], torch.tensor([1.0, 2.0]))
    assert "se esperaba un arreglo de NumPy; llegó un tensor de torch" in _mensaje(torch.zeros(2), np.zeros(2))
    assert "se esperaba un número; llegó un tensor de torch (float32, forma ())" in _mensaje(torch.tensor(1.0), 1.0)
    assert "se esperaba un número; llegó un bool" in _mensaje(True, 1)
    texto = _mensaje(torch.tensor([1, 2]), torch.tensor([1.0, 2.0]), que="Los pesos")
    assert texto == "Los pesos: se esperaba un dtype de punto flotante; llegó uno entero (torch.int64).", texto
    assert "booleano" in _mensaje(torch.tensor([True]), torch.tensor([1]))
    # La misma clase con otro ancho sí se compara (int32 contra int64, float16 contra float32).
    comparar_valores(torch.tensor([1, 2], dtype=torch.int32), torch.tensor([1, 2]), exacto=True)
    comparar_valores(torch.tensor([0.5, 0.25], dtype=torch.float16), torch.tensor([0.5, 0.25]))
    comparar_valores(np.float32(0.5), 0.5)


def test_tensor_de_una_subclase_no_pasa_por_recibido():
    class Tramposo(torch.Tensor):
        pass

    falso = torch.zeros(2).as_subclass(Tramposo)
    assert "se esperaba un tensor de torch" in _mensaje(falso, torch.zeros(2))
    # Lo que reconstruye el juez es siempre del tipo real.
    comparar_valores(decodificar(codificar(torch.zeros(2))), torch.zeros(2))


def test_valores_con_tolerancias_y_mensaje_de_la_prueba():
    comparar_valores(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0 + 1e-5]))
    comparar_valores(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.1]), atol=0.2)
    texto = _mensaje(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.5]), que="La salida")
    assert texto.startswith("La salida: los valores no son los esperados") and "0.5" in texto, texto
    pista = "Revisa la escala"
    assert _mensaje(torch.tensor([1.0]), torch.tensor([2.0]), mensaje=pista) == pista
    # La pista es para valores distintos: la forma equivocada se explica con la forma.
    assert "forma" in _mensaje(torch.tensor([1.0]), torch.tensor([2.0, 3.0]), mensaje=pista)
    with pytest.raises(AssertionError):
        comparar_valores(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0 + 1e-5]), exacto=True)
    comparar_valores(torch.tensor([3, 1]), torch.tensor([3, 1]), exacto=True)
    assert "1 valores distintos" in _mensaje(torch.tensor([3, 2]), torch.tensor([3, 1]), exacto=True)
    comparar_valores(torch.tensor([math.nan]), torch.tensor([math.nan]), nan_iguales=True)
    assert not valores_coinciden(torch.tensor([math.nan]), torch.tensor([math.nan]))
    comparar_valores(np.array([[1, 0], [1, 2]]), np.array([[1, 0], [1, 2]]), exacto=True)
    comparar_valores(0.1 + 0.2, 0.3)
    assert "llegó 0.5 y se esperaba 0.25" in _mensaje(0.5, 0.25)


def test_listas_tuplas_y_dicts_por_elemento():
    comparar_valores([torch.zeros(2), 1.0], (torch.zeros(2), 1.0))
    assert _mensaje([], [1.0, 2.0, 3.0], que="Las normas") == "Las normas: se esperaba una lista de 3 elementos; llegó una de 0 elementos."
    texto = _mensaje([torch.zeros(2), torch.zeros(3)], [torch.zeros(2), torch.zeros(2)], que="Los gradientes")
    assert texto == "Los gradientes[1]: se esperaba forma (2,); llegó forma (3,).", texto
    esperado = {"capa.weight": torch.zeros(2, 3), "capa.bias": torch.zeros(2)}
    texto = _mensaje({"capa.weight": torch.zeros(2, 3)}, esperado, que="Los pesos")
    assert "faltan 'capa.bias'" in texto, texto
    texto = _mensaje({"capa.weight": torch.zeros(3, 2), "capa.bias": torch.zeros(2)}, esperado, que="Los pesos")
    assert texto == "Los pesos['capa.weight']: se esperaba forma (2, 3); llegó forma (3, 2).", texto
    comparar_valores({"a": None, "b": "x", "c": True}, {"a": None, "b": "x", "c": True})
    assert "se esperaba None" in _mensaje({"a": torch.zeros(1)}, {"a": None})


def test_revisar_forma():
    revisar_forma(torch.zeros(3, 4), (3, 4))
    revisar_forma(np.zeros((2, 5)), (None, 5))
    with pytest.raises(AssertionError, match=r"^Los códigos: se esperaba forma \(256,\); llegó forma \(0,\)\.$"):
        revisar_forma(torch.empty(0), (256,), que="Los códigos")
    with pytest.raises(AssertionError, match=r"forma \(\?, 5\); llegó forma \(2, 4\)"):
        revisar_forma(np.zeros((2, 4)), (None, 5))
    with pytest.raises(AssertionError, match="se esperaba un tensor; llegó una lista"):
        revisar_forma([1, 2], (2,))


def test_un_esperado_desconocido_es_un_error_de_la_prueba():
    with pytest.raises(TypeError, match="no sabe comparar"):
        comparar_valores(1, object())
