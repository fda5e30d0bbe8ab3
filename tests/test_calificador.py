"""Reconstrucción de entregas (tutor_lib.calificacion.motor.calificador.normalizar), sin nbgrader ni kernel.

La reconstrucción es lo que hace que manipular una entrega no sirva: las
pruebas siempre salen del notebook liberado y de la entrega solo se toma el
código de las celdas de solución y las celdas agregadas. Aquí se prueba con
notebooks pequeños; tests/test_calificar.py lo prueba con nbgrader de verdad.
"""

from __future__ import annotations

import copy
import json
import zipfile

import nbformat
import pytest

from tutor_lib.calificacion.motor.calificador import (
    codigo_de_solucion,
    entrega_de_referencia,
    entregas_de_carpeta,
    id_seguro,
    leer_entrega,
    normalizar,
    _extraer_zip,
)


def _nbg(grade_id, **campos):
    base = {"grade": False, "solution": False, "locked": False, "grade_id": grade_id, "schema_version": 3}
    base.update(campos)
    return {"nbgrader": base}


def liberado():
    nb = nbformat.v4.new_notebook()
    celdas = [
        nbformat.v4.new_markdown_cell("# Ejercicio", metadata=_nbg("titulo", locked=True)),
        nbformat.v4.new_code_cell("import math", metadata=_nbg("imports", locked=True)),
        nbformat.v4.new_code_cell("def f(x):\n    # TU CÓDIGO AQUÍ\n    raise NotImplementedError()", metadata=_nbg("sol-f", solution=True)),
        nbformat.v4.new_code_cell("assert f(2) == 4", metadata=_nbg("prueba-f", grade=True, locked=True, points=2)),
        nbformat.v4.new_markdown_cell("Ahora g.", metadata=_nbg("enunciado-g", locked=True)),
        nbformat.v4.new_code_cell("def g(x):\n    # TU CÓDIGO AQUÍ\n    raise NotImplementedError()", metadata=_nbg("sol-g", solution=True)),
        nbformat.v4.new_code_cell("assert g(1) == 3", metadata=_nbg("prueba-g", grade=True, locked=True, points=1)),
        nbformat.v4.new_markdown_cell("TU RESPUESTA AQUÍ", metadata=_nbg("escrita", grade=True, solution=True, points=1)),
    ]
    for i, c in enumerate(celdas):
        c["id"] = f"celda-{i:03d}"
    nb.cells = celdas
    return nb


def resuelto():
    nb = copy.deepcopy(liberado())
    nb.cells[2].source = "def f(x):\n    return 2 * x"
    nb.cells[5].source = "def g(x):\n    return 3 * x"
    nb.cells[7].source = "Porque sí."
    return nb


def fuentes(nb):
    return [(c.cell_type, c.source) for c in nb.cells]


def test_entrega_intacta_queda_igual():
    nb, avisos = normalizar(json.loads(nbformat.writes(resuelto())), liberado())
    assert fuentes(nb) == fuentes(resuelto())
    assert avisos == []


def test_pruebas_editadas_borradas_duplicadas_o_en_markdown_vuelven_a_ser_las_originales():
    trampa = json.loads(nbformat.writes(resuelto()))
    trampa["cells"][3]["source"] = "pass  # prueba vaciada"  # editada, metadatos intactos
    del trampa["cells"][6]  # prueba de g borrada
    trampa["cells"].insert(4, copy.deepcopy(trampa["cells"][3]))  # duplicada
    trampa["cells"][1]["cell_type"] = "markdown"  # celda bloqueada convertida en markdown
    trampa["cells"][1].pop("outputs", None)
    trampa["cells"][1].pop("execution_count", None)
    nb, _ = normalizar(trampa, liberado())
    esperado = fuentes(resuelto())
    assert fuentes(nb)[: len(esperado)] == esperado
    assert [c.source for c in nb.cells].count("assert f(2) == 4") == 1
    assert "pass  # prueba vaciada" not in [c.source for c in nb.cells]


def test_metadatos_perdidos_como_en_colab_se_recuperan_por_posicion():
    sin_meta = json.loads(nbformat.writes(resuelto()))
    for c in sin_meta["cells"]:
        c["metadata"] = {}
        c.pop("id", None)
    nb, avisos = normalizar(sin_meta, liberado())
    assert fuentes(nb) == fuentes(resuelto())
    assert [c.metadata["nbgrader"]["grade_id"] for c in nb.cells] == [c.metadata["nbgrader"]["grade_id"] for c in liberado().cells]
    assert avisos == []


def test_metadatos_cambiados_no_dan_puntos():
    cambiado = json.loads(nbformat.writes(resuelto()))
    cambiado["cells"][2]["metadata"]["nbgrader"].update(grade=True, points=100)  # solución que se dice prueba
    cambiado["cells"][3]["metadata"]["nbgrader"]["points"] = 50
    nb, _ = normalizar(cambiado, liberado())
    puntos = [c.metadata["nbgrader"].get("points") for c in nb.cells if c.metadata["nbgrader"].get("grade")]
    assert puntos == [2, 1, 1]
    assert nb.cells[2].source == "def f(x):\n    return 2 * x"


def test_solucion_borrada_cuenta_como_vacia_y_avisa():
    falta = json.loads(nbformat.writes(resuelto()))
    del falta["cells"][5]
    nb, avisos = normalizar(falta, liberado())
    assert "NotImplementedError" in nb.cells[5].source
    assert any("sol-g" in a for a in avisos)


def test_celdas_agregadas_se_conservan_en_su_lugar_y_sin_metadatos():
    extra = json.loads(nbformat.writes(resuelto()))
    ayuda = nbformat.v4.new_code_cell("def ayuda():\n    return 1")
    extra["cells"].insert(3, json.loads(json.dumps(ayuda)))
    nb, _ = normalizar(extra, liberado())
    fuentes_ = [c.source for c in nb.cells]
    assert fuentes_.index("def ayuda():\n    return 1") == fuentes_.index("def f(x):\n    return 2 * x") + 1
    agregada = nb.cells[fuentes_.index("def ayuda():\n    return 1")]
    assert "nbgrader" not in agregada.metadata
    nbformat.validate(nb)


def test_solucion_copiada_dos_veces_no_se_pierde_ni_duplica_la_prueba():
    doble = json.loads(nbformat.writes(resuelto()))
    doble["cells"].insert(3, copy.deepcopy(doble["cells"][2]))
    doble["cells"][3]["source"] = "def f(x):\n    return x + x"
    nb, _ = normalizar(doble, liberado())
    assert [c.source for c in nb.cells].count("assert f(2) == 4") == 1
    assert nb.cells[2].source == "def f(x):\n    return 2 * x"
    assert nb.cells[3].source == "def f(x):\n    return x + x"  # queda como celda agregada


def test_leer_entrega_rechaza_lo_que_no_es_notebook(tmp_path):
    (tmp_path / "a.ipynb").write_text("{roto")
    (tmp_path / "b.ipynb").write_text("[1, 2]")
    (tmp_path / "c.ipynb").write_bytes(b"\xff\xfe\x00")
    for nombre in ("a", "b", "c"):
        with pytest.raises(ValueError, match="notebook"):
            leer_entrega(tmp_path / f"{nombre}.ipynb")


def test_codigo_de_solucion_y_entrega_de_referencia():
    fuente = liberado()
    fuente.cells[2].source = "def f(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION"
    assert codigo_de_solucion(fuente.cells[2].source) == "def f(x):\n    return 2 * x"
    nb = entrega_de_referencia(fuente, liberado(), {"sol-g": "def g(x):\n    return 0"})
    assert nb.cells[2].source == "def f(x):\n    return 2 * x"
    assert nb.cells[5].source == "def g(x):\n    return 0"
    with pytest.raises(ValueError, match="no son de solución"):
        entrega_de_referencia(fuente, liberado(), {"prueba-f": "pass"})


def test_ids_de_estudiantes_y_carpetas(tmp_path):
    assert id_seguro("Carla Núñez") == "Carla_Nunez"
    assert id_seguro("../../etc") == "etc"
    assert id_seguro("...") == "estudiante"
    (tmp_path / "ana").mkdir()
    (tmp_path / "ana" / "ej04_warmup.ipynb").write_text("{}")
    (tmp_path / "vacia").mkdir()
    (tmp_path / "dos").mkdir()
    (tmp_path / "dos" / "ej04_warmup.ipynb").write_text("{}")
    (tmp_path / "dos" / "ej04_warmup (1).ipynb").write_text("{}")
    (tmp_path / "beto_ej04_warmup.ipynb").write_text("{}")
    (tmp_path / "Ana").mkdir()
    (tmp_path / "Ana" / "x.ipynb").write_text("{}")
    encontradas = {e.nombre: e for e in entregas_de_carpeta(tmp_path, "ej04_warmup")}
    assert encontradas["ana"].ruta.name == "ej04_warmup.ipynb"
    assert encontradas["vacia"].ruta is None and "ningún notebook" in encontradas["vacia"].problema
    assert encontradas["dos"].ruta is None and "2 notebooks" in encontradas["dos"].problema
    assert encontradas["beto_ej04_warmup.ipynb"].id == "beto"
    assert len({e.id for e in encontradas.values()}) == len(encontradas)  # nadie pisa a nadie


def test_zip_con_rutas_peligrosas_se_rechaza(tmp_path):
    z = tmp_path / "entregas.zip"
    with zipfile.ZipFile(z, "w") as f:
        f.writestr("../fuera.ipynb", "{}")
    destino = tmp_path / "x"
    destino.mkdir()
    with pytest.raises(ValueError, match="peligrosa"):
        _extraer_zip(z, destino)
    assert not (tmp_path / "fuera.ipynb").exists()
