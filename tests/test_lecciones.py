"""Cada lección corre de principio a fin en modo rápido, sin red, como la correría un estudiante."""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
import pytest

from cuadernos import ejecutar_cuaderno, textos_de_salida

RAIZ = Path(__file__).resolve().parents[1]
LECCIONES = sorted((RAIZ / "lessons").glob("[0-9][0-9]_*.ipynb"))
TIEMPOS = Path(os.environ.get("TMPDIR", "/tmp")) / "tutor_tiempos_lecciones.json"
#: Segundos que puede tardar cada lección en modo rápido en una CPU de 2 núcleos (300 si no figura).
#: La 03 ajusta multilingual-e5-small tres épocas sobre las 924 reseñas: unos 4 minutos.
LIMITES = {"03_trainer": 420, "06_trainer_avanzado": 600, "08_evaluacion_y_metricas": 600}


def test_hay_lecciones():
    assert LECCIONES, "no encontré notebooks en lessons/"


@pytest.mark.cuaderno
@pytest.mark.parametrize("ruta", LECCIONES, ids=[p.stem for p in LECCIONES])
def test_leccion_corre_en_modo_rapido(ruta):
    nb, segundos = ejecutar_cuaderno(ruta)
    texto = textos_de_salida(nb)
    assert "Modo: rapido" in texto, "la celda de preparación no mostró el modo"
    tiempos = json.loads(TIEMPOS.read_text()) if TIEMPOS.exists() else {}
    tiempos[ruta.stem] = round(segundos, 1)
    TIEMPOS.write_text(json.dumps(tiempos, indent=1))
    print(f"{ruta.name}: {segundos:.1f} s")
    limite = LIMITES.get(ruta.stem, 300)
    assert segundos < limite, f"{ruta.name} tardó {segundos:.0f} s en modo rápido (límite: {limite} s)"


def test_bienvenida_muestra_cifras_calculadas():
    nb, _ = ejecutar_cuaderno(RAIZ / "lessons" / "00_bienvenida.ipynb")
    texto = textos_de_salida(nb)
    from tutor_lib import recursos

    _, modelo = recursos.cargar_clasificador(num_labels=2, modo="rapido")
    assert f"{recursos.contar_parametros(modelo):,} parámetros" in texto
    assert "positivas:" in texto and "negativas:" in texto
    from tutor_lib import calificador

    ejercicios = calificador.resumen_asignaciones()
    assert len(ejercicios) == 12
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
