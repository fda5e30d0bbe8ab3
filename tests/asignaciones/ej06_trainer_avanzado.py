"""Variantes de ej06_trainer_avanzado: otras soluciones correctas y errores típicos (las usa tests/test_asignaciones.py)."""

VARIANTES = [
    {
        "nombre": "otra solución correcta: torch.bincount, log_softmax con máscara y torch.max",
        "celdas": {
            "solucion-1": '''
def pesos_por_clase(etiquetas, num_clases):
    """Pesos «balanced» w_c = N / (K · N_c) como tensor float32 de forma (num_clases,)."""
    etiquetas = torch.as_tensor(etiquetas).long().flatten()
    conteo = torch.bincount(etiquetas, minlength=num_clases).double()
    return (len(etiquetas) / (num_clases * conteo)).float()
''',
            "solucion-2": '''
def crear_perdida_ponderada(pesos):
    """Devuelve perdida(outputs, labels, num_items_in_batch=None): entropía cruzada ponderada por clase."""
    def perdida(outputs, labels, num_items_in_batch=None):
        logits = outputs["logits"]
        validas = labels != -100
        seguras = labels.clamp(min=0)
        log_probs = torch.log_softmax(logits.float(), dim=-1)
        ce = -log_probs.gather(1, seguras.unsqueeze(1)).squeeze(1)
        w = pesos.to(logits.device)[seguras]
        total = (w * ce * validas).sum()
        n = validas.sum() if num_items_in_batch is None else num_items_in_batch
        return total / n

    return perdida
''',
            "solucion-3": '''
def argmax_por_lote(logits, labels):
    """Para preprocess_logits_for_metrics: la clase predicha (argmax en la última dimensión) de cada posición."""
    tensor = logits[0] if isinstance(logits, (tuple, list)) else logits
    return torch.max(tensor, dim=tensor.dim() - 1).indices
''',
        },
        "puntos": (11, 11),
    },
    {
        # Antes de comparar con tutor_lib.juez.comparar_valores, torch.allclose difundía el tensor vacío contra
        # el escalar esperado y la prueba oculta de la pérdida daba el punto (7 de 11 en vez de 6).
        "nombre": "error típico: la pérdida devuelve un tensor vacío (la forma se revisa antes de comparar)",
        "celdas": {
            "solucion-2": '''
def crear_perdida_ponderada(pesos):
    """Devuelve perdida(outputs, labels, num_items_in_batch=None): entropía cruzada ponderada por clase."""
    def perdida(outputs, labels, num_items_in_batch=None):
        validas = labels != -100
        por_ejemplo = F.cross_entropy(outputs["logits"], labels, weight=pesos, reduction="none", ignore_index=-100)
        return por_ejemplo[validas & ~validas]  # una máscara que no deja pasar nada: un tensor de forma (0,)

    return perdida
''',
        },
        "puntos": (6, 6),
        # la primera de los errores típicos: se califica en cada `make test`; su pista nombra el error
        "pistas": {"prueba-perdida-forma": ["se esperaba forma ()", "llegó forma (0,)"],
                   "prueba-perdida-a-mano": ["llegó forma (0,)"],
                   "prueba-perdida-oculta": ["llegó forma (0,)"]},
    },
    {
        "nombre": "error típico: pesos 1/N_c sin normalizar",
        "celdas": {
            "solucion-1": '''
def pesos_por_clase(etiquetas, num_clases):
    """Pesos «balanced» w_c = N / (K · N_c) como tensor float32 de forma (num_clases,)."""
    conteo = np.bincount(np.asarray(etiquetas), minlength=num_clases)
    return torch.tensor(1.0 / conteo, dtype=torch.float32)
''',
        },
        "puntos": (9, 9),
    },
    {
        "nombre": "error típico: promedio ponderado de F.cross_entropy(weight=...) en vez de dividir por n",
        "celdas": {
            "solucion-2": '''
def crear_perdida_ponderada(pesos):
    """Devuelve perdida(outputs, labels, num_items_in_batch=None): entropía cruzada ponderada por clase."""
    def perdida(outputs, labels, num_items_in_batch=None):
        return F.cross_entropy(outputs["logits"], labels, weight=pesos, ignore_index=-100)

    return perdida
''',
        },
        "puntos": (7, 7),
    },
    {
        "nombre": "error típico: ignora num_items_in_batch (promedia cada micro-lote)",
        "celdas": {
            "solucion-2": '''
def crear_perdida_ponderada(pesos):
    """Devuelve perdida(outputs, labels, num_items_in_batch=None): entropía cruzada ponderada por clase."""
    def perdida(outputs, labels, num_items_in_batch=None):
        por_ejemplo = F.cross_entropy(outputs["logits"], labels, weight=pesos, reduction="none", ignore_index=-100)
        return por_ejemplo.sum() / (labels != -100).sum()

    return perdida
''',
        },
        "puntos": (8, 8),
    },
    {
        "nombre": "error típico: argmax sin contemplar logits en una tupla",
        "celdas": {
            "solucion-3": '''
def argmax_por_lote(logits, labels):
    """Para preprocess_logits_for_metrics: la clase predicha (argmax en la última dimensión) de cada posición."""
    return logits.argmax(dim=-1)
''',
        },
        "puntos": (10, 10),
    },
]

_ENGANO = {
    "nombre": "engaño: tensores y números que dicen ser iguales a todo, torch.allclose y math.isclose parcheados",
    "celdas": {
        "solucion-1": '''
class _TensorIgualATodo(torch.Tensor):
    """Un tensor que dice ser igual (y cercano) a cualquier otro."""

    def __eq__(self, otro):
        return True

    __hash__ = torch.Tensor.__hash__


torch.allclose = lambda *args, **kwargs: True
torch.equal = lambda *args, **kwargs: True


def pesos_por_clase(etiquetas, num_clases):
    """Pesos «balanced» w_c = N / (K · N_c) como tensor float32 de forma (num_clases,)."""
    return torch.ones(num_clases, dtype=torch.float32).as_subclass(_TensorIgualATodo)
''',
        "solucion-2": '''
import math

math.isclose = lambda *args, **kwargs: True


class _FlotanteIgualATodo(float):
    def __eq__(self, otro):
        return True

    __hash__ = float.__hash__


def crear_perdida_ponderada(pesos):
    """Devuelve perdida(outputs, labels, num_items_in_batch=None): entropía cruzada ponderada por clase."""
    def perdida(outputs, labels, num_items_in_batch=None):
        return _FlotanteIgualATodo(0.5)

    return perdida
''',
        "solucion-3": '''
np.array_equal = lambda *args, **kwargs: True


class _Indices(torch.Tensor):
    def __eq__(self, otro):
        return True

    __hash__ = torch.Tensor.__hash__


def argmax_por_lote(logits, labels):
    """Para preprocess_logits_for_metrics: la clase predicha (argmax en la última dimensión) de cada posición."""
    return torch.zeros(1, dtype=torch.long).as_subclass(_Indices)
''',
    },
    "puntos": (0, 0),
}

VARIANTES.append(_ENGANO)


# Ninguna línea de la solución ni de las pruebas ocultas se muestra a propósito en exercises/.
LINEAS_COMPARTIDAS: dict[str, str] = {}
