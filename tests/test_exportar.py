"""``tutor exportar`` (issue 45, puntos 2 y 3): las notas de ``tutor calificar`` en la hoja de Canvas o de Moodle,
el XML de Moodle y los Score de LTI 1.3.

Todo es sintético y sin nbgrader: una carpeta como la que deja ``tutor calificar`` (con las claves
``lms``/``lms_id``/``tarde`` nuevas y un estudiante de una corrida anterior, sin ellas) y hojas con la
forma que escriben los LMS (``lib/gradebook_exporter.rb`` de Canvas, ``assignfeedback_offline`` de
Moodle). Cada prueba de hoja revisa **todas** las celdas: las de nota y comentario tienen el valor del
estudiante de esa fila y las demás son idénticas a las de la hoja original.
"""

from __future__ import annotations

import csv
import datetime
import io
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tutor_lib.calificacion.exportar import exportar_notas, leer_lista, leer_resultados
from tutor_lib.calificacion.hojas_lms import celda_segura, escribir_numero, leer_numero

RAIZ = Path(__file__).resolve().parents[1]
ASIG = "ej02_datos"


def _parte(ident, puntos, maximo, mensaje="Bien: pasa las pruebas."):
    return {"id": ident, "puntos": puntos, "maximo": maximo, "mensaje": mensaje}


#: id → (estado, puntos, pendiente_manual, partes, claves del LMS o None si es una corrida anterior al issue 45)
CLASE = {
    "ana": ("calificado", 15.0, 0.0, [_parte("a", 10.0, 10.0), _parte("b", 5.0, 10.0, "La pérdida no baja: ¿lr <0.1?")],
            {"nombre_original": "Ana López_101_...", "lms": "canvas", "lms_id": "101", "tarde": False}),
    "bruno": ("calificado", 20.0, 0.0, [_parte("a", 10.0, 10.0), _parte("b", 10.0, 10.0)],
              {"nombre_original": "bruno_LATE_102", "lms": "canvas", "lms_id": "102", "tarde": True}),
    "carla": ("calificado", 12.0, 4.0, [_parte("a", 10.0, 10.0), _parte("b", 2.0, 6.0), _parte("c", None, 4.0)],
              {"nombre_original": "carla", "lms": "canvas", "lms_id": "103", "tarde": False}),
    "diego": ("error", 0.0, 0.0, [], {"nombre_original": "diego", "lms": "canvas", "lms_id": "104", "tarde": False}),
    "elena": ("calificado", 18.0, 0.0, [_parte("a", 10.0, 10.0), _parte("b", 8.0, 10.0)], None),
    "fabian": ("calificado", 10.0, 0.0, [_parte("a", 10.0, 10.0), _parte("b", 0.0, 10.0)],
               {"nombre_original": "fabian", "lms": "canvas", "lms_id": "999", "tarde": False}),
}


def _carpeta(tmp_path: Path, clase=CLASE, lms="canvas", ids=None, nombre="calificaciones_ej02") -> Path:
    carpeta = tmp_path / nombre
    carpeta.mkdir()
    estudiantes, detalle = {}, {}
    for ident, (estado, puntos, pendiente, partes, claves) in clase.items():
        e = {"puntos": puntos, "estado": estado, "mensaje": f"{puntos:g} de 20 puntos."}
        if claves:
            e.update(claves, lms=lms)
            if ids:
                e["lms_id"] = ids[ident]
        estudiantes[ident] = e
        detalle[ident] = {"asignacion": ASIG, "estudiante": ident, "estado": estado, "puntos": puntos, "maximo": 20.0,
                          "mensaje": e["mensaje"], "partes": partes, "avisos": [], "pendiente_manual": pendiente,
                          "aislamiento": {}, "tiempos": {}}
    (carpeta / "calificaciones.json").write_text(json.dumps({
        "asignacion": ASIG, "maximo": 20.0, "estudiantes": estudiantes, "salida": str(carpeta), "omitidas": []}))
    (carpeta / "detalle.json").write_text(json.dumps(detalle))
    return carpeta


def _csv(filas, delimitador=",", fin="\n", bom=False) -> str:
    s = io.StringIO(newline="")
    csv.writer(s, delimiter=delimitador, lineterminator=fin).writerows(filas)
    return ("\ufeff" if bom else "") + s.getvalue()


def _leer(ruta: Path, delimitador=",") -> list[list[str]]:
    return list(csv.reader(io.StringIO(ruta.read_text(encoding="utf-8-sig"), newline=""), delimiter=delimitador))


def _solo_cambian(original, nuevo, esperadas: dict[tuple[int, int], str]):
    """Cada celda de ``nuevo`` es la de ``original`` salvo las de ``esperadas``, que tienen ese valor."""
    assert len(nuevo) == len(original)
    for i, (a, b) in enumerate(zip(original, nuevo)):
        assert len(b) == len(a), f"fila {i}"
        for j, (x, y) in enumerate(zip(a, b)):
            assert y == esperadas.get((i, j), x), f"celda ({i}, {j}): {y!r}"
    for (i, j) in esperadas:
        assert nuevo[i][j] == esperadas[(i, j)]


# --- Canvas ---------------------------------------------------------------------------------------------

CANVAS_ENC = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Notas del profe", "ej01_intro (555)",
              f"{ASIG} (1234)", "Assignments Current Score", "Current Score", "Final Score"]
CANVAS_PUNTOS = ["    Points Possible", "", "", "", "", "(read only)", "5.00", "10.00", "(read only)", "(read only)",
                 "(read only)"]
CANVAS_FILAS = [
    ["López, Ana", "101", "A001", "ana@uni.mx", "Sección 1", "", "5.00", "", "80", "80", "80"],
    ["Bruno, Díaz", "102", "A002", "bruno@uni.mx", "Sección 1", "buen grupo", "4.00", "3.00", "70", "70", "70"],
    ["Carla, Ruiz", "103", "A003", "carla@uni.mx", "Sección 2", "", "", "", "", "", ""],
    ["Diego, Mora", "104", "A004", "diego@uni.mx", "Sección 2", "", "", "", "", "", ""],
    ["Elena, Paz", "105", "A005", "elena@uni.mx", "Sección 2", "", "5.00", "", "", "", ""],
    ["Gaby, Sol", "106", "A006", "gaby@uni.mx", "Sección 2", "", "", "", "", "", ""],
    ["Student, Test", "107", "", "", "Sección 1", "", "", "", "", "", ""],
]


def _hoja_canvas(tmp_path, filas=None, nombre="canvas.csv", **forma) -> Path:
    ruta = tmp_path / nombre
    ruta.write_text(_csv(filas or [CANVAS_ENC, CANVAS_PUNTOS, *CANVAS_FILAS], **forma), encoding="utf-8", newline="")
    return ruta


def _lista(tmp_path, filas, nombre="lista.csv") -> Path:
    ruta = tmp_path / nombre
    ruta.write_text(_csv(filas), encoding="utf-8")
    return ruta


def test_canvas_llena_la_columna_escalada_y_nada_mas(tmp_path):
    carpeta = _carpeta(tmp_path)
    hoja = _hoja_canvas(tmp_path)
    lista = _lista(tmp_path, [["estudiante", "email"], ["elena", "ELENA@uni.mx"]])
    original = hoja.read_bytes()
    datos = exportar_notas(carpeta, tmp_path / "salida.csv", hoja=hoja, lista=lista)
    assert hoja.read_bytes() == original
    assert datos["formato"] == "canvas" and datos["columna"] == f"{ASIG} (1234)"
    assert (datos["maximo"], datos["maximo_lms"], datos["factor"]) == (20.0, 10.0, 0.5)
    col = CANVAS_ENC.index(f"{ASIG} (1234)")
    # fila 2 = Ana (15/20 → 7.5 de 10), 3 = Bruno (20 → 10; tenía 3), 6 = Elena por --lista (18 → 9)
    _solo_cambian(_leer(hoja), _leer(tmp_path / "salida.csv"), {(2, col): "7.5", (3, col): "10", (6, col): "9"})
    exportadas = {e["estudiante"]: e for e in datos["exportadas"]}
    assert set(exportadas) == {"ana", "bruno", "elena"}
    assert exportadas["bruno"]["anterior"] == "3.00" and exportadas["bruno"]["tarde"] is True
    assert exportadas["elena"]["lms_id"] == "105" and exportadas["ana"]["fila"] == 3
    assert [p["estudiante"] for p in datos["pendiente_manual"]] == ["carla"]
    assert datos["pendiente_manual"][0]["pendiente_manual"] == 4.0
    assert datos["no_calificadas"] == [{"estudiante": "diego", "estado": "error", "mensaje": "0 de 20 puntos."}]
    assert [(s["estudiante"], s["lms_id"]) for s in datos["sin_fila"]] == [("fabian", "999")]
    assert [s["nombre"] for s in datos["sin_entrega"]] == ["Gaby, Sol", "Student, Test"]
    assert datos["conflictos"] == [] and datos["celdas_neutralizadas"] == 0 and datos["anterior"] is None


def test_canvas_sin_points_possible_con_manual_posting_punto_y_coma_bom_crlf(tmp_path):
    """Sin «Points Possible» no se escala; la fila «Manual Posting» y la forma del archivo se conservan."""
    carpeta = _carpeta(tmp_path)
    oculta = ["", "", "", "", "", "", "", "Manual Posting", "", "", ""]
    filas = [CANVAS_ENC, oculta, *[[c.replace(".00", ",00") for c in f] for f in CANVAS_FILAS]]
    hoja = _hoja_canvas(tmp_path, filas, delimitador=";", fin="\r\n", bom=True)
    datos = exportar_notas(carpeta, tmp_path / "salida.csv", hoja=hoja)
    crudo = (tmp_path / "salida.csv").read_bytes()
    assert crudo.startswith(b"\xef\xbb\xbf") and b"\r\n" in crudo and crudo.count(b"\n") == crudo.count(b"\r\n")
    assert datos["maximo_lms"] is None and datos["factor"] == 1.0
    assert any("Points Possible" in a for a in datos["avisos"])
    col = CANVAS_ENC.index(f"{ASIG} (1234)")
    _solo_cambian(_leer(hoja, ";"), _leer(tmp_path / "salida.csv", ";"), {(2, col): "15", (3, col): "20"})
    assert "elena" in {s["estudiante"] for s in datos["sin_fila"]}  # corrida anterior sin lms y sin --lista


def test_canvas_con_apellido_y_nombre_separados(tmp_path):
    """La variante «LastName, FirstName» del exportador de Canvas: el ID pasa a la tercera columna."""
    carpeta = _carpeta(tmp_path)
    enc = ["LastName", "FirstName", *CANVAS_ENC[1:]]
    puntos = ["    Points Possible", "", *CANVAS_PUNTOS[1:]]
    oculta = ["", "", *[""] * 6, "Manual Posting (scores hidden from instructors)", "", "", ""]
    filas = [[*f[0].split(", "), *f[1:]] for f in CANVAS_FILAS]
    hoja = _hoja_canvas(tmp_path, [enc, oculta, puntos, *filas])
    datos = exportar_notas(carpeta, tmp_path / "s.csv", hoja=hoja)
    col = enc.index(f"{ASIG} (1234)")
    _solo_cambian(_leer(hoja), _leer(tmp_path / "s.csv"), {(3, col): "7.5", (4, col): "10"})
    assert {e["nombre_en_hoja"] for e in datos["exportadas"]} == {"Ana López", "Díaz Bruno"}


def test_canvas_columna_por_nombre_y_por_columna(tmp_path):
    carpeta = _carpeta(tmp_path)
    enc = [c.replace(f"{ASIG} (1234)", "Tarea 2: datos (1234)") for c in CANVAS_ENC]
    hoja = _hoja_canvas(tmp_path, [enc, CANVAS_PUNTOS, *CANVAS_FILAS])
    with pytest.raises(ValueError, match="ninguna columna para la asignación 'ej02_datos'.*Tarea 2: datos"):
        exportar_notas(carpeta, tmp_path / "s.csv", hoja=hoja)
    assert not (tmp_path / "s.csv").exists()
    for columna in ("Tarea 2: datos", "tarea 2: datos (1234)"):
        datos = exportar_notas(carpeta, tmp_path / f"s{len(columna)}.csv", hoja=hoja, columna=columna)
        assert datos["columna"] == "Tarea 2: datos (1234)"
    with pytest.raises(ValueError, match="la calcula Canvas"):
        exportar_notas(carpeta, tmp_path / "t.csv", hoja=hoja, columna="Current Score")
    assert not (tmp_path / "t.csv").exists()


def test_canvas_ex_y_na_no_se_tocan(tmp_path):
    carpeta = _carpeta(tmp_path)
    filas = [list(f) for f in CANVAS_FILAS]
    col = CANVAS_ENC.index(f"{ASIG} (1234)")
    filas[0][col], filas[1][col] = "EX", "N/A"
    hoja = _hoja_canvas(tmp_path, [CANVAS_ENC, CANVAS_PUNTOS, *filas])
    datos = exportar_notas(carpeta, tmp_path / "s.csv", hoja=hoja)
    assert datos["exportadas"] == []
    assert {o["estudiante"]: o["motivo"][:20] for o in datos["omitidas"]} == {
        "ana": "Canvas la tiene como", "bruno": "la tarea no está asi"}
    _solo_cambian(_leer(hoja), _leer(tmp_path / "s.csv"), {})


def test_formulas_de_la_hoja_se_neutralizan_y_se_cuentan(tmp_path):
    carpeta = _carpeta(tmp_path)
    filas = [list(f) for f in CANVAS_FILAS]
    filas[5][0] = '=HYPERLINK("http://x","Gaby")'
    filas[5][5] = "@SUM(1+1)"
    hoja = _hoja_canvas(tmp_path, [CANVAS_ENC, CANVAS_PUNTOS, *filas])
    datos = exportar_notas(carpeta, tmp_path / "s.csv", hoja=hoja)
    assert datos["celdas_neutralizadas"] == 2
    nuevo = _leer(tmp_path / "s.csv")
    assert nuevo[7][0] == "'" + filas[5][0] and nuevo[7][5] == "'@SUM(1+1)"
    assert not any(c[:1] in "=+@" or (c[:1] == "-" and c != "-") for f in nuevo for c in f if c)


def test_dos_columnas_que_coinciden(tmp_path):
    carpeta = _carpeta(tmp_path)
    enc = [*CANVAS_ENC[:8], f"{ASIG} (9999)", *CANVAS_ENC[8:]]
    filas = [[*f[:8], "", *f[8:]] for f in (CANVAS_PUNTOS, *CANVAS_FILAS)]
    hoja = _hoja_canvas(tmp_path, [enc, *filas])
    with pytest.raises(ValueError, match=r"2 columnas que coinciden.*--columna"):
        exportar_notas(carpeta, tmp_path / "s.csv", hoja=hoja)
    assert not (tmp_path / "s.csv").exists()
    datos = exportar_notas(carpeta, tmp_path / "s.csv", hoja=hoja, columna=f"{ASIG} (9999)")
    assert datos["columna"] == f"{ASIG} (9999)"


# --- Moodle ---------------------------------------------------------------------------------------------

MOODLE_EN = ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade", "Grade can be changed",
             "Last modified (submission)", "Last modified (grade)", "Feedback comments"]
MOODLE_ES = ["Identificador", "Nombre completo", "Dirección de correo", "Estado", "Calificación", "Calificación máxima",
             "La calificación puede ser cambiada", "Última modificación (entrega)",
             "Última modificación (calificación)", "Comentarios de retroalimentación"]
IDS_MOODLE = {"ana": "501", "bruno": "502", "carla": "503", "diego": "504", "fabian": "509"}


def _filas_moodle(participante="Participant ", decimal=".", si="Yes", no="No"):
    diez = f"10{decimal}00"
    return [
        [f"{participante}501", "Ana López", "ana@uni.mx", "Submitted for grading", "", diez, si, "1 January 2024", "-", ""],
        [f"{participante}502", "Bruno Díaz", "bruno@uni.mx", "Submitted", f"3{decimal}00", diez, si, "2 January", "3 January",
         "bien"],
        [f"{participante}503", "Carla Ruiz", "carla@uni.mx", "Submitted", "", diez, si, "-", "-", ""],
        [f"{participante}505", "Elena Paz", "elena@uni.mx", "Submitted", "", diez, si, "-", "-", ""],
        [f"{participante}506", "Gaby Sol", "gaby@uni.mx", "No submission", "", diez, no, "-", "-", ""],
    ]


@pytest.mark.parametrize("idioma", ["en", "es"])
def test_moodle_en_ingles_y_en_espanol(tmp_path, idioma):
    carpeta = _carpeta(tmp_path, lms="moodle", ids={**IDS_MOODLE, "elena": None})
    if idioma == "en":
        filas, decimal = [MOODLE_EN, *_filas_moodle()], "."
    else:
        filas, decimal = [MOODLE_ES, *_filas_moodle("Participante", ",", "Sí", "No")], ","
    hoja = tmp_path / "moodle.csv"
    hoja.write_text(_csv(filas), encoding="utf-8")
    lista = _lista(tmp_path, [["estudiante", "lms_id", "email"], ["elena", "", "elena@uni.mx"],
                              ["gaby", "Participant 506", ""]])
    datos = exportar_notas(carpeta, tmp_path / "salida.csv", hoja=hoja, lista=lista)
    assert datos["formato"] == "moodle" and datos["columna"] == filas[0][4] and datos["factor"] == 0.5
    nuevo = _leer(tmp_path / "salida.csv")
    com = {i: nuevo[i][9] for i in (1, 2, 4)}
    _solo_cambian(filas, nuevo, {(1, 4): f"7{decimal}50", (2, 4): f"10{decimal}00", (4, 4): f"9{decimal}00",
                                 (1, 9): com[1], (2, 9): com[2], (4, 9): com[4]})
    assert com[1].splitlines() == ["ej02_datos: 15 de 20 puntos.", "Parte a: 10 de 10. Bien: pasa las pruebas.",
                                   "Parte b: 5 de 10. La pérdida no baja: ¿lr &lt;0.1?"]
    assert com[2].startswith("ej02_datos: 20 de 20 puntos.") and com[4].startswith("ej02_datos: 18 de 20")
    assert {e["estudiante"] for e in datos["exportadas"]} == {"ana", "bruno", "elena"}
    assert [p["estudiante"] for p in datos["pendiente_manual"]] == ["carla"]
    assert [s["estudiante"] for s in datos["sin_fila"]] == ["diego", "fabian"]
    assert [s["nombre"] for s in datos["sin_entrega"]] == ["Gaby Sol"]


def test_moodle_calificacion_bloqueada_y_sin_columna_de_comentarios(tmp_path):
    carpeta = _carpeta(tmp_path, lms="moodle", ids={**IDS_MOODLE, "elena": None})
    filas = [r[:9] for r in [MOODLE_EN, *_filas_moodle()]]
    filas[1][6] = "No"
    hoja = tmp_path / "moodle.csv"
    hoja.write_text(_csv(filas), encoding="utf-8")
    datos = exportar_notas(carpeta, tmp_path / "s.csv", hoja=hoja)
    assert [o["estudiante"] for o in datos["omitidas"]] == ["ana"] and "bloqueada" in datos["omitidas"][0]["motivo"]
    assert any("Feedback comments" in a for a in datos["avisos"])
    _solo_cambian(filas, _leer(tmp_path / "s.csv"), {(2, 4): "10.00"})


def test_moodle_escala_no_se_admite(tmp_path):
    carpeta = _carpeta(tmp_path, lms="moodle", ids={**IDS_MOODLE, "elena": None})
    filas = [[c.replace("Maximum Grade", "Scale") for c in MOODLE_EN], *_filas_moodle()]
    hoja = tmp_path / "moodle.csv"
    hoja.write_text(_csv(filas), encoding="utf-8")
    with pytest.raises(ValueError, match="escala"):
        exportar_notas(carpeta, tmp_path / "s.csv", hoja=hoja)
    assert not (tmp_path / "s.csv").exists()


# --- XML de Moodle y LTI ---------------------------------------------------------------------------------


def test_moodle_xml_se_lee_de_vuelta(tmp_path):
    carpeta = _carpeta(tmp_path)
    lista = _lista(tmp_path, [["estudiante", "numero_id"], ["ana", "A&001"], ["bruno", "A002"], ["carla", "A003"],
                              ["elena", "A005"]])
    datos = exportar_notas(carpeta, tmp_path / "notas.xml", formato="moodle-xml", lista=lista, columna="item<2>")
    raiz = ET.parse(tmp_path / "notas.xml").getroot()
    assert raiz.tag == "results"
    leidos = {r.findtext("student"): (r.findtext("assignment"), r.findtext("score"), r.findtext("feedback"))
              for r in raiz.findall("result")}
    assert set(leidos) == {"A&001", "A002", "A005"}  # carla: pendiente; diego: error; fabian: sin numero_id
    assert leidos["A&001"][:2] == ("item<2>", "15") and leidos["A005"][1] == "18"
    assert "¿lr &lt;0.1?" in leidos["A&001"][2]  # Moodle guarda el comentario como HTML
    assert [s["estudiante"] for s in datos["sin_fila"]] == ["fabian"]
    assert any("sin escalar" in a for a in datos["avisos"])


def test_moodle_xml_con_la_hoja_escala_y_toma_el_numero_id(tmp_path):
    carpeta = _carpeta(tmp_path, lms="moodle", ids={**IDS_MOODLE, "elena": None})
    enc = [*MOODLE_EN[:3], "ID number", *MOODLE_EN[3:]]
    filas = [enc, *[[*f[:3], f"N{f[0][-3:]}", *f[3:]] for f in _filas_moodle()]]
    hoja = tmp_path / "moodle.csv"
    hoja.write_text(_csv(filas), encoding="utf-8")
    exportar_notas(carpeta, tmp_path / "notas.xml", hoja=hoja, formato="moodle-xml")
    leidos = {r.findtext("student"): r.findtext("score") for r in ET.parse(tmp_path / "notas.xml").getroot()}
    assert leidos == {"N501": "7.5", "N502": "10"}


def test_lti_un_score_por_linea(tmp_path):
    carpeta = _carpeta(tmp_path)
    lista = _lista(tmp_path, [["estudiante", "lti_user_id"], ["elena", "f3a9-uuid"]])
    ahora = datetime.datetime(2025, 3, 1, 12, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=-6)))
    datos = exportar_notas(carpeta, tmp_path / "scores.jsonl", formato="lti", lista=lista, ahora=ahora)
    scores = {s["userId"]: s for s in map(json.loads, (tmp_path / "scores.jsonl").read_text().splitlines())}
    assert set(scores) == {"101", "102", "103", "999", "f3a9-uuid"}
    assert scores["101"] == {"userId": "101", "scoreGiven": 15.0, "scoreMaximum": 20.0, "activityProgress": "Completed",
                             "gradingProgress": "FullyGraded", "timestamp": "2025-03-01T12:00:00.000-06:00",
                             "comment": scores["101"]["comment"]}
    assert "¿lr <0.1?" in scores["101"]["comment"]  # LTI: texto plano
    assert scores["103"]["gradingProgress"] == "PendingManual" and scores["103"]["scoreGiven"] == 12.0
    assert "Parte c: respuesta escrita, pendiente de calificar a mano (4 puntos)." in scores["103"]["comment"]
    assert [p["estudiante"] for p in datos["pendiente_manual"]] == ["carla"]
    with pytest.raises(ValueError, match="no usa --hoja"):
        exportar_notas(carpeta, tmp_path / "otro.jsonl", formato="lti", hoja=_hoja_canvas(tmp_path))


# --- entradas malas: error en español y nada escrito -----------------------------------------------------


@pytest.mark.parametrize("contenido,texto", [
    (b"", "está vacía"),
    (b"Student,ID,Section\n\xff\xfe,1,2\n", "no está en UTF-8"),
    (b"Student,ID,SIS Login ID,Section,ej02_datos (1)\nAna,101,a,S1\n", "dispareja: la fila 2 tiene 4 celdas"),
    (b'Student,ID,SIS Login ID,Section,ej02_datos (1)\n"Ana,101,a,S1,3\n', "no es un CSV válido"),
    (b"nombre,nota\nAna,3\n", "No reconozco la hoja"),
])
def test_hoja_corrupta(tmp_path, contenido, texto):
    carpeta = _carpeta(tmp_path)
    hoja = tmp_path / "hoja.csv"
    hoja.write_bytes(contenido)
    with pytest.raises(ValueError, match=texto):
        exportar_notas(carpeta, tmp_path / "s.csv", hoja=hoja)
    assert not (tmp_path / "s.csv").exists() and hoja.read_bytes() == contenido


def test_hoja_de_otro_curso(tmp_path):
    carpeta = _carpeta(tmp_path)
    filas = [CANVAS_ENC, CANVAS_PUNTOS, *[[f[0], str(int(f[1]) + 900), *f[2:]] for f in CANVAS_FILAS]]
    with pytest.raises(ValueError, match="Ningún estudiante.*otro curso.*No se escribió nada"):
        exportar_notas(carpeta, tmp_path / "s.csv", hoja=_hoja_canvas(tmp_path, filas))
    assert not (tmp_path / "s.csv").exists()


def test_la_salida_no_pisa_las_entradas_y_guarda_la_anterior(tmp_path):
    carpeta = _carpeta(tmp_path)
    hoja = _hoja_canvas(tmp_path)
    original = hoja.read_bytes()
    for salida in (hoja, carpeta / "calificaciones.json", tmp_path / "." / "canvas.csv"):
        with pytest.raises(ValueError, match="nunca se sobrescriben"):
            exportar_notas(carpeta, salida, hoja=hoja)
    assert hoja.read_bytes() == original
    with pytest.raises(ValueError, match="es una carpeta"):
        exportar_notas(carpeta, tmp_path, hoja=hoja)
    salida = tmp_path / "salida.csv"
    salida.write_text("lo que escribió el instructor\n")
    datos = exportar_notas(carpeta, salida, hoja=hoja)
    assert Path(datos["anterior"]).read_text() == "lo que escribió el instructor\n"
    assert salida.read_text().startswith("Student,ID") and not list(tmp_path.glob(".salida.csv.*.tmp"))


def test_carpeta_sin_calificaciones(tmp_path):
    (tmp_path / "vacia").mkdir()
    with pytest.raises(FileNotFoundError, match="no tiene calificaciones.json.*tutor calificar"):
        exportar_notas(tmp_path / "vacia", tmp_path / "s.csv", hoja=_hoja_canvas(tmp_path))
    carpeta = _carpeta(tmp_path)
    (carpeta / "detalle.json").write_text("{roto")
    with pytest.raises(ValueError, match="detalle.json no es un JSON válido"):
        leer_resultados(carpeta)
    assert not (tmp_path / "s.csv").exists()


@pytest.mark.parametrize("filas,texto", [
    ([["id", "email"], ["ana", "a@x"]], "necesita la columna «estudiante»"),
    ([["estudiante", "email"], ["ana", "a@x"], ["ana", "b@x"]], "'ana' aparece dos veces"),
    ([["estudiante", "email"], ["ana", "a@x"], ["bruno", "A@X"]], "email 'A@X' es de 'ana' y de 'bruno'"),
    ([["estudiante", "lms_id"], ["", "3"]], "la fila 2 no tiene «estudiante»"),
])
def test_lista_mal_formada(tmp_path, filas, texto):
    ruta = _lista(tmp_path, filas)
    with pytest.raises(ValueError, match=texto):
        leer_lista(ruta)
    with pytest.raises(ValueError, match=texto):
        exportar_notas(_carpeta(tmp_path), tmp_path / "s.csv", hoja=_hoja_canvas(tmp_path), lista=ruta)
    assert not (tmp_path / "s.csv").exists()


def test_dos_estudiantes_en_la_misma_fila_es_conflicto(tmp_path):
    carpeta = _carpeta(tmp_path)
    lista = _lista(tmp_path, [["estudiante", "lms_id"], ["elena", "101"]])  # 101 es también el id de ana en el zip
    datos = exportar_notas(carpeta, tmp_path / "s.csv", hoja=_hoja_canvas(tmp_path), lista=lista)
    assert datos["conflictos"][0]["estudiantes"] == ["ana", "elena"]
    assert "ana" not in {e["estudiante"] for e in datos["exportadas"]}
    assert _leer(tmp_path / "s.csv")[2] == CANVAS_FILAS[0]


# --- piezas --------------------------------------------------------------------------------------------------


def test_numeros_y_celdas():
    assert [escribir_numero(x) for x in (7.5, 10, 0, 1 / 3)] == ["7.5", "10", "0", "0.33"]
    assert escribir_numero(7.5, ",", 2) == "7,50" and escribir_numero(9, ".", 0) == "9"
    assert [leer_numero(t) for t in ("10", "10.00", " 10,5 ", "(read only)", "", "EX")] == [10, 10, 10.5, None, None, None]
    assert celda_segura("-") == ("-", False) and celda_segura("-3.5") == ("-3.5", False)
    assert celda_segura("=1+1") == ("'=1+1", True) and celda_segura("Ana; =1") == ("Ana; '=1", True)


def test_resultados_de_una_corrida_anterior_sin_claves_del_lms(tmp_path):
    asignacion, maximo, notas = leer_resultados(_carpeta(tmp_path))
    elena = next(n for n in notas if n.estudiante == "elena")
    assert (asignacion, maximo, elena.lms, elena.lms_id, elena.tarde) == (ASIG, 20.0, None, None, False)


# --- el comando -------------------------------------------------------------------------------------------------


def _tutor(*argumentos):
    return subprocess.run([sys.executable, "-m", "tutor_lib", "exportar", *map(str, argumentos)], capture_output=True,
                          text=True, timeout=120, cwd=RAIZ, env={**os.environ, "HF_HUB_OFFLINE": "1"})


def test_cli(tmp_path):
    carpeta, hoja = _carpeta(tmp_path), _hoja_canvas(tmp_path)
    r = _tutor(carpeta, "--hoja", hoja, "--salida", tmp_path / "s.csv", "--json")
    assert r.returncode == 0, r.stderr
    datos = json.loads(r.stdout)
    assert {e["estudiante"] for e in datos["exportadas"]} == {"ana", "bruno"}
    assert datos["pendiente_manual"][0]["estudiante"] == "carla"
    r = _tutor(carpeta, "--hoja", hoja, "--salida", tmp_path / "t.csv")
    assert r.returncode == 0 and "2 notas escritas" in r.stdout and "Pendientes de calificar a mano" in r.stdout
    r = _tutor(carpeta, "--hoja", hoja, "--salida", hoja)
    assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr
    assert r.stderr.startswith("tutor exportar: error: --salida") and "nunca se sobrescriben" in r.stderr
