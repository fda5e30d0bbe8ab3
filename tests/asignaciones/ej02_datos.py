"""Variantes de ej02_datos: otras soluciones correctas y errores típicos (las usa tests/test_asignaciones.py)."""

_CONTAR_CORRECTO = '''
def cargador_dinamico(datos, tamano_lote):
    """DataLoader sin barajar que rellena cada lote hasta su ejemplo más largo."""
    return DataLoader(datos, batch_size=tamano_lote, shuffle=False, collate_fn=DataCollatorWithPadding(tokenizer))


def contar_relleno(longitudes, tamano_lote, max_length):
    """Tokens de relleno con longitud fija y con relleno dinámico, y el ahorro."""
    fijo = sum(max_length - largo for largo in longitudes)
    dinamico = 0
    for inicio in range(0, len(longitudes), tamano_lote):
        lote = longitudes[inicio:inicio + tamano_lote]
        dinamico += len(lote) * max(lote) - sum(lote)
    return {"fijo": fijo, "dinamico": dinamico, "ahorro": fijo - dinamico}
'''

VARIANTES = [
    {
        "nombre": "otra solución correcta: argumentos con nombre, columnas de texto calculadas, "
                  "collator con padding='longest' y cuentas con numpy",
        "celdas": {
            "solucion-1": '''
def tokenizar(ejemplos):
    """Tokeniza pares de oraciones (sentence1, sentence2) truncando a MAX_TOKENS, sin relleno."""
    salida = tokenizer(text=ejemplos["sentence1"], text_pair=ejemplos["sentence2"], padding=False,
                       truncation="longest_first", max_length=MAX_TOKENS)
    return dict(salida)
''',
            "solucion-2": '''
def preparar(datos, funcion_tokenizar):
    """Tokeniza por lotes, quita el texto, renombra label → labels y deja el formato de PyTorch."""
    texto = ["sentence1", "sentence2"]
    tokenizado = datos.map(funcion_tokenizar, batched=True, batch_size=4)
    tokenizado = tokenizado.remove_columns(texto).rename_column("label", "labels")
    return tokenizado.with_format("torch")
''',
            "solucion-3": '''
import numpy as np


def cargador_dinamico(datos, tamano_lote):
    """DataLoader sin barajar que rellena cada lote hasta su ejemplo más largo."""
    return DataLoader(datos, batch_size=tamano_lote, collate_fn=DataCollatorWithPadding(tokenizer, padding="longest"))


def contar_relleno(longitudes, tamano_lote, max_length):
    """Tokens de relleno con longitud fija y con relleno dinámico, y el ahorro."""
    largos = np.asarray(longitudes)
    fijo = int(max_length * largos.size - largos.sum())
    procesados = sum(int(trozo.max()) * trozo.size
                     for trozo in np.array_split(largos, range(tamano_lote, largos.size, tamano_lote)))
    dinamico = int(procesados - largos.sum())
    return {"fijo": fijo, "dinamico": dinamico, "ahorro": fijo - dinamico}
''',
        },
        "puntos": (10, 10),
    },
    {
        "nombre": "error típico: concatena las dos oraciones en un solo texto (sin [SEP] en medio ni token_type_ids 1)",
        "celdas": {
            "solucion-1": '''
def tokenizar(ejemplos):
    """Tokeniza pares de oraciones (sentence1, sentence2) truncando a MAX_TOKENS, sin relleno."""
    textos = [a + " " + b for a, b in zip(ejemplos["sentence1"], ejemplos["sentence2"])]
    return tokenizer(textos, truncation=True, max_length=MAX_TOKENS)
''',
        },
        "puntos": (7, 9),
        # la primera de los errores típicos: se califica en cada `make test`; su pista nombra el error
        "pistas": {"prueba-1-par": ["[SEP] y debería tener 2", "dos oraciones al tokenizer como dos argumentos"],
                   "prueba-1-truncar": ["no lleva dos [SEP]", "como dos argumentos"]},
    },
    {
        "nombre": "error típico: rellena a MAX_TOKENS al tokenizar y en el collator (padding='max_length')",
        "celdas": {
            "solucion-1": '''
def tokenizar(ejemplos):
    """Tokeniza pares de oraciones (sentence1, sentence2) truncando a MAX_TOKENS, sin relleno."""
    return tokenizer(ejemplos["sentence1"], ejemplos["sentence2"], truncation=True, max_length=MAX_TOKENS,
                     padding="max_length")
''',
            "solucion-3": _CONTAR_CORRECTO.replace(
                "collate_fn=DataCollatorWithPadding(tokenizer))",
                'collate_fn=DataCollatorWithPadding(tokenizer, padding="max_length", max_length=MAX_TOKENS))'),
        },
        "puntos": (7, 9),
    },
    {
        "nombre": "error típico: olvida set_format('torch') y tokeniza fila por fila (sin batched=True)",
        "celdas": {
            "solucion-2": '''
def preparar(datos, funcion_tokenizar):
    """Tokeniza por lotes, quita el texto, renombra label → labels y deja el formato de PyTorch."""
    listo = datos.map(funcion_tokenizar, remove_columns=["sentence1", "sentence2"])
    return listo.rename_column("label", "labels")
''',
        },
        "puntos": (7, 9),
    },
    {
        "nombre": "error típico: cuenta el relleno dinámico como si todos los lotes estuvieran completos",
        "celdas": {
            "solucion-3": _CONTAR_CORRECTO.replace(
                "dinamico += len(lote) * max(lote) - sum(lote)",
                "dinamico += tamano_lote * max(lote) - sum(lote)"),
        },
        "puntos": (7, 9),
    },
]

_COMODIN = '''
import math


class _ListaComodin(list):
    """Una lista que dice ser igual a cualquier cosa y tener dos [SEP]."""

    def __eq__(self, otro):
        return True

    def count(self, valor):
        return 2

    def __contains__(self, valor):
        return False

    __hash__ = None


class _EnteroComodin(int):
    """Un int que dice ser igual a cualquier cosa."""

    def __eq__(self, otro):
        return True

    __hash__ = int.__hash__


class _DictComodin(dict):
    """Un dict que dice tener todas las claves y ser igual a cualquier cosa."""

    def __eq__(self, otro):
        return True

    def __contains__(self, clave):
        return True

    def __getitem__(self, clave):
        return _ListaComodin([1, 2])

    __hash__ = None


math.isclose = lambda *args, **kwargs: True
'''

VARIANTES.append({
    "nombre": "engaño: no resuelve nada; devuelve listas, enteros y dicts que dicen ser iguales a todo "
              "y un objeto que se hace pasar por Dataset",
    "celdas": {
        "solucion-1": _COMODIN + '''

def tokenizar(ejemplos):
    """Tokeniza pares de oraciones (sentence1, sentence2) truncando a MAX_TOKENS, sin relleno."""
    n = len(ejemplos["sentence1"])
    return {"input_ids": _ListaComodin(_ListaComodin([101, 102]) for _ in range(n)),
            "attention_mask": _ListaComodin(), "token_type_ids": _ListaComodin()}
''',
        "solucion-2": '''
class FalsoDataset:
    """Dice tener las columnas pedidas y las filas de pares, sin tokenizar nada."""

    column_names = ["input_ids", "token_type_ids", "attention_mask", "labels"]

    def __len__(self):
        return 10

    def __getitem__(self, indice):
        return _DictComodin()


def preparar(datos, funcion_tokenizar):
    """Tokeniza por lotes, quita el texto, renombra label → labels y deja el formato de PyTorch."""
    return FalsoDataset()
''',
        "solucion-3": '''
def cargador_dinamico(datos, tamano_lote):
    """DataLoader sin barajar que rellena cada lote hasta su ejemplo más largo."""
    return [_DictComodin() for _ in range(3)]


def contar_relleno(longitudes, tamano_lote, max_length):
    """Tokens de relleno con longitud fija y con relleno dinámico, y el ahorro."""
    return {"fijo": _EnteroComodin(0), "dinamico": _EnteroComodin(0), "ahorro": _EnteroComodin(0)}
''',
    },
    "puntos": (0, 0),
})
