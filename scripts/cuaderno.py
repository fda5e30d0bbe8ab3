"""Utilidades para escribir los notebooks del curso con una sola forma común.

Cada lección y ejercicio empieza con la insignia «Abrir en Colab» (que apunta a
``tutor_lib.entorno.REPOSITORIO``) y con la misma celda de preparación. Uso:

    from scripts.cuaderno import Cuaderno
    c = Cuaderno("lessons/03_trainer.ipynb", "Lección 3 · El Trainer")
    c.md("texto..."); c.code("codigo...")
    c.guardar()

``python scripts/cuaderno.py --insignias`` reescribe las insignias de todos los
notebooks si cambias la URL del repositorio.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat

RAIZ = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(RAIZ))

from tutor_lib.entorno import REPOSITORIO  # noqa: E402

MARCA_PREPARACION = "# Preparación del entorno"


def url_colab(ruta_relativa: str) -> str:
    """URL de Colab que abre el notebook ``ruta_relativa`` del repositorio."""
    repo = REPOSITORIO.removeprefix("https://github.com/")
    return f"https://colab.research.google.com/github/{repo}/blob/main/{ruta_relativa}"


def insignia(ruta_relativa: str) -> str:
    return f"[![Abrir en Colab](https://colab.research.google.com/assets/colab-badge.svg)]({url_colab(ruta_relativa)})"


def celda_preparacion(widgets: bool = False, extra: str = "", ejercicio: bool = False) -> str:
    """La primera celda de código: instala en Colab, importa tutor_lib, muestra el entorno.

    En un ejercicio, además clona el repositorio en Colab: ``tutor corregir``
    necesita la fuente de la asignación para calificar con las mismas pruebas.
    """
    lineas = [
        MARCA_PREPARACION + ": en Colab instala el curso; en todas partes muestra el modo.",
        "import sys",
        "",
        'if "google.colab" in sys.modules:',
        f'    !pip install -q --no-deps "tutor-lib @ git+{REPOSITORIO}"',
        "    !python -m tutor_lib.colab",
    ]
    if ejercicio:
        lineas += [
            "    import os",
            "",
            f"    !git clone -q --depth 1 {REPOSITORIO} /content/curso-finetuning 2>/dev/null || true",
            '    os.environ["TUTOR_CURSO"] = "/content/curso-finetuning"  # para autoevaluacion.revisar()',
        ]
    if widgets:
        lineas += [
            "    from google.colab import output",
            "",
            "    output.enable_custom_widget_manager()  # los widgets de ipywidgets 8 lo necesitan en Colab",
        ]
    lineas += ["", "from tutor_lib import entorno", "", "ENTORNO = entorno.preparar()"]
    if extra:
        lineas += [extra]
    return "\n".join(lineas)


class Cuaderno:
    def __init__(self, ruta: str, titulo: str, widgets: bool = False, kernel: str = "python3"):
        self.ruta = RAIZ / ruta
        self.relativa = ruta
        self.ejercicio = ruta.startswith("solutions/")
        self.nb = nbformat.v4.new_notebook()
        self.nb.metadata = {
            "kernelspec": {"name": kernel, "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
        }
        # El estudiante abre la versión de exercises/, no la fuente con soluciones.
        publica = ruta.replace("solutions/", "exercises/", 1) if self.ejercicio else ruta
        self.md(f"# {titulo}\n\n{insignia(publica)}")
        self._widgets = widgets

    def md(self, texto: str, **metadata) -> None:
        self.nb.cells.append(nbformat.v4.new_markdown_cell(texto.strip("\n"), metadata=metadata))

    def code(self, texto: str, **metadata) -> None:
        self.nb.cells.append(nbformat.v4.new_code_cell(texto.strip("\n"), metadata=metadata))

    def preparacion(self, extra: str = "") -> None:
        """La celda de preparación; en un ejercicio va bloqueada para nbgrader."""
        codigo = celda_preparacion(self._widgets, extra, ejercicio=self.ejercicio)
        if self.ejercicio:
            self.codigo_bloqueado(codigo, "preparacion")
        else:
            self.code(codigo)

    def revision(self) -> None:
        """Las dos últimas celdas de un ejercicio: cómo revisar tu trabajo sin instructor."""
        asig = Path(self.relativa).stem
        self.enunciado(
            "## Revisa tu trabajo\n\n"
            "Guarda el notebook (**Ctrl+S**) y ejecuta la celda de abajo: califica este archivo con "
            "las mismas pruebas que usa tu instructor (también las ocultas) y te dice qué parte "
            "revisar, sin mostrarte la solución. Desde la terminal de JupyterLab (abre en la carpeta "
            f"del curso) es lo mismo: `tutor corregir exercises/{asig}/{asig}.ipynb`.",
            "revision-texto",
        )
        self.codigo_bloqueado(
            f'from tutor_lib import autoevaluacion\n\nautoevaluacion.revisar("{asig}")', "revision"
        )

    # --- celdas de nbgrader (solo para solutions/) -------------------------

    def _nbgrader(self, grade_id: str, **campos) -> dict:
        base = {"grade": False, "solution": False, "locked": False, "grade_id": grade_id, "schema_version": 3}
        base.update(campos)
        return {"nbgrader": base}

    def enunciado(self, texto: str, grade_id: str) -> None:
        """Markdown bloqueado: el estudiante no debe editarlo."""
        self.md(texto, **self._nbgrader(grade_id, locked=True))

    def solucion(self, codigo: str, grade_id: str) -> None:
        """Celda que resuelve el estudiante; el código entre BEGIN/END SOLUTION se reemplaza por un esqueleto."""
        self.code(codigo, **self._nbgrader(grade_id, solution=True))

    def prueba(self, codigo: str, grade_id: str, puntos: float) -> None:
        """Celda de pruebas calificada (visible; lo que vaya entre BEGIN/END HIDDEN TESTS se oculta)."""
        self.code(codigo, **self._nbgrader(grade_id, grade=True, locked=True, points=puntos))

    def respuesta_escrita(self, grade_id: str, puntos: float, texto: str = "TU RESPUESTA AQUÍ") -> None:
        """Respuesta en texto calificada a mano en formgrader."""
        self.md(texto, **self._nbgrader(grade_id, grade=True, solution=True, points=puntos))

    def codigo_bloqueado(self, codigo: str, grade_id: str) -> None:
        """Código que el estudiante ejecuta pero no debe modificar (datos, utilidades)."""
        self.code(codigo, **self._nbgrader(grade_id, locked=True))

    def guardar(self) -> Path:
        limpiar(self.nb)
        self.ruta.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(self.nb, self.ruta)
        return self.ruta


def limpiar(nb) -> None:
    """Quita salidas, contadores de ejecución y estado de widgets (conserva metadatos de nbgrader)."""
    nb.metadata.pop("widgets", None)
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"celda-{i:03d}"
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        for clave in ("execution", "collapsed", "scrolled"):
            cell.metadata.pop(clave, None)


def reescribir_insignias() -> None:
    patron = re.compile(r"\[!\[Abrir en Colab\]\([^)]*\)\]\([^)]*\)")
    for ruta in sorted(RAIZ.glob("lessons/*.ipynb")) + sorted(RAIZ.glob("solutions/*/*.ipynb")):
        nb = nbformat.read(ruta, as_version=4)
        relativa = str(ruta.relative_to(RAIZ))
        if ruta.parts[-3] == "solutions":  # el estudiante abre la versión de exercises/
            relativa = relativa.replace("solutions/", "exercises/", 1)
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                cell.source = patron.sub(insignia(relativa), cell.source)
        nbformat.write(nb, ruta)


if __name__ == "__main__":
    if "--insignias" in sys.argv:
        reescribir_insignias()
