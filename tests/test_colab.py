"""Cada notebook (lección o ejercicio) abre en Colab y se instala ahí solo."""

from pathlib import Path

import nbformat
import pytest

from scripts.cuaderno import MARCA_PREPARACION, insignia
from tutor_lib.entorno import REPOSITORIO

RAIZ = Path(__file__).resolve().parents[1]
CUADERNOS = sorted(RAIZ.glob("lessons/*.ipynb")) + sorted(RAIZ.glob("exercises/*/*.ipynb"))


@pytest.mark.parametrize("ruta", CUADERNOS, ids=[str(p.relative_to(RAIZ)) for p in CUADERNOS])
def test_insignia_y_celda_de_preparacion(ruta):
    nb = nbformat.read(ruta, as_version=4)
    relativa = str(ruta.relative_to(RAIZ))
    assert insignia(relativa) in nb.cells[0].source, "falta la insignia «Abrir en Colab» o apunta a otro lugar"
    primera = next(c for c in nb.cells if c.cell_type == "code")
    assert primera.source.startswith(MARCA_PREPARACION), "la primera celda de código no es la de preparación"
    assert f"git+{REPOSITORIO}" in primera.source and "tutor_lib.colab" in primera.source
    assert "torch" not in primera.source.split("tutor_lib.colab")[0].replace("tutor-lib", ""), (
        "la celda de preparación no debe reinstalar torch en Colab"
    )
    usa_widgets = any("widget" in c.source for c in nb.cells if c.cell_type == "code")
    if usa_widgets:
        assert "enable_custom_widget_manager" in primera.source


def test_colab_instala_con_los_rangos_de_pyproject():
    import tomllib

    from packaging.requirements import Requirement

    from tutor_lib.colab import PAQUETES_COLAB

    proyecto = tomllib.loads((RAIZ / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    rangos = {Requirement(d).name: Requirement(d).specifier for d in proyecto["dependencies"]}
    for texto in PAQUETES_COLAB:
        req = Requirement(texto)
        assert req.name in rangos and req.specifier == rangos[req.name], texto
    assert not {"torch", "numpy"} & {Requirement(t).name for t in PAQUETES_COLAB}
