"""El zip de entregas de Moodle y de Canvas: de quién es cada archivo (tutor_lib.calificacion.lms, issue 45).

Cada prueba arma un zip de verdad con ``zipfile`` y los nombres que escribe cada LMS (ver el docstring de
:mod:`tutor_lib.calificacion.lms`: ``mod/assign/locallib.php`` de Moodle y ``lib/content_zipper.rb`` de
Canvas), lo extrae con :func:`extraer_entregas_zip`, lo explora y revisa ids, ``lms``, ``lms_id``,
``tarde`` y las omitidas. Ninguna arranca un kernel: la última escribe la salida de una clase con
resultados hechos a mano.
"""

from __future__ import annotations

import csv
import json
import random
import stat
import unicodedata
import zipfile
from pathlib import Path

import pytest

from tutor_lib.calificacion import lms
from tutor_lib.calificacion.entregas import EntregaEncontrada, Omitida, explorar_entregas
from tutor_lib.calificacion.zip_entregas import extraer_entregas_zip, extraer_zip
from tutor_lib.calificacion.resultados import Calificacion, Parte

ASIG = "ej04_warmup"
NB = json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


class _InfoCp437(zipfile.ZipInfo):
    """Una entrada con el nombre en cp437 y sin la marca UTF-8, como la escriben herramientas viejas de Windows."""

    def _encodeFilenameFlags(self):  # noqa: N802 - el nombre es el de zipfile
        return self.filename.encode("cp437"), self.flag_bits & ~0x800


def _zip(ruta: Path, entradas) -> Path:
    with zipfile.ZipFile(ruta, "w", zipfile.ZIP_DEFLATED) as z:
        for nombre, contenido in entradas:
            z.writestr(nombre, contenido)
    return ruta


def _clase(tmp_path: Path, entradas, nombre: str = "entregas"):
    """(zip extraído, exploración, {id: entrega}, omitidas de los dos pasos) de un zip con ``entradas``."""
    z = _zip(tmp_path / f"{nombre}.zip", entradas)
    del_zip = extraer_entregas_zip(z, tmp_path / f"x_{nombre}")
    exploracion = explorar_entregas(del_zip.raiz, ASIG, invalidas=del_zip.invalidas, personas=del_zip.personas)
    por_id = {e.id: e for e in exploracion.entregas}
    assert len(por_id) == len(exploracion.entregas), "dos entregas con el mismo id"
    return del_zip, exploracion, por_id, del_zip.omitidas + exploracion.omitidas


def _lms(e: EntregaEncontrada) -> tuple:
    return e.lms, e.lms_id, e.tarde


def _motivos(omitidas: list[Omitida]) -> dict[str, str]:
    return {o.nombre: o.motivo for o in omitidas}


# --- 1. los nombres, sin abrir nada ------------------------------------------------------------------


def test_reconocer_los_nombres_de_moodle():
    carpeta = lms.reconocer("Ana María Pérez_123456_assignsubmission_file_", carpeta=True)
    assert carpeta == lms.EntregaLMS("moodle", "123456", "Ana María Pérez", archivo="", tipo="file", carpeta=True)
    suelto = lms.reconocer("Ana María Pérez_123456_assignsubmission_file_ej04_warmup.ipynb")
    assert (suelto.lms, suelto.lms_id, suelto.nombre, suelto.archivo) == ("moodle", "123456", "Ana María Pérez",
                                                                         "ej04_warmup.ipynb")
    texto = lms.reconocer("Beto_77_assignsubmission_onlinetext_", carpeta=True)
    assert texto.tipo == "onlinetext" and not texto.se_califica
    otro = lms.reconocer("Beto_77_assignsubmission_mi_complemento_", carpeta=True)  # de terceros, con «_»
    assert otro.tipo == "mi_complemento" and not otro.se_califica
    # Moodle cambia cada «_» del nombre por un espacio: el primer «_<número>_assignsubmission_» corta el
    # nombre, aunque el archivo (que elige el estudiante) traiga otro igual adentro.
    tramposo = lms.reconocer("Ana_1_assignsubmission_file_Beto_2_assignsubmission_file_x.ipynb")
    assert (tramposo.nombre, tramposo.lms_id, tramposo.archivo) == ("Ana", "1", "Beto_2_assignsubmission_file_x.ipynb")
    # Grupos y calificación anónima: el nombre es lo que puso Moodle.
    assert lms.reconocer("Equipo 3-Ana Pérez_5_assignsubmission_file_", carpeta=True).nombre == "Equipo 3-Ana Pérez"
    assert lms.reconocer("Participant_5_assignsubmission_file_", carpeta=True).nombre == "Participant"
    for no_es in ("Ana_Pérez_1_assignsubmission_file_",  # un «_» en el nombre: Moodle no lo escribe
                  "Ana_١٢_assignsubmission_file_",  # cifras que no son ASCII
                  f"Ana_{'9' * 21}_assignsubmission_file_",  # un id de más de 20 cifras
                  ".Ana_1_assignsubmission_file_"):  # oculto
        assert lms.reconocer(no_es, carpeta=True) is None, no_es
    # La carpeta de Moodle no lleva nada después del último «_»; el archivo suelto sí, y no «.» ni «..».
    assert lms.reconocer("Ana_1_assignsubmission_file_x", carpeta=True) is None
    assert lms.reconocer("Ana_1_assignsubmission_file_") is None
    assert lms.reconocer("Ana_1_assignsubmission_file_..") is None


def test_reconocer_los_nombres_de_canvas():
    e = lms.reconocer("pérezjuan_4567_89012_ej04_warmup.ipynb")
    assert (e.lms, e.lms_id, e.nombre, e.tarde, e.adjunto_id, e.archivo) == (
        "canvas", "4567", "pérezjuan", False, "89012", "ej04_warmup.ipynb")
    tarde = lms.reconocer("pérezjuan_LATE_4567_89013_ej04_warmup-1.ipynb")
    assert (tarde.lms_id, tarde.tarde, tarde.archivo) == ("4567", True, "ej04_warmup-1.ipynb")
    # Canvas quita de los nombres todo «_<número>_»: un «_» sin números sigue siendo parte del nombre.
    assert lms.reconocer("o_brienann_5_6_x.ipynb").nombre == "o_brienann"
    texto = lms.reconocer("lopezluis_LATE_125_text.html")
    assert (texto.lms_id, texto.tarde, texto.se_califica) == ("125", True, False)
    assert lms.reconocer("lopezluis_125_link.html").archivo == "link.html"
    anonimo = lms.reconocer("LATE_anon_Xy7Qz_459_ej04_warmup.ipynb")
    assert (anonimo.lms, anonimo.lms_id, anonimo.nombre, anonimo.tarde) == ("canvas", None, "anon_Xy7Qz", True)
    assert lms.reconocer("anon_12345_6_x.ipynb").nombre == "anon"  # solo cifras: es el estudiante «anon»
    for no_es in ("PerezJuan_1_2_x.ipynb",  # Canvas escribe el nombre en minúsculas
                  "perez juan_1_2_x.ipynb",  # ...y sin espacios
                  "ana_ej04_warmup.ipynb", "ej04_warmup.ipynb", "ana_1_x.ipynb", "ana_1_2_..", "ana_1_2_"):
        assert lms.reconocer(no_es) is None, no_es
    assert lms.reconocer("perezjuan_1_2_x", carpeta=True) is None  # Canvas no arma carpetas


def test_en_un_zip_de_moodle_nada_se_lee_como_canvas():
    nombres = [("Ana_1_assignsubmission_file_", True), ("perezjuan_4567_89012_x.ipynb", False)]
    assert [r and r.lms for r in lms.reconocer_todas(nombres)] == ["moodle", None]
    assert [r and r.lms for r in lms.reconocer_todas(nombres[1:])] == ["canvas"]


def test_agrupar_junta_nfc_y_nfd_y_separa_un_id_con_dos_nombres():
    nfc, nfd = "José Núñez", unicodedata.normalize("NFD", "José Núñez")
    assert nfc != nfd
    entradas = [lms.reconocer(f"{nfc}_7_assignsubmission_file_a.ipynb"),
                lms.reconocer(f"{nfd}_7_assignsubmission_file_b.pdf"),
                lms.reconocer("Ana_8_assignsubmission_file_a.ipynb"),
                lms.reconocer("Eva_8_assignsubmission_file_a.ipynb")]
    personas, cual = lms.agrupar(entradas)
    assert [p.nombre for p in personas] == ["Ana", "Eva", nfc]
    assert cual == [2, 2, 0, 1]
    assert personas[2].lms_id == "7" and personas[2].conflicto_id is None
    # El participante 8 con dos nombres: ninguno se queda con el id, y cada uno sabe con quién choca.
    assert [(p.lms_id, p.conflicto_id, p.conflicto_con) for p in personas[:2]] == [(None, "8", ("Eva",)),
                                                                                   (None, "8", ("Ana",))]
    # Tarde si cualquier archivo de la persona llegó tarde (Canvas), y el orden de las entradas no importa.
    canvas = [lms.reconocer("ruizana_3_10_a.ipynb"), lms.reconocer("ruizana_LATE_3_11_b.pdf")]
    for orden in (canvas, canvas[::-1]):
        (persona,), _ = lms.agrupar(orden)
        assert persona.tarde and persona.lms_id == "3"


# --- 2. el zip de Moodle -----------------------------------------------------------------------------


def test_moodle_en_carpetas_con_tildes_espacios_pdf_y_texto_en_linea(tmp_path):
    del_zip, _, por_id, omitidas = _clase(tmp_path, [
        ("Ana María Pérez_123456_assignsubmission_file_/ej04_warmup.ipynb", NB),
        ("Ana María Pérez_123456_assignsubmission_file_/informe final.pdf", b"%PDF-1.4"),
        ("Ana María Pérez_123456_assignsubmission_onlinetext_/onlinetext.html", "<p>hola</p>"),
        ("Beto Núñez_123457_assignsubmission_file_/entregas/ej04_warmup.ipynb", NB),  # en una subcarpeta
        ("Carla Ruiz_123458_assignsubmission_onlinetext_/onlinetext.html", "<p>solo texto</p>"),
        ("__MACOSX/Ana María Pérez_123456_assignsubmission_file_/._ej04_warmup.ipynb", b"basura"),
    ])
    assert set(por_id) == {"Ana_Maria_Perez", "Beto_Nunez", "Carla_Ruiz"}
    ana, beto, carla = por_id["Ana_Maria_Perez"], por_id["Beto_Nunez"], por_id["Carla_Ruiz"]
    assert (ana.nombre, _lms(ana), ana.estado) == ("Ana María Pérez", ("moodle", "123456", False), "")
    assert ana.ruta.name == f"{ASIG}.ipynb" and ana.ruta.read_text() == NB
    assert beto.ruta is not None and _lms(beto) == ("moodle", "123457", False)
    # Quien solo escribió texto en línea no tiene notebook: «sin entrega», con su id de Moodle.
    assert (carla.estado, _lms(carla)) == ("sin entrega", ("moodle", "123458", False))
    assert "ningún notebook" in carla.problema
    motivos = _motivos(omitidas)
    pdf = motivos["Ana María Pérez_123456_assignsubmission_file_/informe final.pdf"]
    assert "«Ana María Pérez» (Moodle, participante 123456)" in pdf and "no es un notebook" in pdf
    assert "texto en línea" in motivos["Ana María Pérez_123456_assignsubmission_onlinetext_/onlinetext.html"]
    assert "«Carla Ruiz»" in motivos["Carla Ruiz_123458_assignsubmission_onlinetext_/onlinetext.html"]
    # Solo los notebooks salen del zip; la carpeta extraída conserva el nombre que le puso Moodle.
    extraidos = sorted(str(p.relative_to(del_zip.raiz)) for p in del_zip.raiz.rglob("*") if p.is_file())
    assert extraidos == ["Ana María Pérez_123456_assignsubmission_file_/ej04_warmup.ipynb",
                         "Beto Núñez_123457_assignsubmission_file_/entregas/ej04_warmup.ipynb"]


def test_moodle_suelto_junta_los_archivos_de_cada_persona(tmp_path):
    _, _, por_id, omitidas = _clase(tmp_path, [
        ("Ana Pérez_11_assignsubmission_file_ej04_warmup.ipynb", NB),
        ("Ana Pérez_11_assignsubmission_file_apuntes.py", "print(1)"),
        ("Ana Pérez_11_assignsubmission_file_borrador.ipynb", NB),  # otro notebook: gana el de la asignación
        ("Beto_12_assignsubmission_file_a.ipynb", NB),
        ("Beto_12_assignsubmission_file_b.ipynb", NB),  # dos y ninguno es de la asignación: como una carpeta
        # Un archivo que imita el nombre de otra persona sigue siendo de quien lo subió.
        ("Carla_13_assignsubmission_file_Beto_12_assignsubmission_file_ej04_warmup.ipynb", NB),
    ])
    assert set(por_id) == {"Ana_Perez", "Beto", "Carla"}
    ana = por_id["Ana_Perez"]
    assert ana.ruta.name == f"{ASIG}.ipynb" and _lms(ana) == ("moodle", "11", False)
    motivos = _motivos(omitidas)
    assert "«Ana Pérez» (Moodle, participante 11)" in motivos["Ana Pérez_11_assignsubmission_file_apuntes.py"]
    otro = motivos["Ana Pérez/borrador.ipynb"]
    assert "otro notebook de «Ana Pérez»" in otro and f"se califica «{ASIG}.ipynb»" in otro
    beto = por_id["Beto"]
    assert beto.estado == "sin entrega" and "hay 2 notebooks" in beto.problema and _lms(beto) == ("moodle", "12", False)
    carla = por_id["Carla"]
    assert carla.ruta.name == f"Beto_12_assignsubmission_file_{ASIG}.ipynb" and carla.lms_id == "13"


def test_moodle_cp437_nfd_y_dos_personas_con_el_mismo_nombre(tmp_path):
    nfd = unicodedata.normalize("NFD", "José Núñez")
    z = tmp_path / "moodle.zip"
    with zipfile.ZipFile(z, "w") as f:
        f.writestr(_InfoCp437("José Núñez_21_assignsubmission_file_/ej04_warmup.ipynb"), NB)
        f.writestr(f"{nfd}_21_assignsubmission_file_/notas.txt", "la misma persona, en NFD")
        f.writestr("Ana Pérez_30_assignsubmission_file_/ej04_warmup.ipynb", NB)
        f.writestr("Ana Pérez_31_assignsubmission_file_/ej04_warmup.ipynb", NB)  # otra Ana Pérez
        f.writestr("Ana_Perez/ej04_warmup.ipynb", NB)  # y una carpeta que no es de Moodle
    with zipfile.ZipFile(z) as f:
        assert not f.infolist()[0].flag_bits & 0x800, "la primera entrada debe ir en cp437"
    del_zip = extraer_entregas_zip(z, tmp_path / "x")
    exploracion = explorar_entregas(del_zip.raiz, ASIG, invalidas=del_zip.invalidas, personas=del_zip.personas)
    por_id = {e.id: e for e in exploracion.entregas}
    assert set(por_id) == {"Jose_Nunez", "Ana_Perez_30", "Ana_Perez_31", "Ana_Perez"}
    assert _lms(por_id["Jose_Nunez"]) == ("moodle", "21", False) and por_id["Jose_Nunez"].ruta is not None
    assert por_id["Jose_Nunez"].nombre == "José Núñez"  # en NFC
    assert [por_id[i].lms_id for i in ("Ana_Perez_30", "Ana_Perez_31")] == ["30", "31"]
    assert por_id["Ana_Perez"].lms is None  # la carpeta que no es de Moodle conserva su id de siempre
    notas = _motivos(del_zip.omitidas)[f"{nfd}_21_assignsubmission_file_/notas.txt"]
    assert "«José Núñez» (Moodle, participante 21)" in notas


def test_moodle_un_participante_con_dos_nombres_no_se_califica(tmp_path):
    del_zip, _, por_id, _ = _clase(tmp_path, [
        ("Ana_12345_assignsubmission_file_/ej04_warmup.ipynb", NB),
        ("Eva_12345_assignsubmission_file_/ej04_warmup.ipynb", NB),
        ("Beto_12346_assignsubmission_file_/ej04_warmup.ipynb", NB),
    ])
    for quien, otro in (("Ana", "Eva"), ("Eva", "Ana")):
        e = por_id[quien]
        assert (e.estado, e.ruta, e.lms, e.lms_id) == ("inválido", None, "moodle", None)
        assert "participante 12345" in e.problema and f"«{otro}»" in e.problema
    assert por_id["Beto"].ruta is not None and por_id["Beto"].lms_id == "12346"
    assert not any(p.name == "Ana_12345_assignsubmission_file_" for p in del_zip.raiz.iterdir())
    # La versión estricta dice el motivo con el nombre de la persona.
    with pytest.raises(ValueError, match="«Ana» \\(Moodle\\): el zip trae el participante 12345"):
        extraer_zip(tmp_path / "entregas.zip", tmp_path / "estricta")


def test_moodle_envuelto_en_una_carpeta_y_sin_lms_en_la_carpeta_extraida(tmp_path):
    entradas = [("Tarea 4/Ana_1_assignsubmission_file_ej04_warmup.ipynb", NB),
                ("Tarea 4/Beto_2_assignsubmission_file_ej04_warmup.ipynb", NB)]
    del_zip, _, por_id, _ = _clase(tmp_path, entradas)
    assert del_zip.raiz.name == "Tarea 4"
    assert {i: _lms(e) for i, e in por_id.items()} == {"Ana": ("moodle", "1", False), "Beto": ("moodle", "2", False)}
    # Quien explora la carpeta ya extraída sin saber del LMS la lee como siempre (una carpeta por persona).
    assert [e.id for e in explorar_entregas(del_zip.raiz, ASIG).entregas] == ["Ana_1_assignsubmission_file",
                                                                             "Beto_2_assignsubmission_file"]


# --- 3. el zip de Canvas -----------------------------------------------------------------------------


def test_canvas_normal_tarde_renombrado_anonimo_y_texto(tmp_path):
    nfd = unicodedata.normalize("NFD", "pérezjuan")
    z = tmp_path / "canvas.zip"
    with zipfile.ZipFile(z, "w") as f:
        f.writestr("pérezjuan_4567_89012_ej04_warmup.ipynb", NB)
        f.writestr(f"{nfd}_4567_89013_informe.pdf", b"%PDF")  # la misma persona, en NFD
        f.writestr("gómezana_LATE_4568_89014_ej04_warmup-1.ipynb", NB)  # tarde y renombrado por Canvas
        f.writestr(_InfoCp437("núñezeva_4569_89015_ej04_warmup.ipynb"), NB)
        f.writestr("LATE_anon_Xy7Qz_89016_ej04_warmup.ipynb", NB)
        f.writestr("lopezluis_4570_text.html", "<p>texto</p>")
    del_zip = extraer_entregas_zip(z, tmp_path / "x")
    exploracion = explorar_entregas(del_zip.raiz, ASIG, invalidas=del_zip.invalidas, personas=del_zip.personas)
    por_id = {e.id: e for e in exploracion.entregas}
    assert {i: (_lms(e), e.estado) for i, e in por_id.items()} == {
        "perezjuan": (("canvas", "4567", False), ""),
        "gomezana": (("canvas", "4568", True), ""),  # tarde: se anota y se califica igual
        "nunezeva": (("canvas", "4569", False), ""),
        "anon_Xy7Qz": (("canvas", None, True), ""),
        "lopezluis": (("canvas", "4570", False), "sin entrega"),
    }
    assert [e.id for e in exploracion.entregas] == ["anon_Xy7Qz", "gomezana", "lopezluis", "nunezeva", "perezjuan"]
    assert por_id["perezjuan"].ruta.name == f"{ASIG}.ipynb" and por_id["perezjuan"].nombre == "pérezjuan"
    assert por_id["gomezana"].ruta.name == f"{ASIG}-1.ipynb"
    motivos = _motivos(del_zip.omitidas)
    assert "«pérezjuan» (Canvas, user_id 4567)" in motivos[f"{nfd}_4567_89013_informe.pdf"]
    assert "«lopezluis» (Canvas, user_id 4570)" in motivos["lopezluis_4570_text.html"]


def test_canvas_mismo_nombre_dos_user_id_y_un_user_id_con_dos_nombres(tmp_path):
    _, _, por_id, _ = _clase(tmp_path, [
        ("ruizana_100_1_ej04_warmup.ipynb", NB),
        ("ruizana_101_2_ej04_warmup.ipynb", NB),  # otra persona con el mismo nombre
        ("diazbeto_200_3_ej04_warmup.ipynb", NB),
        ("diazbeta_200_4_ej04_warmup.ipynb", NB),  # el mismo user_id con otro nombre: no se junta
    ])
    assert {i: (e.lms_id, e.estado) for i, e in por_id.items()} == {
        "ruizana_100": ("100", ""), "ruizana_101": ("101", ""),
        "diazbeto": (None, "inválido"), "diazbeta": (None, "inválido"),
    }
    assert "user_id 200 de Canvas" in por_id["diazbeto"].problema


# --- 4. lo que no es de un LMS sigue igual; el zip es hostil -----------------------------------------


def test_un_zip_que_no_es_de_un_lms_sigue_igual(tmp_path):
    _, exploracion, por_id, omitidas = _clase(tmp_path, [
        ("ana/ej04_warmup.ipynb", NB),
        ("ana/informe.pdf", b"%PDF"),  # en una carpeta que no es de un LMS, como siempre, no se informa
        ("Carla Núñez/ej04_warmup.ipynb", NB),
        ("beto_ej04_warmup.ipynb", NB),
        ("dario_1_ej04_warmup.ipynb", NB),  # un solo número: no es Canvas
        ("notas.txt", "no soy de nadie"),
    ])
    assert [e.id for e in exploracion.entregas] == ["Carla_Nunez", "ana", "beto", "dario_1"]
    assert all(_lms(e) == (None, None, False) for e in por_id.values())
    assert por_id["Carla_Nunez"].nombre == "Carla Núñez"
    assert [o.nombre for o in omitidas] == ["notas.txt"]


def test_los_nombres_del_lms_no_abren_caminos_para_salir_ni_para_juntar_personas(tmp_path):
    enlace = zipfile.ZipInfo("Eva_5_assignsubmission_file_/ej04_warmup.ipynb")
    enlace.external_attr = (stat.S_IFLNK | 0o777) << 16
    del_zip, _, por_id, omitidas = _clase(tmp_path, [
        ("Ana_1_assignsubmission_file_/../../fuera.ipynb", NB),
        ("Ana_1_assignsubmission_file_..", NB),  # «..» como archivo suelto: no es de Moodle, ni sale
        ("Beto_2_assignsubmission_file_/ej04_warmup.ipynb", NB),
        ("Carla_3_assignsubmission_file_..\\..\\fuera2.ipynb", NB),
        (enlace, "/etc/passwd"),
    ])
    assert not (tmp_path / "fuera.ipynb").exists() and not (tmp_path / "fuera2.ipynb").exists()
    fuera = [p for p in tmp_path.rglob("*.ipynb") if del_zip.raiz not in p.parents]
    assert fuera == [], fuera
    assert por_id["Ana"].estado == "inválido" and "peligrosa" in por_id["Ana"].problema
    assert por_id["Eva"].estado == "inválido" and "enlace simbólico" in por_id["Eva"].problema
    assert por_id["Beto"].ruta is not None and _lms(por_id["Beto"]) == ("moodle", "2", False)
    # «Carla_3_assignsubmission_file_..» con barras de Windows es una carpeta con «..»: no es de Moodle.
    carla = [e for e in por_id.values() if e.nombre.startswith("Carla")]
    assert len(carla) == 1 and carla[0].estado == "inválido" and carla[0].lms is None
    assert "Ana_1_assignsubmission_file_.." in [o.nombre for o in omitidas]


def test_los_ids_son_estables_entre_corridas_del_mismo_zip(tmp_path):
    entradas = [
        ("Ana Pérez_30_assignsubmission_file_/ej04_warmup.ipynb", NB),
        ("Ana Pérez_31_assignsubmission_file_/ej04_warmup.ipynb", NB),
        ("Participant_40_assignsubmission_file_/ej04_warmup.ipynb", NB),  # calificación anónima de Moodle
        ("Participant_41_assignsubmission_file_/ej04_warmup.ipynb", NB),
        ("Beto_2_assignsubmission_file_a.ipynb", NB),
    ]
    ids = []
    for vuelta in range(3):
        mezcladas = entradas[:]
        random.Random(vuelta).shuffle(mezcladas)
        _, exploracion, por_id, _ = _clase(tmp_path, mezcladas, nombre=f"v{vuelta}")
        ids.append([(e.id, e.lms_id) for e in exploracion.entregas])
    assert ids[0] == ids[1] == ids[2]
    assert [i for i, _ in ids[0]] == ["Ana_Perez_30", "Ana_Perez_31", "Beto", "Participant_40", "Participant_41"]


# --- 5. lo que escribe tutor calificar ----------------------------------------------------------------


def test_escribir_salida_agrega_nombre_original_lms_lms_id_y_tarde(tmp_path):
    from tutor_lib.calificacion.motor.clase import _escribir_salida

    entregas = [
        EntregaEncontrada("ana", "ana", tmp_path / "ana.ipynb"),
        EntregaEncontrada("perezjuan", "pérezjuan", tmp_path / "p.ipynb", lms="canvas", lms_id="4567", tarde=True),
        EntregaEncontrada("Jose_Nunez", "José Núñez", None, "la entrega no trae ningún notebook", "sin entrega",
                          lms="moodle", lms_id="21"),
    ]
    parte = [Parte("p1", 2.0, 2.0, "Bien.")]
    resultados = {
        "ana": Calificacion(ASIG, "ana", "calificado", 2.0, 2.0, "Bien.", partes=parte),
        "perezjuan": Calificacion(ASIG, "perezjuan", "calificado", 2.0, 2.0, "Bien.", partes=parte),
        "Jose_Nunez": Calificacion(ASIG, "Jose_Nunez", "sin entrega", 0.0, 2.0, "La entrega no trae ningún notebook."),
    }
    datos = _escribir_salida(ASIG, tmp_path, entregas, [Omitida("x.pdf", "no es un notebook")], resultados, 2.0, [],
                             {"total": 3}, "sqlite:///gradebook.db", None)
    guardado = json.loads((tmp_path / "calificaciones.json").read_text(encoding="utf-8"))
    assert guardado == json.loads(json.dumps(datos))
    est = guardado["estudiantes"]
    assert est["ana"] == {"puntos": 2.0, "estado": "calificado", "mensaje": "Bien.", "nombre_original": "ana",
                          "lms": None, "lms_id": None, "tarde": False}
    assert {k: est["perezjuan"][k] for k in ("nombre_original", "lms", "lms_id", "tarde")} == {
        "nombre_original": "pérezjuan", "lms": "canvas", "lms_id": "4567", "tarde": True}
    assert est["Jose_Nunez"]["lms_id"] == "21" and est["Jose_Nunez"]["estado"] == "sin entrega"
    with open(tmp_path / "calificaciones.csv", newline="", encoding="utf-8") as f:
        filas = list(csv.reader(f))
    # Las columnas de siempre quedan donde estaban; las del LMS van al final.
    assert filas[0] == ["estudiante", "nombre_original", "estado", "puntos", "maximo", "pendiente_manual", "p1",
                        "mensaje", "lms", "lms_id", "tarde"]
    assert filas[1] == ["ana", "ana", "calificado", "2", "2", "0", "2", "Bien.", "", "", "no"]
    assert filas[2][-3:] == ["canvas", "4567", "sí"] and filas[3][-3:] == ["moodle", "21", "no"]
    detalle = json.loads((tmp_path / "detalle.json").read_text(encoding="utf-8"))
    assert set(detalle) == {"ana", "perezjuan", "Jose_Nunez"}
