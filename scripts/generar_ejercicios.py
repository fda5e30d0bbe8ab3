"""Regenera ``exercises/`` desde ``solutions/`` con ``nbgrader generate_assignment``.

    python scripts/generar_ejercicios.py              # todas las asignaciones
    python scripts/generar_ejercicios.py ej04_warmup  # una
    make ejercicios                                   # lo mismo que la primera
    python scripts/generar_ejercicios.py --tabla      # reescribe la tabla de puntos de la guía

``exercises/`` nunca se edita a mano: una prueba (tests/test_asignaciones.py)
lo regenera en una carpeta temporal y falla ante cualquier diferencia. Usa la
configuración del curso (course/nbgrader_config.py) con una libreta de
calificaciones temporal, así no toca ``course/gradebook.db``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[1]


def generar(destino: Path, asignaciones: list[str] | None = None) -> list[Path]:
    """Genera las versiones para estudiantes en ``destino/<asig>/<asig>.ipynb``."""
    todas = sorted(p.name for p in (RAIZ / "solutions").iterdir() if (p / f"{p.name}.ipynb").is_file())
    asignaciones = asignaciones or todas
    desconocidas = set(asignaciones) - set(todas)
    if desconocidas:
        raise SystemExit(f"No existen en solutions/: {', '.join(sorted(desconocidas))}")
    destino = Path(destino).resolve()
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    with tempfile.TemporaryDirectory() as tmp:
        for asig in asignaciones:
            r = subprocess.run(
                [sys.executable, "-m", "nbgrader", "generate_assignment", asig, "--force",
                 f"--CourseDirectory.release_directory={destino}",
                 f"--CourseDirectory.db_url=sqlite:///{tmp}/gradebook.db"],
                cwd=RAIZ / "course", env=env, capture_output=True, text=True,
            )
            if r.returncode != 0:
                raise SystemExit(f"nbgrader no pudo generar {asig}:\n{r.stdout[-3000:]}{r.stderr[-3000:]}")
    return [destino / a / f"{a}.ipynb" for a in asignaciones]


def partes(asig: str) -> tuple[list[tuple[str, float]], float]:
    """Las partes automáticas (título, puntos) y los puntos a mano de una asignación fuente."""
    import re

    import nbformat

    nb = nbformat.read(RAIZ / "solutions" / asig / f"{asig}.ipynb", as_version=4)
    lista: list[list] = []
    titulo, manual = "", 0.0
    for c in nb.cells:
        meta = c.metadata.get("nbgrader", {})
        if c.cell_type == "markdown" and (m := re.search(r"^#+\s*Parte\s*\d+\s*[·:.-]\s*(.+)$", c.source, re.M)):
            titulo = re.sub(r"\s*\(\d+(?:[.,]\d+)?\s*puntos?\)\s*$", "", m.group(1)).strip()
        if meta.get("solution") and c.cell_type == "code":
            lista.append([titulo or meta["grade_id"], 0.0])
            titulo = ""
        elif meta.get("grade") and meta.get("solution"):
            manual += float(meta.get("points", 0))
        elif meta.get("grade") and lista:
            lista[-1][1] += float(meta.get("points", 0))
    return [(t, p) for t, p in lista if p > 0], manual


def tabla_markdown() -> str:
    """La tabla de asignaciones y puntos de course/GUIA_INSTRUCTOR.md, calculada de las fuentes."""
    filas = ["| asignación | lección | partes con calificación automática (puntos) | a mano | total |",
             "| --- | --- | --- | ---: | ---: |"]
    for carpeta in sorted((RAIZ / "solutions").iterdir()):
        if not (carpeta / f"{carpeta.name}.ipynb").is_file():
            continue
        lista, manual = partes(carpeta.name)
        numero = carpeta.name[2:4]
        leccion = next((p.stem for p in sorted((RAIZ / "lessons").glob(f"{numero}_*.ipynb"))), "")
        auto = sum(p for _, p in lista)
        texto = " · ".join(f"{t} ({p:g})" for t, p in lista)
        filas.append(f"| `{carpeta.name}` | `{leccion}` | {texto} | {manual:g} | {auto + manual:g} |")
    return "\n".join(filas)


def escribir_tabla_en_guia() -> None:
    guia = RAIZ / "course" / "GUIA_INSTRUCTOR.md"
    texto = guia.read_text(encoding="utf-8")
    ini, fin = "<!-- tabla-asignaciones -->", "<!-- /tabla-asignaciones -->"
    antes, resto = texto.split(ini)
    _, despues = resto.split(fin)
    guia.write_text(f"{antes}{ini}\n{tabla_markdown()}\n{fin}{despues}", encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] == ["--tabla"]:
        escribir_tabla_en_guia()
        print("Tabla de asignaciones actualizada en course/GUIA_INSTRUCTOR.md")
        raise SystemExit(0)
    pedidas = sys.argv[1:] or None
    with tempfile.TemporaryDirectory() as tmp:
        generados = generar(Path(tmp), pedidas)
        for ruta in generados:
            final = RAIZ / "exercises" / ruta.parent.name
            if final.exists():
                shutil.rmtree(final)
            shutil.copytree(ruta.parent, final)
            print(f"exercises/{ruta.parent.name}/{ruta.name}")
