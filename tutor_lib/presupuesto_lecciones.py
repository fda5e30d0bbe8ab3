"""El presupuesto de cada lección en una T4 de Colab, calculado: memoria pico y minutos de GPU.

Cada lección describe aquí, fase por fase, lo que hace su **modo completo** (modelo del Hub, método,
precisión, lote, secuencia, pasos y pasadas de evaluación). La memoria de cada fase sale de
``tutor_lib.vram`` y el tiempo, de los FLOPs de ``tutor_lib.presupuesto``; el encabezado «Tiempo y
memoria esperados» de cada cuaderno se **genera** con :func:`texto_encabezado` (entre las marcas
``<!-- presupuesto-t4 -->``) y ``tests/test_presupuesto_lecciones.py`` comprueba que el texto del
cuaderno es el que sale de la cuenta, que cada lección cabe en la memoria utilizable de una T4 y que
no pasa de 30 minutos de GPU.

Son **estimaciones**: nadie cronometró estos cuadernos en una T4 (ni la hay en el taller del curso).
Las secuencias se cuentan a su largo máximo (el relleno dinámico las acorta: el tiempo real de cómputo
suele ser menor), la utilización es una suposición declarada en ``presupuesto.UTILIZACION_SUPUESTA`` y
no se cuentan la descarga de los datos, la tokenización ni lo que corre en la CPU.

Regenerar los encabezados tras cambiar una receta: ``python -m tutor_lib.presupuesto_lecciones --escribir``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from tutor_lib import entorno, formato, presupuesto, recursos, vram

#: La GPU del presupuesto: la T4 gratuita de Colab (capacidad de cómputo 7.5, sin bf16 real).
GPU = "T4"
#: Tope de tiempo de GPU por lección (issue 13): media hora de una sesión de Colab.
MINUTOS_MAXIMOS = 30
MARCA_INICIO, MARCA_FIN = "<!-- presupuesto-t4 -->", "<!-- /presupuesto-t4 -->"


def precision_t4() -> str:
    """La precisión de vram que eligen las lecciones en una T4: ``entorno.precision_recomendada`` da fp16,
    es decir, pesos fp32 con autocast fp16 y escalado de la pérdida (``"mixta"`` en ``tutor_lib.vram``)."""
    elegida = entorno.precision_recomendada(vram.buscar_gpu(GPU))
    return {"fp16": "mixta", "bf16": "bf16", "fp32": "fp32"}[elegida]


@dataclass(frozen=True)
class Fase:
    """Un tramo del modo completo de una lección, con lo que cuesta en la GPU.

    ``lote`` son las secuencias que pasan por el modelo en cada paso (en DPO, elegida y rechazada: el
    doble de pares); ``sin_gradiente_por_paso`` son las que además pasan solo hacia adelante en cada paso
    (el modelo de referencia de DPO); ``evaluadas`` son las que pasan hacia adelante fuera del
    entrenamiento (evaluaciones, predicciones). ``pasos`` en 0: la fase solo hace inferencia.
    ``extra_bytes`` es memoria que la fase suma a la del entrenamiento (modelos vivos de fases anteriores,
    logits acumulados), explicada en ``nota``.
    """

    nombre: str
    modelo: str  # clave de recursos.MODELOS: "clasificacion", "causal" o "proyecto"
    lote: int
    secuencia: int
    pasos: int = 0
    repeticiones: int = 1
    metodo: str = "completo"
    precision: str | None = None  # None: la de la T4 (precision_t4)
    optimizador: str = "adamw"
    checkpointing: bool = False
    r: int | None = None
    modulos: tuple[str, ...] | str | None = None
    sin_gradiente_por_paso: int = 0
    evaluadas: int = 0
    extra_bytes: int = 0
    nota: str = ""

    @property
    def nombre_hub(self) -> str:
        return recursos.MODELOS[self.modelo]["completo"]

    @property
    def precision_efectiva(self) -> str:
        return self.precision or precision_t4()


@dataclass
class FilaPresupuesto:
    """Lo que cuesta una fase: memoria de vram y segundos estimados por FLOPs."""

    fase: Fase
    memoria_bytes: int
    segundos: float
    flops: float


@dataclass
class Presupuesto:
    leccion: str
    filas: list[FilaPresupuesto] = field(default_factory=list)

    @property
    def memoria_bytes(self) -> int:
        return max(f.memoria_bytes for f in self.filas)

    @property
    def segundos(self) -> float:
        return sum(f.segundos for f in self.filas)

    @property
    def fase_mas_pesada(self) -> FilaPresupuesto:
        return max(self.filas, key=lambda f: f.memoria_bytes)

    def cabe(self) -> bool:
        return vram.cabe(self.memoria_bytes, GPU)


# --------------------------------------------------------------------------
# Tamaños de los datos del modo completo (de recursos, no escritos a mano)
# --------------------------------------------------------------------------


def resenas_utiles(division: str) -> int:
    """Reseñas de Amazon de ``division`` que quedan sin las de 3 estrellas.

    El conjunto trae la misma cantidad de reseñas de cada número de estrellas (5 clases); la lección se
    queda con 4 de ellas (``recursos.DATASETS_HUB["resenas"]``).
    """
    datos = recursos.DATASETS_HUB["resenas"]
    clases = len(datos["etiquetas_hub"])
    return datos["filas"][division] * (clases - 1) // clases


def filas_del_curso(nombre: str, division: str) -> int:
    """Filas de un dataset que el curso trae en ambos modos (instrucciones, preferencias)."""
    return len(recursos.cargar_dataset(nombre, modo="rapido")[division])


def _pasos(ejemplos: int, lote: int, epocas: float = 1) -> int:
    return math.ceil(ejemplos / lote) * math.ceil(epocas)


def _parametros_beto() -> int:
    return vram.estimar_memoria(recursos.cargar_config(recursos.MODELOS["clasificacion"]["completo"]),
                                tarea="clasificacion").parametros


def _veces(n: int, tope: int | None) -> int:
    return n if tope is None else min(n, tope)


# --------------------------------------------------------------------------
# Las lecciones
# --------------------------------------------------------------------------


def fases(leccion: str, receta: recursos.Receta | None = None) -> list[Fase]:
    """Las fases del modo completo de ``leccion`` ("01" … "14"). Cada bloque cita la celda que describe.

    ``receta`` reemplaza la receta del modo completo (``recursos.RECETAS["completo"]``): sirve para decir
    cuánto costaría una variante, como entrenar la lección 3 con todas las reseñas.
    """
    receta = receta or recursos.RECETAS["completo"]
    seq = receta.max_length
    entrenamiento_03 = _veces(resenas_utiles("train"), receta.muestras_entrenamiento)
    validacion_03 = _veces(resenas_utiles("validation"), receta.muestras_evaluacion)
    if leccion == "01":
        # CONFIG del modo completo: 3000 reseñas, 1000 de validación, lote 16, 1 época, 128 tokens.
        pasos = _pasos(3000, 16)
        return [
            Fase("bucle a mano en fp32 (secciones 5 y 6: tres entrenamientos)", "clasificacion", 16, 128,
                 pasos=pasos, repeticiones=3, precision="fp32", evaluadas=6 * 1000),
            Fase("el mismo bucle con Accelerate en fp16 (sección 7)", "clasificacion", 16, 128, pasos=pasos,
                 evaluadas=1000),
        ]
    if leccion == "02":
        # Dos pasadas de BETO por la validación de PAWS-X (sin entrenar, en fp32).
        return [Fase("BETO sobre la validación de PAWS-X, dos veces", "clasificacion", 64, 128, precision="fp32",
                     evaluadas=2 * recursos.DATASETS_HUB["parafrasis"]["filas"]["validation"])]
    if leccion == "04":
        # Un lote de 32 reseñas de 128 tokens: forward y backward para medir la norma del gradiente.
        return [Fase("un forward y un backward de BETO para medir el gradiente", "clasificacion", 32, 128, pasos=1,
                     precision="fp32", optimizador="sgd")]
    if leccion == "03":
        # Sección 12: el mismo ajuste de pares tres veces (Trainer, bucle a mano, Accelerate) y cuatro pasadas
        # por la validación de PAWS-X (el modelo sin entrenar y los tres entrenados).
        pares = recursos.RECETAS_PARES["completo"]
        filas_pares = recursos.DATASETS_HUB["parafrasis"]["filas"]
        entrenamiento_pares = _veces(filas_pares["train"], pares.muestras_entrenamiento)
        return [Fase(f"{receta.epocas:g} épocas sobre {_miles(entrenamiento_03)} reseñas",
                     "clasificacion", receta.lote, seq, pasos=_pasos(entrenamiento_03, receta.lote, receta.epocas),
                     evaluadas=(int(receta.epocas) + 2) * validacion_03),
                Fase(f"pares de PAWS-X de tres maneras: {pares.epocas:g} épocas sobre {_miles(entrenamiento_pares)} "
                     f"pares, tres veces", "clasificacion", pares.lote, pares.max_length,
                     pasos=_pasos(entrenamiento_pares, pares.lote, pares.epocas), repeticiones=3,
                     evaluadas=4 * _veces(filas_pares["validation"], pares.muestras_evaluacion),
                     extra_bytes=24 * _parametros_beto(),
                     nota="mientras entrena Accelerate siguen vivos en la GPU el modelo de las reseñas, el inicial "
                          "de los pares, el del Trainer con su AdamW y el del bucle a mano: 4 × 4 B + 8 B por "
                          "parámetro")]
    if leccion == "05":
        # Un Trainer que ya entrenó y sigue vivo guarda pesos fp32 (4 B) y m y v de AdamW (8 B) por parámetro.
        vivo = 12 * _parametros_beto()
        # 4000 reseñas, 400 de validación; early stopping hasta 500 pasos evaluando cada 25; dos corridas de
        # 6 pasos, una reanudada, y la del checkpoint JIT de 200 pasos (que se corta y se reanuda); después, el
        # corte y la reanudación con save_only_model (4 + 3 pasos, 2 evaluaciones) y la corrida registrada en
        # TensorBoard (8 pasos, 4 evaluaciones).
        return [
            Fase("early stopping: hasta 500 pasos, evaluando cada 25", "clasificacion", receta.lote, seq, pasos=500,
                 evaluadas=(500 // 25 + 1) * 400, extra_bytes=vivo,
                 nota="sigue vivo el Trainer espía de la sección 2, con su optimizador"),
            Fase("corridas cortas, reanudar y checkpoint JIT", "clasificacion", receta.lote, seq,
                 pasos=3 * 6 + 200 + 4 + 7 + 8, evaluadas=(4 + 2 + 4) * 400, extra_bytes=2 * vivo,
                 nota="siguen vivos dos Trainers anteriores (early stopping y el cortado), con su optimizador"),
        ]
    if leccion == "06":
        qwen_logits = 32 * 128 * recursos.cargar_config(recursos.MODELOS["causal"]["completo"]).vocab_size * 4
        return [
            Fase("sin y con pesos por clase: una época sobre 4000 reseñas, dos veces", "clasificacion", receta.lote,
                 seq, pasos=_pasos(4000, receta.lote), repeticiones=2, evaluadas=2 * 1000),
            Fase("Qwen evalúa 32 secuencias de 128 tokens guardando los logits", "causal", 8, 128,
                 precision="fp32", evaluadas=3 * 32, extra_bytes=qwen_logits,
                 nota="«por defecto» acumula en la GPU los logits de las 32 secuencias (32 × 128 × vocabulario × 4 B)"),
            Fase("NEFTune: 3 pasos de ajuste completo de Qwen", "causal", 4, 128, pasos=3),
        ]
    if leccion == "07":
        # Mediciones con BETO: estado de AdamW en fp32 y activaciones con lotes de 4, 8 y 16 a 128 tokens.
        return [Fase("medir el estado y las activaciones de BETO (lote 16, 128 tokens)", "clasificacion", 16, 128,
                     pasos=6, precision="fp32")]
    if leccion == "08":
        # entrenar_transformer(..., muestras=4000) con la receta del modo completo, y predecir validación y prueba.
        return [Fase(f"{receta.epocas:g} épocas sobre 4000 reseñas", "clasificacion", receta.lote, seq,
                     pasos=_pasos(4000, receta.lote, receta.epocas),
                     evaluadas=resenas_utiles("validation") + resenas_utiles("test"))]
    if leccion == "09":
        # Sección 6: 2000 reseñas, 2 épocas, evaluación de 500 cada 10 pasos.
        pasos = _pasos(2000, receta.lote, 2)
        return [Fase("2 épocas sobre 2000 reseñas, evaluando 500 cada 10 pasos", "clasificacion", receta.lote, seq,
                     pasos=pasos, evaluadas=(pasos // 10 + 1) * 500)]
    if leccion == "10":
        # Sección 7: una época sobre 4000 reseñas, completo y LoRA (r 8 en query y value), 1000 de validación.
        pasos = _pasos(4000, receta.lote)
        return [
            Fase("ajuste completo, una época sobre 4000 reseñas", "clasificacion", receta.lote, seq, pasos=pasos,
                 evaluadas=1000),
            Fase("LoRA (r 8, query y value), la misma época", "clasificacion", receta.lote, seq, pasos=pasos,
                 metodo="lora", r=8, modulos=("query", "value"), evaluadas=1000),
        ]
    if leccion == "11":
        # 40 pasos de QLoRA (r 16, all-linear), lote 8 de hasta 256 tokens, paged_adamw_8bit, checkpointing de
        # prepare_model_for_kbit_training; evaluate() antes y después sobre la validación.
        return [Fase("QLoRA: 40 pasos con lote 8 de 256 tokens", "causal", 8, 256, pasos=40, metodo="qlora", r=16,
                     modulos="all-linear", optimizador="adamw_8bit", checkpointing=True,
                     evaluadas=2 * filas_del_curso("instrucciones", "validation"))]
    if leccion == "12":
        # SFT: 3 épocas, lote 4 de 512 tokens (sin contar el empaquetado, que junta conversaciones: menos
        # pasos); DPO: 2 épocas, 4 pares por paso (8 secuencias) más la pasada del modelo de referencia.
        pares = filas_del_curso("preferencias", "train")
        return [
            Fase("SFT con LoRA: 3 épocas, lote 4 de 512 tokens", "causal", 4, 512,
                 pasos=_pasos(filas_del_curso("instrucciones", "train"), 4, 3), metodo="lora", r=16,
                 modulos="all-linear", checkpointing=True),
            Fase("DPO con LoRA: 2 épocas, 4 pares por paso", "causal", 8, 512, pasos=_pasos(pares, 4, 2),
                 metodo="lora", r=16, modulos="all-linear", checkpointing=True, sin_gradiente_por_paso=8,
                 evaluadas=2 * filas_del_curso("preferencias", "validation")),
        ]
    if leccion == "13":
        # El modo completo necesita al menos 2 GPUs; se presupuesta lo mínimo, 2 (por ejemplo, las dos T4 de
        # Kaggle), por GPU. Qwen en fp32 con bloques de 128 tokens y 4 pasos por corrida: las referencias en una
        # sola GPU (bucle y Trainer) llevan el lote efectivo entero (4 por GPU × 2); las corridas repartidas
        # (bucle, Trainer, FSDP2 y ZeRO-1), 4 secuencias en cada GPU. Las demás corridas de la lección (acumulación,
        # set_epoch, guardar y reanudar, el archivo de Accelerate, dos «máquinas») son en la CPU, con modelos chicos.
        return [
            Fase("referencias en una GPU: bucle y Trainer, lote 8 de 128 tokens", "causal", 8, 128, pasos=4,
                 repeticiones=2, precision="fp32"),
            Fase("por GPU (2): bucle, Trainer, FSDP2 y ZeRO-1, lote 4 de 128 tokens", "causal", 4, 128,
                 pasos=4, repeticiones=4, precision="fp32"),
            # precision.py: un paso de FSDP2 por variante (fp32 o bf16, con o sin checkpointing); se presupuesta
            # la más cara, fp32 sin checkpointing, las cuatro veces.
            Fase("por GPU (2): FSDP2 en fp32 y bf16, con y sin checkpointing, lote 4", "causal", 4,
                 128, pasos=1, repeticiones=4, precision="fp32"),
        ]
    if leccion == "14":
        # Sección 5: QLoRA (r 16, all-linear) de Qwen2.5-1.5B, 2 épocas con lote 4 de hasta 512 tokens (4 de
        # acumulación: el cómputo es el mismo) y checkpointing. Evaluadas: la validación cuatro veces (NF4 antes y
        # después, 16 bits y fusionado); la generación (24 tareas dos veces, 6 respuestas de muestreo y 6 del
        # pipeline) se cuenta como pasadas.
        validacion = filas_del_curso("instrucciones", "validation")
        return [Fase("QLoRA: 2 épocas, lote 4 de 512 tokens", "proyecto", 4, 512,
                     pasos=_pasos(filas_del_curso("instrucciones", "train"), 4, 2), metodo="qlora", r=16,
                     modulos="all-linear", checkpointing=True, evaluadas=4 * validacion + 2 * 24 + 12)]
    raise ValueError(f"La lección {leccion!r} no tiene modo completo en GPU; las que sí: {', '.join(LECCIONES)}.")


LECCIONES = ("01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12", "13", "14")


@lru_cache(maxsize=None)
def _meta(nombre_hub: str, tarea: str):
    return recursos.construir_en_meta(recursos.cargar_config(nombre_hub), tarea=tarea)


def costo(fase: Fase) -> FilaPresupuesto:
    """Memoria (vram) y segundos estimados (FLOPs) de una fase."""
    tarea = "clasificacion" if fase.modelo == "clasificacion" else "causal"
    config = recursos.cargar_config(fase.nombre_hub)
    if tarea == "clasificacion":
        config.num_labels = 2
    precision = fase.precision_efectiva
    if fase.pasos:
        estimacion = vram.estimar_memoria(
            config, metodo=fase.metodo, precision=precision, optimizador=fase.optimizador, r=fase.r,
            modulos=list(fase.modulos) if isinstance(fase.modulos, tuple) else fase.modulos,
            lote=fase.lote, secuencia=fase.secuencia, checkpointing=fase.checkpointing, tarea=tarea,
        )
        memoria = estimacion.total_bytes
        entrenables = estimacion.parametros_entrenables if fase.metodo != "completo" else 0
    else:  # solo inferencia: los pesos (en fp32 o en 16 bits) y nada de gradientes ni optimizador
        parametros = vram.estimar_memoria(config, tarea=tarea).parametros
        memoria = parametros * (4 if precision in ("fp32", "mixta") else 2)
        entrenables = 0
    forma = presupuesto.forma_de_computo(_meta(fase.nombre_hub, tarea))
    por_token = presupuesto.flops_entrenamiento_por_token(forma, fase.secuencia, fase.metodo, entrenables,
                                                          fase.checkpointing)
    adelante = presupuesto.flops_adelante_por_token(forma, fase.secuencia)
    tokens_paso = fase.lote * fase.secuencia
    flops = fase.repeticiones * (fase.pasos * (tokens_paso * por_token
                                              + fase.sin_gradiente_por_paso * fase.secuencia * adelante)
                                 + fase.evaluadas * fase.secuencia * adelante)
    pico = presupuesto.T4_TFLOPS_FP32 if precision == "fp32" else presupuesto.T4_TFLOPS_MIXTA
    return FilaPresupuesto(fase, int(memoria + fase.extra_bytes), presupuesto.segundos_estimados(flops, pico), flops)


def presupuesto_leccion(leccion: str, receta: recursos.Receta | None = None) -> Presupuesto:
    """El presupuesto de la lección ``leccion`` en una T4: una fila por fase."""
    return Presupuesto(leccion, [costo(f) for f in fases(leccion, receta)])


def descarga_bytes(nombre_hub: str) -> int:
    """Bytes de los pesos que se descargan: parámetros × bytes del dtype con que está guardado el checkpoint."""
    config = recursos.cargar_config(nombre_hub)
    guardado = str(getattr(config, "dtype", None) or "float32")
    por_elemento = 2 if guardado.replace("torch.", "") in ("bfloat16", "float16") else 4
    return vram.estimar_memoria(config).parametros * por_elemento


#: Cómo llama la prosa de las lecciones a cada modelo del modo completo.
NOMBRES_CORTOS = {"clasificacion": "BETO", "causal": "Qwen2.5-0.5B-Instruct", "proyecto": "Qwen2.5-1.5B-Instruct"}


def datos_del_hub(leccion: str, carpeta: Path | None = None) -> list[str]:
    """Los datasets del Hub que baja el modo completo de la lección, leídos de su código.

    Cuenta cada ``recursos.cargar_dataset("x")`` con ``x`` en ``recursos.DATASETS_HUB``, salvo los que piden
    ``modo="rapido"`` (los datos del curso en los dos modos).
    """
    fuente = "\n".join("".join(c["source"]) for c in json.loads(cuaderno(leccion, carpeta).read_text(encoding="utf-8"))
                       ["cells"] if c["cell_type"] == "code")
    nombres = []
    for nombre, argumentos in re.findall(r'cargar_dataset\(\s*"(\w+)"([^)]*)\)', fuente):
        if nombre in recursos.DATASETS_HUB and 'modo="rapido"' not in argumentos and nombre not in nombres:
            nombres.append(nombre)
    return nombres


def _minutos(segundos: float) -> str:
    minutos = segundos / 60
    if minutos < 1:
        return "menos de un minuto"
    return f"unos {math.ceil(minutos)} minutos" if minutos >= 1.5 else "alrededor de un minuto"


def _miles(n: int) -> str:
    return formato.entero(n)


def _gib(n: int) -> str:
    return formato.numero(n / vram.GIB, 1) + " GiB"


def _min(segundos: float) -> str:
    return formato.numero(segundos / 60, 1) + " min"


def texto_encabezado(leccion: str) -> str:
    """El párrafo generado del encabezado: tiempo de GPU y memoria pico en una T4, con la fase más exigente."""
    p = presupuesto_leccion(leccion)
    modelos = list(dict.fromkeys(f.fase.modelo for f in p.filas))
    descargas = [f"{NOMBRES_CORTOS[m]} ({_miles(round(descarga_bytes(recursos.MODELOS[m]['completo']) / formato.MIB))} MiB)"
                 for m in modelos]
    descargas += [f"`{recursos.DATASETS_HUB[d]['ruta']}`" for d in datos_del_hub(leccion)]
    lista = ", ".join(descargas[:-1]) + (" y " if len(descargas) > 1 else "") + descargas[-1]
    texto = (
        f"**En una T4 de Colab** (estimación de `tutor_lib.presupuesto_lecciones`): {_minutos(p.segundos)} "
        f"de cómputo en la GPU y hasta {_gib(p.memoria_bytes)} de su memoria (el pico llega en la fase "
        f"«{p.fase_mas_pesada.fase.nombre}»). Aparte, la primera vez se descarga{'n' if len(descargas) > 1 else ''} "
        f"{lista}."
    )
    if leccion == "03":  # la receta se recortó para caber: decimos cuánto costaría la entera
        entera = presupuesto_leccion("03", dataclasses.replace(recursos.RECETAS["completo"],
                                                               muestras_entrenamiento=None))
        texto += (f" Con más tiempo, escribe en la sección 4 `receta = dataclasses.replace(receta, "
                  f"muestras_entrenamiento=None)` (después de `import dataclasses`) para entrenar con las "
                  f"{_miles(resenas_utiles('train'))} reseñas: {_minutos(entera.segundos)} estimados de GPU.")
    if leccion == "13":  # no corre en una sola T4: las cifras son por GPU en una máquina con dos
        texto = texto.replace("**En una T4 de Colab** (estimación",
                              "**En cada GPU de una máquina con 2 T4** (como la de Kaggle; estimación", 1)
        texto += " Con una sola GPU, como en Colab, la lección corre en la CPU."
    return texto


# --------------------------------------------------------------------------
# Los cuadernos
# --------------------------------------------------------------------------

_PATRON = re.compile(re.escape(MARCA_INICIO) + r"(.*?)" + re.escape(MARCA_FIN), re.S)


def cuaderno(leccion: str, carpeta: Path | None = None) -> Path:
    """La ruta del cuaderno de ``leccion`` en ``lessons/`` (o en ``carpeta``)."""
    carpeta = carpeta or Path(__file__).resolve().parent.parent / "lessons"
    encontrados = sorted(carpeta.glob(f"{leccion}_*.ipynb"))
    if not encontrados:
        raise FileNotFoundError(f"No encuentro el cuaderno de la lección {leccion} en {carpeta}: esta función "
                                "necesita una copia del repositorio del curso (no basta el paquete instalado).")
    return encontrados[0]


def texto_en_cuaderno(ruta: Path) -> str | None:
    """El texto entre las marcas del encabezado, o None si el cuaderno no las tiene."""
    for celda in json.loads(ruta.read_text(encoding="utf-8"))["cells"]:
        encontrado = _PATRON.search("".join(celda["source"]))
        if encontrado:
            return encontrado.group(1)
    return None


def escribir_encabezado(ruta: Path, leccion: str) -> bool:
    """Reemplaza el texto entre las marcas por el generado. Devuelve True si cambió algo."""
    cuaderno_json = json.loads(ruta.read_text(encoding="utf-8"))
    nuevo = texto_encabezado(leccion)
    for celda in cuaderno_json["cells"]:
        fuente = "".join(celda["source"])
        if _PATRON.search(fuente):
            reemplazo = _PATRON.sub(lambda _: MARCA_INICIO + nuevo + MARCA_FIN, fuente, count=1)
            if reemplazo == fuente:
                return False
            celda["source"] = reemplazo.splitlines(keepends=True)
            ruta.write_text(json.dumps(cuaderno_json, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
            return True
    raise ValueError(f"{ruta.name} no tiene las marcas {MARCA_INICIO} … {MARCA_FIN} en ninguna celda.")


def tabla() -> str:
    """Tabla de texto: una fila por fase de cada lección (la imprime ``python -m tutor_lib.presupuesto_lecciones``)."""
    lineas = [f"{'lección':<8}{'fase':<72}{'pasos':>7}{'memoria':>12}{'GPU':>9}"]
    for leccion in LECCIONES:
        p = presupuesto_leccion(leccion)
        for fila in p.filas:
            pasos = fila.fase.pasos * fila.fase.repeticiones
            lineas.append(f"{leccion:<8}{fila.fase.nombre[:70]:<72}{pasos:>7}{_gib(fila.memoria_bytes):>12}"
                          f"{_min(fila.segundos):>9}")
        lineas.append(f"{'':<8}{'total de la lección (memoria: la fase más exigente)':<72}{'':>7}"
                      f"{_gib(p.memoria_bytes):>12}{_min(p.segundos):>9}")
    return "\n".join(lineas)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Presupuesto de cada lección en una T4 (estimación).")
    parser.add_argument("--escribir", action="store_true", help="regenera los encabezados de los cuadernos")
    args = parser.parse_args(argv)
    print(tabla())
    if args.escribir:
        for leccion in LECCIONES:
            ruta = cuaderno(leccion)
            if escribir_encabezado(ruta, leccion):
                print(f"encabezado actualizado: {ruta.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
