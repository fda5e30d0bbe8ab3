"""Cuánto cómputo pide un entrenamiento y cuánto tardaría en una GPU: una **estimación** por FLOPs.

Es la mitad «tiempo» del presupuesto de cada lección en una T4 (issue 13); la mitad «memoria»
es ``tutor_lib.vram``. Las cuentas son las de Kaplan et al. (2020), *Scaling Laws for Neural
Language Models*, tabla 1:

* la pasada hacia adelante cuesta, por token, ``2·N + 2·capas·secuencia·d`` FLOPs, con ``N`` los
  pesos de las capas lineales (los embeddings son una búsqueda en una tabla: no multiplican) y el
  segundo término la atención (``QKᵀ`` y la suma ponderada de los valores);
* la pasada hacia atrás de un ajuste completo cuesta el doble que la de adelante: un producto para el
  gradiente de las activaciones y otro para el de los pesos. Con LoRA o QLoRA los pesos grandes están
  congelados, así que solo queda el de las activaciones (una pasada) más el de los adaptadores;
* con *gradient checkpointing* se repite una pasada hacia adelante durante la de atrás.

El tiempo divide esos FLOPs por el rendimiento pico de la GPU (su hoja de datos) por una
**utilización** supuesta: ningún entrenamiento real llega al pico, y con modelos pequeños y lotes
cortos se queda lejos. Por eso el resultado es una estimación de orden de magnitud, no una medida
(los segundos por paso de verdad los mide ``python -m benchmarks gpu`` en una máquina con CUDA).
La tabla de cada lección, con lo que hace su modo completo, está en ``tutor_lib.presupuesto_lecciones``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tutor_lib.vram import METODOS, _entero  # los mismos métodos y la misma validación que la mitad «memoria»

#: Rendimiento pico de la T4 en precisión mixta (fp16 con Tensor Cores, acumulación en fp32), según la
#: hoja de datos de NVIDIA («NVIDIA T4 Tensor Core GPU», 2019): 65 TFLOPS.
T4_TFLOPS_MIXTA = 65.0
#: Y en fp32, sin Tensor Cores (la misma hoja de datos): 8.1 TFLOPS. Es la precisión del bucle a mano de la
#: lección 1 y de las pasadas sin autocast.
T4_TFLOPS_FP32 = 8.1
#: Fracción del pico que suponemos que aprovecha un ajuste del curso. Es una suposición del curso, no una
#: medida: los entrenamientos grandes bien afinados reportan entre 30 y 50 % («model FLOPs utilization»,
#: Chowdhery et al., 2022, *PaLM*, sección 4.1 y apéndice B), y un BERT-base o un modelo de 0.5 B con lotes
#: de 16 secuencias cortas queda por debajo. Elegimos 25 % para no prometer tiempos demasiado cortos.
UTILIZACION_SUPUESTA = 0.25

@dataclass(frozen=True)
class FormaDeComputo:
    """Lo que hace falta saber de un modelo para contar sus FLOPs por token."""

    pesos_lineales: int  # elementos de todas las matrices de nn.Linear (lm_head incluida, aunque esté atada)
    capas: int
    ancho: int  # d_model


def forma_de_computo(modelo: Any) -> FormaDeComputo:
    """La forma de un modelo de transformers (construido, por ejemplo, en el dispositivo «meta»).

    ``modelo`` sale de ``recursos.construir_en_meta``: no hace falta tener los pesos.
    """
    from torch import nn

    config = getattr(modelo, "config", None)
    capas = getattr(config, "num_hidden_layers", None) or getattr(config, "n_layers", None)
    ancho = getattr(config, "hidden_size", None) or getattr(config, "dim", None)
    if not capas or not ancho:
        raise ValueError(
            f"No sé contar los FLOPs de {type(modelo).__name__}: su config no dice cuántas capas "
            "(num_hidden_layers) ni qué ancho (hidden_size) tiene."
        )
    lineales = sum(m.weight.numel() for m in modelo.modules() if isinstance(m, nn.Linear))
    return FormaDeComputo(pesos_lineales=int(lineales), capas=int(capas), ancho=int(ancho))


def flops_adelante_por_token(forma: FormaDeComputo, secuencia: int) -> float:
    """FLOPs de la pasada hacia adelante por token: ``2·N + 2·capas·secuencia·d`` (Kaplan et al., 2020)."""
    secuencia = _entero("secuencia", secuencia)
    return 2.0 * forma.pesos_lineales + 2.0 * forma.capas * secuencia * forma.ancho


def flops_entrenamiento_por_token(forma: FormaDeComputo, secuencia: int, metodo: str = "completo",
                                  entrenables_lineales: int = 0, checkpointing: bool = False) -> float:
    """FLOPs de un token en un paso de entrenamiento (adelante, atrás y, si hay checkpointing, el recómputo).

    ``entrenables_lineales``: pesos de los adaptadores (LoRA o QLoRA), que sí reciben gradiente.
    """
    if metodo not in METODOS:
        raise ValueError(f"Método desconocido {metodo!r}; usa uno de {', '.join(METODOS)}.")
    adelante = flops_adelante_por_token(forma, secuencia)
    if metodo == "completo":
        atras = 2.0 * adelante
    else:
        atras = adelante + 2.0 * entrenables_lineales
    return adelante + atras + (adelante if checkpointing else 0.0)


def segundos_estimados(flops: float, tflops_pico: float = T4_TFLOPS_MIXTA,
                       utilizacion: float = UTILIZACION_SUPUESTA) -> float:
    """Segundos que tardarían ``flops`` a ``tflops_pico`` × ``utilizacion`` (una estimación, no una medida)."""
    if not 0 < utilizacion <= 1:
        raise ValueError(f"La utilización es una fracción del pico entre 0 y 1; recibí {utilizacion!r}.")
    if tflops_pico <= 0 or flops < 0:
        raise ValueError("Los TFLOPS pico deben ser positivos y los FLOPs, no negativos.")
    return flops / (tflops_pico * 1e12 * utilizacion)
