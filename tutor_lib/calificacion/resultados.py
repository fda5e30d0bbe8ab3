"""Lo que deja una calificación: sus partes, sus límites y un mensaje en español por prueba.

Aparte del motor (:mod:`tutor_lib.calificacion.motor.calificador`) porque lo usan el motor, la
corrida de una clase (:mod:`tutor_lib.calificacion.motor.clase` y
:mod:`tutor_lib.calificacion.motor.reparto`, que mandan calificaciones como datos planos) y la
retroalimentación (:mod:`tutor_lib.calificacion.retroalimentacion`, que escribe el mismo mensaje que
ve quien estudia): cada uno lo importa de aquí y ninguno de ellos tiene que importar a los otros.
Los mensajes salen de las salidas de cada celda de prueba, nunca de su código.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from tutor_lib.calificacion.reconstruccion import _nbg


@dataclass
class Parte:
    id: str
    puntos: float | None
    maximo: float
    mensaje: str


@dataclass
class Calificacion:
    asignacion: str
    estudiante: str
    estado: str  # "calificado", "error", "tiempo agotado", "inválido", "sin entrega"
    puntos: float
    maximo: float
    mensaje: str
    partes: list[Parte] = field(default_factory=list)
    avisos: list[str] = field(default_factory=list)
    pendiente_manual: float = 0.0
    aislamiento: dict = field(default_factory=dict)
    retroalimentacion: str | None = None
    #: segundos: ``nbgrader_s`` (todo ``nbgrader autograde``) y, dentro, ``arranque_kernel_s``,
    #: ``celdas_estudiante_s`` y ``pruebas_s`` (los mide el ejecutor del juez)
    tiempos: dict = field(default_factory=dict)

    def como_dict(self) -> dict:
        return asdict(self)


@dataclass
class Limites:
    """Límites para el código de cada estudiante."""

    tiempo_celda: int = 60  # segundos por celda (nbgrader interrumpe y sigue)
    tiempo_total: int = 600  # segundos por entrega (se mata todo el proceso)
    memoria_mb: int = 4096  # memoria virtual del kernel
    cpu_s: int = 900  # segundos de CPU del kernel
    archivo_mb: int = 256  # tamaño máximo de un archivo escrito


MENSAJE_BIEN = "Bien: pasa las pruebas."


def _mensaje_error(salida: dict, limites: Limites) -> str:
    nombre, valor = salida.get("ename", ""), str(salida.get("evalue", "")).strip()
    if nombre in ("CellTimeoutError", "KeyboardInterrupt") or "Timeout" in nombre:
        return f"La celda tardó más de {limites.tiempo_celda} s y se interrumpió: ¿hay un ciclo que no termina?"
    if nombre == "NotImplementedError":
        return "Todavía no escribiste esta parte (la celda de solución aún lanza NotImplementedError)."
    if nombre == "AssertionError":
        return valor or "Una comprobación falló (sin mensaje)."
    if nombre == "NameError":
        return f"{valor}. ¿Ejecutaste y definiste todo lo que pide el enunciado con ese nombre?"
    if nombre == "MemoryError":
        return "Se acabó la memoria permitida: revisa tamaños de tensores o listas."
    if nombre == "ErrorDelAlumno":  # el mensaje del juez sobre lo que hizo tu código (nunca su texto)
        return valor[:300] or "Tu código falló al responder a la prueba."
    return f"Error {nombre}: {valor[:300]}"


def mensajes_de_pruebas(autocalificado, limites: Limites) -> dict[str, str]:
    """Un mensaje por celda de prueba, sacado de sus salidas (nunca del código).

    Si la prueba falla porque la celda de solución anterior ya había fallado
    (un ciclo interrumpido por tiempo, una excepción), el mensaje apunta a esa
    causa, que es la que hay que arreglar.
    """
    mensajes: dict[str, str] = {}
    causa_previa = None
    for celda in autocalificado.cells:
        meta = _nbg(celda)
        if celda.cell_type != "code":
            continue
        errores = [s for s in celda.get("outputs", []) if s.get("output_type") == "error"]
        if not (meta.get("grade") and not meta.get("solution")):
            if errores:
                causa_previa = _mensaje_error(errores[0], limites)
            elif meta.get("solution"):
                causa_previa = None  # una solución nueva que corre bien: empieza otra parte
            continue
        mensaje = MENSAJE_BIEN
        for salida in celda.get("outputs", []):
            if salida.get("output_type") == "error":
                mensaje = _mensaje_error(salida, limites)
                if causa_previa and salida.get("ename") != "AssertionError":
                    mensaje = f"Tu código de antes falló: {causa_previa}"
                break
            if salida.get("output_type") == "stream" and salida.get("name") == "stderr":
                mensaje = "La prueba escribió en stderr (un aviso o error): " + "".join(salida.get("text", ""))[:200]
                break
            if salida.get("output_type") == "stream":
                texto = "".join(salida.get("text", "")).strip()
                if texto:
                    mensaje = texto.splitlines()[-1][:300]
        mensajes[meta["grade_id"]] = mensaje
    return mensajes
