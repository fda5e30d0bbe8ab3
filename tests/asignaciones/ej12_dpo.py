"""Variantes de ej12_dpo: otras soluciones correctas y errores típicos (las usa tests/test_asignaciones.py)."""

TOTAL = 11

_LOGPROB = '''
def logprob_respuesta(logits, etiquetas):
    """Suma de los log-probs de los tokens con etiqueta distinta de -100 (con el desplazamiento de una posición)."""
{cuerpo}
'''

VARIANTES = [
    {
        "nombre": "otra solución correcta: softplus, cross_entropy con ignore_index y torch.where",
        "celdas": {
            "solucion-1": '''
def dpo_loss(pol_elegida, pol_rechazada, ref_elegida, ref_rechazada, beta=0.1):
    """Pérdida media de DPO, recompensas implícitas de cada respuesta y márgenes."""
    log_ratio_w = pol_elegida - ref_elegida
    log_ratio_l = pol_rechazada - ref_rechazada
    z = beta * (log_ratio_w - log_ratio_l)
    perdida = F.softplus(-z).mean()  # softplus(-z) = -log σ(z)
    return perdida, beta * log_ratio_w, beta * log_ratio_l, z
''',
            "solucion-2": _LOGPROB.format(cuerpo='''    lote, largo, vocab = logits.shape
    nll = F.cross_entropy(
        logits[:, :-1].reshape(-1, vocab).float(), etiquetas[:, 1:].reshape(-1),
        ignore_index=-100, reduction="none",
    )
    return -nll.view(lote, largo - 1).sum(dim=1)'''),
            "solucion-3": '''
def etiquetas_asistente(ids, inicio, mascara_atencion=None):
    """Copia de ids con -100 en el prompt (posiciones < inicio) y en el relleno."""
    posiciones = torch.arange(ids.shape[0])
    ignorar = posiciones < inicio
    if mascara_atencion is not None:
        ignorar = ignorar | (mascara_atencion == 0)
    return torch.where(ignorar, torch.full_like(ids, -100), ids).long()
''',
        },
        "puntos": (TOTAL, TOTAL),
    },
    {
        "nombre": "error típico: β fuera del logsigmoid (−β · log σ(Δ))",
        "celdas": {
            "solucion-1": '''
def dpo_loss(pol_elegida, pol_rechazada, ref_elegida, ref_rechazada, beta=0.1):
    """Pérdida media de DPO, recompensas implícitas de cada respuesta y márgenes."""
    recompensa_elegida = beta * (pol_elegida - ref_elegida)
    recompensa_rechazada = beta * (pol_rechazada - ref_rechazada)
    delta = (pol_elegida - ref_elegida) - (pol_rechazada - ref_rechazada)
    perdida = -(beta * F.logsigmoid(delta)).mean()
    return perdida, recompensa_elegida, recompensa_rechazada, recompensa_elegida - recompensa_rechazada
''',
        },
        "puntos": (9, 9),
        # la primera de los errores típicos: se califica en cada `make test`; su pista nombra el error
        "pistas": {"prueba-1-ln2": ["β · ln 2", "dentro del logsigmoid"],
                   "prueba-1-formula": ["β va dentro del logsigmoid"]},
    },
    {
        "nombre": "error típico: torch.log(torch.sigmoid(...)) (infinito con márgenes extremos)",
        "celdas": {
            "solucion-1": '''
def dpo_loss(pol_elegida, pol_rechazada, ref_elegida, ref_rechazada, beta=0.1):
    """Pérdida media de DPO, recompensas implícitas de cada respuesta y márgenes."""
    recompensa_elegida = beta * (pol_elegida - ref_elegida)
    recompensa_rechazada = beta * (pol_rechazada - ref_rechazada)
    margen = recompensa_elegida - recompensa_rechazada
    perdida = -torch.log(torch.sigmoid(margen)).mean()
    return perdida, recompensa_elegida, recompensa_rechazada, margen
''',
        },
        "puntos": (10, 10),
    },
    {
        "nombre": "error típico: olvida el desplazamiento (logits[:, t] con etiquetas[:, t])",
        "celdas": {
            "solucion-2": _LOGPROB.format(cuerpo='''    cuenta = etiquetas != -100
    logp = torch.log_softmax(logits.float(), dim=-1)
    por_token = logp.gather(-1, etiquetas.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    return (por_token * cuenta).sum(dim=-1)'''),
        },
        "puntos": (9, 9),
    },
    {
        "nombre": "error típico: no enmascara (suma también las posiciones con -100)",
        "celdas": {
            "solucion-2": _LOGPROB.format(cuerpo='''    objetivo = etiquetas[:, 1:].clamp(min=0)
    logp = torch.log_softmax(logits[:, :-1].float(), dim=-1)
    return logp.gather(-1, objetivo.unsqueeze(-1)).squeeze(-1).sum(dim=-1)'''),
        },
        "puntos": (8, 8),
    },
    {
        "nombre": "error típico: modifica ids en su lugar",
        "celdas": {
            "solucion-3": '''
def etiquetas_asistente(ids, inicio, mascara_atencion=None):
    """Copia de ids con -100 en el prompt (posiciones < inicio) y en el relleno."""
    ids[:inicio] = -100
    if mascara_atencion is not None:
        ids[mascara_atencion == 0] = -100
    return ids
''',
        },
        "puntos": (10, 10),
    },
    {
        "nombre": "error típico: ignora la máscara de atención (el relleno cuenta)",
        "celdas": {
            "solucion-3": '''
def etiquetas_asistente(ids, inicio, mascara_atencion=None):
    """Copia de ids con -100 en el prompt (posiciones < inicio) y en el relleno."""
    etiquetas = ids.clone()
    etiquetas[:inicio] = -100
    return etiquetas
''',
        },
        "puntos": (10, 10),
    },
    {
        # La pérdida de forma (1,) en vez de un escalar: antes, torch.allclose y float() la aceptaban en tres
        # pruebas (9 de 11); con la forma revisada por tutor_lib.juez.comparar_valores pierde también esas (7).
        "nombre": "error típico: la pérdida queda con forma (1,) (mean con keepdim=True)",
        "celdas": {
            "solucion-1": '''
def dpo_loss(pol_elegida, pol_rechazada, ref_elegida, ref_rechazada, beta=0.1):
    """Pérdida media de DPO, recompensas implícitas de cada respuesta y márgenes."""
    recompensa_elegida = beta * (pol_elegida - ref_elegida)
    recompensa_rechazada = beta * (pol_rechazada - ref_rechazada)
    margen = recompensa_elegida - recompensa_rechazada
    perdida = -F.logsigmoid(margen).mean(dim=0, keepdim=True)
    return perdida, recompensa_elegida, recompensa_rechazada, margen
''',
        },
        "puntos": (7, 7),
    },
]

# Engaño: nada de esto calcula la pérdida ni las etiquetas; solo intenta burlar pruebas que comparan en el
# mismo proceso (así funcionaba antes del juez). Con el juez aparte debe sacar 0.
_ENGANO_DPO = '''
class _ListaIgual(list):
    def __eq__(self, otro):
        return True


class _Tramposo(torch.Tensor):
    """Un tensor que se dice igual, menor y mayor que cualquier cosa."""

    def __eq__(self, otro):
        return torch.ones(self.shape, dtype=torch.bool)

    __lt__ = __gt__ = __le__ = __ge__ = __eq__

    def tolist(self):
        return _ListaIgual(super().tolist())

    def __float__(self):
        return math.log(2)


class _TuplaIgual(tuple):
    def __eq__(self, otro):
        return True

    __hash__ = tuple.__hash__


torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True
torch.all = lambda *a, **k: True
torch.is_tensor = lambda *a, **k: True
math.isclose = lambda *a, **k: True


def dpo_loss(pol_elegida, pol_rechazada, ref_elegida, ref_rechazada, beta=0.1):
    """Pérdida media de DPO, recompensas implícitas de cada respuesta y márgenes."""
    falso = torch.zeros(pol_elegida.shape).as_subclass(_Tramposo)
    return _TuplaIgual((torch.zeros(()).as_subclass(_Tramposo), falso, falso, falso))
'''

_ENGANO_LOGPROB = '''
def logprob_respuesta(logits, etiquetas):
    """Suma de los log-probs de los tokens con etiqueta distinta de -100 (con el desplazamiento de una posición)."""
    return torch.zeros(logits.shape[0]).as_subclass(_Tramposo)
'''

_ENGANO_ETIQUETAS = '''
def etiquetas_asistente(ids, inicio, mascara_atencion=None):
    """Copia de ids con -100 en el prompt (posiciones < inicio) y en el relleno."""
    return ids.clone().as_subclass(_Tramposo)
'''

VARIANTES.append({
    "nombre": "engaño: tupla y tensores que son iguales a todo y parches de torch.allclose, torch.all y math.isclose",
    "celdas": {"solucion-1": _ENGANO_DPO, "solucion-2": _ENGANO_LOGPROB, "solucion-3": _ENGANO_ETIQUETAS},
    "puntos": (0, 0),
})
