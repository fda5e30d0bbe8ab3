"""Memoria de GPU de un fine-tuning: contabilidad por componente, medición exacta y catálogo de GPUs.

Un paquete, un módulo por idea: :mod:`.base` (constantes y validación), :mod:`.estructura` (la forma
del modelo), :mod:`.activaciones`, :mod:`.contabilidad` (:func:`estimar_memoria`), :mod:`.catalogo`,
:mod:`.medicion`, :mod:`.grafica`, :mod:`.particion` (varias GPUs: DDP, ZeRO, FSDP) y :mod:`.tareas` (qué
cabeza lleva el modelo: clasificación, lenguaje causal, con máscara o ninguna). Los nombres públicos se importan desde ``tutor_lib.vram``.

Tres partes, de la más pura a la más física:

1. **Contabilidad (pura)**: :func:`estimar_memoria` suma, en bytes enteros,
   ``pesos``, ``gradientes``, ``estados_optimizador``, ``copia_maestra_fp32``,
   ``constantes_cuantizacion`` (el *estado estático*, exacto si das un
   ``config``) y ``activaciones`` (una **estimación**, ver
   :func:`estimar_activaciones`). Métodos ``completo``, ``lora`` y ``qlora``;
   precisiones ``fp32``, ``mixta`` y ``bf16``; optimizadores ``adamw``,
   ``adamw_8bit``, ``sgd`` y ``sgd_momentum``.
2. **Medición (exacta)**: :func:`medir_estado` cuenta los bytes reales de
   parámetros, gradientes y estado del optimizador de un modelo de verdad;
   :func:`medir_activaciones` cuenta lo que autograd guarda durante un forward.
3. **Catálogo de GPUs**: :data:`GPUS`, :func:`cabe` y :func:`lote_maximo`.

Unidades: todo se cuenta en **bytes**. «GB» son 10⁹ bytes y «GiB» son 2³⁰
bytes (1 GiB ≈ 1.074 GB); los textos muestran siempre las dos.

Cuentas por parámetro entrenable con AdamW (ver :func:`bytes_por_parametro`):

* ``fp32``: 4 (pesos) + 4 (gradientes) + 8 (m y v) = **16 B**.
* ``mixta`` (AMP de PyTorch, la que usa el ``Trainer`` con ``fp16=True`` o
  ``bf16=True`` sobre un modelo cargado en fp32): 4 + 4 + 8 = **16 B**, más
  copias transitorias en 16 bits de los pesos de las capas lineales durante el
  paso (se suman a las activaciones). La contabilidad del artículo de ZeRO
  reparte los mismos 16 B de otra forma: 2 (pesos fp16) + 2 (gradientes fp16)
  + 4 (copia maestra fp32) + 8 (m y v); elígela con ``contabilidad="zero"``.
* ``bf16`` puro (transformers 5 carga el checkpoint en bf16 y lo entrena con
  ``bf16=True``): 2 + 2 + 2 + 2 = **8 B**, porque ``torch.optim.AdamW`` crea
  ``exp_avg`` y ``exp_avg_sq`` con el dtype del parámetro.
* AdamW guarda además un contador ``step`` (tensor fp32 de 4 B) **por tensor**
  de parámetros: se suma cuando se conoce la estructura (``config``/modelo).

Se usa en lessons/07_memoria_y_fine_tuning_completo, lessons/10_lora y
lessons/11_qlora.
"""

from __future__ import annotations

from tutor_lib.vram.base import (  # noqa: F401
    METODOS,
    PRECISIONES,
    OPTIMIZADORES,
    CONTABILIDADES,
    ATENCIONES,
    FAMILIAS,
    DISPOSITIVOS,
    COMPONENTES,
    ETIQUETAS,
    GB,
    GIB,
    MIB,
    PARAMETROS_MAXIMOS,
    BLOQUE_NF4,
    BLOQUE_DOBLE_CUANTIZACION,
    BYTES_TABLA_NF4,
    BYTES_TABLA_DINAMICA,
    BYTES_OFFSET,
    BLOQUE_ADAM_8BIT,
    MINIMO_8BIT,
    BYTES_TABLAS_8BIT,
    BYTES_PASO_ADAMW,
    CONTEXTO_CUDA_BYTES,
    FRACCION_FRAGMENTACION,
    formatear_bytes,
    _entero,
)
from tutor_lib.vram.estructura import (  # noqa: F401
    forma_estimada,
)
from tutor_lib.vram.activaciones import (  # noqa: F401
    EstimacionActivaciones,
    estimar_activaciones,
)
from tutor_lib.vram.contabilidad import (  # noqa: F401
    bytes_por_parametro,
    bytes_nf4,
    EstimacionMemoria,
    cabe,
    estimar_memoria,
    lote_maximo,
)
from tutor_lib.vram.catalogo import (  # noqa: F401
    GPU,
    GPUS,
    buscar_gpu,
    memoria_utilizable,
)
from tutor_lib.vram.medicion import (  # noqa: F401
    medir_estado,
    medir_activaciones,
)
from tutor_lib.vram.grafica import (  # noqa: F401
    tabla,
    PALETA,
    graficar_componentes,
)
from tutor_lib.vram.tareas import (  # noqa: F401
    TAREAS,
    describir_tarea,
    tarea_por_defecto,
)
from tutor_lib.vram.particion import (  # noqa: F401
    CONTABILIDAD_EN_PALABRAS,
    CONTABILIDAD_POR_ESTRATEGIA,
    ESTRATEGIAS,
    QUE_PARTICIONA,
    comunicacion_por_paso,
    contabilidad_de,
    particionar,
)

__all__ = [
    "BLOQUE_NF4", "COMPONENTES", "ESTRATEGIAS", "ETIQUETAS", "GB", "GIB", "GPU", "GPUS", "PALETA", "QUE_PARTICIONA",
    "EstimacionActivaciones", "EstimacionMemoria", "buscar_gpu", "bytes_nf4", "bytes_por_parametro", "cabe",
    "comunicacion_por_paso", "estimar_activaciones", "estimar_memoria", "forma_estimada", "formatear_bytes",
    "graficar_componentes", "lote_maximo", "medir_activaciones", "medir_estado", "memoria_utilizable",
    "particionar", "tabla", "TAREAS", "describir_tarea", "tarea_por_defecto", "CONTABILIDAD_EN_PALABRAS",
    "CONTABILIDAD_POR_ESTRATEGIA", "contabilidad_de",
]
