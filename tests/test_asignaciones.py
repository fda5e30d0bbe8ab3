"""Las trece asignaciones: estructura, exercises/ generado por nbgrader, sin filtraciones y calificación justa.

La calificación corre con nbgrader real y el kernel aislado: la solución de
referencia saca todos los puntos automáticos, el ejercicio sin tocar saca 0 y
las variantes de ``tests/asignaciones/<asig>.py`` (otra solución correcta,
errores típicos) caen en su rango. Cada calificación tarda ~30 s en una CPU de
2 núcleos (con el proceso del juez) y se califican dos a la vez: por eso
``make test`` califica, de cada asignación, la referencia y el primer error
típico, y en una de cada tres asignaciones además el ejercicio vacío y en otra
de cada tres la primera solución alternativa (cada una de las tres entregas
extra sigue probándose en cuatro asignaciones); con
``TUTOR_TODAS_LAS_VARIANTES=1`` (o ``scripts/probar_asignacion.py``) se
califican todas, también los engaños.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

from tutor_lib.calificacion.motor.calificador import CursoTemporal, Limites, entrega_de_referencia, fuente

RAIZ = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(RAIZ / "scripts"))

import generar_ejercicios  # noqa: E402

ASIGNACIONES = sorted(p.name for p in (RAIZ / "solutions").iterdir() if p.is_dir())
MARCAS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")


def _nbg(celda) -> dict:
    return celda.metadata.get("nbgrader", {})


def _es_prueba(celda) -> bool:
    return bool(_nbg(celda).get("grade")) and not _nbg(celda).get("solution")


def _fuente(asig):
    return nbformat.read(fuente(asig), as_version=4)


def test_una_asignacion_por_leccion():
    numeros = sorted(p.name[:2] for p in (RAIZ / "lessons").glob("*.ipynb") if p.name[:2] != "00")
    assert [a[2:4] for a in ASIGNACIONES] == numeros
    for asig in ASIGNACIONES:
        assert re.fullmatch(r"ej\d\d_[a-z0-9_]+", asig), asig
        assert (RAIZ / "solutions" / asig / f"{asig}.ipynb").is_file()


@pytest.mark.parametrize("asig", ASIGNACIONES)
def test_estructura_de_la_fuente(asig):
    nb = _fuente(asig)
    assert f"exercises/{asig}/{asig}.ipynb" in nb.cells[0].source, "la insignia de Colab debe abrir la versión de exercises/"
    codigo = [c for c in nb.cells if c.cell_type == "code"]
    assert codigo[0].source.startswith("# Preparación del entorno") and _nbg(codigo[0]).get("locked")
    assert f'autoevaluacion.revisar("{asig}")' in codigo[-1].source
    ids = [_nbg(c)["grade_id"] for c in nb.cells if _nbg(c).get("grade_id")]
    assert len(ids) == len(set(ids)), "grade_id repetidos"
    soluciones = [c for c in codigo if _nbg(c).get("solution")]
    pruebas = [c for c in codigo if _es_prueba(c)]
    assert len(soluciones) >= 3 and len(pruebas) >= 3, "al menos tres partes calificadas automáticamente"
    assert any("BEGIN HIDDEN TESTS" in c.source for c in pruebas), "faltan pruebas ocultas"
    assert all(float(_nbg(c)["points"]) > 0 for c in pruebas)
    for celda in pruebas:
        for nodo in ast.walk(ast.parse(celda.source)):
            if isinstance(nodo, ast.Assert):
                assert nodo.msg is not None, f"{_nbg(celda)['grade_id']}: todo assert lleva un mensaje en español"
    for celda in soluciones:
        assert "### BEGIN SOLUTION" in celda.source and "### END SOLUTION" in celda.source
    for cuaderno in (nb, nbformat.read(RAIZ / "exercises" / asig / f"{asig}.ipynb", as_version=4)):
        assert "widgets" not in cuaderno.metadata
        assert all(not c.outputs and c.execution_count is None for c in cuaderno.cells if c.cell_type == "code"), (
            "el notebook guarda salidas: debe quedar limpio en git")


def test_exercises_es_exactamente_lo_que_genera_nbgrader():
    with tempfile.TemporaryDirectory() as tmp:
        generados = generar_ejercicios.generar(Path(tmp))
        for ruta in generados:
            asig = ruta.parent.name
            publicada = RAIZ / "exercises" / asig / ruta.name
            assert publicada.is_file(), f"falta exercises/{asig}: corre make ejercicios"
            assert json.loads(publicada.read_text(encoding="utf-8")) == json.loads(ruta.read_text(encoding="utf-8")), (
                f"exercises/{asig} no coincide con lo que genera nbgrader desde solutions/: corre make ejercicios"
            )
    sobrantes = {p.name for p in (RAIZ / "exercises").iterdir() if not p.name.startswith(".")} - set(ASIGNACIONES)
    assert not sobrantes, f"exercises/ tiene carpetas sin fuente: {sobrantes}"
    for asig in ASIGNACIONES:
        archivos = {p.name for p in (RAIZ / "exercises" / asig).iterdir()}
        assert archivos == {f"{asig}.ipynb"}, archivos


def _regiones(nb) -> tuple[set[str], set[str]]:
    """(líneas dentro de soluciones y pruebas ocultas, líneas fuera de ellas) de la fuente."""
    secretas, publicas = set(), set()
    for celda in nb.cells:
        dentro = False
        for linea in celda.source.splitlines():
            if any(m in linea for m in ("BEGIN SOLUTION", "BEGIN HIDDEN TESTS")):
                dentro = True
            elif any(m in linea for m in ("END SOLUTION", "END HIDDEN TESTS")):
                dentro = False
            elif dentro:
                secretas.add(linea.strip())
            else:
                publicas.add(linea.strip())
        if _nbg(celda).get("solution") and celda.cell_type == "markdown":
            secretas |= {l.strip() for l in celda.source.splitlines()}
    return secretas, publicas


def _secretas(nb) -> set[str]:
    """Líneas de solución y de pruebas ocultas que no aparecen en ninguna otra parte de la fuente."""
    secretas, publicas = _regiones(nb)
    return {l for l in secretas - publicas if len(l) >= 12}


@pytest.mark.parametrize("asig", ASIGNACIONES)
def test_ninguna_solucion_ni_prueba_oculta_llega_a_exercises(asig):
    texto = (RAIZ / "exercises" / asig / f"{asig}.ipynb").read_text(encoding="utf-8")
    for marca in MARCAS:
        assert marca not in texto
    publicado = {l.strip() for c in nbformat.reads(texto, as_version=4).cells for l in c.source.splitlines()}
    secretas = _secretas(_fuente(asig))
    assert secretas, "la fuente debería tener líneas de solución"
    filtradas = [l for l in secretas if l in publicado]
    assert not filtradas, f"líneas secretas en exercises/{asig}: {filtradas[:5]}"


def _lineas_secretas(nb) -> set[str]:
    """Líneas de más de 24 caracteres dentro de regiones de solución o de pruebas ocultas."""
    return {l for l in _regiones(nb)[0] if len(l) > 24}


def _permitidas(asig) -> dict[str, str]:
    ruta = RAIZ / "tests" / "asignaciones" / f"{asig}.py"
    spec = importlib.util.spec_from_file_location(f"permitidas_{asig}", ruta)
    modulo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(modulo)
    return dict(getattr(modulo, "LINEAS_COMPARTIDAS", {}))


@pytest.mark.parametrize("asig", ASIGNACIONES)
def test_el_ejercicio_no_regala_la_solucion_en_sus_celdas_visibles(asig):
    """Ninguna línea de una solución o de una prueba oculta aparece en el notebook publicado.

    Aunque esté en una prueba visible o en otra parte del enunciado: así una prueba visible no
    puede traer la fórmula que se pide ni la solución de otra parte. Las pocas líneas compartidas a
    propósito (importaciones, semillas) se listan en ``LINEAS_COMPARTIDAS`` de
    ``tests/asignaciones/<asig>.py``, cada una con su razón, y son 2 como mucho.
    """
    permitidas = _permitidas(asig)
    assert len(permitidas) <= 2, f"{asig}: a lo sumo 2 líneas compartidas a propósito"
    assert all(isinstance(r, str) and len(r) > 10 for r in permitidas.values()), "cada línea compartida lleva su razón"
    publicado = {l.strip() for c in nbformat.read(RAIZ / "exercises" / asig / f"{asig}.ipynb", as_version=4).cells
                 for l in c.source.splitlines()}
    secretas = _lineas_secretas(_fuente(asig))
    assert secretas, "la fuente debería tener líneas de solución"
    regaladas = sorted(l for l in secretas & publicado if l not in permitidas)
    assert not regaladas, f"exercises/{asig} muestra líneas de la solución o de pruebas ocultas: {regaladas[:6]}"
    sobran = sorted(set(permitidas) - (secretas & publicado))
    assert not sobran, f"{asig}: LINEAS_COMPARTIDAS tiene líneas que ya no se comparten: {sobran}"


def test_la_guia_del_instructor_lista_las_asignaciones_con_sus_puntos():
    guia = (RAIZ / "course" / "GUIA_INSTRUCTOR.md").read_text(encoding="utf-8")
    assert generar_ejercicios.tabla_markdown() in guia, "corre: python scripts/generar_ejercicios.py --tabla"


def _variantes(asig) -> list[dict]:
    ruta = RAIZ / "tests" / "asignaciones" / f"{asig}.py"
    spec = importlib.util.spec_from_file_location(f"variantes_{asig}", ruta)
    modulo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(modulo)
    return list(modulo.VARIANTES)


@pytest.mark.parametrize("asig", ASIGNACIONES)
def test_calificacion_justa_con_nbgrader(asig, tmp_path):
    fuente_nb = _fuente(asig)
    variantes = _variantes(asig)
    # Con el servidor de precarga, como tutor calificar y tutor corregir; una de cada cuatro asignaciones sin
    # él (cada programa, un proceso nuevo: lo de macOS o TUTOR_SIN_PRECARGA=1).
    posicion = ASIGNACIONES.index(asig)
    precarga = posicion % 4 != 3
    with CursoTemporal(asig, limites=Limites(tiempo_celda=60, tiempo_total=300), precarga=precarga) as curso:
        auto = sum(float(_nbg(c)["points"]) for c in curso.liberado.cells if _es_prueba(c))
        correctas = [v for v in variantes if v["puntos"] == (auto, auto)]
        parciales = [v for v in variantes if 0 < v["puntos"][0] and v["puntos"][1] < auto]
        assert correctas and len(parciales) >= 2, "hacen falta una solución alternativa y dos errores típicos"
        todas = os.environ.get("TUTOR_TODAS_LAS_VARIANTES") == "1"
        # Por defecto, la referencia y un error típico en cada asignación; la entrega vacía y una
        # solución alternativa correcta rotan (una de cada tres asignaciones cada una), para que
        # `make test` quepa en su presupuesto. TUTOR_TODAS_LAS_VARIANTES=1 las corre todas.
        if not todas:
            variantes = (correctas[:1] if posicion % 3 == 1 else []) + parciales[:1]

        def nota(caso):
            nombre, nb = caso
            ruta = tmp_path / f"{nombre}.ipynb"
            nbformat.write(nb, ruta)
            return curso.calificar(nombre, ruta, retroalimentacion=False)

        casos = [("referencia", entrega_de_referencia(fuente_nb, curso.liberado))]
        if todas or posicion % 3 == 0:
            casos.append(("vacia", curso.liberado))
        casos += [(f"variante{i}", entrega_de_referencia(fuente_nb, curso.liberado, v["celdas"]))
                  for i, v in enumerate(variantes)]
        # Dos entregas a la vez, como `tutor calificar --procesos 2` (la libreta de nbgrader es compartida).
        with ThreadPoolExecutor(max_workers=2) as grupo:
            notas = dict(zip([n for n, _ in casos], grupo.map(nota, casos)))
        for nombre, cal in notas.items():
            assert cal.estado == "calificado", f"{nombre}: {cal.mensaje}"

        cal = notas["referencia"]
        detalle = [(p.id, p.puntos, p.mensaje) for p in cal.partes]
        assert cal.puntos == auto, f"la solución de referencia no saca todo: {detalle}"
        assert cal.aislamiento.get("completo"), cal.aislamiento
        assert cal.aislamiento.get("precarga") is (precarga and sys.platform.startswith("linux")
                                                   and not os.environ.get("TUTOR_SIN_PRECARGA")), cal.aislamiento

        if "vacia" in notas:
            cal = notas["vacia"]
            assert cal.puntos == 0, [(p.id, p.puntos) for p in cal.partes]
            assert all(p.mensaje for p in cal.partes)

        for i, v in enumerate(variantes):
            cal = notas[f"variante{i}"]
            lo, hi = v["puntos"]
            assert lo <= cal.puntos <= hi, (v["nombre"], cal.puntos, [(p.id, p.puntos, p.mensaje) for p in cal.partes])
            # La pista de la prueba que falla habla del error típico que la variante comete (issue 43, punto 6).
            for id_parte, palabras in v.get("pistas", {}).items():
                mensaje = next((p.mensaje for p in cal.partes if p.id == id_parte), None)
                assert mensaje and all(palabra in mensaje for palabra in palabras), (v["nombre"], id_parte, mensaje)
