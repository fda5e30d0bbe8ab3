"""Configurador de hiperparámetros: reglas (puras) → hallazgos + ``TrainingArguments``/``SFTConfig``.

Le das lo que piensas poner en ``TrainingArguments`` (método, tamaño del
modelo y de los datos, tasa de aprendizaje, lote, épocas, warmup, precisión,
GPU, estrategias de evaluación y guardado...) y :func:`revisar_configuracion`
te devuelve una :class:`Revision`: una lista de :class:`Hallazgo` (``ok``,
``aviso`` o ``error``), cada uno con el parámetro de ``TrainingArguments`` al
que se refiere, qué pasa y qué hacer, y la fuente en la que se apoya (artículo,
guía o código de transformers), más las cifras derivadas: pasos por época,
pasos totales, pasos de warmup, lote efectivo y memoria estimada.

* :func:`revisar_configuracion`: las reglas (puras; una revisión tarda menos de un milisegundo).
* :func:`argumentos_de_entrenamiento`: el diccionario de argumentos con los
  nombres actuales de transformers 5 (``eval_strategy``, ``warmup_steps``
  float, ``use_cpu``...).
* :func:`construir_training_arguments`, :func:`construir_sft_config`: los
  objetos reales de transformers y trl.
* :func:`codigo_python`: el mismo resultado como código para pegar en un notebook.
* :func:`widget_configurador`: el widget de la lección (capa fina encima).

Los pasos se cuentan con :mod:`tutor_lib.warmup` (igual que el ``Trainer``) y
la memoria con :mod:`tutor_lib.vram`. Se usa en lessons/04_warmup_y_regularizacion.

Los rangos de las reglas vienen de estas fuentes (ver :data:`FUENTES`):

==========================  =================  ===========================================
método / tarea              lr sin aviso       fuente
==========================  =================  ===========================================
completo / clasificación    1e-5 … 1e-4        BERT (2e-5…5e-5), RoBERTa (1e-5…3e-5)
completo / causal, ``sft``  5e-6 … 5e-5        Stanford Alpaca (2e-5)
``lora``                    5e-5 … 5e-4        LoRA (4e-4…5e-4 en RoBERTa, 2e-4 en GPT-2)
``qlora``                   1e-5 … 5e-4        QLoRA (2e-4 hasta 13B; 1e-4 en 33B/65B)
==========================  =================  ===========================================

Una tasa más de 10 veces por encima del máximo es un ``error``; fuera del
rango, un ``aviso``.

El código está repartido en un módulo por tema (todo se importa desde aquí,
como cuando era un solo archivo):

* :mod:`~tutor_lib.configurador.constantes`: opciones válidas, modelos de referencia, fuentes y rangos;
* :mod:`~tutor_lib.configurador.validacion`: validación de las entradas y nombres de GPU;
* :mod:`~tutor_lib.configurador.formato`: números en los mensajes;
* :mod:`~tutor_lib.configurador.memoria`: la estimación de :mod:`tutor_lib.vram` para una configuración;
* :mod:`~tutor_lib.configurador.tipos`: :class:`Hallazgo`, :class:`Configuracion` y :class:`Revision`;
* :mod:`~tutor_lib.configurador.reglas` y :mod:`~tutor_lib.configurador.reglas_gpu`: las reglas;
* :mod:`~tutor_lib.configurador.argumentos`: ``TrainingArguments``/``SFTConfig`` y el código para pegar;
* :mod:`~tutor_lib.configurador.vista`: HTML y SVG;
* :mod:`~tutor_lib.configurador.widget`: el widget de ipywidgets.
"""

from __future__ import annotations

from tutor_lib.configurador import (
    argumentos,
    formato,
    memoria,
    reglas,
    reglas_gpu,
    tipos,
    validacion,
    vista,
    widget,
)
from tutor_lib.configurador.argumentos import (
    argumentos_de_entrenamiento,
    clase_de_argumentos,
    codigo_python,
    construir_sft_config,
    construir_training_arguments,
)
from tutor_lib.configurador.constantes import (
    ALPHA_POR_DEFECTO,
    ESTRATEGIAS_EVAL,
    ESTRATEGIAS_GUARDADO,
    FUENTES,
    LOGGING_STEPS_POR_DEFECTO,
    LOTE_EFECTIVO_MAXIMO,
    LOTE_EFECTIVO_MINIMO,
    MEMORIA_JUSTA,
    METODOS,
    MODELOS,
    MUCHOS_EJEMPLOS_LLM,
    NIVELES,
    POCOS_EJEMPLOS,
    PRECISIONES,
    RANGOS_LR,
    REGISTROS_MAXIMOS,
    REGISTROS_MINIMOS,
    R_POR_DEFECTO,
    RangoLR,
    SAVE_STEPS_POR_DEFECTO,
    SECUENCIA_POR_DEFECTO,
    TAREAS,
    UMBRAL_CAUSAL,
    WARMUP_MAXIMO,
    WARMUP_MINIMO,
)
from tutor_lib.configurador.reglas import logging_steps_sugerido, revisar_configuracion
from tutor_lib.configurador.tipos import Configuracion, Hallazgo, Revision
from tutor_lib.configurador.validacion import nombres_de_gpus
from tutor_lib.configurador.vista import (
    COLORES,
    ICONOS,
    PUNTOS_GRAFICA,
    graficar_revision,
    hallazgos_html,
    marca_html,
    resumen_html,
    svg_schedule,
)
from tutor_lib.configurador.widget import widget_configurador

__all__ = [
    "ALPHA_POR_DEFECTO",
    "COLORES",
    "Configuracion",
    "ESTRATEGIAS_EVAL",
    "ESTRATEGIAS_GUARDADO",
    "FUENTES",
    "Hallazgo",
    "ICONOS",
    "LOGGING_STEPS_POR_DEFECTO",
    "LOTE_EFECTIVO_MAXIMO",
    "LOTE_EFECTIVO_MINIMO",
    "MEMORIA_JUSTA",
    "METODOS",
    "MODELOS",
    "MUCHOS_EJEMPLOS_LLM",
    "NIVELES",
    "POCOS_EJEMPLOS",
    "PRECISIONES",
    "PUNTOS_GRAFICA",
    "RANGOS_LR",
    "REGISTROS_MAXIMOS",
    "REGISTROS_MINIMOS",
    "R_POR_DEFECTO",
    "RangoLR",
    "Revision",
    "SAVE_STEPS_POR_DEFECTO",
    "SECUENCIA_POR_DEFECTO",
    "TAREAS",
    "UMBRAL_CAUSAL",
    "WARMUP_MAXIMO",
    "WARMUP_MINIMO",
    "argumentos_de_entrenamiento",
    "clase_de_argumentos",
    "codigo_python",
    "construir_sft_config",
    "construir_training_arguments",
    "graficar_revision",
    "hallazgos_html",
    "logging_steps_sugerido",
    "nombres_de_gpus",
    "resumen_html",
    "revisar_configuracion",
    "svg_schedule",
    "widget_configurador",
]

# Nombres internos del antiguo tutor_lib/configurador.py: se siguen pudiendo usar
# como configurador._texto_memoria (así lo hacen las pruebas del navegador). Son los
# mismos objetos que usan los submódulos; para sustituir uno en una prueba, parchéalo
# en el submódulo que lo llama (p. ej. tutor_lib.configurador.reglas._estimar_memoria).
_warmup = tipos._warmup
_booleano = validacion._booleano
_buscar_gpu = validacion._buscar_gpu
_catalogo = validacion._catalogo
_entero = validacion._entero
_gpu = validacion._gpu
_info_gpu = validacion._info_gpu
_nombre_gpu = validacion._nombre_gpu
_opcion = validacion._opcion
_parametros = validacion._parametros
_parametros_de_config = validacion._parametros_de_config
_pasos_de_intervalo = validacion._pasos_de_intervalo
_pasos_o_fraccion = validacion._pasos_o_fraccion
_real = validacion._real
_valor_enum = validacion._valor_enum
_warmup_valido = validacion._warmup_valido
_fmt = formato._fmt
_pct = formato._pct
_plural = formato._plural
_a_json = tipos._a_json
_argumentos_vram = memoria._argumentos_vram
_estimar_memoria = memoria._estimar_memoria
_gib = formato._gib
_memoria_a_dict = tipos._memoria_a_dict
_memoria_gpu_bytes = tipos._memoria_gpu_bytes
_optimizador = memoria._optimizador
_precision_vram = memoria._precision_vram
_texto_memoria = tipos._texto_memoria
_como_configuracion = tipos._como_configuracion
_lote_maximo = reglas_gpu._lote_maximo
_regla_memoria = reglas_gpu._regla_memoria
_regla_precision = reglas_gpu._regla_precision
_sugerencias_memoria = reglas_gpu._sugerencias_memoria
_evaluaciones = reglas._evaluaciones
_limite_epocas = reglas._limite_epocas
_regla_early_stopping = reglas._regla_early_stopping
_regla_epocas = reglas._regla_epocas
_regla_evaluacion = reglas._regla_evaluacion
_regla_logging = reglas._regla_logging
_regla_lora = reglas._regla_lora
_regla_lote = reglas._regla_lote
_regla_lr = reglas._regla_lr
_regla_max_grad_norm = reglas._regla_max_grad_norm
_regla_mejor_modelo = reglas._regla_mejor_modelo
_regla_warmup = reglas._regla_warmup
_regla_weight_decay = reglas._regla_weight_decay
_CACHE_CHECKPOINTING = argumentos._CACHE_CHECKPOINTING
_argumentos_sin_sft = argumentos._argumentos_sin_sft
_comentario = argumentos._comentario
_construir = argumentos._construir
_leer_nombre_checkpointing = argumentos._leer_nombre_checkpointing
_nombre_checkpointing = argumentos._nombre_checkpointing
_nombre_checkpointing_cacheado = argumentos._nombre_checkpointing_cacheado
_precision_segura = argumentos._precision_segura
_ticks = vista._ticks
_ETIQUETAS_METODO = widget._ETIQUETAS_METODO
_OPCIONES_ACUMULACION = widget._OPCIONES_ACUMULACION
_OPCIONES_EJEMPLOS = widget._OPCIONES_EJEMPLOS
_OPCIONES_LOTE = widget._OPCIONES_LOTE
_opciones_con = widget._opciones_con
