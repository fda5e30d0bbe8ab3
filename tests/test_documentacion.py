"""La documentación que lee quien llega (issue 44, punto 4): un README corto y páginas de referencia.

El README dice qué es el curso y para quién, las dos órdenes con un tiempo medido cada una, la tabla de
lecciones y por dónde seguir; lo demás vive en páginas propias de ``course/``. Estas pruebas comprueban
que el README no crezca otra vez, que cada página de ``course/`` se alcance desde el README y desde el
sitio, y que ningún enlace relativo lleve a un archivo o a un ancla que no existen. No construyen el
sitio (eso lo hace ``tests/test_sitio.py``): leen lo que ``sitio/construir.py`` le daría a Sphinx.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from sitio import construir

RAIZ = Path(__file__).resolve().parents[1]
README = RAIZ / "README.md"
PAGINAS = sorted((RAIZ / "course").glob("*.md"))
MAXIMO_DE_LINEAS = 150

_ENLACE = re.compile(r"\]\(([^()\s]+)\)")
_CODIGO = re.compile(r"```.*?```|`[^`\n]*`", re.S)


def _enlaces(texto: str) -> list[str]:
    """Los destinos de los enlaces en línea de un Markdown, fuera del código."""
    return _ENLACE.findall(_CODIGO.sub("", texto))


def _ancla(titulo: str) -> str:
    """El ancla que GitHub (y MyST con ``myst_heading_anchors``) da a un encabezado."""
    titulo = unicodedata.normalize("NFC", titulo.strip().lower())
    titulo = re.sub(r"[^\w\- ]", "", titulo)
    return titulo.replace(" ", "-")


def _anclas(ruta: Path) -> set[str]:
    texto = re.sub(r"```.*?```", "", ruta.read_text(encoding="utf-8"), flags=re.S)
    return {_ancla(m) for m in re.findall(r"^#{1,6} (.+)$", texto, re.M)}


def _es_externo(destino: str) -> bool:
    return bool(re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", destino))


def test_el_readme_es_corto():
    lineas = README.read_text(encoding="utf-8").count("\n")
    assert lineas <= MAXIMO_DE_LINEAS, (
        f"el README tiene {lineas} líneas (máximo {MAXIMO_DE_LINEAS}): lleva lo que no necesita quien llega "
        "a una página de course/ y enlázala")


def test_el_readme_enlaza_cada_pagina_de_course():
    destinos = {(README.parent / d.partition("#")[0]).resolve() for d in _enlaces(README.read_text(encoding="utf-8"))
                if not _es_externo(d)}
    faltan = [p.name for p in PAGINAS if p.resolve() not in destinos]
    assert not faltan, f"el README no enlaza estas páginas de course/: {faltan}"


def test_el_readme_trae_las_dos_ordenes_y_la_de_pruebas_es_la_de_ci():
    readme = README.read_text(encoding="utf-8")
    bloque = re.search(r"```bash\n(.*?)```", readme, re.S)
    assert bloque and "make curso" in bloque.group(1) and "make test" in bloque.group(1), (
        "el primer bloque de órdenes del README debe traer make curso y make test")
    ordenes_ci = [linea.strip() for linea in (RAIZ / ".ci" / "run").read_text(encoding="utf-8").splitlines()
                  if linea.strip() and not linea.lstrip().startswith("#")]
    assert ordenes_ci[-1] == "make test", ".ci/run debe terminar con la orden de pruebas del README (make test)"


@pytest.mark.parametrize("ruta", [README] + PAGINAS, ids=lambda p: p.name)
def test_cada_enlace_relativo_lleva_a_un_archivo_y_a_un_ancla_que_existen(ruta):
    rotos = []
    for destino in _enlaces(ruta.read_text(encoding="utf-8")):
        if _es_externo(destino):
            continue
        camino, _, ancla = destino.partition("#")
        objetivo = (ruta.parent / camino).resolve() if camino else ruta
        if not objetivo.exists():
            rotos.append(f"{destino} (no existe)")
        elif ancla and objetivo.suffix == ".md" and ancla not in _anclas(objetivo):
            rotos.append(f"{destino} (no hay un encabezado con esa ancla)")
    assert not rotos, f"{ruta.relative_to(RAIZ)}: enlaces rotos: {rotos}"


def test_el_sitio_publica_cada_pagina_de_course_y_sus_enlaces_funcionan_ahi():
    assert construir.guias() == PAGINAS
    publicadas = {p.resolve() for p in construir.lecciones() + construir.enunciados() + construir.guias()}
    repositorio = construir.url_repositorio()
    paginas = []
    for ruta in PAGINAS:
        texto = construir.preparar_guia(ruta, publicadas)
        for destino in _enlaces(texto):
            if _es_externo(destino):
                continue
            # en el sitio, la página queda en la misma ruta relativa que en el repositorio
            objetivo = (ruta.parent / destino.partition("#")[0]).resolve()
            assert objetivo in publicadas or objetivo == ruta.resolve(), (
                f"{ruta.name}: en el sitio, {destino} no lleva a ninguna página publicada")
        paginas.append((ruta.relative_to(RAIZ).with_suffix("").as_posix(), construir.titulo_de_guia(texto, ruta.stem)))
    indice = construir._indice([], [], [], paginas)
    for destino, _ in paginas:
        assert f"]({destino}.md)" in indice, f"la portada del sitio no enlaza {destino}"
    # lo que el sitio no publica (el README, el código) se abre en GitHub, con su ancla
    empezar = construir.preparar_guia(RAIZ / "course" / "EMPEZAR.md", publicadas)
    assert f"]({repositorio}/blob/main/README.md#empezar)" in empezar
