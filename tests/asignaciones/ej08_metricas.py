"""Variantes de ej08_metricas: otras soluciones correctas y errores típicos (las usa tests/test_asignaciones.py)."""

TOTAL = 13

_MATRIZ_OTRA = '''
def matriz_confusion(etiquetas, predicciones, n_clases=None):
    """Matriz de confusión con bincount sobre el índice real * K + predicción."""
    y = np.asarray(etiquetas).astype(np.int64)
    p = np.asarray(predicciones).astype(np.int64)
    k = n_clases if n_clases is not None else int(max(y.max(), p.max())) + 1
    return np.bincount(y * k + p, minlength=k * k).reshape(k, k)
'''

_PRF_OTRA = '''
def precision_recall_f1(etiquetas, predicciones, clase_positiva=1):
    """Cuentas con zip y F1 como 2·VP / (2·VP + FP + FN)."""
    vp = fp = fn = 0
    for real, pred in zip(etiquetas, predicciones):
        if pred == clase_positiva and real == clase_positiva:
            vp += 1
        elif pred == clase_positiva:
            fp += 1
        elif real == clase_positiva:
            fn += 1
    precision = vp / (vp + fp) if (vp + fp) > 0 else 0.0
    recall = vp / (vp + fn) if (vp + fn) > 0 else 0.0
    f1 = 2 * vp / (2 * vp + fp + fn) if vp > 0 else 0.0
    return {"precision": float(precision), "recall": float(recall), "f1": float(f1)}
'''

_UMBRAL_OTRA = '''
def mejor_umbral(probabilidades, etiquetas, umbrales):
    """Ordena los umbrales y usa np.argmax, que ante un empate devuelve el primero."""
    umbrales = np.sort(np.asarray(umbrales, dtype=float))
    prob = np.asarray(probabilidades)
    f1s = np.array([precision_recall_f1(etiquetas, (prob >= u).astype(int))["f1"] for u in umbrales])
    i = int(np.argmax(f1s))
    return float(umbrales[i]), float(f1s[i])
'''

_METRICAS_OTRA = '''
def calcular_metricas(eval_pred):
    """compute_metrics con desempaquetado de la tupla."""
    logits, etiquetas = eval_pred
    logits = logits[0] if isinstance(logits, tuple) else logits
    pred = np.asarray(logits).argmax(-1)
    etiquetas = np.asarray(etiquetas)
    return {"accuracy": float(np.mean(pred == etiquetas)),
            "f1": precision_recall_f1(etiquetas, pred, clase_positiva=1)["f1"]}
'''

VARIANTES = [
    {
        "nombre": "otra solución correcta: bincount, cuentas con zip y F1 = 2VP/(2VP+FP+FN), argmax sobre umbrales "
                  "ordenados, EvalPrediction desempaquetado",
        "celdas": {
            "solucion-1": _MATRIZ_OTRA,
            "solucion-2": _PRF_OTRA,
            "solucion-3": _UMBRAL_OTRA,
            "solucion-4": _METRICAS_OTRA,
        },
        "puntos": (TOTAL, TOTAL),
    },
    {
        "nombre": "error típico: precisión y recall intercambiados",
        "celdas": {"solucion-2": _PRF_OTRA.replace(
            "precision = vp / (vp + fp) if (vp + fp) > 0 else 0.0\n    recall = vp / (vp + fn) if (vp + fn) > 0 else 0.0",
            "precision = vp / (vp + fn) if (vp + fn) > 0 else 0.0\n    recall = vp / (vp + fp) if (vp + fp) > 0 else 0.0")},
        "puntos": (9, 11),
        # la primera de los errores típicos: se califica en cada `make test`; su pista nombra el error
        "pistas": {"prueba-2-leccion": ["Ese valor es el recall", "intercambiaste precisión y recall"],
                   "prueba-2-sklearn": ["tu valor es el recall", "Intercambiaste precisión y recall"]},
    },
    {
        "nombre": "error típico: matriz de confusión traspuesta (filas = predicción)",
        "celdas": {"solucion-1": _MATRIZ_OTRA.replace("y * k + p", "p * k + y")},
        "puntos": (10, 12),
    },
    {
        "nombre": "error típico: sin caso de división por cero (devuelve nan)",
        "celdas": {"solucion-2": '''
def precision_recall_f1(etiquetas, predicciones, clase_positiva=1):
    """Divide sin revisar el denominador."""
    reales = np.asarray(etiquetas) == clase_positiva
    marcadas = np.asarray(predicciones) == clase_positiva
    vp, fp, fn = (reales & marcadas).sum(), (~reales & marcadas).sum(), (reales & ~marcadas).sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.float64(vp) / (vp + fp)
        recall = np.float64(vp) / (vp + fn)
        f1 = 2 * precision * recall / (precision + recall)
    return {"precision": float(precision), "recall": float(recall), "f1": float(f1)}
'''},
        "puntos": (8, 12),
    },
    {
        "nombre": "error típico: umbral con > en vez de >= y empates resueltos con el mayor umbral",
        "celdas": {"solucion-3": '''
def mejor_umbral(probabilidades, etiquetas, umbrales):
    """Se queda con el último umbral que iguala el mejor F1."""
    prob = np.asarray(probabilidades)
    mejor = (None, -1.0)
    for u in sorted(umbrales):
        f1 = precision_recall_f1(etiquetas, (prob > u).astype(int))["f1"]
        if f1 >= mejor[1]:
            mejor = (float(u), f1)
    return mejor
'''},
        "puntos": (10, 12),
    },
    {
        "nombre": "error típico: F1 macro (promedio de las dos clases) en compute_metrics",
        "celdas": {"solucion-4": _METRICAS_OTRA.replace(
            '"f1": precision_recall_f1(etiquetas, pred, clase_positiva=1)["f1"]}',
            '"f1": (precision_recall_f1(etiquetas, pred, 0)["f1"] + precision_recall_f1(etiquetas, pred, 1)["f1"]) / 2}')},
        "puntos": (11, 12),
    },
]

# Engaño: ninguna celda resuelve nada; solo intenta pasar las pruebas como funcionaba cuando compartían
# proceso con las soluciones (un arreglo y un dict que dicen ser iguales a todo, subclases de float,
# comparaciones de NumPy y math parcheadas). Con el juez, nada de eso cruza la frontera: debe sacar 0.
VARIANTES.append({
    "nombre": "engaño: ndarray y dict iguales a todo, subclases de float, np.isclose/array_equal y math.isclose parcheados",
    "celdas": {
        "solucion-1": '''
class _MatrizIgual(np.ndarray):
    """Un arreglo que dice ser igual a cualquier cosa."""

    def __eq__(self, otro):
        return True

    def tolist(self):
        return _ListaIgual()


class _ListaIgual(list):
    def __eq__(self, otro):
        return True


class _FlotanteIgual(float):
    def __eq__(self, otro):
        return True

    def __le__(self, otro):
        return True

    def __ge__(self, otro):
        return True

    def __sub__(self, otro):
        return _FlotanteIgual(0.0)

    __rsub__ = __sub__
    __hash__ = float.__hash__


class _DiccionarioIgual(dict):
    def __eq__(self, otro):
        return True

    def __getitem__(self, clave):
        return _FlotanteIgual(0.0)

    def __contains__(self, clave):
        return True


np.isclose = lambda *args, **kwargs: True
np.array_equal = lambda *args, **kwargs: True
math.isclose = lambda *args, **kwargs: True


def matriz_confusion(etiquetas, predicciones, n_clases=None):
    return np.zeros((n_clases or 2, n_clases or 2), dtype=int).view(_MatrizIgual)
''',
        "solucion-2": '''
def precision_recall_f1(etiquetas, predicciones, clase_positiva=1):
    return _DiccionarioIgual(precision=_FlotanteIgual(0.0), recall=_FlotanteIgual(0.0), f1=_FlotanteIgual(0.0))
''',
        "solucion-3": '''
def mejor_umbral(probabilidades, etiquetas, umbrales):
    return (_FlotanteIgual(0.0), _FlotanteIgual(0.0))
''',
        "solucion-4": '''
def calcular_metricas(eval_pred):
    return _DiccionarioIgual(accuracy=_FlotanteIgual(0.0), f1=_FlotanteIgual(0.0))
''',
    },
    "puntos": (0, 0),
})
