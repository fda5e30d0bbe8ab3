"""Calificación con nbgrader real: manipulación, ciclos sin fin, kernels caídos, aislamiento y las dos CLI.

Se usa una asignación real del curso (``ASIG``). Todo corre con nbgrader
(``generate_assignment``, ``autograde``, ``generate_feedback``) y con el kernel
aislado de :mod:`tutor_lib.calificacion.kernel.aislamiento`, como lo usa un instructor.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import nbformat
import pytest

from tutor_lib.calificacion.motor.calificador import CursoTemporal, Limites, entrega_de_referencia, fuente

RAIZ = Path(__file__).resolve().parents[1]
# La asignación que más rápido se califica (ver python -m benchmarks calificacion): las
# pruebas de manipulación no dependen del tema, solo de la forma de nbgrader.
ASIG = "ej11_qlora"


def _nbg(celda) -> dict:
    return celda.get("metadata", {}).get("nbgrader", {}) or {}


def _es_prueba(celda) -> bool:
    return bool(_nbg(celda).get("grade")) and not _nbg(celda).get("solution")


@pytest.fixture(scope="module")
def curso():
    # 30 s por celda: importar torch y transformers en una CPU de 2 núcleos cargada puede pasar de 10 s.
    with CursoTemporal(ASIG, limites=Limites(tiempo_celda=30, tiempo_total=240)) as c:
        yield c


@pytest.fixture(scope="module")
def referencia(curso):
    """La entrega con la solución de referencia, como dict de JSON."""
    nb = entrega_de_referencia(nbformat.read(fuente(ASIG), as_version=4), curso.liberado)
    return json.loads(nbformat.writes(nb))


@pytest.fixture(scope="module")
def vacia(curso):
    return json.loads(nbformat.writes(curso.liberado))


def calificar(curso, tmp_path, nombre, nb: dict, **kw):
    ruta = tmp_path / f"{nombre}.ipynb"
    ruta.write_text(json.dumps(nb))
    return curso.calificar(nombre, ruta, retroalimentacion=False, **kw)


def automaticos(curso) -> float:
    return sum(_nbg(c).get("points", 0) for c in curso.liberado.cells if _es_prueba(c))


@pytest.fixture(scope="module")
def nota_referencia(curso, referencia, tmp_path_factory):
    cal = calificar(curso, tmp_path_factory.mktemp("ref"), "referencia", referencia)
    assert cal.estado == "calificado", cal.mensaje
    assert cal.puntos == automaticos(curso), [(p.id, p.puntos, p.mensaje) for p in cal.partes]
    assert cal.aislamiento.get("completo"), cal.aislamiento
    return cal


# --- manipulación: nunca sube la nota, nunca rompe la calificación ------------------


def _sin_metadatos(nb):
    for c in nb["cells"]:
        c["metadata"] = {}
        c.pop("id", None)
    return nb


def _pruebas_vaciadas(nb):
    for c in nb["cells"]:
        if _es_prueba(c):
            c["source"] = "pass  # la prueba ya no comprueba nada"
    return nb


def _pruebas_borradas(nb):
    nb["cells"] = [c for c in nb["cells"] if not _es_prueba(c)]
    return nb


def _pruebas_duplicadas(nb):
    celdas = []
    for c in nb["cells"]:
        celdas.append(c)
        if _es_prueba(c):
            celdas.append(copy.deepcopy(c))
    nb["cells"] = celdas
    return nb


def _pruebas_en_markdown(nb):
    for c in nb["cells"]:
        if _es_prueba(c):
            c["cell_type"] = "markdown"
            c.pop("outputs", None)
            c.pop("execution_count", None)
    return nb


def _metadatos_inflados(nb):
    for c in nb["cells"]:
        meta = _nbg(c)
        if meta.get("solution"):
            meta.update(grade=True, points=100, grade_id=meta["grade_id"] + "-mia")
        elif meta.get("grade"):
            meta.update(points=1000, checksum="0" * 32)
    return nb


def _etiquetas_cambiadas(nb):
    for c in nb["cells"]:
        c.setdefault("metadata", {})["tags"] = ["raises-exception", "skip"]
        if _nbg(c):
            c["metadata"]["nbgrader"]["grade_id"] = "x-" + c["metadata"]["nbgrader"]["grade_id"]
            c["metadata"]["nbgrader"]["locked"] = False
    return nb


MANIPULACIONES = {
    "metadatos y ids borrados (como Colab)": _sin_metadatos,
    "pruebas vaciadas": _pruebas_vaciadas,
    "pruebas borradas": _pruebas_borradas,
    "pruebas duplicadas": _pruebas_duplicadas,
    "pruebas convertidas en markdown": _pruebas_en_markdown,
    "puntos y grade_id inflados": _metadatos_inflados,
    "etiquetas y grade_id cambiados": _etiquetas_cambiadas,
}


@pytest.mark.parametrize("nombre", list(MANIPULACIONES))
def test_manipular_una_entrega_resuelta_no_cambia_la_nota(curso, referencia, nota_referencia, tmp_path, nombre):
    cal = calificar(curso, tmp_path, "trampa", MANIPULACIONES[nombre](copy.deepcopy(referencia)))
    assert cal.estado == "calificado", cal.mensaje
    assert cal.maximo == nota_referencia.maximo
    assert cal.puntos == nota_referencia.puntos, [(p.id, p.puntos, p.mensaje) for p in cal.partes]


@pytest.mark.parametrize("nombre", ["pruebas vaciadas", "puntos y grade_id inflados", "metadatos y ids borrados (como Colab)",
                                    "pruebas borradas"])
def test_manipular_un_ejercicio_sin_resolver_sigue_en_cero(curso, vacia, tmp_path, nombre):
    cal = calificar(curso, tmp_path, "trampa_vacia", MANIPULACIONES[nombre](copy.deepcopy(vacia)))
    assert cal.estado == "calificado", cal.mensaje
    assert cal.puntos == 0


def test_llamadas_aleatorias_extra_no_cambian_la_nota(curso, referencia, nota_referencia, tmp_path):
    nb = copy.deepcopy(referencia)
    ruido = "import random\nimport numpy as np\nimport torch\nrandom.random(); np.random.rand(17); torch.rand(33)\ntorch.manual_seed(12345)"
    celdas = []
    for c in nb["cells"]:
        celdas.append(c)
        if _nbg(c).get("solution") and c["cell_type"] == "code":
            c["source"] += "\n" + ruido
            celdas.append(json.loads(json.dumps(nbformat.v4.new_code_cell(ruido))))
    nb["cells"] = celdas
    cal = calificar(curso, tmp_path, "ruido", nb)
    assert cal.puntos == nota_referencia.puntos


def test_un_ciclo_sin_fin_pierde_solo_su_parte(curso, referencia, nota_referencia, tmp_path):
    nb = copy.deepcopy(referencia)
    primera = next(c for c in nb["cells"] if _nbg(c).get("solution") and c["cell_type"] == "code")
    primera["source"] = "while True:\n    pass"
    inicio = time.monotonic()
    cal = calificar(curso, tmp_path, "ciclo", nb)
    assert cal.estado == "calificado", cal.mensaje
    assert time.monotonic() - inicio < 200
    perdidas = [p for p in cal.partes if p.puntos is not None and p.puntos < p.maximo]
    assert perdidas, "la parte con el ciclo debió perder puntos"
    assert 0 < cal.puntos < nota_referencia.puntos
    assert any("tardó más de" in p.mensaje for p in perdidas), [p.mensaje for p in perdidas]


def test_un_kernel_que_se_cae_no_da_puntos_ni_se_cuelga(curso, referencia, tmp_path):
    nb = copy.deepcopy(referencia)
    primera = next(c for c in nb["cells"] if _nbg(c).get("solution") and c["cell_type"] == "code")
    primera["source"] = "import os\nos._exit(3)"
    cal = calificar(curso, tmp_path, "caida", nb)
    assert cal.estado == "error" and cal.puntos == 0, (cal.estado, cal.puntos, cal.mensaje)
    assert "kernel se detuvo" in cal.mensaje


# --- aislamiento: el código del estudiante no gana nada ni daña a nadie ---------------------


ATAQUE = r'''
import json, os, socket, pathlib
def intento(f):
    try:
        r = f()
        return "PUDO" if r is None else f"PUDO: {str(r)[:80]}"
    except BaseException as e:
        return f"{type(e).__name__}:{getattr(e, 'errno', '')}"
res = {}
import _socket  # sin pasar por ningún bloqueo de Python: la red tiene que no existir
def conectar():
    s = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    s.settimeout(3)
    s.connect(("1.1.1.1", 80))
res["red"] = intento(conectar)
res["interfaces"] = [nombre for _, nombre in socket.if_nameindex()]
res["leer_solucion"] = intento(lambda: open(RUTA_SOLUCION).read()[:50])
res["leer_libreta"] = intento(lambda: open(RUTA_LIBRETA, "rb").read(10))
res["listar_fuente_privada"] = intento(lambda: os.listdir(RUTA_PRIVADA) or None)
res["escribir_repo"] = intento(lambda: open(RUTA_REPO + "/atacante.txt", "w").write("x") and None)
res["escribir_home"] = intento(lambda: open(os.path.expanduser("~/atacante.txt"), "w").write("x") and None)
res["tocar_victima"] = intento(lambda: open(RUTA_VICTIMA, "w").write("{}") and None)
res["borrar_victima"] = intento(lambda: os.remove(RUTA_VICTIMA))
res["leer_entregas"] = intento(lambda: os.listdir(RUTA_ENTREGAS) or None)
res["leer_git"] = intento(lambda: open(RUTA_REPO + "/.git/HEAD").read())
res["leer_variantes"] = intento(lambda: open(RUTA_REPO + "/tests/asignaciones/" + ASIG + ".py").read()[:40])
res["token"] = os.environ.get("HF_TOKEN", "no está")
res["escribir_propia"] = intento(lambda: open("propio.txt", "w").write("ok") and None)
print("ATAQUE=" + json.dumps(res))
'''


def test_el_codigo_del_estudiante_queda_aislado(curso, referencia, tmp_path, monkeypatch):
    victima = calificar(curso, tmp_path, "victima", copy.deepcopy(referencia))
    ruta_victima = curso.curso / "autograded" / "victima" / ASIG / f"{ASIG}.ipynb"
    huella = hashlib.sha256(ruta_victima.read_bytes()).hexdigest()
    monkeypatch.setenv("HF_TOKEN", "hf_secreto_del_instructor")
    nb = copy.deepcopy(referencia)
    rutas = {
        "RUTA_SOLUCION": str(fuente(ASIG)),
        "RUTA_LIBRETA": str(curso.privado / "gradebook.db"),
        "RUTA_PRIVADA": str(curso.privado),
        "RUTA_REPO": str(RAIZ),
        "RUTA_VICTIMA": str(ruta_victima),
        "RUTA_ENTREGAS": str(curso.curso / "submitted"),
        "ASIG": ASIG,
    }
    codigo = "\n".join(f"{k} = {v!r}" for k, v in rutas.items()) + ATAQUE
    nb["cells"].insert(3, json.loads(json.dumps(nbformat.v4.new_code_cell(codigo))))
    antes_repo = sorted(p.name for p in RAIZ.iterdir())
    cal = calificar(curso, tmp_path, "atacante", nb)
    assert cal.estado == "calificado", cal.mensaje
    assert cal.puntos == victima.puntos  # sin ventaja
    autocal = nbformat.read(curso.curso / "autograded" / "atacante" / ASIG / f"{ASIG}.ipynb", as_version=4)
    salida = "".join(
        s.get("text", "") for c in autocal.cells if c.cell_type == "code" for s in c.get("outputs", [])
    )
    linea = next(l for l in salida.splitlines() if l.startswith("ATAQUE="))
    res = json.loads(linea.removeprefix("ATAQUE="))
    for clave in ("red", "leer_solucion", "leer_libreta", "listar_fuente_privada", "escribir_repo",
                  "escribir_home", "tocar_victima", "borrar_victima", "leer_entregas", "leer_git", "leer_variantes"):
        assert not res[clave].startswith("PUDO"), (clave, res[clave])
    assert res["red"] == "OSError:101", res["red"]  # ENETUNREACH: no hay ninguna interfaz con salida
    assert res["interfaces"] == ["lo"], res["interfaces"]
    assert res["token"] == "no está"
    assert res["escribir_propia"].startswith("PUDO")
    # nadie salió dañado
    assert hashlib.sha256(ruta_victima.read_bytes()).hexdigest() == huella
    assert sorted(p.name for p in RAIZ.iterdir()) == antes_repo
    assert not (Path.home() / "atacante.txt").exists()
    assert cal.aislamiento["completo"], cal.aislamiento


# --- las dos órdenes: tutor calificar y tutor corregir ----------------------------------------


def tutor(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "tutor_lib", *args], capture_output=True, text=True, timeout=timeout,
                          cwd=RAIZ)


def _huellas(carpeta: Path) -> dict[str, str]:
    return {str(p.relative_to(carpeta)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(carpeta.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def clase(tmp_path_factory, referencia, vacia):
    """Una clase: una entrega buena, una rota, una manipulada, una vacía, una que no termina y una carpeta sin notebook."""
    raiz = tmp_path_factory.mktemp("clase")
    entregas = raiz / "entregas"
    for nombre, nb in [
        ("ana", referencia),
        ("Carla Núñez", _sin_metadatos(_pruebas_vaciadas(copy.deepcopy(referencia)))),
        ("eva", vacia),
    ]:
        (entregas / nombre).mkdir(parents=True)
        (entregas / nombre / f"{ASIG}.ipynb").write_text(json.dumps(nb))
    (entregas / "beto").mkdir()
    (entregas / "beto" / f"{ASIG}.ipynb").write_text('{"cells": [ roto')
    (entregas / "dario").mkdir()
    (entregas / "dario" / "notas.txt").write_text("olvidé subirlo")
    terco = copy.deepcopy(referencia)
    primera = next(c for c in terco["cells"] if _nbg(c).get("solution") and c["cell_type"] == "code")
    primera["source"] = "import time\nwhile True:\n    try:\n        time.sleep(0.1)\n    except KeyboardInterrupt:\n        pass"
    (entregas / "fede").mkdir()
    (entregas / "fede" / f"{ASIG}.ipynb").write_text(json.dumps(terco))
    return raiz, entregas


def test_tutor_calificar_una_clase_completa(clase, nota_referencia):
    raiz, entregas = clase
    antes = _huellas(entregas)
    r = tutor("calificar", ASIG, str(entregas), "--json", "--tiempo-celda", "20", "--tiempo-total", "60", "--procesos", "2")
    assert r.returncode == 0, r.stderr[-3000:]
    datos = json.loads(r.stdout)
    assert set(datos) >= {"asignacion", "maximo", "estudiantes"}
    assert datos["asignacion"] == ASIG and datos["maximo"] == nota_referencia.maximo
    est = datos["estudiantes"]
    assert set(est) == {"ana", "Carla_Nunez", "eva", "beto", "dario", "fede"}
    for e in est.values():
        assert set(e) == {"puntos", "estado", "mensaje", "nombre_original", "lms", "lms_id", "tarde"}
    assert est["ana"] == {"puntos": nota_referencia.puntos, "estado": "calificado", "mensaje": est["ana"]["mensaje"],
                          "nombre_original": "ana", "lms": None, "lms_id": None, "tarde": False}
    assert est["Carla_Nunez"]["nombre_original"] == "Carla Núñez"
    assert est["Carla_Nunez"]["estado"] == "calificado" and est["Carla_Nunez"]["puntos"] == nota_referencia.puntos
    assert est["eva"]["puntos"] == 0
    assert est["beto"]["estado"] == "inválido" and "JSON" in est["beto"]["mensaje"]
    assert est["dario"]["estado"] == "sin entrega"
    assert est["fede"]["estado"] == "tiempo agotado" and est["fede"]["puntos"] == 0
    salida = Path(datos["salida"])
    filas = (salida / "calificaciones.csv").read_text(encoding="utf-8").splitlines()
    assert filas[0].startswith("estudiante,nombre_original,estado,puntos,maximo,pendiente_manual,")
    assert len(filas) == 1 + 6
    for quien in ("ana", "Carla_Nunez", "eva"):
        assert (salida / "retroalimentacion" / quien / f"{ASIG}.html").is_file()
    assert _huellas(entregas) == antes  # las entregas originales no se tocan
    # nada de la entrega que no terminaba sigue corriendo: ningún kernel ni juez de la corrida
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    restos = [l for l in ps.splitlines() if ("ipykernel_launcher" in l and ("/tutor-s-" in l or "/tutor-ej" in l))
              or "tutor_lib.calificacion.juez.proceso" in l]
    assert not restos, restos


def test_tutor_calificar_acepta_el_zip_de_un_lms(clase, nota_referencia, tmp_path):
    _, entregas = clase
    z = tmp_path / "entregas_moodle.zip"
    with zipfile.ZipFile(z, "w") as f:
        for quien, participante in (("ana", 12345), ("eva", 12346)):
            f.write(entregas / quien / f"{ASIG}.ipynb", f"Tarea 11/{quien}_{participante}_assignsubmission_file_/{ASIG}.ipynb")
    r = tutor("calificar", ASIG, str(z), "--json", "--salida", str(tmp_path / "notas"))
    assert r.returncode == 0, r.stderr[-3000:]
    est = json.loads(r.stdout)["estudiantes"]
    # Moodle: el id sale del nombre y el número de participante queda aparte (issue 45; ver test_lms_zip.py).
    assert est["ana"]["puntos"] == nota_referencia.puntos and (est["ana"]["lms"], est["ana"]["lms_id"]) == ("moodle", "12345")
    assert est["eva"]["puntos"] == 0 and est["eva"]["lms_id"] == "12346"
    filas = (tmp_path / "notas" / "calificaciones.csv").read_text(encoding="utf-8").splitlines()
    # calificar otra vez no pisa la corrida anterior: queda a un lado con su fecha
    r2 = tutor("calificar", ASIG, str(z), "--json", "--salida", str(tmp_path / "notas"))
    assert r2.returncode == 0, r2.stderr[-3000:]
    anteriores = list(tmp_path.glob("notas.anterior-*"))
    assert len(anteriores) == 1
    assert (anteriores[0] / "calificaciones.csv").read_text(encoding="utf-8").splitlines() == filas


def test_tutor_calificar_errores_claros(tmp_path):
    r = tutor("calificar", "ej99_no_existe", str(tmp_path))
    assert r.returncode == 2 and "No existe la asignación" in r.stderr and "Traceback" not in r.stderr
    r = tutor("calificar", ASIG, str(tmp_path / "no_hay"))
    assert r.returncode == 2 and "No existe" in r.stderr and "Traceback" not in r.stderr
    r = tutor("calificar", ASIG, str(tmp_path))
    assert r.returncode == 2 and "No encontré entregas" in r.stderr


def test_tutor_corregir_informa_sin_mostrar_la_solucion(curso, tmp_path, vacia, nota_referencia, referencia):
    ruta = tmp_path / f"{ASIG}.ipynb"
    ruta.write_text(json.dumps(vacia))
    r = tutor("corregir", str(ruta), "--json")
    assert r.returncode == 0, r.stderr[-3000:]
    datos = json.loads(r.stdout)
    assert set(datos) >= {"asignacion", "puntos", "maximo", "partes"}
    assert datos["asignacion"] == ASIG and datos["puntos"] == 0 and datos["maximo"] == nota_referencia.maximo
    for parte in datos["partes"]:
        assert set(parte) >= {"id", "puntos", "maximo", "mensaje"} and parte["mensaje"]
    # ninguna línea de la solución ni de las pruebas ocultas aparece en lo que ve el estudiante
    fuente_nb = nbformat.read(fuente(ASIG), as_version=4)
    secretas = {l.strip() for c in fuente_nb.cells for l in _bloques_secretos(c.source) if len(l.strip()) > 12}
    texto = tutor("corregir", str(ruta)).stdout
    for linea in secretas:
        assert linea not in r.stdout and linea not in texto, linea
    assert "✘" in texto
    # la copia de Colab con otro nombre y la solución completa
    otra = tmp_path / f"Copia de {ASIG} (2).ipynb"
    otra.write_text(json.dumps(referencia))
    r = tutor("corregir", str(otra))
    assert r.returncode == 0 and "✔" in r.stdout and "✘" not in r.stdout


def test_tutor_corregir_errores_claros(tmp_path):
    r = tutor("corregir", str(tmp_path / "nada.ipynb"))
    assert r.returncode == 2 and "No existe" in r.stderr and "Traceback" not in r.stderr
    (tmp_path / "mio.ipynb").write_text("{}")
    r = tutor("corregir", str(tmp_path / "mio.ipynb"))
    assert r.returncode == 2 and "--asignacion" in r.stderr
    r = tutor("corregir", str(tmp_path / "mio.ipynb"), "--asignacion", ASIG, "--json")
    assert r.returncode == 1 and json.loads(r.stdout)["estado"] == "inválido"


def _bloques_secretos(texto: str):
    dentro = False
    for linea in texto.splitlines():
        if "BEGIN SOLUTION" in linea or "BEGIN HIDDEN TESTS" in linea:
            dentro = True
            continue
        if "END SOLUTION" in linea or "END HIDDEN TESTS" in linea:
            dentro = False
            continue
        if dentro:
            yield linea


# --- del LMS y de vuelta (issue 45): zip de verdad → tutor calificar → tutor exportar ------------------------


def _leer_csv(ruta: Path, separador: str = ",") -> list[list[str]]:
    import csv

    with open(ruta, newline="", encoding="utf-8-sig") as f:
        return list(csv.reader(f, delimiter=separador))


def _escribir_csv(ruta: Path, filas: list[list[str]], separador: str = ",") -> None:
    import csv

    with open(ruta, "w", newline="", encoding="utf-8") as f:
        csv.writer(f, delimiter=separador).writerows(filas)


def _solo_cambian(antes: list[list[str]], despues: list[list[str]], columnas: set[int]) -> None:
    """Cada celda fuera de ``columnas`` sigue igual, fila por fila (y no hay filas ni columnas de más)."""
    assert len(antes) == len(despues)
    for a, d in zip(antes, despues):
        assert len(a) == len(d)
        assert [x for i, x in enumerate(a) if i not in columnas] == [x for i, x in enumerate(d) if i not in columnas]


def test_moodle_de_punta_a_punta_en_los_dos_idiomas(clase, nota_referencia, tmp_path):
    """Un zip de Moodle con nombres de verdad (tildes, espacios, carpeta y suelto, un PDF al lado y un texto en
    línea) se califica y su nota vuelve a la hoja de Moodle, en español (coma decimal, escala 100) y en inglés."""
    _, entregas = clase
    z = tmp_path / "moodle.zip"
    with zipfile.ZipFile(z, "w") as f:
        f.write(entregas / "ana" / f"{ASIG}.ipynb", f"José Pérez_12345_assignsubmission_file_/{ASIG}.ipynb")
        f.writestr("José Pérez_12345_assignsubmission_file_/apuntes.pdf", b"%PDF-1.4 apuntes")
        f.write(entregas / "eva" / f"{ASIG}.ipynb", f"Ana María López_12346_assignsubmission_file_{ASIG}.ipynb")
        f.writestr("Luis Gómez_12347_assignsubmission_onlinetext_/onlinetext.html", "<p>no alcancé</p>")
    salida = tmp_path / "notas"
    r = tutor("calificar", ASIG, str(z), "--json", "--salida", str(salida))
    assert r.returncode == 0, r.stderr[-3000:]
    datos = json.loads(r.stdout)
    por_lms = {e["lms_id"]: (i, e) for i, e in datos["estudiantes"].items() if e["lms"] == "moodle"}
    assert por_lms["12345"][1]["puntos"] == nota_referencia.puntos and por_lms["12346"][1]["puntos"] == 0
    assert any("apuntes.pdf" in o["nombre"] + o["motivo"] for o in datos["omitidas"])
    maximo = nota_referencia.maximo

    for idioma, encabezados, ident, maxima, coma in (
        ("es", ["Identificador", "Nombre completo", "Dirección de correo", "Estado", "Calificación",
                "Calificación máxima", "La calificación puede ser cambiada", "Última modificación (entrega)",
                "Última modificación (calificación)", "Comentarios de retroalimentación"], "Participante{}", "100,00", True),
        ("en", ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade", "Grade can be changed",
                "Last modified (submission)", "Last modified (grade)", "Feedback comments"], "Participant {}", "10.00",
         False),
    ):
        hoja = tmp_path / f"hoja_{idioma}.csv"
        filas = [encabezados] + [
            [ident.format(n), nombre, correo, "Enviado", "", maxima, "Sí" if idioma == "es" else "Yes", "-", "-", ""]
            for n, nombre, correo in (("12345", "José Pérez", "jose@escuela.mx"), ("12346", "Ana María López", "ana@escuela.mx"),
                                      ("12347", "Luis Gómez", "luis@escuela.mx"), ("12348", "Marta Ruiz", "marta@escuela.mx"))
        ]
        _escribir_csv(hoja, filas)
        llena = tmp_path / f"llena_{idioma}.csv"
        r = tutor("exportar", str(salida), "--hoja", str(hoja), "--salida", str(llena), "--json")
        assert r.returncode == 0, r.stderr[-3000:] + r.stdout[-2000:]
        informe = json.loads(r.stdout)
        assert _leer_csv(hoja) == filas  # la hoja que bajaste del LMS no se toca
        despues = _leer_csv(llena)
        _solo_cambian(filas, despues, {4, 9})
        escala = float(maxima.replace(",", ".")) / maximo
        esperado = f"{nota_referencia.puntos * escala:.2f}"
        assert despues[1][4] == (esperado.replace(".", ",") if coma else esperado), (idioma, despues[1])
        assert despues[2][4] == ("0,00" if coma else "0.00")
        assert despues[3][4] == "" and despues[4][4] == ""  # sin notebook y sin entrega: en blanco
        for fila in despues[1:3]:
            assert fila[9] and "assert" not in fila[9] and not fila[9].startswith(("=", "+", "-", "@"))
        assert {f["lms_id"] for f in informe["sin_entrega"]} >= {"12348"}
        assert len(informe["exportadas"]) == 2


def test_canvas_de_punta_a_punta_con_entrega_tarde(clase, nota_referencia, tmp_path):
    """Un zip de Canvas (suelto, con LATE, un archivo de más del mismo estudiante y un nombre con tilde) se
    califica y la columna de la tarea del libro de Canvas se llena, escalada a Points Possible, sin tocar el resto."""
    _, entregas = clase
    z = tmp_path / "canvas.zip"
    with zipfile.ZipFile(z, "w") as f:
        f.write(entregas / "ana" / f"{ASIG}.ipynb", f"pérezjosé_201_9001_{ASIG}.ipynb")
        f.writestr("pérezjosé_201_9002_notas.txt", "ideas")
        f.write(entregas / "ana" / f"{ASIG}.ipynb", f"lópezana_LATE_202_9003_{ASIG}-1.ipynb")
    salida = tmp_path / "notas"
    r = tutor("calificar", ASIG, str(z), "--json", "--salida", str(salida))
    assert r.returncode == 0, r.stderr[-3000:]
    datos = json.loads(r.stdout)
    canvas = {e["lms_id"]: e for e in datos["estudiantes"].values() if e["lms"] == "canvas"}
    assert set(canvas) == {"201", "202"}
    assert canvas["201"]["tarde"] is False and canvas["202"]["tarde"] is True
    assert all(e["puntos"] == nota_referencia.puntos for e in canvas.values())
    filas = [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Tarea 1 (1111)", f"{ASIG} (2222)", "Current Score"],
        ["    Points Possible", "", "", "", "", "10.00", "20.00", "(read only)"],
        ["Pérez, José", "201", "A01", "jose@escuela.mx", "Grupo A", "9.00", "", "90"],
        ["López, Ana", "202", "A02", "ana@escuela.mx", "Grupo A", "8.50", "", "85"],
        ["Ruiz, Marta", "203", "A03", "marta@escuela.mx", "Grupo B", "EX", "", ""],
    ]
    hoja = tmp_path / "libro.csv"
    _escribir_csv(hoja, filas)
    llena = tmp_path / "libro_lleno.csv"
    r = tutor("exportar", str(salida), "--hoja", str(hoja), "--salida", str(llena), "--json")
    assert r.returncode == 0, r.stderr[-3000:] + r.stdout[-2000:]
    despues = _leer_csv(llena)
    _solo_cambian(filas, despues, {6})
    esperado = f"{nota_referencia.puntos * 20 / nota_referencia.maximo:.2f}".rstrip("0").rstrip(".")
    assert float(despues[2][6]) == float(despues[3][6]) == pytest.approx(float(esperado), abs=0.005)
    assert despues[4][6] == "" and despues[1][6] == "20.00"
    # una hoja de otro curso (ningún id coincide) es un error en español y no escribe nada
    otra = tmp_path / "otro_curso.csv"
    _escribir_csv(otra, [filas[0], filas[1], ["Sosa, Iván", "999", "", "", "", "", "", ""]])
    r = tutor("exportar", str(salida), "--hoja", str(otra), "--salida", str(tmp_path / "no.csv"))
    assert r.returncode == 2 and not (tmp_path / "no.csv").exists()
    assert "curso" in r.stderr or "coincide" in r.stderr, r.stderr
