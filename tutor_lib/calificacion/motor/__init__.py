"""Quien califica: nbgrader debajo, una entrega o una clase entera (ver :mod:`tutor_lib.calificacion`).

:mod:`~tutor_lib.calificacion.motor.calificador` (una asignación en un curso de nbgrader desechable),
:mod:`~tutor_lib.calificacion.motor.clase` (toda una clase: avance, reanudación, CSV),
:mod:`~tutor_lib.calificacion.motor.reparto` (los trabajadores de Dask) y
:mod:`~tutor_lib.calificacion.motor.precarga` (el servidor del que nacen nbgrader, el kernel y el juez).
Las dependencias van en un solo sentido: ``clase`` y ``reparto`` usan ``calificador``, nunca al revés.
"""
