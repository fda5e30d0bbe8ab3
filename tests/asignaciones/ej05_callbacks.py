"""Variantes de ej05_callbacks: otras soluciones correctas y errores típicos (las usa tests/test_asignaciones.py)."""

_ARGUMENTOS = '''
def argumentos_early_stopping(carpeta, metrica, mayor_es_mejor, cada):
    """TrainingArguments para early stopping sobre `metrica`, evaluando y guardando cada `cada` pasos."""
    return TrainingArguments(output_dir=carpeta, eval_strategy="steps", eval_steps=cada, save_strategy="steps",
                             save_steps=cada, save_total_limit=2, load_best_model_at_end=True,
                             metric_for_best_model=metrica, report_to="none")
'''

_PARADA_CON_UMBRAL_EN_EL_MEJOR = '''
def paso_de_parada(historial, paciencia, umbral, mayor_es_mejor):
    """Paso de la evaluación en la que EarlyStoppingCallback detiene el entrenamiento (o None)."""
    mejor, contador = None, 0
    for paso, valor in historial:
        signo = 1 if mayor_es_mejor else -1
        if mejor is None or signo * (valor - mejor) > umbral:
            mejor, contador = valor, 0
        else:
            contador += 1
        if contador >= paciencia:
            return paso
    return None


def mejor_checkpoint(historial, paciencia, umbral, mayor_es_mejor):
    """Paso del checkpoint que recupera load_best_model_at_end (solo evaluaciones hasta la parada)."""
    mejor, mejor_paso, contador = None, None, 0
    for paso, valor in historial:
        signo = 1 if mayor_es_mejor else -1
        if mejor is None or signo * (valor - mejor) > umbral:
            mejor, mejor_paso, contador = valor, paso, 0
        else:
            contador += 1
        if contador >= paciencia:
            break
    return mejor_paso
'''

_PARADA_EMPATE_ES_MEJORA = '''
def paso_de_parada(historial, paciencia, umbral, mayor_es_mejor):
    """Paso de la evaluación en la que EarlyStoppingCallback detiene el entrenamiento (o None)."""
    mejor, contador = None, 0
    for paso, valor in historial:
        if mejor is None:
            contador = 0
        elif (valor >= mejor if mayor_es_mejor else valor <= mejor) and abs(valor - mejor) >= umbral:
            contador = 0
        else:
            contador += 1
        if mejor is None or (valor >= mejor if mayor_es_mejor else valor <= mejor):
            mejor = valor
        if contador >= paciencia:
            return paso
    return None


def mejor_checkpoint(historial, paciencia, umbral, mayor_es_mejor):
    """Paso del checkpoint que recupera load_best_model_at_end (solo evaluaciones hasta la parada)."""
    mejor, mejor_paso, contador = None, None, 0
    for paso, valor in historial:
        if mejor is None:
            contador = 0
        elif (valor >= mejor if mayor_es_mejor else valor <= mejor) and abs(valor - mejor) >= umbral:
            contador = 0
        else:
            contador += 1
        if mejor is None or (valor >= mejor if mayor_es_mejor else valor <= mejor):
            mejor, mejor_paso = valor, paso
        if contador >= paciencia:
            break
    return mejor_paso
'''

VARIANTES = [
    {
        "nombre": "otra solución correcta: save_strategy='best', dos recorridos por separado y logs.get",
        "celdas": {
            "solucion-1": '''
def argumentos_early_stopping(carpeta, metrica, mayor_es_mejor, cada):
    """TrainingArguments para early stopping sobre `metrica`, evaluando y guardando cada `cada` pasos."""
    opciones = dict(output_dir=carpeta, eval_strategy="steps", eval_steps=cada, save_strategy="best",
                    save_total_limit=2, load_best_model_at_end=True, metric_for_best_model=metrica,
                    greater_is_better=bool(mayor_es_mejor), report_to="none")
    return TrainingArguments(**opciones)
''',
            "solucion-2": '''
def _recorrer(historial, paciencia, umbral, mayor_es_mejor):
    """Opcional, si te sirve: recorre el historial una vez y devuelve (paso de parada o None, paso del mejor)."""
    raise NotImplementedError()


def _es_mejor(valor, referencia, mayor_es_mejor):
    return valor > referencia if mayor_es_mejor else valor < referencia


def paso_de_parada(historial, paciencia, umbral, mayor_es_mejor):
    """Paso de la evaluación en la que EarlyStoppingCallback detiene el entrenamiento (o None)."""
    mejor = None
    contador = 0
    for paso, valor in historial:
        if mejor is not None and not (_es_mejor(valor, mejor, mayor_es_mejor) and abs(valor - mejor) > umbral):
            contador += 1
        else:
            contador = 0
        if mejor is None or _es_mejor(valor, mejor, mayor_es_mejor):
            mejor = valor
        if contador == paciencia:
            return paso
    return None


def mejor_checkpoint(historial, paciencia, umbral, mayor_es_mejor):
    """Paso del checkpoint que recupera load_best_model_at_end (solo evaluaciones hasta la parada)."""
    parada = paso_de_parada(historial, paciencia, umbral, mayor_es_mejor)
    ocurridas = [(p, v) for p, v in historial if parada is None or p <= parada]
    mejor_paso, mejor = None, None
    for paso, valor in ocurridas:
        if mejor is None or _es_mejor(valor, mejor, mayor_es_mejor):
            mejor_paso, mejor = paso, valor
    return mejor_paso
''',
            "solucion-3": '''
class ParadaPorPerdida(TrainerCallback):
    """Detiene el entrenamiento cuando la pérdida de entrenamiento registrada baja de `umbral`."""

    def __init__(self, umbral):
        super().__init__()
        self.umbral, self.perdidas, self.paso_de_parada = umbral, [], None

    def on_log(self, args, state, control, logs=None, **kwargs):
        perdida = (logs or {}).get("loss")
        if perdida is None:
            return control
        self.perdidas.append((state.global_step, perdida))
        if self.paso_de_parada is None and perdida < self.umbral:
            self.paso_de_parada = state.global_step
            control.should_training_stop = True
        return control
''',
        },
        "puntos": (12, 12),
    },
    {
        "nombre": "error típico: greater_is_better no se pasa (se deduce del nombre de la métrica)",
        "celdas": {"solucion-1": _ARGUMENTOS},
        "puntos": (11, 11),
        # la primera de los errores típicos: se califica en cada `make test`; su pista nombra el error
        "pistas": {"prueba-args-oculta": ["greater_is_better quedó en True", "lo deduce del nombre de la métrica"]},
    },
    {
        "nombre": "error típico: el umbral también decide cuál es el mejor checkpoint",
        "celdas": {"solucion-2": _PARADA_CON_UMBRAL_EN_EL_MEJOR},
        "puntos": (7, 9),
    },
    {
        "nombre": "error típico: un empate cuenta como mejora",
        "celdas": {"solucion-2": _PARADA_EMPATE_ES_MEJORA},
        "puntos": (8, 10),
    },
    {
        "nombre": "error típico: el callback lee logs['loss'] sin mirar qué registro es",
        "celdas": {"solucion-3": '''
class ParadaPorPerdida(TrainerCallback):
    """Detiene el entrenamiento cuando la pérdida de entrenamiento registrada baja de `umbral`."""

    def __init__(self, umbral):
        self.umbral = umbral
        self.perdidas = []
        self.paso_de_parada = None

    def on_log(self, args, state, control, logs=None, **kwargs):
        self.perdidas.append((state.global_step, logs["loss"]))
        if logs["loss"] < self.umbral and self.paso_de_parada is None:
            self.paso_de_parada = state.global_step
            control.should_training_stop = True
'''},
        "puntos": (9, 9),
    },
    {
        "nombre": "error típico: el callback enciende should_epoch_stop en vez de should_training_stop",
        "celdas": {"solucion-3": '''
class ParadaPorPerdida(TrainerCallback):
    """Detiene el entrenamiento cuando la pérdida de entrenamiento registrada baja de `umbral`."""

    def __init__(self, umbral):
        self.umbral = umbral
        self.perdidas = []
        self.paso_de_parada = None

    def on_log(self, args, state, control, logs=None, **kwargs):
        if "loss" in logs:
            self.perdidas.append((state.global_step, logs["loss"]))
            if logs["loss"] < self.umbral and self.paso_de_parada is None:
                self.paso_de_parada = state.global_step
                control.should_epoch_stop = True
'''},
        "puntos": (9, 9),
    },
]

_ENGANO = {
    "nombre": "engaño: campos y respuestas que dicen ser iguales a todo, math.isclose parcheado",
    "celdas": {
        "solucion-1": '''
class _IgualATodo:
    """Un objeto que dice ser igual a cualquier cosa (y divisible por todo)."""

    def __eq__(self, otro):
        return True

    def __mod__(self, otro):
        return 0

    __hash__ = object.__hash__


def argumentos_early_stopping(carpeta, metrica, mayor_es_mejor, cada):
    """TrainingArguments para early stopping sobre `metrica`, evaluando y guardando cada `cada` pasos."""
    args = TrainingArguments(output_dir=carpeta, report_to="none")
    for campo in ("eval_strategy", "eval_steps", "save_strategy", "save_steps", "save_total_limit",
                  "load_best_model_at_end", "metric_for_best_model", "greater_is_better", "output_dir"):
        object.__setattr__(args, campo, _IgualATodo())
    return args
''',
        "solucion-2": '''
import math

math.isclose = lambda *args, **kwargs: True


class _PasoIgualATodo(int):
    def __eq__(self, otro):
        return True

    __hash__ = int.__hash__


def _recorrer(historial, paciencia, umbral, mayor_es_mejor):
    """Opcional, si te sirve: recorre el historial una vez y devuelve (paso de parada o None, paso del mejor)."""
    return _PasoIgualATodo(0), _PasoIgualATodo(0)


def paso_de_parada(historial, paciencia, umbral, mayor_es_mejor):
    """Paso de la evaluación en la que EarlyStoppingCallback detiene el entrenamiento (o None)."""
    return _recorrer(historial, paciencia, umbral, mayor_es_mejor)[0]


def mejor_checkpoint(historial, paciencia, umbral, mayor_es_mejor):
    """Paso del checkpoint que recupera load_best_model_at_end (solo evaluaciones hasta la parada)."""
    return _recorrer(historial, paciencia, umbral, mayor_es_mejor)[1]
''',
        "solucion-3": '''
class _ListaIgualATodo(list):
    def __eq__(self, otro):
        return True


class _PasoIgualATodo(int):
    def __eq__(self, otro):
        return True

    __hash__ = int.__hash__


class ParadaPorPerdida(TrainerCallback):
    """Detiene el entrenamiento cuando la pérdida de entrenamiento registrada baja de `umbral`."""

    def __init__(self, umbral):
        self.umbral = umbral
        self.perdidas = _ListaIgualATodo()
        self.paso_de_parada = _PasoIgualATodo(0)

    def on_log(self, args, state, control, logs=None, **kwargs):
        control.should_training_stop = _PasoIgualATodo(1)
''',
    },
    "puntos": (0, 0),
}

VARIANTES.append(_ENGANO)


# Ninguna línea de la solución ni de las pruebas ocultas se muestra a propósito en exercises/.
LINEAS_COMPARTIDAS: dict[str, str] = {}
