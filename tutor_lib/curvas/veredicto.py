"""Los veredictos del diagnóstico de curvas: remedios por categoría y cómo se arma un :class:`Diagnostico`.

Puro, sin reglas: lo usan :mod:`tutor_lib.curvas.reglas` y ``tutor diagnosticar`` (lessons/09_curvas_de_entrenamiento).
"""

from __future__ import annotations

import math
import re

from tutor_lib.curvas.formato import _fmt
from tutor_lib.curvas.lectura import Diagnostico
from tutor_lib.formato import entero


# --------------------------------------------------------------------------- remedios

REMEDIOS = {
    "sano": [
        "Guarda el modelo del mejor paso de validación y evalúalo en el conjunto de prueba.",
        "Si la validación aún bajaba al final, puedes entrenar algunos pasos más.",
        "Conserva esta configuración como referencia antes de probar cambios.",
    ],
    "sobreajuste": [
        "Quédate con el checkpoint del mejor paso: load_best_model_at_end=True, "
        "metric_for_best_model='eval_loss' y save_strategy igual a eval_strategy.",
        "Para a tiempo con EarlyStoppingCallback(early_stopping_patience=2 o 3).",
        "Entrena menos épocas o con una tasa de aprendizaje menor.",
        "Regulariza: más weight_decay (0.01–0.1), dropout, o entrena menos parámetros (LoRA).",
        "Consigue más datos o aumenta los que tienes, y revisa si hay etiquetas con ruido.",
    ],
    "subajuste": [
        "Sube la tasa de aprendizaje (prueba ×3 y ×10) o revisa que el scheduler no la deje en casi cero.",
        "Entrena más pasos o épocas: la pérdida todavía no se aplanó.",
        "Usa un modelo con más capacidad o descongela más capas.",
        "Baja el weight_decay si es grande, y comprueba que las etiquetas correspondan a las entradas.",
    ],
    "inestable": [
        "Baja la tasa de aprendizaje (÷3 a ÷10).",
        "Usa un warmup más largo (warmup_steps=0.05–0.1 del total) para no llegar de golpe al pico de lr.",
        "Activa el recorte de gradiente: max_grad_norm=1.0.",
        "Usa un lote más grande o gradient_accumulation_steps para reducir el ruido del gradiente.",
        "En un bucle manual, comprueba que llamas a optimizer.zero_grad() en cada paso.",
    ],
    "divergencia": [
        "Baja mucho la tasa de aprendizaje (÷10) y añade warmup.",
        "Activa el recorte de gradiente: max_grad_norm=1.0.",
        "En un bucle manual, comprueba que llamas a optimizer.zero_grad() en cada paso: "
        "si falta, los gradientes se acumulan y la pérdida acaba subiendo.",
        "Busca NaN o valores enormes en los datos de entrada y en las etiquetas.",
        "Con fp16, prueba bf16 (si tu GPU lo soporta) o fp32.",
    ],
    "no_concluyente": [
        "Mira la gráfica: las señales que se contradicen están en la explicación, con sus números.",
        "Si es una clasificación o un modelo de lenguaje, guarda el config.json junto a trainer_state.json "
        "(o pasa --clases): con el nivel del azar exacto las reglas no tienen que estimarlo.",
        "Compara con una corrida de referencia que sepas sana (misma tarea, otra semilla o una tasa menor).",
        "Evalúa el modelo en un conjunto de prueba antes de darlo por bueno.",
    ],
    "indeterminado": [
        "Registra más puntos: baja logging_steps (por defecto es 500, demasiado para un conjunto pequeño).",
        "Activa la evaluación: eval_strategy='steps' con eval_steps, o 'epoch'.",
        "Entrena más pasos antes de sacar conclusiones.",
    ],
}


def _veces(cociente: float) -> str:
    """Un cociente como lo lee una persona: «2.5», «38», «211 684» (miles como en course/GLOSARIO.md), «4.34e+09»."""
    if not math.isfinite(cociente):
        return "infinitas"
    if cociente < 10:
        return f"{cociente:.1f}"
    if cociente >= 1e6:
        return _fmt(cociente)
    return entero(round(cociente))


def _contraer(texto: str) -> str:
    """«de el paso» → «del paso», «a el paso» → «al paso»."""
    return re.sub(r"\b([Dd]e|[Aa]) el\b", lambda m: m.group(1) + "l", texto)


def _resultado(categoria, explicacion, evidencia, mejor_paso, remedios_extra=()):
    remedios = list(remedios_extra) + list(REMEDIOS[categoria])
    return Diagnostico(categoria, _contraer(explicacion), remedios, mejor_paso, evidencia)
