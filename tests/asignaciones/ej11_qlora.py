"""Variantes de ej11_qlora: otras soluciones correctas y errores típicos (las usa tests/test_asignaciones.py)."""

TOTAL = 11

VARIANTES = [
    {
        "nombre": "otra solución correcta: bloques con torch.split, nivel más cercano con argmin",
        "celdas": {
            "solucion-1": '''
def cuantizar_absmax(x, bloque=64):
    """Códigos int8 y un absmax float32 por bloque de valores consecutivos (el último bloque puede ser más corto)."""
    codigos, maximos = [], []
    for trozo in torch.split(x.float(), bloque):
        m = trozo.abs().max()
        maximos.append(m)
        if m == 0:
            codigos.append(torch.zeros_like(trozo, dtype=torch.int8))
        else:
            codigos.append((trozo * 127 / m).round().to(torch.int8))
    return torch.cat(codigos), torch.stack(maximos).to(torch.float32)


def descuantizar(codigos, absmax, bloque=64):
    """Reconstruye los valores: código · absmax de su bloque / 127."""
    partes = [c.float() * m / 127 for c, m in zip(torch.split(codigos, bloque), absmax)]
    return torch.cat(partes).to(torch.float32)
''',
            "solucion-2": '''
def cuantizar_niveles(x, niveles, bloque=64):
    """Códigos uint8 (índice del nivel más cercano a x / absmax) y un absmax float32 por bloque."""
    codigos, maximos = [], []
    for trozo in torch.split(x.float(), bloque):
        m = trozo.abs().max()
        maximos.append(m)
        normalizado = trozo / m if m > 0 else trozo
        distancias = (normalizado.unsqueeze(1) - niveles.unsqueeze(0)).abs()
        codigos.append(distancias.argmin(dim=1).to(torch.uint8))
    return torch.cat(codigos), torch.stack(maximos).float()


def descuantizar_niveles(codigos, absmax, niveles, bloque=64):
    """Reconstruye los valores: niveles[código] · absmax de su bloque."""
    indices = torch.arange(codigos.numel()) // bloque
    return niveles[codigos.long()] * absmax[indices]
''',
            "solucion-3": '''
def bits_por_parametro(bits_codigo=4, bloque=64, bits_constante=32):
    """Bits por parámetro: el código más la parte del absmax de su bloque que le toca."""
    return float((bits_codigo * bloque + bits_constante) / bloque)


def bits_doble_cuantizacion(bits_codigo=4, bloque=64, bits_constante=8, bloque2=256, bits_constante2=32):
    """Bits por parámetro con los absmax cuantizados y una constante por cada bloque2 absmax."""
    constante_por_bloque = bits_constante + bits_constante2 / bloque2
    return bits_codigo + constante_por_bloque / bloque


def gigabytes(num_parametros, bits):
    """Memoria de num_parametros pesos de bits bits cada uno, en GB (10⁹ bytes)."""
    bytes_totales = num_parametros * bits / 8
    return bytes_totales / 10**9
''',
        },
        "puntos": (TOTAL, TOTAL),
    },
    {
        "nombre": "error típico: trunca en vez de redondear (.to(torch.int8) directo)",
        "celdas": {
            "solucion-1": '''
def cuantizar_absmax(x, bloque=64):
    """Códigos int8 y un absmax float32 por bloque de valores consecutivos (el último bloque puede ser más corto)."""
    n = x.numel()
    bloques = math.ceil(n / bloque)
    relleno = torch.zeros(bloques * bloque)
    relleno[:n] = x
    filas = relleno.view(bloques, bloque)
    absmax = filas.abs().amax(dim=1)
    divisor = torch.where(absmax == 0, torch.ones_like(absmax), absmax)
    codigos = (filas / divisor[:, None] * 127).to(torch.int8)
    return codigos.flatten()[:n], absmax


def descuantizar(codigos, absmax, bloque=64):
    """Reconstruye los valores: código · absmax de su bloque / 127."""
    return codigos.float() * absmax.repeat_interleave(bloque)[: codigos.numel()] / 127
''',
        },
        "puntos": (8, 8),
        # la primera de los errores típicos: se califica en cada `make test`; su pista nombra el error
        "pistas": {"prueba-1-ejemplo": ["¿Redondeas al entero más cercano?"],
                   "prueba-1-error": ["se trunca en vez de redondear", "Redondeas al entero más cercano"]},
    },
    {
        "nombre": "error típico: solo funciona si el largo es múltiplo del bloque (view(-1, bloque))",
        "celdas": {
            "solucion-1": '''
def cuantizar_absmax(x, bloque=64):
    """Códigos int8 y un absmax float32 por bloque de valores consecutivos (el último bloque puede ser más corto)."""
    filas = x.view(-1, bloque)
    absmax = filas.abs().amax(dim=1)
    codigos = torch.round(filas / absmax[:, None] * 127).to(torch.int8)
    return codigos.flatten(), absmax


def descuantizar(codigos, absmax, bloque=64):
    """Reconstruye los valores: código · absmax de su bloque / 127."""
    return (codigos.view(-1, bloque).float() * absmax[:, None] / 127).flatten()
''',
        },
        "puntos": (9, 9),
    },
    {
        "nombre": "error típico: bucketize contra los niveles en vez de los puntos medios (no es el más cercano)",
        "celdas": {
            "solucion-2": '''
def cuantizar_niveles(x, niveles, bloque=64):
    """Códigos uint8 (índice del nivel más cercano a x / absmax) y un absmax float32 por bloque."""
    n = x.numel()
    bloques = math.ceil(n / bloque)
    relleno = torch.zeros(bloques * bloque)
    relleno[:n] = x
    filas = relleno.view(bloques, bloque)
    absmax = filas.abs().amax(dim=1)
    divisor = torch.where(absmax == 0, torch.ones_like(absmax), absmax)
    codigos = torch.bucketize(filas / divisor[:, None], niveles).clamp(max=len(niveles) - 1).to(torch.uint8)
    return codigos.flatten()[:n], absmax


def descuantizar_niveles(codigos, absmax, niveles, bloque=64):
    """Reconstruye los valores: niveles[código] · absmax de su bloque."""
    return niveles[codigos.long()] * absmax.repeat_interleave(bloque)[: codigos.numel()]
''',
        },
        "puntos": (7, 8),
    },
    {
        "nombre": "error típico: doble cuantización sin la constante de segundo nivel",
        "celdas": {
            "solucion-3": '''
def bits_por_parametro(bits_codigo=4, bloque=64, bits_constante=32):
    """Bits por parámetro: el código más la parte del absmax de su bloque que le toca."""
    return bits_codigo + bits_constante / bloque


def bits_doble_cuantizacion(bits_codigo=4, bloque=64, bits_constante=8, bloque2=256, bits_constante2=32):
    """Bits por parámetro con los absmax cuantizados y una constante por cada bloque2 absmax."""
    return bits_codigo + bits_constante / bloque


def gigabytes(num_parametros, bits):
    """Memoria de num_parametros pesos de bits bits cada uno, en GB (10⁹ bytes)."""
    return num_parametros * bits / 8 / 1e9
''',
        },
        "puntos": (10, 10),
    },
]

# Engaño: nada de esto cuantiza; solo intenta burlar pruebas que comparan en el mismo proceso (así
# funcionaba antes del juez). Con el juez aparte debe sacar 0.
_ENGANO_ABSMAX = '''
class _ListaIgual(list):
    def __eq__(self, otro):
        return True


class _Tramposo(torch.Tensor):
    """Un tensor que se dice igual a todo y que pasa cualquier comparación."""

    def __eq__(self, otro):
        return torch.ones(self.shape, dtype=torch.bool)

    def __le__(self, otro):
        return torch.ones(self.shape, dtype=torch.bool)

    def tolist(self):
        return _ListaIgual(super().tolist())


torch.allclose = lambda *a, **k: True
torch.all = lambda *a, **k: True
math.isclose = lambda *a, **k: True


def cuantizar_absmax(x, bloque=64):
    """Códigos int8 y un absmax float32 por bloque de valores consecutivos (el último bloque puede ser más corto)."""
    return torch.zeros(x.shape, dtype=torch.int8).as_subclass(_Tramposo), torch.zeros(1).as_subclass(_Tramposo)


def descuantizar(codigos, absmax, bloque=64):
    """Reconstruye los valores: código · absmax de su bloque / 127."""
    return torch.zeros(codigos.shape).as_subclass(_Tramposo)
'''

_ENGANO_NIVELES = '''
def cuantizar_niveles(x, niveles, bloque=64):
    """Códigos uint8 (índice del nivel más cercano a x / absmax) y un absmax float32 por bloque."""
    return torch.zeros(x.shape, dtype=torch.uint8).as_subclass(_Tramposo), torch.zeros(1).as_subclass(_Tramposo)


def descuantizar_niveles(codigos, absmax, niveles, bloque=64):
    """Reconstruye los valores: niveles[código] · absmax de su bloque."""
    return torch.zeros(codigos.shape).as_subclass(_Tramposo)
'''

_ENGANO_BITS = '''
class _FlotanteIgual(float):
    """Un «float» que dice ser igual (y cercano) a cualquier número."""

    def __eq__(self, otro):
        return True

    def __sub__(self, otro):
        return _FlotanteIgual(0.0)

    __hash__ = float.__hash__


def bits_por_parametro(bits_codigo=4, bloque=64, bits_constante=32):
    """Bits por parámetro: el código más la parte del absmax de su bloque que le toca."""
    return _FlotanteIgual(0.0)


def bits_doble_cuantizacion(bits_codigo=4, bloque=64, bits_constante=8, bloque2=256, bits_constante2=32):
    """Bits por parámetro con los absmax cuantizados y una constante por cada bloque2 absmax."""
    return _FlotanteIgual(0.0)


def gigabytes(num_parametros, bits):
    """Memoria de num_parametros pesos de bits bits cada uno, en GB (10⁹ bytes)."""
    return _FlotanteIgual(0.0)
'''

VARIANTES.append({
    "nombre": "engaño: tensores y floats que son iguales a todo y parches de torch.allclose, torch.all y math.isclose",
    "celdas": {"solucion-1": _ENGANO_ABSMAX, "solucion-2": _ENGANO_NIVELES, "solucion-3": _ENGANO_BITS},
    "puntos": (0, 0),
})
