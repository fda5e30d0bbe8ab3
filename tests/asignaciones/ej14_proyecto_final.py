"""Variantes de ej14_proyecto_final: otras soluciones correctas y errores típicos (las usa tests/test_asignaciones.py)."""

TOTAL = 13

VARIANTES = [
    {
        "nombre": "otra solución correcta: log_softmax y gather, torch.cat para rellenar, split y sorted",
        "celdas": {
            "solucion-1": '''
def perdida_y_perplejidad(logits, etiquetas):
    """Entropía cruzada media por token que cuenta (etiqueta distinta de -100) y su exponencial."""
    objetivo = etiquetas[:, 1:]
    cuenta = objetivo != -100
    logp = torch.log_softmax(logits[:, :-1].double(), dim=-1)
    por_token = -logp.gather(-1, objetivo.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    perdida = (por_token * cuenta).sum() / cuenta.sum()
    return perdida.item(), torch.exp(perdida).item()
''',
            "solucion-2": '''
def rellenar_izquierda(secuencias, id_relleno):
    """Lote de ids rellenado a la izquierda con id_relleno y su máscara de atención (1 = token real)."""
    largo = max(map(len, secuencias))
    filas_ids, filas_mascara = [], []
    for s in secuencias:
        falta = largo - len(s)
        filas_ids.append(torch.cat([torch.full((falta,), id_relleno), torch.tensor(s, dtype=torch.long)]))
        filas_mascara.append(torch.cat([torch.zeros(falta), torch.ones(len(s))]))
    return torch.stack(filas_ids).long(), torch.stack(filas_mascara).long()
''',
            "solucion-3": '''
def acierta_numero(respuesta, esperado):
    """¿Aparece el entero esperado (str) en la respuesta como número completo?"""
    sin_miles = re.sub(r"(?<=\\d) (?=\\d{3}(?!\\d))", "", respuesta)
    return any(n == esperado for n in re.split(r"\\D+", sin_miles) if n)
''',
            "solucion-4": '''
def elegir_modelo(estimaciones, memoria_utilizable):
    """El candidato de más parámetros cuyo QLoRA usa como mucho la mitad de la memoria utilizable (o None)."""
    for nombre, (parametros, bytes_qlora) in sorted(estimaciones.items(), key=lambda e: -e[1][0]):
        if bytes_qlora <= memoria_utilizable / 2:
            return nombre
    return None
''',
        },
        "puntos": (TOTAL, TOTAL),
    },
    {
        "nombre": "error típico: promedia cada fila y después las filas (pesa igual una conversación corta)",
        "celdas": {
            "solucion-1": '''
def perdida_y_perplejidad(logits, etiquetas):
    """Entropía cruzada media por token que cuenta (etiqueta distinta de -100) y su exponencial."""
    medias = []
    for fila_logits, fila_etiquetas in zip(logits, etiquetas):
        medias.append(F.cross_entropy(fila_logits[:-1].float(), fila_etiquetas[1:], ignore_index=-100))
    perdida = float(torch.stack(medias).mean())
    return perdida, math.exp(perdida)
''',
        },
        "puntos": (TOTAL - 2, TOTAL - 2),
        # la primera de los errores típicos: se califica en cada `make test`; su pista nombra el error
        "pistas": {"prueba-1-lote": ["¿Promedias cada fila por separado?"]},
    },
    {
        "nombre": "error típico: rellena a la derecha",
        "celdas": {
            "solucion-2": '''
def rellenar_izquierda(secuencias, id_relleno):
    """Lote de ids rellenado a la izquierda con id_relleno y su máscara de atención (1 = token real)."""
    largo = max(len(s) for s in secuencias)
    ids = torch.full((len(secuencias), largo), id_relleno, dtype=torch.long)
    mascara = torch.zeros((len(secuencias), largo), dtype=torch.long)
    for fila, s in enumerate(secuencias):
        ids[fila, :len(s)] = torch.tensor(s, dtype=torch.long)
        mascara[fila, :len(s)] = 1
    return ids, mascara
''',
        },
        "puntos": (TOTAL - 3, TOTAL - 2),
    },
    {
        "nombre": "error típico: busca el texto del número dentro de la respuesta",
        "celdas": {
            "solucion-3": '''
def acierta_numero(respuesta, esperado):
    """¿Aparece el entero esperado (str) en la respuesta como número completo?"""
    return esperado in respuesta.replace(" ", "")
''',
        },
        "puntos": (TOTAL - 3, TOTAL - 2),
    },
    {
        "nombre": "error típico: desigualdad estricta y el último que cabe en el orden del diccionario",
        "celdas": {
            "solucion-4": '''
def elegir_modelo(estimaciones, memoria_utilizable):
    """El candidato de más parámetros cuyo QLoRA usa como mucho la mitad de la memoria utilizable (o None)."""
    elegido = None
    for nombre, (parametros, bytes_qlora) in estimaciones.items():
        if bytes_qlora < memoria_utilizable / 2:
            elegido = nombre
    return elegido
''',
        },
        "puntos": (TOTAL - 3, TOTAL - 2),
    },
]
