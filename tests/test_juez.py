"""El juez por dentro: datos planos estrictos, el puente local y el proceso del juez.

Son pruebas rápidas, sin nbgrader; la calificación de punta a punta con
entregas hostiles está en ``tests/test_ataques.py``.
"""

from __future__ import annotations

import base64
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

from tutor_lib.calificacion.juez import MARCA_COMPARTIDA, ErrorDelAlumno, alumno, datos
from tutor_lib.calificacion.juez.ejecutor import es_compartida, es_prueba
from tutor_lib.calificacion.juez.proceso import ejecutar_celda
from tutor_lib.calificacion.juez.puente import interpretar, responder


def ida_y_vuelta(valor):
    return datos.decodificar(datos.codificar(valor))


@pytest.mark.parametrize("valor", [
    None, True, False, 0, -7, 2**80, 1.5, "ñandú", [1, [2, 3]], (1, "a", (2.0,)), {"a": 1, 3: [4]}, {1, 2},
    {(1, 2): {"x": None}},
])
def test_los_datos_planos_vuelven_iguales_y_del_mismo_tipo(valor):
    vuelta = ida_y_vuelta(valor)
    assert vuelta == valor and type(vuelta) is type(valor)


def test_floats_especiales_tensores_y_numpy():
    assert math.isnan(ida_y_vuelta(float("nan"))) and ida_y_vuelta(float("-inf")) == float("-inf")
    for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.bool):
        t = (torch.arange(6).reshape(2, 3) % 2).to(dtype)
        vuelta = ida_y_vuelta(t)
        assert type(vuelta) is torch.Tensor and vuelta.dtype == dtype and torch.equal(vuelta, t)
    assert ida_y_vuelta(torch.zeros(0, 3)).shape == (0, 3)
    p = torch.nn.Parameter(torch.ones(2))
    assert type(ida_y_vuelta(p)) is torch.Tensor  # llega un tensor nuevo, no el parámetro del estudiante
    a = np.arange(4, dtype=np.float32).reshape(2, 2)
    assert np.array_equal(ida_y_vuelta(a), a) and ida_y_vuelta(a).dtype == np.float32
    e = ida_y_vuelta(np.int64(5))
    assert e == 5 and type(e) is np.int64


class _Entero(int):
    def __eq__(self, otro):
        return True

    __hash__ = int.__hash__


class _Lista(list):
    pass


@pytest.mark.parametrize("valor", [_Entero(3), _Lista([1]), object(), lambda: 1, torch.nn.Linear(1, 1),
                                   b"bytes", 1j, np.array(["a"], dtype=object)])
def test_el_lado_del_estudiante_rechaza_lo_que_no_es_plano(valor):
    with pytest.raises(datos.DatoNoPlano, match="dato plano|No se puede"):
        datos.codificar(valor)


@pytest.mark.parametrize("texto", [
    '{"t": "pickle", "v": "gASV"}',                                   # tipo desconocido
    '{"__class__": "os.system"}',                                    # objeto sin tipo
    '{"t": "tensor", "dtype": "float32", "forma": [4], "b64": "AAAA"}',  # bytes que no cuadran
    '{"t": "tensor", "dtype": "complex64", "forma": [0], "b64": ""}',   # dtype fuera de la lista
    '{"t": "tensor", "dtype": "float32", "forma": [-1], "b64": ""}',    # forma negativa
    '{"t": "ndarray", "dtype": "object", "forma": [1], "b64": "AA=="}',
    '{"t": "float", "v": "1e400"}',
    '{"t": "dict", "v": [[[1], 2]]}',                                 # clave no hashable
    "NaN",                                                            # constante JSON no estándar
    "[" * 100 + "]" * 100,                                            # demasiado anidado
    "no es json",
])
def test_el_juez_rechaza_datos_mal_formados_sin_ejecutar_nada(texto):
    with pytest.raises(datos.DatoInvalido):
        datos.decodificar(texto)


def test_el_juez_rechaza_mensajes_enormes():
    with pytest.raises(datos.DatoInvalido):
        datos.decodificar('"' + "x" * (datos.MAX_BYTES + 1) + '"')


def test_el_puente_local_ejecuta_en_el_espacio_del_estudiante():
    espacio = {"doble": lambda x: 2 * x, "SiempreIgual": _Entero}
    pedido = json.dumps({"codigo": "doble(n)", "valores": datos.codificar({"n": 21})})
    assert interpretar(responder(pedido, espacio)) == 42
    pedido = json.dumps({"codigo": "SiempreIgual(0)", "valores": datos.codificar({})})
    with pytest.raises(TypeError, match="dato plano"):
        interpretar(responder(pedido, espacio))
    pedido = json.dumps({"codigo": "x = 1\nraise NotImplementedError('falta')", "valores": datos.codificar({})})
    with pytest.raises(NotImplementedError, match="falta"):
        interpretar(responder(pedido, espacio))
    assert "x" not in espacio, "el código de la prueba corre en una copia: no ensucia el notebook"


def test_una_excepcion_rara_del_estudiante_llega_como_error_del_alumno():
    class Rara(Exception):
        def __str__(self):
            raise RuntimeError("un __str__ hostil")

    espacio = {"Rara": Rara}
    pedido = json.dumps({"codigo": "raise Rara()", "valores": datos.codificar({})})
    with pytest.raises(ErrorDelAlumno, match="Rara"):
        interpretar(responder(pedido, espacio))
    with pytest.raises(ErrorDelAlumno, match="dañada"):
        interpretar("{no es json")
    falso = json.dumps({"valor": json.dumps({"t": "tensor", "dtype": "float32", "forma": [9], "b64": ""})})
    with pytest.raises(ErrorDelAlumno, match="no es un dato plano"):
        interpretar(falso)


def test_alumno_en_el_notebook_del_estudiante(monkeypatch):
    import __main__

    monkeypatch.setattr(__main__, "triple", lambda x: 3 * x, raising=False)
    assert alumno.llamar("triple", 4) == 12
    assert alumno.existe("triple") and not alumno.existe("no_definida_en_ningun_lado")
    with pytest.raises(ValueError):
        alumno.llamar("os.system('x')")


def test_una_prueba_que_falla_no_muestra_su_codigo():
    espacio = {}
    salidas = ejecutar_celda("secreto = 'linea oculta'\nassert secreto == 'otra', 'mensaje en español'", "p", espacio)
    error = salidas[-1]
    assert error["output_type"] == "error" and error["ename"] == "AssertionError"
    assert error["evalue"] == "mensaje en español"
    assert "linea oculta" not in json.dumps(salidas)
    salidas = ejecutar_celda("print('hola')\n3 / 4", "p", espacio)
    assert salidas[0]["text"] == "hola\n" and salidas[1]["data"]["text/plain"] == "0.75"


def _celda(fuente, **nbg):
    from nbformat.v4 import new_code_cell

    return new_code_cell(fuente, metadata={"nbgrader": nbg} if nbg else {})


def test_donde_corre_cada_celda_lo_deciden_nbgrader_y_el_codigo_bloqueado():
    assert es_prueba(_celda("assert 1", grade=True, solution=False, locked=True, points=1))
    assert not es_prueba(_celda("x = 1", grade=True, solution=True))
    assert not es_prueba(_celda("x = 1"))
    assert es_compartida(_celda(MARCA_COMPARTIDA + ": importaciones\nimport math", locked=True))
    # una celda del estudiante no se vuelve compartida por empezar con la marca: no está bloqueada
    assert not es_compartida(_celda(MARCA_COMPARTIDA + "\nimport os"))
    assert not es_compartida(_celda(MARCA_COMPARTIDA, locked=True, solution=True))
    assert not es_compartida(_celda("import math", locked=True))


def test_el_proceso_del_juez_habla_por_sus_tuberias():
    """El juez de verdad, en un subproceso: una celda que pide algo al «estudiante» (aquí, la prueba)."""
    a_juez_r, a_juez_w = os.pipe()
    de_juez_r, de_juez_w = os.pipe()
    proc = subprocess.Popen([sys.executable, "-m", "tutor_lib.calificacion.juez.proceso", str(a_juez_r),
                             str(de_juez_w)], pass_fds=(a_juez_r, de_juez_w))
    os.close(a_juez_r)
    os.close(de_juez_w)
    escribir, leer = os.fdopen(a_juez_w, "w"), os.fdopen(de_juez_r)
    try:
        codigo = "from tutor_lib.juez import alumno\nr = alumno.llamar('doble', 21)\nassert type(r) is int, 'int'\nprint(r)"
        escribir.write(json.dumps({"tipo": "celda", "nombre": "p", "codigo": codigo}) + "\n")
        escribir.flush()
        pedido = json.loads(leer.readline())
        assert pedido["tipo"] == "alumno"
        contenido = json.loads(pedido["pedido"])
        assert contenido["codigo"].startswith("doble(")
        respuesta = responder(pedido["pedido"], {"doble": lambda x: 2 * x})
        escribir.write(json.dumps({"tipo": "respuesta", "respuesta": respuesta}) + "\n")
        escribir.flush()
        fin = json.loads(leer.readline())
        assert fin == {"tipo": "fin", "salidas": [{"output_type": "stream", "name": "stdout", "text": "42\n"}]}
    finally:
        escribir.close()
        proc.wait(timeout=30)
        leer.close()
    assert proc.returncode == 0


def test_un_tensor_falso_con_base64_invalido():
    malo = json.dumps({"t": "tensor", "dtype": "float32", "forma": [1], "b64": "***"})
    with pytest.raises(datos.DatoInvalido):
        datos.decodificar(malo)
    bueno = json.dumps({"t": "tensor", "dtype": "float32", "forma": [1],
                        "b64": base64.b64encode(np.float32(2).tobytes()).decode()})
    assert datos.decodificar(bueno).item() == 2.0


def test_una_parte_sin_escribir_se_ve_en_el_notebook_como_en_la_autoevaluacion(tmp_path):
    """Issue 43, punto 5: en un kernel de verdad, la prueba visible de una función sin escribir dice en español
    qué falta, y el traceback no pasa por el puente del juez (IPython oculta sus marcos)."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("def pasos_totales(n):\n    # TU CÓDIGO AQUÍ\n    raise NotImplementedError()"),
        nbformat.v4.new_code_cell('from tutor_lib.juez import alumno\nresultado = alumno.llamar("pasos_totales", 3)'),
    ])
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    (error,) = [s for s in nb.cells[1].outputs if s.output_type == "error"]
    assert error.ename == "NotImplementedError"
    assert "Todavía no escribiste esta parte: tu función pasos_totales" in error.evalue, error.evalue
    rastro = "\n".join(error.traceback)
    assert "puente.py" not in rastro and "Traceback" not in rastro, rastro
    assert "Todavía no escribiste" in rastro, rastro
