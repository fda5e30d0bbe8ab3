"""``tutor warmup``: la tasa de aprendizaje en cada paso, calculada con el scheduler de transformers.

Ejemplos::

    tutor warmup --lr 2e-5 --pasos-totales 500 --warmup 100 --tipo linear --json
    tutor warmup --lr 2e-5 --ejemplos 1000 --lote 16 --epocas 3 --warmup 0.1
"""

from __future__ import annotations


from tutor_lib import warmup
from tutor_lib.comandos import Resultado, leer_pasos

NOMBRE = "warmup"
AYUDA = "Calcula la tasa de aprendizaje de cada paso (warmup + schedule) como lo haría el Trainer."


def configurar(parser) -> None:
    parser.add_argument("--lr", type=float, required=True, help="tasa de aprendizaje máxima (learning_rate), p. ej. 2e-5")
    grupo = parser.add_mutually_exclusive_group(required=True)
    grupo.add_argument("--pasos-totales", type=int, help="pasos de optimización de todo el entrenamiento")
    grupo.add_argument("--ejemplos", type=int, help="ejemplos de entrenamiento (con --lote y --epocas)")
    parser.add_argument("--lote", type=int, help="per_device_train_batch_size (con --ejemplos)")
    parser.add_argument("--epocas", type=float, help="num_train_epochs, puede ser fraccionario (con --ejemplos)")
    parser.add_argument("--acumulacion", type=int, default=None, help="gradient_accumulation_steps (por defecto 1)")
    parser.add_argument("--dispositivos", type=int, default=None, help="GPUs en paralelo de datos (por defecto 1)")
    parser.add_argument(
        "--warmup", default="0",
        help="pasos de warmup (entero, p. ej. 100) o fracción de los pasos totales en [0, 1) (p. ej. 0.1)",
    )
    parser.add_argument("--tipo", default="linear", help="schedule: " + ", ".join(warmup.TIPOS))
    parser.add_argument(
        "--opcion", action="append", default=[], metavar="CLAVE=VALOR",
        help="opción extra del schedule (lr_scheduler_kwargs), p. ej. --opcion min_lr_rate=0.1; se puede repetir",
    )


def _leer_opciones(pares: list[str]) -> dict:
    opciones = {}
    for par in pares:
        if "=" not in par:
            raise ValueError(f"--opcion debe tener la forma CLAVE=VALOR; recibí {par!r}.")
        clave, valor = (s.strip() for s in par.split("=", 1))
        for convertir in (int, float):
            try:
                valor = convertir(valor)
                break
            except ValueError:
                continue
        opciones[clave] = valor
    return opciones


def ejecutar(args) -> Resultado:
    if args.pasos_totales is not None:
        sobran = [n for n in ("lote", "epocas", "acumulacion", "dispositivos") if getattr(args, n) is not None]
        if sobran:
            raise ValueError(
                f"--pasos-totales no se puede usar junto con --{sobran[0]}: usa --pasos-totales solo, "
                "o bien --ejemplos con --lote y --epocas."
            )
        total = args.pasos_totales
    else:
        faltan = [n for n in ("lote", "epocas") if getattr(args, n) is None]
        if faltan:
            raise ValueError(f"Con --ejemplos también hace falta --{faltan[0]} (y --lote y --epocas en general).")
        total = warmup.pasos_totales(
            args.ejemplos,
            args.lote,
            args.epocas,
            args.acumulacion if args.acumulacion is not None else 1,
            args.dispositivos if args.dispositivos is not None else 1,
        )
    valor_warmup = leer_pasos("--warmup", args.warmup, fraccion=True)
    opciones = _leer_opciones(args.opcion)
    tasas = warmup.tasas_de_aprendizaje(args.lr, total, valor_warmup, args.tipo, **opciones)
    pasos_warmup = warmup.pasos_de_warmup(valor_warmup, total)
    filas = warmup.tabla_warmup(args.lr, total, pasos_warmup, None, args.tipo, **opciones)
    datos = {
        "learning_rates": tasas,
        "pasos_totales": total,
        "pasos_warmup": pasos_warmup,
        "tipo": args.tipo,
        "lr": args.lr,
        "opciones": opciones,
    }
    texto = "\n".join(
        [
            f"Schedule {args.tipo!r}, lr máxima {args.lr:g}: {total} pasos de optimización, {pasos_warmup} de warmup.",
            "",
            warmup.tabla_como_texto(filas),
            "",
            "El paso i se da con la tasa de la fila i (el primero, con warmup, usa 0).",
        ]
    )
    return Resultado(datos=datos, texto=texto)
