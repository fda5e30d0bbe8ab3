"""``tutor lora``: parámetros entrenables de LoRA para un modelo, sin descargar pesos.

Ejemplos::

    tutor lora --config config.json --r 16 --modulos q_proj,v_proj --json
    tutor lora --modelo meta-llama/Llama-2-7b-hf --r 16 --modulos all-linear

Cuenta sobre el modelo construido en el dispositivo «meta» (torch y
transformers, unos segundos; sin pesos), con la misma tarea por defecto que
``tutor vram`` (clasificación de 2 clases para un encoder como BETO, lenguaje
causal para Llama o Qwen): la salida la dice y ``--tarea`` la cambia. Sin red,
``--modelo`` funciona con los configs que trae el curso y con los de la caché de
Hugging Face; con otro nombre falla al momento y sugiere ``--config``.
"""

from __future__ import annotations

from tutor_lib import lora
from tutor_lib.vram.tareas import AYUDA_TAREA, TAREAS, tarea_por_defecto
from tutor_lib.formato import entero
from tutor_lib.comandos import Resultado, preparar_modelo_del_hub
from tutor_lib.comandos.analizador import entero_positivo

NOMBRE = "lora"
AYUDA = "Cuenta los parámetros entrenables de LoRA (rango r, módulos elegidos) sin descargar pesos."


def configurar(parser) -> None:
    origen = parser.add_mutually_exclusive_group(required=True)
    origen.add_argument("--config", help="ruta a un config.json (o a la carpeta de un modelo)")
    origen.add_argument("--modelo", help="nombre del modelo en el Hub (necesita red o la caché local, salvo los del modo completo del curso)")
    parser.add_argument("--r", type=entero_positivo, required=True, help="rango de LoRA, p. ej. 16")
    parser.add_argument(
        "--modulos", required=True,
        help="capas a adaptar separadas por comas (q_proj,v_proj) o all-linear",
    )
    parser.add_argument("--tarea", choices=TAREAS, default=None, help=AYUDA_TAREA)


def ejecutar(args) -> Resultado:
    if args.config is None:
        preparar_modelo_del_hub(args.modelo, "--config con la ruta a su config.json")
    from tutor_lib import recursos

    config = recursos.cargar_config(args.config if args.config is not None else args.modelo)
    tarea = args.tarea if args.tarea is not None else tarea_por_defecto(config)
    conteo = lora.contar_parametros_lora(config, args.r, args.modulos, tarea=tarea)
    datos = {
        "tarea": conteo.tarea,
        "tarea_descripcion": conteo.tarea_descripcion,
        "parametros_base": conteo.parametros_base,
        "parametros_entrenables": conteo.parametros_entrenables,
        "parametros_totales": conteo.parametros_totales,
        "porcentaje": conteo.porcentaje,
        "por_modulo": conteo.por_modulo,
        "capas": conteo.capas,
        "r": args.r,
    }
    lineas = [
        f"LoRA con r={args.r} sobre {args.modulos}: {conteo.capas} capas adaptadas.",
        f"  Tarea: {conteo.tarea_descripcion}",
        f"  Parámetros del modelo:  {entero(conteo.parametros_base)} (sin LoRA)",
        f"  Parámetros entrenables: {entero(conteo.parametros_entrenables)}",
        f"  Parámetros totales:     {entero(conteo.parametros_totales)} (modelo + LoRA)",
        f"  Porcentaje entrenable:  {conteo.porcentaje:.4f} %",
        "",
        "Por módulo:",
    ]
    lineas += [f"  {nombre:<20} {entero(n):>15}" for nombre, n in conteo.por_modulo.items()]
    return Resultado(datos=datos, texto="\n".join(lineas))
