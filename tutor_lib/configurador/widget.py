"""El widget del configurador (ipywidgets): capa fina encima de las reglas.

Recoge los valores de los controles, llama a
:func:`~tutor_lib.configurador.revisar_configuracion` y pinta con
:mod:`tutor_lib.configurador.vista`. ipywidgets solo se importa al crear el
widget. Se usa en la sección 9 de lessons/04_warmup_y_regularizacion.
"""

from __future__ import annotations

from typing import Any

from tutor_lib import warmup as _warmup
from tutor_lib.configurador.argumentos import codigo_python
from tutor_lib.configurador.constantes import LOGGING_STEPS_POR_DEFECTO, MEMORIA_JUSTA, METODOS, MODELOS
from tutor_lib.configurador.formato import _gib
from tutor_lib.configurador.reglas import revisar_configuracion
from tutor_lib.configurador.tipos import Configuracion, Revision, _texto_memoria
from tutor_lib.configurador.validacion import _entero, _gpu, _opcion, _real, nombres_de_gpus
from tutor_lib.configurador.vista import hallazgos_html, marca_html, resumen_html, svg_schedule


_OPCIONES_EJEMPLOS = (100, 250, 500, 1000, 2000, 3668, 5000, 10_000, 25_000, 50_000, 100_000, 500_000)
_OPCIONES_LOTE = (1, 2, 4, 8, 16, 32, 64, 128, 256)
_OPCIONES_ACUMULACION = (1, 2, 4, 8, 16, 32, 64)
_ETIQUETAS_METODO = (
    ("Ajuste completo", "completo"),
    ("LoRA", "lora"),
    ("QLoRA (base en 4 bits)", "qlora"),
    ("SFT completo (trl)", "sft"),
)


def _opciones_con(valores: tuple, valor: Any) -> list:
    return sorted(set(valores) | {valor})


def widget_configurador(
    metodo: str = "completo",
    modelo: str = "distilbert",
    ejemplos: int = 3668,
    lr: float = 2e-5,
    lote: int = 16,
    acumulacion: int = 1,
    epocas: float = 3.0,
    warmup: float = 0.06,
    weight_decay: float = 0.01,
    precision: str = "auto",
    gpu: str = "T4",
    eval_strategy: str = "no",
    logging_steps: int = LOGGING_STEPS_POR_DEFECTO,
    checkpointing: str = "auto",
):
    """Widget del configurador: controles → :func:`revisar_configuracion` → hallazgos, cifras, memoria y gráfica.

    Devuelve un ``VBox`` con estos atributos (para el notebook y las pruebas):
    ``controles`` (dict nombre → widget; las claves son los nombres de
    :class:`Configuracion` más ``modelo``), ``salida_hallazgos`` (HTML con la
    lista de hallazgos), ``salida_resumen`` (HTML con las cifras),
    ``barra_memoria`` (``FloatProgress``: fracción de la GPU), ``texto_memoria``,
    ``grafica`` (HTML con el SVG del schedule de la tasa de aprendizaje, ver
    :func:`svg_schedule`),
    ``salida_codigo`` (el código de ``TrainingArguments`` para pegar),
    ``revision`` (la última :class:`Revision`) y ``actualizar()``. Los
    deslizadores solo actualizan al soltarlos y la gráfica solo se redibuja si
    cambian lr, pasos, warmup o schedule (objetivo: < 50 ms por actualización).
    Se usa en lessons/04_warmup_y_regularizacion.
    """
    import html

    import ipywidgets as widgets

    gpus = nombres_de_gpus()
    modelo = _opcion("modelo", modelo, MODELOS)
    if gpu not in (*gpus, "cpu"):
        gpu = _gpu(gpu)
    # 190 px: caben enteras «Ejemplos de entrenamiento», «Acumulación de gradientes» y «Gradient checkpointing»
    estilo = {"description_width": "190px"}
    ancho = widgets.Layout(width="460px")
    comun = dict(style=estilo, layout=ancho)
    deslizador = dict(continuous_update=False, **comun)
    controles = {
        "metodo": widgets.Dropdown(options=_ETIQUETAS_METODO, value=_opcion("metodo", metodo, METODOS),
                                   description="Método", **comun),
        "modelo": widgets.Dropdown(options=[(v[0], k) for k, v in MODELOS.items()], value=modelo,
                                   description="Modelo", **comun),
        "ejemplos": widgets.SelectionSlider(
            options=_opciones_con(_OPCIONES_EJEMPLOS, _entero("ejemplos", ejemplos, 1, 10**12)), value=int(ejemplos),
            description="Ejemplos de entrenamiento", **deslizador),
        "lr": widgets.SelectionSlider(
            options=_warmup.opciones_lr(_real("lr", lr, 0.0, 1.0, minimo_incluido=False)),
            value=float(lr), description="Tasa de aprendizaje", **deslizador),
        "lote": widgets.SelectionSlider(options=_opciones_con(_OPCIONES_LOTE, _entero("lote", lote, 1, 65536)),
                                        value=int(lote), description="Lote por dispositivo", **deslizador),
        "acumulacion": widgets.SelectionSlider(
            options=_opciones_con(_OPCIONES_ACUMULACION, _entero("acumulacion", acumulacion, 1, 65536)),
            value=int(acumulacion), description="Acumulación de gradientes", **deslizador),
        "epocas": widgets.FloatSlider(value=_real("epocas", epocas, 0.5, 30.0), min=0.5, max=30, step=0.5,
                                      description="Épocas", **deslizador),
        "warmup": widgets.FloatSlider(value=_real("warmup", warmup, 0.0, 0.5), min=0.0, max=0.5, step=0.01,
                                      description="Warmup (fracción)", **deslizador),
        "weight_decay": widgets.FloatSlider(value=_real("weight_decay", weight_decay, 0.0, 0.5), min=0.0, max=0.5,
                                            step=0.01, description="Weight decay", **deslizador),
        "precision": widgets.Dropdown(
            options=[("automática (según la GPU)", "auto"), ("fp32", "fp32"), ("fp16", "fp16"), ("bf16", "bf16")],
            value=precision, description="Precisión", **comun),
        "gpu": widgets.Dropdown(options=[("CPU (sin GPU)", "cpu")] + [(g, g) for g in gpus], value=gpu,
                                description="GPU", **comun),
        "eval_strategy": widgets.Dropdown(options=[("no evaluar", "no"), ("cada época", "epoch")],
                                          value=eval_strategy, description="Evaluación", **comun),
        "logging_steps": widgets.Dropdown(
            options=[("500 (por defecto)", 500), ("100", 100), ("50", 50), ("25", 25), ("10", 10), ("1", 1)],
            value=logging_steps, description="logging_steps", **comun),
        "checkpointing": widgets.Dropdown(
            options=[("automático", "auto"), ("sí", "si"), ("no", "no")], value=checkpointing,
            description="Gradient checkpointing", **comun),
    }
    salida_resumen = widgets.HTML()
    barra_memoria = widgets.FloatProgress(value=0.0, min=0.0, max=1.0, description="Memoria", style=estilo,
                                          layout=widgets.Layout(width="460px"))
    texto_memoria = widgets.HTML()
    salida_hallazgos = widgets.HTML()
    grafica = widgets.HTML()
    salida_codigo = widgets.HTML()
    codigo_plegable = widgets.Accordion(children=[salida_codigo], titles=("Código para pegar en tu notebook",))
    codigo_plegable.selected_index = None

    estado: dict[str, Any] = {"clave_grafica": None}

    columnas = list(controles.values())
    mitad = (len(columnas) + 1) // 2

    class PanelConfigurador(widgets.VBox):
        """Panel del configurador de hiperparámetros (ver :func:`widget_configurador`)."""

    panel = PanelConfigurador([
        widgets.HBox([widgets.VBox(columnas[:mitad]), widgets.VBox(columnas[mitad:])]),
        salida_resumen,
        widgets.HBox([barra_memoria, texto_memoria]),
        salida_hallazgos,
        grafica,
        codigo_plegable,
    ])
    panel.controles = controles
    panel.salida_resumen = salida_resumen
    panel.barra_memoria = barra_memoria
    panel.texto_memoria = texto_memoria
    panel.salida_hallazgos = salida_hallazgos
    panel.grafica = grafica
    panel.salida_codigo = salida_codigo
    panel.revision = None
    panel.veces_graficada = 0

    def configuracion() -> Configuracion:
        v = {k: w.value for k, w in controles.items()}
        _, parametros, tarea = MODELOS[v["modelo"]]
        eval_strategy_ = v["eval_strategy"]
        return Configuracion(
            metodo=v["metodo"], parametros=parametros, tarea=tarea, ejemplos=v["ejemplos"], lr=v["lr"],
            lote=v["lote"], acumulacion=v["acumulacion"], epocas=v["epocas"], warmup=v["warmup"],
            weight_decay=v["weight_decay"], precision=None if v["precision"] == "auto" else v["precision"],
            gpu=v["gpu"], eval_strategy=eval_strategy_,
            save_strategy="epoch" if eval_strategy_ == "epoch" else "steps",
            logging_steps=v["logging_steps"],
            checkpointing=None if v["checkpointing"] == "auto" else v["checkpointing"] == "si",
        )

    def dibujar(revision: Revision) -> None:
        c = revision.configuracion
        clave = (c.lr, revision.pasos_totales, revision.pasos_warmup, c.scheduler_efectivo)
        if clave == estado["clave_grafica"]:
            return
        total = revision.pasos_totales
        grafica.value = svg_schedule(c.lr, total, revision.pasos_warmup, c.scheduler_efectivo)
        estado["clave_grafica"] = clave
        panel.veces_graficada += 1

    def actualizar(_cambio=None) -> None:
        try:
            revision = revisar_configuracion(configuracion())
        except (ValueError, TypeError) as exc:
            salida_hallazgos.value = (
                f'<div class="tutor-hallazgos tutor-error">{marca_html("error")} <b>Revisa los valores:</b> '
                f"{html.escape(str(exc))}</div>"
            )
            return
        panel.revision = revision
        salida_resumen.value = resumen_html(revision)
        salida_hallazgos.value = hallazgos_html(revision.hallazgos)
        total = getattr(revision.memoria, "total_bytes", 0)
        if revision.fraccion_memoria is None:
            barra_memoria.value = 0.0
            barra_memoria.bar_style = ""
            texto_memoria.value = f"Memoria estimada: {_gib(total)} (sin GPU con la que comparar)"
        else:
            barra_memoria.value = min(revision.fraccion_memoria, 1.0)
            barra_memoria.bar_style = (
                "danger" if not revision.cabe else "warning" if revision.fraccion_memoria > MEMORIA_JUSTA else "success"
            )
            texto_memoria.value = html.escape(_texto_memoria(revision))
        salida_codigo.value = "<pre>" + html.escape(codigo_python(revision)) + "</pre>"
        dibujar(revision)

    panel.configuracion = configuracion
    panel.actualizar = actualizar
    for control in controles.values():
        control.observe(actualizar, names="value")
    actualizar()
    return panel
