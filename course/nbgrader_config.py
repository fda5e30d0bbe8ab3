"""Configuración de nbgrader para el curso.

nbgrader trabaja sobre una «carpeta del curso» con una subcarpeta por paso. Aquí
la raíz es el repositorio: la fuente (con soluciones y pruebas ocultas) vive en
``solutions/`` y las versiones para estudiantes se generan en ``exercises/``.
Las entregas, la libreta de calificaciones y la retroalimentación quedan en
``course/`` (ignoradas por git). Ver course/GUIA_INSTRUCTOR.md.

Uso (desde la raíz del repositorio):
    nbgrader generate_assignment ej01_bucle_pytorch --config course/nbgrader_config.py
"""

from pathlib import Path

c = get_config()  # noqa: F821  (lo define nbgrader al cargar este archivo)

RAIZ = Path(__file__).resolve().parent.parent

c.CourseDirectory.course_id = "curso-finetuning"
c.CourseDirectory.root = str(RAIZ)
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "exercises"
c.CourseDirectory.submitted_directory = "course/submitted"
c.CourseDirectory.autograded_directory = "course/autograded"
c.CourseDirectory.feedback_directory = "course/feedback"
c.CourseDirectory.db_url = f"sqlite:///{RAIZ / 'course' / 'gradebook.db'}"
# Solo los notebooks: ningún archivo auxiliar de solutions/ pasa a exercises/.
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "*.py", "*.md"]
c.CourseDirectory.include = ["*.ipynb"]

# Lo que ve el estudiante en lugar de la solución.
c.ClearSolutions.code_stub = {
    "python": "# TU CÓDIGO AQUÍ\nraise NotImplementedError()",
}
c.ClearSolutions.text_stub = "TU RESPUESTA AQUÍ"
c.ClearSolutions.begin_solution_delimeter = "BEGIN SOLUTION"
c.ClearSolutions.end_solution_delimeter = "END SOLUTION"
c.ClearHiddenTests.begin_test_delimeter = "BEGIN HIDDEN TESTS"
c.ClearHiddenTests.end_test_delimeter = "END HIDDEN TESTS"

# Ejecución al calificar: tiempo por celda, kernel y salida acotada.
c.Execute.timeout = 120
c.Execute.kernel_name = "python3"
c.Execute.interrupt_on_timeout = True
# Tras la respuesta de una celda, cuánto esperar su salida. nbgrader trae 4 s y, si se
# pasa, falla el notebook entero: en una máquina cargada eso pasa al importar torch.
c.Execute.iopub_timeout = 60
c.LimitOutput.max_lines = 200
c.LimitOutput.max_traceback = 50

# Nunca se calificará con una versión de las pruebas distinta a la de la fuente.
c.Execute.execute_retries = 0

# Las celdas de prueba corren en el proceso del juez, no en el kernel del estudiante
# (tutor_lib/calificacion/juez): es el Execute de nbgrader con las pruebas aparte; lo demás de
# autograde queda como lo trae nbgrader.
c.Autograde.autograde_preprocessors = [
    "tutor_lib.calificacion.juez.ejecutor.EjecutarConJuez",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]
