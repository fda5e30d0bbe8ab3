"""El nombre corto del juez para los notebooks: ``from tutor_lib.juez import alumno, comparar_valores``.

El juez vive en :mod:`tutor_lib.calificacion.juez` (ver :mod:`tutor_lib.calificacion`). Este
paquete queda aquí por los notebooks de ``solutions/`` y ``exercises/``, cuya celda compartida lo
importa en el kernel del estudiante y en el proceso del juez, y por el lanzador de procesos del
ejercicio 13 (``from tutor_lib.juez.multiproceso import lanzar``). No tiene código propio: sus nombres
son los mismos objetos de :mod:`tutor_lib.calificacion.juez`, y ``tutor_lib.juez.datos``,
``tutor_lib.juez.puente`` y ``tutor_lib.juez.multiproceso`` son los mismos módulos (no copias: el
``alumno`` que el juez conecta a sus tuberías es el que importa la prueba).
"""

import sys

from tutor_lib.calificacion.juez import (
    MARCA_COMPARTIDA,
    Alumno,
    ErrorDelAlumno,
    alumno,
    comparar_valores,
    revisar_forma,
    valores_coinciden,
)
from tutor_lib.calificacion.juez import datos, multiproceso, puente

# Los submódulos que los notebooks importan por este nombre corto.
for _modulo in (datos, multiproceso, puente):
    sys.modules[f"{__name__}.{_modulo.__name__.rsplit('.', 1)[1]}"] = _modulo

__all__ = ["Alumno", "ErrorDelAlumno", "MARCA_COMPARTIDA", "alumno", "comparar_valores", "revisar_forma",
           "valores_coinciden"]
