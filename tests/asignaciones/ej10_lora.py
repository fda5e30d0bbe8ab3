"""Variantes de ej10_lora: otras soluciones correctas y errores típicos (las usa tests/test_asignaciones.py)."""

TOTAL = 11

_PARAMETROS_SIN_GQA = '''
def parametros_lora(config, r, target_modules):
    """Parámetros entrenables de LoRA de rango r sobre target_modules en un modelo estilo Llama."""
    h, i = config.hidden_size, config.intermediate_size
    formas = {
        "q_proj": (h, h), "k_proj": (h, h), "v_proj": (h, h), "o_proj": (h, h),
        "gate_proj": (h, i), "up_proj": (h, i), "down_proj": (i, h),
    }
    return config.num_hidden_layers * sum(r * sum(formas[m]) for m in target_modules)
'''

VARIANTES = [
    {
        "nombre": "otra solución correcta: conteo con un bucle, F.linear, A normal y fusión con deepcopy",
        "celdas": {
            "solucion-1": '''
def parametros_lora(config, r, target_modules):
    """Parámetros entrenables de LoRA de rango r sobre target_modules en un modelo estilo Llama."""
    d = config.head_dim
    total = 0
    for nombre in target_modules:
        if nombre == "q_proj":
            entrada, salida = config.hidden_size, config.num_attention_heads * d
        elif nombre in ("k_proj", "v_proj"):
            entrada, salida = config.hidden_size, config.num_key_value_heads * d
        elif nombre == "o_proj":
            entrada, salida = config.num_attention_heads * d, config.hidden_size
        elif nombre in ("gate_proj", "up_proj"):
            entrada, salida = config.hidden_size, config.intermediate_size
        elif nombre == "down_proj":
            entrada, salida = config.intermediate_size, config.hidden_size
        else:
            raise ValueError(f"módulo desconocido: {nombre}")
        total += r * (entrada + salida)
    return total * config.num_hidden_layers
''',
            "solucion-2": '''
import torch.nn.functional as F


class LoRALineal(nn.Module):
    """Capa lineal congelada más un adaptador LoRA: base(x) + (alpha / r) · B·A·x."""

    def __init__(self, base, r, alpha):
        super().__init__()
        base.requires_grad_(False)
        self.base = base
        self.A = nn.Parameter(torch.randn(r, base.in_features) / r)
        self.B = nn.Parameter(base.weight.new_zeros(base.out_features, r))
        self.escala = alpha / r

    def forward(self, x):
        return self.base(x) + F.linear(F.linear(x, self.A), self.B) * self.escala
''',
            "solucion-3": '''
import copy


def fusionar(capa):
    """Una nn.Linear nueva con peso W + escala · B @ A y el sesgo de capa.base."""
    nueva = copy.deepcopy(capa.base)
    with torch.no_grad():
        nueva.weight += capa.escala * torch.matmul(capa.B, capa.A)
    return nueva
''',
        },
        "puntos": (TOTAL, TOTAL),
    },
    {
        "nombre": "error típico: ignora GQA (k_proj y v_proj de hidden_size → hidden_size)",
        "celdas": {"solucion-1": _PARAMETROS_SIN_GQA},
        "puntos": (9, 9),
        # la primera de los errores típicos: se califica en cada `make test`; su pista nombra el error
        "pistas": {"prueba-1-gqa": ["menos cabezas de clave/valor que de consulta"]},
    },
    {
        "nombre": "error típico: olvida multiplicar por el número de capas",
        "celdas": {
            "solucion-1": '''
def parametros_lora(config, r, target_modules):
    """Parámetros entrenables de LoRA de rango r sobre target_modules en un modelo estilo Llama."""
    h, i, d = config.hidden_size, config.intermediate_size, config.head_dim
    q, kv = config.num_attention_heads * d, config.num_key_value_heads * d
    formas = {"q_proj": (h, q), "k_proj": (h, kv), "v_proj": (h, kv), "o_proj": (q, h),
              "gate_proj": (h, i), "up_proj": (h, i), "down_proj": (i, h)}
    return sum(r * sum(formas[m]) for m in target_modules)
''',
        },
        "puntos": (7, 7),
    },
    {
        "nombre": "error típico: A y B aleatorias (el modelo empieza perturbado)",
        "celdas": {
            "solucion-2": '''
class LoRALineal(nn.Module):
    """Capa lineal congelada más un adaptador LoRA: base(x) + (alpha / r) · B·A·x."""

    def __init__(self, base, r, alpha):
        super().__init__()
        self.base = base
        for p in self.base.parameters():
            p.requires_grad_(False)
        self.A = nn.Parameter(torch.randn(r, base.in_features) * 0.1)
        self.B = nn.Parameter(torch.randn(base.out_features, r) * 0.1)
        self.escala = alpha / r

    def forward(self, x):
        return self.base(x) + self.escala * (x @ self.A.T @ self.B.T)
''',
        },
        "puntos": (9, 9),
    },
    {
        "nombre": "error típico: escala alpha en vez de alpha / r",
        "celdas": {
            "solucion-2": '''
class LoRALineal(nn.Module):
    """Capa lineal congelada más un adaptador LoRA: base(x) + (alpha / r) · B·A·x."""

    def __init__(self, base, r, alpha):
        super().__init__()
        self.base = base
        for p in self.base.parameters():
            p.requires_grad_(False)
        self.A = nn.Parameter(torch.empty(r, base.in_features))
        nn.init.kaiming_uniform_(self.A, a=math.sqrt(5))
        self.B = nn.Parameter(torch.zeros(base.out_features, r))
        self.escala = alpha

    def forward(self, x):
        return self.base(x) + self.escala * (x @ self.A.T @ self.B.T)
''',
        },
        "puntos": (7, 7),
    },
    {
        "nombre": "error típico: no congela la capa base",
        "celdas": {
            "solucion-2": '''
class LoRALineal(nn.Module):
    """Capa lineal congelada más un adaptador LoRA: base(x) + (alpha / r) · B·A·x."""

    def __init__(self, base, r, alpha):
        super().__init__()
        self.base = base
        self.A = nn.Parameter(torch.empty(r, base.in_features))
        nn.init.kaiming_uniform_(self.A, a=math.sqrt(5))
        self.B = nn.Parameter(torch.zeros(base.out_features, r))
        self.escala = alpha / r

    def forward(self, x):
        return self.base(x) + self.escala * (x @ self.A.T @ self.B.T)
''',
        },
        "puntos": (10, 10),
    },
    {
        "nombre": "error típico: fusiona sin la escala",
        "celdas": {
            "solucion-3": '''
def fusionar(capa):
    """Una nn.Linear nueva con peso W + escala · B @ A y el sesgo de capa.base."""
    base = capa.base
    nueva = nn.Linear(base.in_features, base.out_features, bias=base.bias is not None)
    with torch.no_grad():
        nueva.weight.copy_(base.weight + capa.B @ capa.A)
        if base.bias is not None:
            nueva.bias.copy_(base.bias)
    return nueva
''',
        },
        "puntos": (9, 9),
    },
]

# Engaño: nada de esto resuelve el ejercicio; solo intenta burlar pruebas que comparan en el mismo proceso
# (así funcionaba antes del juez). Con el juez aparte debe sacar 0.
_ENGANO_CUENTA = '''
import math

import torch


class _SiempreIgual(int):
    """Un «int» que dice ser igual a cualquier cosa."""

    def __eq__(self, otro):
        return True

    __hash__ = int.__hash__


# Parches para que cualquier comparación de las pruebas dé verdadero.
torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True
math.isclose = lambda *a, **k: True


def parametros_lora(config, r, target_modules):
    """Parámetros entrenables de LoRA de rango r sobre target_modules en un modelo estilo Llama."""
    return _SiempreIgual(0)
'''

_ENGANO_CAPA = '''
class _Tramposo(torch.Tensor):
    """Un tensor cuyas comparaciones siempre dan verdadero."""

    def __eq__(self, otro):
        return torch.ones(self.shape, dtype=torch.bool)

    def __ne__(self, otro):
        return torch.zeros(self.shape, dtype=torch.bool)


class _FlotanteIgual(float):
    def __eq__(self, otro):
        return True

    __hash__ = float.__hash__


class LoRALineal(nn.Module):
    """Capa lineal congelada más un adaptador LoRA: base(x) + (alpha / r) · B·A·x."""

    def __init__(self, base, r, alpha):
        super().__init__()
        self.base = base
        self.A = nn.Parameter(torch.zeros(1, 1))
        self.B = nn.Parameter(torch.zeros(1, 1))
        self.escala = _FlotanteIgual(0.0)

    def forward(self, x):
        return torch.zeros(*x.shape[:-1], self.base.out_features).as_subclass(_Tramposo)
'''

_ENGANO_FUSION = '''
class _SeHaceLaLineal:
    """Dice ser una nn.Linear (isinstance le cree) y devuelve salidas que «son iguales» a todo."""

    @property
    def __class__(self):
        return nn.Linear

    def __init__(self, capa):
        self.in_features = _SiempreIgual(0)
        self.out_features = _SiempreIgual(0)
        self.weight = torch.zeros(1).as_subclass(_Tramposo)
        self.bias = torch.zeros(1).as_subclass(_Tramposo)

    def __call__(self, x):
        return torch.zeros(1).as_subclass(_Tramposo)


def fusionar(capa):
    """Una nn.Linear nueva con peso W + escala · B @ A y el sesgo de capa.base."""
    return _SeHaceLaLineal(capa)
'''

VARIANTES.append({
    "nombre": "engaño: int que es igual a todo, tensores tramposos, clase disfrazada y parches de torch/math",
    "celdas": {"solucion-1": _ENGANO_CUENTA, "solucion-2": _ENGANO_CAPA, "solucion-3": _ENGANO_FUSION},
    "puntos": (0, 0),
})
