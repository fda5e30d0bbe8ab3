# Configuración de Sphinx del sitio del curso. La copia sitio/construir.py a la carpeta de fuentes.
import os

project = "Fine-tuning de transformers"
author = "colaboradores del curso"
copyright = "2026, colaboradores del curso"
language = "es"
html_search_language = "es"

extensions = ["myst_nb"]
nb_execution_mode = "off"  # las lecciones llegan ejecutadas (sitio/cache.py); los enunciados no se ejecutan
nb_output_stderr = "show"
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3
exclude_patterns = ["_static"]
suppress_warnings = ["mystnb.unknown_mime_type", "misc.highlighting_failure", "myst.header"]

html_theme = "sphinx_book_theme"
html_title = "Fine-tuning de transformers"
html_static_path = ["_static"]
html_css_files = ["curso.css"]
html_show_sourcelink = False
html_show_sphinx = False
html_copy_source = False
# MathJax 2 servido por el propio sitio (paquete jupyter-server-mathjax): nada se baja de una CDN
mathjax_path = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full"
# sin el «Typesetting math: 100%» en inglés y con su menú en español. MyST-NB marca cada página con
# tex2jax_ignore y la fórmula con la clase «math» (así lo espera MathJax 3): MathJax 2 lo sabe por tex2jax.
mathjax2_config = {
    "messageStyle": "none",
    "menuSettings": {"locale": "es"},
    "tex2jax": {"processClass": "tex2jax_process|mathjax_process|math|output_area",
                "ignoreClass": "tex2jax_ignore|mathjax_ignore"},
    # el paquete trae solo las fuentes STIX-Web (no las TeX de MathJax ni sus imágenes)
    "HTML-CSS": {"availableFonts": ["STIX-Web"], "preferredFont": "STIX-Web", "webFont": "STIX-Web",
                 "imageFont": None},
}

html_theme_options = {
    "repository_url": os.environ.get("TUTOR_SITIO_REPO", "https://github.com/curso-finetuning-es/curso-finetuning"),
    "repository_branch": "main",
    "path_to_docs": "",
    "use_repository_button": True,
    "use_download_button": True,
    "use_fullscreen_button": False,
    "launch_buttons": {"colab_url": "https://colab.research.google.com"},
    "show_toc_level": 2,
}
