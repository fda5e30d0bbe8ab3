"""Cada lección corre de principio a fin en modo rápido, sin red, como la correría un estudiante."""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
import pytest

import cuadernos
from cuadernos import ejecutar_cuaderno, textos_de_salida, textos_para_leer

RAIZ = Path(__file__).resolve().parents[1]
LECCIONES = sorted((RAIZ / "lessons").glob("[0-9][0-9]_*.ipynb"))
TIEMPOS = Path(os.environ.get("TMPDIR", "/tmp")) / "tutor_tiempos_lecciones.json"


#: Lo que las bibliotecas imprimen en inglés y el curso silencia (tutor_lib.entorno.preparar y recursos).
RUIDO_EN_INGLES = (
    "LOAD REPORT", "newly initialized", "Loading weights", "Writing model shards", "Generating train split",
    "Generating validation split", "Skipping publisher", "gemm_4bit", "kernels-community",
)
#: La lección 0 muestra una vez el informe de carga de transformers y lo explica en español.
RUIDO_EXPLICADO = {"00_bienvenida": ("LOAD REPORT", "newly initialized")}


def test_hay_lecciones():
    assert LECCIONES, "no encontré notebooks en lessons/"


@pytest.mark.cuaderno
@pytest.mark.parametrize("ruta", LECCIONES, ids=[p.stem for p in LECCIONES])
def test_leccion_corre_en_modo_rapido(ruta):
    nb, segundos = ejecutar_cuaderno(ruta)
    texto = textos_de_salida(nb)
    assert "Modo: rápido" in texto, "la celda de preparación no mostró el modo"
    tiempos = json.loads(TIEMPOS.read_text()) if TIEMPOS.exists() else {}
    tiempos[ruta.stem] = round(segundos, 1)
    TIEMPOS.write_text(json.dumps(tiempos, indent=1))
    print(f"{ruta.name}: {segundos:.1f} s")
    # El tiempo no se afirma aquí (depende de la máquina): su meta vive en benchmarks/b_lecciones.py.

    # una sola manera de escribir las cifras (course/GLOSARIO.md) en todo lo que la lección muestra
    from tutor_lib.formato import infracciones

    mal_escritas = infracciones(textos_para_leer(nb))
    assert not mal_escritas, f"{ruta.name} escribe cifras fuera del formato del curso:\n" + "\n".join(mal_escritas)

    # sin el ruido en inglés de las bibliotecas (salvo donde la lección lo explica)
    ruido = [r for r in RUIDO_EN_INGLES if r in texto and r not in RUIDO_EXPLICADO.get(ruta.stem, ())]
    assert not ruido, f"{ruta.name} muestra ruido en inglés de las bibliotecas: {ruido}"

    # correr la lección no toca nada que git vea (el estudiante trabaja sobre copias; las salidas van a carpetas
    # ignoradas)
    if (RAIZ / ".git").exists():
        cambios = cuadernos.CAMBIOS_EN_GIT[ruta.resolve()]
        assert not cambios, f"correr {ruta.name} cambió archivos que git ve: {cambios}"


@pytest.mark.skipif(not (RAIZ / ".git").exists(), reason="sin repositorio git no hay archivos que vigilar")
def test_la_vigilancia_de_git_detecta_un_cuaderno_que_escribe_en_el_repositorio():
    """La comprobación de arriba no es de adorno: un cuaderno que escribe junto a las lecciones se detecta."""
    cuaderno = RAIZ / "lessons" / "_prueba_vigilancia_git.ipynb"
    escrito = RAIZ / "lessons" / "_prueba_vigilancia_git.txt"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        f"open({str(escrito)!r}, 'w').write('una salida que debía ir a una carpeta ignorada')")])
    try:
        nbformat.write(nb, cuaderno)
        ejecutar_cuaderno(cuaderno)
        cambios = cuadernos.CAMBIOS_EN_GIT[cuaderno.resolve()]
        assert cambios == [f"?? lessons/{escrito.name}"], cambios
    finally:
        cuaderno.unlink(missing_ok=True)
        escrito.unlink(missing_ok=True)


def test_bienvenida_muestra_cifras_calculadas():
    nb, _ = ejecutar_cuaderno(RAIZ / "lessons" / "00_bienvenida.ipynb")
    texto = textos_de_salida(nb)
    from tutor_lib import recursos

    _, modelo = recursos.cargar_clasificador(num_labels=2, modo="rapido")
    from tutor_lib.formato import entero

    assert f"{entero(recursos.contar_parametros(modelo))} parámetros" in texto
    assert "positivas:" in texto and "negativas:" in texto
    # la prosa explica «el informe de carga que ves arriba»: aquí, y solo aquí, se ve
    assert "LOAD REPORT" in texto and "Loading weights" not in texto
    from tutor_lib import calificador

    ejercicios = calificador.resumen_asignaciones()
    assert len(ejercicios) == len(LECCIONES) - 1  # una asignación por lección, salvo la 00
    for fila in ejercicios:
        assert f"{fila['asignacion']:<24} {fila['automaticos']:>4g} puntos automáticos" in texto


@pytest.mark.parametrize("ruta", LECCIONES, ids=[p.stem for p in LECCIONES])
def test_leccion_limpia_en_git(ruta):
    nb = nbformat.read(ruta, as_version=4)
    assert "widgets" not in nb.metadata, "el notebook guarda estado de widgets"
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, "el notebook guarda salidas"


@pytest.mark.parametrize("ruta", LECCIONES, ids=[p.stem for p in LECCIONES])
def test_leccion_termina_con_lo_que_aprendiste_y_autoevaluacion(ruta):
    nb = nbformat.read(ruta, as_version=4)
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "## Lo que aprendiste" in markdown
    assert "## Autoevaluación" in markdown and "<details>" in markdown
