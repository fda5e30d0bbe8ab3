"""Una clase donde algunos estudiantes atacan la exploración de entregas: nadie detiene a los demás.

Issue 39, puntos 4 y 6. La clase de ``ej11_qlora`` llega como el zip de un LMS
y se califica **una sola vez** con la entrada real de ``tutor calificar``
(:func:`tutor_lib.cli.main`). Trae dos estudiantes honestos (uno en su carpeta,
con un archivo extra cuyo nombre no es UTF-8; otro como notebook suelto cuyo
nombre crece más allá de 255 bytes con NFKD: ``"㎯" * 70``) y una carpeta por
ataque: un archivo extra de 201 MiB, un nombre de 264 bytes, un enlace, un
dispositivo, un notebook repetido, más entradas que el tope por estudiante,
un notebook cifrado, un nombre de carpeta que es una fórmula y una ruta que
sale del zip. Se comprueba que:

* la corrida termina con código 0 y los honestos tienen todos los puntos;
* cada atacante queda ``inválido``, con 0 puntos y un motivo en español;
* lo que no es de nadie queda en las omitidas y no se extrae;
* ``calificaciones.csv`` abierto con ``;``, ``,`` o tabulador (como lo abre
  una hoja de cálculo en español) no tiene ninguna celda que empiece con
  ``= + - @``.

La misma clase en una carpeta con notebooks sueltos se revisa sin calificar
(la exploración y la copia privada son lo que fallaba). Al final, ``tutor
corregir`` con un mensaje de parte que trae códigos de terminal: nada de eso
llega a la pantalla.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import stat
import zipfile
from pathlib import Path

import nbformat
import pytest

from tutor_lib.calificacion.motor.calificador import entrega_de_referencia, fuente

RAIZ = Path(__file__).resolve().parents[1]
ASIG = "ej11_qlora"  # la asignación que más rápido se califica
SUELTO = f"{'㎯' * 70}_{ASIG}.ipynb"  # 227 bytes; su id con NFKD («rad∕s2» por cada «㎯») pasaría de 255
FORMULA = "ana;=1+1;,@SUMA(A1)"  # en una hoja que separa por «;» o «,», «=1+1» y «@SUMA(A1)» serían celdas
MUCHAS = 5_001  # entradas en una carpeta: más que el tope por estudiante (lo comprueba una prueba de abajo)

#: carpeta del atacante -> lo que su motivo debe decir
ATAQUES = {
    "grande": "200 MiB",
    "nombre_largo": "255 bytes",
    "enlace": "enlace simbólico",
    "dispositivo": "no es un archivo común",
    "doble": "dos veces",
    "muchos": "entradas",
    "cifrado": "cifrado",
    FORMULA: "enlace simbólico",
}
#: Lo que un mensaje en español trae y uno en inglés no.
ESPANOL = re.compile(r"\b(el|la|de|no|un|una|tu)\b")
#: Lo que una terminal interpreta: C0 salvo \n y \t, DEL, C1, dirección del texto.
CONTROLES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _enlace(ruta: str, destino: str) -> tuple[zipfile.ZipInfo, str]:
    info = zipfile.ZipInfo(ruta)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info, destino


def _marcar_cifrado(datos: bytearray, nombre: bytes) -> None:
    """Enciende la bandera «cifrado» de una entrada (zipfile no escribe entradas cifradas)."""
    for firma, bandera, largo, inicio in ((b"PK\x03\x04", 6, 26, 30), (b"PK\x01\x02", 8, 28, 46)):
        pos = datos.find(firma)
        while pos >= 0:
            n = int.from_bytes(datos[pos + largo: pos + largo + 2], "little")
            if datos[pos + inicio: pos + inicio + n] == nombre:
                datos[pos + bandera] |= 0x01
            pos = datos.find(firma, pos + 4)


def _zip_de_la_clase(ruta: Path, referencia: str) -> Path:
    with zipfile.ZipFile(ruta, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        # Los dos honestos.
        z.writestr(f"honesta/{ASIG}.ipynb", referencia)
        z.writestr("honesta/apuntes\u00e9.txt", "un archivo extra")  # abajo su nombre deja de ser UTF-8
        z.writestr(SUELTO, referencia)
        # 4. Los tres ejemplos del issue (el tercero es SUELTO) y más de la misma clase.
        z.writestr(f"grande/{ASIG}.ipynb", referencia)
        with z.open(zipfile.ZipInfo("grande/datos.bin"), "w", force_zip64=True) as f:
            for _ in range(201):  # 201 MiB de ceros: el zip pesa unos cientos de KiB
                f.write(bytes(2**20))
        z.writestr(f"nombre_largo/{ASIG}.ipynb", referencia)
        z.writestr(f"nombre_largo/{'a' * 260}.txt", "x")  # 264 bytes
        z.writestr(*_enlace(f"enlace/{ASIG}.ipynb", "/etc/passwd"))
        dispositivo = zipfile.ZipInfo(f"dispositivo/{ASIG}.ipynb")
        dispositivo.external_attr = (stat.S_IFCHR | 0o666) << 16
        z.writestr(dispositivo, b"")
        z.writestr(f"doble/{ASIG}.ipynb", referencia)
        z.writestr(f"doble\\{ASIG}.ipynb", referencia)  # el mismo nombre, con la otra barra
        z.writestr(f"muchos/{ASIG}.ipynb", referencia)
        for i in range(MUCHAS - 1):
            z.writestr(f"muchos/basura/{i}.txt", b"")
        z.writestr(f"cifrado/{ASIG}.ipynb", referencia)  # abajo se marca como cifrado
        z.writestr(f"{FORMULA}/{ASIG}.ipynb", referencia)
        z.writestr(*_enlace(f"{FORMULA}/=HYPERLINK(x).ipynb", "../honesta"))
        z.writestr(f"../fuera_{ASIG}.ipynb", referencia)
    datos = bytearray(ruta.read_bytes())
    datos = datos.replace("apuntes\u00e9".encode(), b"apuntes\xff\xfe")  # con la marca UTF-8 puesta
    _marcar_cifrado(datos, f"cifrado/{ASIG}.ipynb".encode())
    ruta.write_bytes(bytes(datos))
    return ruta


@pytest.fixture(scope="module")
def referencia() -> str:
    """La entrega de referencia de la asignación (todos los puntos), como texto.

    Parte de la versión publicada en ``exercises/`` (la que nbgrader genera; otra prueba revisa que
    no esté desactualizada): armar un curso temporal solo para obtenerla cuesta segundos que aquí sobran.
    """
    liberado = nbformat.read(RAIZ / "exercises" / ASIG / f"{ASIG}.ipynb", as_version=4)
    return nbformat.writes(entrega_de_referencia(nbformat.read(fuente(ASIG), as_version=4), liberado))


@pytest.fixture(scope="module")
def clase(tmp_path_factory, referencia):
    """Arma el zip de la clase, lo califica una vez con ``tutor calificar --json`` y devuelve lo que salió."""
    from tutor_lib import cli

    base = tmp_path_factory.mktemp("clase_hostil")
    (base / "entregas").mkdir()
    zip_ = _zip_de_la_clase(base / "entregas" / "tarea.zip", referencia)
    salida = base / "notas"
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        codigo = cli.main(["calificar", ASIG, str(zip_), "--salida", str(salida), "--procesos", "2", "--json"])
    assert codigo == 0, (codigo, stderr.getvalue()[-3000:])
    datos = json.loads(stdout.getvalue())
    detalle = json.loads((salida / "detalle.json").read_text(encoding="utf-8"))
    csv_texto = (salida / "calificaciones.csv").read_text(encoding="utf-8")
    filas = list(csv.DictReader(io.StringIO(csv_texto, newline="")))
    por_nombre = {f["nombre_original"].replace("'", ""): f for f in filas}
    return dict(base=base, datos=datos, detalle=detalle, csv=csv_texto, por_nombre=por_nombre, stderr=stderr.getvalue())


def _fila(clase, nombre: str) -> dict:
    fila = clase["por_nombre"].get(nombre.replace("'", ""))
    assert fila is not None, f"{nombre!r} no aparece en el CSV: {sorted(clase['por_nombre'])}"
    return fila


def test_los_honestos_se_califican_con_todos_los_puntos(clase):
    for nombre in ("honesta", SUELTO):
        fila = _fila(clase, nombre)
        d = clase["detalle"][fila["estudiante"]]
        automaticos = d["maximo"] - sum(p["maximo"] for p in d["partes"] if p["puntos"] is None)
        assert d["estado"] == "calificado" and d["puntos"] == automaticos > 0, (nombre, d["estado"], d["mensaje"])
    id_suelto = _fila(clase, SUELTO)["estudiante"]
    assert re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", id_suelto), id_suelto


@pytest.mark.parametrize("nombre", list(ATAQUES))
def test_cada_atacante_queda_invalido_con_su_motivo_en_espanol(clase, nombre):
    fila = _fila(clase, nombre)
    d = clase["detalle"][fila["estudiante"]]
    assert d["estado"] == "inválido" and d["puntos"] == 0, (nombre, d)
    assert ATAQUES[nombre] in d["mensaje"] and ESPANOL.search(d["mensaje"]), d["mensaje"]
    assert "Traceback" not in d["mensaje"] and "Error" not in d["mensaje"], d["mensaje"]


def test_la_carpeta_muchos_pasa_el_tope_por_estudiante():
    from tutor_lib.calificacion.zip_entregas import ZIP_MAX_ENTRADAS, ZIP_MAX_ENTRADAS_ESTUDIANTE

    assert ZIP_MAX_ENTRADAS_ESTUDIANTE < MUCHAS < ZIP_MAX_ENTRADAS


def test_nadie_se_pierde_y_lo_que_no_es_de_nadie_queda_omitido(clase):
    ids = [f["estudiante"] for f in clase["por_nombre"].values()]
    assert len(ids) == len(set(ids)) == 2 + len(ATAQUES), sorted(clase["por_nombre"])
    assert set(clase["datos"]["estudiantes"]) == set(ids)
    omitidas = {o["nombre"]: o["motivo"] for o in clase["datos"]["omitidas"]}
    assert "peligrosa" in omitidas.get(f"../fuera_{ASIG}.ipynb", ""), omitidas
    assert not list(clase["base"].rglob(f"fuera_{ASIG}.ipynb")), "el zip escribió fuera de su carpeta"


def test_el_csv_abierto_con_cualquier_separador_no_trae_formulas(clase):
    texto = clase["csv"]
    assert FORMULA.replace(";", "") in texto.replace("'", "").replace(";", "")  # la fila está, neutralizada
    for separador in (";", ",", "\t"):
        for fila in csv.reader(io.StringIO(texto, newline=""), delimiter=separador):
            for celda in fila:
                assert celda.lstrip(' "')[:1] not in ("=", "+", "-", "@"), (separador, celda)
        for linea in texto.splitlines():  # y partiendo a mano, sin respetar comillas
            for celda in linea.split(separador):
                assert celda.lstrip(' "')[:1] not in ("=", "+", "-", "@"), (separador, celda)


def test_la_misma_clase_en_una_carpeta_con_notebooks_sueltos(referencia, tmp_path):
    """La exploración y la copia privada que hace ``tutor calificar`` con una carpeta (sin calificar de nuevo)."""
    from tutor_lib.calificacion.entregas import explorar_entregas

    carpeta = tmp_path / "entregas"
    carpeta.mkdir()
    (carpeta / "honesta").mkdir()
    (carpeta / "honesta" / f"{ASIG}.ipynb").write_text(referencia)
    os.mkdir(os.path.join(os.fsencode(carpeta / "honesta"), b"apuntes\xff\xfe"))
    (carpeta / SUELTO).write_text(referencia)
    (carpeta / f"{'x' * 230}_{ASIG}.ipynb").write_text(referencia)  # 247 bytes
    (carpeta / f"{'x' * 229}y_{ASIG}.ipynb").write_text(referencia)  # empieza igual
    (carpeta / f"enlace_{ASIG}.ipynb").symlink_to(carpeta / SUELTO)
    if hasattr(os, "mkfifo"):
        os.mkfifo(carpeta / f"fifo_{ASIG}.ipynb")
    exploracion = explorar_entregas(carpeta, ASIG, copiar_a=tmp_path / "copias")
    por_nombre = {e.nombre: e for e in exploracion.entregas}
    for nombre in ("honesta", SUELTO, f"{'x' * 230}_{ASIG}.ipynb", f"{'x' * 229}y_{ASIG}.ipynb"):
        e = por_nombre[nombre]
        assert e.estado == "" and e.ruta.read_text() == referencia, e
    for nombre in [f"enlace_{ASIG}.ipynb"] + ([f"fifo_{ASIG}.ipynb"] if hasattr(os, "mkfifo") else []):
        e = por_nombre[nombre]
        assert e.estado == "inválido" and ESPANOL.search(e.problema), e
    ids = [e.id for e in exploracion.entregas]
    assert len({i.casefold() for i in ids}) == len(ids), ids
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", i) for i in ids), ids


# --- 6. lo que imprime tutor: sin códigos de terminal ------------------------------------


def test_tutor_corregir_no_deja_que_un_mensaje_reescriba_la_terminal(tmp_path, monkeypatch, capsys):
    """Un notebook con 0 puntos cuyo mensaje de parte trae ``\\r``, ANSI, OSC, retrocesos y U+202E."""
    from tutor_lib import autoevaluacion, cli
    from tutor_lib.calificacion.resultados import Calificacion, Parte

    engano = ("Falla.\r\x1b[2K  \u2714 parte  11 / 11\x1b[1A\x1b[2K\rAsignación ej11_qlora: 11 de 11 puntos."
              "\x1b]0;titulo\x07\b\b\u202eojabart neuB¡\x9b2J\x1bc\x00")
    cal = Calificacion(ASIG, "yo", "calificado", 0.0, 11.0, "0 de 11 puntos.", partes=[Parte("parte", 0.0, 11.0, engano)])
    notebook = tmp_path / f"{ASIG}.ipynb"
    notebook.write_text("{}")

    # Un error previsible con un nombre hostil: el mensaje de error tampoco trae controles.
    assert cli.main(["corregir", str(tmp_path / "no\x1b[31mexiste\r.ipynb")]) == 2
    _, err = capsys.readouterr()
    assert "no" in err and "existe" in err and not CONTROLES.search(err), repr(err)

    monkeypatch.setattr(autoevaluacion, "corregir", lambda *args, **kwargs: cal)
    cli.main(["corregir", str(notebook)])
    out, err = capsys.readouterr()
    assert not CONTROLES.search(out + err), repr(out + err)
    lineas = out.splitlines()
    assert lineas[0] == "Asignación ej11_qlora: 0 de 11 puntos.", lineas
    assert len(lineas) == 2 and lineas[1].lstrip().startswith("\u2718 parte"), lineas  # ✘: ni un punto
    assert "¡Buen trabajo!" not in out

    # Con --json el dato llega entero (escapado) y la terminal tampoco ve nada crudo.
    cli.main(["corregir", str(notebook), "--json"])
    out, _ = capsys.readouterr()
    assert not CONTROLES.search(out), repr(out)
    assert json.loads(out)["partes"][0]["mensaje"] == engano
