"""Variantes de ej04_warmup: otras soluciones correctas y errores típicos (las usa tests/test_asignaciones.py)."""

VARIANTES = [
    {
        "nombre": "otra solución correcta: techos con enteros, tasa con min() y LayerNorm por identidad",
        "celdas": {
            "solucion-1": '''
def pasos_totales(n_ejemplos, lote, acumulacion, epocas):
    """Pasos de optimización de todo el entrenamiento, contados como el Trainer (un int)."""
    lotes = -(-n_ejemplos // lote)
    por_epoca = max(-(-lotes // acumulacion), 1)
    return int(math.ceil(por_epoca * epocas))


def pasos_de_warmup(warmup_steps, total):
    """Pasos de warmup que da TrainingArguments(warmup_steps=warmup_steps) con `total` pasos (un int)."""
    return math.ceil(warmup_steps * total) if warmup_steps < 1 else int(warmup_steps)
''',
            "solucion-2": '''
def lr_en_paso(paso, lr_max, warmup, total):
    """Tasa de aprendizaje del paso `paso` (desde 0) con warmup lineal y decaimiento lineal hasta 0."""
    subida = paso / warmup if warmup > 0 else 1.0
    bajada = (total - paso) / (total - warmup) if total > warmup else 1.0
    return lr_max * max(0.0, min(subida, bajada))
''',
            "solucion-3": '''
def grupos_weight_decay(modelo, weight_decay):
    """Dos grupos para AdamW: [con decay, sin decay (sesgos y LayerNorm)], cada parámetro una sola vez."""
    de_normas = {id(p) for m in modelo.modules() if isinstance(m, torch.nn.LayerNorm) for p in m.parameters()}
    grupos = [{"params": [], "weight_decay": weight_decay}, {"params": [], "weight_decay": 0.0}]
    for nombre, p in modelo.named_parameters():
        sin = id(p) in de_normas or nombre.split(".")[-1] == "bias"
        grupos[int(sin)]["params"].append(p)
    return grupos
''',
        },
        "puntos": (13, 13),
    },
    {
        "nombre": "error típico: la fracción de warmup se trunca (piso) en vez de redondear hacia arriba",
        "celdas": {
            "solucion-1": '''
def pasos_totales(n_ejemplos, lote, acumulacion, epocas):
    """Pasos de optimización de todo el entrenamiento, contados como el Trainer (un int)."""
    lotes_por_epoca = math.ceil(n_ejemplos / lote)
    pasos_por_epoca = max(math.ceil(lotes_por_epoca / acumulacion), 1)
    return math.ceil(epocas * pasos_por_epoca)


def pasos_de_warmup(warmup_steps, total):
    """Pasos de warmup que da TrainingArguments(warmup_steps=warmup_steps) con `total` pasos (un int)."""
    if warmup_steps >= 1:
        return int(warmup_steps)
    return int(total * warmup_steps)
''',
        },
        "puntos": (11, 11),
        # la primera de los errores típicos: se califica en cada `make test`
        "pistas": {"prueba-warmup-oculta": ["fracción del total", "math.ceil", "int() lo redondea hacia abajo"]},
    },
    {
        "nombre": "error típico: piso en vez de techo al contar lotes",
        "celdas": {
            "solucion-1": '''
def pasos_totales(n_ejemplos, lote, acumulacion, epocas):
    """Pasos de optimización de todo el entrenamiento, contados como el Trainer (un int)."""
    return int(epocas * (n_ejemplos // lote) // acumulacion)


def pasos_de_warmup(warmup_steps, total):
    """Pasos de warmup que da TrainingArguments(warmup_steps=warmup_steps) con `total` pasos (un int)."""
    if warmup_steps >= 1:
        return int(warmup_steps)
    return math.ceil(total * warmup_steps)
''',
        },
        "puntos": (10, 10),
    },
    {
        "nombre": "error típico: warmup corrido en un paso (el primer paso no usa tasa 0)",
        "celdas": {
            "solucion-2": '''
def lr_en_paso(paso, lr_max, warmup, total):
    """Tasa de aprendizaje del paso `paso` (desde 0) con warmup lineal y decaimiento lineal hasta 0."""
    if paso < warmup:
        return lr_max * (paso + 1) / warmup
    return lr_max * max(0.0, (total - paso) / max(1, total - warmup))
''',
        },
        "puntos": (10, 10),
    },
    {
        "nombre": "error típico: LayerNorm reconocida solo por el nombre",
        "celdas": {
            "solucion-3": '''
def grupos_weight_decay(modelo, weight_decay):
    """Dos grupos para AdamW: [con decay, sin decay (sesgos y LayerNorm)], cada parámetro una sola vez."""
    sin = [p for n, p in modelo.named_parameters() if "bias" in n or "LayerNorm" in n]
    con = [p for n, p in modelo.named_parameters() if not ("bias" in n or "LayerNorm" in n)]
    return [{"params": con, "weight_decay": weight_decay}, {"params": sin, "weight_decay": 0.0}]
''',
        },
        "puntos": (11, 11),
    },
    {
        "nombre": "error típico: weight decay para todos los parámetros (como torch.optim.AdamW a secas)",
        "celdas": {
            "solucion-3": '''
def grupos_weight_decay(modelo, weight_decay):
    """Dos grupos para AdamW: [con decay, sin decay (sesgos y LayerNorm)], cada parámetro una sola vez."""
    return [{"params": list(modelo.parameters()), "weight_decay": weight_decay},
            {"params": [], "weight_decay": 0.0}]
''',
        },
        "puntos": (10, 10),
    },
]

_ENGANO = {
    "nombre": "engaño: un int que dice ser igual a todo, una lista que miente su largo, math.isclose, torch.allclose y alumno parcheados",
    "celdas": {
        "solucion-1": '''
class _IgualATodo(int):
    """Un int que dice ser igual a cualquier cosa."""

    def __eq__(self, otro):
        return True

    __hash__ = int.__hash__


def pasos_totales(n_ejemplos, lote, acumulacion, epocas):
    """Pasos de optimización de todo el entrenamiento, contados como el Trainer (un int)."""
    return _IgualATodo(0)


def pasos_de_warmup(warmup_steps, total):
    """Pasos de warmup que da TrainingArguments(warmup_steps=warmup_steps) con `total` pasos (un int)."""
    return _IgualATodo(0)
''',
        "solucion-2": '''
import math

math.isclose = lambda *args, **kwargs: True  # en el juez, math es otro módulo


def lr_en_paso(paso, lr_max, warmup, total):
    """Tasa de aprendizaje del paso `paso` (desde 0) con warmup lineal y decaimiento lineal hasta 0."""
    return 0.0  # un float de verdad, pero equivocado: solo el math.isclose parcheado lo daría por bueno
''',
        "solucion-3": '''
import tutor_lib.juez

torch.allclose = lambda *args, **kwargs: True
tutor_lib.juez.alumno.ejecutar = lambda codigo, **valores: True  # el alumno del juez es otro objeto


class _ListaIgualATodo(list):
    def __eq__(self, otro):
        return True

    def __len__(self):
        return 2


def grupos_weight_decay(modelo, weight_decay):
    """Dos grupos para AdamW: [con decay, sin decay (sesgos y LayerNorm)], cada parámetro una sola vez."""
    return _ListaIgualATodo([{"params": list(modelo.parameters()), "weight_decay": weight_decay},
                             {"params": [], "weight_decay": 0.0}])
''',
    },
    "puntos": (0, 0),
}

VARIANTES.append(_ENGANO)


# Ninguna línea de la solución ni de las pruebas ocultas se muestra a propósito en exercises/.
LINEAS_COMPARTIDAS: dict[str, str] = {}
