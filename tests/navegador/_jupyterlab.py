"""Acciones de una persona en JupyterLab 4 + ipywidgets 8, escritas con la API síncrona de playwright.

Los controles se buscan por su ``description`` en español (la etiqueta que ve
quien estudia), no por su posición: si alguien reordena el widget las pruebas
siguen valiendo.
"""

from __future__ import annotations

import re
import time

#: Segundos de espera para que un notebook entero corra en una CPU de 2 núcleos compartida.
ESPERA_EJECUCION_MS = 300_000


def abrir_cuaderno(pagina, servidor, ruta: str):
    """Abre ``ruta`` (relativa a la carpeta del servidor) y devuelve el panel del notebook."""
    pagina.goto(servidor.url_de(ruta))
    panel = pagina.locator(".jp-NotebookPanel:visible")
    panel.locator(".jp-Cell").first.wait_for(state="visible", timeout=120_000)
    return panel


def _empezo(panel) -> bool:
    return any(re.search(r"\[(\*|\d+)\]", t) for t in panel.locator(".jp-CodeCell .jp-InputPrompt").all_inner_texts())


def ejecutar_todo(pagina, panel) -> None:
    """Menú Run → «Ejecutar todas las celdas», con clics como una persona (reintenta si JupyterLab aún no estaba listo).

    El paquete de idioma español traduce el elemento del menú pero no el nombre del menú: se aceptan las dos
    formas, por si quien corre las pruebas eligió el inglés.
    """
    # el kernel debe estar conectado: la barra de estado dice «Python 3 (ipykernel) | Idle»
    pagina.locator(".jp-StatusBar-Widget", has_text=re.compile(r"\|\s*Idle")).first.wait_for(timeout=120_000)
    for _ in range(3):
        panel.locator(".jp-Cell .jp-InputPrompt").first.click()
        pagina.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^(Run|Ejecutar)$")).click()
        item = pagina.locator(".lm-Menu-item:not(.lm-mod-disabled)", has=pagina.locator(
            ".lm-Menu-itemLabel", has_text=re.compile(r"^(Ejecutar todas las celdas|Run All Cells)$")))
        item.click()
        limite = time.monotonic() + 20
        while time.monotonic() < limite:
            if _empezo(panel):
                return
            time.sleep(0.5)
        pagina.keyboard.press("Escape")
    raise AssertionError("JupyterLab no empezó a ejecutar el notebook tras Run → Run All Cells")


def esperar_ejecucion(pagina, panel, timeout_ms: int = ESPERA_EJECUCION_MS) -> None:
    """Espera a que el «Run All» termine: todas las celdas con ``[n]:`` o una celda con error.

    Luego comprueba que no hubo errores (si una celda falla, JupyterLab deja sin
    ejecutar las siguientes y el mensaje muestra el traceback).
    """
    panel.locator(".jp-CodeCell .jp-InputPrompt").first.wait_for()
    pagina.wait_for_function(
        """(panel) => {
            const prompts = [...panel.querySelectorAll('.jp-CodeCell .jp-InputPrompt')];
            const indicador = panel.querySelector('.jp-Notebook-ExecutionIndicator');
            const libre = !indicador || indicador.getAttribute('data-status') === 'idle';
            const corriendo = prompts.some(p => p.textContent.includes('*'));
            const todas = prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent));
            const error = [...panel.querySelectorAll('.jp-OutputArea-output')]
                .some(o => o.textContent.includes('Traceback'));
            return libre && !corriendo && (todas || error);
        }""",
        arg=panel.element_handle(),
        timeout=timeout_ms,
        polling=500,
    )
    errores = errores_en_salidas(panel)
    assert not errores, "Una celda falló en JupyterLab:\n" + "\n---\n".join(errores)


def errores_en_salidas(panel) -> list[str]:
    """Texto de las salidas con traceback del notebook, si hay."""
    return [t[-1500:] for t in panel.locator(".jp-OutputArea-output").all_inner_texts() if "Traceback" in t]


def control(raiz, descripcion: str):
    """La fila de un control de ipywidgets cuya etiqueta es exactamente ``descripcion``."""
    etiqueta = raiz.page.locator("label.widget-label", has_text=re.compile("^" + re.escape(descripcion) + "$"))
    fila = raiz.locator(".widget-inline-hbox").filter(has=etiqueta)
    fila.first.wait_for(state="visible")
    return fila.first


def lectura(raiz, descripcion: str) -> str:
    """Lo que muestra la lectura (readout) de un deslizador."""
    return control(raiz, descripcion).locator(".widget-readout").inner_text().strip()


def mover_con_teclado(raiz, descripcion: str, tecla: str, veces: int = 1) -> None:
    """Enfoca el tirador del deslizador y pulsa ``tecla`` (ArrowRight/ArrowLeft) ``veces`` veces."""
    tirador = control(raiz, descripcion).locator(".noUi-handle")
    tirador.focus()
    for _ in range(veces):
        tirador.press(tecla)


def escribir_lectura(raiz, descripcion: str, texto: str) -> None:
    """Escribe un valor en la lectura editable del deslizador y pulsa Enter (como una persona)."""
    caja = control(raiz, descripcion).locator(".widget-readout")
    caja.click()
    caja.press("Control+A")
    caja.type(texto)
    caja.press("Enter")


def elegir(raiz, descripcion: str, etiqueta: str) -> None:
    """Elige la opción visible ``etiqueta`` en el desplegable ``descripcion``."""
    control(raiz, descripcion).locator("select").select_option(label=etiqueta)


def esperar_igual(leer, esperado, descripcion: str, timeout_s: float = 60.0):
    """Relee ``leer()`` hasta que valga ``esperado``; si no llega, falla diciendo qué se vio."""
    import time

    limite = time.monotonic() + timeout_s
    while True:
        visto = leer()
        if visto == esperado:
            return visto
        if time.monotonic() > limite:
            raise AssertionError(f"{descripcion}: se esperaba {esperado!r} y el navegador muestra {visto!r}")
        time.sleep(0.25)


def hallazgos(raiz) -> list[tuple[str, str]]:
    """(nivel, parámetro) de cada hallazgo visible del configurador, en orden."""
    return [tuple(x) for x in raiz.locator("li.tutor-hallazgo").evaluate_all(
        "els => els.map(e => [e.dataset.nivel, e.dataset.parametro])")]


def cifras(raiz) -> dict[str, str]:
    """Cifras derivadas del configurador (atributo data-cifra → texto mostrado)."""
    return dict(raiz.locator("[data-cifra]").evaluate_all(
        "els => els.map(e => [e.dataset.cifra, e.textContent.trim()])"))


def entorno_del_kernel(panel) -> dict:
    """El JSON que imprime la celda ``CELDA_ENTORNO`` de los notebooks mínimos."""
    import json

    texto = panel.locator(".jp-OutputArea-output", has_text="ENTORNO_KERNEL=").first.inner_text()
    return json.loads(texto.split("ENTORNO_KERNEL=", 1)[1].strip())
