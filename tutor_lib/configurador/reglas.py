"""Las reglas del configurador (puras): :func:`revisar_configuracion` y un hallazgo por parámetro.

Cada regla recibe una :class:`~tutor_lib.configurador.Configuracion` ya
validada y devuelve hallazgos con su fuente (los rangos están en
:mod:`tutor_lib.configurador.constantes`; las reglas de precisión y memoria,
en :mod:`tutor_lib.configurador.reglas_gpu`). Sin torch: una revisión tarda
menos de un milisegundo. Se usa en lessons/04_warmup_y_regularizacion y en
``tutor configurar``.
"""

from __future__ import annotations

import math
from typing import Any

from tutor_lib import warmup as _warmup
from tutor_lib.configurador.lote import acumulacion_para
from tutor_lib.configurador.constantes import (
    FUENTES,
    LOGGING_STEPS_POR_DEFECTO,
    LOTE_EFECTIVO_MAXIMO,
    LOTE_EFECTIVO_MINIMO,
    MUCHOS_EJEMPLOS_LLM,
    POCOS_EJEMPLOS,
    RANGOS_LR,
    REGISTROS_MAXIMOS,
    REGISTROS_MINIMOS,
    SAVE_STEPS_POR_DEFECTO,
    WARMUP_MAXIMO,
    WARMUP_MINIMO,
    RangoLR,
)
from tutor_lib.configurador.formato import _fmt, _pct, _plural
from tutor_lib.configurador.memoria import _estimar_memoria
from tutor_lib.configurador.reglas_gpu import _regla_memoria, _regla_precision
from tutor_lib.configurador.tipos import Configuracion, Hallazgo, Revision, _como_configuracion
from tutor_lib.configurador.validacion import _entero, _pasos_de_intervalo


def _regla_lr(c: Configuracion, rango: RangoLR) -> list[Hallazgo]:
    lr = c.lr
    descripcion = {
        "completo": "ajuste completo",
        "sft": "SFT completo",
        "lora": "LoRA",
        "qlora": "QLoRA",
    }[c.metodo] + (" de un modelo causal" if c.tarea_efectiva == "causal" else " de un clasificador")
    hallazgos = []
    if lr > 10 * rango.maximo:
        hallazgos.append(Hallazgo(
            "error", "learning_rate",
            f"lr={_fmt(lr)} es más de 10 veces el máximo habitual para {descripcion} ({_fmt(rango.maximo)}): "
            "el entrenamiento diverge o el modelo olvida lo que aprendió en el preentrenamiento (olvido "
            f"catastrófico). Empieza con {_fmt(rango.tipica)}.",
            rango.fuente,
        ))
    elif lr > rango.maximo:
        hallazgos.append(Hallazgo(
            "aviso", "learning_rate",
            f"lr={_fmt(lr)} está por encima del rango habitual para {descripcion} "
            f"({_fmt(rango.minimo)} a {_fmt(rango.maximo)}): la pérdida puede oscilar o dispararse. "
            f"Prueba {_fmt(rango.tipica)} y sube solo si aprende demasiado despacio.",
            rango.fuente,
        ))
    elif lr < rango.minimo:
        hallazgos.append(Hallazgo(
            "aviso", "learning_rate",
            f"lr={_fmt(lr)} está por debajo del rango habitual para {descripcion} "
            f"({_fmt(rango.minimo)} a {_fmt(rango.maximo)}): aprenderá muy despacio y puede parecer que "
            f"no aprende nada en las épocas que tienes. Prueba {_fmt(rango.tipica)}.",
            rango.fuente,
        ))
    else:
        hallazgos.append(Hallazgo(
            "ok", "learning_rate",
            f"lr={_fmt(lr)} está dentro del rango habitual para {descripcion} "
            f"({_fmt(rango.minimo)} a {_fmt(rango.maximo)}).",
            rango.fuente,
        ))
    if c.metodo == "qlora" and c.parametros >= 30e9 and lr > 1e-4 and hallazgos[0].nivel == "ok":
        hallazgos[0] = Hallazgo(
            "aviso", "learning_rate",
            f"Con un modelo de {c.parametros / 1e9:.0f} B parámetros, QLoRA usó lr=1e-4 (2e-4 solo hasta 13B): "
            f"lr={_fmt(lr)} es alto para este tamaño. Baja a 1e-4.",
            FUENTES["qlora"],
        )
    return hallazgos


def _limite_epocas(c: Configuracion) -> tuple[float, str, str]:
    """(máximo de épocas sin aviso, explicación, fuente) según tarea, método y tamaño de los datos."""
    if c.tarea_efectiva == "causal":
        if c.ejemplos >= MUCHOS_EJEMPLOS_LLM:
            return 3, f"con {MUCHOS_EJEMPLOS_LLM} ejemplos o más, un LLM suele necesitar 1 a 3 épocas", FUENTES["alpaca"]
        if c.ejemplos < POCOS_EJEMPLOS:
            return 10, f"con menos de {POCOS_EJEMPLOS} ejemplos pueden hacer falta más épocas, hasta unas 10", FUENTES["qlora"]
        return 5, "con unos miles de ejemplos, un LLM suele necesitar 2 a 5 épocas", FUENTES["qlora"]
    if c.usa_lora:
        limite = 100 if c.ejemplos < POCOS_EJEMPLOS else 80
        return limite, "LoRA necesita más épocas que el ajuste completo (decenas en GLUE)", FUENTES["lora"]
    if c.ejemplos < POCOS_EJEMPLOS:
        return 10, f"con menos de {POCOS_EJEMPLOS} ejemplos hasta unas 10 épocas es razonable", FUENTES["bert"]
    return 5, "para afinar un clasificador tipo BERT bastan 2 a 4 épocas", FUENTES["bert"]


def _regla_epocas(c: Configuracion, epocas: float) -> Hallazgo:
    limite, motivo, fuente = _limite_epocas(c)
    texto_epocas = (f"{epocas:g} {'época' if epocas == 1 else 'épocas'}" if c.max_pasos <= 0
                    else f"max_steps={c.max_pasos} (≈ {epocas:.2g} {'época' if epocas == 1 else 'épocas'})")
    if epocas > limite:
        return Hallazgo(
            "aviso", "num_train_epochs",
            f"{texto_epocas} con {c.ejemplos} ejemplos es mucho: {motivo}. Más épocas = riesgo de "
            "sobreajuste (el modelo memoriza: la pérdida de entrenamiento baja y la de validación sube). "
            f"Baja a {limite:g} o menos, evalúa cada época y usa EarlyStoppingCallback.",
            fuente,
        )
    if c.tarea_efectiva == "clasificacion" and not c.usa_lora and epocas < 2 and c.ejemplos < 50_000:
        return Hallazgo(
            "aviso", "num_train_epochs",
            f"{texto_epocas} con {c.ejemplos} ejemplos puede quedarse corto: BERT recomienda 2 a 4 épocas. "
            "Sube a 3 y vigila la pérdida de validación.",
            FUENTES["bert"],
        )
    return Hallazgo("ok", "num_train_epochs", f"{texto_epocas} con {c.ejemplos} ejemplos es razonable: {motivo}.", fuente)


def _regla_warmup(c: Configuracion, total: int, pasos_warmup: int) -> Hallazgo:
    fuente = FUENTES["warmup"]
    if c.scheduler_efectivo == "constant" and pasos_warmup > 0:
        return Hallazgo(
            "aviso", "warmup_steps",
            f"lr_scheduler_type='constant' ignora warmup_steps: los {pasos_warmup} pasos de warmup no se "
            "aplican. Usa lr_scheduler_type='constant_with_warmup' si quieres warmup con tasa constante.",
            FUENTES["scheduler"],
        )
    if c.scheduler_efectivo in _warmup.TIPOS_SEGUN_METRICA:
        return Hallazgo(
            "ok", "warmup_steps",
            f"Con lr_scheduler_type='{c.scheduler_efectivo}' la tasa depende de la métrica de evaluación: "
            "no se puede revisar el warmup de antemano.",
            FUENTES["scheduler"],
        )
    if pasos_warmup >= total:
        return Hallazgo(
            "error", "warmup_steps",
            f"{pasos_warmup} pasos de warmup con solo {total} pasos totales: la tasa de aprendizaje nunca llega "
            f"a lr={_fmt(c.lr)} y todo el entrenamiento va en la rampa. Usa una fracción: warmup_steps=0.06 "
            f"({math.ceil(0.06 * total)} pasos).",
            fuente,
        )
    fraccion = pasos_warmup / total
    # Con una fracción pedida (warmup_steps=0.1) se juzga lo pedido: el redondeo hacia arriba del Trainer
    # puede dar 10.1 % y eso no es «demasiado warmup».
    pedida = c.warmup if isinstance(c.warmup, float) and 0 < c.warmup < 1 else fraccion
    if pasos_warmup == 0:
        if c.ejemplos < POCOS_EJEMPLOS:
            return Hallazgo(
                "ok", "warmup_steps",
                f"Sin warmup: con menos de {POCOS_EJEMPLOS} ejemplos suele dar igual. Si la pérdida salta al "
                "principio, pon warmup_steps=0.06.",
                fuente,
            )
        return Hallazgo(
            "aviso", "warmup_steps",
            f"Sin warmup, los primeros pasos usan ya lr={_fmt(c.lr)} con los estados de Adam aún vacíos y "
            "pueden desestabilizar el modelo. Pon warmup_steps=0.06 (en transformers 5 un float en [0, 1) es "
            f"una fracción: {math.ceil(0.06 * total)} de tus {total} pasos).",
            fuente,
        )
    if pedida < WARMUP_MINIMO:
        return Hallazgo(
            "aviso", "warmup_steps",
            f"{pasos_warmup} pasos de warmup son el {_pct(fraccion, 1)} de {total}: casi no hay rampa. Lo habitual es "
            f"del 3 % al 10 %: warmup_steps=0.06 ({math.ceil(0.06 * total)} pasos).",
            fuente,
        )
    if pedida > WARMUP_MAXIMO:
        return Hallazgo(
            "aviso", "warmup_steps",
            f"{pasos_warmup} pasos de warmup son el {_pct(fraccion)} de {total}: pasas demasiado tiempo con la tasa "
            f"por debajo de lr={_fmt(c.lr)}. Lo habitual es del 3 % al 10 %: warmup_steps=0.06.",
            fuente,
        )
    return Hallazgo(
        "ok", "warmup_steps",
        f"{pasos_warmup} pasos de warmup ({_pct(fraccion, 1)} de {total}): dentro del 3 % al 10 % habitual. "
        "Recuerda que el primer paso se da con lr=0.",
        fuente,
    )


def _regla_lote(c: Configuracion, pasos_por_epoca: int) -> list[Hallazgo]:
    efectivo = c.lote_efectivo
    desglose = f"{c.lote} × {c.acumulacion} de acumulación × {c.dispositivos} dispositivo(s) = {efectivo}"
    hallazgos = []
    if efectivo < LOTE_EFECTIVO_MINIMO:
        acumulacion, nuevo = acumulacion_para(c.lote, 16, c.dispositivos)
        hallazgos.append(Hallazgo(
            "aviso", "per_device_train_batch_size",
            f"Lote efectivo {desglose}: muy pequeño, el gradiente es muy ruidoso. Si la memoria no da para más, "
            f"sube gradient_accumulation_steps hasta un lote efectivo de 16 o más (p. ej. acumulación "
            f"{acumulacion}: el lote efectivo cambia de {efectivo} a {nuevo}).",
            FUENTES["bert"] + "; " + FUENTES["qlora"],
        ))
    elif efectivo > LOTE_EFECTIVO_MAXIMO:
        hallazgos.append(Hallazgo(
            "aviso", "per_device_train_batch_size",
            f"Lote efectivo {desglose}: muy grande para afinar; das pocos pasos y la tasa de aprendizaje habitual "
            "deja de servir (al cambiar el lote hay que volver a ajustar lr). Baja a 16–64.",
            FUENTES["playbook"],
        ))
    else:
        hallazgos.append(Hallazgo(
            "ok", "per_device_train_batch_size", f"Lote efectivo {desglose}: razonable.", FUENTES["bert"]
        ))
    if efectivo > c.ejemplos:
        hallazgos.append(Hallazgo(
            "aviso", "gradient_accumulation_steps",
            f"El lote efectivo ({efectivo}) es mayor que el dataset ({c.ejemplos} ejemplos): cada época es un "
            f"solo paso de optimización ({pasos_por_epoca} por época). Baja el lote o la acumulación: el lote "
            "efectivo cambia, y con él la tasa de aprendizaje que conviene.",
            FUENTES["playbook"],
        ))
    return hallazgos


def _regla_logging(c: Configuracion, total: int) -> tuple[Hallazgo, int]:
    valor = c.logging_steps if c.logging_steps is not None else LOGGING_STEPS_POR_DEFECTO
    intervalo = _pasos_de_intervalo(valor, total)
    registros = total // intervalo
    por_defecto = " (el valor por defecto de transformers 5)" if c.logging_steps is None else ""
    sugerido = logging_steps_sugerido(total)
    if registros == 0:
        return Hallazgo(
            "aviso", "logging_steps",
            f"logging_steps={valor:g}{por_defecto} con {total} pasos totales: no verás ni una sola línea de "
            f"pérdida durante el entrenamiento. Usa logging_steps={sugerido}.",
            FUENTES["transformers"],
        ), registros
    if registros < REGISTROS_MINIMOS:
        return Hallazgo(
            "aviso", "logging_steps",
            f"logging_steps={valor:g}{por_defecto}: solo {_plural(registros, 'registro', 'registros')} de la pérdida en {total} pasos, "
            f"muy pocos para leer la curva. Usa logging_steps={sugerido}.",
            FUENTES["transformers"],
        ), registros
    if registros > REGISTROS_MAXIMOS:
        return Hallazgo(
            "aviso", "logging_steps",
            f"logging_steps={valor:g}: {registros} registros en {total} pasos; la curva sale ruidosa y el "
            f"registro ralentiza. Usa logging_steps={sugerido}.",
            FUENTES["transformers"],
        ), registros
    return Hallazgo(
        "ok", "logging_steps",
        f"logging_steps={valor:g}{por_defecto}: {registros} registros de la pérdida en {total} pasos.",
        FUENTES["transformers"],
    ), registros


def _evaluaciones(c: Configuracion, total: int, epocas: float) -> tuple[int, int | None]:
    """(número de evaluaciones durante el entrenamiento, intervalo en pasos si la estrategia es 'steps')."""
    if c.eval_strategy == "no":
        return 0, None
    if c.eval_strategy == "epoch":
        return max(1, math.ceil(epocas - 1e-9)), None
    valor = c.eval_steps if c.eval_steps is not None else (
        c.logging_steps if c.logging_steps is not None else LOGGING_STEPS_POR_DEFECTO
    )
    intervalo = _pasos_de_intervalo(valor, total)
    return total // intervalo, intervalo


def _regla_evaluacion(c: Configuracion, total: int, evaluaciones: int, intervalo: int | None) -> Hallazgo:
    necesita = c.load_best_model_at_end or c.paciencia is not None or c.save_strategy == "best"
    if c.eval_strategy == "no":
        if c.scheduler_efectivo in _warmup.TIPOS_SEGUN_METRICA:
            return Hallazgo(
                "error", "eval_strategy",
                f"lr_scheduler_type='{c.scheduler_efectivo}' cambia la tasa según la pérdida de evaluación, pero "
                "eval_strategy='no': TrainingArguments lanza ValueError. Usa eval_strategy='epoch'.",
                FUENTES["transformers_validacion"],
            )
        if necesita:
            return Hallazgo(
                "error", "eval_strategy",
                "eval_strategy='no' pero pides elegir el mejor modelo (load_best_model_at_end, "
                "save_strategy='best' o early stopping): sin evaluaciones no hay con qué compararlos. "
                "Usa eval_strategy='epoch' y pasa un eval_dataset al Trainer.",
                FUENTES["transformers_validacion"],
            )
        return Hallazgo(
            "aviso", "eval_strategy",
            "eval_strategy='no': no verás la pérdida de validación durante el entrenamiento, así que no sabrás "
            "si sobreajusta. Usa eval_strategy='epoch' (y pasa un eval_dataset al Trainer).",
            FUENTES["transformers"],
        )
    if evaluaciones == 0:
        nivel = "error" if necesita else "aviso"
        return Hallazgo(
            nivel, "eval_steps",
            f"eval_steps={intervalo} con {total} pasos totales: no habrá ninguna evaluación durante el "
            f"entrenamiento. Usa eval_steps={logging_steps_sugerido(total, objetivo=10)} o eval_strategy='epoch'."
            + (" Sin evaluaciones no se puede elegir el mejor modelo." if necesita else ""),
            FUENTES["transformers"],
        )
    if c.eval_strategy == "steps" and c.eval_steps is None:
        return Hallazgo(
            "aviso", "eval_steps",
            f"eval_strategy='steps' sin eval_steps: transformers usa logging_steps ({intervalo} pasos), así que "
            f"evalúa {_plural(evaluaciones, 'vez', 'veces')}; evaluar tan a menudo puede costar más que entrenar. Pon eval_steps "
            "explícito.",
            FUENTES["transformers"],
        )
    cada = "época" if c.eval_strategy == "epoch" else f"{intervalo} pasos"
    return Hallazgo(
        "ok", "eval_strategy", f"Se evalúa cada {cada}: {_plural(evaluaciones, 'evaluación', 'evaluaciones')} en total.", FUENTES["transformers"]
    )


def _regla_mejor_modelo(c: Configuracion, total: int, intervalo_eval: int | None) -> list[Hallazgo]:
    hallazgos = []
    if c.save_strategy == "best" and not c.load_best_model_at_end and c.metric_for_best_model is None:
        hallazgos.append(Hallazgo(
            "error", "metric_for_best_model",
            "save_strategy='best' sin metric_for_best_model: el Trainer lanza ValueError porque no sabe qué "
            "es «mejor». Pon metric_for_best_model='eval_loss' (o 'eval_accuracy').",
            FUENTES["transformers_trainer"],
        ))
    if not c.load_best_model_at_end:
        return hallazgos
    if c.save_strategy != "best" and c.eval_strategy != "no":
        if c.eval_strategy != c.save_strategy:
            hallazgos.append(Hallazgo(
                "error", "save_strategy",
                f"load_best_model_at_end=True exige que save_strategy coincida con eval_strategy (o que sea "
                f"'best'), pero tienes eval_strategy='{c.eval_strategy}' y save_strategy='{c.save_strategy}': "
                f"TrainingArguments lanza ValueError. Usa save_strategy='{c.eval_strategy}'.",
                FUENTES["transformers_validacion"],
            ))
        elif c.eval_strategy == "steps":
            guardar = _pasos_de_intervalo(
                c.save_steps if c.save_steps is not None else SAVE_STEPS_POR_DEFECTO, total
            )
            if intervalo_eval and guardar % intervalo_eval != 0:
                hallazgos.append(Hallazgo(
                    "error", "save_steps",
                    f"load_best_model_at_end=True exige que save_steps ({guardar}) sea múltiplo de eval_steps "
                    f"({intervalo_eval}): si no, el mejor modelo evaluado puede no estar guardado. "
                    f"TrainingArguments lanza ValueError. Usa save_steps={intervalo_eval}.",
                    FUENTES["transformers_validacion"],
                ))
    if c.metric_for_best_model is None:
        hallazgos.append(Hallazgo(
            "aviso", "metric_for_best_model",
            "load_best_model_at_end=True sin metric_for_best_model: se elige el checkpoint con menor eval_loss. "
            "Si te importa otra métrica, pon metric_for_best_model='eval_accuracy' (o 'eval_f1'); "
            "greater_is_better se deduce del nombre (False si termina en 'loss').",
            FUENTES["transformers"],
        ))
    elif not any(h.nivel == "error" for h in hallazgos):
        mayor = not c.metric_for_best_model.endswith("loss")
        hallazgos.append(Hallazgo(
            "ok", "metric_for_best_model",
            f"Al final se carga el checkpoint con {'mayor' if mayor else 'menor'} {c.metric_for_best_model} "
            f"(greater_is_better={mayor}). Asegúrate de que compute_metrics la devuelve.",
            FUENTES["transformers"],
        ))
    return hallazgos


def _regla_early_stopping(c: Configuracion, evaluaciones: int) -> list[Hallazgo]:
    if c.paciencia is None:
        return []
    parametro = "EarlyStoppingCallback"
    hallazgos = []
    if c.eval_strategy == "no":
        hallazgos.append(Hallazgo(
            "error", parametro,
            "EarlyStoppingCallback con eval_strategy='no': al empezar a entrenar falla con AssertionError "
            "(necesita evaluaciones para decidir cuándo parar). Usa eval_strategy='epoch'.",
            FUENTES["callback"],
        ))
    if c.metric_for_best_model is None and not c.load_best_model_at_end:
        hallazgos.append(Hallazgo(
            "error", parametro,
            "EarlyStoppingCallback sin metric_for_best_model: falla con AssertionError al empezar. Pon "
            "load_best_model_at_end=True (usa eval_loss) o metric_for_best_model='eval_loss'.",
            FUENTES["callback"],
        ))
    if not c.load_best_model_at_end:
        hallazgos.append(Hallazgo(
            "aviso", "load_best_model_at_end",
            "EarlyStoppingCallback sin load_best_model_at_end=True: para, pero te quedas con el último modelo, "
            "que es peor que el mejor (transformers 5 solo lo advierte en el registro). Pon "
            "load_best_model_at_end=True con save_strategy igual a eval_strategy.",
            FUENTES["callback"],
        ))
    if c.eval_strategy != "no" and 0 < evaluaciones <= c.paciencia:
        hallazgos.append(Hallazgo(
            "aviso", parametro,
            f"Con paciencia {c.paciencia} y solo {evaluaciones} evaluaciones, el early stopping nunca podrá "
            "cortar antes del final. Evalúa más a menudo o baja la paciencia.",
            FUENTES["callback"],
        ))
    if not hallazgos:
        hallazgos.append(Hallazgo(
            "ok", parametro,
            f"EarlyStoppingCallback(early_stopping_patience={c.paciencia}) tiene lo que necesita: evaluaciones, "
            f"load_best_model_at_end=True y una métrica.",
            FUENTES["callback"],
        ))
    return hallazgos


def _regla_weight_decay(c: Configuracion) -> Hallazgo:
    wd = c.weight_decay
    if wd > 1:
        return Hallazgo(
            "error", "weight_decay",
            f"weight_decay={wd:g} es enorme: con AdamW cada paso multiplica los pesos por (1 − lr × {wd:g}) y los "
            "empuja hacia cero. Casi seguro es un error de escala: ¿querías 0.01?",
            FUENTES["adamw"],
        )
    if wd > 0.1:
        return Hallazgo(
            "aviso", "weight_decay",
            f"weight_decay={wd:g} está por encima de lo habitual (0 a 0.1; BERT usó 0.01 y RoBERTa 0.1): "
            "regulariza de más y puede frenar el aprendizaje. Prueba 0.01.",
            FUENTES["adamw"] + "; " + FUENTES["roberta"],
        )
    if wd == 0:
        return Hallazgo(
            "ok", "weight_decay",
            "weight_decay=0 (el valor por defecto): sin regularización L2 desacoplada. Si sobreajusta, prueba 0.01.",
            FUENTES["adamw"],
        )
    return Hallazgo(
        "ok", "weight_decay", f"weight_decay={wd:g}: dentro de lo habitual (0 a 0.1).", FUENTES["adamw"] + "; " + FUENTES["roberta"]
    )


def _regla_max_grad_norm(c: Configuracion) -> Hallazgo:
    norma = c.max_grad_norm
    if norma is None or norma == 0:
        return Hallazgo(
            "aviso", "max_grad_norm",
            f"max_grad_norm={norma}: desactiva el recorte de gradientes; un lote raro puede dar un paso enorme "
            "y estropear el modelo. Deja el valor por defecto, 1.0" + (" (QLoRA usó 0.3)." if c.metodo == "qlora" else "."),
            FUENTES["pascanu"],
        )
    if norma < 0:
        return Hallazgo(
            "error", "max_grad_norm",
            f"max_grad_norm={norma:g} no tiene sentido (una norma es ≥ 0): el Trainer lo trata como «sin "
            "recorte» sin avisar. Usa 1.0" + (" (QLoRA usó 0.3)." if c.metodo == "qlora" else "."),
            FUENTES["pascanu"],
        )
    return Hallazgo(
        "ok", "max_grad_norm",
        f"max_grad_norm={norma:g}: se recorta la norma del gradiente a {norma:g}"
        + (" (QLoRA usó 0.3)." if c.metodo == "qlora" and norma != 0.3 else "."),
        FUENTES["qlora"] if c.metodo == "qlora" else FUENTES["pascanu"],
    )


def _regla_lora(c: Configuracion) -> list[Hallazgo]:
    if not c.usa_lora:
        return []
    r, alpha = c.r_efectivo, c.alpha_efectivo
    escala = alpha / r
    hallazgos = []
    if r > 256:
        hallazgos.append(Hallazgo(
            "aviso", "r",
            f"r={r} es muy alto: en el artículo de LoRA, rangos de 1 a 64 rinden parecido (GPT-3) y con r tan "
            "grande pierdes buena parte del ahorro de memoria. Prueba r=16.",
            FUENTES["lora"],
        ))
    else:
        hallazgos.append(Hallazgo("ok", "r", f"r={r}: rango razonable (de 4 a 64 es lo habitual).", FUENTES["lora"]))
    if escala > 4:
        hallazgos.append(Hallazgo(
            "aviso", "lora_alpha",
            f"lora_alpha/r = {alpha:g}/{r} = {escala:g}: la actualización de LoRA se multiplica por {escala:g}, "
            "como subir la tasa de aprendizaje. Lo habitual es lora_alpha entre r/4 y 2r.",
            FUENTES["lora"],
        ))
    elif escala < 0.25:
        hallazgos.append(Hallazgo(
            "aviso", "lora_alpha",
            f"lora_alpha/r = {alpha:g}/{r} = {escala:.3g}: la actualización de LoRA se encoge mucho, como bajar la "
            "tasa de aprendizaje. Lo habitual es lora_alpha entre r/4 (QLoRA: 16/64) y 2r.",
            FUENTES["qlora"],
        ))
    else:
        hallazgos.append(Hallazgo(
            "ok", "lora_alpha", f"lora_alpha/r = {alpha:g}/{r} = {escala:.3g}: escala habitual.", FUENTES["lora"]
        ))
    return hallazgos


def revisar_configuracion(configuracion: Configuracion | Revision | None = None, /, **opciones: Any) -> Revision:
    """Revisa una configuración de entrenamiento y devuelve hallazgos y cifras derivadas.

    Acepta una :class:`Configuracion` o sus campos con nombre::

        revisar_configuracion(metodo="completo", parametros=66e6, ejemplos=3668,
                              lr=2e-5, lote=16, epocas=3, warmup=0.06, gpu="T4")

    Reglas (cada una da un hallazgo ``ok``, ``aviso`` o ``error`` con su fuente):
    tasa de aprendizaje según método (:data:`RANGOS_LR`), épocas según datos y
    método, warmup fuera del 3–10 % (``error`` si cubre todo el entrenamiento),
    lote efectivo, precisión frente a la GPU (bf16 en una T4 es ``error``),
    ``logging_steps``/``eval_steps`` frente a la duración, ``load_best_model_at_end``
    y sus estrategias, requisitos de ``EarlyStoppingCallback``, memoria frente a la
    GPU (``error`` si no cabe, con sugerencias), ``weight_decay``, ``max_grad_norm``
    y ``r``/``lora_alpha``. Una entrada inválida lanza ``ValueError``/``TypeError``.
    Es pura y rápida (sin torch). Se usa en lessons/04_warmup_y_regularizacion.
    """
    c = _como_configuracion(configuracion, opciones)
    por_epoca = _warmup.pasos_por_epoca(c.ejemplos, c.lote, c.acumulacion, c.dispositivos)
    total = _warmup.pasos_totales(c.ejemplos, c.lote, c.epocas, c.acumulacion, c.dispositivos, c.max_pasos)
    pasos_warmup = _warmup.pasos_de_warmup(c.warmup, total)
    epocas = c.epocas if c.max_pasos <= 0 else c.max_pasos / por_epoca
    rango = RANGOS_LR[(c.metodo, c.tarea_efectiva)]
    precision = c.precision_efectiva

    hallazgos: list[Hallazgo] = []
    hallazgos += _regla_lr(c, rango)
    hallazgos.append(_regla_epocas(c, epocas))
    hallazgos.append(_regla_warmup(c, total, pasos_warmup))
    hallazgos += _regla_lote(c, por_epoca)
    hallazgos.append(_regla_precision(c))
    hallazgo_log, registros = _regla_logging(c, total)
    hallazgos.append(hallazgo_log)
    evaluaciones, intervalo_eval = _evaluaciones(c, total, epocas)
    hallazgos.append(_regla_evaluacion(c, total, evaluaciones, intervalo_eval))
    hallazgos += _regla_mejor_modelo(c, total, intervalo_eval)
    hallazgos += _regla_early_stopping(c, evaluaciones)
    hallazgos.append(_regla_weight_decay(c))
    hallazgos.append(_regla_max_grad_norm(c))
    hallazgos += _regla_lora(c)
    memoria = _estimar_memoria(c, precision)
    hallazgos_memoria, cabe, fraccion = _regla_memoria(c, memoria, precision)
    hallazgos += hallazgos_memoria

    return Revision(
        configuracion=c,
        hallazgos=hallazgos,
        pasos_por_epoca=por_epoca,
        pasos_totales=total,
        pasos_warmup=pasos_warmup,
        lote_efectivo=c.lote_efectivo,
        memoria=memoria,
        cabe=cabe,
        fraccion_memoria=fraccion,
        precision=precision,
        registros=registros,
        evaluaciones=evaluaciones,
        rango_lr=rango,
    )


def logging_steps_sugerido(pasos_totales: int, objetivo: int = 25) -> int:
    """Un ``logging_steps`` redondo que da unos ``objetivo`` registros en ``pasos_totales`` pasos.

    Redondea hacia abajo a 1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500...
    Se usa en lessons/04_warmup_y_regularizacion.
    """
    total = _entero("pasos_totales", pasos_totales, 1, 10**15)
    objetivo = _entero("objetivo", objetivo, 1, 10**6)
    bruto = max(1, total // objetivo)
    mejor = 1
    potencia = 1
    while potencia <= bruto:
        for m in (1, 2, 2.5, 5):
            candidato = int(m * potencia)
            if candidato == m * potencia and candidato <= bruto:
                mejor = max(mejor, candidato)
        potencia *= 10
    return mejor
