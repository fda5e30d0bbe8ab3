"""La calificación: nbgrader debajo, el código del estudiante en un kernel aislado y las pruebas en un juez aparte.

El código del estudiante es hostil. Cada carpeta de este paquete es un lado de la frontera:

* ``kernel/``: lo que corre el código del estudiante. :mod:`~tutor_lib.calificacion.kernel.aislamiento`
  convierte un proceso en el kernel aislado (sin red, una vista del disco por lista de permitidos, otro
  usuario, límites de memoria, CPU y procesos con :mod:`~tutor_lib.calificacion.kernel.grupos_de_control`).
* ``juez/``: las pruebas. :mod:`~tutor_lib.calificacion.juez.proceso` es el proceso del juez;
  :mod:`~tutor_lib.calificacion.juez.puente` y :mod:`~tutor_lib.calificacion.juez.datos`, el canal (sus dos
  extremos); :mod:`~tutor_lib.calificacion.juez.ejecutor`, el ``Execute`` de nbgrader que arranca los dos
  procesos y pasa los mensajes entre ellos. Los notebooks lo importan como :mod:`tutor_lib.juez`.
* ``motor/``: quien califica. :mod:`~tutor_lib.calificacion.motor.calificador` prepara un curso de nbgrader
  desechable y corre ``nbgrader autograde`` y ``generate_feedback`` (``tutor corregir``,
  ``tutor calificar``); :mod:`~tutor_lib.calificacion.motor.clase` y
  :mod:`~tutor_lib.calificacion.motor.reparto` califican una clase entera con Dask, sin perder ni repetir
  nada; :mod:`~tutor_lib.calificacion.motor.precarga` hace que los tres procesos de cada entrega nazcan
  con torch ya importado.
* aquí mismo, lo que entra y lo que sale: :mod:`~tutor_lib.calificacion.entregas` (la carpeta de
  entregas, sin seguir nada plantado) y :mod:`~tutor_lib.calificacion.zip_entregas` (el zip de un LMS),
  :mod:`~tutor_lib.calificacion.reconstruccion` (cada entrega sobre el
  notebook liberado), :mod:`~tutor_lib.calificacion.resultados` (la calificación y un mensaje en español
  por prueba), :mod:`~tutor_lib.calificacion.retroalimentacion` (el HTML sin pruebas ocultas ni scripts),
  :mod:`~tutor_lib.calificacion.libreta` (el *gradebook*, SQLite o PostgreSQL),
  :mod:`~tutor_lib.calificacion.archivos` (borrar lo que dejó una entrega sin seguir enlaces) y el LMS:
  :mod:`~tutor_lib.calificacion.lms` (de quién es cada archivo de un zip de Moodle o de Canvas) y
  :mod:`~tutor_lib.calificacion.exportar` (``tutor exportar``: las notas de vuelta, con
  :mod:`~tutor_lib.calificacion.hojas_lms` para las hojas de Canvas y Moodle y
  :mod:`~tutor_lib.calificacion.salidas_lms` para el XML de Moodle y los Score de LTI 1.3).

Los procesos de una entrega y el único canal entre el estudiante y el juez::

    quien califica (motor.calificador.CursoTemporal; en una clase, un trabajador de Dask)
      |
      +-- nbgrader autograde  (subproceso con tiempo total; juez.ejecutor.EjecutarConJuez adentro)
            |
            |  protocolo de Jupyter (ZMQ)                dos tuberías privadas, un JSON por línea
            |                                            (nadie más las tiene)
            v                                            v
      +----------------------------------+         +----------------------------------+
      | kernel del estudiante            |         | proceso del juez                 |
      | kernel.aislamiento               |         | juez.proceso                     |
      | corre: celdas de solución y      |         | corre: celdas de prueba y        |
      | bloqueadas, celdas compartidas   |         | celdas compartidas               |
      | sin red, otro usuario, solo ve   |         | no confía en nada que llegue:    |
      | lo permitido, límites propios    |         | compara datos, nunca objetos     |
      +----------------------------------+         +----------------------------------+

    Una prueba le pide algo al estudiante (``alumno.llamar("pasos_totales", 1000)``):

    1. juez -> ejecutor, por su tubería:  {"tipo": "alumno", "pedido": {"codigo", "valores"}}
       (``valores`` son datos planos de juez.datos);
    2. ejecutor -> kernel: una celda aparte que llama a ``juez.puente.publicar(pedido)``; el kernel corre
       el código en una copia del espacio de nombres del estudiante y codifica el resultado
       (juez.datos.codificar: números, textos, listas, dicts, tensores; nunca pickle);
    3. kernel -> ejecutor: **el canal**, una salida ``display_data`` de tipo
       ``application/x-tutor-juez+json`` con {"valor": dato} o {"error": {"ename", "evalue"}}. De la
       celda del pedido el ejecutor lee solo eso (de tamaño acotado) y el nombre de un error; lo demás
       que publique el kernel mientras el juez pregunta no se guarda ni se publica;
    4. ejecutor -> juez:  {"tipo": "respuesta", "respuesta": ...}; el juez la decodifica con tipos
       estrictos (juez.puente.interpretar, juez.datos.decodificar: objetos nuevos de tipos reales) y, si
       el código del estudiante falló, dice solo el tipo de la excepción, nunca su texto.

    Al terminar la celda, el juez le manda al ejecutor {"tipo": "fin", "salidas": [...]}: esas son las
    salidas de la prueba que guarda nbgrader. El juez nunca habla con el kernel: todo pasa por el
    ejecutor, y lo único que sale del kernel hacia el juez es la respuesta del paso 3.

Este ``__init__`` no importa nada a propósito: el kernel del estudiante importa ``tutor_lib.juez`` y no
debe cargar con el motor ni con nbgrader. Ver la guía del instructor (course/GUIA_INSTRUCTOR.md,
secciones 5 y 8) para qué protege cada pieza y qué prueba la ataca.
"""
