"""El lado del estudiante: lo que convierte un proceso en su kernel aislado (ver :mod:`tutor_lib.calificacion`).

:mod:`~tutor_lib.calificacion.kernel.aislamiento` es el programa que nbgrader lanza como kernel
(``python -m tutor_lib.calificacion.kernel.aislamiento python -m ipykernel_launcher ...``);
:mod:`~tutor_lib.calificacion.kernel.grupos_de_control`, los cgroups que acotan su memoria, sus procesos y
su CPU. Nada de aquí confía en el código que corre después.
"""
