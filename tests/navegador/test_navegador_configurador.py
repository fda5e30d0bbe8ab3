"""El configurador de hiperparámetros en JupyterLab real: desplegables y deslizadores.

Lo que muestra el navegador (hallazgos con ``data-nivel``/``data-parametro``,
cifras con ``data-cifra``, barra de memoria, SVG del schedule) se compara con
:func:`tutor_lib.configurador.revisar_configuracion` con las mismas entradas.
"""

from __future__ import annotations

import pytest

from _jupyterlab import (abrir_cuaderno, cifras, control, elegir, ejecutar_todo, esperar_ejecucion,
                         esperar_igual, hallazgos, mover_con_teclado)
from tutor_lib import configurador

pytestmark = pytest.mark.navegador

#: Lo que pone widget_configurador() por defecto, traducido a Configuracion (como hace el widget).
POR_DEFECTO = dict(
    metodo="completo", parametros=configurador.MODELOS["distilbert"][1], tarea="clasificacion", ejemplos=3668,
    lr=2e-5, lote=16, acumulacion=1, epocas=3.0, warmup=0.06, weight_decay=0.01, precision=None, gpu="T4",
    eval_strategy="no", save_strategy="steps", logging_steps=500, checkpointing=None,
)


def revisar(**cambios) -> configurador.Revision:
    return configurador.revisar_configuracion(configurador.Configuracion(**{**POR_DEFECTO, **cambios}))


def cifras_de(revision) -> dict[str, str]:
    return {"lote_efectivo": str(revision.lote_efectivo), "pasos_por_epoca": str(revision.pasos_por_epoca),
            "pasos_totales": str(revision.pasos_totales), "pasos_warmup": str(revision.pasos_warmup),
            "precision": str(revision.precision)}


def niveles(revision) -> list[tuple[str, str]]:
    return [(h.nivel, h.parametro) for h in revision.hallazgos]


@pytest.fixture
def widget(pagina, servidor_jupyter):
    panel = abrir_cuaderno(pagina, servidor_jupyter, "configurador_minimo.ipynb")
    ejecutar_todo(pagina, panel)
    esperar_ejecucion(pagina, panel)
    inicial = revisar()
    esperar_igual(lambda: hallazgos(panel), niveles(inicial), "hallazgos iniciales")
    assert cifras(panel) == cifras_de(inicial)
    return panel


def test_configurador_bf16_en_t4_da_error(widget):
    elegir(widget, "Precisión", "bf16")
    esperada = revisar(precision="bf16")
    assert ("error", "bf16") in niveles(esperada)
    esperar_igual(lambda: hallazgos(widget), niveles(esperada), "hallazgos con bf16 en una T4")
    error = widget.locator("li.tutor-hallazgo[data-nivel='error'][data-parametro='bf16']")
    assert error.is_visible() and "T4" in error.inner_text()

    # Épocas con el teclado (3.0 → 3.5): cambian los pasos y el error de bf16 sigue ahí.
    mover_con_teclado(widget, "Épocas", "ArrowRight")
    esperada = revisar(precision="bf16", epocas=3.5)
    esperar_igual(lambda: cifras(widget), cifras_de(esperada), "cifras tras subir las épocas")
    esperar_igual(lambda: hallazgos(widget), niveles(esperada), "hallazgos tras subir las épocas")
    assert widget.locator(".tutor-resumen").inner_text().count("[ERROR] 1") == 1
    error.scroll_into_view_if_needed()  # para la captura final


def test_configurador_memoria_y_pasos(widget):
    # ninguna etiqueta cortada con «…»: el texto entero cabe en su caja
    cortadas = widget.locator(".widget-label").evaluate_all(
        "etiquetas => etiquetas.filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)")
    assert cortadas == [], f"etiquetas cortadas: {cortadas}"
    assert widget.locator(".widget-label", has_text="Acumulación de gradientes").count() == 1
    mover_con_teclado(widget, "Lote por dispositivo", "ArrowRight")  # 16 → 32
    mover_con_teclado(widget, "Acumulación de gradientes", "ArrowRight", 2)  # 1 → 4
    elegir(widget, "Modelo", "Llama-3-8B (8 B)")
    esperada = revisar(parametros=configurador.MODELOS["llama-3-8b"][1], tarea="causal", lote=32, acumulacion=4)
    assert esperada.lote_efectivo == 128 and not esperada.cabe
    esperar_igual(lambda: cifras(widget), cifras_de(esperada), "cifras con lote 32 × acumulación 4 en Llama-3-8B")
    # las cifras no dependen del modelo: hay que esperar también a que lleguen los hallazgos de memoria
    esperar_igual(lambda: hallazgos(widget), niveles(esperada), "hallazgos con Llama-3-8B")
    assert widget.locator("li.tutor-hallazgo[data-nivel='error'][data-parametro='memoria']").is_visible()

    # barra de memoria llena y en rojo, con el texto que calcula el configurador
    barra = control(widget, "Memoria").locator(".progress-bar")
    esperar_igual(lambda: "progress-bar-danger" in barra.get_attribute("class"), True, "barra de memoria en rojo")
    esperar_igual(lambda: barra.evaluate("e => e.style.width"), "100%", "barra de memoria llena")
    esperar_igual(lambda: widget.locator(".widget-html-content", has_text="Memoria estimada").inner_text().strip(),
                  configurador._texto_memoria(esperada), "texto de memoria")

    # la gráfica SVG se redibujó con los pasos nuevos
    svg = widget.locator("svg.tutor-schedule")
    esperar_igual(lambda: svg.get_attribute("data-pasos"), str(esperada.pasos_totales), "pasos de la gráfica")
    esperar_igual(lambda: svg.get_attribute("data-warmup"), str(esperada.pasos_warmup), "warmup de la gráfica")
