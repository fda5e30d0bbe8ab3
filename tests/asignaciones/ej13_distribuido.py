"""Variantes de ej13_distribuido: otras soluciones correctas y errores típicos (las usa tests/test_asignaciones.py).

Puntos automáticos por parte: promediar_gradientes 4 (sincronía 1, lote entero 2, congelados 1),
sincronizar_pesos 3 (broadcast 2, entrenamiento 1), plan_distribuido y acumulacion_para 4, ZeRO 4.
Las partes 1 y 2 corren de verdad en 2 y 3 procesos de gloo (tutor_lib.juez.multiproceso).
"""

TOTAL = 15

_PROMEDIAR = '''
def promediar_gradientes(modelo):
    """Deja en el .grad de cada parámetro el promedio de los gradientes de todos los procesos."""
{cuerpo}
'''

_SINCRONIZAR = '''
def sincronizar_pesos(modelo):
    """Copia, en su lugar, los parámetros del proceso 0 a todos los procesos."""
{cuerpo}
'''

_PLAN = '''
def plan_distribuido(n_ejemplos, lote, acumulacion, dispositivos, epocas, warmup_steps):
    """Lote efectivo, pasos por época, pasos totales y pasos de warmup con varios dispositivos (un dict de int)."""
{cuerpo}


def acumulacion_para(lote_efectivo, lote, dispositivos):
    """gradient_accumulation_steps que da `lote_efectivo` con `dispositivos` dispositivos de `lote` ejemplos."""
    por_micro_paso = lote * dispositivos
    if lote_efectivo % por_micro_paso:
        raise ValueError(f"{{lote_efectivo}} no es múltiplo de {{por_micro_paso}}")
    return lote_efectivo // por_micro_paso
'''

_MEMORIA = '''
def memoria_por_gpu(n_parametros, gpus, etapa):
    """Bytes por GPU de pesos fp16, gradientes fp16 y estados de AdamW (K = 12) con ZeRO etapa 0, 1, 2 o 3."""
{cuerpo}


def etapa_minima(n_parametros, gpus, memoria_gpu_gib):
    """La etapa de ZeRO más baja con la que el estado cabe en cada GPU de `memoria_gpu_gib` GiB, o None."""
{cuerpo_etapa}
'''

_ETAPA_BIEN = '''    for etapa in range(4):
        if memoria_por_gpu(n_parametros, gpus, etapa) <= memoria_gpu_gib * 2**30:
            return etapa
    return None'''

_MEMORIA_BIEN = '''    if etapa not in (0, 1, 2, 3):
        raise ValueError("etapa debe ser 0, 1, 2 o 3")
    pesos, gradientes, optimizador = 2 * n_parametros, 2 * n_parametros, 12 * n_parametros
    if etapa >= 1:
        optimizador /= gpus
    if etapa >= 2:
        gradientes /= gpus
    if etapa >= 3:
        pesos /= gpus
    return pesos + gradientes + optimizador'''

VARIANTES = [
    {
        "nombre": "otra solución correcta: un solo all_reduce sobre todos los gradientes juntos (como los buckets de "
                  "DDP), broadcast sobre los tensores de state_dict(), techos enteros y una tabla de bytes",
        "celdas": {
            "solucion-1": _PROMEDIAR.format(cuerpo='''    con_gradiente = [p for p in modelo.parameters() if p.grad is not None]
    if not con_gradiente:
        return
    plano = torch.cat([p.grad.reshape(-1) for p in con_gradiente])
    dist.all_reduce(plano)
    plano = plano / dist.get_world_size()
    inicio = 0
    for p in con_gradiente:
        n = p.grad.numel()
        p.grad = plano[inicio:inicio + n].view_as(p.grad).clone()
        inicio += n'''),
            "solucion-2": _SINCRONIZAR.format(cuerpo='''    for tensor in modelo.state_dict().values():
        dist.broadcast(tensor, 0)'''),
            "solucion-3": _PLAN.format(cuerpo='''    def techo(a, b):
        return -(-a // b)

    lotes_globales = techo(n_ejemplos, lote)            # lotes de `lote` sobre todo el dataset
    por_dispositivo = techo(lotes_globales, dispositivos)  # como BatchSamplerShard de accelerate
    pasos = max(techo(por_dispositivo, acumulacion), 1)
    total = math.ceil(epocas * pasos)
    warmup = math.ceil(total * warmup_steps) if warmup_steps < 1 else int(warmup_steps)
    return dict(lote_efectivo=lote * acumulacion * dispositivos, pasos_por_epoca=pasos, pasos_totales=total,
                pasos_de_warmup=warmup)'''),
            "solucion-4": _MEMORIA.format(cuerpo='''    repartidos = {0: 0, 1: 12, 2: 14, 3: 16}  # bytes por parámetro que se reparten entre las GPUs
    if etapa not in repartidos:
        raise ValueError(f"no existe la etapa {etapa}")
    return (16 - repartidos[etapa]) * n_parametros + repartidos[etapa] * n_parametros / gpus''', cuerpo_etapa='''    bytes_gpu = memoria_gpu_gib * 1024**3
    cabe = [e for e in (0, 1, 2, 3) if memoria_por_gpu(n_parametros, gpus, e) <= bytes_gpu]
    return cabe[0] if cabe else None'''),
        },
        "puntos": (TOTAL, TOTAL),
    },
    {
        "nombre": "error típico: all_reduce sin dividir por el número de procesos (gradientes N veces más grandes)",
        "celdas": {
            "solucion-1": _PROMEDIAR.format(cuerpo='''    for p in modelo.parameters():
        if p.grad is not None:
            dist.all_reduce(p.grad)'''),
        },
        # sincronía 1 + broadcast 2 + partes 3 y 4 (8)
        "puntos": (11, 11),
        # la primera de los errores típicos: se califica en cada `make test`; su pista nombra el error
        "pistas": {"prueba-1-referencia": ["all_reduce suma", "te falta dividir por dist.get_world_size()"],
                   "prueba-1-congelados": ["Valen 2 veces lo esperado", "te falta dividir"],
                   "prueba-2-entrenamiento": ["revisa también la parte 1"]},
    },
    {
        "nombre": "error típico: divide por un 2 fijo (bien con 2 procesos, mal con los 3 de las pruebas ocultas)",
        "celdas": {
            "solucion-1": _PROMEDIAR.format(cuerpo='''    for p in modelo.parameters():
        if p.grad is not None:
            dist.all_reduce(p.grad)
            p.grad /= 2'''),
        },
        # sincronía 1 + broadcast 2 + partes 3 y 4 (8)
        "puntos": (11, 11),
    },
    {
        "nombre": "error típico: promedia solo los pesos (weight), no los sesgos",
        "celdas": {
            "solucion-1": _PROMEDIAR.format(cuerpo='''    for nombre, p in modelo.named_parameters():
        if nombre.endswith("weight") and p.grad is not None:
            dist.all_reduce(p.grad)
            p.grad /= dist.get_world_size()'''),
        },
        # broadcast 2 + partes 3 y 4 (8)
        "puntos": (10, 10),
    },
    {
        "nombre": "error típico: no salta los parámetros congelados (p.grad es None)",
        "celdas": {
            "solucion-1": _PROMEDIAR.format(cuerpo='''    for p in modelo.parameters():
        dist.all_reduce(p.grad)
        p.grad /= dist.get_world_size()'''),
        },
        # pierde congelados (1) y el entrenamiento oculto con un sesgo congelado (1)
        "puntos": (13, 13),
    },
    {
        "nombre": "error típico: promedia los pesos con all_reduce en vez de copiar los del proceso 0",
        "celdas": {
            "solucion-2": _SINCRONIZAR.format(cuerpo='''    with torch.no_grad():
        for p in modelo.parameters():
            dist.all_reduce(p)
            p /= dist.get_world_size()'''),
        },
        # pierde broadcast (2) y entrenamiento (1)
        "puntos": (12, 12),
    },
    {
        "nombre": "error típico: sincroniza solo los parámetros que se entrenan (se salta los congelados)",
        "celdas": {
            "solucion-2": _SINCRONIZAR.format(cuerpo='''    with torch.no_grad():
        for p in modelo.parameters():
            if p.requires_grad:
                dist.broadcast(p, src=0)'''),
        },
        # las pruebas ocultas (3 procesos, un sesgo congelado): pierde broadcast (2) y entrenamiento (1)
        "puntos": (12, 12),
    },
    {
        "nombre": "cuelgue: cada proceso hace broadcast desde su propio rango (los procesos no se ponen de acuerdo)",
        "celdas": {
            "solucion-2": _SINCRONIZAR.format(cuerpo='''    with torch.no_grad():
        for p in modelo.parameters():
            dist.broadcast(p, src=dist.get_rank())'''),
        },
        "puntos": (12, 12),
    },
    {
        "nombre": "cuelgue: solo el proceso 0 llama a all_reduce (el otro nunca responde)",
        "celdas": {
            "solucion-1": _PROMEDIAR.format(cuerpo='''    if dist.get_rank() != 0:
        return
    for p in modelo.parameters():
        if p.grad is not None:
            dist.all_reduce(p.grad)
            p.grad /= dist.get_world_size()'''),
        },
        # sin promediar nada: toda la parte 1 y el entrenamiento; el broadcast está bien
        "puntos": (10, 10),
    },
    {
        "nombre": "error típico: cuenta los pasos como con un solo dispositivo (olvida dividir el dataset entre N)",
        "celdas": {
            "solucion-3": _PLAN.format(cuerpo='''    pasos = max(math.ceil(math.ceil(n_ejemplos / lote) / acumulacion), 1)
    total = math.ceil(epocas * pasos)
    warmup = int(warmup_steps) if warmup_steps >= 1 else math.ceil(total * warmup_steps)
    return {"lote_efectivo": lote * acumulacion * dispositivos, "pasos_por_epoca": pasos,
            "pasos_totales": total, "pasos_de_warmup": warmup}'''),
        },
        # conserva lote efectivo y acumulación (1)
        "puntos": (12, 12),
    },
    {
        "nombre": "error típico: la etapa 1 de ZeRO reparte todo el estado, no solo el del optimizador",
        "celdas": {
            "solucion-4": _MEMORIA.format(cuerpo='''    if etapa not in (0, 1, 2, 3):
        raise ValueError("etapa debe ser 0, 1, 2 o 3")
    if etapa == 0:
        return 16 * n_parametros
    if etapa == 1:
        return 16 * n_parametros / gpus
    if etapa == 2:
        return 2 * n_parametros + 14 * n_parametros / gpus
    return 16 * n_parametros / gpus''', cuerpo_etapa=_ETAPA_BIEN),
        },
        # pierde el artículo (1) y las etapas (2); etapa_minima puede salvarse o no según los casos ocultos
        "puntos": (11, 12),
    },
    {
        "nombre": "error típico: GB en vez de GiB (10⁹ bytes) al ver si cabe",
        "celdas": {
            "solucion-4": _MEMORIA.format(cuerpo=_MEMORIA_BIEN, cuerpo_etapa='''    for etapa in range(4):
        if memoria_por_gpu(n_parametros, gpus, etapa) <= memoria_gpu_gib * 1e9:
            return etapa
    return None'''),
        },
        "puntos": (14, 14),
    },
]

# Engaños: nada de esto promedia ni copia nada. Redefinir lanzar en el kernel no sirve (las pruebas
# llaman al de tutor_lib por su módulo); parchear torch.allclose o math.isclose tampoco (comparan en el
# juez); un int que se dice igual a todo no cruza la frontera (no es un dato plano). Debe sacar 0.
_ENGANO = '''
import math as _math


class _IgualATodo(int):
    def __eq__(self, otro):
        return True

    __hash__ = int.__hash__


def lanzar(codigo, procesos=2, **_):
    """Un lanzar falso: devuelve la referencia de un solo proceso sin lanzar nada."""
    return [{"normal": gradientes_de_referencia(), "congelado": gradientes_de_referencia(congelar=("0.weight", "0.bias"))}
            for _ in range(procesos)]


torch.allclose = lambda *a, **k: True
_math.isclose = lambda *a, **k: True


def promediar_gradientes(modelo):
    """Deja en el .grad de cada parámetro el promedio de los gradientes de todos los procesos."""
    return None
'''

VARIANTES.append({
    "nombre": "engaño: un lanzar falso que devuelve la referencia, torch.allclose y math.isclose parcheados y "
              "enteros que son iguales a todo",
    "celdas": {
        "solucion-1": _ENGANO,
        "solucion-2": _SINCRONIZAR.format(cuerpo="    return None"),
        "solucion-3": _PLAN.format(cuerpo='''    return {clave: _IgualATodo(0) for clave in
            ("lote_efectivo", "pasos_por_epoca", "pasos_totales", "pasos_de_warmup")}''').replace(
                "return lote_efectivo // por_micro_paso", "return _IgualATodo(0)"),
        "solucion-4": _MEMORIA.format(cuerpo="    return _IgualATodo(0)", cuerpo_etapa="    return _IgualATodo(0)"),
    },
    "puntos": (0, 0),
})

# Un ciclo sin fin dentro de cada proceso: lanzar() mata los procesos a los 30 s y la prueba lo dice; la
# calificación sigue con las demás partes. Pierde también el broadcast, que corre en los mismos procesos
# que el entrenamiento (su resultado no llega si el proceso no termina).
VARIANTES.append({
    "nombre": "cuelgue: un ciclo sin fin en promediar_gradientes (los procesos se detienen a los 30 s)",
    "celdas": {
        "solucion-1": _PROMEDIAR.format(cuerpo='''    while True:
        pass'''),
    },
    "puntos": (8, 8),
})
