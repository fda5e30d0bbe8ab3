"""Contabilidad pura de la memoria de un paso de entrenamiento: bytes por parámetro, NF4, LoRA y
:func:`estimar_memoria`, por componente.

Se usa en lessons/07_memoria_y_fine_tuning_completo, lessons/10_lora, lessons/11_qlora y
lessons/13_mas_alla_de_una_gpu (con ``gpus`` y ``estrategia``, ver :mod:`.particion`).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from tutor_lib import formato
from tutor_lib.entorno import InfoGPU
from tutor_lib.vram.activaciones import _activaciones, _rol_lineal
from tutor_lib.vram.base import (
    ATENCIONES, BLOQUE_ADAM_8BIT, BLOQUE_DOBLE_CUANTIZACION, BLOQUE_NF4, BYTES_OFFSET, BYTES_PASO_ADAMW,
    BYTES_TABLAS_8BIT, BYTES_TABLA_DINAMICA, BYTES_TABLA_NF4, COMPONENTES, CONTABILIDADES, METODOS, MINIMO_8BIT,
    OPTIMIZADORES, PRECISIONES, formatear_bytes, _LOTE_TOPE, _booleano, _entero, _opcion, _opcional_entero,
    _real,
)
from tutor_lib.vram.catalogo import buscar_gpu, memoria_utilizable
from tutor_lib.vram.estructura import _Estructura, _cargar_estructura
from tutor_lib.vram.particion import contabilidad_de, comunicacion_por_paso, particionar
from tutor_lib.vram.particion import validar as validar_particion
from tutor_lib.vram.tareas import validar_tarea

# --------------------------------------------------------------------------
# Bytes por parámetro (la tabla de la lección 07)
# --------------------------------------------------------------------------


def _bytes_estados(optimizador: str, bytes_param: int) -> float:
    """Bytes de estado por parámetro entrenable (sin constantes ni contadores)."""
    return {"adamw": 2 * bytes_param, "adamw_8bit": 2, "sgd": 0, "sgd_momentum": bytes_param}[optimizador]


def bytes_por_parametro(
    metodo: str = "completo", precision: str = "mixta", optimizador: str = "adamw", contabilidad: str = "amp"
) -> dict[str, float]:
    """Bytes por parámetro de cada componente del estado estático (sin activaciones).

    Para ``completo`` son bytes por parámetro entrenado; para ``lora``/``qlora``
    se devuelven dos grupos: ``base`` (por parámetro congelado; en qlora, por
    parámetro de una capa lineal cuantizada, sin contar las constantes) y los
    componentes del adaptador (por parámetro de LoRA, en fp32 como los crea
    peft). No incluye los contadores ``step`` ni las constantes de bloque.
    Ejemplo: ``completo``/``mixta``/``adamw`` → 4 + 4 + 8 = 16.
    Se usa en lessons/07_memoria_y_fine_tuning_completo.
    """
    metodo = _opcion("metodo", metodo, METODOS)
    precision = _opcion("precision", precision, PRECISIONES)
    optimizador = _opcion("optimizador", optimizador, OPTIMIZADORES)
    contabilidad = _opcion("contabilidad", contabilidad, CONTABILIDADES)
    if metodo == "completo":
        if precision == "mixta" and contabilidad == "zero":
            return {"pesos": 2, "gradientes": 2, "estados_optimizador": _bytes_estados(optimizador, 4), "copia_maestra_fp32": 4}
        b = 2 if precision == "bf16" else 4
        return {"pesos": b, "gradientes": b, "estados_optimizador": _bytes_estados(optimizador, b), "copia_maestra_fp32": 0}
    base = 4 if precision == "fp32" else 2
    if metodo == "qlora":
        base = 0.5
    return {"base": base, "pesos": 4, "gradientes": 4, "estados_optimizador": _bytes_estados(optimizador, 4), "copia_maestra_fp32": 0}


# --------------------------------------------------------------------------
# Cuantización NF4 (QLoRA)
# --------------------------------------------------------------------------


def bytes_nf4(elementos: int, doble_cuantizacion: bool = True) -> tuple[int, int]:
    """Bytes de una matriz cuantizada a NF4 por bitsandbytes: ``(pesos, constantes)``.

    ``pesos`` = ⌈n/2⌉ (dos valores de 4 bits por byte). ``constantes``: sin doble
    cuantización, un ``absmax`` fp32 por bloque de 64 (4/64 = 0.0625 B por
    parámetro) más la tabla NF4 de la capa (16 × fp32 = 64 B); con doble
    cuantización, el ``absmax`` pasa a 8 bits (1 B por bloque de 64) más un
    ``absmax`` fp32 por cada 256 bloques, la tabla de 8 bits (256 × fp32 =
    1024 B), un ``offset`` fp32 y la tabla NF4: ≈ 8/64 + 32/(64·256) ≈ 0.127
    bits por parámetro. Coincide byte a byte con ``Params4bit.quant_state`` en
    bitsandbytes 0.50. Se usa en lessons/11_qlora.
    """
    n = _entero("elementos", elementos)
    doble_cuantizacion = _booleano("doble_cuantizacion", doble_cuantizacion)
    pesos = (n + 1) // 2
    bloques = -(-n // BLOQUE_NF4)
    if not doble_cuantizacion:
        return pesos, 4 * bloques + BYTES_TABLA_NF4
    bloques2 = -(-bloques // BLOQUE_DOBLE_CUANTIZACION)
    return pesos, bloques + 4 * bloques2 + BYTES_TABLA_DINAMICA + BYTES_OFFSET + BYTES_TABLA_NF4


def _nf4_aproximado(elementos: float, capas: float, doble: bool) -> tuple[float, float]:
    """Versión continua de :func:`bytes_nf4` para un número de parámetros sin estructura."""
    if not doble:
        return elementos / 2, elementos * 4 / BLOQUE_NF4 + capas * BYTES_TABLA_NF4
    constantes = elementos / BLOQUE_NF4 + elementos * 4 / (BLOQUE_NF4 * BLOQUE_DOBLE_CUANTIZACION)
    return elementos / 2, constantes + capas * (BYTES_TABLA_DINAMICA + BYTES_OFFSET + BYTES_TABLA_NF4)


# --------------------------------------------------------------------------
# LoRA
# --------------------------------------------------------------------------

_DIMENSIONES_LLAMA = {
    "q_proj": ("d", "d"), "k_proj": ("d", "kv"), "v_proj": ("d", "kv"), "o_proj": ("d", "d"),
    "gate_proj": ("d", "i"), "up_proj": ("d", "i"), "down_proj": ("i", "d"),
}


@dataclass
class _Lora:
    entrenables: float
    tensores: list[float]  # elementos de cada tensor A y B
    modulos_por_capa: tuple[str, ...]  # papeles adaptados en un bloque (para las activaciones)


def _normalizar_objetivos(modulos: Any) -> list[str] | str:
    if isinstance(modulos, str):
        texto = modulos.strip()
        if texto.lower() == "all-linear":
            return "all-linear"
        nombres = [n.strip() for n in texto.split(",") if n.strip()]
    elif isinstance(modulos, (list, tuple, set, frozenset)):
        nombres = []
        for n in modulos:
            if not isinstance(n, str):
                raise TypeError(f"Cada módulo debe ser un texto como 'q_proj'; recibí {n!r} ({type(n).__name__}).")
            nombres.append(n.strip())
    else:
        raise TypeError(f"modulos debe ser una lista de nombres o 'all-linear'; recibí {modulos!r} ({type(modulos).__name__}).")
    if not nombres or any(not n for n in nombres):
        raise ValueError("modulos no puede estar vacío: da nombres como ['q_proj', 'v_proj'] o 'all-linear'.")
    return list(dict.fromkeys(nombres))


def _lora_en_modelo(est: _Estructura, r: int, objetivos) -> _Lora:
    import torch

    try:
        from transformers.pytorch_utils import Conv1D
    except ImportError:  # pragma: no cover
        Conv1D = ()
    modelo = est.modelo

    def dims(m):
        if isinstance(m, torch.nn.Linear):
            return m.in_features, m.out_features
        if Conv1D and isinstance(m, Conv1D):
            return int(m.weight.shape[0]), int(m.weight.shape[1])
        if isinstance(m, torch.nn.Embedding):
            return m.num_embeddings, m.embedding_dim
        return None

    elegidas = []
    if objetivos == "all-linear":
        salida = modelo.get_output_embeddings() if hasattr(modelo, "get_output_embeddings") else None
        for nombre, m in modelo.named_modules():
            if nombre and m is not salida and dims(m) and not isinstance(m, torch.nn.Embedding):
                elegidas.append((nombre, m))
    else:
        vistos = set()
        for nombre, m in modelo.named_modules():
            clave = next((o for o in objetivos if nombre == o or nombre.endswith("." + o)), None)
            if clave is None:
                continue
            if dims(m) is None:
                raise ValueError(f"La capa {nombre!r} ({type(m).__name__}) no es lineal: LoRA no la puede adaptar.")
            vistos.add(clave)
            elegidas.append((nombre, m))
        faltan = [o for o in objetivos if o not in vistos]
        if faltan:
            disponibles = sorted({n.rsplit(".", 1)[-1] for n, m in modelo.named_modules() if n and dims(m)})
            raise ValueError(
                f"Ninguna capa del modelo se llama {faltan[0]!r}. Capas disponibles: {', '.join(disponibles)} o 'all-linear'."
            )
    tensores: list[float] = []
    for _, m in elegidas:
        entrada, salida_ = dims(m)
        tensores += [r * entrada, salida_ * r]
    entrenables = sum(tensores)
    try:  # la cuenta oficial del curso vive en tutor_lib.lora
        from tutor_lib import lora as _lora_mod

        conteo = _lora_mod.contar_parametros_lora(modelo, r, objetivos)
        if conteo.parametros_entrenables != entrenables:
            est.notas.append(
                f"Aviso: tutor_lib.lora cuenta {formato.entero(conteo.parametros_entrenables)} parámetros de LoRA y esta "
                f"cuenta {formato.entero(int(entrenables))}; se usa la de tutor_lib.lora."
            )
            entrenables = conteo.parametros_entrenables
    except ImportError:  # pragma: no cover - lora.py aún no existe
        pass
    # Papeles adaptados dentro del primer bloque, para el ajuste de activaciones.
    roles = set()
    for nombre, _ in elegidas:
        rol = _rol_lineal(nombre, est.forma.familia)
        if rol:
            roles.add(rol)
    return _Lora(float(entrenables), tensores, tuple(sorted(roles)))


_DIMENSIONES_BERT = {
    "query": ("d", "d"), "key": ("d", "d"), "value": ("d", "d"), "attention.output.dense": ("d", "d"),
    "intermediate.dense": ("d", "i"), "output.dense": ("i", "d"),
}


def _lora_en_numero(est: _Estructura, r: int, objetivos) -> _Lora:
    f = est.forma
    dimensiones = _DIMENSIONES_BERT if f.familia == "bert" else _DIMENSIONES_LLAMA
    medidas = {"d": f.oculto, "kv": f.oculto * f.cabezas_kv / f.cabezas, "i": f.intermedio}
    if objetivos == "all-linear":
        nombres = list(dimensiones)
    else:
        nombres = []
        for n in objetivos:  # «dense» en BERT elige las tres capas densas de cada bloque, como en peft
            nombres += [m for m in dimensiones if m == n or m.endswith("." + n)] or [n]
        nombres = list(dict.fromkeys(nombres))
    desconocidos = [n for n in nombres if n not in dimensiones]
    if desconocidos:
        tipo = "BERT" if f.familia == "bert" else "Llama"
        raise ValueError(
            f"Con solo un número de parámetros supongo nombres de {tipo} y no conozco {desconocidos[0]!r}; "
            f"usa {', '.join(dimensiones)} o 'all-linear', o da un config.json."
        )
    tensores: list[float] = []
    for n in nombres:
        entrada, salida = (medidas[x] for x in dimensiones[n])
        tensores += [r * entrada * f.capas, salida * r * f.capas]
    est.notas.append("LoRA: parámetros entrenables estimados con una forma aproximada (da un config para la cifra exacta).")
    return _Lora(float(sum(tensores)), tensores, tuple(nombres))


# --------------------------------------------------------------------------
# Estimación de memoria
# --------------------------------------------------------------------------


@dataclass
class EstimacionMemoria:
    """Resultado de :func:`estimar_memoria` (todo en bytes enteros).

    ``estatica_bytes`` = pesos + gradientes + estados del optimizador + copia
    maestra + constantes de cuantización (exacta con un config); ``activaciones_bytes``
    es una **estimación**; ``componentes`` tiene las seis claves de
    :data:`COMPONENTES`; ``gpu`` (si diste una) dice si cabe y el lote máximo.
    """

    parametros: int
    parametros_entrenables: int
    estatica_bytes: int
    activaciones_bytes: int
    total_bytes: int
    componentes: dict[str, int]
    notas: list[str] = field(default_factory=list)
    metodo: str = "completo"
    precision: str = "mixta"
    optimizador: str = "adamw"
    lote: int | None = None
    secuencia: int | None = None
    activaciones_detalle: dict[str, int] = field(default_factory=dict)
    gpu: dict[str, Any] | None = None
    #: GPUs en paralelo de datos y estrategia (ver :mod:`tutor_lib.vram.particion`). Con ``gpus`` > 1,
    #: ``componentes``, ``estatica_bytes``, ``activaciones_bytes`` y ``total_bytes`` son **por GPU**.
    gpus: int = 1
    estrategia: str = "ddp"
    #: Los componentes de una sola GPU (sin partición), para comparar.
    componentes_sin_particion: dict[str, int] = field(default_factory=dict)
    #: Bytes que envía cada GPU por paso del optimizador (0 con una GPU).
    comunicacion_bytes: int = 0
    #: La tarea (cabeza) del modelo contado: ``clasificacion``, ``causal``, ``mascara``, ``base``
    #: (ver :mod:`tutor_lib.vram.tareas`) o ``None`` si es otra; y esa tarea dicha en una línea.
    tarea: str | None = None
    tarea_descripcion: str = ""
    #: Cómo se repartió la precisión mixta: ``amp`` (PyTorch) o ``zero`` (DeepSpeed); ver
    #: :func:`tutor_lib.vram.particion.contabilidad_de`. Solo cambia las cifras en completo con mixta.
    contabilidad: str = "amp"

    def a_dict(self) -> dict[str, Any]:
        """Diccionario listo para JSON (lo usa ``tutor vram --json``)."""
        return asdict(self)


def _bytes_optimizador(optimizador: str, tensores: Iterable[float], bytes_param: int, conocidos: bool) -> float:
    """Estado del optimizador para tensores entrenables de ``tensores`` elementos."""
    total = 0.0
    hay_8bit = False
    for n in tensores:
        if optimizador == "adamw":
            total += 2 * n * bytes_param + (BYTES_PASO_ADAMW if conocidos else 0)
        elif optimizador == "sgd_momentum":
            total += n * bytes_param
        elif optimizador == "adamw_8bit":
            if conocidos and n < MINIMO_8BIT:
                total += 8 * n
            else:
                hay_8bit = True
                bloques = math.ceil(n / BLOQUE_ADAM_8BIT) if conocidos else n / BLOQUE_ADAM_8BIT
                total += 2 * n + 2 * 4 * bloques
    if hay_8bit:
        total += BYTES_TABLAS_8BIT
    return total


def _nota_particion(gpus: int, estrategia: str) -> str:
    que = {
        "ddp": "nada se divide: cada GPU guarda el modelo, los gradientes y el optimizador enteros",
        "zero1": "cada GPU guarda 1/{n} de los estados del optimizador (y de la copia maestra)",
        "zero2": "cada GPU guarda 1/{n} de los estados del optimizador, la copia maestra y los gradientes",
        "zero3": "cada GPU guarda 1/{n} de pesos, gradientes y optimizador; reúne cada capa al usarla",
        "fsdp": "FSDP FULL_SHARD: cada GPU guarda 1/{n} de pesos, gradientes y optimizador (como ZeRO-3)",
    }[estrategia].format(n=gpus)
    return f"{gpus} GPUs con {estrategia}: {que}. Las cifras son por GPU; el lote es por dispositivo."


class _Calculo:
    """Todo lo que no depende del lote: así :func:`lote_maximo` no reconstruye el modelo."""

    def __init__(
        self, parametros, metodo, precision, optimizador, r, modulos, checkpointing, doble_cuantizacion,
        contabilidad, atencion, preparar_kbit, fraccion_lineal, tarea,
    ):
        self.metodo = _opcion("metodo", metodo, METODOS)
        self.precision = _opcion("precision", precision, PRECISIONES)
        self.optimizador = _opcion("optimizador", optimizador, OPTIMIZADORES)
        self.contabilidad = _opcion("contabilidad", contabilidad, CONTABILIDADES)
        self.atencion = _opcion("atencion", atencion, ATENCIONES)
        self.checkpointing = _booleano("checkpointing", checkpointing)
        self.doble = _booleano("doble_cuantizacion", doble_cuantizacion)
        self.preparar_kbit = _booleano("preparar_kbit", preparar_kbit)
        if fraccion_lineal is not None:
            fraccion_lineal = _real("fraccion_lineal", fraccion_lineal, 0.0, 1.0)
        if tarea is not None:
            tarea = validar_tarea(tarea)
        notas: list[str] = []
        usa_lora = self.metodo in ("lora", "qlora")
        if usa_lora:
            if r is None:
                r = 16
                notas.append("Sin r: uso r=16.")
            if modulos is None:
                modulos = "all-linear"
                notas.append("Sin modulos: uso 'all-linear' (todas las capas lineales salvo la cabeza de salida).")
            self.r = _entero("r", r, 1, 4096)
            objetivos = _normalizar_objetivos(modulos)
        else:
            if r is not None:
                _entero("r", r, 1, 4096)
            if modulos is not None:
                _normalizar_objetivos(modulos)
            if r is not None or modulos is not None:
                notas.append("r y modulos solo cuentan con metodo 'lora' o 'qlora'; aquí se ignoran.")
            self.r = 0
        est = _cargar_estructura(parametros, tarea, fraccion_lineal)
        self.est = est
        self.lora = None
        if usa_lora:
            self.lora = (_lora_en_modelo if est.modelo is not None else _lora_en_numero)(est, self.r, objetivos)
        self.conocidos = est.tensores is not None
        self.componentes, notas_est = self._estatica()
        self.notas = notas + notas_est + est.notas

    # -- estado estático --
    def _estatica(self) -> tuple[dict[str, float], list[str]]:
        est, p, opt = self.est, self.precision, self.optimizador
        c = {k: 0.0 for k in COMPONENTES}
        notas = []
        tensores = est.tensores if self.conocidos else [float(est.parametros)]
        if self.metodo == "completo":
            if p == "mixta" and self.contabilidad == "zero":
                c["pesos"] = 2 * est.parametros
                c["gradientes"] = 2 * est.parametros
                c["copia_maestra_fp32"] = 4 * est.parametros
                c["estados_optimizador"] = _bytes_optimizador(opt, tensores, 4, self.conocidos)
                notas.append(
                    "Contabilidad de ZeRO: pesos y gradientes en 16 bits + copia maestra fp32 + estados fp32 "
                    "(los mismos bytes que la de AMP, repartidos de otra forma)."
                )
            else:
                b = 2 if p == "bf16" else 4
                c["pesos"] = b * est.parametros
                c["gradientes"] = b * est.parametros
                c["estados_optimizador"] = _bytes_optimizador(opt, tensores, b, self.conocidos)
                if p == "mixta":
                    notas.append(
                        "Precisión mixta (AMP): pesos, gradientes y estados en fp32 (los pesos fp32 son la copia "
                        "maestra); autocast añade copias de 16 bits de los pesos de las capas lineales durante el "
                        "paso, sumadas a las activaciones."
                    )
                elif p == "bf16":
                    notas.append(
                        "bf16 puro: sin copia maestra fp32; AdamW guarda m y v en bf16 (8 B por parámetro en total). "
                        "Pasos muy pequeños pueden perderse por redondeo en bf16."
                    )
            self.entrenables = est.parametros
            return c, notas

        # LoRA y QLoRA: base congelada + adaptador en fp32 (peft autocast_adapter_dtype=True)
        lora = self.lora
        b_base = 4 if p == "fp32" else 2
        if self.metodo == "lora":
            base = b_base * est.parametros
        else:
            est.preparar_cuantizables()
            if est.origen_cuantizables:
                notas.append(est.origen_cuantizables)
            b_resto = 4 if (p == "fp32" or self.preparar_kbit) else 2
            resto = est.parametros - est.elementos_cuantizables
            if est.cuantizables is not None:
                pesos_q = constantes = 0
                for n in est.cuantizables:
                    w, k = bytes_nf4(n, self.doble)
                    pesos_q += w
                    constantes += k
            else:
                pesos_q, constantes = _nf4_aproximado(est.elementos_cuantizables, est.capas_cuantizables, self.doble)
            base = pesos_q + b_resto * resto
            c["constantes_cuantizacion"] = constantes
            notas.append(
                "QLoRA: capas lineales en NF4 (0.5 B por parámetro) + constantes por bloque de 64 "
                + ("con doble cuantización (≈0.127 bits por parámetro)" if self.doble else "sin doble cuantización (0.5 bits por parámetro)")
                + f"; embeddings, normas y lm_head en {'fp32' if b_resto == 4 else '16 bits'}."
            )
            if not self.preparar_kbit and p != "fp32":
                notas.append(
                    "Si llamas a peft.prepare_model_for_kbit_training, pasa a fp32 todo lo no cuantizado "
                    "(+2 B por parámetro de embeddings, normas y lm_head): usa preparar_kbit=True."
                )
        c["pesos"] = base + 4 * lora.entrenables
        c["gradientes"] = 4 * lora.entrenables
        c["estados_optimizador"] = _bytes_optimizador(
            self.optimizador, lora.tensores if self.conocidos else [lora.entrenables], 4, self.conocidos
        )
        notas.append(
            "LoRA: la base está congelada (sin gradientes ni estados); los adaptadores A y B son fp32 "
            "(peft los crea así) y se entrenan con 4 + 4 + estados del optimizador por parámetro."
        )
        self.entrenables = lora.entrenables
        return c, notas

    # -- activaciones --
    def activaciones(self, lote: int, secuencia: int) -> tuple[float, dict[str, int], list[str]]:
        p = self.precision
        # Con la contabilidad de ZeRO los pesos ya están en 16 bits (DeepSpeed no usa autocast): no hay copias.
        autocast = self.metodo == "completo" and p == "mixta" and self.contabilidad == "amp"
        b = 4 if p == "fp32" else 2
        act = _activaciones(
            lote, secuencia, self.est.forma, b, autocast=autocast, checkpointing=self.checkpointing,
            atencion=self.atencion, lora_r=self.r if self.lora else 0,
            lora_modulos=self.lora.modulos_por_capa if self.lora else (),
        )
        total = float(act.total_bytes)
        detalle = dict(act.terminos)
        notas = list(act.notas)
        if autocast:
            copias = 2 * self.est.pesos_lineales
            detalle["copias_autocast"] = int(round(copias))
            total += copias
            notas.append(
                f"Autocast guarda copias de 16 bits de los pesos de las capas lineales: {formatear_bytes(copias)} "
                "transitorios incluidos en «activaciones»."
            )
        if p == "bf16":
            notas.append(
                "bf16: activaciones de un modelo bf16 tal cual; con autocast (Trainer con bf16=True) algunas "
                "operaciones (normas, softmax) guardan fp32 y pueden ocupar algo más."
            )
        if self.metodo == "qlora":
            transitorio = 2 * self.est.lineal_mayor if p != "fp32" else 4 * self.est.lineal_mayor
            detalle["peso_descuantizado"] = int(round(transitorio))
            total += transitorio
            notas.append("QLoRA: cada capa descuantiza su peso a 16 bits al vuelo (se cuenta la capa más grande).")
        return total, detalle, notas

    def para_lote(self, lote: int | None, secuencia: int | None, gpus: int = 1,
                  estrategia: str = "ddp") -> EstimacionMemoria:
        componentes = {k: int(round(v)) for k, v in self.componentes.items()}
        notas = list(self.notas)
        detalle: dict[str, int] = {}
        if lote is not None and secuencia is not None:
            act, detalle, notas_act = self.activaciones(lote, secuencia)
            componentes["activaciones"] = int(round(act))
            notas += notas_act
        else:
            notas.append("Sin lote y secuencia no estimo activaciones: solo el estado estático.")
        sin_particion = dict(componentes)
        componentes = particionar(sin_particion, gpus, estrategia)
        comunicacion = comunicacion_por_paso(sin_particion, gpus, estrategia)
        if gpus > 1:
            notas.append(_nota_particion(gpus, estrategia))
            if estrategia in ("zero3", "fsdp") and "copias_autocast" in detalle:
                notas.append("Con autocast de PyTorch, las copias de 16 bits de los pesos que guarda el backward "
                             "no se dividen entre GPUs (siguen en «activaciones»): FSDP las evita con su propia "
                             "precisión mixta (MixedPrecisionPolicy, reúne los pesos ya en 16 bits) y DeepSpeed "
                             "guarda los pesos en 16 bits (contabilidad='zero').")
            if estrategia in ("zero3", "fsdp"):
                notas.append("Al usar cada capa se reúne entera (all-gather) y se libera después: esa copia "
                             "transitoria de una capa no está incluida (DeepSpeed la estima como 4 B por "
                             "parámetro de la capa más grande).")
        estatica = sum(v for k, v in componentes.items() if k != "activaciones")
        if self.conocidos and self.optimizador == "adamw":
            notas.append("AdamW: incluye un contador «step» fp32 (4 B) por tensor entrenable.")
        notas.append("No incluye los buffers del modelo (p. ej. inv_freq de RoPE): unos pocos KiB.")
        return EstimacionMemoria(
            parametros=int(self.est.parametros),
            parametros_entrenables=int(round(self.entrenables)),
            estatica_bytes=estatica,
            activaciones_bytes=componentes["activaciones"],
            total_bytes=estatica + componentes["activaciones"],
            componentes=componentes,
            notas=notas,
            metodo=self.metodo,
            precision=self.precision,
            optimizador=self.optimizador,
            lote=lote,
            secuencia=secuencia,
            activaciones_detalle=detalle,
            gpus=gpus,
            estrategia=estrategia,
            componentes_sin_particion=sin_particion,
            comunicacion_bytes=comunicacion,
            tarea=self.est.tarea,
            tarea_descripcion=self.est.tarea_descripcion,
            contabilidad=self.contabilidad,
        )

    def lote_maximo(self, gpu: InfoGPU, secuencia: int, gpus: int = 1, estrategia: str = "ddp") -> int:
        utilizable = memoria_utilizable(gpu)

        def cabe_lote(b: int) -> bool:
            return self.para_lote(b, secuencia, gpus, estrategia).total_bytes <= utilizable

        if not cabe_lote(1):
            return 0
        bajo, alto = 1, 2
        while alto <= _LOTE_TOPE and cabe_lote(alto):
            bajo, alto = alto, alto * 2
        alto = min(alto, _LOTE_TOPE + 1)
        while alto - bajo > 1:
            medio = (bajo + alto) // 2
            if cabe_lote(medio):
                bajo = medio
            else:
                alto = medio
        return bajo


def _argumentos(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    defectos = dict(
        metodo="completo", precision="mixta", optimizador="adamw", r=None, modulos=None, checkpointing=False,
        doble_cuantizacion=True, contabilidad=None, atencion="sdpa", preparar_kbit=False, fraccion_lineal=None,
        tarea=None, gpus=1, estrategia="ddp",
    )
    desconocidos = set(kwargs) - set(defectos) - {"parametros"}
    if desconocidos:
        raise TypeError(f"Argumento desconocido: {sorted(desconocidos)[0]!r}. Válidos: parametros, {', '.join(defectos)}.")
    return {**defectos, **kwargs}


def estimar_memoria(
    parametros: Any,
    metodo: str = "completo",
    precision: str = "mixta",
    optimizador: str = "adamw",
    r: int | None = None,
    modulos: Sequence[str] | str | None = None,
    lote: int | None = None,
    secuencia: int | None = None,
    checkpointing: bool = False,
    doble_cuantizacion: bool = True,
    gpu: Any = None,
    *,
    contabilidad: str | None = None,
    atencion: str = "sdpa",
    preparar_kbit: bool = False,
    fraccion_lineal: float | None = None,
    tarea: str | None = None,
    gpus: int = 1,
    estrategia: str = "ddp",
) -> EstimacionMemoria:
    """Memoria de GPU de un paso de entrenamiento, por componente y en bytes.

    ``parametros``: un número (``7e9``), un ``PretrainedConfig``, un dict, la ruta
    a un ``config.json``, un nombre del Hub (solo la configuración, sin pesos; en
    modo rápido sin red da error) o un ``nn.Module``. Con un config se construye
    el modelo en el dispositivo «meta» y las cuentas son exactas (lm_head y
    embeddings atados incluidos, una sola vez). Con un número, la forma (para
    activaciones y LoRA) y la fracción cuantizable de QLoRA se estiman
    (``fraccion_lineal`` la fija a mano); con un número se supone un modelo de
    lenguaje tipo Llama (logits sobre 32 000 tokens) salvo ``tarea="clasificacion"``
    (encoder tipo BERT con un clasificador), ``tarea="mascara"`` (encoder tipo BERT
    con su cabeza de lenguaje) o ``tarea="base"`` (sin cabeza). Con un config,
    ``tarea`` elige la clase que se construye (ver :mod:`tutor_lib.vram.tareas`;
    ``None``: la de ``config.architectures``); el resultado dice cuál en
    ``tarea`` y ``tarea_descripcion``.

    ``metodo``: ``completo``, ``lora`` o ``qlora`` (``r``, ``modulos``; por
    defecto 16 y ``"all-linear"``). ``precision``: ``fp32``, ``mixta`` o ``bf16``.
    ``optimizador``: ``adamw``, ``adamw_8bit``, ``sgd``, ``sgd_momentum``.
    ``lote`` y ``secuencia`` (juntos) añaden la **estimación** de activaciones;
    ``checkpointing`` activa gradient checkpointing. ``doble_cuantizacion`` solo
    afecta a QLoRA. ``gpu`` (nombre de :data:`GPUS` o ``InfoGPU``) añade
    ``cabe`` y ``lote_maximo``. ``gpus`` (GPUs en paralelo de datos) y ``estrategia`` (``ddp``,
    ``zero1``, ``zero2``, ``zero3`` o ``fsdp``, ver :mod:`tutor_lib.vram.particion`) dan la memoria
    **por GPU**, con ``lote`` por dispositivo. ``contabilidad`` (``amp`` o ``zero``) reparte la precisión
    mixta; sin darla, la del motor de la estrategia (``zero1/2/3``: DeepSpeed; ``ddp`` y ``fsdp``: PyTorch;
    ver :func:`tutor_lib.vram.particion.contabilidad_de`). Ejemplo: 7e9 parámetros, completo, mixta, AdamW
    → 112e9 bytes de estado estático (≈ 104.3 GiB).
    Se usa en lessons/07_memoria_y_fine_tuning_completo, lessons/10_lora y lessons/11_qlora.
    """
    lote = _opcional_entero("lote", lote, 1, _LOTE_TOPE)
    secuencia = _opcional_entero("secuencia", secuencia, 1, 10**7)
    gpus, estrategia = validar_particion(gpus, estrategia)
    if (lote is None) != (secuencia is None) and lote is not None:
        raise ValueError("Para estimar activaciones da lote y secuencia juntos (p. ej. lote=8, secuencia=512).")
    info = buscar_gpu(gpu) if gpu is not None else None
    calculo = _Calculo(
        parametros, metodo, precision, optimizador, r, modulos, checkpointing, doble_cuantizacion,
        contabilidad_de(estrategia, contabilidad), atencion, preparar_kbit, fraccion_lineal, tarea,
    )
    resultado = calculo.para_lote(lote, secuencia, gpus, estrategia)
    if info is not None:
        utilizable = memoria_utilizable(info)
        resultado.gpu = {
            "nombre": info.nombre,
            "memoria_nominal": getattr(info, "memoria_nominal", formatear_bytes(info.memoria_bytes)),
            "memoria_total_bytes": int(info.memoria_bytes),
            "memoria_utilizable_bytes": utilizable,
            "soporta_bf16": info.soporta_bf16,
            "cabe": resultado.total_bytes <= utilizable,
            "lote_maximo": calculo.lote_maximo(info, secuencia, gpus, estrategia) if secuencia is not None else None,
        }
        if secuencia is None:
            resultado.notas.append("Para calcular el lote máximo en la GPU indica la secuencia.")
        if calculo.precision == "bf16" and not info.soporta_bf16:
            resultado.notas.append(
                f"La {info.nombre} (capacidad {info.capacidad[0]}.{info.capacidad[1]}) no tiene bf16 real: "
                "usa precisión mixta con fp16 (precision='mixta')."
            )
    return resultado


def lote_maximo(gpu: Any, secuencia: int, **kwargs: Any) -> int:
    """El mayor lote (ejemplos por paso y dispositivo) cuya estimación cabe en ``gpu``; 0 si no cabe ni 1.

    ``kwargs`` son los de :func:`estimar_memoria` salvo ``lote`` y ``gpu``
    (``parametros`` es obligatorio). Busca por duplicación y bisección sobre la
    memoria utilizable de :func:`memoria_utilizable`.
    Se usa en lessons/07_memoria_y_fine_tuning_completo.
    """
    if "lote" in kwargs or "gpu" in kwargs:
        raise TypeError("lote_maximo calcula el lote: no pases 'lote' ni 'gpu' en los argumentos extra.")
    if "parametros" not in kwargs:
        raise TypeError("lote_maximo necesita parametros=... (número, config o modelo).")
    info = buscar_gpu(gpu)
    secuencia = _entero("secuencia", secuencia, 1, 10**7)
    args = _argumentos(kwargs)
    gpus, estrategia = validar_particion(args["gpus"], args["estrategia"])
    calculo = _Calculo(
        args["parametros"], args["metodo"], args["precision"], args["optimizador"], args["r"], args["modulos"],
        args["checkpointing"], args["doble_cuantizacion"], contabilidad_de(estrategia, args["contabilidad"]),
        args["atencion"], args["preparar_kbit"], args["fraccion_lineal"], args["tarea"],
    )
    return calculo.lote_maximo(info, secuencia, gpus, estrategia)


def cabe(estimacion: Any, gpu: Any) -> bool:
    """``True`` si ``estimacion`` (una :class:`EstimacionMemoria` o bytes) cabe en la memoria utilizable de ``gpu``.

    Se usa en lessons/07_memoria_y_fine_tuning_completo.
    """
    if isinstance(estimacion, EstimacionMemoria):
        total = estimacion.total_bytes
    elif isinstance(estimacion, numbers.Real) and not isinstance(estimacion, bool):
        total = float(estimacion)
        if not math.isfinite(total) or total < 0:
            raise ValueError(f"La memoria a comprobar debe ser un número de bytes ≥ 0; recibí {estimacion!r}.")
    else:
        raise TypeError(
            f"cabe necesita una EstimacionMemoria o un número de bytes; recibí {type(estimacion).__name__}."
        )
    return total <= memoria_utilizable(gpu)
