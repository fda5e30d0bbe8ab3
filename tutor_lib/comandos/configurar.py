"""``tutor configurar``: revisa una configuración de entrenamiento y genera sus ``TrainingArguments``.

Ejemplos::

    tutor configurar --metodo completo --parametros 66e6 --ejemplos 3668 --lr 2e-5 --lote 16 --epocas 3
    tutor configurar --metodo qlora --parametros llama-3-8b --ejemplos 10000 --lr 2e-4 --lote 4 \\
        --acumulacion 4 --epocas 2 --warmup 0.03 --gpu T4 --json

Salida: una línea por hallazgo con [OK], [AVISO] o [ERROR], las cifras
derivadas (pasos, warmup, lote efectivo, memoria) y el código de
``TrainingArguments`` (o ``SFTConfig``) para pegar. Con ``--json``, un objeto
con ``hallazgos``, ``training_arguments``, ``pasos_totales``, ``pasos_warmup``,
``lote_efectivo``, ``memoria``, ``cabe``...

Código de salida: 0 aunque haya hallazgos de nivel error (son el resultado de
la revisión, no un fallo del comando); 1 con ``--estricto`` si hay alguno de
nivel error (útil en CI); 2 si la entrada es inválida (mensaje en español).
"""

from __future__ import annotations


from tutor_lib import configurador
from tutor_lib.comandos import Resultado, leer_pasos

NOMBRE = "configurar"
AYUDA = "Revisa hiperparámetros (lr, épocas, warmup, lote, precisión, memoria...) y genera TrainingArguments."


def configurar(parser) -> None:
    obligatorio = parser.add_argument_group("obligatorios")
    obligatorio.add_argument("--metodo", required=True, choices=configurador.METODOS,
                             help="completo, lora, qlora o sft (ajuste supervisado completo de un LLM con trl)")
    obligatorio.add_argument("--parametros", required=True,
                             help="parámetros del modelo (p. ej. 66e6) o uno de: " + ", ".join(configurador.MODELOS))
    obligatorio.add_argument("--ejemplos", required=True, type=float, help="ejemplos de entrenamiento")
    obligatorio.add_argument("--lr", required=True, type=float, help="learning_rate, p. ej. 2e-5")
    obligatorio.add_argument("--lote", required=True, type=int, help="per_device_train_batch_size")
    obligatorio.add_argument("--epocas", required=True, type=float, help="num_train_epochs (puede ser fraccionario)")

    parser.add_argument("--acumulacion", type=int, default=1, help="gradient_accumulation_steps (por defecto 1)")
    parser.add_argument("--dispositivos", type=int, default=1, help="GPUs en paralelo de datos (por defecto 1)")
    parser.add_argument("--warmup", default="0",
                        help="warmup_steps: entero de pasos (100) o fracción de los pasos totales en [0, 1) (0.06)")
    parser.add_argument("--gpu", default=None,
                        help="GPU donde entrenarás (T4, L4, A100...) o 'cpu'; sin ella no se revisan precisión ni memoria")
    precision = parser.add_mutually_exclusive_group()
    precision.add_argument("--bf16", dest="precision", action="store_const", const="bf16", help="bf16=True")
    precision.add_argument("--fp16", dest="precision", action="store_const", const="fp16", help="fp16=True")
    precision.add_argument("--fp32", dest="precision", action="store_const", const="fp32",
                           help="sin precisión mixta (por defecto se elige según la GPU)")
    parser.add_argument("--weight-decay", type=float, default=0.0, help="weight_decay (por defecto 0.0)")
    parser.add_argument("--max-grad-norm", type=float, default=1.0, help="max_grad_norm (por defecto 1.0)")
    parser.add_argument("--logging-steps", default=None,
                        help="logging_steps (entero o fracción < 1); sin él, transformers usa 500")
    parser.add_argument("--eval-strategy", default="no", choices=configurador.ESTRATEGIAS_EVAL, help="eval_strategy")
    parser.add_argument("--eval-steps", default=None, help="eval_steps (con --eval-strategy steps)")
    parser.add_argument("--save-strategy", default="steps", choices=configurador.ESTRATEGIAS_GUARDADO,
                        help="save_strategy (por defecto steps)")
    parser.add_argument("--save-steps", default=None, help="save_steps (por defecto 500)")
    parser.add_argument("--load-best", action="store_true", help="load_best_model_at_end=True")
    parser.add_argument("--metrica", default=None, help="metric_for_best_model, p. ej. eval_accuracy")
    parser.add_argument("--paciencia", type=int, default=None,
                        help="early_stopping_patience de EarlyStoppingCallback (sin ella, no hay early stopping)")
    parser.add_argument("--r", type=int, default=None, help=f"rango de LoRA (por defecto {configurador.R_POR_DEFECTO})")
    parser.add_argument("--lora-alpha", type=float, default=None,
                        help=f"lora_alpha (por defecto {configurador.ALPHA_POR_DEFECTO})")
    parser.add_argument("--tarea", default=None, choices=configurador.TAREAS,
                        help="clasificacion o causal (por defecto se deduce del método y del tamaño)")
    parser.add_argument("--secuencia", type=int, default=None, help="longitud de secuencia en tokens (memoria y max_length)")
    checkpointing = parser.add_mutually_exclusive_group()
    checkpointing.add_argument("--checkpointing", dest="checkpointing", action="store_const", const=True,
                               help="activa gradient checkpointing")
    checkpointing.add_argument("--sin-checkpointing", dest="checkpointing", action="store_const", const=False,
                               help="desactiva gradient checkpointing (por defecto: activado solo en modelos causales)")
    parser.add_argument("--scheduler", default=None, help="lr_scheduler_type (por defecto linear o cosine)")
    parser.add_argument("--max-pasos", type=int, default=-1, help="max_steps (manda sobre --epocas si es > 0)")
    parser.add_argument("--output-dir", default="salida", help="output_dir de los argumentos generados")
    parser.add_argument("--estricto", action="store_true", help="sale con código 1 si hay algún hallazgo de nivel error")


def _parametros(texto: str) -> int | str:
    limpio = texto.strip().lower()
    if limpio in configurador.MODELOS:
        return limpio
    try:
        return float(limpio)
    except ValueError:
        raise ValueError(
            f"--parametros debe ser un número (p. ej. 66e6) o uno de: {', '.join(configurador.MODELOS)}; recibí {texto!r}."
        ) from None


def configuracion_desde_args(args) -> configurador.Configuracion:
    """Convierte los argumentos de la línea de órdenes en una :class:`~tutor_lib.configurador.Configuracion`."""
    return configurador.Configuracion(
        metodo=args.metodo,
        parametros=_parametros(args.parametros),
        ejemplos=args.ejemplos,
        lr=args.lr,
        lote=args.lote,
        acumulacion=args.acumulacion,
        dispositivos=args.dispositivos,
        epocas=args.epocas,
        warmup=leer_pasos("--warmup", args.warmup, fraccion=True),
        weight_decay=args.weight_decay,
        max_grad_norm=args.max_grad_norm,
        precision=args.precision,
        gpu=args.gpu,
        logging_steps=leer_pasos("--logging-steps", args.logging_steps, fraccion=True),
        eval_strategy=args.eval_strategy,
        eval_steps=leer_pasos("--eval-steps", args.eval_steps, fraccion=True),
        save_strategy=args.save_strategy,
        save_steps=leer_pasos("--save-steps", args.save_steps, fraccion=True),
        load_best_model_at_end=args.load_best,
        metric_for_best_model=args.metrica,
        paciencia=args.paciencia,
        r=args.r,
        lora_alpha=args.lora_alpha,
        tarea=args.tarea,
        secuencia=args.secuencia,
        checkpointing=args.checkpointing,
        scheduler=args.scheduler,
        max_pasos=args.max_pasos,
    )


def ejecutar(args) -> Resultado:
    configuracion = configuracion_desde_args(args)
    revision = configurador.revisar_configuracion(configuracion)
    argumentos = configurador.argumentos_de_entrenamiento(configuracion, output_dir=args.output_dir)
    clase = configurador.clase_de_argumentos(configuracion)
    codigo = configurador.codigo_python(configuracion, output_dir=args.output_dir)

    datos = revision.a_dict()
    datos["training_arguments"] = argumentos
    datos["clase"] = clase
    datos["codigo_python"] = codigo
    datos["configuracion"] = {
        "metodo": configuracion.metodo,
        "tarea": configuracion.tarea_efectiva,
        "parametros": configuracion.parametros,
        "ejemplos": configuracion.ejemplos,
    }

    texto = revision.como_texto()
    texto += f"\n\n{clase} generados (se corrigen solos los errores con un único arreglo seguro, como la precisión):\n\n"
    texto += codigo
    codigo_salida = 1 if args.estricto and revision.errores else 0
    return Resultado(datos=datos, texto=texto, codigo=codigo_salida)
