"""``tutor vram``: memoria de GPU de un fine-tuning, por componente, en GiB y GB.

Ejemplos::

    tutor vram --parametros 7e9 --metodo completo --precision mixta
    tutor vram --config config.json --metodo qlora --precision bf16 --r 16 --modulos all-linear \\
        --lote 4 --secuencia 512 --gpu T4 --json
    tutor vram --modelo meta-llama/Llama-2-7b-hf --metodo lora --precision bf16   # necesita el Hub
    tutor vram --modelo dccuchile/bert-base-spanish-wwm-cased --tarea mascara   # BETO con su cabeza de preentrenamiento
    tutor vram --parametros 70e9 --gpus 8 --estrategia zero3 --lote 1 --secuencia 2048 --gpu "A100 80GB"

Con ``--parametros`` todo es aritmética: no se importa torch y responde al
instante. ``--config`` y ``--modelo`` construyen el modelo en el dispositivo
«meta» (torch y transformers, unos segundos). La salida dice la tarea (la
cabeza del modelo), que cambia el número de parámetros: por defecto,
clasificación de 2 clases para un encoder como BETO (109 852 418 parámetros, los
mismos que cuenta ``tutor lora``) y lenguaje causal para un modelo como Llama o
Qwen; ``--tarea`` la cambia. Sin red, ``--modelo`` funciona con
los configs que trae el curso y con los que ya están en la caché de Hugging
Face; con cualquier otro nombre falla al momento y sugiere ``--config`` o
``--parametros``.
"""

from __future__ import annotations

import math
import re

from tutor_lib import vram
from tutor_lib.vram.tareas import AYUDA_TAREA, TAREAS
from tutor_lib.comandos import Resultado, preparar_modelo_del_hub
from tutor_lib.comandos.analizador import entero_positivo

NOMBRE = "vram"
AYUDA = "Estima la memoria de GPU de un fine-tuning (pesos, gradientes, optimizador, activaciones)."

_SUFIJOS = {"": 1, "k": 10**3, "m": 10**6, "b": 10**9, "g": 10**9, "t": 10**12}


def leer_parametros(texto: str) -> int:
    """Convierte ``'7e9'``, ``'66955010'``, ``'6.7B'`` o ``'66M'`` en un número entero de parámetros."""
    limpio = texto.strip().replace("_", "")
    negativo = limpio.startswith("-")
    coincide = re.fullmatch(r"([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([kKmMbBgGtT]?)", limpio.removeprefix("-"))
    if not coincide:
        raise ValueError(f"--parametros no es un número: {texto!r}. Ejemplos válidos: 7e9, 66955010, 6.7B, 66M.")
    valor = float(coincide.group(1)) * _SUFIJOS[coincide.group(2).lower()]
    if negativo or valor == 0:
        raise ValueError(
            f"--parametros debe ser un número positivo (cuántos parámetros tiene el modelo, p. ej. 7e9); recibí {texto!r}."
        )
    if not math.isfinite(valor) or valor != math.floor(valor) or valor < 1 or valor > vram.PARAMETROS_MAXIMOS:
        raise ValueError(f"--parametros debe ser un número entero entre 1 y 1e13; recibí {texto!r}.")
    return int(valor)


def configurar(parser) -> None:
    origen = parser.add_mutually_exclusive_group(required=True)
    origen.add_argument("--parametros", help="número de parámetros: 7e9, 66955010, 6.7B, 66M")
    origen.add_argument("--config", help="ruta a un config.json (o a la carpeta de un modelo): cuentas exactas")
    origen.add_argument("--modelo", help="nombre del modelo en el Hub (solo su config, sin pesos); sin red, los del modo completo del curso")
    parser.add_argument("--tarea", choices=TAREAS, default=None, help=AYUDA_TAREA)
    parser.add_argument("--metodo", choices=vram.METODOS, default="completo", help="completo, lora o qlora")
    parser.add_argument("--precision", choices=vram.PRECISIONES, default="mixta", help="fp32, mixta o bf16")
    parser.add_argument("--optimizador", choices=vram.OPTIMIZADORES, default="adamw")
    parser.add_argument("--r", type=entero_positivo, default=None, help="rango de LoRA (por defecto 16 con lora/qlora)")
    parser.add_argument("--modulos", default=None, help="capas con LoRA: q_proj,v_proj o all-linear (por defecto)")
    parser.add_argument("--lote", type=entero_positivo, default=None, help="ejemplos por paso y dispositivo")
    parser.add_argument("--secuencia", type=entero_positivo, default=None, help="tokens por ejemplo")
    parser.add_argument("--gpu", default=None, help="GPU del catálogo: " + ", ".join(vram.GPUS))
    parser.add_argument("--gpus", type=entero_positivo, default=1,
                        help="GPUs en paralelo de datos (por defecto 1); las cifras pasan a ser por GPU")
    parser.add_argument("--estrategia", choices=vram.ESTRATEGIAS, default="ddp",
                        help="qué se divide entre las GPUs: ddp (nada), zero1, zero2, zero3 o fsdp")
    parser.add_argument("--checkpointing", action="store_true", help="gradient checkpointing")
    parser.add_argument(
        "--sin-doble-cuantizacion", action="store_true", help="QLoRA sin doble cuantización de las constantes"
    )
    parser.add_argument("--contabilidad", choices=vram.CONTABILIDADES, default=None,
                        help="reparto de la precisión mixta: amp (PyTorch) o zero (DeepSpeed, artículo de ZeRO); "
                             "por defecto, la del motor de --estrategia (zero1/2/3: zero; ddp y fsdp: amp)")
    parser.add_argument("--atencion", choices=vram.ATENCIONES, default="sdpa",
                        help="sdpa (por defecto en transformers 5) o eager (guarda secuencia²)")
    parser.add_argument("--preparar-kbit", action="store_true",
                        help="QLoRA tras peft.prepare_model_for_kbit_training (lo no cuantizado en fp32)")


def ejecutar(args) -> Resultado:
    if args.parametros is not None:
        parametros = leer_parametros(args.parametros)
    elif args.config is not None:
        parametros = args.config
    else:
        preparar_modelo_del_hub(args.modelo, "--config con la ruta a su config.json, o --parametros con su número "
                                "de parámetros (p. ej. --parametros 7e9)")
        parametros = args.modelo
    tarea = args.tarea
    if tarea is None and args.parametros is None:
        from tutor_lib import recursos

        parametros = recursos.cargar_config(parametros)
        tarea = vram.tarea_por_defecto(parametros)
    if args.lote is not None and args.secuencia is None:
        raise ValueError("--lote necesita también --secuencia (p. ej. --lote 8 --secuencia 512).")
    modulos = args.modulos
    estimacion = vram.estimar_memoria(
        parametros=parametros,
        metodo=args.metodo,
        precision=args.precision,
        optimizador=args.optimizador,
        r=args.r,
        modulos=modulos,
        lote=args.lote,
        secuencia=args.secuencia,
        checkpointing=args.checkpointing,
        doble_cuantizacion=not args.sin_doble_cuantizacion,
        gpu=args.gpu,
        contabilidad=args.contabilidad,
        atencion=args.atencion,
        preparar_kbit=args.preparar_kbit,
        gpus=args.gpus,
        estrategia=args.estrategia,
        tarea=tarea,
    )
    datos = estimacion.a_dict()
    datos["total_gib"] = round(estimacion.total_bytes / vram.GIB, 3)
    datos["total_gb"] = round(estimacion.total_bytes / vram.GB, 3)
    if datos.get("gpu") is None:
        datos.pop("gpu", None)
    return Resultado(datos=datos, texto=vram.tabla(estimacion))
