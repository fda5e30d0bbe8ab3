"""Construye el sitio del curso: ``make sitio`` o ``python -m sitio`` (issue 19).

Qué hace, en orden:

1. **Lecciones** (``lessons/NN_*.ipynb``): toma cada una ya ejecutada en modo rápido de
   :mod:`sitio.cache` (la deja ahí ``make test``) y ejecuta solo las que faltan o cambiaron; vuelve
   estáticos sus widgets (:mod:`sitio.widgets`) y le pone arriba un recuadro que dice qué modo produjo
   sus salidas, dónde y cuándo, con el enlace para abrirla en Colab.
2. **Enunciados** (``exercises/``, las versiones de estudiante que genera nbgrader): sin ejecutar;
   si alguno trae una solución o una prueba oculta, se detiene con un error.
3. **Una página por subcomando de ``tutor``**, hecha con su ayuda.
4. **Resultados del modo completo** (``course/resultados_completos/``), si hay: notebooks ejecutados en
   una GPU o la salida de ``python -m benchmarks gpu``, cada uno con dónde y cuándo corrió.
5. **Las páginas de referencia** (``course/*.md``: la guía del instructor, el glosario, los modos,
   el rendimiento...), que el README enlaza; sus enlaces a otros archivos del repositorio llevan a GitHub.
6. **Sphinx** con MyST-NB y sphinx-book-theme (el motor de Jupyter Book 1), interfaz en español,
   búsqueda sin servidor y MathJax servido por el propio sitio (nada se baja de una CDN).

Las fuentes se escriben solo si cambiaron y Sphinx guarda su estado entre corridas: una segunda
construcción relee solo lo nuevo.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import nbformat

from sitio import cache, widgets

RAIZ = cache.RAIZ
PLANTILLA = Path(__file__).resolve().parent / "plantilla"
CURSO = RAIZ / "course"
COMPLETOS = CURSO / "resultados_completos"
MARCAS_PROHIBIDAS = ("### BEGIN SOLUTION", "### END SOLUTION", "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS")


class ErrorSitio(Exception):
    """Algo impide construir el sitio; el mensaje dice qué y cómo seguir."""


@dataclass
class Informe:
    """Lo que hizo una construcción (lo imprime ``python -m sitio`` y lo leen las pruebas)."""

    salida: Path
    reutilizadas: list[str] = field(default_factory=list)
    ejecutadas: list[str] = field(default_factory=list)
    enunciados: int = 0
    subcomandos: int = 0
    completos: int = 0
    guias: int = 0
    widgets: int = 0
    segundos_ejecutar: float = 0.0
    segundos_sphinx: float = 0.0
    paginas: int = 0


def lecciones() -> list[Path]:
    return sorted((RAIZ / "lessons").glob("[0-9][0-9]_*.ipynb"))


def enunciados() -> list[Path]:
    return sorted((RAIZ / "exercises").glob("ej*/ej*.ipynb"))


def guias() -> list[Path]:
    """Las páginas de referencia de ``course/`` que publica el sitio: todas sus ``*.md``.

    Son las que enlaza el README (cómo empezar, los dos modos, el comando ``tutor``, el rendimiento, la guía
    del instructor, el glosario...). En el sitio quedan en ``course/NOMBRE``, la misma ruta que en el
    repositorio, así que los enlaces entre ellas, y a las lecciones y los enunciados, no cambian.
    """
    return sorted(CURSO.glob("*.md"))


@lru_cache(maxsize=1)
def url_repositorio() -> str:
    """La URL del repositorio (``[project.urls] Repositorio`` de ``pyproject.toml``)."""
    datos = tomllib.loads((RAIZ / "pyproject.toml").read_text(encoding="utf-8"))
    return datos["project"]["urls"]["Repositorio"].rstrip("/")


def enlace_colab(relativa: str) -> str:
    """El enlace de Colab que abre ``relativa`` (ruta dentro del repositorio) desde GitHub."""
    repo = url_repositorio().removeprefix("https://github.com/")
    return f"https://colab.research.google.com/github/{repo}/blob/main/{relativa}"


# --------------------------------------------------------------------------
# Ejecución (solo lo que no está en la caché)
# --------------------------------------------------------------------------


def ejecutar_rapido(ruta: Path, timeout_celda: int = 900):
    """Ejecuta la lección ``ruta`` en modo rápido, como ``make test``, y la guarda en la caché."""
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    nb = nbformat.read(ruta, as_version=4)
    anterior = dict(os.environ)
    os.environ.update(cache.ENTORNO_RAPIDO)
    inicio = time.perf_counter()
    try:
        cache.cliente_rapido(nb, ruta, timeout_celda).execute()
    except (CellExecutionError, CellTimeoutError, DeadKernelError) as exc:
        primera = str(exc).strip().splitlines()[-1:] or [type(exc).__name__]
        raise ErrorSitio(
            f"La lección {ruta.name} falló al ejecutarse en modo rápido ({primera[0][:300]}). "
            f"Córrela con «make test PYTEST_ARGS='-k {ruta.stem[:2]}'» para ver la celda."
        ) from None
    finally:
        os.environ.clear()
        os.environ.update(anterior)
    cache.guardar(ruta, nb, time.perf_counter() - inicio)
    return cache.buscar(ruta)


# --------------------------------------------------------------------------
# Preparar cada página
# --------------------------------------------------------------------------


def _celda_markdown(texto: str):
    celda = nbformat.v4.new_markdown_cell(texto)
    celda.id = "tutor-sitio-recuadro"  # fijo: la misma página no cambia entre construcciones (Sphinx no la relee)
    return celda


def _versiones_cortas(versiones: dict) -> str:
    clave = ("python", "torch", "transformers", "trl", "peft", "datasets")
    return ", ".join(f"{k} {versiones[k]}" for k in clave if versiones.get(k, "-") != "-")


def recuadro_rapido(ruta: Path, meta: dict, completos: list[tuple[str, str]]) -> str:
    """El recuadro que abre cada lección: modo, dónde, cuándo y con qué versiones corrió."""
    segundos = meta.get("segundos")
    tardo = f", en {segundos:.1f} s" if isinstance(segundos, (int, float)) else ""
    texto = (
        "```{admonition} Salidas del modo rápido\n:class: tip\n"
        f"Las salidas de esta página las produjo el **modo rápido** (datos del curso, modelos pequeños, CPU y "
        f"sin red) el {meta.get('ejecutado', '¿?')} en {meta.get('maquina', '¿?')}{tardo}, con "
        f"{_versiones_cortas(meta.get('versiones', {}))}. En el **modo completo** (GPU y modelos del Hub) las "
        f"cifras cambian: [abre la lección en Colab]({enlace_colab('lessons/' + ruta.name)}) para correrlo."
    )
    if completos:
        enlaces = "; ".join(f"[{titulo}](../{destino})" for titulo, destino in completos)
        texto += f"\n\nEsta lección también corrió en modo completo: {enlaces}."
    return texto + "\n```"


INSIGNIA_COLAB = "https://colab.research.google.com/assets/colab-badge.svg"


def _insignia_local(nb, nivel: int) -> None:
    """La insignia «Abrir en Colab» sale del sitio, no de colab.research.google.com (el sitio se lee sin red)."""
    local = "../" * nivel + "_static/colab-badge.svg"
    for celda in nb.cells:
        if celda.cell_type == "markdown" and INSIGNIA_COLAB in celda.source:
            celda.source = celda.source.replace(INSIGNIA_COLAB, local)


def _insertar_tras_titulo(nb, texto: str) -> None:
    nb.cells.insert(1 if nb.cells and nb.cells[0].cell_type == "markdown" else 0, _celda_markdown(texto))


def preparar_leccion(ruta: Path, nb, completos: list[tuple[str, str]]) -> tuple[object, int]:
    nb = nbformat.from_dict(nb)
    cambiados = widgets.volver_estaticos(nb)
    _insignia_local(nb, 1)
    _insertar_tras_titulo(nb, recuadro_rapido(ruta, nb.metadata.get("tutor_sitio", {}), completos))
    return nb, cambiados


def revisar_enunciado(ruta: Path, nb) -> None:
    """Falla si el enunciado trae algo que solo debe ver quien califica."""
    for celda in nb.cells:
        for marca in MARCAS_PROHIBIDAS:
            if marca in celda.source:
                raise ErrorSitio(
                    f"{ruta.relative_to(RAIZ)} contiene «{marca}»: exercises/ debe salir de nbgrader "
                    "(«make ejercicios»), nunca copiarse de solutions/. El sitio no se construyó."
                )


def preparar_enunciado(ruta: Path):
    nb = nbformat.read(ruta, as_version=4)
    revisar_enunciado(ruta, nb)
    _insignia_local(nb, 2)
    for celda in nb.cells:
        if celda.cell_type == "code":
            celda.outputs, celda.execution_count = [], None
    relativa = ruta.relative_to(RAIZ).as_posix()
    _insertar_tras_titulo(nb, (
        "```{admonition} Enunciado del ejercicio\n:class: note\n"
        "Esta es la versión que recibe quien estudia: sin soluciones ni pruebas ocultas, y sin ejecutar. "
        f"Para resolverlo, [ábrelo en Colab]({enlace_colab(relativa)}) o en JupyterLab (`make curso`) y "
        f"comprueba tu avance con `tutor corregir {relativa}`.\n```"
    ))
    return nb


def paginas_tutor() -> dict[str, str]:
    """``{subcomando: Markdown}`` con la ayuda de cada subcomando de ``tutor``, más ``index``."""
    os.environ.setdefault("COLUMNS", "100")
    from tutor_lib.cli import construir_parser

    parser = construir_parser()
    grupo = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    resumenes = {a.dest: a.help for a in grupo._choices_actions}
    paginas = {}
    for nombre, sub in grupo.choices.items():
        paginas[nombre] = (
            f"# `tutor {nombre}`\n\n{resumenes.get(nombre, '')}\n\n"
            "Generada con la ayuda del propio comando (`tutor " + nombre + " --ayuda`):\n\n"
            f"```text\n{sub.format_help().rstrip()}\n```\n"
        )
    lista = "\n".join(f"- [`tutor {n}`]({n}.md): {resumenes.get(n, '')}" for n in paginas)
    paginas["index"] = (
        "# El comando `tutor`\n\n"
        "Herramientas del curso para la terminal (también en la terminal de JupyterLab). Cada página sale de la "
        "ayuda del subcomando, así que dice lo mismo que `tutor SUBCOMANDO --ayuda`.\n\n"
        f"```text\n{parser.format_help().rstrip()}\n```\n\n{lista}\n\n"
        "```{toctree}\n:hidden:\n\n" + "\n".join(n for n in paginas if n != "index") + "\n```\n"
    )
    return paginas


# --------------------------------------------------------------------------
# Páginas de referencia de course/
# --------------------------------------------------------------------------

#: Un enlace de Markdown en línea: ``[texto](destino)``.
_ENLACE = re.compile(r"(\]\()([^()\s]+)(\))")
#: Lo que no se toca al reescribir enlaces: bloques de código y código en línea.
_CODIGO = re.compile(r"(```.*?```|`[^`\n]*`)", re.S)


def enlace_en_el_sitio(destino: str, origen: Path, publicadas: set[Path]) -> str:
    """Adónde lleva en el sitio el enlace ``destino`` de la página ``origen`` (un archivo del repositorio).

    Un enlace a algo que el sitio publica en la misma ruta relativa (otra página de ``course/``, una lección,
    un enunciado) queda igual; uno a otro archivo o carpeta del repositorio (el README, el código) pasa a su
    dirección en GitHub, con su ancla. Las direcciones completas y las anclas de la misma página no cambian.
    """
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", destino) or destino.startswith(("#", "/")):
        return destino
    ruta, almohadilla, ancla = destino.partition("#")
    objetivo = (origen.parent / ruta).resolve()
    if objetivo in publicadas or not objetivo.is_relative_to(RAIZ):
        return destino
    tipo = "tree" if objetivo.is_dir() else "blob"
    relativa = objetivo.relative_to(RAIZ).as_posix()
    return f"{url_repositorio()}/{tipo}/main/{relativa}" + (almohadilla + ancla if ancla else "")


def preparar_guia(ruta: Path, publicadas: set[Path]) -> str:
    """El Markdown de una página de ``course/`` con sus enlaces como funcionan en el sitio."""
    partes = _CODIGO.split(ruta.read_text(encoding="utf-8"))
    for i in range(0, len(partes), 2):  # las impares son código: se dejan tal cual
        partes[i] = _ENLACE.sub(lambda m: m.group(1) + enlace_en_el_sitio(m.group(2), ruta, publicadas) + m.group(3),
                                partes[i])
    return "".join(partes)


def titulo_de_guia(texto: str, respaldo: str) -> str:
    return next((linea[2:].strip() for linea in texto.splitlines() if linea.startswith("# ")), respaldo)


# --------------------------------------------------------------------------
# Resultados del modo completo
# --------------------------------------------------------------------------


@dataclass
class ResultadoCompleto:
    origen: Path
    destino: str  # ruta dentro de la fuente, sin extensión para los .md
    titulo: str
    leccion: str | None
    donde: str
    cuando: str


def resultados_completos(carpeta: Path = COMPLETOS) -> list[ResultadoCompleto]:
    """Cada resultado de ``carpeta``: un ``.ipynb`` o un ``.txt`` con un ``.json`` al lado.

    El ``.json`` dice ``donde`` (la máquina: «Colab, T4»), ``cuando`` (fecha) y, para un notebook,
    ``leccion`` (p. ej. ``"04_warmup_y_regularizacion"``). Sin esos datos no se publica: un resultado
    sin dónde ni cuándo no se puede comparar con nada.
    """
    if not carpeta.is_dir():
        return []
    encontrados = []
    for origen in sorted(p for p in carpeta.iterdir() if p.suffix in (".ipynb", ".txt")):
        ficha = origen.with_suffix(".json")
        if not ficha.is_file():
            raise ErrorSitio(f"{origen.relative_to(RAIZ) if origen.is_relative_to(RAIZ) else origen}: falta "
                             f"{ficha.name} con «donde» y «cuando» (dónde y cuándo corrió).")
        try:
            datos = json.loads(ficha.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ErrorSitio(f"{ficha.name} no es JSON válido: {exc.msg} (línea {exc.lineno}).") from None
        faltan = [k for k in ("donde", "cuando") if not str(datos.get(k, "")).strip()]
        if faltan:
            raise ErrorSitio(f"{ficha.name}: faltan {', '.join(faltan)} (dónde y cuándo corrió).")
        leccion = datos.get("leccion")
        if origen.suffix == ".ipynb" and leccion not in {p.stem for p in lecciones()}:
            raise ErrorSitio(f"{ficha.name}: «leccion» debe ser el nombre de una lección (p. ej. "
                             f"«04_warmup_y_regularizacion»), no {leccion!r}.")
        nombre = re.sub(r"[^A-Za-z0-9_.-]", "_", origen.stem)
        titulo = datos.get("titulo") or (f"lección {leccion[:2]}" if leccion else origen.stem)
        encontrados.append(ResultadoCompleto(
            origen, f"completo/{nombre}", f"{titulo} ({datos['donde']}, {datos['cuando']})", leccion,
            str(datos["donde"]), str(datos["cuando"]),
        ))
    return encontrados


def _pagina_completa(r: ResultadoCompleto):
    aviso = (
        "```{admonition} Salidas del modo completo\n:class: important\n"
        f"Estas salidas no las produjo el sitio: corrieron en **{r.donde}** el **{r.cuando}**, en modo completo, "
        "y alguien las aportó al curso. Compáralas con las del modo rápido"
        + (f" en [la lección](../lessons/{r.leccion}.ipynb)" if r.leccion else "") + ".\n```"
    )
    if r.origen.suffix == ".ipynb":
        nb = nbformat.read(r.origen, as_version=4)
        widgets.volver_estaticos(nb)
        _insertar_tras_titulo(nb, aviso)
        return ".ipynb", nbformat.writes(nb)
    texto = r.origen.read_text(encoding="utf-8")
    return ".md", f"# {r.titulo}\n\n{aviso}\n\n```text\n{texto.rstrip()}\n```\n"


# --------------------------------------------------------------------------
# Construcción
# --------------------------------------------------------------------------


def _escribir_si_cambia(ruta: Path, contenido: str | bytes, vistos: set[Path]) -> None:
    vistos.add(ruta)
    datos = contenido.encode("utf-8") if isinstance(contenido, str) else contenido
    if ruta.is_file() and ruta.read_bytes() == datos:
        return
    ruta.parent.mkdir(parents=True, exist_ok=True)
    ruta.write_bytes(datos)


def _indice(lecs: list[tuple[str, str]], ejercicios: list[tuple[str, str]], completos: list[ResultadoCompleto],
            paginas: list[tuple[str, str]] = ()) -> str:
    """La portada: lecciones, ejercicios, resultados del modo completo y ``paginas`` (``(destino, título)``)."""
    filas = "\n".join(f"| [{titulo}](lessons/{stem}.ipynb) |" for stem, titulo in lecs)
    lista_ejercicios = "\n".join(f"- [{titulo}]({ruta}.ipynb)" for ruta, titulo in ejercicios)
    if completos:
        lista = "\n".join(f"- [{r.titulo}]({r.destino}{'.ipynb' if r.origen.suffix == '.ipynb' else '.md'})"
                          for r in completos)
        seccion = ("Estas salidas corrieron en una GPU, fuera de este sitio; cada una dice dónde y cuándo:\n\n"
                   + lista)
    else:
        seccion = (
            "Todavía no hay. Si corres una lección en modo completo (por ejemplo en Colab) o "
            "`python -m benchmarks gpu` en una GPU, deja el notebook o la salida en `course/resultados_completos/` "
            "con un `.json` al lado que diga `donde`, `cuando` y `leccion`, y el sitio lo mostrará junto a la lección."
        )
    guias_md, arbol_guias = "", ""
    if paginas:
        guias_md = (
            "## Guías y referencia\n\nCómo empezar, los dos modos, el comando `tutor`, el rendimiento medido, la guía "
            "del instructor y el glosario: las páginas que enlaza el README del repositorio.\n\n"
            + "\n".join(f"- [{titulo}]({destino}.md)" for destino, titulo in paginas) + "\n\n"
        )
        arbol_guias = ("\n```{toctree}\n:caption: Guías\n:hidden:\n\n" + "\n".join(d for d, _ in paginas)
                       + "\n```\n")
    return (
        "# Curso de fine-tuning de transformers en español\n\n"
        "Del bucle de PyTorch escrito a mano al `Trainer` de Hugging Face, LoRA, QLoRA, SFT y DPO con `trl`, y el "
        "entrenamiento en varios dispositivos. Cada lección de este sitio **ya está ejecutada** en el modo rápido "
        "del curso (CPU, datos incluidos, sin red): ves cada tabla, cada gráfica y cada cifra sin instalar nada. Para "
        "correrla tú, usa el botón de Colab de cada página o instala el curso (`make curso`).\n\n"
        "## Lecciones\n\n| Lección |\n|---|\n" + filas + "\n\n"
        "## Ejercicios\n\nLos enunciados, tal como los recibe quien estudia (se califican con nbgrader o con "
        "`tutor corregir`).\n\n" + lista_ejercicios + "\n\n## Resultados del modo completo\n\n" + seccion + "\n\n"
        + guias_md +
        "```{toctree}\n:caption: Lecciones\n:hidden:\n\n" + "\n".join(f"lessons/{s}" for s, _ in lecs) + "\n```\n\n"
        "```{toctree}\n:caption: Ejercicios\n:hidden:\n\n" + "\n".join(r for r, _ in ejercicios) + "\n```\n\n"
        "```{toctree}\n:caption: Herramientas\n:hidden:\n\ntutor/index\n```\n"
        + arbol_guias
        + ("\n```{toctree}\n:caption: Modo completo\n:hidden:\n\n" + "\n".join(r.destino for r in completos)
           + "\n```\n" if completos else "")
    )


def _titulo(nb, respaldo: str) -> str:
    for celda in nb.cells:
        if celda.cell_type == "markdown":
            for linea in celda.source.splitlines():
                if linea.startswith("# "):
                    return linea[2:].strip()
    return respaldo


def _mathjax(destino: Path, vistos: set[Path]) -> None:
    """Copia MathJax 2 del paquete jupyter-server-mathjax (unos 11 MB) al sitio."""
    try:
        import jupyter_server_mathjax
    except ImportError:
        raise ErrorSitio("Falta el paquete jupyter-server-mathjax: instala el curso con «pip install -e '.[sitio]'».") from None
    origen = Path(jupyter_server_mathjax.__file__).parent / "static"
    for ruta in origen.rglob("*"):
        relativa = ruta.relative_to(origen)
        if ruta.is_file():
            _escribir_si_cambia(destino / relativa, ruta.read_bytes(), vistos)


#: Lo que los temas escriben en inglés sin pasar por su traducción (atributos y textos de la interfaz).
INTERFAZ_EN_ESPANOL = {
    "Link to this heading": "Enlace a este encabezado",
    "Search...": "Buscar...",
    "Toggle primary sidebar": "Mostrar u ocultar el índice del curso",
    "Toggle secondary sidebar": "Mostrar u ocultar el contenido de la página",
    "Launch on Colab": "Abrir en Colab",
    "Launch interactive content": "Abrir para ejecutar",
    "Colab logo": "Logo de Colab",
    "Main": "Principal",
    "Page": "Página",
}
_ATRIBUTO = re.compile(r'((?:title|aria-label|placeholder|alt|data-bs-title)=")([^"]*)(")')


def traducir_interfaz(pagina: str) -> str:
    """Pasa al español lo que los temas dejan en inglés en una página HTML (no toca el contenido)."""
    pagina = _ATRIBUTO.sub(lambda m: m.group(1) + INTERFAZ_EN_ESPANOL.get(m.group(2), m.group(2)) + m.group(3), pagina)
    return pagina.replace("&#169; Copyright ", "&#169; ").replace("© Copyright ", "© ")


def construir(salida: Path | None = None, ejecutar: bool = True, completos_en: Path = COMPLETOS,
              mostrar=print) -> Informe:
    """Construye el sitio en ``salida/html`` (por omisión ``salidas/sitio``) y devuelve un :class:`Informe`."""
    salida = Path(salida or RAIZ / "salidas" / "sitio")
    fuente, html = salida / "fuente", salida / "html"
    informe = Informe(salida=html)
    vistos: set[Path] = set()
    completos = resultados_completos(completos_en)

    # 1. lecciones
    lecs = []
    for ruta in lecciones():
        nb = cache.buscar(ruta)
        if nb is None:
            if not ejecutar:
                raise ErrorSitio(f"{ruta.name} no está ejecutada con su versión actual y se pidió no ejecutar.")
            mostrar(f"Ejecutando {ruta.name} en modo rápido (no estaba en la caché)...")
            inicio = time.perf_counter()
            nb = ejecutar_rapido(ruta)
            informe.segundos_ejecutar += time.perf_counter() - inicio
            informe.ejecutadas.append(ruta.stem)
        else:
            informe.reutilizadas.append(ruta.stem)
        propios = [(r.titulo, r.destino + ".ipynb") for r in completos if r.leccion == ruta.stem]
        nb, cambiados = preparar_leccion(ruta, nb, propios)
        informe.widgets += cambiados
        _escribir_si_cambia(fuente / "lessons" / ruta.name, nbformat.writes(nb), vistos)
        lecs.append((ruta.stem, _titulo(nb, ruta.stem)))

    # 2. enunciados
    ejercicios = []
    for ruta in enunciados():
        relativa = ruta.relative_to(RAIZ)
        enunciado = preparar_enunciado(ruta)
        _escribir_si_cambia(fuente / relativa, nbformat.writes(enunciado), vistos)
        ejercicios.append((relativa.with_suffix("").as_posix(), _titulo(enunciado, ruta.stem)))
    informe.enunciados = len(ejercicios)

    # 3. tutor
    paginas = paginas_tutor()
    for nombre, texto in paginas.items():
        _escribir_si_cambia(fuente / "tutor" / f"{nombre}.md", texto, vistos)
    informe.subcomandos = len(paginas) - 1

    # 4. modo completo
    for r in completos:
        extension, contenido = _pagina_completa(r)
        _escribir_si_cambia(fuente / (r.destino + extension), contenido, vistos)
    informe.completos = len(completos)

    # 5. páginas de referencia de course/
    publicadas = {p.resolve() for p in lecciones() + enunciados() + guias()}
    paginas_guia = []
    for ruta in guias():
        destino = ruta.relative_to(RAIZ).with_suffix("").as_posix()
        texto = preparar_guia(ruta, publicadas)
        _escribir_si_cambia(fuente / (destino + ".md"), texto, vistos)
        paginas_guia.append((destino, titulo_de_guia(texto, ruta.stem)))
    informe.guias = len(paginas_guia)

    # 6. índice, configuración, MathJax y Sphinx
    _escribir_si_cambia(fuente / "index.md", _indice(lecs, ejercicios, completos, paginas_guia), vistos)
    for ruta in PLANTILLA.rglob("*"):
        if ruta.is_file() and "__pycache__" not in ruta.parts:
            _escribir_si_cambia(fuente / ruta.relative_to(PLANTILLA), ruta.read_bytes(), vistos)
    _mathjax(fuente / "_static" / "mathjax", vistos)
    for ruta in sorted(fuente.rglob("*"), reverse=True):  # lo que ya no corresponde (una lección borrada)
        if ruta.is_file() and ruta not in vistos:
            ruta.unlink()

    inicio = time.perf_counter()
    orden = [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-d", str(salida / "doctrees"),
             str(fuente), str(html)]
    hecho = subprocess.run(orden, capture_output=True, text=True, env={**os.environ, "TUTOR_SITIO_REPO": url_repositorio()})
    if hecho.returncode != 0:
        raise ErrorSitio("Sphinx no pudo construir el sitio:\n" + (hecho.stderr or hecho.stdout)[-3000:])
    for pagina in html.rglob("*.html"):
        texto = pagina.read_text(encoding="utf-8")
        traducido = traducir_interfaz(texto)
        if traducido != texto:
            pagina.write_text(traducido, encoding="utf-8")
    informe.segundos_sphinx = time.perf_counter() - inicio
    informe.paginas = sum(1 for _ in html.rglob("*.html")) - sum(1 for _ in html.glob("_*/**/*.html"))
    return informe


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sitio", description="Construye el sitio del curso (issue 19).")
    parser.add_argument("--salida", type=Path, help="carpeta del sitio (por omisión salidas/sitio)")
    parser.add_argument("--sin-ejecutar", action="store_true",
                        help="falla en lugar de ejecutar una lección que no está en la caché")
    args = parser.parse_args(argv)
    inicio = time.perf_counter()
    try:
        informe = construir(args.salida, ejecutar=not args.sin_ejecutar)
    except ErrorSitio as exc:
        print(f"make sitio: error: {exc}", file=sys.stderr)
        return 2
    total = time.perf_counter() - inicio
    print(
        f"Sitio listo en {informe.salida}/index.html ({informe.paginas} páginas, {total:.1f} s).\n"
        f"Lecciones reutilizadas de la caché: {len(informe.reutilizadas)}; ejecutadas ahora: "
        f"{len(informe.ejecutadas)} ({informe.segundos_ejecutar:.1f} s); Sphinx: {informe.segundos_sphinx:.1f} s.\n"
        f"Enunciados: {informe.enunciados}; páginas de tutor: {informe.subcomandos}; resultados del modo "
        f"completo: {informe.completos}; páginas de course/: {informe.guias}; "
        f"widgets vueltos estáticos: {informe.widgets}.\n"
        f"Para verlo: python -m http.server -d {informe.salida} 8000 (y abre http://127.0.0.1:8000)."
    )
    return 0
