"""Catálogo de GPUs: memoria total que ve CUDA, memoria nominal, capacidad de cómputo (bf16 real desde 8.0).

Se usa en lessons/07_memoria_y_fine_tuning_completo y lessons/13_mas_alla_de_una_gpu.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tutor_lib.entorno import InfoGPU
from tutor_lib.vram.base import CONTEXTO_CUDA_BYTES, FRACCION_FRAGMENTACION, MIB

# --------------------------------------------------------------------------
# Catálogo de GPUs
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class GPU(InfoGPU):
    """Una GPU del catálogo: ``InfoGPU`` + la memoria nominal de la hoja de datos.

    ``memoria_bytes`` es la memoria total que muestra ``nvidia-smi`` (en MiB;
    CUDA ve un poco menos, ver :data:`GPUS`); ``memoria_nominal`` es la etiqueta comercial
    («16 GB»). :func:`memoria_utilizable` resta el contexto de CUDA y la
    fragmentación.
    """

    memoria_nominal: str = ""
    nota: str = ""

    @property
    def memoria_utilizable_bytes(self) -> int:
        return memoria_utilizable(self)


def _gpu(nombre, nominal, mib, capacidad, nota=""):
    return GPU(nombre=nombre, memoria_bytes=mib * MIB, capacidad=capacidad, memoria_nominal=nominal, nota=nota)


#: Catálogo: clave → :class:`GPU`. Memoria total según ``nvidia-smi`` con drivers recientes (R525 en
#: adelante; los R450–R470 muestran unos cientos de MiB menos, p. ej. 15 109 en la T4 o 81 251 en la A100
#: de 80 GB). CUDA (``torch.cuda.get_device_properties().total_memory``) ve además unos 250–800 MiB menos
#: (la fila «Reserved» de ``nvidia-smi -q``): por eso :func:`memoria_utilizable` resta el contexto.
#: bf16 real solo con capacidad de cómputo ≥ 8.0 (la T4 es 7.5).
#:
#: Fuentes (salida de ``nvidia-smi`` publicada, consultadas en diciembre de 2026):
#: T4 15360 MiB: github.com/modal-labs/modal-client/pull/2797 («T4: 15360MiB»);
#: L4 23034 MiB: github.com/NVIDIA/TensorRT-LLM/issues/2398 («7086MiB / 23034MiB»);
#: A10G 23028 MiB: github.com/NVIDIA/DCGM/issues/232 («NVIDIA A10G … 8722MiB / 23028MiB»);
#: RTX 3090 24576 MiB: github.com/noonghunna/club-3090/issues/390 («15005MiB / 24576MiB», driver 580);
#: RTX 4090 24564 MiB: github.com/vllm-project/vllm/issues/7553 («23859MiB / 24564MiB»);
#: A100 40GB 40960 MiB: github.com/bottlerocket-os/bottlerocket-core-kit/pull/834 («A100-SXM4-40GB … / 40960MiB»);
#: A100 80GB 81920 MiB: github.com/allenai/PeerRead/issues/40 («A100-SXM… 0MiB / 81920MiB»);
#: H100 80GB (SXM, HBM3) 81559 MiB: github.com/NVIDIA/nccl/issues/1264 («H100 80GB HBM3 … / 81559MiB»);
#: H200 141GB 143771 MiB: la memoria nominal en la ficha de MLCommons inference_results_v4.1
#: (closed/NVIDIA/systems/H200-SXM-141GBx8_TRT_MaxQ.json, «141 GB», HBM3e) y «0MiB / 143771MiB» en
#: github.com/sungwon-chae/arxiv_confi (tmp_memo.md).
#: Capacidades de cómputo: developer.nvidia.com/cuda-gpus (la A10G no figura por nombre: es una A10, 8.6,
#: según github.com/facebookincubator/AITemplate/pull/279).
GPUS: dict[str, GPU] = {
    "T4": _gpu("T4", "16 GB", 15360, (7, 5), "Colab gratis; 16 GB nominales, 15 360 MiB en nvidia-smi; sin bf16"),
    "L4": _gpu("L4", "24 GB", 23034, (8, 9), "Colab de pago"),
    "A10G": _gpu("A10G", "24 GB", 23028, (8, 6), "AWS g5"),
    "RTX 3090": _gpu("RTX 3090", "24 GB", 24576, (8, 6)),
    "RTX 4090": _gpu("RTX 4090", "24 GB", 24564, (8, 9)),
    "A100 40GB": _gpu("A100 40GB", "40 GB", 40960, (8, 0), "Colab de pago"),
    "A100 80GB": _gpu("A100 80GB", "80 GB", 81920, (8, 0)),
    "H100 80GB": _gpu("H100 80GB", "80 GB", 81559, (9, 0), "SXM"),
    "H200 141GB": _gpu("H200 141GB", "141 GB", 143771, (9, 0)),
}

_ALIAS_GPU = {
    "3090": "RTX 3090", "4090": "RTX 4090", "h100": "H100 80GB", "h200": "H200 141GB",
    "a10040": "A100 40GB", "a10080": "A100 80GB", "teslat4": "T4", "a10": "A10G",
}


def _clave(texto: str) -> str:
    return "".join(ch for ch in texto.lower() if ch.isalnum())


def buscar_gpu(gpu: Any) -> InfoGPU:
    """Devuelve la GPU del catálogo por nombre (sin distinguir mayúsculas ni espacios) o la ``InfoGPU`` dada.

    Acepta ``"T4"``, ``"a100 80gb"``, ``"rtx4090"``, ``"H100"``… o una
    ``entorno.InfoGPU`` (la GPU detectada con ``entorno.info_gpu()``).
    Se usa en lessons/07_memoria_y_fine_tuning_completo.
    """
    if isinstance(gpu, InfoGPU):
        return gpu
    if not isinstance(gpu, str):
        raise TypeError(f"gpu debe ser un nombre como 'T4' o una InfoGPU; recibí {gpu!r} ({type(gpu).__name__}).")
    buscada = _clave(gpu)
    for clave, info in GPUS.items():
        if _clave(clave) == buscada:
            return info
    if buscada in _ALIAS_GPU:
        return GPUS[_ALIAS_GPU[buscada]]
    if buscada == "a100":
        raise ValueError("Hay dos A100: di 'A100 40GB' (la de Colab) o 'A100 80GB'.")
    raise ValueError(f"GPU desconocida: {gpu!r}. Elige una de: {', '.join(GPUS)}.")


def memoria_utilizable(gpu: Any) -> int:
    """Bytes que un entrenamiento puede usar de verdad en ``gpu``.

    Memoria total − contexto de CUDA (512 MiB) y, de lo que queda, un 5 % por
    fragmentación del asignador de PyTorch. En una T4: 15 360 MiB →
    ≈ 13.8 GiB (14.8 GB). Se usa en lessons/07_memoria_y_fine_tuning_completo.
    """
    info = buscar_gpu(gpu)
    libre = max(int(info.memoria_bytes) - CONTEXTO_CUDA_BYTES, 0)
    return int(libre * (1 - FRACCION_FRAGMENTACION))


