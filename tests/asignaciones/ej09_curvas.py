"""Variantes de ej09_curvas: otras soluciones correctas y errores típicos (las usa tests/test_asignaciones.py)."""

TOTAL = 12

_EXTRAER_OTRA = '''
def extraer_curvas(log_history):
    """Con listas por comprensión."""
    entrenamiento = [r for r in log_history if r.get("loss") is not None]
    validacion = [r for r in log_history if r.get("eval_loss") is not None]
    return {
        "pasos_entrenamiento": [r["step"] for r in entrenamiento],
        "entrenamiento": [float(r["loss"]) for r in entrenamiento],
        "pasos_validacion": [r["step"] for r in validacion],
        "validacion": [float(r["eval_loss"]) for r in validacion],
    }
'''

_DIAGNOSTICAR_OTRA = '''
import statistics


def diagnosticar(log_history):
    """Python puro con statistics.median."""
    c = extraer_curvas(log_history)
    no_finitos = any(not math.isfinite(x) for x in c["entrenamiento"] + c["validacion"])
    y = [x for x in c["entrenamiento"] if math.isfinite(x)]
    val = [(x, p) for p, x in zip(c["pasos_validacion"], c["validacion"]) if math.isfinite(x)]
    inicial = statistics.median(y[:3])
    final = statistics.median(y[-3:])
    v_min, mejor = min(val, key=lambda par: par[0])
    v_final = statistics.median([x for x, _ in val[-3:]])
    ev = {
        "no_finitos": no_finitos,
        "caida": (inicial - final) / inicial,
        "ruido": statistics.median(abs(b - a) for a, b in zip(y, y[1:])) / inicial,
        "subida_validacion": (v_final - v_min) / v_min,
        "mejor_paso": mejor,
    }
    reglas = [
        ("divergencia", ev["no_finitos"] or ev["caida"] < -0.25),
        ("inestable", ev["ruido"] > 0.1),
        ("sobreajuste", ev["subida_validacion"] > 0.1),
        ("subajuste", ev["caida"] < 0.3),
        ("sano", True),
    ]
    return {"diagnostico": next(n for n, cumple in reglas if cumple), "evidencia": ev}
'''

_AJUSTAR_OTRA = '''
def ajustar_argumentos(diagnostico, args):
    """Otros remedios razonables de la lección."""
    remedios = {
        "sano": lambda: {},
        "subajuste": lambda: {"num_train_epochs": args.num_train_epochs + 2},
        "sobreajuste": lambda: {"num_train_epochs": max(1, args.num_train_epochs - 1), "weight_decay": 0.1},
        "inestable": lambda: {"gradient_accumulation_steps": args.gradient_accumulation_steps * 4, "warmup_steps": 0.1},
        "divergencia": lambda: {"learning_rate": args.learning_rate * 0.1, "max_grad_norm": 1.0},
    }
    if diagnostico not in remedios:
        raise ValueError(diagnostico)
    return remedios[diagnostico]()
'''

VARIANTES = [
    {
        "nombre": "otra solución correcta: comprensiones, Python puro con statistics.median, otros remedios "
                  "(acumulación de gradientes, menos épocas)",
        "celdas": {
            "solucion-1": _EXTRAER_OTRA,
            "solucion-2": _DIAGNOSTICAR_OTRA,
            "solucion-3": _AJUSTAR_OTRA,
        },
        "puntos": (TOTAL, TOTAL),
    },
    {
        "nombre": "error típico: extraer_curvas descarta los nan (la divergencia con nan pasa inadvertida)",
        "celdas": {"solucion-1": _EXTRAER_OTRA.replace(
            'entrenamiento = [r for r in log_history if r.get("loss") is not None]',
            'entrenamiento = [r for r in log_history if r.get("loss") is not None and math.isfinite(r["loss"])]').replace(
            'validacion = [r for r in log_history if r.get("eval_loss") is not None]',
            'validacion = [r for r in log_history if r.get("eval_loss") is not None and math.isfinite(r["eval_loss"])]')},
        "puntos": (6, 8),
        # la primera de los errores típicos: se califica en cada `make test`; su pista nombra el error
        "pistas": {"prueba-1-trainer": ["Los nan deben conservarse"],
                   "prueba-2-ocultas": ["Esta curva termina en nan", "conserva los nan"],
                   "prueba-2-evidencia-oculta": ["tu evidencia dice que no", "conserva los nan"]},
    },
    {
        "nombre": "error típico: ruido absoluto (sin dividir entre la pérdida inicial)",
        "celdas": {"solucion-2": _DIAGNOSTICAR_OTRA.replace(
            '"ruido": statistics.median(abs(b - a) for a, b in zip(y, y[1:])) / inicial,',
            '"ruido": statistics.median(abs(b - a) for a, b in zip(y, y[1:])),')},
        "puntos": (6, 9),
    },
    {
        "nombre": "error típico: revisa el sobreajuste antes que la divergencia",
        "celdas": {"solucion-2": _DIAGNOSTICAR_OTRA.replace(
            '        ("divergencia", ev["no_finitos"] or ev["caida"] < -0.25),\n'
            '        ("inestable", ev["ruido"] > 0.1),\n'
            '        ("sobreajuste", ev["subida_validacion"] > 0.1),\n',
            '        ("sobreajuste", ev["subida_validacion"] > 0.1),\n'
            '        ("divergencia", ev["no_finitos"] or ev["caida"] < -0.25),\n'
            '        ("inestable", ev["ruido"] > 0.1),\n')},
        "puntos": (8, 10),
    },
    {
        "nombre": "error típico: mejor_paso es la posición en la lista, no el step",
        "celdas": {"solucion-2": _DIAGNOSTICAR_OTRA.replace(
            'val = [(x, p) for p, x in zip(c["pasos_validacion"], c["validacion"]) if math.isfinite(x)]',
            'val = [(x, i) for i, x in enumerate(c["validacion"]) if math.isfinite(x)]')},
        "puntos": (8, 10),
    },
    {
        "nombre": "error típico: ante la divergencia solo activa el recorte, sin bajar learning_rate",
        "celdas": {"solucion-3": _AJUSTAR_OTRA.replace(
            '"divergencia": lambda: {"learning_rate": args.learning_rate * 0.1, "max_grad_norm": 1.0},',
            '"divergencia": lambda: {"max_grad_norm": 1.0},')},
        "puntos": (10, 11),
    },
    {
        "nombre": "atajo: la etiqueta sale de tutor_lib.curvas.diagnosticar (la evidencia sí la calcula)",
        "celdas": {"solucion-2": _DIAGNOSTICAR_OTRA.replace(
            'return {"diagnostico": next(n for n, cumple in reglas if cumple), "evidencia": ev}',
            'from tutor_lib import curvas\n    return {"diagnostico": curvas.diagnosticar(log_history).categoria, "evidencia": ev}')},
        "puntos": (8, 10),
    },
]

# Engaño: ninguna celda resuelve nada; solo intenta pasar las pruebas como funcionaba cuando compartían
# proceso con las soluciones (listas, textos, números y dicts que dicen ser iguales a todo, math
# parcheado). Con el juez, nada de eso cruza la frontera: debe sacar 0.
VARIANTES.append({
    "nombre": "engaño: listas, textos, floats y dicts iguales a todo, math.isclose/isnan parcheados",
    "celdas": {
        "solucion-1": '''
class _ListaIgual(list):
    """Una lista que dice ser igual a cualquier cosa."""

    def __eq__(self, otro):
        return True


class _TextoIgual(str):
    def __eq__(self, otro):
        return True

    __hash__ = str.__hash__


class _FlotanteIgual(float):
    def __eq__(self, otro):
        return True

    __hash__ = float.__hash__


class _DiccionarioIgual(dict):
    def __eq__(self, otro):
        return True

    def __contains__(self, clave):
        return True

    def __getitem__(self, clave):
        return dict.get(self, clave, _FlotanteIgual(0.0))


math.isclose = lambda *args, **kwargs: True
math.isnan = lambda *args, **kwargs: True


def extraer_curvas(log_history):
    return _DiccionarioIgual(pasos_entrenamiento=_ListaIgual(), entrenamiento=_ListaIgual(),
                             pasos_validacion=_ListaIgual(), validacion=_ListaIgual())
''',
        "solucion-2": '''
def diagnosticar(log_history):
    evidencia = _DiccionarioIgual(no_finitos=False, caida=_FlotanteIgual(0.0), ruido=_FlotanteIgual(0.0),
                                  subida_validacion=_FlotanteIgual(0.0), mejor_paso=_FlotanteIgual(0.0))
    return _DiccionarioIgual(diagnostico=_TextoIgual("sano"), evidencia=evidencia)
''',
        "solucion-3": '''
def ajustar_argumentos(diagnostico, args):
    return _DiccionarioIgual()
''',
    },
    "puntos": (0, 0),
})
