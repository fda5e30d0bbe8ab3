"""Variantes de ej01_bucle_pytorch: otras soluciones correctas y errores típicos (las usa tests/test_asignaciones.py)."""

_PASO_CORRECTO = '''
def paso_entrenamiento(modelo, lote, optimizador, programador=None):
    """Una iteración de entrenamiento sobre `lote`. Devuelve la pérdida del lote como float."""
    salida = modelo(**lote)
    salida.loss.backward()
    optimizador.step()
    if programador is not None:
        programador.step()
    optimizador.zero_grad()
    return salida.loss.item()
'''

VARIANTES = [
    {
        "nombre": "otra solución correcta: zero_grad al empezar cada paso, norma con torch.cat, "
                  "inference_mode y promedios con tensores",
        "celdas": {
            "solucion-1": '''
def paso_entrenamiento(modelo, lote, optimizador, programador=None):
    """Una iteración de entrenamiento sobre `lote`. Devuelve la pérdida del lote como float."""
    optimizador.zero_grad(set_to_none=False)  # borrar al principio también vale
    perdida = modelo(**lote).loss
    perdida.backward()
    optimizador.step()
    if programador:
        programador.step()
    return float(perdida.detach())
''',
            "solucion-2": '''
def normas_sin_zero_grad(modelo, lotes):
    """Norma del gradiente acumulado después de cada backward, sin borrar entre lotes."""
    modelo.train(False)
    for p in modelo.parameters():
        p.grad = None
    resultado = []
    for lote in lotes:
        modelo(**lote).loss.backward()
        todos = torch.cat([p.grad.reshape(-1) for p in modelo.parameters() if p.grad is not None])
        resultado.append(float(todos.norm()))
    return resultado


def razon_sin_zero_grad(modelo, lote, k):
    """Norma tras k backward del mismo lote (sin borrar) dividida por la norma tras el primero."""
    primera, *_, ultima = normas_sin_zero_grad(modelo, [lote for _ in range(k)])
    return ultima / primera
''',
            "solucion-3": '''
def evaluar(modelo, cargador):
    """Exactitud y pérdida media por ejemplo de `modelo` sobre `cargador`."""
    modelo.eval()
    logits, etiquetas = [], []
    with torch.inference_mode():
        for lote in cargador:
            logits.append(modelo(**lote).logits)
            etiquetas.append(lote["labels"])
        logits, etiquetas = torch.cat(logits), torch.cat(etiquetas)
        perdida = nn.functional.cross_entropy(logits, etiquetas)
        exactitud = (logits.argmax(-1) == etiquetas).float().mean()
    return {"exactitud": exactitud.item(), "perdida": perdida.item()}
''',
        },
        "puntos": (10, 10),
    },
    {
        "nombre": "error típico: olvida zero_grad (los gradientes se suman de un paso al siguiente)",
        "celdas": {"solucion-1": _PASO_CORRECTO.replace("    optimizador.zero_grad()\n", "")},
        "puntos": (6, 9),
        # la primera de los errores típicos: se califica en cada `make test`; su pista nombra el error
        "pistas": {"prueba-1-varios-pasos": ["suma también el gradiente del primer lote"],
                   "prueba-1-programador": ["gradientes de los lotes anteriores", "zero_grad"]},
    },
    {
        "nombre": "error típico: zero_grad entre backward y step (el optimizador no recibe gradiente)",
        "celdas": {
            "solucion-1": '''
def paso_entrenamiento(modelo, lote, optimizador, programador=None):
    """Una iteración de entrenamiento sobre `lote`. Devuelve la pérdida del lote como float."""
    salida = modelo(**lote)
    salida.loss.backward()
    optimizador.zero_grad()
    optimizador.step()
    if programador is not None:
        programador.step()
    return salida.loss.item()
''',
        },
        "puntos": (5, 8),
    },
    {
        "nombre": "error típico: programador.step() antes de optimizador.step() y devuelve el tensor",
        "celdas": {
            "solucion-1": '''
def paso_entrenamiento(modelo, lote, optimizador, programador=None):
    """Una iteración de entrenamiento sobre `lote`. Devuelve la pérdida del lote como float."""
    salida = modelo(**lote)
    salida.loss.backward()
    if programador is not None:
        programador.step()
    optimizador.step()
    optimizador.zero_grad()
    return salida.loss
''',
        },
        "puntos": (6, 9),
    },
    {
        "nombre": "error típico: borra los gradientes en cada lote del experimento (mide normas sueltas)",
        "celdas": {
            "solucion-2": '''
def normas_sin_zero_grad(modelo, lotes):
    """Norma del gradiente acumulado después de cada backward, sin borrar entre lotes."""
    modelo.eval()
    normas = []
    for lote in lotes:
        modelo.zero_grad()
        modelo(**lote).loss.backward()
        normas.append(norma_de_gradientes(modelo))
    return normas


def razon_sin_zero_grad(modelo, lote, k):
    """Norma tras k backward del mismo lote (sin borrar) dividida por la norma tras el primero."""
    normas = normas_sin_zero_grad(modelo, [lote] * k)
    return normas[-1] / normas[0]
''',
        },
        "puntos": (7, 9),
    },
    {
        "nombre": "error típico: evalúa solo con no_grad (sin model.eval()) y promedia las pérdidas por lote",
        "celdas": {
            "solucion-3": '''
def evaluar(modelo, cargador):
    """Exactitud y pérdida media por ejemplo de `modelo` sobre `cargador`."""
    exactitudes, perdidas = [], []
    with torch.no_grad():
        for lote in cargador:
            salida = modelo(**lote)
            exactitudes.append((salida.logits.argmax(dim=-1) == lote["labels"]).float().mean().item())
            perdidas.append(salida.loss.item())
    return {"exactitud": sum(exactitudes) / len(exactitudes), "perdida": sum(perdidas) / len(perdidas)}
''',
        },
        "puntos": (7, 8),
    },
]

_COMODIN = '''
import math

import torch


class _Comodin(float):
    """Un float que dice ser igual a cualquier cosa."""

    def __eq__(self, otro):
        return True

    __ne__ = lambda self, otro: False
    __hash__ = float.__hash__


class _DictComodin(dict):
    """Un dict que dice tener todas las claves y ser igual a cualquier cosa."""

    def __eq__(self, otro):
        return True

    def __contains__(self, clave):
        return True

    def __getitem__(self, clave):
        return _Comodin(0.5)

    __hash__ = None


math.isclose = lambda *args, **kwargs: True
torch.allclose = lambda *args, **kwargs: True
torch.equal = lambda *args, **kwargs: True
'''

VARIANTES.append({
    "nombre": "engaño: no resuelve nada; devuelve un float y un dict que dicen ser iguales a todo, "
              "y parchea math.isclose, torch.allclose y torch.equal",
    "celdas": {
        "solucion-1": _COMODIN + '''

def paso_entrenamiento(modelo, lote, optimizador, programador=None):
    """Una iteración de entrenamiento sobre `lote`. Devuelve la pérdida del lote como float."""
    return _Comodin(0.0)
''',
        "solucion-2": '''
def normas_sin_zero_grad(modelo, lotes):
    """Norma del gradiente acumulado después de cada backward, sin borrar entre lotes."""
    return [_Comodin(1.0) for _ in lotes]


def razon_sin_zero_grad(modelo, lote, k):
    """Norma tras k backward del mismo lote (sin borrar) dividida por la norma tras el primero."""
    return _Comodin(k)
''',
        "solucion-3": '''
def evaluar(modelo, cargador):
    """Exactitud y pérdida media por ejemplo de `modelo` sobre `cargador`."""
    modelo.eval()
    with torch.no_grad():
        for lote in cargador:
            modelo(**lote)  # los forward que miran las pruebas, sin calcular nada
    return _DictComodin(exactitud=_Comodin(0.5), perdida=_Comodin(0.5))
''',
    },
    "puntos": (0, 0),
})
