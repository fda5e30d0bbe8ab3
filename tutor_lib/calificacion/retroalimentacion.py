"""Retroalimentación HTML que se puede abrir sin miedo (``nbgrader generate_feedback``).

nbgrader arma la retroalimentación con el notebook autocalificado, que trae el
código de las pruebas ocultas y lo que el estudiante quiso escribir (HTML,
JavaScript, markdown con ``<script>``). Aquí se cambian sus piezas (ver
:func:`configurar`, que llama la configuración del curso temporal de
:mod:`tutor_lib.calificacion.motor.calificador`):

* :class:`NotasConPendientes` (en lugar de ``GetGrades``): además del puntaje,
  marca las respuestas que esperan calificación a mano, para mostrarlas como
  pendientes y no como 0;
* :class:`PrepararRetroalimentacion`: las celdas de prueba muestran el código
  tal como se publicó (sin las pruebas ocultas) y, como salida, solo el
  mensaje en español de la prueba; las salidas del estudiante quedan como
  texto (``text/html``, ``application/javascript``, SVG, markdown...) o como
  imagen PNG/JPEG validada; se quitan adjuntos y metadatos;
* :class:`ExportadorRetroalimentacion`: una plantilla en español, sin ningún
  ``<script>``, con ``Content-Security-Policy`` en el ``<head>``; el markdown
  de cada celda se sanea solo (:func:`sanear_contenido`: sin ``class``,
  ``style`` ni ``id`` del estudiante, nada que tape o imite el resumen real),
  el cuerpo entero se sanea otra vez con ``bleach`` (:func:`sanear_cuerpo`:
  solo las clases e ids de la plantilla) y el resultado se revisa con
  :func:`verificar_html` antes de escribirlo: si algo peligroso quedara, no
  hay retroalimentación en lugar de una insegura.
"""

from __future__ import annotations

import copy
import json
import re
import secrets
from html.parser import HTMLParser
from pathlib import Path

import nbformat
from nbconvert.exporters import HTMLExporter
from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor, Preprocessor
from jinja2 import pass_context
from nbgrader.preprocessors import GetGrades
from pygments.token import STANDARD_TYPES
from traitlets import Int, Unicode, default

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
INICIO_OCULTAS = "BEGIN HIDDEN TESTS"
FIN_OCULTAS = "END HIDDEN TESTS"
SIN_CODIGO = "# (El código de esta prueba no se publica.)"

MAX_TEXTO = 100_000  # caracteres por salida de texto
MAX_IMAGEN = 2_000_000  # caracteres base64 por imagen

#: Tipos de salida que se muestran como su código fuente, en texto.
COMO_TEXTO = (
    "text/html", "application/javascript", "text/javascript", "image/svg+xml",
    "text/markdown", "text/latex", "application/json",
)


# --- el notebook ------------------------------------------------------------------


def quitar_pruebas_ocultas(fuente: str, inicio: str = INICIO_OCULTAS, fin: str = FIN_OCULTAS) -> str:
    """``fuente`` sin las regiones entre las líneas ``BEGIN HIDDEN TESTS`` y ``END HIDDEN TESTS``.

    Como ``ClearHiddenTests`` de nbgrader, pero sin fallar: una región sin cierre
    se quita hasta el final de la celda.
    """
    lineas, dentro = [], False
    for linea in str(fuente).split("\n"):
        if inicio in linea:
            dentro = True
        elif fin in linea:
            dentro = False
        elif not dentro:
            lineas.append(linea)
    return "\n".join(lineas)


def _unir(valor) -> str:
    if isinstance(valor, str):
        return valor
    if isinstance(valor, list):
        return "".join(x for x in valor if isinstance(x, str))
    return ""


def _recortar(texto: str) -> str:
    return texto if len(texto) <= MAX_TEXTO else texto[:MAX_TEXTO] + "\n… (salida recortada)"


def _base64_valido(valor) -> str | None:
    texto = re.sub(r"\s+", "", _unir(valor))
    if texto and len(texto) <= MAX_IMAGEN and re.fullmatch(r"[A-Za-z0-9+/]+={0,2}", texto):
        return texto
    return None


def sanear_salidas(salidas, ocultas: list[str] | None = None) -> list:
    """Las salidas de una celda de código, listas para mostrarse sin ejecutar nada.

    Texto y errores quedan como texto; PNG y JPEG, si son base64 válido; HTML,
    JavaScript, SVG, markdown, LaTeX y JSON se muestran como su código, en
    texto; todo lo demás (widgets, PDF...) se reemplaza por una nota. Con
    ``ocultas`` (las líneas de las pruebas ocultas), cada una se tapa en todo el
    texto (defensa de más, ver :mod:`tutor_lib.calificacion.juez.ocultas`: lo que el kernel
    escribió mientras el juez preguntaba ya no llega al notebook calificado).
    """
    from tutor_lib.calificacion.juez.ocultas import tapar

    if ocultas:
        limpias = sanear_salidas(salidas)
        for s in limpias:  # solo el texto (las imágenes quedan como están: base64 validado)
            for campo in ("text", "evalue", "traceback"):
                if campo in s:
                    s[campo] = tapar(s[campo], ocultas)
            if "text/plain" in s.get("data", {}):
                s["data"]["text/plain"] = tapar(s["data"]["text/plain"], ocultas)
        return limpias
    nuevas = []
    for s in salidas if isinstance(salidas, list) else []:
        if not isinstance(s, dict):
            continue
        tipo = s.get("output_type")
        if tipo == "stream":
            nombre = "stderr" if s.get("name") == "stderr" else "stdout"
            nuevas.append({"output_type": "stream", "name": nombre, "text": _recortar(_unir(s.get("text")))})
        elif tipo == "error":
            traza = s.get("traceback") if isinstance(s.get("traceback"), list) else []
            nuevas.append({
                "output_type": "error", "ename": _unir(s.get("ename"))[:200], "evalue": _recortar(_unir(s.get("evalue"))),
                "traceback": [_recortar(x) for x in traza if isinstance(x, str)][:200],
            })
        elif tipo in ("display_data", "execute_result"):
            datos = s.get("data") if isinstance(s.get("data"), dict) else {}
            limpio: dict[str, str] = {}
            for mime in ("image/png", "image/jpeg"):
                imagen = _base64_valido(datos.get(mime))
                if imagen:
                    limpio[mime] = imagen
            fuente = next((m for m in COMO_TEXTO if m in datos), None)
            if fuente is not None:
                valor = datos[fuente]
                texto = _unir(valor) if isinstance(valor, (str, list)) and fuente != "application/json" else json.dumps(valor, ensure_ascii=False, indent=1)
                limpio["text/plain"] = _recortar(texto)
            elif "text/plain" in datos:
                limpio["text/plain"] = _recortar(_unir(datos["text/plain"]))
            if not limpio:
                tipos = ", ".join(sorted(str(k) for k in datos))[:200] or "vacía"
                limpio["text/plain"] = f"(salida de tipo {tipos}: no se muestra en la retroalimentación)"
            nueva = {"output_type": tipo, "data": limpio, "metadata": {}}
            if tipo == "execute_result":
                cuenta = s.get("execution_count")
                nueva["execution_count"] = cuenta if type(cuenta) is int else None
            nuevas.append(nueva)
    return [nbformat.from_dict(x) for x in nuevas]


def _mensaje_publico(mensaje: str, ocultas: list[str] | None = None) -> str:
    """El mensaje de una prueba tal como lo ve el estudiante (lo de stderr, solo su primera línea).

    El mensaje lo arma el juez (nunca es el texto de una excepción del estudiante, ver
    :func:`tutor_lib.calificacion.juez.puente.interpretar`); con ``ocultas``, además se tapa toda línea
    de las pruebas ocultas que traiga un dato que el estudiante devolvió.
    """
    from tutor_lib.calificacion.juez.ocultas import tapar_ocultas

    mensaje = str(mensaje)
    if mensaje.startswith("La prueba escribió en stderr"):
        mensaje = mensaje.splitlines()[0]
    return tapar_ocultas(mensaje, ocultas or [])[:1000]


def _es_prueba(celda) -> bool:
    meta = celda.get("metadata", {}).get("nbgrader") or {}
    return bool(meta.get("grade")) and not meta.get("solution")


def _publicadas(ruta: str) -> dict[str, dict]:
    """Las celdas del notebook liberado (el que recibieron los estudiantes), por ``grade_id``."""
    if not ruta or not Path(ruta).is_file():
        return {}
    nb = nbformat.read(ruta, as_version=4)
    celdas = {}
    for c in nb.cells:
        gid = (c.get("metadata", {}).get("nbgrader") or {}).get("grade_id")
        if isinstance(gid, str):
            celdas[gid] = c
    return celdas


class NotasConPendientes(GetGrades):
    """``GetGrades`` de nbgrader, que además marca ``pendiente`` lo que califica una persona."""

    def _get_score(self, cell, resources) -> None:
        grade = self.gradebook.find_grade(
            cell.metadata["nbgrader"]["grade_id"], self.notebook_id, self.assignment_id, self.student_id)
        cell.metadata.nbgrader["score"] = grade.score
        cell.metadata.nbgrader["points"] = grade.max_score
        cell.metadata.nbgrader["pendiente"] = bool(
            grade.needs_manual_grade or (grade.auto_score is None and grade.manual_score is None))


#: Caracteres de cada celda del estudiante que muestra la retroalimentación, y de todas juntas: resaltar y
#: sanear el HTML cuesta más que lineal, y una entrega no debe poder frenar la de toda la clase (lo ataca
#: tests/test_ataques_nuevos.py::test_retroalimentacion_lenta_con_celdas_hostiles). El notebook calificado
#: conserva el texto entero.
MAX_FUENTE_CELDA = 20_000
MAX_FUENTE_NOTEBOOK = 400_000


def _recortar_fuente(fuente: str, restante: int) -> tuple[str, int]:
    """(lo que se muestra de ``fuente``, lo que queda del presupuesto del notebook)."""
    tope = max(0, min(MAX_FUENTE_CELDA, restante))
    if len(fuente) <= tope:
        return fuente, restante - len(fuente)
    aviso = (f"\n… (la retroalimentación muestra {tope} de {len(fuente)} caracteres de esta celda; "
             "el notebook calificado la tiene entera)")
    return fuente[:tope] + aviso, restante - tope


class PrepararRetroalimentacion(Preprocessor):
    """Deja el notebook autocalificado sin pruebas ocultas ni nada que se ejecute (ver el módulo)."""

    liberado = Unicode("", help="El notebook liberado (el que recibieron los estudiantes).").tag(config=True)

    @default("enabled")
    def _enabled_default(self):
        return True  # nbgrader lo registra sin «enabled»: sin esto no correría
    tiempo_celda = Int(60, help="Segundos por celda al calificar (para el mensaje de tiempo agotado).").tag(config=True)

    def preprocess(self, nb, resources):
        from tutor_lib.calificacion.resultados import MENSAJE_BIEN, Limites, mensajes_de_pruebas

        from tutor_lib.calificacion.juez.ocultas import lineas_ocultas

        publicadas = _publicadas(self.liberado)
        mensajes = mensajes_de_pruebas(nb, Limites(tiempo_celda=self.tiempo_celda))
        # Las líneas ocultas, del código de las pruebas que nbgrader restauró en el notebook calificado.
        ocultas = lineas_ocultas([c for c in nb.cells if c.get("cell_type") == "code" and _es_prueba(c)])
        pendiente = 0.0
        for celda in nb.cells:
            meta = dict(celda.get("metadata", {}).get("nbgrader") or {})
            celda.pop("attachments", None)
            gid = meta.get("grade_id")
            es_prueba = bool(meta.get("grade")) and not meta.get("solution") and celda.cell_type == "code"
            publicada = publicadas.get(gid) if isinstance(gid, str) else None
            if es_prueba:
                if publicada is not None and publicada.cell_type == "code":
                    celda.source = quitar_pruebas_ocultas(publicada.source)  # tal como se publicó
                elif publicadas:
                    celda.source = SIN_CODIGO  # una prueba que no se publicó: nada de su código
                else:
                    celda.source = quitar_pruebas_ocultas(_unir(celda.source))
                texto = _mensaje_publico(mensajes.get(gid, MENSAJE_BIEN), ocultas) + "\n"
                celda.outputs = [nbformat.from_dict({"output_type": "stream", "name": "stdout", "text": texto})]
                puntos, obtenidos = meta.get("points"), meta.get("score")
                meta["aprobada"] = bool(puntos) and obtenidos is not None and float(obtenidos) >= float(puntos)
            else:
                if publicada is not None and not meta.get("solution") and publicada.cell_type == celda.cell_type:
                    celda.source = publicada.source  # celda fija: tal como se publicó
                celda.source = quitar_pruebas_ocultas(_unir(celda.source))
                if celda.cell_type == "code":
                    celda.outputs = sanear_salidas(celda.get("outputs", []), ocultas)
            if meta.get("pendiente"):
                pendiente += float(meta.get("points") or 0)
            celda.metadata = nbformat.from_dict({"nbgrader": meta} if meta else {})  # solo lo de nbgrader
        nb.metadata = nbformat.from_dict({k: nb.metadata[k] for k in ("kernelspec", "language_info") if k in nb.metadata})
        resources["tutor"] = {"pendiente": pendiente}
        return nb, resources


# --- el HTML ----------------------------------------------------------------------

NOMBRE_PLANTILLA = "tutor_retroalimentacion.html.j2"

PLANTILLA = r"""{%- extends 'index.html.j2' -%}

{%- macro num(x) -%}{{ '%g' | format(x | float) }}{%- endmacro -%}

{%- macro puntaje(cell) -%}
  {%- if cell.metadata.nbgrader.pendiente -%}
  <span class="tutor-puntaje tutor-pendiente">Pendiente: la califica una persona (vale {{ num(cell.metadata.nbgrader.points) }}) <a href="#arriba">(Arriba)</a></span>
  {%- else -%}
  <span class="tutor-puntaje">Puntaje: {{ num(cell.metadata.nbgrader.score) }} / {{ num(cell.metadata.nbgrader.points) }} <a href="#arriba">(Arriba)</a></span>
  {%- endif -%}
{%- endmacro -%}

{%- macro encabezado(cell) -%}
<a name="{{ cell.metadata.nbgrader.grade_id | e }}"></a>
<div class="tutor-encabezado">
{%- if cell.metadata.nbgrader.solution -%}
  <span class="tutor-etiqueta">Tu respuesta</span>
  {%- if cell.metadata.nbgrader.grade %} {{ puntaje(cell) }}{% endif -%}
{%- elif cell.metadata.nbgrader.task -%}
  <span class="tutor-etiqueta">Tarea</span> {{ puntaje(cell) }}
{%- elif cell.metadata.nbgrader.grade -%}
  <span class="tutor-etiqueta">Prueba <code>{{ cell.metadata.nbgrader.grade_id | e }}</code>:
  {% if cell.metadata.nbgrader.aprobada %}<span class="tutor-bien">aprobada</span>{% else %}<span class="tutor-mal">no aprobada</span>{% endif %}</span>
  {{ puntaje(cell) }}
{%- endif -%}
</div>
{%- endmacro -%}

{%- macro comentario(cell) -%}
{%- if cell.metadata.nbgrader.comment -%}
<div class="tutor-comentario"><b>Comentarios de quien califica:</b> {{ cell.metadata.nbgrader.comment | markdown2html }}</div>
{%- endif -%}
{%- endmacro -%}

{%- block header -%}
<!DOCTYPE html>
<html lang="es">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{ resources.tutor_csp }}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>Retroalimentación: {{ resources.nbgrader.notebook | e }}</title>
{% for css in resources.inlining.css -%}
<style type="text/css">
{{ css }}
</style>
{% endfor %}
{{ resources.include_css("static/style.css") }}
<style type="text/css">
body { overflow: visible; padding: 1em; font-size: 14px; }
div#notebook { overflow: visible; border-top: none; }
div#notebook-container { width: 100%; max-width: 1100px; }
.tutor-resumen { border: 1px solid #ccc; border-radius: 4px; padding: 0.6em 1em; margin-bottom: 1em; background: #f7f7f7; }
.tutor-celda { border: 1px solid #337ab7; border-radius: 4px; margin: 0.3em 0; }
.tutor-encabezado { background: #337ab7; color: white; padding: 0.3em 0.6em; overflow: hidden; }
.tutor-encabezado code { color: white; background: transparent; }
.tutor-encabezado a { color: #dde; }
.tutor-puntaje { float: right; }
.tutor-pendiente { font-style: italic; }
.tutor-bien { font-weight: bold; }
.tutor-mal { font-weight: bold; text-decoration: underline; }
.tutor-comentario { padding: 0.4em 0.6em; border-top: 1px solid #ccc; }
.tutor-crudo { white-space: pre-wrap; }
@media print { div.cell, div.output_wrapper, div.output { display: block; page-break-inside: avoid; } }
</style>
</head>
{%- endblock header -%}

{% block body_header %}
<body>
<!--{{ resources.tutor_inicio }}-->
<main>
<a name="arriba"></a>
<div class="tutor-resumen">
<h1>Retroalimentación: {{ resources.nbgrader.notebook | e }}</h1>
<p>Estudiante: <b>{{ resources.nbgrader.student | e }}</b></p>
<p>Puntaje: <b>{{ num(resources.nbgrader.score) }}</b> de {{ num(resources.nbgrader.max_score) }} puntos.
{%- if resources.tutor.pendiente > 0 %}
 {% if resources.tutor.pendiente == 1 -%}
 Además, 1 punto está pendiente de calificación a mano: no cuenta como 0, se suma cuando tu instructor (o tú, con la pauta) califique esa respuesta.
 {%- else -%}
 Además, {{ num(resources.tutor.pendiente) }} puntos están pendientes de calificación a mano: no cuentan como 0, se suman cuando tu instructor (o tú, con la pauta) califique esas respuestas.
 {%- endif %}
{%- endif %}</p>
<ol>
{%- for cell in nb.cells %}
  {%- set g = cell.metadata.nbgrader %}
  {%- if g and g.grade %}
  <li><a href="#{{ g.grade_id | e }}">
    {%- if not g.solution -%}Prueba <code>{{ g.grade_id | e }}</code>
    {%- elif cell.cell_type == 'markdown' -%}Respuesta escrita <code>{{ g.grade_id | e }}</code>
    {%- else -%}Respuesta de código <code>{{ g.grade_id | e }}</code>{%- endif -%}
  </a>:
    {% if g.pendiente %}pendiente (la califica una persona; vale {{ num(g.points) }}){% else %}{{ num(g.score) }} / {{ num(g.points) }}{% if not g.solution %} · {{ 'aprobada' if g.aprobada else 'no aprobada' }}{% endif %}{% endif %}
  </li>
  {%- elif g and g.task %}
  <li><a href="#{{ g.grade_id | e }}">Tarea <code>{{ g.grade_id | e }}</code></a>: {% if g.pendiente %}pendiente{% else %}{{ num(g.score) }} / {{ num(g.points) }}{% endif %}</li>
  {%- endif %}
{%- endfor %}
{%- if resources.nbgrader.late_penalty > 0 %}
  <li>Penalización por entrega tardía: -{{ num(resources.nbgrader.late_penalty) }}</li>
{%- endif %}
</ol>
</div>
<div id="notebook" class="border-box-sizing">
<div class="container" id="notebook-container">
{% endblock body_header %}

{% block body_footer %}
</div>
</div>
</main>
<!--{{ resources.tutor_fin }}-->
</body>
{% endblock body_footer %}

{% block footer %}
</html>
{% endblock footer %}

{% block in_prompt -%}
<div class="prompt input_prompt">
{%- if cell.execution_count is defined and cell.execution_count is not none -%}
Entrada&nbsp;[{{ cell.execution_count }}]:
{%- else -%}
Entrada&nbsp;[&nbsp;]:
{%- endif -%}
</div>
{%- endblock in_prompt %}

{% block output_area_prompt %}
{%- if output.output_type == 'execute_result' -%}
<div class="prompt output_prompt">
{%- if cell.execution_count is defined and cell.execution_count is not none -%}
Salida[{{ cell.execution_count }}]:
{%- else -%}
Salida[&nbsp;]:
{%- endif -%}
{%- else -%}
<div class="prompt">
{%- endif -%}
</div>
{% endblock output_area_prompt %}

{% block input %}
{%- set g = cell.metadata.nbgrader -%}
{%- if g and (g.solution or g.grade or g.task) -%}
<div class="inner_cell tutor-celda">
{{ encabezado(cell) }}
<div class="input_area">
{{ cell.source | highlight_code(metadata=cell.metadata) }}
</div>
{{ comentario(cell) }}
</div>
{%- else -%}
<div class="inner_cell">
<div class="input_area">
{{ cell.source | highlight_code(metadata=cell.metadata) }}
</div>
</div>
{%- endif -%}
{%- endblock input %}

{% block markdowncell scoped %}
{%- set g = cell.metadata.nbgrader -%}
<div class="cell border-box-sizing text_cell rendered">
{%- if resources.global_content_filter.include_input_prompt -%}{{ self.empty_in_prompt() }}{%- endif -%}
<div class="inner_cell{% if g and (g.solution or g.grade or g.task) %} tutor-celda{% endif %}">
{%- if g and (g.solution or g.grade or g.task) %}{{ encabezado(cell) }}{% endif %}
<div class="text_cell_render border-box-sizing rendered_html">
{{ cell.source | markdown2html }}
</div>
{%- if g and (g.solution or g.task) %}{{ comentario(cell) }}{% endif %}
</div>
</div>
{%- endblock markdowncell %}

{% block rawcell scoped %}
<div class="cell border-box-sizing text_cell rendered">
<div class="inner_cell"><pre class="tutor-crudo">{{ cell.source | e }}</pre></div>
</div>
{%- endblock rawcell %}

{% block unknowncell scoped %}
{%- endblock unknowncell %}

{% block data_html scoped -%}
<div class="output_subarea output_text"><pre>{{ output.data['text/html'] | e }}</pre></div>
{%- endblock data_html %}

{% block data_markdown scoped -%}
<div class="output_subarea output_text"><pre>{{ output.data['text/markdown'] | e }}</pre></div>
{%- endblock data_markdown %}

{% block data_svg scoped -%}
<div class="output_subarea output_text"><pre>{{ output.data['image/svg+xml'] | e }}</pre></div>
{%- endblock data_svg %}

{% block data_latex scoped -%}
<div class="output_subarea output_text"><pre>{{ output.data['text/latex'] | e }}</pre></div>
{%- endblock data_latex %}

{% block data_javascript scoped -%}
<div class="output_subarea output_text"><pre>{{ output.data['application/javascript'] | e }}</pre></div>
{%- endblock data_javascript %}

{% block data_widget_view scoped -%}
{%- endblock data_widget_view %}
"""

#: Etiquetas que puede traer el cuerpo de la retroalimentación (todo lo demás se quita).
ETIQUETAS = frozenset({
    "a", "abbr", "b", "blockquote", "br", "caption", "cite", "code", "dd", "del", "details", "div", "dl", "dt",
    "em", "figcaption", "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "kbd", "li", "main",
    "mark", "ol", "p", "pre", "q", "s", "samp", "section", "small", "span", "strong", "sub", "summary", "sup",
    "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul", "var",
})
_IMAGEN_DATOS = re.compile(r"data:image/(png|jpeg|gif);base64,[A-Za-z0-9+/=\s]*\Z", re.IGNORECASE)
_ESQUEMA = re.compile(r"^([a-z][a-z0-9+.-]*):", re.IGNORECASE)


#: Clases que pone la plantilla (la «classic» de nbconvert y la nuestra). En el cuerpo de la página no queda
#: ninguna otra: ni las de Bootstrap que trae el CSS (``navbar-fixed-top``, ``modal``...) ni inventadas.
CLASES_PLANTILLA = frozenset({
    "border-box-sizing", "cell", "code_cell", "container", "inner_cell", "input", "input_area", "input_prompt",
    "output", "output_area", "output_error", "output_execute_result", "output_jpeg", "output_png", "output_prompt",
    "output_stderr", "output_stdout", "output_stream", "output_subarea", "output_text", "output_wrapper", "prompt",
    "raw_cell", "rendered", "rendered_html", "text_cell", "text_cell_render", "unconfined",
    "tutor-bien", "tutor-celda", "tutor-comentario", "tutor-crudo", "tutor-encabezado", "tutor-etiqueta", "tutor-mal",
    "tutor-pendiente", "tutor-puntaje", "tutor-resumen",
})
#: Clases del resaltado de código (pygments): en el CSS de la página solo dan color dentro de ``.highlight``.
#: Son las únicas que conserva el markdown del estudiante, porque las pone el exportador al resaltar un
#: bloque de código (un estudiante que las escriba a mano solo consigue colorear su propio texto).
CLASES_RESALTADO = frozenset({"highlight", *(c for c in STANDARD_TYPES.values() if c)})
_CLASE_LEXER = re.compile(r"hl-[A-Za-z0-9_+-]+\Z")  # «hl-ipython3», en las celdas de código
_CLASE_ANSI = re.compile(r"ansi-?[a-z]+(-[a-z]+)*\Z")  # colores de las salidas de texto (ansi2html)
#: Los ids de la plantilla; en el cuerpo, cada uno una vez (la plantilla los pone antes de cualquier celda).
IDS_PLANTILLA = ("notebook", "notebook-container")
#: Etiquetas que solo pueden estar en el ``<head>`` (las pone la plantilla): en el cuerpo cambiarían la página.
SOLO_EN_CABEZA = frozenset({"style", "link", "meta", "base", "title"})


def clase_de_estudiante(clase: str) -> bool:
    """¿Puede quedar ``clase`` en el HTML que escribió el estudiante? Solo las del resaltado de código."""
    return clase in CLASES_RESALTADO


def _clase_de_plantilla(clase: str) -> bool:
    return (clase in CLASES_PLANTILLA or clase in CLASES_RESALTADO or bool(_CLASE_LEXER.match(clase))
            or bool(_CLASE_ANSI.match(clase)))


def _url_limpia(valor: str) -> str:
    return re.sub(r"[\x00-\x20\x7f-\x9f]+", "", valor or "")


def _atributo_permitido(etiqueta: str, nombre: str, valor: str, de_plantilla: bool = False) -> bool:
    """¿Se conserva el atributo ``nombre`` en ``<etiqueta>``?

    Lo del estudiante (``de_plantilla=False``: markdown, respuestas escritas, comentarios) no conserva
    ``style``, ``id``, ``name`` ni tamaños, y de ``class`` solo las clases del resaltado de código (ver
    :class:`_FiltroAtributos`). El cuerpo entero (``de_plantilla=True``) conserva además las clases de la
    plantilla y sus ids; ``style`` no queda en ninguno de los dos.
    """
    if nombre in ("class", "title"):
        return True  # las clases se filtran una por una en _FiltroAtributos
    if nombre == "id":
        return de_plantilla and valor in IDS_PLANTILLA
    if etiqueta == "a" and nombre == "name":
        return de_plantilla
    if etiqueta == "a" and nombre == "href":
        url = _url_limpia(valor)
        esquema = _ESQUEMA.match(url)
        return not esquema or esquema.group(1).lower() in ("http", "https", "mailto")
    if etiqueta == "img" and nombre == "src":
        return bool(_IMAGEN_DATOS.match(_url_limpia(valor)))
    if etiqueta == "img" and nombre == "alt":
        return True
    if etiqueta == "img" and nombre in ("width", "height"):
        return de_plantilla
    if etiqueta in ("td", "th") and nombre in ("colspan", "rowspan"):
        return True
    if etiqueta == "ol" and nombre == "start":
        return True
    return False


class _FiltroAtributos:
    """Filtro de html5lib (después del de ``bleach``): deja solo las clases permitidas y cada id una vez."""

    def __init__(self, source, clase_permitida, ids_unicos: bool):
        self.source, self.clase_permitida, self.ids_unicos = source, clase_permitida, ids_unicos

    def __iter__(self):
        vistos: set[str] = set()
        for token in self.source:
            if token.get("type") in ("StartTag", "EmptyTag") and token.get("data"):
                datos = dict(token["data"])
                clave_clase, clave_id = (None, "class"), (None, "id")
                if clave_clase in datos:
                    clases = [c for c in str(datos[clave_clase]).split() if self.clase_permitida(c)]
                    if clases:
                        datos[clave_clase] = " ".join(dict.fromkeys(clases))
                    else:
                        del datos[clave_clase]
                if clave_id in datos:
                    if not self.ids_unicos or datos[clave_id] in vistos:
                        del datos[clave_id]
                    else:
                        vistos.add(datos[clave_id])
                token = {**token, "data": datos}
            yield token


def _limpiador(de_plantilla: bool):
    import functools

    import bleach

    return bleach.Cleaner(
        tags=ETIQUETAS, protocols={"http", "https", "mailto", "data"}, strip=True, strip_comments=True,
        attributes=lambda etiqueta, nombre, valor: _atributo_permitido(etiqueta, nombre, valor, de_plantilla),
        filters=[functools.partial(_FiltroAtributos, ids_unicos=de_plantilla,
                                   clase_permitida=_clase_de_plantilla if de_plantilla else clase_de_estudiante)],
    )


def sanear_contenido(html: str) -> str:
    """El HTML que escribió el estudiante (markdown ya convertido), solo, antes de entrar en la página.

    Se sanea como un fragmento aparte: las etiquetas sin cerrar se cierran al final del fragmento y las
    de cierre de más se descartan, así que nada sale de su celda. No conserva ``style``, ``id``, ``name``,
    ``<style>``, ``<link>``, SVG ni MathML, ni más clases que las del resaltado de código: nada que
    posicione, tape o cambie el estilo del resumen real. Un fragmento con más de
    :data:`MAX_ANIDAMIENTO` etiquetas abiertas una dentro de otra se muestra como texto: sanear
    HTML anidado cuesta tiempo cuadrático en la profundidad (40 KB de ``<div>`` serían segundos).
    """
    html = str(html)
    if _anidamiento(html) > MAX_ANIDAMIENTO:
        import html as html_lib

        return ("<p><em>(HTML demasiado anidado: se muestra como texto)</em></p>\n<pre>"
                + html_lib.escape(html, quote=False) + "</pre>")
    return _limpiador(de_plantilla=False).clean(html)


#: Niveles de etiquetas abiertas que puede traer el HTML del estudiante (markdown real: unos pocos).
MAX_ANIDAMIENTO = 100
_ETIQUETA = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)[^>]*?(/?)>")
_VACIAS = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
                     "track", "wbr"})


def _anidamiento(html: str) -> int:
    """La mayor profundidad de etiquetas abiertas en ``html`` (aproximada, en tiempo lineal)."""
    profundidad = maxima = 0
    for cierre, nombre, sola in _ETIQUETA.findall(html):
        if nombre.lower() in _VACIAS or sola:
            continue
        if cierre:
            profundidad = max(0, profundidad - 1)
        else:
            profundidad += 1
            maxima = max(maxima, profundidad)
    return maxima


def sanear_cuerpo(html: str) -> str:
    """El cuerpo de la página con solo las etiquetas y atributos permitidos (``bleach``).

    Sin ``<script>``, ``<style>``, ``<link>``, ``<iframe>``, formularios, SVG ni MathML; sin manejadores de
    eventos (``onerror``...) ni ``style``; clases solo de la plantilla, del resaltado y de los colores de
    las salidas; ids solo los de la plantilla, una vez cada uno; enlaces solo ``http``, ``https``,
    ``mailto`` o internos; imágenes solo ``data:image/...``. Lo del estudiante ya llega saneado por
    :func:`sanear_contenido`; esto es la segunda barrera.
    """
    return _limpiador(de_plantilla=True).clean(html)


class _Revisor(HTMLParser):
    PROHIBIDAS = frozenset({
        "script", "iframe", "frame", "frameset", "object", "embed", "applet", "base", "form", "input", "button",
        "textarea", "select", "svg", "math", "link", "template", "noscript", "portal", "audio", "video", "source",
        "foreignobject", "xmp", "plaintext", "marquee", "dialog",
    })
    URLS = frozenset({"href", "src", "action", "formaction", "xlink:href", "data", "background", "poster", "srcset",
                      "cite", "longdesc", "usemap", "ping", "manifest"})
    #: Atributos que no deben quedar en el cuerpo (estilo, otras fuentes de imagen, popover...).
    PROHIBIDOS_EN_CUERPO = frozenset({"style", "srcset", "sizes", "popover", "popovertarget", "background"})

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problemas: list[str] = []
        self.csp = False
        self.en_cuerpo = False
        self.ids: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in self.PROHIBIDAS:
            self.problemas.append(f"etiqueta <{tag}>")
        if tag == "body":
            self.en_cuerpo = True
        elif self.en_cuerpo:
            self._revisar_cuerpo(tag, attrs)
        for nombre, valor in attrs:
            valor = valor or ""
            if nombre.startswith("on"):
                self.problemas.append(f"manejador {nombre}= en <{tag}>")
            if nombre in self.URLS:
                url = _url_limpia(valor).lower()
                if url.startswith(("javascript:", "vbscript:", "livescript:")):
                    self.problemas.append(f"{nombre}=javascript: en <{tag}>")
                elif url.startswith("data:") and not (tag == "img" and _IMAGEN_DATOS.match(url)):
                    self.problemas.append(f"{nombre}=data: en <{tag}>")
            if nombre == "style" and re.search(r"expression\s*\(|url\s*\(|javascript:", valor, re.IGNORECASE):
                self.problemas.append(f"style peligroso en <{tag}>")
        if tag == "meta":
            d = dict(attrs)
            equiv = (d.get("http-equiv") or "").lower()
            if equiv == "content-security-policy" and d.get("content") == CSP:
                self.csp = True
            elif equiv:
                self.problemas.append(f"<meta http-equiv={equiv}>")

    def _revisar_cuerpo(self, tag, attrs):
        """En el ``<body>``: nada que cambie el estilo o la posición de la página."""
        if tag in SOLO_EN_CABEZA:
            self.problemas.append(f"<{tag}> en el cuerpo")
        for nombre, valor in attrs:
            valor = valor or ""
            if nombre in self.PROHIBIDOS_EN_CUERPO:
                self.problemas.append(f"atributo {nombre} en <{tag}>")
            elif nombre == "class":
                ajenas = [c for c in valor.split() if not _clase_de_plantilla(c)]
                if ajenas:
                    self.problemas.append(f"clase no permitida {' '.join(ajenas)[:80]!r} en <{tag}>")
            elif nombre == "id":
                if valor not in IDS_PLANTILLA or valor in self.ids:
                    self.problemas.append(f"id {valor[:80]!r} en <{tag}>")
                self.ids.append(valor)

    handle_startendtag = handle_starttag


def verificar_html(html: str) -> None:
    """``ValueError`` si ``html`` trae algo que ejecute código al abrirlo, le falta la CSP, o su cuerpo trae
    estilo propio (``style``, ``<style>``, ``<link>``, clases ajenas a la plantilla, ids repetidos o ajenos)."""
    revisor = _Revisor()
    revisor.feed(html)
    revisor.close()
    problemas = list(revisor.problemas)
    if re.search(r"<\s*script", html, re.IGNORECASE):
        problemas.append("texto <script")
    if not revisor.csp:
        problemas.append("falta la Content-Security-Policy")
    if problemas:
        raise ValueError("La retroalimentación no es segura: " + "; ".join(dict.fromkeys(problemas))[:500])


class ExportadorRetroalimentacion(HTMLExporter):
    """El ``HTMLExporter`` de la retroalimentación: plantilla en español, cuerpo saneado y revisado."""

    @default("template_name")
    def _template_name_default(self):
        return "classic"

    @default("template_file")
    def _template_file_default(self):
        return NOMBRE_PLANTILLA

    @default("extra_loaders")
    def _extra_loaders_default(self):
        from jinja2 import DictLoader

        return [DictLoader({NOMBRE_PLANTILLA: PLANTILLA})]

    @default("exclude_anchor_links")
    def _exclude_anchor_links_default(self):
        return True

    @pass_context
    def markdown2html(self, context, source):
        """El markdown de una celda (o el comentario de quien califica) como HTML saneado por separado.

        Así ninguna clase, estilo o id que escriba el estudiante llega a la página, y sus etiquetas sin
        cerrar no salen de su celda (ver :func:`sanear_contenido`).
        """
        return sanear_contenido(super().markdown2html(context, source))

    def from_notebook_node(self, nb, resources=None, **kw):
        marca = secrets.token_hex(16)
        resources = dict(resources or {})
        resources.update(tutor_inicio=f"tutor-inicio-{marca}", tutor_fin=f"tutor-fin-{marca}", tutor_csp=CSP)
        resources.setdefault("tutor", {"pendiente": 0.0})
        nb = copy.deepcopy(nb)
        restante = MAX_FUENTE_NOTEBOOK
        for celda in nb.cells:  # lo que escribió el estudiante, acotado antes de resaltar y sanear
            meta = celda.get("metadata", {}).get("nbgrader") or {}
            if not (meta.get("grade") and not meta.get("solution") and celda.get("cell_type") == "code"):
                celda.source, restante = _recortar_fuente(_unir(celda.get("source", "")), restante)
        html, resources = super().from_notebook_node(nb, resources, **kw)
        return armar_pagina(html, marca), resources


_ALT_INGLES = "No description has been provided for this image"  # lo pone nbconvert a las imágenes


def armar_pagina(html: str, marca: str) -> str:
    """Sanea lo que hay entre las marcas del cuerpo y revisa la página entera."""
    inicio, fin = f"<!--tutor-inicio-{marca}-->", f"<!--tutor-fin-{marca}-->"
    a, b = html.find(inicio), html.rfind(fin)
    if a < 0 or b < a:
        raise ValueError("La plantilla de la retroalimentación no marcó el cuerpo de la página.")
    cuerpo = html[a + len(inicio):b].replace(_ALT_INGLES, "Imagen sin descripción")
    pagina = html[:a] + sanear_cuerpo(cuerpo) + html[b + len(fin):]
    verificar_html(pagina)
    return pagina


def configurar(c, liberado: str, tiempo_celda: int) -> None:
    """Configura ``nbgrader generate_feedback`` (lo llama la configuración del curso temporal)."""
    c.GenerateFeedback.preprocessors = [NotasConPendientes, PrepararRetroalimentacion, CSSHTMLHeaderPreprocessor]
    c.GenerateFeedback.exporter_class = ExportadorRetroalimentacion
    # nbgrader fija su plantilla (en inglés y con scripts) si no se configura una.
    c.HTMLExporter.template_name = "classic"
    c.ExportadorRetroalimentacion.template_name = "classic"
    c.ExportadorRetroalimentacion.template_file = NOMBRE_PLANTILLA
    c.PrepararRetroalimentacion.liberado = str(liberado)
    c.PrepararRetroalimentacion.tiempo_celda = int(tiempo_celda)
