"""El sitio del curso (issue 19): se construye con las lecciones que ejecutó esta misma corrida y se lee en Chromium.

La construcción usa la caché que deja ``tests/cuadernos.py`` (cada lección que corre ``test_lecciones.py``);
corrido solo, este archivo ejecuta las lecciones que falten (unos 20 minutos en 2 núcleos).
"""

from __future__ import annotations

import functools
import html as html_std
import http.server
import json
import re
import shutil
import threading
from pathlib import Path

import nbformat
import pytest

import cuadernos
from sitio import cache, construir, widgets

RAIZ = Path(__file__).resolve().parents[1]
LECCIONES = construir.lecciones()

#: Lo que un tema deja en inglés si nadie lo traduce (texto visible o atributo fuera del artículo).
INTERFAZ_EN_INGLES = (
    "Search", "Skip to main content", "Back to top", "Contents", "Previous", "Next", "Download", "Toggle",
    "Launch", "Print to PDF", "Copyright", "Light", "Dark", "System", "Theme", "Repository", "Source",
    "Link to this heading", "Main", "Page", "By ", "Last updated", "Fullscreen", "Edit this page", "Open an issue",
)

_ETIQUETAS = re.compile(r"<[^>]+>")


def _texto_de_html(pagina: str) -> str:
    """El texto de una página (sin etiquetas), con los espacios normalizados."""
    sin_scripts = re.sub(r"<(script|style)\b.*?</\1>", " ", pagina, flags=re.S)
    return re.sub(r"\s+", " ", html_std.unescape(_ETIQUETAS.sub(" ", sin_scripts)))


def _lineas_secretas() -> set[str]:
    """Líneas de soluciones y pruebas ocultas de solutions/ que no aparecen en ningún enunciado."""
    secretas: set[str] = set()
    for ruta in sorted((RAIZ / "solutions").glob("ej*/ej*.ipynb")):
        nb = nbformat.read(ruta, as_version=4)
        for celda in nb.cells:
            dentro = False
            for linea in celda.source.splitlines():
                marca = linea.strip()
                if marca in ("### BEGIN SOLUTION", "### BEGIN HIDDEN TESTS"):
                    dentro = True
                elif marca in ("### END SOLUTION", "### END HIDDEN TESTS"):
                    dentro = False
                elif dentro and len(marca) >= 30 and not marca.startswith("#"):
                    secretas.add(re.sub(r"\s+", " ", marca))
    # lo que ya es público a propósito: los enunciados y las lecciones (código y salidas), que enseñan lo mismo
    # (todas sus cadenas: fuentes, salidas, y el estado de los widgets, p. ej. el código que sugiere el configurador)
    publico: list[str] = []
    for ruta in construir.enunciados() + LECCIONES:
        nb = (cache.buscar(ruta) if ruta in LECCIONES else None) or nbformat.read(ruta, as_version=4)
        _cadenas(nb, publico)
    texto_publico = re.sub(r"\s+", " ", "\n".join(publico))
    return {linea for linea in secretas if linea not in texto_publico}


def _cadenas(objeto, destino: list[str]) -> None:
    if isinstance(objeto, str):
        destino.append(objeto)
    elif isinstance(objeto, dict):
        for valor in objeto.values():
            _cadenas(valor, destino)
    elif isinstance(objeto, list):
        for valor in objeto:
            _cadenas(valor, destino)


def _fugas(texto: str, secretas: set[str]) -> list[str]:
    return sorted(linea for linea in secretas if linea in texto)


# --------------------------------------------------------------------------
# Unidades (sin construir nada)
# --------------------------------------------------------------------------


def test_la_clave_cambia_con_el_notebook_y_con_las_versiones(tmp_path, monkeypatch):
    copia = tmp_path / "00_copia.ipynb"
    shutil.copy(LECCIONES[0], copia)
    primera = cache.clave(copia)
    assert cache.clave(copia) == primera
    nb = nbformat.read(copia, as_version=4)
    nb.cells[-1].source += "\n"
    nbformat.write(nb, copia)
    assert cache.clave(copia) != primera, "cambiar una celda no cambió la clave"
    segunda = cache.clave(copia)
    otras = {**cache.versiones(), "torch": "0.0.0"}
    monkeypatch.setattr(cache, "versiones", lambda: otras)
    assert cache.clave(copia) != segunda, "cambiar la versión de torch no cambió la clave"


def test_la_cache_guarda_y_encuentra_solo_la_version_actual(tmp_path, monkeypatch):
    monkeypatch.setenv("TUTOR_SITIO_CACHE", str(tmp_path / "cache"))
    copia = tmp_path / "05_prueba.ipynb"
    shutil.copy(LECCIONES[0], copia)
    assert cache.buscar(copia) is None
    nb = nbformat.read(copia, as_version=4)
    cache.guardar(copia, nb, 12.34)
    guardado = cache.buscar(copia)
    assert guardado.metadata["tutor_sitio"]["modo"] == "rapido"
    assert guardado.metadata["tutor_sitio"]["segundos"] == 12.3
    nb.cells[0].source += " (editada)"
    nbformat.write(nb, copia)
    assert cache.buscar(copia) is None, "una lección editada no debe reutilizar la ejecución vieja"
    cache.guardar(copia, nb)
    assert len(list((tmp_path / "cache").glob("05_prueba-*.ipynb"))) == 1, "la ejecución vieja no se borró"


def test_un_enunciado_con_solucion_o_prueba_oculta_detiene_el_sitio(tmp_path):
    for marca in ("### BEGIN SOLUTION", "### BEGIN HIDDEN TESTS"):
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(f"x = 1\n{marca}\nassert x == 1\n")])
        with pytest.raises(construir.ErrorSitio, match="nbgrader"):
            construir.revisar_enunciado(RAIZ / "exercises" / "ej99" / "ej99.ipynb", nb)


def test_la_busqueda_de_secretos_encuentra_lo_que_busca():
    """Control positivo: las líneas secretas existen y el buscador las halla en el texto de una solución."""
    secretas = _lineas_secretas()
    assert len(secretas) >= 50, f"solo {len(secretas)} líneas secretas: la búsqueda de fugas no probaría nada"
    solucion = "".join(
        re.sub(r"\s+", " ", c.source) for c in nbformat.read(next((RAIZ / "solutions").glob("ej04*/ej04*.ipynb")),
                                                            as_version=4).cells
    )
    assert _fugas(solucion, secretas)


def test_resultados_completos_sin_donde_ni_cuando_se_rechazan_en_espanol(tmp_path):
    (tmp_path / "corrida.txt").write_text("tabla\n")
    with pytest.raises(construir.ErrorSitio, match="falta corrida.json"):
        construir.resultados_completos(tmp_path)
    (tmp_path / "corrida.json").write_text("{roto")
    with pytest.raises(construir.ErrorSitio, match="no es JSON válido"):
        construir.resultados_completos(tmp_path)
    (tmp_path / "corrida.json").write_text(json.dumps({"donde": "Colab, T4"}))
    with pytest.raises(construir.ErrorSitio, match="faltan cuando"):
        construir.resultados_completos(tmp_path)


def test_widget_estatico_muestra_controles_texto_e_imagen():
    estado = {
        "a": {"model_name": "VBoxModel", "state": {"children": ["IPY_MODEL_b", "IPY_MODEL_c", "IPY_MODEL_d"]}},
        "b": {"model_name": "FloatSliderModel", "state": {"description": "Épocas", "value": 3.0, "min": 0.1, "max": 20}},
        "c": {"model_name": "HTMLModel", "state": {"value": "<b>120 pasos</b>"}},
        "d": {"model_name": "ImageModel", "state": {"format": "png"},
              "buffers": [{"path": ["value"], "data": "iVBORw0KGgo=", "encoding": "base64"}]},
    }
    html = widgets.html_de("IPY_MODEL_a", estado)
    assert "Épocas" in html and ">3</span>" in html and "<b>120 pasos</b>" in html
    assert 'src="data:image/png;base64,iVBORw0KGgo="' in html
    nb = nbformat.v4.new_notebook()
    nb.metadata["widgets"] = {widgets.TIPO_ESTADO: {"state": estado}}
    nb.cells.append(nbformat.v4.new_code_cell("w", outputs=[nbformat.v4.new_output(
        "display_data", data={widgets.TIPO_VISTA: {"model_id": "a"}, "text/plain": "VBox()"})]))
    assert widgets.volver_estaticos(nb) == 1
    assert "widgets" not in nb.metadata, "con el estado, MyST-NB pediría ipywidgets a una CDN"
    assert widgets.TIPO_VISTA not in nb.cells[0].outputs[0]["data"]


# --------------------------------------------------------------------------
# El sitio entero
# --------------------------------------------------------------------------


def _notebook_completo(tmp_path: Path) -> Path:
    """Un resultado del modo completo aportado (un notebook chico con su ficha de dónde y cuándo)."""
    carpeta = tmp_path / "resultados_completos"
    carpeta.mkdir()
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# Lección 4 en una T4"),
        nbformat.v4.new_code_cell("print('pico de memoria: 3.1 GiB')", outputs=[
            nbformat.v4.new_output("stream", name="stdout", text="pico de memoria: 3.1 GiB\n")]),
    ])
    nbformat.write(nb, carpeta / "leccion04_t4.ipynb")
    (carpeta / "leccion04_t4.json").write_text(json.dumps(
        {"donde": "Colab, Tesla T4", "cuando": "2026-11-30", "leccion": "04_warmup_y_regularizacion"}))
    (carpeta / "benchmarks_gpu.txt").write_text("fase | pico medido\nlección 03 | 5.2 GiB\n")
    (carpeta / "benchmarks_gpu.json").write_text(json.dumps({"donde": "H100", "cuando": "2026-12-01",
                                                             "titulo": "python -m benchmarks gpu"}))
    return carpeta


@pytest.fixture(scope="module")
def sitio(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sitio")
    informe = construir.construir(tmp / "salida", completos_en=_notebook_completo(tmp), mostrar=lambda *_: None)
    return informe


def test_el_sitio_reutiliza_las_lecciones_de_esta_corrida(sitio):
    assert len(sitio.reutilizadas) + len(sitio.ejecutadas) == len(LECCIONES)
    corridas_aqui = {clave[0].name for clave in cuadernos._YA_EJECUTADOS}
    volvio_a_ejecutar = [s for s in sitio.ejecutadas if f"{s}.ipynb" in corridas_aqui]
    assert not volvio_a_ejecutar, f"el sitio ejecutó otra vez lo que la corrida de pruebas ya había ejecutado: {volvio_a_ejecutar}"
    assert sitio.enunciados == len(construir.enunciados()) and sitio.subcomandos >= 10 and sitio.completos == 2
    assert sitio.widgets >= 2  # los dos de la lección 04


def test_una_segunda_construccion_no_ejecuta_nada(sitio, tmp_path):
    informe = construir.construir(sitio.salida.parent, completos_en=sitio.salida.parent.parent / "resultados_completos",
                                  ejecutar=False, mostrar=lambda *_: None)
    assert not informe.ejecutadas and len(informe.reutilizadas) == len(LECCIONES)


def test_ninguna_pagina_trae_soluciones_ni_pruebas_ocultas(sitio):
    secretas = _lineas_secretas()
    fugas = {}
    for archivo in sitio.salida.rglob("*"):
        if archivo.is_file() and archivo.suffix in (".html", ".ipynb", ".js", ".txt", ".json", ".md"):
            crudo = archivo.read_text(encoding="utf-8", errors="replace")
            encontradas = _fugas(_texto_de_html(crudo), secretas) + _fugas(re.sub(r"\s+", " ", crudo), secretas)
            if encontradas:
                fugas[str(archivo.relative_to(sitio.salida))] = encontradas[:3]
    assert not fugas, f"el sitio publica soluciones o pruebas ocultas: {fugas}"


def test_paginas_de_tutor_y_del_modo_completo(sitio):
    vram = _texto_de_html((sitio.salida / "tutor" / "vram.html").read_text(encoding="utf-8"))
    assert "tutor vram" in vram and "--modelo" in vram
    completo = _texto_de_html((sitio.salida / "completo" / "leccion04_t4.html").read_text(encoding="utf-8"))
    assert "Colab, Tesla T4" in completo and "2026-11-30" in completo and "pico de memoria: 3.1 GiB" in completo
    leccion = _texto_de_html((sitio.salida / "lessons" / "04_warmup_y_regularizacion.html").read_text(encoding="utf-8"))
    assert "también corrió en modo completo" in leccion


@pytest.fixture(scope="module")
def servidor(sitio):
    manejador = functools.partial(_Silencioso, directory=str(sitio.salida))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), manejador)
    hilo = threading.Thread(target=httpd.serve_forever, daemon=True)
    hilo.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


class _Silencioso(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


#: Todo lo que la página muestra fuera del artículo, y los atributos que lee un lector de pantalla.
_INTERFAZ_JS = """() => {
  const fuera = [];
  const art = document.querySelector('article.bd-article');
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let n;
  while ((n = walker.nextNode())) {
    if (art && art.contains(n)) continue;
    if (n.parentElement && n.parentElement.closest('script,style')) continue;
    const t = n.textContent.trim(); if (t) fuera.push(t);
  }
  for (const el of document.querySelectorAll('[title],[aria-label],[placeholder],[alt],[data-bs-title]')) {
    if (art && art.contains(el)) continue;
    for (const a of ['title','aria-label','placeholder','alt','data-bs-title']) {
      const v = el.getAttribute(a); if (v) fuera.push(v);
    }
  }
  return fuera;
}"""


@pytest.mark.navegador
def test_chromium_lee_el_sitio(sitio, servidor):
    """Corre en un hilo propio: en la corrida completa, el Chromium de tests/navegador (una sesión de Playwright
    abierta durante toda la corrida) ocupa el bucle de eventos del hilo principal, y Playwright no admite dos."""
    resultado: dict = {}

    def leer():
        try:
            resultado["valor"] = _leer_el_sitio(servidor)
        except BaseException as exc:  # se vuelve a lanzar en el hilo de la prueba
            resultado["error"] = exc

    hilo = threading.Thread(target=leer)
    hilo.start()
    hilo.join()
    if "error" in resultado:
        raise resultado["error"]
    problemas, resultados, fuera_de_casa, errores_js = resultado["valor"]
    assert not problemas, f"páginas de lecciones con problemas: {problemas}"
    assert any("lessons/04_warmup_y_regularizacion" in r for r in resultados), f"buscar «warmup» no halló la lección 04: {resultados}"
    assert not fuera_de_casa, f"el sitio pidió recursos fuera de la máquina: {sorted(set(fuera_de_casa))[:5]}"
    assert not errores_js, f"errores de JavaScript: {errores_js[:3]}"


def _leer_el_sitio(servidor: str):
    from playwright.sync_api import sync_playwright

    fuera_de_casa: list[str] = []
    problemas: dict[str, list[str]] = {}
    with sync_playwright() as p:
        navegador = p.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium",
                                      args=["--no-sandbox"])
        pagina = navegador.new_page(viewport={"width": 1300, "height": 900})

        def solo_loopback(ruta):
            if ruta.request.url.startswith(servidor):
                ruta.continue_()
            else:  # nada sale de la máquina: se anota y se corta
                fuera_de_casa.append(ruta.request.url)
                ruta.abort()

        pagina.route("**/*", solo_loopback)
        errores_js: list[str] = []
        pagina.on("pageerror", lambda e: errores_js.append(str(e)))
        for ruta in LECCIONES:
            url = f"{servidor}/lessons/{ruta.stem}.html"
            respuesta = pagina.goto(url)
            mal = []
            if respuesta is None or respuesta.status != 200:
                mal.append(f"respondió {respuesta and respuesta.status}")
            figuras = pagina.evaluate("""() => [...document.querySelectorAll('article.bd-article img')]
                .filter(i => i.complete && i.naturalWidth > 50 && !i.src.endsWith('colab-badge.svg')).length""")
            if figuras < 1:
                mal.append("ninguna figura visible")
            if pagina.locator(".output.error, .output.traceback").count() or "Traceback (most recent call last)" in (
                    pagina.inner_text("article.bd-article")):
                mal.append("una salida de error")
            if "Salidas del modo rápido" not in pagina.inner_text("article.bd-article"):
                mal.append("no dice qué modo produjo sus salidas")
            if not pagina.locator("a[href*='colab.research.google.com/github/']").count():
                mal.append("sin enlace a Colab")
            interfaz = pagina.evaluate(_INTERFAZ_JS)
            ingles = sorted({t for t in interfaz for palabra in INTERFAZ_EN_INGLES
                             if re.search(rf"(?<![\w-]){re.escape(palabra.strip())}(?![\w-])", t)})
            if ingles:
                mal.append(f"interfaz en inglés: {ingles[:6]}")
            if mal:
                problemas[ruta.stem] = mal
            if ruta.stem.startswith("04"):  # fórmulas de AdamW (MathJax del propio sitio) y los dos widgets
                pagina.wait_for_selector("article.bd-article .MathJax", timeout=30_000)
                crudas = pagina.evaluate("() => document.querySelector('article.bd-article').innerText.includes('\\\\beta_1')")
                assert not crudas, "las fórmulas de la lección 04 quedaron como texto LaTeX"
                pagina.locator(".tutor-widget").first.scroll_into_view_if_needed()
                pagina.screenshot(path=str(_capturas() / "sitio_leccion04_widget.png"))
                widgets_estaticos = pagina.locator(".tutor-widget img.tutor-widget-imagen").count()
                assert widgets_estaticos >= 1, "el visualizador de warmup no mostró su gráfica estática"

        pagina.goto(f"{servidor}/search.html?q=warmup")
        pagina.wait_for_selector("#search-results li", timeout=30_000)
        resultados = pagina.locator("#search-results li a").evaluate_all("as => as.map(a => a.href)")
        pagina.screenshot(path=str(_capturas() / "sitio_busqueda_warmup.png"))
        navegador.close()
    return problemas, resultados, fuera_de_casa, errores_js


def _capturas() -> Path:
    carpeta = RAIZ / "tests" / "navegador" / "capturas"
    carpeta.mkdir(parents=True, exist_ok=True)
    return carpeta
