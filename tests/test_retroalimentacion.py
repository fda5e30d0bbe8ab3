"""Ataques a la retroalimentación HTML (tutor_lib.calificacion.retroalimentacion).

La retroalimentación la abren el estudiante y su instructor en el navegador:
no puede traer el código de las pruebas ocultas ni nada que se ejecute. Las
primeras pruebas atacan las piezas por separado (rápido, sin nbgrader); la
última califica de verdad con nbgrader una entrega hostil de ``ej04_warmup``
(unos 20-40 s) y revisa el HTML que recibiría el estudiante.
"""

from __future__ import annotations

import base64
import copy
import html as html_lib
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

from tutor_lib.calificacion.retroalimentacion import (
    CSP,
    ExportadorRetroalimentacion,
    PrepararRetroalimentacion,
    armar_pagina,
    quitar_pruebas_ocultas,
    sanear_cuerpo,
    sanear_salidas,
    verificar_html,
)

ASIG = "ej04_warmup"
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 16).decode()


class Pagina(HTMLParser):
    """Lo que un navegador vería: etiquetas, atributos, texto y la CSP del <head>."""

    def __init__(self, texto: str):
        super().__init__(convert_charrefs=True)
        self.etiquetas: list[str] = []
        self.atributos: list[tuple[str, str, str]] = []
        self.partes_texto: list[str] = []
        self.csp_en_head = False
        self._en_head = False
        self._en_style = False
        self.feed(texto)
        self.close()
        self.texto = "".join(self.partes_texto)

    def handle_starttag(self, tag, attrs):
        self.etiquetas.append(tag)
        self.atributos += [(tag, n, v or "") for n, v in attrs]
        if tag == "head":
            self._en_head = True
        if tag == "style":
            self._en_style = True
        d = dict(attrs)
        if tag == "meta" and self._en_head and (d.get("http-equiv") or "").lower() == "content-security-policy":
            self.csp_en_head = d.get("content") == CSP

    def handle_endtag(self, tag):
        if tag == "head":
            self._en_head = False
        if tag == "style":
            self._en_style = False

    def handle_data(self, data):
        if not self._en_style:
            self.partes_texto.append(data)


def revisar_que_no_ejecuta_nada(texto: str) -> Pagina:
    pagina = Pagina(texto)
    assert "<script" not in texto.lower(), "La retroalimentación trae un <script>"
    prohibidas = {"script", "iframe", "object", "embed", "svg", "form", "base"} & set(pagina.etiquetas)
    assert not prohibidas, f"Etiquetas que no deberían estar: {prohibidas}"
    manejadores = [(t, n) for t, n, _ in pagina.atributos if n.startswith("on")]
    assert not manejadores, f"Manejadores de eventos en el HTML: {manejadores[:5]}"
    for tag, nombre, valor in pagina.atributos:
        limpio = re.sub(r"[\x00-\x20]+", "", valor).lower()
        assert not limpio.startswith(("javascript:", "vbscript:")), f"{nombre}={valor!r} en <{tag}>"
        if nombre in ("href", "src") and limpio.startswith("data:"):
            assert tag == "img" and limpio.startswith(("data:image/png", "data:image/jpeg")), (tag, nombre, valor[:40])
        assert nombre != "style", f"Atributo style en <{tag}>: {valor[:60]}"
    assert pagina.csp_en_head, "Falta la Content-Security-Policy en el <head>"
    return pagina


# --- piezas por separado -----------------------------------------------------------------


def test_quitar_pruebas_ocultas():
    fuente = "a = 1\n### BEGIN HIDDEN TESTS\nassert secreto == 42\n### END HIDDEN TESTS\nb = 2"
    assert quitar_pruebas_ocultas(fuente) == "a = 1\nb = 2"
    assert quitar_pruebas_ocultas("x\n# BEGIN HIDDEN TESTS\nsecreto") == "x", "Una región sin cierre se quita entera"


def test_salidas_del_estudiante_quedan_como_texto_o_imagen_validada():
    salidas = [
        {"output_type": "display_data", "metadata": {"image/png": {"width": '1" onerror="x'}},
         "data": {"text/html": "<script>alert(1)</script>", "text/plain": "<HTML>"}},
        {"output_type": "display_data", "metadata": {}, "data": {"application/javascript": "alert(2)"}},
        {"output_type": "display_data", "metadata": {}, "data": {"image/svg+xml": "<svg onload=alert(3)></svg>"}},
        {"output_type": "display_data", "metadata": {}, "data": {"application/vnd.jupyter.widget-view+json": {"model_id": "x"}}},
        {"output_type": "display_data", "metadata": {}, "data": {"image/png": PNG, "text/plain": "fig"}},
        {"output_type": "display_data", "metadata": {}, "data": {"image/png": '"><script>alert(4)</script>'}},
        {"output_type": "execute_result", "execution_count": "1 onload=x", "metadata": {}, "data": {"text/plain": "7"}},
        {"output_type": "stream", "name": "stdout", "text": ["hola ", "mundo"]},
        {"output_type": "raro"},
    ]
    limpias = sanear_salidas(salidas)
    assert limpias[0]["data"] == {"text/plain": "<script>alert(1)</script>"} and limpias[0]["metadata"] == {}
    assert limpias[1]["data"] == {"text/plain": "alert(2)"}
    assert limpias[2]["data"] == {"text/plain": "<svg onload=alert(3)></svg>"}
    assert "no se muestra" in limpias[3]["data"]["text/plain"]
    assert limpias[4]["data"] == {"image/png": PNG, "text/plain": "fig"}
    assert "image/png" not in limpias[5]["data"], "Un PNG que no es base64 no debe pasar"
    assert limpias[6]["execution_count"] is None
    assert limpias[7]["text"] == "hola mundo"
    assert len(limpias) == 8


def test_sanear_cuerpo_y_verificar_html():
    sucio = ('<p>hola</p><img src=x onerror=alert(1)><script>alert(2)</script>'
             '<a href="javascript:alert(3)">a</a><a href=" jav&#x09;ascript:alert(4)">b</a>'
             '<a href="https://ejemplo.org">c</a><iframe src="https://x"></iframe><svg onload=alert(5)></svg>'
             '<div style="background:url(x)">d</div><img src="data:image/png;base64,' + PNG + '">'
             '<a href="data:text/html,<script>alert(6)</script>">e</a><form action="https://x"><input></form>')
    limpio = sanear_cuerpo(sucio)
    pagina = f'<html><head><meta http-equiv="Content-Security-Policy" content="{CSP}"></head><body>{limpio}</body></html>'
    revisar_que_no_ejecuta_nada(pagina)
    verificar_html(pagina)
    assert 'href="https://ejemplo.org"' in limpio and "data:image/png;base64," in limpio
    for peligrosa in ("<script>alert(1)</script>", '<img src=x onerror=alert(1)>', '<a href="javascript:x">a</a>',
                      '<div onclick="x">a</div>', '<iframe></iframe>', '<meta http-equiv="refresh" content="0;url=x">'):
        with pytest.raises(ValueError, match="no es segura"):
            verificar_html(f'<html><head><meta http-equiv="Content-Security-Policy" content="{CSP}"></head>'
                           f'<body>{peligrosa}</body></html>')
    with pytest.raises(ValueError, match="Content-Security-Policy"):
        verificar_html("<html><head></head><body>hola</body></html>")


def test_el_cuerpo_se_sanea_aunque_la_plantilla_dejara_pasar_algo():
    marca = "abc123"
    html = (f'<html><head><meta http-equiv="Content-Security-Policy" content="{CSP}"></head><body>'
            f'<!--tutor-inicio-{marca}--><p>ok</p><script>alert(1)</script><!--tutor-fin-{marca}--> '
            f'<!--tutor-fin-{marca}--></body></html>')
    revisar_que_no_ejecuta_nada(armar_pagina(html, marca))
    with pytest.raises(ValueError, match="marcó"):
        armar_pagina(html, "otra")


def _nbg(grade_id, **campos):
    base = {"grade": False, "solution": False, "locked": False, "grade_id": grade_id, "schema_version": 3}
    base.update(campos)
    return {"nbgrader": base}


def test_exportador_sin_nbgrader_oculta_pruebas_traduce_y_marca_pendientes(tmp_path):
    """El exportador con un notebook «autocalificado» hecho a mano (como lo deja GetGrades)."""
    from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor

    publicado = nbformat.v4.new_notebook()
    publicado.cells = [
        nbformat.v4.new_code_cell("def f(x):\n    raise NotImplementedError()", metadata=_nbg("sol", solution=True)),
        nbformat.v4.new_code_cell("assert f(2) == 4, 'f(2) debe dar 4'", metadata=_nbg("prueba", grade=True, locked=True, points=2)),
        nbformat.v4.new_markdown_cell("TU RESPUESTA AQUÍ", metadata=_nbg("escrita", grade=True, solution=True, points=1)),
        nbformat.v4.new_code_cell("assert f(0) == 0, 'f(0) debe dar 0'", metadata=_nbg("prueba-cero", grade=True, locked=True, points=1)),
    ]
    nbformat.write(publicado, tmp_path / "liberado.ipynb")
    auto = copy.deepcopy(publicado)
    auto.cells[0].source = "def f(x):\n    return 2 * x"
    auto.cells[0].outputs = [nbformat.v4.new_output("display_data", data={"text/html": "<script>alert(1)</script>"})]
    auto.cells[1].source += "\n### BEGIN HIDDEN TESTS\nassert f(3) == 6, 'la oculta'\n### END HIDDEN TESTS"
    auto.cells[1].outputs = [nbformat.v4.new_output(
        "error", ename="AssertionError", evalue="f(3) no da lo esperado", traceback=["assert f(3) == 6, 'la oculta'"])]
    auto.cells[2].source = "Mi respuesta <img src=x onerror=alert(2)> [clic](javascript:alert(3))"
    auto.cells.append(nbformat.v4.new_raw_cell("<script>alert(4)</script>"))
    auto.cells[0].metadata["tags"] = ['" onmouseover="alert(5)']
    auto.cells[1].metadata.nbgrader.update(score=0, points=2, pendiente=False)
    auto.cells[2].metadata.nbgrader.update(score=0, points=1, pendiente=True)
    auto.cells[3].metadata.nbgrader.update(score=1, points=1, pendiente=False)
    recursos = {"nbgrader": {"notebook": ASIG, "student": "ana<b>", "score": 1, "max_score": 4, "late_penalty": 0}}
    exportador = ExportadorRetroalimentacion()
    # Como lo registra nbgrader: sin «enabled» (un preprocesador apagado no correría).
    exportador.register_preprocessor(PrepararRetroalimentacion(liberado=str(tmp_path / "liberado.ipynb")))
    exportador.register_preprocessor(CSSHTMLHeaderPreprocessor())
    texto, _ = exportador.from_notebook_node(auto, recursos)
    pagina = revisar_que_no_ejecuta_nada(texto)
    assert "f(3) == 6" not in pagina.texto and "la oculta" not in texto, "Se ve una prueba oculta"
    assert "f(3) no da lo esperado" in pagina.texto, "Falta el mensaje de la prueba"
    assert "<script>alert(1)</script>" in pagina.texto, "La salida HTML debe verse como texto"
    assert "<script>alert(4)</script>" in pagina.texto, "La celda cruda debe verse como texto"
    assert re.search(r"escrita\s*</code>\s*</a>:\s*pendiente", texto), "La respuesta escrita debe verse pendiente, no 0"
    assert "0 / 1" not in pagina.texto
    assert "Puntaje" in pagina.texto
    assert re.search(r"prueba\s*</code>\s*</a>:\s*0 / 2 · no aprobada", texto), "La prueba que falla debe verse no aprobada"
    assert re.search(r"prueba-cero\s*</code>\s*</a>:\s*1 / 1 · aprobada", texto), "La prueba que pasa debe verse aprobada"
    assert "Bien: pasa las pruebas." in pagina.texto
    assert "ana<b>" in pagina.texto
    for ingles in ("Score", "Student", "Test cell", "Written response", "No description"):
        assert ingles not in pagina.texto, f"Queda una etiqueta en inglés: {ingles}"


# --- de verdad, con nbgrader ---------------------------------------------------------------


def _lineas_ocultas(fuente_nb) -> list[str]:
    """Las líneas de las pruebas ocultas de la fuente que no aparecen también en lo publicado."""
    ocultas, visibles = [], set()
    for celda in fuente_nb.cells:
        dentro = False
        for linea in celda.source.splitlines():
            if "BEGIN HIDDEN TESTS" in linea:
                dentro = True
            elif "END HIDDEN TESTS" in linea:
                dentro = False
            elif dentro:
                ocultas.append(linea.strip())
            else:
                visibles.add(linea.strip())
    return [linea for linea in dict.fromkeys(ocultas) if len(linea) >= 12 and linea not in visibles]


@pytest.fixture(scope="module")
def retroalimentacion_hostil(tmp_path_factory):
    from tutor_lib.calificacion.motor.calificador import CursoTemporal, Limites, entrega_de_referencia, fuente

    tmp = tmp_path_factory.mktemp("retro")
    origen = nbformat.read(fuente(ASIG), as_version=4)
    with CursoTemporal(ASIG, limites=Limites(tiempo_celda=60, tiempo_total=300)) as curso:
        nb = entrega_de_referencia(origen, curso.liberado, {
            "escrita-1": "Mi respuesta <img src=x onerror=alert(1)> <script>alert(2)</script> "
                         "[clic](javascript:alert(3)) <a href='javascript:alert(4)'>otro</a>",
        })
        nb.cells.append(nbformat.v4.new_markdown_cell(
            "<img src=x onerror=alert(5)><script>alert(6)</script><svg onload=alert(7)></svg>"
            "<iframe src='https://ejemplo.org'></iframe><style>body{display:none}</style>"))
        nb.cells.append(nbformat.v4.new_code_cell(
            "from IPython.display import HTML, Javascript, display\n"
            "display(HTML('<script>alert(8)</script><b onmouseover=\"alert(9)\">negrita</b>'))\n"
            "display(Javascript('alert(10)'))\n"
            "display({'image/svg+xml': '<svg onload=\"alert(11)\"></svg>'}, raw=True)\n"
            "print('texto normal')"))
        nb.cells.append(nbformat.v4.new_raw_cell("<script>alert(12)</script>"))
        ruta = tmp / f"{ASIG}.ipynb"
        nbformat.write(nb, ruta)
        cal = curso.calificar("hostil", ruta, retroalimentacion=True)
        texto = Path(cal.retroalimentacion).read_text(encoding="utf-8") if cal.retroalimentacion else None
    return cal, texto, origen


def test_retroalimentacion_real_sin_pruebas_ocultas_ni_scripts_y_en_espanol(retroalimentacion_hostil):
    cal, texto, origen = retroalimentacion_hostil
    assert cal.estado == "calificado", cal.mensaje
    assert texto is not None, "No se generó la retroalimentación"
    automaticos = sum(c.metadata["nbgrader"].get("points", 0) for c in origen.cells
                      if c.metadata.get("nbgrader", {}).get("grade") and not c.metadata["nbgrader"].get("solution"))
    assert cal.puntos == automaticos, [(p.id, p.puntos, p.mensaje) for p in cal.partes]
    assert cal.pendiente_manual == 1
    pagina = revisar_que_no_ejecuta_nada(texto)
    verificar_html(texto)
    # (a) ninguna línea de las pruebas ocultas de la fuente
    ocultas = _lineas_ocultas(origen)
    assert ocultas, "La fuente debería tener pruebas ocultas con que comparar"
    plano = html_lib.unescape(texto)
    vistas = [linea for linea in ocultas if linea in pagina.texto or linea in plano]
    assert not vistas, f"Se ven líneas de las pruebas ocultas: {vistas[:3]}"
    assert "HIDDEN TESTS" not in texto
    # se conservan nombre, puntos, aprobado o no y el mensaje de cada prueba
    pruebas = [c.metadata["nbgrader"]["grade_id"] for c in origen.cells
               if c.metadata.get("nbgrader", {}).get("grade") and not c.metadata["nbgrader"].get("solution")]
    for gid in pruebas:
        assert gid in pagina.texto, f"Falta la prueba {gid}"
    mensajes = {parte.id: parte.mensaje for parte in cal.partes}
    for gid in pruebas:
        assert mensajes[gid].splitlines()[0] in pagina.texto, f"Falta el mensaje de la prueba {gid}: {mensajes[gid]!r}"
    assert "no aprobada" not in pagina.texto and "aprobada" in pagina.texto
    # (b) lo del estudiante se ve como texto
    assert "<script>alert(8)</script>" in pagina.texto, "La salida HTML del estudiante debe verse como texto"
    assert "alert(10)" in pagina.texto and "texto normal" in pagina.texto
    # (d) en español
    assert "Puntaje" in pagina.texto and "Retroalimentación" in pagina.texto
    for ingles in ("Score", "Student", "Test cell", "Written response", "Comments", "No description", "In [", "Out["):
        assert ingles not in pagina.texto, f"Queda una etiqueta en inglés: {ingles!r}"
    # (e) la respuesta escrita espera a una persona: pendiente, no 0
    assert re.search(r"escrita-1\s*</code>\s*</a>:\s*pendiente", texto), "La respuesta escrita debe verse pendiente"
    assert "Pendiente: la califica una persona" in pagina.texto
    assert "pendiente de calificación a mano" in pagina.texto


# --- nada de clases, estilos ni ids del estudiante (issue 39) ---------------------------------

FALSO = "Puntaje: 11 de 11"

#: Respuestas escritas que intentan tapar o imitar el resumen real de la página.
ATAQUES_DE_ESTILO = {
    "navbar": f'<div class="navbar navbar-fixed-top" style="position:fixed;top:0">{FALSO}</div>',
    "ids_de_la_plantilla": (f'<div id="notebook-container"><p id="notebook" class="tutor-resumen">{FALSO}</p></div>'
                            '<a name="arriba" id="arriba">arriba</a>'),
    "bloque_style": f'<style>.tutor-resumen {{ display: none }} p {{ position: fixed; top: 0 }}</style><p>{FALSO}</p>',
    "svg_foreignobject": (f'<svg width="3000" height="3000"><foreignObject width="3000" height="3000">'
                          f'<div class="tutor-resumen" style="position:fixed;top:0">{FALSO}</div></foreignObject></svg>'),
    "mathml": f'<math><mtext><div class="modal show" style="z-index:9999">{FALSO}</div></mtext></math>',
    "etiquetas_sin_cerrar": (f'</div></div></div></div></div></main><div class="tutor-resumen navbar-fixed-top">'
                             f'<span class="tutor-puntaje"><b>{FALSO}'),
    "link_meta_base_form": (f'<link rel="stylesheet" href="https://ejemplo.org/a.css"><meta http-equiv="refresh" '
                            f'content="0"><base href="https://ejemplo.org/"><form><button>x</button></form><p>{FALSO}</p>'),
    "srcset_y_data": (f'<img srcset="https://ejemplo.org/a.png 1x" src="data:image/svg+xml;base64,PHN2Zz4=" '
                      f'class="pull-right" width="4000">{FALSO}'),
}

_VACIAS = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
                     "track", "wbr"})
#: Lo que la plantilla pone alrededor de una celda de markdown (sus clases son de la plantilla).
_CONTENEDOR_MARKDOWN = "text_cell_render"


class Arbol(HTMLParser):
    """Cada texto de la página con la cadena de sus ancestros [(etiqueta, atributos)], y qué hay en el <body>."""

    def __init__(self, texto: str):
        super().__init__(convert_charrefs=True)
        self.pila: list[tuple[str, dict]] = []
        self.textos: list[tuple[str, list[tuple[str, dict]]]] = []
        self.en_cuerpo: list[tuple[str, dict]] = []  # cada etiqueta que abre dentro de <body>
        self._cuerpo = False
        self.feed(texto)
        self.close()

    def handle_starttag(self, tag, attrs):
        d = {n: (v or "") for n, v in attrs}
        if tag == "body":
            self._cuerpo = True
        elif self._cuerpo:
            self.en_cuerpo.append((tag, d))
        if tag not in _VACIAS:
            self.pila.append((tag, d))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in _VACIAS and self.pila and self.pila[-1][0] == tag:
            self.pila.pop()

    def handle_endtag(self, tag):
        for i in range(len(self.pila) - 1, -1, -1):
            if self.pila[i][0] == tag:
                del self.pila[i:]
                break

    def handle_data(self, data):
        if data.strip():
            self.textos.append((data, list(self.pila)))

    def ancestros(self, fragmento: str) -> list[list[tuple[str, dict]]]:
        return [pila for texto, pila in self.textos if fragmento in texto]

    def clases(self) -> list[str]:
        return [c for _, d in self.en_cuerpo for c in d.get("class", "").split()]


def revisar_sin_estilo_del_estudiante(texto: str, fragmento: str = FALSO) -> Arbol:
    """El fragmento que escribió el estudiante queda dentro de su celda, sin clase, estilo ni id propios."""
    arbol = Arbol(texto)
    cadenas = arbol.ancestros(fragmento)
    assert cadenas, f"No se ve el texto {fragmento!r} del estudiante"
    for cadena in cadenas:
        contenedores = [i for i, (_, d) in enumerate(cadena) if _CONTENEDOR_MARKDOWN in d.get("class", "").split()]
        assert contenedores, f"El texto del estudiante salió de su celda: {[(t, d) for t, d in cadena][-4:]}"
        propios = cadena[contenedores[-1] + 1:]
        con_atributos = [(t, d) for t, d in propios if d]
        assert not con_atributos, f"El HTML del estudiante conserva atributos: {con_atributos}"
    prohibidas = {"style", "link", "meta", "base", "form", "button", "svg", "math", "foreignobject", "mtext", "title"}
    en_cuerpo = sorted({t for t, _ in arbol.en_cuerpo} & prohibidas)
    assert not en_cuerpo, f"Etiquetas en el cuerpo que pueden cambiar el estilo o la página: {en_cuerpo}"
    ids = [d["id"] for _, d in arbol.en_cuerpo if "id" in d]
    assert sorted(ids) == ["notebook", "notebook-container"], f"ids en el cuerpo: {ids}"
    atributos = {n for _, d in arbol.en_cuerpo for n in d}
    assert not atributos & {"style", "srcset", "width", "height"}, atributos
    for clase in arbol.clases():
        assert not re.search(r"navbar|modal|fixed|pull-|affix|hidden|show", clase), f"Clase de Bootstrap en el cuerpo: {clase}"
    # El resumen real conserva su estilo y es el único.
    resumenes = [d for t, d in arbol.en_cuerpo if "tutor-resumen" in d.get("class", "").split()]
    assert len(resumenes) == 1, f"Debe haber un solo resumen con su estilo; hay {len(resumenes)}"
    return arbol


def _exportar_con_respuesta(tmp_path, respuesta: str) -> str:
    """El exportador (sin nbgrader) con una respuesta escrita y una celda de markdown que agregó el estudiante."""
    from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor

    publicado = nbformat.v4.new_notebook()
    publicado.cells = [
        nbformat.v4.new_markdown_cell("## Parte 1\nEscribe `f` así:\n\n```python\ndef f(x):\n    return x\n```"),
        nbformat.v4.new_code_cell("def f(x):\n    raise NotImplementedError()", metadata=_nbg("sol", solution=True)),
        nbformat.v4.new_code_cell("assert f(2) == 4, 'f(2) debe dar 4'", metadata=_nbg("prueba", grade=True, locked=True, points=2)),
        nbformat.v4.new_markdown_cell("TU RESPUESTA AQUÍ", metadata=_nbg("escrita", grade=True, solution=True, points=1)),
    ]
    nbformat.write(publicado, tmp_path / "liberado.ipynb")
    auto = copy.deepcopy(publicado)
    auto.cells[1].source = "def f(x):\n    return 2 * x"
    auto.cells[2].metadata.nbgrader.update(score=2, points=2, pendiente=False)
    auto.cells[3].metadata.nbgrader.update(score=0, points=1, pendiente=True)
    auto.cells[3].source = respuesta
    extra = nbformat.v4.new_markdown_cell(respuesta)
    extra.id = "notebook"  # el id de una celda también lo elige el estudiante
    auto.cells.append(extra)
    recursos = {"nbgrader": {"notebook": ASIG, "student": "ana", "score": 2, "max_score": 3, "late_penalty": 0}}
    exportador = ExportadorRetroalimentacion()
    exportador.register_preprocessor(PrepararRetroalimentacion(liberado=str(tmp_path / "liberado.ipynb")))
    exportador.register_preprocessor(CSSHTMLHeaderPreprocessor())
    return exportador.from_notebook_node(auto, recursos)[0]


@pytest.mark.parametrize("ataque", sorted(ATAQUES_DE_ESTILO))
def test_respuesta_escrita_no_trae_clases_estilos_ni_ids(tmp_path, ataque):
    texto = _exportar_con_respuesta(tmp_path, ATAQUES_DE_ESTILO[ataque])
    revisar_que_no_ejecuta_nada(texto)
    verificar_html(texto)
    arbol = revisar_sin_estilo_del_estudiante(texto)
    # La plantilla conserva lo suyo: encabezados de celda y puntajes con su clase.
    clases = arbol.clases()
    assert clases.count("tutor-encabezado") == 3 and clases.count("tutor-puntaje") == 2, clases
    # El resaltado de un bloque de código del enunciado (lo pone el exportador) se conserva.
    assert "highlight" in clases and "k" in clases, "Se perdió el resaltado del código del enunciado"


def test_sanear_cuerpo_sin_estilos_ids_repetidos_ni_clases_ajenas():
    sucio = ('<div id="notebook" class="border-box-sizing"><div class="container" id="notebook-container">'
             f'<div class="navbar navbar-fixed-top tutor-resumen" style="position:fixed;top:0" id="notebook">{FALSO}</div>'
             '<p id="arriba" class="modal show">x</p><style>p{position:fixed}</style><span class="k ansi-red-fg">y</span>'
             '<svg><foreignObject><div class="tutor-puntaje">z</div></foreignObject></svg></div></div>')
    limpio = sanear_cuerpo(sucio)
    arbol = Arbol(f"<html><body>{limpio}</body></html>")
    assert [d.get("id") for _, d in arbol.en_cuerpo if "id" in d] == ["notebook", "notebook-container"], limpio
    assert "style" not in limpio and "<svg" not in limpio and "foreignobject" not in limpio.lower(), limpio
    assert not {"navbar", "navbar-fixed-top", "modal", "show"} & set(arbol.clases()), limpio
    assert {"tutor-resumen", "k", "ansi-red-fg", "border-box-sizing", "container"} <= set(arbol.clases()), limpio


def test_contenido_del_estudiante_sin_ningun_atributo_de_estilo():
    from tutor_lib.calificacion.retroalimentacion import sanear_contenido

    for ataque, html in ATAQUES_DE_ESTILO.items():
        limpio = sanear_contenido(html)
        arbol = Arbol(f"<html><body>{limpio}</body></html>")
        assert not [d for _, d in arbol.en_cuerpo if d], (ataque, limpio)
        assert FALSO in arbol.textos[0][0] or any(FALSO in t for t, _ in arbol.textos), (ataque, limpio)
    # Lo que genera el exportador al resaltar código se conserva; sin más atributos.
    resaltado = '<div class="highlight"><pre><span class="k">def</span> <span class="nf" id="x">f</span></pre></div>'
    assert sanear_contenido(resaltado) == '<div class="highlight"><pre><span class="k">def</span> <span class="nf">f</span></pre></div>'
    # Etiquetas sin cerrar: el fragmento queda cerrado y las de cierre de más no salen de él.
    assert sanear_contenido("<div><p><b>hola") == "<div><p><b>hola</b></p></div>"
    assert sanear_contenido("</div></div><p>x</p>") == "<p>x</p>"


@pytest.mark.parametrize("cuerpo, problema", [
    ('<div style="color:red">x</div>', "style"),
    ("<style>p { position: fixed }</style>", "<style>"),
    ('<div class="navbar-fixed-top">x</div>', "clase"),
    ('<div id="notebook"></div><div id="notebook"></div>', "id"),
    ('<div id="otro"></div>', "id"),
    ('<link rel="stylesheet" href="https://x">', "<link>"),
    ('<img srcset="https://x/a.png 1x">', "srcset"),
])
def test_verificar_html_rechaza_estilo_en_el_cuerpo(cuerpo, problema):
    cabeza = f'<html><head><meta http-equiv="Content-Security-Policy" content="{CSP}"><style>.a {{ color: red }}</style></head>'
    verificar_html(cabeza + '<body><div id="notebook" class="tutor-resumen">ok</div></body></html>')
    with pytest.raises(ValueError, match="no es segura") as error:
        verificar_html(cabeza + f"<body>{cuerpo}</body></html>")
    assert problema in str(error.value)


def test_ninguna_clase_que_puede_quedar_del_estudiante_posiciona_nada(tmp_path):
    """Las clases del resaltado (las únicas que conserva lo del estudiante) solo dan color en el CSS de la página."""
    from tutor_lib.calificacion.retroalimentacion import clase_de_estudiante

    texto = _exportar_con_respuesta(tmp_path, "hola")
    css = re.sub(r"/\*.*?\*/", "", "\n".join(re.findall(r"<style[^>]*>(.*?)</style>", texto, re.S)), flags=re.S)
    peligro = re.compile(r"position|float|z-index|transform|(^|[;\s{])(top|left|right|bottom|inset)\s*:|"
                         r"margin[^:;]*:\s*-|display|visibility|content\s*:|clip|opacity|width|height", re.I)
    revisadas = 0
    for selectores, declaraciones in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
        for selector in selectores.split(","):
            clases = set(re.findall(r"\.([A-Za-z0-9_-]+)", selector))
            if any(clase_de_estudiante(c) for c in clases):
                revisadas += 1
                assert not peligro.search(declaraciones), f"{selector.strip()} {{{declaraciones.strip()[:120]}}}"
    assert revisadas > 50, "El CSS de la página debería traer las reglas del resaltado"
    for ajena in ("navbar-fixed-top", "navbar", "modal", "tutor-resumen", "tutor-puntaje", "pull-right", "container"):
        assert not clase_de_estudiante(ajena), ajena


@pytest.fixture(scope="module")
def retroalimentacion_con_estilos(tmp_path_factory):
    from tutor_lib.calificacion.motor.calificador import CursoTemporal, Limites, entrega_de_referencia, fuente

    tmp = tmp_path_factory.mktemp("retro_estilos")
    origen = nbformat.read(fuente(ASIG), as_version=4)
    with CursoTemporal(ASIG, limites=Limites(tiempo_celda=60, tiempo_total=300)) as curso:
        nb = entrega_de_referencia(origen, curso.liberado, {"escrita-1": ATAQUES_DE_ESTILO["navbar"]})
        for nombre in ("etiquetas_sin_cerrar", "ids_de_la_plantilla", "svg_foreignobject"):
            nb.cells.append(nbformat.v4.new_markdown_cell(ATAQUES_DE_ESTILO[nombre].replace(FALSO, f"{FALSO} ({nombre})")))
        ruta = tmp / f"{ASIG}.ipynb"
        nbformat.write(nb, ruta)
        cal = curso.calificar("estilos", ruta, retroalimentacion=True)
        texto = Path(cal.retroalimentacion).read_text(encoding="utf-8") if cal.retroalimentacion else None
    return cal, texto


def test_retroalimentacion_real_sin_estilos_del_estudiante(retroalimentacion_con_estilos):
    """Con nbgrader de verdad: la respuesta escrita con navbar-fixed-top no tapa el resumen real."""
    cal, texto = retroalimentacion_con_estilos
    assert cal.estado == "calificado", cal.mensaje
    assert texto is not None, "No se generó la retroalimentación"
    revisar_que_no_ejecuta_nada(texto)
    verificar_html(texto)
    for nombre in ("", "(etiquetas_sin_cerrar)", "(ids_de_la_plantilla)", "(svg_foreignobject)"):
        revisar_sin_estilo_del_estudiante(texto, f"{FALSO} {nombre}".strip())
    arbol = Arbol(texto)
    real = [pila for t, pila in arbol.textos if t.startswith("Puntaje:") and FALSO not in t]
    assert real and any("tutor-resumen" in d.get("class", "") for _, d in real[0]), "El resumen real perdió su estilo"


def test_html_demasiado_anidado_se_muestra_como_texto():
    """Sanear HTML anidado cuesta tiempo cuadrático: 8000 «<div>» abiertos se muestran como texto, al instante."""
    import time

    from tutor_lib.calificacion.retroalimentacion import MAX_ANIDAMIENTO, sanear_contenido

    inicio = time.perf_counter()
    limpio = sanear_contenido("<div>" * 8000 + FALSO)
    assert time.perf_counter() - inicio < 1.0, "sanear un fragmento anidado debe ser lineal"
    arbol = Arbol(f"<html><body>{limpio}</body></html>")
    assert [t for t, _ in arbol.en_cuerpo] == ["p", "em", "pre"], limpio[:200]
    assert FALSO in limpio and "&lt;div&gt;" in limpio
    # Lo que anida poco (un markdown de verdad) sigue siendo HTML.
    poco = "<ul><li>" * (MAX_ANIDAMIENTO // 2 - 1) + "x"
    assert sanear_contenido(poco).startswith("<ul><li><ul><li>")
