"""tutor_lib: herramientas del curso de fine-tuning de transformers en español.

Módulos (uno por idea; ver ../shared/DESIGN.md y README.md):
entorno, recursos (con los modelos del modo rápido en modelos/), warmup, configurador, vram, lora, curvas,
autoevaluacion; la calificación (nbgrader, el kernel aislado y el juez) está en calificacion/.
El comando de consola es ``tutor`` (``python -m tutor_lib``).
"""

__version__ = "0.1.0"
