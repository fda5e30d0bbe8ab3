"""El nombre de antes del motor de calificación, para quien ya lo importa así.

La lección 00 muestra las asignaciones con ``from tutor_lib import calificador`` y
``calificador.resumen_asignaciones()``. El motor vive en
:mod:`tutor_lib.calificacion.motor.calificador`, la corrida de una clase en
:mod:`tutor_lib.calificacion.motor.clase` y lo que deja una calificación en
:mod:`tutor_lib.calificacion.resultados` (ver :mod:`tutor_lib.calificacion`). Aquí no hay
código propio: solo esos nombres. Nada de ``tutor_lib`` importa este módulo.
"""

from tutor_lib.calificacion.motor.calificador import (
    CursoTemporal,
    asignaciones,
    detectar_asignacion,
    entrega_de_referencia,
    fuente,
    leer_entrega,
    normalizar,
    raiz_curso,
    resumen_asignaciones,
)
from tutor_lib.calificacion.motor.clase import calificar_clase
from tutor_lib.calificacion.resultados import Calificacion, Limites, Parte

__all__ = ["Calificacion", "CursoTemporal", "Limites", "Parte", "asignaciones", "calificar_clase",
           "detectar_asignacion", "entrega_de_referencia", "fuente", "leer_entrega", "normalizar", "raiz_curso",
           "resumen_asignaciones"]
