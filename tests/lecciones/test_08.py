"""Lección 08 (evaluación y métricas): las cuentas que enseña son ciertas.

Las pruebas rápidas extraen del notebook sus funciones (``def``) y las comparan con
scikit-learn, sin ejecutar el notebook: las cuatro cuentas, precisión/recall/F1, el
barrido de umbrales, ``calcular_metricas`` sobre un ``EvalPrediction``, la guarda de
«la prueba se usa una vez» y el camino del modo completo (``entrenar_transformer``,
aquí con all-MiniLM-L6-v2 y unos pocos ejemplos). La prueba marcada ``cuaderno``
ejecuta el notebook una vez (compartido con tests/test_lecciones.py) y busca en sus
salidas las cifras clave, recalculadas aquí de forma independiente.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import numpy as np
import pytest

RAIZ = Path(__file__).resolve().parents[2]
CUADERNO = RAIZ / "lessons" / "08_evaluacion_y_metricas.ipynb"


def _celdas(tipo: str) -> list[str]:
    nb = nbformat.read(CUADERNO, as_version=4)
    return [c.source for c in nb.cells if c.cell_type == tipo]


def _funciones_del_cuaderno(**globales) -> dict:
    """Ejecuta solo los imports y las definiciones de funciones de las celdas de código."""
    espacio = {"__name__": "leccion_08", **globales}
    for fuente in _celdas("code"):
        if fuente.lstrip().startswith("# Preparación del entorno"):
            continue
        arbol = ast.parse(fuente)
        nodos = [n for n in arbol.body if isinstance(n, (ast.FunctionDef, ast.Import, ast.ImportFrom))]
        exec(compile(ast.Module(body=nodos, type_ignores=[]), "leccion_08", "exec"), espacio)
    return espacio


# ---------------------------------------------------------------- estructura


def test_cuaderno_usa_apis_actuales_y_dos_modos():
    codigo = "\n".join(_celdas("code"))
    for viejo in ("evaluation_strategy", "warmup_ratio", "torch_dtype", "bf16=True", "no_cuda",
                  "tokenizer=tokenizer", "evaluate.load("):
        assert viejo not in codigo, f"la lección usa la forma vieja {viejo!r}"
    assert 'if ENTORNO.modo == "rapido":' in codigo
    assert "entrenar_transformer(resenas, receta" in codigo and "entrenar_tfidf(resenas" in codigo
    assert "recursos.receta_clasificacion(ENTORNO.modo)" in codigo
    assert 'ENTORNO.precision == "fp16"' in codigo and 'ENTORNO.precision == "bf16"' in codigo
    assert "processing_class=tokenizer" in codigo and 'report_to="none"' in codigo
    markdown = "\n".join(_celdas("markdown"))
    assert "## Lo que aprendiste" in markdown and "## Autoevaluación" in markdown
    # honestidad: la lección dice qué produjo las probabilidades del modo rápido
    assert "no de un transformer" in markdown


# ---------------------------------------------------------------- funciones puras


def test_cuentas_y_metricas_coinciden_con_sklearn():
    from sklearn.metrics import accuracy_score, confusion_matrix, precision_recall_fscore_support

    f = _funciones_del_cuaderno()
    rng = np.random.default_rng(0)
    for _ in range(20):
        etiquetas = rng.integers(0, 2, size=57)
        predicciones = rng.integers(0, 2, size=57)
        vn, fp, fn, vp = f["cuatro_cuentas"](etiquetas, predicciones)
        assert [[vn, fp], [fn, vp]] == confusion_matrix(etiquetas, predicciones, labels=[0, 1]).tolist()
        m = f["metricas_a_mano"](vn, fp, fn, vp)
        p, r, f1, _ = precision_recall_fscore_support(etiquetas, predicciones, average="binary", zero_division=0)
        assert np.isclose(m["precision"], p) and np.isclose(m["recall"], r) and np.isclose(m["f1"], f1)
        assert np.isclose(m["accuracy"], accuracy_score(etiquetas, predicciones))


def test_mayoritario_90_10_y_respuesta_de_la_autoevaluacion():
    f = _funciones_del_cuaderno()
    etiquetas = np.array([0] * 90 + [1] * 10)
    m = f["metricas_a_mano"](*f["cuatro_cuentas"](etiquetas, np.zeros_like(etiquetas)))
    assert m == {"accuracy": 0.9, "precision": 0.0, "recall": 0.0, "f1": 0.0}
    # pregunta 2: 20 marcadas, 15 aciertos, 60 positivas en total
    m = f["metricas_a_mano"](vn=0, fp=5, fn=45, vp=15)
    assert (m["precision"], m["recall"], round(m["f1"], 3)) == (0.75, 0.25, 0.375)


def test_barrido_de_umbrales():
    f = _funciones_del_cuaderno()
    rng = np.random.default_rng(1)
    etiquetas = rng.integers(0, 2, size=200)
    probabilidades = np.clip(0.35 * etiquetas + rng.random(200) * 0.65, 0, 1)
    umbrales = np.round(np.linspace(0.05, 0.95, 91), 2)
    curvas = f["metricas_por_umbral"](probabilidades, etiquetas, umbrales)
    assert np.all(np.diff(curvas["recall"]) <= 1e-12), "el recall no puede subir al subir el umbral"
    assert np.all(np.diff(curvas["marcadas"]) <= 0)
    i = int(np.flatnonzero(umbrales == 0.5)[0])
    esperado = f["metricas_a_mano"](*f["cuatro_cuentas"](etiquetas, (probabilidades >= 0.5).astype(int)))
    assert np.isclose(curvas["f1"][i], esperado["f1"])


def test_softmax_de_log_probabilidades_devuelve_las_probabilidades():
    f = _funciones_del_cuaderno()
    p = np.array([[0.2, 0.8], [0.9, 0.1], [0.5, 0.5]])
    assert np.allclose(f["softmax"](np.log(p)), p)
    assert np.allclose(f["softmax"](np.array([[1000.0, 1001.0]])).sum(), 1.0)  # sin desbordes


def test_calcular_metricas_sobre_eval_prediction():
    from sklearn.metrics import accuracy_score, precision_recall_fscore_support
    from transformers import EvalPrediction

    from tutor_lib.recursos import MetricaLocal

    metricas = {n: MetricaLocal(n) for n in ("accuracy", "precision", "recall", "f1")}
    f = _funciones_del_cuaderno(metricas=metricas)
    rng = np.random.default_rng(2)
    logits = rng.normal(size=(40, 2)).astype(np.float32)
    etiquetas = rng.integers(0, 2, size=40)
    resultado = f["calcular_metricas"](EvalPrediction(predictions=logits, label_ids=etiquetas))
    pred = logits.argmax(-1)
    p, r, f1, _ = precision_recall_fscore_support(etiquetas, pred, average="binary", zero_division=0)
    assert set(resultado) == {"accuracy", "precision", "recall", "f1"}
    assert np.allclose([resultado["accuracy"], resultado["precision"], resultado["recall"], resultado["f1"]],
                       [accuracy_score(etiquetas, pred), p, r, f1])
    # también con la tupla (logits, otras_salidas) que devuelven algunos modelos
    otra = f["calcular_metricas"](EvalPrediction(predictions=(logits, logits), label_ids=etiquetas))
    assert otra == resultado


def test_la_prueba_se_usa_una_sola_vez():
    datos = {"test": {"label": [0, 1, 1, 0], "text": ["a", "b", "c", "d"]}}
    logits = np.log(np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.3, 0.7]]))
    f = _funciones_del_cuaderno(predecir_logits=lambda textos: logits, _pruebas_realizadas=[])
    cuentas, resultado = f["evaluar_en_prueba_una_vez"](datos, {"modelo": "x", "umbral": 0.5})
    assert cuentas == (1, 1, 1, 1) and resultado["accuracy"] == 0.5
    with pytest.raises(RuntimeError, match="ya se usó"):
        f["evaluar_en_prueba_una_vez"](datos, {"modelo": "x", "umbral": 0.3})


@pytest.mark.lento
def test_camino_del_modo_completo_corre_con_el_modelo_rapido():
    """entrenar_transformer es el código del modo completo: aquí corre con MiniLM y 32 reseñas."""
    import tempfile

    from tutor_lib import entorno, recursos

    entorno_actual = entorno.preparar(mostrar=False)
    f = _funciones_del_cuaderno(ENTORNO=entorno_actual, recursos=recursos, tempfile=tempfile)
    datos = recursos.cargar_dataset("resenas", modo="rapido")
    receta = recursos.Receta(muestras_entrenamiento=32, muestras_evaluacion=8, epocas=1, learning_rate=1e-4,
                             lote=16, max_length=32)
    predecir_logits = f["entrenar_transformer"](datos, receta, muestras=32)
    logits = predecir_logits(datos["validation"]["text"][:5])
    assert logits.shape == (5, 2) and np.all(np.isfinite(logits))


# ---------------------------------------------------------------- el notebook, una vez


def _esperado_independiente():
    """Recalcula con scikit-learn, sin el notebook, las cifras clave del modo rápido."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score
    from sklearn.pipeline import make_pipeline

    from tutor_lib import recursos

    datos = recursos.cargar_dataset("resenas", modo="rapido")
    entrenamiento = datos["train"].shuffle(seed=42)
    modelo = make_pipeline(TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True),
                           LogisticRegression(C=10, max_iter=1000))
    modelo.fit(list(entrenamiento["text"]), list(entrenamiento["label"]))
    y_val = np.array(datos["validation"]["label"])
    p_val = modelo.predict_proba(list(datos["validation"]["text"]))[:, 1]
    umbrales = np.round(np.linspace(0.05, 0.95, 91), 2)
    f1s = [f1_score(y_val, (p_val >= u).astype(int), zero_division=0) for u in umbrales]
    umbral = float(umbrales[int(np.argmax(f1s))])
    y_test = np.array(datos["test"]["label"])
    p_test = modelo.predict_proba(list(datos["test"]["text"]))[:, 1]
    return {
        "exactitud_val": float(((p_val >= 0.5) == y_val).mean()),
        "umbral": umbral,
        "f1_val": max(f1s),
        "f1_test": f1_score(y_test, (p_test >= umbral).astype(int)),
    }


@pytest.mark.cuaderno
def test_cuaderno_muestra_las_cifras_calculadas():
    from cuadernos import ejecutar_cuaderno, textos_de_salida

    nb, segundos = ejecutar_cuaderno(CUADERNO)
    texto = textos_de_salida(nb)
    assert "Modo: rapido" in texto
    assert segundos < 300, f"la lección 08 tardó {segundos:.0f} s (límite: 300 s)"
    assert "salen de: TF-IDF + regresión logística" in texto

    # la exactitud miente: el mayoritario en el conjunto 90/10
    assert "Conjunto desbalanceado: 100 reseñas, 90 negativas y 10 positivas" in texto
    assert re.search(r"mayoritario \(siempre 0\)\s+exactitud\s+90\.0%\s+positivas encontradas\s+0 de 10", texto)
    assert "mayoritario: VN=90 FP=0 FN=10 VP=0" in texto
    # cargador de métricas = cuenta a mano (4 métricas × 2 conjuntos) y compute_metrics también
    assert texto.count("¿iguales? True") == 8 and "¿iguales? False" not in texto
    assert "¿Igual que a mano con umbral 0.5? True" in texto

    esperado = _esperado_independiente()
    assert f"Exactitud en validación (umbral 0.5): {esperado['exactitud_val']:.1%}" in texto
    assert (f"Mejor F1 en validación: {esperado['f1_val']:.3f} con umbral {esperado['umbral']:.2f}") in texto
    assert re.search(rf"^f1\s+{esperado['f1_val']:.3f}\s+{esperado['f1_test']:.3f}$", texto, re.MULTILINE)

    # MRPC: exactitud y F1; «siempre sí» en un conjunto equilibrado da F1 = 2/3
    assert re.search(r"«siempre es paráfrasis»\s+\{'accuracy': 0\.5, 'f1': 0\.666", texto)
    assert re.search(r"línea base de parecido\s+\{'accuracy': ", texto)

    imagenes = sum("image/png" in s.get("data", {}) for c in nb.cells for s in c.get("outputs", []))
    assert imagenes == 2, "esperaba dos figuras: matrices de confusión y umbrales"
