"""El juez: las pruebas corren en un proceso aparte del código del estudiante.

Calificar es ejecutar código ajeno. Si las pruebas corrieran en el mismo
kernel que las soluciones, una celda del estudiante podría cambiar cómo se
ejecutan (transformadores de IPython, ``assert`` o funciones de biblioteca
parcheadas, objetos cuya comparación siempre da verdadero). Por eso, al
calificar (:mod:`tutor_lib.calificacion.motor.calificador`):

* las celdas del estudiante y las celdas bloqueadas corren en su **kernel
  aislado** (:mod:`tutor_lib.calificacion.kernel.aislamiento`);
* las celdas de prueba corren en el **proceso del juez**
  (:mod:`tutor_lib.calificacion.juez.proceso`), que el código del estudiante no puede ver
  ni tocar; las celdas bloqueadas que empiezan con :data:`MARCA_COMPARTIDA`
  (importaciones y ayudas de la consigna) corren en los dos;
* entre los dos procesos solo pasan datos planos
  (:mod:`tutor_lib.calificacion.juez.datos`), pedidos con :data:`alumno`
  (:mod:`tutor_lib.calificacion.juez.puente`);
* las pruebas comparan con :func:`comparar_valores`
  (:mod:`tutor_lib.calificacion.juez.comparar`), que revisa tipo y forma antes que los
  valores (``torch.allclose`` difunde: un tensor vacío «coincidiría»);
* nbgrader sigue debajo: :class:`tutor_lib.calificacion.juez.ejecutor.EjecutarConJuez`
  reemplaza a su preprocesador ``Execute`` en ``nbgrader autograde``.

En tu propio notebook las pruebas visibles corren en tu kernel con la misma
interfaz, así que ves los mismos mensajes que verá el juez; si tu código lanza
una excepción, ahí ves también su texto. Al calificar, el juez solo dice qué
tipo de excepción lanzó (ver :func:`tutor_lib.calificacion.juez.puente.interpretar`), y lo
que tu kernel publique mientras el juez pregunta no se guarda ni se publica
(:mod:`tutor_lib.calificacion.juez.ejecutor`).

Los notebooks de ejercicios lo importan con su nombre corto, :mod:`tutor_lib.juez`
(``from tutor_lib.juez import alumno, comparar_valores`` en la celda compartida): es
este mismo paquete, con los mismos objetos.
"""

from tutor_lib.calificacion.juez.comparar import comparar_valores, revisar_forma, valores_coinciden
from tutor_lib.calificacion.juez.puente import Alumno, ErrorDelAlumno, alumno

MARCA_COMPARTIDA = "# Celda compartida"

__all__ = ["Alumno", "ErrorDelAlumno", "MARCA_COMPARTIDA", "alumno", "comparar_valores", "revisar_forma",
           "valores_coinciden"]
