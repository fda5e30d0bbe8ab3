"""El sitio web del curso: las lecciones ejecutadas en modo rápido, con búsqueda, para leer sin instalar nada.

``make sitio`` (``python -m sitio``) lo construye en ``salidas/sitio/html`` con Sphinx, MyST-NB y
sphinx-book-theme (el motor de Jupyter Book 1). Las piezas:

* :mod:`sitio.cache`: las lecciones ya ejecutadas, guardadas por contenido y versiones (las deja la
  corrida de pruebas; el sitio solo ejecuta lo que cambió);
* :mod:`sitio.widgets`: una versión estática de cada widget, hecha con el estado que guardó la ejecución;
* :mod:`sitio.construir`: arma la carpeta de fuentes (lecciones, enunciados de ejercicios, una página por
  orden de ``tutor``, resultados del modo completo) y llama a Sphinx.
"""
