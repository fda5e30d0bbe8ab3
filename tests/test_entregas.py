"""Ataques a la carpeta de entregas, al zip del LMS, a la reconstrucción y al CSV (tutor_lib.calificacion.entregas).

Cada prueba planta algo que una persona podría dejar en una carpeta de
entregas (un enlace a las soluciones o a un compañero, un FIFO, nombres que
chocan, un zip bomba, un notebook de 50 000 celdas, un nombre que es una
fórmula) y comprueba que nada se sigue, nada se pierde en silencio y nada se
cuelga. Casi todas corren sin nbgrader; la última califica una clase sin
ninguna entrega calificable (no arranca kernels).
"""

from __future__ import annotations

import copy
import csv
import json
import os
import re
import stat
import sys
import threading
import time
import zipfile
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_calificador import liberado, resuelto  # noqa: E402

from tutor_lib.calificacion import entregas, zip_entregas  # noqa: E402
from tutor_lib.calificacion.motor.calificador import celda_csv, leer_entrega, normalizar  # noqa: E402
from tutor_lib.calificacion.entregas import explorar_entregas, leer_dentro_de  # noqa: E402
from tutor_lib.calificacion.zip_entregas import extraer_zip  # noqa: E402

ASIG = "ej04_warmup"
NB = json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})

solo_posix = pytest.mark.skipif(not hasattr(os, "mkfifo") or not hasattr(os, "O_NOFOLLOW"),
                                reason="FIFO y O_NOFOLLOW solo existen en sistemas POSIX")


def _sin_colgarse(funcion, segundos: float = 10):
    """Corre ``funcion`` en un hilo: si abriera un FIFO sin O_NONBLOCK se quedaría esperando."""
    resultado: dict = {}

    def correr():
        try:
            resultado["valor"] = funcion()
        except BaseException as exc:  # se revisa afuera
            resultado["error"] = exc

    hilo = threading.Thread(target=correr, daemon=True)
    hilo.start()
    hilo.join(segundos)
    assert not hilo.is_alive(), "La lectura se quedó esperando: ¿se abrió un FIFO sin O_NONBLOCK?"
    if "error" in resultado:
        raise resultado["error"]
    return resultado["valor"]


@pytest.fixture
def escenario(tmp_path):
    """Una carpeta de entregas y, fuera de ella, unas «soluciones» que nadie debe poder leer."""
    secretas = tmp_path / "solutions" / ASIG
    secretas.mkdir(parents=True)
    (secretas / f"{ASIG}.ipynb").write_text(NB.replace("[]", '[{"cell_type": "markdown", "metadata": {}, "source": "SECRETO"}]'))
    carpeta = tmp_path / "entregas"
    carpeta.mkdir()
    return carpeta, secretas


# --- 1. nada plantado se sigue ---------------------------------------------------------


@solo_posix
def test_enlaces_fifos_y_rutas_plantadas_se_rechazan_con_su_motivo(escenario, tmp_path):
    carpeta, secretas = escenario
    (carpeta / "carla").mkdir()
    (carpeta / "carla" / f"{ASIG}.ipynb").write_text(NB)
    os.symlink(secretas, carpeta / "ana")  # la carpeta del estudiante es un enlace a solutions/
    (carpeta / "beto").mkdir()
    os.symlink(carpeta / "carla" / f"{ASIG}.ipynb", carpeta / "beto" / f"{ASIG}.ipynb")  # a un compañero
    os.symlink(secretas / f"{ASIG}.ipynb", carpeta / f"dario_{ASIG}.ipynb")  # notebook suelto que es enlace
    (carpeta / "eva").mkdir()
    os.mkfifo(carpeta / "eva" / f"{ASIG}.ipynb")  # un FIFO: abrirlo sin cuidado cuelga
    os.mkfifo(carpeta / f"fede_{ASIG}.ipynb")
    (carpeta / "gabi").mkdir()
    os.symlink(secretas, carpeta / "gabi" / "mis_cosas")  # una subcarpeta que es un enlace
    os.mkfifo(carpeta / "tuberia")

    copias = tmp_path / "copias"
    exploracion = _sin_colgarse(lambda: explorar_entregas(carpeta, ASIG, copiar_a=copias))
    por_nombre = {e.nombre: e for e in exploracion.entregas}
    for nombre in ("ana", "beto", f"dario_{ASIG}.ipynb", "eva", f"fede_{ASIG}.ipynb"):
        e = por_nombre[nombre]
        assert e.ruta is None and e.estado == "inválido", f"{nombre} debería quedar inválido: {e}"
    assert "enlace simbólico" in por_nombre["ana"].problema
    assert "enlace simbólico" in por_nombre["beto"].problema
    assert "enlace simbólico" in por_nombre[f"dario_{ASIG}.ipynb"].problema
    assert "no es un archivo común" in por_nombre["eva"].problema
    assert "no es un archivo común" in por_nombre[f"fede_{ASIG}.ipynb"].problema
    gabi = por_nombre["gabi"]
    assert gabi.ruta is None and gabi.estado == "sin entrega" and "enlaces simbólicos" in gabi.problema, gabi
    carla = por_nombre["carla"]
    assert carla.estado == "" and carla.ruta is not None and copias in carla.ruta.parents, carla
    assert {o.nombre for o in exploracion.omitidas} == {"tuberia"}
    # De las soluciones no llegó nada a las copias privadas.
    for copia in copias.rglob("*"):
        if copia.is_file():
            assert "SECRETO" not in copia.read_text(), f"Se copió contenido de solutions/ en {copia}"


@solo_posix
def test_leer_no_sigue_enlaces_ni_fifos_ni_archivos_enormes(escenario, tmp_path):
    carpeta, secretas = escenario
    os.symlink(secretas / f"{ASIG}.ipynb", tmp_path / "enlace.ipynb")
    os.mkfifo(tmp_path / "fifo.ipynb")
    with open(tmp_path / "enorme.ipynb", "wb") as f:  # disperso: no ocupa disco
        f.truncate((entregas.MAX_MIB_NOTEBOOK + 1) * entregas.MIB)
    with pytest.raises(ValueError, match="enlace simbólico"):
        leer_entrega(tmp_path / "enlace.ipynb")
    with pytest.raises(ValueError, match="no es un archivo común"):
        _sin_colgarse(lambda: leer_entrega(tmp_path / "fifo.ipynb"))
    with pytest.raises(ValueError, match="MiB"):
        leer_entrega(tmp_path / "enorme.ipynb")
    (tmp_path / "hondo.ipynb").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match="notebook"):
        leer_entrega(tmp_path / "hondo.ipynb")


@solo_posix
def test_cambiar_la_carpeta_por_un_enlace_despues_de_explorar_no_sirve(escenario, tmp_path):
    carpeta, secretas = escenario
    (carpeta / "ana").mkdir()
    (carpeta / "ana" / "sub").mkdir()
    (carpeta / "ana" / "sub" / f"{ASIG}.ipynb").write_text(NB)
    (e,) = explorar_entregas(carpeta, ASIG).entregas
    partes = e.ruta.relative_to(carpeta).parts
    assert json.loads(leer_dentro_de(carpeta, partes)) == json.loads(NB)
    # Entre explorar y leer, alguien cambia una carpeta intermedia por un enlace a solutions/.
    os.rename(carpeta / "ana" / "sub", carpeta / "ana" / "sub_vieja")
    os.symlink(secretas, carpeta / "ana" / "sub")
    with pytest.raises(ValueError, match="enlace"):
        leer_dentro_de(carpeta, partes)
    # Con copia privada, lo que pase después en la carpeta de entregas no cambia lo calificado.
    os.remove(carpeta / "ana" / "sub")
    os.rename(carpeta / "ana" / "sub_vieja", carpeta / "ana" / "sub")
    (e,) = explorar_entregas(carpeta, ASIG, copiar_a=tmp_path / "copias").entregas
    (carpeta / "ana" / "sub" / f"{ASIG}.ipynb").write_text("cambiado")
    assert json.loads(e.ruta.read_text()) == json.loads(NB)
    with pytest.raises(ValueError, match="peligrosa"):
        leer_dentro_de(carpeta, ("ana", "..", "..", "solutions", ASIG, f"{ASIG}.ipynb"))


# --- 2. ids únicos y nada omitido en silencio --------------------------------------------


def _ids(carpeta):
    return {e.nombre: e.id for e in explorar_entregas(carpeta, ASIG).entregas}


def test_nombres_que_chocan_dan_ids_distintos_y_estables(tmp_path):
    nombres = ["José", "Jose", "a b", "a_b", "Ana", "ana", "Ñandú", "Nandu!"]
    if sys.platform == "darwin":  # sin distinguir mayúsculas, «Ana» y «ana» son la misma carpeta
        nombres.remove("ana")
    for orden, raiz in ((nombres, tmp_path / "uno"), (list(reversed(nombres)), tmp_path / "dos")):
        raiz.mkdir()
        for n in orden:
            (raiz / n).mkdir()
            (raiz / n / f"{ASIG}.ipynb").write_text(NB)
    ids = _ids(tmp_path / "uno")
    assert set(ids) == set(nombres), "Falta alguna carpeta: ninguna entrega puede perderse"
    assert len({i.casefold() for i in ids.values()}) == len(nombres), f"Dos entregas comparten id: {ids}"
    assert ids == _ids(tmp_path / "dos"), "Los ids deben ser los mismos sin importar el orden en el disco"
    assert ids == _ids(tmp_path / "uno"), "Los ids deben ser estables entre corridas"
    assert ids["Jose"] == "Jose" and re.fullmatch(r"Jose_[0-9a-f]{6}", ids["José"]), ids
    assert ids["a_b"] == "a_b" and re.fullmatch(r"a_b_[0-9a-f]{6}", ids["a b"]), ids
    assert ids["Ana"] != ids["ana"], ids
    for i in ids.values():
        assert re.fullmatch(r"[A-Za-z0-9_.-]+", i), f"Id no válido para nbgrader: {i!r}"


def test_carpetas_ocultas_y_archivos_sueltos_aparecen_como_omitidas(tmp_path):
    for n in ("_ana", ".oculta", "__MACOSX", ".ipynb_checkpoints", "beto"):
        (tmp_path / n).mkdir()
        (tmp_path / n / f"{ASIG}.ipynb").write_text(NB)
    (tmp_path / "notas.txt").write_text("hola")
    (tmp_path / ".DS_Store").write_bytes(b"\0")
    exploracion = explorar_entregas(tmp_path, ASIG)
    assert {e.nombre for e in exploracion.entregas} == {"_ana", "beto"}, "_ana es una entrega: no se salta"
    omitidas = {o.nombre: o.motivo for o in exploracion.omitidas}
    assert set(omitidas) == {".oculta", "notas.txt", ".DS_Store"}, omitidas
    assert "oculta" in omitidas[".oculta"] and "notebook" in omitidas["notas.txt"]
    assert all(o.como_dict() == {"nombre": o.nombre, "motivo": o.motivo} for o in exploracion.omitidas)


def test_nombres_con_bytes_invalidos_o_caracteres_de_control_se_muestran_limpios(tmp_path):
    if sys.platform == "darwin":
        pytest.skip("macOS no deja crear nombres que no son UTF-8")
    raiz = os.fsencode(tmp_path)
    os.mkdir(os.path.join(raiz, b"mal\xff\xfe"))
    os.mkdir(tmp_path / "salto\nde\u202elinea")
    exploracion = explorar_entregas(tmp_path, ASIG)
    texto = json.dumps([e.nombre for e in exploracion.entregas], ensure_ascii=False)
    texto.encode("utf-8")  # sin surrogates sueltos
    assert "\n" not in "".join(e.nombre for e in exploracion.entregas)
    assert "\u202e" not in texto
    assert len({e.id for e in exploracion.entregas}) == 2


# --- 3. zip acotado ----------------------------------------------------------------------


def _zip(ruta, entradas):
    with zipfile.ZipFile(ruta, "w", zipfile.ZIP_DEFLATED) as z:
        for nombre, contenido in entradas:  # nombre: un texto o un ZipInfo
            z.writestr(nombre, contenido)
    return ruta


def test_zip_con_topes_enlaces_y_rutas_peligrosas(tmp_path):
    assert zip_entregas.ZIP_MAX_TOTAL == 2 * 2**30 and zip_entregas.ZIP_MAX_ENTRADAS == 20_000
    assert zip_entregas.ZIP_MAX_ARCHIVO == 200 * 2**20

    def extraer(nombre, entradas, **topes):
        destino = tmp_path / f"x_{nombre}"
        destino.mkdir()
        return extraer_zip(_zip(tmp_path / f"{nombre}.zip", entradas), destino, **topes), destino

    bomba = [("ana/ej04_warmup.ipynb", b"\0" * (30 * 2**20))]  # 30 MiB de ceros: el zip pesa unos KiB
    with pytest.raises(ValueError, match="más de 10 MiB"):
        extraer("bomba", bomba, max_archivo=10 * 2**20)
    with pytest.raises(ValueError, match="pasa de"):
        extraer("total", [(f"e{i}/x.ipynb", b"x" * 600) for i in range(2)], max_total=1000)
    with pytest.raises(ValueError, match="entradas"):
        extraer("muchas", [(f"e{i}.ipynb", b"{}") for i in range(6)], max_entradas=5)
    enlace = zipfile.ZipInfo("ana/ej04_warmup.ipynb")
    enlace.external_attr = (stat.S_IFLNK | 0o777) << 16
    with pytest.raises(ValueError, match="enlace simbólico"):
        extraer("enlace", [(enlace, "/etc/passwd")])
    for i, peligrosa in enumerate(("../fuera.ipynb", "/abs.ipynb", "a/../../fuera2.ipynb", "C:\\win.ipynb", "a\\..\\..\\w.ipynb")):
        with pytest.raises(ValueError, match="peligrosa"):
            extraer(f"slip{i}", [(peligrosa, b"{}")])
    assert not (tmp_path / "fuera.ipynb").exists() and not (tmp_path / "fuera2.ipynb").exists()
    # Lo normal sigue funcionando: el LMS envuelve todo en una carpeta y mete __MACOSX.
    raiz, destino = extraer("lms", [("Tarea 4/ana_12345_assignsubmission_file_/ej04_warmup.ipynb", NB),
                                    ("__MACOSX/Tarea 4/._ana", b"basura")])
    assert raiz == destino / "Tarea 4"
    assert not (destino / "__MACOSX").exists()
    assert [e.id for e in explorar_entregas(raiz, ASIG).entregas] == ["ana_12345_assignsubmission_file"]


def test_zip_que_no_es_zip(tmp_path):
    (tmp_path / "falso.zip").write_bytes(b"no soy un zip")
    (tmp_path / "d").mkdir()
    with pytest.raises(ValueError, match="no es un zip válido"):
        extraer_zip(tmp_path / "falso.zip", tmp_path / "d")


# --- 4. normalizar en tiempo lineal ------------------------------------------------------


def _con_extras(n: int) -> dict:
    nb = json.loads(nbformat.writes(resuelto()))
    extras = [{"cell_type": "code", "source": f"x{i} = {i}", "metadata": {}, "outputs": [], "execution_count": None}
              for i in range(n)]
    nb["cells"] = nb["cells"][:4] + extras + nb["cells"][4:]
    return nb


def test_normalizar_50000_celdas_en_menos_de_2_s():
    nb = _con_extras(50_000)
    inicio = time.process_time()
    with pytest.raises(ValueError, match="5000"):
        normalizar(copy.deepcopy(nb), liberado())
    assert time.process_time() - inicio < 2, "Rechazar un notebook enorme debe ser inmediato"
    # Sin tope, la reconstrucción misma es lineal: 50 000 celdas agregadas en menos de 2 s de CPU.
    inicio = time.process_time()
    reconstruido, _ = normalizar(nb, liberado(), max_celdas=None)
    assert time.process_time() - inicio < 2, "normalizar no es lineal en el número de celdas"
    assert len(reconstruido.cells) == len(liberado().cells) + 50_000
    fuentes = [c.source for c in reconstruido.cells]
    assert fuentes.index("x0 = 0") == 4 and fuentes.index("x49999 = 49999") == 4 + 49_999


def test_normalizar_no_falla_con_ids_y_metadatos_de_tipos_raros():
    nb = json.loads(nbformat.writes(resuelto()))
    nb["cells"][2]["id"] = ["no", "soy", "texto"]
    nb["cells"][3]["metadata"] = {"nbgrader": {"grade_id": {"a": 1}}}
    nb["cells"][5]["metadata"] = {"nbgrader": ["lista"]}
    reconstruido, _ = normalizar(nb, liberado())
    assert [c.source for c in reconstruido.cells] == [c.source for c in resuelto().cells]


# --- 6. CSV a salvo de fórmulas ----------------------------------------------------------


def test_celdas_csv_que_serian_formulas_se_neutralizan():
    for peligrosa in ("=HYPERLINK(\"http://x\")", "+1+1", "-2+3", "@SUMA(A1)", "\tx", "\rx"):
        assert celda_csv(peligrosa) == "'" + peligrosa, peligrosa
    for normal in ("ana", "Carla_Nunez", "5", "0.5", "", "a=b"):
        assert celda_csv(normal) == normal


def test_calificar_clase_sin_entregas_calificables_escribe_omitidas_y_csv_seguro(tmp_path):
    """Una clase donde nada llega al kernel: symlink, FIFO, carpetas vacías con nombres de fórmula."""
    from tutor_lib.calificacion.motor.clase import calificar_clase

    carpeta = tmp_path / "entregas"
    carpeta.mkdir()
    for nombre in ("=HYPERLINK(\"http:__x\";\"clic\")", "+SUMA(1;2)", "-2+3", "@A1"):
        (carpeta / nombre).mkdir()
    if hasattr(os, "mkfifo"):
        os.mkfifo(carpeta / f"eva_{ASIG}.ipynb")
    (carpeta / ".oculta").mkdir()
    (carpeta / "leeme.txt").write_text("hola")
    lineas: list[str] = []
    datos = calificar_clase(ASIG, carpeta, tmp_path / "notas", progreso=lineas.append)
    assert set(datos) >= {"asignacion", "maximo", "estudiantes", "salida", "aislamiento", "omitidas"}
    assert {o["nombre"] for o in datos["omitidas"]} == {".oculta", "leeme.txt"}
    assert all(set(o) == {"nombre", "motivo"} and o["motivo"] for o in datos["omitidas"])
    assert any(".oculta" in linea for linea in lineas), "tutor calificar debe mostrar lo omitido"
    guardado = json.loads((tmp_path / "notas" / "calificaciones.json").read_text(encoding="utf-8"))
    assert guardado["omitidas"] == datos["omitidas"]
    if hasattr(os, "mkfifo"):
        assert datos["estudiantes"]["eva"]["estado"] == "inválido"
    with open(tmp_path / "notas" / "calificaciones.csv", newline="", encoding="utf-8") as f:
        filas = list(csv.reader(f))
    assert len(filas) == 1 + len(datos["estudiantes"])
    for fila in filas[1:]:
        for celda in fila:
            assert celda[:1] not in ("=", "+", "-", "@", "\t", "\r"), f"Celda que una hoja de cálculo ejecutaría: {celda!r}"
    originales = {fila[1] for fila in filas[1:]}
    assert "'=HYPERLINK(\"http:__x\";\"clic\")" in originales and "'-2+3" in originales


# --- 7. topes por estudiante (issue 39, punto 4): nadie detiene a la clase -------------------


def _zip_hostil(ruta: Path, grande: int = 3000) -> Path:
    """Un zip de LMS con dos entregas sanas y una carpeta con cada cosa que no se puede extraer."""
    bueno = NB.encode()
    with zipfile.ZipFile(ruta, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(f"ana/{ASIG}.ipynb", bueno)
        z.writestr("ana/notas\u00e9.txt", b"nombre que luego no es UTF-8")  # se vuelve b"notas\xff\xfe"
        z.writestr(f"{'㎯' * 70}_{ASIG}.ipynb", bueno)  # NFKD: «rad∕s2», el id pasaría de 255 bytes
        z.writestr(f"grande/{ASIG}.ipynb", bueno)
        z.writestr("grande/datos.bin", b"\0" * grande)  # más que el tope por archivo
        z.writestr(f"largo/{ASIG}.ipynb", bueno)
        z.writestr(f"largo/{'a' * 260}.txt", b"x")  # 264 bytes: ningún disco lo acepta
        enlace = zipfile.ZipInfo(f"enlace/{ASIG}.ipynb")
        enlace.external_attr = (stat.S_IFLNK | 0o777) << 16
        z.writestr(enlace, "/etc/passwd")
        dispositivo = zipfile.ZipInfo(f"disp/{ASIG}.ipynb")
        dispositivo.external_attr = (stat.S_IFCHR | 0o666) << 16
        z.writestr(dispositivo, b"")
        z.writestr(f"salta/../../{ASIG}.ipynb", bueno)
        z.writestr(f"doble/{ASIG}.ipynb", bueno)
        z.writestr(f"doble\\{ASIG}.ipynb", bueno)  # el mismo nombre con otra barra
        z.writestr("choque", b"soy un archivo")
        z.writestr(f"choque/{ASIG}.ipynb", bueno)  # ...y una carpeta con el mismo nombre
        for i in range(8):
            z.writestr(f"muchos/x{i}.txt", b"")
        z.writestr(f"cifrado/{ASIG}.ipynb", bueno)  # abajo se marca como cifrado
        z.writestr(zipfile.ZipInfo(f"danado/{ASIG}.ipynb"), b"DANADO" + bueno)  # sin comprimir: se puede romper
        hondo = "/".join(f"n{i}" for i in range(15))
        z.writestr(f"hondo/{hondo}/{ASIG}.ipynb", bueno)
        z.writestr("notas.txt", b"no soy de nadie")
        z.writestr(".oculta/x.ipynb", bueno)
        z.writestr("../fuera.ipynb", bueno)
    datos = bytearray(ruta.read_bytes())
    datos = datos.replace("notas\u00e9".encode(), b"notas\xff\xfe")  # la marca UTF-8 queda puesta
    marca = datos.index(b"DANADO")
    datos[marca] ^= 0xFF  # el CRC ya no coincide
    _marcar_cifrado(datos, f"cifrado/{ASIG}.ipynb".encode())
    ruta.write_bytes(bytes(datos))
    return ruta


def _marcar_cifrado(datos: bytearray, nombre: bytes) -> None:
    """Enciende la bandera «cifrado» de una entrada (zipfile no escribe entradas cifradas)."""
    for firma, bandera, largo, inicio in ((b"PK\x03\x04", 6, 26, 30), (b"PK\x01\x02", 8, 28, 46)):
        pos = datos.find(firma)
        while pos >= 0:
            n = int.from_bytes(datos[pos + largo: pos + largo + 2], "little")
            if datos[pos + inicio: pos + inicio + n] == nombre:
                datos[pos + bandera] |= 0x01
            pos = datos.find(firma, pos + 4)


OFENSORES = {  # carpeta -> algo que su motivo debe decir
    "grande": "más de 1000 bytes",
    "largo": "255 bytes",
    "enlace": "enlace simbólico",
    "disp": "no es un archivo común",
    "salta": "peligrosa",
    "doble": "dos veces",
    "choque": "como archivo y como carpeta",
    "muchos": "entradas",
    "cifrado": "cifrado",
    "danado": "dañada",
}


def test_zip_con_un_problema_por_carpeta_deja_invalida_solo_a_esa(tmp_path):
    zip_ = _zip_hostil(tmp_path / "entregas.zip")
    resultado = zip_entregas.extraer_entregas_zip(zip_, tmp_path / "x", max_archivo=1000, max_entradas_estudiante=5)
    assert resultado.raiz == tmp_path / "x"
    assert set(resultado.invalidas) == set(OFENSORES), resultado.invalidas
    for carpeta, frase in OFENSORES.items():
        assert frase in resultado.invalidas[carpeta], (carpeta, resultado.invalidas[carpeta])
        assert not (resultado.raiz / carpeta).exists(), f"{carpeta}: no debía quedar nada extraído"
    omitidas = {o.nombre: o.motivo for o in resultado.omitidas}
    assert set(omitidas) == {"notas.txt", ".oculta", "../fuera.ipynb"}, omitidas
    assert "peligrosa" in omitidas["../fuera.ipynb"] and not (tmp_path / "x" / "fuera.ipynb").exists()
    assert not (tmp_path / "x" / "grande" / "datos.bin").exists()  # solo se extraen notebooks

    copias = tmp_path / "copias"
    exploracion = explorar_entregas(resultado.raiz, ASIG, copiar_a=copias, invalidas=resultado.invalidas)
    por_nombre = {e.nombre_crudo: e for e in exploracion.entregas}
    for carpeta in OFENSORES:
        e = por_nombre[carpeta]
        assert e.estado == "inválido" and e.ruta is None and e.problema == resultado.invalidas[carpeta], e
    ana = por_nombre["ana"]
    assert ana.estado == "" and json.loads(ana.ruta.read_text()) == json.loads(NB), ana
    suelto = por_nombre[f"{'㎯' * 70}_{ASIG}.ipynb"]
    assert suelto.estado == "" and suelto.ruta is not None and copias in suelto.ruta.parents, suelto
    assert por_nombre["hondo"].estado == "sin entrega"  # más hondo que MAX_PROFUNDIDAD no se busca
    ids = [e.id for e in exploracion.entregas]
    assert len({i.casefold() for i in ids}) == len(ids), ids
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", i) for i in ids), ids


def test_la_version_estricta_sigue_diciendo_por_que_no_extrae(tmp_path):
    zip_ = _zip_hostil(tmp_path / "entregas.zip")
    (tmp_path / "x").mkdir()
    with pytest.raises(ValueError, match="problemas más"):
        extraer_zip(zip_, tmp_path / "x", max_archivo=1000)


def test_topes_por_estudiante_del_zip_con_los_valores_de_verdad(tmp_path):
    """Los ejemplos del issue con los topes reales: 201 MiB en un archivo extra, un nombre de 264 bytes."""
    ruta = tmp_path / "lms.zip"
    with zipfile.ZipFile(ruta, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        z.writestr(f"Tarea 4/ana/{ASIG}.ipynb", NB)  # el LMS envuelve todo en una carpeta
        z.writestr(f"Tarea 4/beto/{ASIG}.ipynb", NB)
        with z.open(zipfile.ZipInfo("Tarea 4/beto/video.mp4"), "w", force_zip64=True) as f:
            for _ in range(201):
                f.write(b"\0" * 2**20)
        z.writestr(f"Tarea 4/carla/{ASIG}.ipynb", NB)
        z.writestr(f"Tarea 4/carla/{'b' * 260}.txt", b"x")
    resultado = zip_entregas.extraer_entregas_zip(ruta, tmp_path / "x")
    assert resultado.raiz == tmp_path / "x" / "Tarea 4"
    assert set(resultado.invalidas) == {"beto", "carla"}, resultado.invalidas
    assert "200 MiB" in resultado.invalidas["beto"] and "255 bytes" in resultado.invalidas["carla"]
    assert (resultado.raiz / "ana" / f"{ASIG}.ipynb").is_file()
    # Una sola carpeta no alcanza los topes de la clase: choca antes con los suyos.
    assert zip_entregas.ZIP_MAX_ESTUDIANTE < zip_entregas.ZIP_MAX_TOTAL
    assert zip_entregas.ZIP_MAX_ENTRADAS_ESTUDIANTE < zip_entregas.ZIP_MAX_ENTRADAS


def test_topes_globales_del_zip_dejan_fuera_a_las_carpetas_mas_grandes_o_dicen_cual(tmp_path):
    def zip_con(nombre, carpetas):
        ruta = tmp_path / f"{nombre}.zip"
        with zipfile.ZipFile(ruta, "w") as z:
            for carpeta, n in carpetas.items():
                z.writestr(f"{carpeta}/{ASIG}.ipynb", NB)
                for i in range(n - 1):
                    z.writestr(f"{carpeta}/extra{i}.txt", b"")
        return ruta

    # Una carpeta enorme (pero bajo su propio tope) no se lleva a la clase: queda fuera ella.
    resultado = zip_entregas.extraer_entregas_zip(zip_con("uno", {"ana": 1, "beto": 1, "enorme": 300}),
                                              tmp_path / "x1", max_entradas=250)
    assert set(resultado.invalidas) == {"enorme"} and "entradas" in resultado.invalidas["enorme"]
    # Muchas carpetas normales que juntas pasan el tope: eso sí es de toda la clase, y dice cuál trae más.
    with pytest.raises(ValueError, match="«c3».*no lo extraigo"):
        zip_entregas.extraer_entregas_zip(zip_con("dos", {"c1": 2, "c2": 3, "c3": 4}), tmp_path / "x2", max_entradas=5)


def test_ids_acotados_en_bytes_unicos_y_estables(tmp_path):
    nombres = ["㎯" * 70, "㎯" * 71, "ﬁ" * 80, "x" * 250, "x" * 249 + "y", "Ａ" * 80]
    for n in nombres:
        (tmp_path / n).mkdir()
        (tmp_path / n / f"{ASIG}.ipynb").write_text(NB)
    (tmp_path / f"{'㎯' * 70}_{ASIG}.ipynb").write_text(NB)
    exploracion = explorar_entregas(tmp_path, ASIG, copiar_a=tmp_path.parent / f"{tmp_path.name}-copias")
    ids = [e.id for e in exploracion.entregas]
    assert len(ids) == len(nombres) + 1 and len({i.casefold() for i in ids}) == len(ids), ids
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", i) for i in ids), ids
    assert all(e.estado == "" and e.ruta.is_file() for e in exploracion.entregas), exploracion.entregas
    assert ids == [e.id for e in explorar_entregas(tmp_path, ASIG).entregas], "los ids deben ser estables"
    assert all(len(entregas.id_seguro(n).encode()) <= entregas.MAX_LARGO_ID == 64 for n in nombres)


def test_un_error_del_disco_con_una_entrega_no_detiene_a_las_demas(tmp_path, monkeypatch):
    carpeta = tmp_path / "entregas"
    for nombre in ("ana", "beto", "carla"):
        (carpeta / nombre).mkdir(parents=True)
        (carpeta / nombre / f"{ASIG}.ipynb").write_text(NB)
    leer = entregas._leer_fd

    def leer_con_falla(fd, nombre, tope):
        if nombre.startswith("beto"):
            raise OSError(5, "Input/output error")  # el disco falla a mitad de la lectura
        return leer(fd, nombre, tope)

    monkeypatch.setattr(entregas, "_leer_fd", leer_con_falla)
    por_nombre = {e.nombre: e for e in explorar_entregas(carpeta, ASIG, copiar_a=tmp_path / "copias").entregas}
    assert por_nombre["beto"].estado == "inválido" and "no pude leer" in por_nombre["beto"].problema
    assert por_nombre["ana"].estado == "" and por_nombre["carla"].estado == ""
    monkeypatch.setattr(entregas, "_leer_fd", leer)

    # La carpeta de las copias no se puede crear (disco lleno, permisos): «error», que se reintenta.
    (tmp_path / "no_es_carpeta").write_text("")
    for e in explorar_entregas(carpeta, ASIG, copiar_a=tmp_path / "no_es_carpeta").entregas:
        assert e.estado == "error" and "no pude copiar" in e.problema, e


def test_celdas_csv_sin_formulas_con_ningun_separador(tmp_path):
    peligrosas = ["ana;=1+1;", "beto,+SUMA(1;2)", "carla\t@A1", "dario\n-1+2", 'eva";=1', "fede; =2*3",
                  "gabi|=1", "=HYPERLINK(\"x\")", "hugo;\uff1d1"]
    ruta = tmp_path / "notas.csv"
    with open(ruta, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([[celda_csv(p), celda_csv("mensaje: " + p)] for p in peligrosas])
    texto = ruta.read_text(encoding="utf-8")
    for separador in (";", ",", "\t", "|"):
        for fila in csv.reader(texto.splitlines(), delimiter=separador):
            for celda in fila:
                assert celda.lstrip(" \"")[:1] not in ("=", "+", "-", "@", "\uff1d"), (separador, celda)
    with open(ruta, newline="", encoding="utf-8") as f:  # y con el separador de verdad se lee todo
        filas = list(csv.reader(f))
    assert [f[0].replace("'", "") for f in filas] == [p.replace("'", "") for p in peligrosas]
    for normal in ("ana", "Carla_Nunez", "0.5", "a=b", "x-y", "", "nota: 3 de 11"):
        assert celda_csv(normal) == normal
