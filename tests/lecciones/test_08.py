"""Lección 08 (evaluación y métricas): las cuentas que enseña son ciertas.

Las pruebas rápidas extraen del notebook sus funciones (``def``) y las comparan con
scikit-learn, sin ejecutar el notebook: las cuatro cuentas, precisión/recall/F1, el
barrido de umbrales, ``calcular_metricas`` sobre un ``EvalPrediction``, la guarda de
«la prueba se usa una vez» y la rama de ``entrenar_transformer`` que no congela nada
(aquí con 32 reseñas). La prueba marcada ``cuaderno``
ejecuta el notebook una vez (compartido con tests/test_lecciones.py), que ajusta
multilingual-e5-small, y comprueba sus cifras: la línea base TF-IDF recalculada aquí, y
las del transformer contra sus propias cuentas (desacuerdos, VN/FP/FN/VP).
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
    assert "PRECISION = ENTORNO.precision if ENTORNO.gpu else entorno.precision_cpu()" in codigo
    assert 'PRECISION == "fp16"' in codigo and 'PRECISION == "bf16"' in codigo
    assert "recursos.congelar_embeddings(modelo)" in codigo
    assert "processing_class=tokenizer" in codigo and 'report_to="none"' in codigo
    markdown = "\n".join(_celdas("markdown"))
    assert "## Lo que aprendiste" in markdown and "## Autoevaluación" in markdown
    # honestidad: la lección dice qué modelo produce las probabilidades y contra qué se compara
    assert "multilingual-e5-small en modo rápido" in markdown and "línea base clásica" in markdown


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
    """entrenar_transformer con una receta que no congela nada (como la del modo completo) y 32 reseñas.

    El notebook ya la ejecuta con e5 y la receta rápida; esta prueba cubre la rama de la receta del modo
    completo (``congelar_embeddings=False``), la que corre con BETO en Colab."""
    import tempfile

    from tutor_lib import entorno, recursos

    entorno_actual = entorno.preparar(mostrar=False)
    f = _funciones_del_cuaderno(ENTORNO=entorno_actual, PRECISION="fp32", recursos=recursos, tempfile=tempfile)
    datos = recursos.cargar_dataset("resenas", modo="rapido")
    receta = recursos.Receta(muestras_entrenamiento=32, muestras_evaluacion=8, epocas=1, learning_rate=1e-4,
                             lote=16, max_length=32)
    predecir_logits = f["entrenar_transformer"](datos, receta, muestras=32)
    logits = predecir_logits(datos["validation"]["text"][:5])
    assert logits.shape == (5, 2) and np.all(np.isfinite(logits))


# ---------------------------------------------------------------- el notebook, una vez


def _tfidf_independiente() -> float:
    """Recalcula con scikit-learn, sin el notebook, la exactitud de la línea base TF-IDF en validación."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    from tutor_lib import recursos

    datos = recursos.cargar_dataset("resenas", modo="rapido")
    entrenamiento = datos["train"].shuffle(seed=42)
    modelo = make_pipeline(TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True),
                           LogisticRegression(C=10, max_iter=1000))
    modelo.fit(list(entrenamiento["text"]), list(entrenamiento["label"]))
    y_val = np.array(datos["validation"]["label"])
    return float(((modelo.predict_proba(list(datos["validation"]["text"]))[:, 1] >= 0.5) == y_val).mean())


def _numero(patron: str, texto: str) -> list[str]:
    encontrado = re.search(patron, texto, re.MULTILINE)
    assert encontrado, f"no encontré {patron!r} en las salidas del notebook"
    return list(encontrado.groups())


@pytest.mark.cuaderno
def test_cuaderno_muestra_las_cifras_calculadas():
    from cuadernos import ejecutar_cuaderno, textos_de_salida

    nb, segundos = ejecutar_cuaderno(CUADERNO)
    texto = textos_de_salida(nb)
    assert "Modo: rápido" in texto
    # red de seguridad contra cuelgues, no una meta: los tiempos se miden en benchmarks (b_lecciones)
    # El tiempo no se afirma aquí (depende de la máquina): su meta vive en benchmarks/b_lecciones.py.
    assert "salen de: multilingual-e5-small ajustado con el Trainer" in texto

    # el transformer contra la línea base: la línea base se recalcula aquí; la diferencia sale de los desacuerdos
    (exactitud,) = _numero(r"^Exactitud en validación \(umbral 0\.5\): ([\d.]+) %$", texto)
    (exactitud_tfidf,) = _numero(r"^Línea base TF-IDF en validación \(umbral 0\.5\): ([\d.]+) %$", texto)
    assert exactitud_tfidf == f"{100 * _tfidf_independiente():.1f}"
    solo_t, solo_b = map(int, _numero(r"solo acierta el transformer: (\d+); solo la línea base: (\d+);", texto))
    n = 198
    assert round(float(exactitud) * n / 100) - round(float(exactitud_tfidf) * n / 100) == solo_t - solo_b
    assert float(exactitud) >= 80.0, "e5 ajustado debería pasar del 80 % en validación"
    assert float(exactitud) > float(exactitud_tfidf), "la prosa dice que el transformer le gana a la línea base"
    assert texto.count("\n  [0] ") + texto.count("\n  [1] ") == min(3, solo_t)

    # la exactitud miente: el mayoritario en el conjunto 90/10
    assert "Conjunto desbalanceado: 100 reseñas, 90 negativas y 10 positivas" in texto
    assert re.search(r"mayoritario \(siempre 0\)\s+exactitud\s+90\.0 %\s+positivas encontradas\s+0 de 10", texto)
    assert "mayoritario: VN=90 FP=0 FN=10 VP=0" in texto
    # la prosa: en el 90/10, la precisión del modelo real queda muy por debajo de su recall
    precision_9010, recall_9010 = map(float, _numero(
        r"^modelo real: VN=\d+ FP=\d+ FN=\d+ VP=\d+\n  precisión = \S+ = ([\d.]+)\s+recall = \S+ = ([\d.]+)", texto))
    assert precision_9010 < recall_9010 - 0.2
    # cargador de métricas = cuenta a mano (4 métricas × 2 conjuntos) y compute_metrics también
    assert texto.count("¿iguales? True") == 8 and "¿iguales? False" not in texto
    assert "¿Igual que a mano con umbral 0.5? True" in texto

    # el umbral elegido en validación y la tabla final: misma F1 de validación; la de prueba, de sus cuatro cuentas
    f1_val, umbral, f1_05 = _numero(r"^Mejor F1 en validación: ([\d.]+) con umbral ([\d.]+) \(con 0\.5: ([\d.]+)\)$",
                                    texto)
    assert float(f1_val) >= float(f1_05)
    assert f"umbral {umbral} (elegido en validación)" in texto
    vn, fp, fn, vp = map(int, _numero(r"^VN=(\d+) FP=(\d+) FN=(\d+) VP=(\d+)$", texto))
    assert vn + fp + fn + vp == n and vp + fn == 99
    f1_prueba = 2 * vp / (2 * vp + fp + fn)
    assert re.search(rf"^f1\s+{f1_val}\s+{f1_prueba:.3f}$", texto, re.MULTILINE)
    # la diferencia prueba − validación contra el ruido de muestreo, recalculada con las cifras impresas
    exactitud_val, exactitud_prueba = map(float, _numero(r"^accuracy\s+([\d.]+)\s+([\d.]+)$", texto))
    assert abs(exactitud_prueba - (vn + vp) / n) < 5e-4
    diferencia, ruido, veredicto = _numero(
        r"^Exactitud, prueba − validación: ([+-][\d.]+) puntos; .* es de ±([\d.]+) puntos: la diferencia queda "
        r"(dentro|fuera) del ruido$", texto)
    p_val, p_prueba = exactitud_val, (vn + vp) / n
    error = np.sqrt(p_val * (1 - p_val) / n + p_prueba * (1 - p_prueba) / n)
    assert abs(float(diferencia) - 100 * (p_prueba - p_val)) < 0.15 and abs(float(ruido) - 200 * error) < 0.15
    assert veredicto == ("dentro" if abs(float(diferencia)) <= float(ruido) else "fuera")
    # el umbral: la celda cuenta las probabilidades intermedias (la prosa dice que son pocas)
    intermedias, total = map(int, _numero(r"P\(positiva\) entre 0\.1 y 0\.9: (\d+) de (\d+)$", texto))
    assert total == n and intermedias < n / 3

    # MRPC: exactitud y F1; «siempre sí» en un conjunto equilibrado da F1 = 2/3
    assert re.search(r"«siempre es paráfrasis»\s+\{'accuracy': 0\.5, 'f1': 0\.666", texto)
    assert re.search(r"línea base de parecido\s+\{'accuracy': ", texto)

    imagenes = sum("image/png" in s.get("data", {}) for c in nb.cells for s in c.get("outputs", []))
    assert imagenes == 2, "esperaba dos figuras: matrices de confusión y umbrales"


def test_con_group_by_length_predict_devuelve_otro_orden():
    """Lo que dice la sección 1: con ``group_by_length``, ``trainer.predict`` reordena las filas.

    Un modelo que devuelve el largo de cada entrada como logit deja ver el orden de salida:
    ``label_ids`` viaja con las predicciones (sirven juntas), pero no coinciden con el orden del dataset.
    """
    import tempfile

    import torch
    from datasets import Dataset
    from transformers import Trainer, TrainingArguments

    class Largo(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.peso = torch.nn.Parameter(torch.zeros(1))

        def forward(self, input_ids, attention_mask, labels=None):
            largo = attention_mask.sum(-1, keepdim=True).float()
            return {"loss": 0 * self.peso.sum(), "logits": torch.cat([largo, -largo], dim=-1) + 0 * self.peso}

    def colador(filas):
        ancho = max(len(f["input_ids"]) for f in filas)
        return {
            "input_ids": torch.tensor([f["input_ids"] + [0] * (ancho - len(f["input_ids"])) for f in filas]),
            "attention_mask": torch.tensor([[1] * len(f["input_ids"]) + [0] * (ancho - len(f["input_ids"]))
                                            for f in filas]),
            "labels": torch.tensor([f["label"] for f in filas]),
        }

    largos = [(7 * i) % 23 + 1 for i in range(40)]
    datos = Dataset.from_dict({"input_ids": [[5] * n for n in largos], "label": list(range(40))})

    def predecir(estrategia):
        args = TrainingArguments(output_dir=tempfile.mkdtemp(), per_device_eval_batch_size=8, use_cpu=True,
                                 report_to="none", train_sampling_strategy=estrategia)
        salida = Trainer(model=Largo(), args=args, data_collator=colador).predict(datos)
        return salida.predictions[:, 0].astype(int).tolist(), salida.label_ids.tolist()

    en_orden, etiquetas = predecir("random")
    assert en_orden == largos and etiquetas == list(range(40))
    agrupado, etiquetas = predecir("group_by_length")
    assert agrupado != largos, "con group_by_length, predict debería devolver otro orden"
    assert sorted(agrupado) == sorted(largos)
    assert agrupado == [largos[i] for i in etiquetas], "label_ids viaja con las predicciones"
