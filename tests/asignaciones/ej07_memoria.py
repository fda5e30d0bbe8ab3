"""Variantes de ej07_memoria: otras soluciones correctas y errores típicos (las usa tests/test_asignaciones.py)."""

TOTAL = 13

_BYTES_ZERO = '''
def bytes_por_parametro(modo):
    """Bytes por parámetro de cada componente del estado estático en el modo dado."""
    tabla = {
        "fp32": (4, 4, 8, 0),
        "mixta": (2, 2, 8, 4),  # contabilidad de ZeRO: pesos y gradientes en 16 bits + copia maestra
        "bf16_puro": (2, 2, 4, 0),
        "inferencia_fp32": (4, 0, 0, 0),
        "inferencia_fp16": (2, 0, 0, 0),
        "inferencia_bf16": (2, 0, 0, 0),
        "inferencia_int8": (1, 0, 0, 0),
    }
    if modo not in tabla:
        raise ValueError(modo)
    return dict(zip(("pesos", "gradientes", "estados_optimizador", "copia_maestra_fp32"), tabla[modo]))
'''

_MEMORIA_1024 = '''
def memoria_entrenamiento(n_parametros, modo):
    """Memoria del estado estático."""
    por_parametro = sum(bytes_por_parametro(modo).values())
    total = round(n_parametros) * por_parametro
    return {"bytes": total, "GB": total / 1e9, "GiB": total / 1024 / 1024 / 1024}
'''

_META_OTRA = '''
def construir_en_meta(config, clase):
    """Modelo en meta."""
    meta = torch.device("meta")
    with meta:
        modelo = clase.from_config(config)
    return modelo


def contar_parametros(modelo):
    """Parámetros únicos."""
    unicos = {id(p): p for _, p in modelo.named_parameters(remove_duplicate=True)}
    return sum(p.numel() for p in unicos.values())


def bytes_de_pesos(modelo, dtype):
    """Bytes en dtype."""
    return contar_parametros(modelo) * dtype.itemsize
'''

_BF16_OTRA = '''
def aplicar_paso(peso, actualizacion, dtype):
    """peso + actualizacion en dtype."""
    w = torch.full((), peso, dtype=dtype)
    return float(w.add(actualizacion))


def menor_potencia_que_cambia(peso, dtype):
    """Recorre los exponentes de mayor a menor y se queda con el último que todavía cambia el peso."""
    w = torch.tensor(peso, dtype=dtype)
    ultimo = None
    for k in range(10, -200, -1):
        if (w + 2.0**k).item() != w.item():
            ultimo = 2.0**k
        elif ultimo is not None:
            break
    return ultimo
'''

_SIMULAR_OTRA = '''
def simular_pasos(peso, lr, gradiente, pasos, copia_maestra):
    """Peso final visto por el forward."""
    if copia_maestra:
        maestra = torch.tensor([peso], dtype=torch.float32)
        for _ in range(pasos):
            maestra.sub_(lr * gradiente)
        return float(maestra.bfloat16()[0])
    w = torch.tensor([peso]).bfloat16()
    for _ in range(pasos):
        w = w - torch.tensor(lr * gradiente, dtype=torch.bfloat16)
    return float(w[0])
'''

VARIANTES = [
    {
        "nombre": "otra solución correcta: contabilidad ZeRO para mixta, GiB con 1024**3, named_parameters, "
                  "dtype.itemsize, búsqueda por exponentes y pasos con sub_",
        "celdas": {
            "solucion-1": _BYTES_ZERO,
            "solucion-2": _MEMORIA_1024,
            "solucion-3": _META_OTRA,
            "solucion-4": _BF16_OTRA,
            "solucion-5": _SIMULAR_OTRA,
        },
        "puntos": (TOTAL, TOTAL),
    },
    {
        "nombre": "error típico: la precisión mixta «ahorra la mitad» (8 bytes por parámetro)",
        "celdas": {"solucion-1": _BYTES_ZERO.replace('"mixta": (2, 2, 8, 4)', '"mixta": (2, 2, 4, 0)')},
        "puntos": (8, 10),
        # la primera de los errores típicos: se califica en cada `make test`; su pista nombra el error
        "pistas": {"prueba-1-totales": ["tras un paso con autocast", "¿cambió respecto de fp32?"],
                   "prueba-1-componentes": ["no ahorra memoria de estado"],
                   "prueba-2-gib": ["bytes_por_parametro('mixta')", "corrige primero la parte 1"]},
    },
    {
        "nombre": "error típico: GiB calculado con 10**9 (confunde GB y GiB)",
        "celdas": {"solucion-2": _MEMORIA_1024.replace("total / 1024 / 1024 / 1024", "total / 1e9")},
        "puntos": (11, 12),
    },
    {
        "nombre": "error típico: cuenta con state_dict() y duplica los embeddings atados",
        "celdas": {"solucion-3": _META_OTRA.replace(
            "unicos = {id(p): p for _, p in modelo.named_parameters(remove_duplicate=True)}\n"
            "    return sum(p.numel() for p in unicos.values())",
            "return sum(t.numel() for t in modelo.state_dict().values())")},
        "puntos": (10, 11),
    },
    {
        "nombre": "error típico: devuelve la primera potencia que ya NO cambia el peso (eps/2)",
        "celdas": {"solucion-4": _BF16_OTRA.replace(
            "        elif ultimo is not None:\n            break",
            "        elif ultimo is not None:\n            return 2.0**k")},
        "puntos": (10, 12),
    },
    {
        "nombre": "error típico: la copia maestra también se guarda en bf16",
        "celdas": {"solucion-5": _SIMULAR_OTRA.replace("dtype=torch.float32", "dtype=torch.bfloat16")},
        "puntos": (10, 12),
    },
]

# Engaño: ninguna celda resuelve nada; solo intenta pasar las pruebas como funcionaba cuando compartían
# proceso con las soluciones (objetos que dicen ser iguales a todo, subclases de int y float, funciones de
# comparación parcheadas). Con el juez, nada de eso cruza la frontera: debe sacar 0.
_ENGANO_TIPOS = '''
import math


class _IgualATodo(int):
    """Un int que dice ser igual a cualquier cosa."""

    def __eq__(self, otro):
        return True

    def __ne__(self, otro):
        return False

    __hash__ = int.__hash__


class _FlotanteIgual(float):
    def __eq__(self, otro):
        return True

    def __ne__(self, otro):
        return False

    __hash__ = float.__hash__


class _DiccionarioIgual(dict):
    def __eq__(self, otro):
        return True

    def __getitem__(self, clave):
        return _IgualATodo(0)

    def get(self, clave, defecto=None):
        return _IgualATodo(0)


math.isclose = lambda *args, **kwargs: True
torch.allclose = lambda *args, **kwargs: True
torch.equal = lambda *args, **kwargs: True


def bytes_por_parametro(modo):
    """No calcula nada: devuelve un diccionario que dice ser igual a todo."""
    return _DiccionarioIgual(pesos=_IgualATodo(0), gradientes=_IgualATodo(0), estados_optimizador=_IgualATodo(0),
                             copia_maestra_fp32=_IgualATodo(0))
'''

VARIANTES.append({
    "nombre": "engaño: objetos iguales a todo, subclases de int/float y math.isclose/torch.allclose parcheados",
    "celdas": {
        "solucion-1": _ENGANO_TIPOS,
        "solucion-2": '''
def memoria_entrenamiento(n_parametros, modo):
    """Tampoco calcula: bytes, GB y GiB que dicen ser iguales a todo."""
    return _DiccionarioIgual(bytes=_IgualATodo(0), GB=_FlotanteIgual(0.0), GiB=_FlotanteIgual(0.0))
''',
        "solucion-3": '''
class _DispositivoFalso:
    type = "meta"


class _ParametroFalso:
    device = _DispositivoFalso()


class _ModeloFalso:
    """No es un modelo: solo aparenta tener parámetros en meta."""

    def parameters(self):
        return iter([_ParametroFalso()])


def construir_en_meta(config, clase):
    return _ModeloFalso()


def contar_parametros(modelo):
    return _IgualATodo(0)


def bytes_de_pesos(modelo, dtype):
    return _IgualATodo(0)
''',
        "solucion-4": '''
def aplicar_paso(peso, actualizacion, dtype):
    return _FlotanteIgual(0.0)


def menor_potencia_que_cambia(peso, dtype):
    return _FlotanteIgual(0.0)
''',
        "solucion-5": '''
def simular_pasos(peso, lr, gradiente, pasos, copia_maestra):
    return _FlotanteIgual(0.0)
''',
    },
    "puntos": (0, 0),
})
