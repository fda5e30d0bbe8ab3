"""``tutor warmup``: la tasa de aprendizaje en cada paso, la misma que usaría el scheduler de transformers.

Calcula con :mod:`tutor_lib.warmup_puro` (las fórmulas de transformers en Python
puro, comprobadas float a float contra el scheduler real): no importa torch y
responde al instante. Si el warmup no es más corto que el entrenamiento, avisa
en stderr (la tasa nunca llega a ``--lr``).

Ejemplos::

    tutor warmup --lr 2e-5 --pasos-totales 500 --warmup 100 --tipo linear --json
    tutor warmup --lr 2e-5 --ejemplos 1000 --lote 16 --epocas 3 --warmup 0.1
"""

from __future__ import annotations


from tutor_lib import warmup, warmup_puro
from tutor_lib.comandos import Resultado, leer_pasos
from tutor_lib.comandos.analizador import entero_positivo, real_positivo
from tutor_lib.formato import cientifico

NOMBRE = "warmup"
AYUDA = "Calcula la tasa de aprendizaje de cada paso (warmup + schedule) como lo haría el Trainer."


def configurar(parser) -> None:
    parser.add_argument("--lr", type=real_positivo, required=True,
                        help="tasa de aprendizaje máxima (learning_rate), p. ej. 2e-5")
    grupo = parser.add_mutually_exclusive_group(required=True)
    grupo.add_argument("--pasos-totales", type=entero_positivo, help="pasos de optimización de todo el entrenamiento")
    grupo.add_argument("--ejemplos", type=entero_positivo, help="ejemplos de entrenamiento (con --lote y --epocas)")
    parser.add_argument("--lote", type=entero_positivo, help="per_device_train_batch_size (con --ejemplos)")
    parser.add_argument("--epocas", type=real_positivo,
                        help="num_train_epochs, puede ser fraccionario (con --ejemplos)")
    parser.add_argument("--acumulacion", type=entero_positivo, default=None,
                        help="gradient_accumulation_steps (por defecto 1)")
    parser.add_argument("--dispositivos", type=entero_positivo, default=None,
                        help="GPUs en paralelo de datos (por defecto 1)")
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
    tasas = warmup_puro.tasas_de_aprendizaje(args.lr, total, valor_warmup, args.tipo, **opciones)
    pasos_warmup = warmup.pasos_de_warmup(valor_warmup, total)
    filas = warmup_puro.tabla_warmup(tasas, pasos_warmup)
    datos = {
        "learning_rates": tasas,
        "pasos_totales": total,
        "pasos_warmup": pasos_warmup,
        "tipo": args.tipo,
        "lr": args.lr,
        "opciones": opciones,
    }
    lineas = [
        f"Schedule {args.tipo!r}, lr máxima {cientifico(args.lr)}: {total} pasos de optimización, {pasos_warmup} de warmup.",
        "",
        warmup.tabla_como_texto(filas),
        "",
        "Cada fila es un paso de optimización (se cuentan desde 0) y la tasa con la que se da.",
    ]
    avisos = []
    if args.tipo == "constant" and pasos_warmup > 0:
        avisos.append(
            f"el schedule 'constant' ignora el warmup ({_pasos(pasos_warmup)}), igual que el Trainer: "
            "si quieres warmup con tasa constante, usa --tipo constant_with_warmup."
        )
    elif 0 < pasos_warmup < total:
        lineas.append(
            f"Durante el warmup ({_pasos(pasos_warmup)}) la tasa sube desde {cientifico(tasas[0], 3)} (paso 0) hasta {cientifico(args.lr)}."
        )
    elif pasos_warmup >= total:
        lineas.append(
            f"Todo el entrenamiento es warmup: la tasa sube desde {cientifico(tasas[0], 3)} (paso 0) "
            f"hasta {cientifico(tasas[-1], 3)} (paso {total - 1})."
        )
        maxima = max(tasas)
        if maxima < args.lr:
            detalle = f"la tasa nunca llega a --lr {cientifico(args.lr)} (la mayor es {cientifico(maxima, 3)})"
        else:
            detalle = f"la tasa llega a --lr {cientifico(args.lr)} solo en el último paso"
        avisos.append(
            f"el warmup ({_pasos(pasos_warmup)}) no es más corto que el entrenamiento ({_pasos(total)}): "
            f"{detalle} y no queda ningún paso para que el schedule la baje. "
            "Usa menos pasos de warmup o una fracción como --warmup 0.1."
        )
    return Resultado(datos=datos, texto="\n".join(lineas), avisos=avisos)


def _pasos(n: int) -> str:
    return "1 paso" if n == 1 else f"{n} pasos"
