"""Pruebas de tutor_lib.curvas y de ``tutor diagnosticar``.

La exactitud se mide en la partición ``"reserva"`` del corpus de curvas REALES
de ``tests/datos/curvas/`` (generado por ``scripts/generar_curvas.py``), que
no se usó para fijar los umbrales.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutor_lib import curvas
from tutor_lib.curvas import CATEGORIAS, Diagnostico, diagnosticar, graficar, leer_curvas

RAIZ = Path(__file__).resolve().parents[1]
CORPUS = RAIZ / "tests" / "datos" / "curvas"
EXACTITUD_MINIMA_RESERVA = 0.95


def _corpus() -> list[tuple[str, dict]]:
    return [(r.stem, json.loads(r.read_text(encoding="utf-8"))) for r in sorted(CORPUS.glob("*.json"))]


@pytest.fixture(scope="module")
def corpus():
    return _corpus()


def _entorno_hijo() -> dict:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(RAIZ), os.environ.get("PYTHONPATH", "")])}


def _tutor(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tutor_lib", "diagnosticar", *args],
        capture_output=True, text=True, cwd=RAIZ, env=_entorno_hijo(), timeout=120,
    )


# --------------------------------------------------------------------------- corpus

def test_corpus_bien_formado(corpus):
    assert len(corpus) >= 60
    tamano = sum((CORPUS / f"{n}.json").stat().st_size for n, _ in corpus)
    assert tamano < 2 * 1024 * 1024, f"el corpus ocupa {tamano / 1024:.0f} KiB"
    por_categoria = Counter(d["categoria"] for _, d in corpus)
    for categoria in CATEGORIAS:
        minimo = 4 if categoria == "indeterminado" else 8
        assert por_categoria[categoria] >= minimo, por_categoria
    for nombre, d in corpus:
        assert nombre.startswith(d["categoria"] + "_")
        assert d["particion"] in {"ajuste", "reserva"}
        assert isinstance(d["semilla"], int) and isinstance(d["ajustes"], dict)
        assert isinstance(d["log_history"], list) and d["log_history"]
    reserva = sum(d["particion"] == "reserva" for _, d in corpus)
    assert 0.25 <= reserva / len(corpus) <= 0.4


def test_exactitud_en_reserva(corpus):
    aciertos, totales = Counter(), Counter()
    fallos = []
    for nombre, d in corpus:
        if d["particion"] != "reserva":
            continue
        r = diagnosticar(d)
        totales[d["categoria"]] += 1
        if r.categoria == d["categoria"]:
            aciertos[d["categoria"]] += 1
        else:
            fallos.append(f"{nombre}: dijo {r.categoria}")
    lineas = [f"{c:14s} {aciertos[c]:2d}/{totales[c]:2d}" for c in CATEGORIAS]
    total = sum(totales.values())
    exactitud = sum(aciertos.values()) / total
    print("\nExactitud en la reserva por categoría:\n" + "\n".join(lineas) + f"\nTotal: {exactitud:.1%} de {total}")
    assert exactitud >= EXACTITUD_MINIMA_RESERVA, f"{exactitud:.1%}; fallos: {fallos}"
    for categoria in CATEGORIAS:
        assert aciertos[categoria] >= 1, f"ningún ejemplo real de {categoria} bien clasificado"


def test_cada_diagnostico_del_corpus_es_coherente(corpus):
    """En todo el corpus: categoría válida, explicación con números, remedios y mejor paso correcto."""
    for nombre, d in corpus:
        r = diagnosticar(d)
        assert r.categoria in CATEGORIAS, nombre
        assert r.explicacion and any(ch.isdigit() for ch in r.explicacion), nombre
        assert r.remedios and all(isinstance(x, str) and x for x in r.remedios)
        evals = [(e["step"], e["eval_loss"]) for e in d["log_history"] if "eval_loss" in e]
        finitas = [(p, v) for p, v in evals if math.isfinite(v)]
        if finitas:
            assert r.mejor_paso == min(finitas, key=lambda pv: pv[1])[0], nombre
        else:
            assert r.mejor_paso is None, nombre


def test_independiente_de_la_escala(corpus):
    """Multiplicar todas las pérdidas por 1000 o por 0.001 no cambia el veredicto."""
    for nombre, d in corpus[::3]:
        base = diagnosticar(d).categoria
        for factor in (1e3, 1e-3):
            log = [
                {k: (v * factor if k in ("loss", "eval_loss") and isinstance(v, float) else v) for k, v in e.items()}
                for e in d["log_history"]
            ]
            assert diagnosticar(log).categoria == base, (nombre, factor)


# --------------------------------------------------------------------------- casos sintéticos

def _sana(n=40):
    return [2.0 * math.exp(-i / 8) + 0.3 for i in range(n)]


def test_explicacion_cita_los_numeros_de_la_curva():
    entrenamiento = [1.0 - 0.02 * i for i in range(50)]
    pasos = [10 * (i + 1) for i in range(50)]
    validacion = [0.9, 0.6, 0.38, 0.41, 0.45]
    r = diagnosticar(entrenamiento=entrenamiento, pasos=pasos, validacion=validacion,
                     pasos_validacion=[100, 200, 300, 400, 500])
    assert r.categoria == "sobreajuste"
    assert r.mejor_paso == 300
    for numero in ("0.38", "300", "0.45"):
        assert numero in r.explicacion, r.explicacion
    assert r.evidencia["validacion_minima"] == pytest.approx(0.38)


def test_epoca_en_la_explicacion():
    log = []
    for i in range(1, 31):
        log.append({"loss": 1.0 / i + 0.01 * (i % 2), "step": 10 * i, "epoch": i / 10})
        if i % 10 == 0:
            log.append({"eval_loss": {10: 0.5, 20: 0.3, 30: 0.45}[i], "step": 10 * i, "epoch": i / 10})
    log.append({"eval_loss": 0.6, "step": 310, "epoch": 3.1})
    log.append({"loss": 0.02, "step": 310, "epoch": 3.1})
    r = diagnosticar(log)
    assert r.categoria == "sobreajuste"
    assert "paso 200 (época 2)" in r.explicacion


def test_nan_en_medio_se_ignora():
    entrenamiento = _sana()
    entrenamiento[20] = float("nan")
    entrenamiento[21] = float("inf")
    validacion = [1.5, 0.9, 0.6, 0.45, 0.4, 0.38]
    r = diagnosticar(entrenamiento=entrenamiento, validacion=validacion)
    assert r.categoria == "sano"
    assert r.evidencia["puntos_no_finitos"] == 2
    assert "NaN" in r.explicacion


def test_nan_al_final_es_divergencia():
    entrenamiento = _sana(20) + [float("nan")] * 5
    r = diagnosticar(entrenamiento=entrenamiento)
    assert r.categoria == "divergencia"
    assert r.evidencia["paso_no_finito"] == 21
    assert "21" in r.explicacion


def test_cero_disfrazado_del_trainer_es_divergencia():
    """Con logging_nan_inf_filter=True el Trainer escribe loss=0.0 cuando la pérdida es NaN."""
    log = [{"loss": 0.7 - 0.01 * i, "grad_norm": 1.0, "step": 10 * i} for i in range(1, 8)]
    log += [{"loss": 0.0, "grad_norm": float("nan"), "step": 10 * i} for i in range(8, 20)]
    r = diagnosticar(log)
    assert r.categoria == "divergencia"
    assert "0.0" in r.explicacion and r.evidencia["ceros_con_grad_norm_nan"] == 12


def test_validacion_nan_al_final_es_divergencia():
    r = diagnosticar(entrenamiento=_sana(), validacion=[1.0, 0.8, float("nan"), float("nan")])
    assert r.categoria == "divergencia"
    assert r.mejor_paso is not None


@pytest.mark.parametrize("vacio", [[], (), {"entrenamiento": []}])
def test_vacio_da_error_en_espanol(vacio):
    with pytest.raises(ValueError, match="vac[ií]a"):
        diagnosticar(vacio)


def test_sin_argumentos_da_error_en_espanol():
    with pytest.raises(ValueError, match="No hay datos"):
        diagnosticar()


def test_un_solo_punto_es_indeterminado():
    r = diagnosticar(entrenamiento=[0.7])
    assert r.categoria == "indeterminado"
    assert "1 punto" in r.explicacion


def test_solo_entrenamiento():
    assert diagnosticar(entrenamiento=_sana()).categoria == "indeterminado"  # no se puede descartar sobreajuste
    assert diagnosticar(entrenamiento=[0.69 + 0.001 * (i % 3) for i in range(40)]).categoria == "subajuste"
    subida = [1.0 - 0.03 * i for i in range(20)] + [0.43 + 0.1 * i for i in range(20)]
    assert diagnosticar(entrenamiento=subida).categoria == "divergencia"


def test_ruido_de_lotes_frente_a_modelo_inestable(corpus):
    """Ruido moderado en el entrenamiento: con validación suave es ruido de lotes; sin validación, inestable."""
    d = dict(corpus)["subajuste_23"]  # regresión real con lr bajísima: entrenamiento ruidoso, validación plana
    r = diagnosticar(d)
    assert r.categoria == "subajuste" and r.evidencia["ruido_de_lotes"]
    assert "ruido viene de los lotes" in r.explicacion
    solo_entrenamiento = [e for e in d["log_history"] if "eval_loss" not in e]
    assert diagnosticar(solo_entrenamiento).categoria == "inestable"
    a_saltos = [0.9, 0.5, 0.8, 0.45, 0.75, 0.4, 0.7, 0.42, 0.66, 0.4]
    r = diagnosticar(entrenamiento=_sana(), validacion=a_saltos)
    assert r.categoria == "inestable" and "validación va a saltos" in r.explicacion


def test_explosion_que_no_se_recupera_y_pico_que_si():
    base = [1.0 - 0.01 * i for i in range(10)]
    explota = base + [3.0, 8.0, 20.0, 12.0, 6.0] + [1.1 + 0.01 * (i % 2) for i in range(15)]
    r = diagnosticar(entrenamiento=explota)
    assert r.categoria == "divergencia" and "explotó" in r.explicacion
    recupera = base + [3.0, 8.0, 20.0, 12.0, 6.0] + [0.5 - 0.01 * i for i in range(15)]
    assert diagnosticar(entrenamiento=recupera, validacion=[0.9, 0.8, 0.7, 0.6]).categoria == "inestable"


def test_pocas_evaluaciones_no_permiten_decir_sano():
    r = diagnosticar(entrenamiento=_sana(), validacion=[0.5])
    assert r.categoria == "indeterminado"
    assert "1 evaluación" in r.explicacion


def test_pasos_desordenados_y_duplicados(corpus):
    d = dict(corpus)["sobreajuste_01"]
    ordenado = diagnosticar(d)
    desordenado = list(reversed(d["log_history"]))
    assert diagnosticar(desordenado).categoria == ordenado.categoria
    assert diagnosticar(desordenado).mejor_paso == ordenado.mejor_paso
    # un paso repetido (p. ej. al reanudar): cuenta el último registro
    c = leer_curvas([{"loss": 1.0, "step": 5}, {"loss": 0.5, "step": 5}, {"loss": 0.7, "step": 1}])
    assert c.pasos_entrenamiento == (1.0, 5.0) and c.entrenamiento == (0.7, 0.5)


def test_solo_resumen_final_es_indeterminado():
    log = [{"train_runtime": 0.5, "train_loss": 0.69, "epoch": 1.0, "step": 3}]
    r = diagnosticar(log)
    assert r.categoria == "indeterminado" and "train_loss" in r.explicacion


def test_perdidas_negativas_y_tipos_raros_dan_errores_en_espanol():
    with pytest.raises(ValueError, match="negativa"):
        diagnosticar(entrenamiento=[1.0, -0.5, 0.3])
    with pytest.raises(TypeError, match="debe ser"):
        diagnosticar(entrenamiento="0.5 0.4")
    with pytest.raises(ValueError, match="texto"):
        diagnosticar(entrenamiento=[1.0, "hola"])
    with pytest.raises(TypeError, match="No sé leer"):
        diagnosticar(42)
    with pytest.raises(ValueError, match="misma longitud"):
        diagnosticar(entrenamiento=[1.0, 0.5], pasos=[1])
    with pytest.raises(ValueError, match="'log_history'"):
        diagnosticar({"otra": 1})


def test_json_con_nan_e_infinity(tmp_path):
    ruta = tmp_path / "trainer_state.json"
    lineas = [f'{{"loss": {1.0 / i}, "step": {i}}}' for i in range(1, 10)] + ['{"loss": NaN, "step": 10}',
                                                                             '{"loss": Infinity, "step": 11}']
    ruta.write_text('{"log_history": [' + ", ".join(lineas) + "]}", encoding="utf-8")
    assert diagnosticar(ruta).categoria == "divergencia"
    roto = tmp_path / "roto.json"
    roto.write_text("{no es json", encoding="utf-8")
    with pytest.raises(ValueError, match="no es JSON"):
        diagnosticar(roto)
    with pytest.raises(FileNotFoundError, match="No existe"):
        diagnosticar(tmp_path / "no_esta.json")
    vacia = tmp_path / "vacia"
    vacia.mkdir()
    with pytest.raises(FileNotFoundError, match="checkpoint-N"):
        diagnosticar(vacia)


def test_carpeta_de_corrida_toma_el_ultimo_checkpoint(tmp_path, corpus):
    datos = dict(corpus)
    for n, nombre in ((5, "subajuste_01"), (40, "sobreajuste_01"), (9, "sano_01")):
        carpeta = tmp_path / f"checkpoint-{n}"
        carpeta.mkdir()
        (carpeta / "trainer_state.json").write_text(json.dumps(datos[nombre]), encoding="utf-8")
    (tmp_path / "checkpoint-99").mkdir()  # sin trainer_state.json: no cuenta
    assert diagnosticar(tmp_path).categoria == "sobreajuste"
    assert diagnosticar(tmp_path / "checkpoint-5").categoria == "subajuste"


def test_trainer_real_en_tmp_path(tmp_path):
    """Un Trainer de verdad escribe trainer_state.json en sus checkpoints: se lee desde las tres rutas."""
    import torch
    from torch import nn
    from transformers import PrinterCallback, Trainer, TrainingArguments

    torch.manual_seed(0)
    x = torch.randn(256, 8)
    y = (x[:, 0] + x[:, 1] > 0).long()

    class Conjunto(torch.utils.data.Dataset):
        def __init__(self, a, b):
            self.a, self.b = a, b

        def __len__(self):
            return len(self.a)

        def __getitem__(self, i):
            return {"x": self.a[i], "labels": self.b[i]}

    class Red(nn.Module):
        def __init__(self):
            super().__init__()
            self.lineal = nn.Linear(8, 2)

        def forward(self, x, labels=None):
            logits = self.lineal(x)
            return {"loss": nn.functional.cross_entropy(logits, labels), "logits": logits}

    argumentos = TrainingArguments(
        output_dir=str(tmp_path / "corrida"), max_steps=40, per_device_train_batch_size=16, learning_rate=0.05,
        logging_steps=4, eval_strategy="steps", eval_steps=8, save_strategy="steps", save_steps=20,
        report_to="none", use_cpu=True, disable_tqdm=True, seed=0,
    )
    trainer = Trainer(model=Red(), args=argumentos, train_dataset=Conjunto(x[:192], y[:192]),
                      eval_dataset=Conjunto(x[192:], y[192:]))
    trainer.remove_callback(PrinterCallback)
    trainer.train()
    corrida = tmp_path / "corrida"
    assert (corrida / "checkpoint-40" / "trainer_state.json").is_file()
    desde_memoria = diagnosticar(trainer.state.log_history)
    for ruta in (corrida, corrida / "checkpoint-40", corrida / "checkpoint-40" / "trainer_state.json"):
        r = diagnosticar(ruta)
        assert r.categoria in CATEGORIAS
        assert r.categoria == desde_memoria.categoria
        assert r.mejor_paso == desde_memoria.mejor_paso
    assert diagnosticar(corrida / "checkpoint-20").evidencia["n_puntos_entrenamiento"] == 5


# --------------------------------------------------------------------------- propiedades

flotantes = st.floats(allow_nan=True, allow_infinity=True)


def _valido_o_error_en_espanol(llamada):
    try:
        r = llamada()
    except ValueError as exc:
        texto = str(exc)
        assert any(p in texto for p in ("pérdida", "lista", "vacía", "paso", "número")), texto
        return
    assert isinstance(r, Diagnostico)
    assert r.categoria in CATEGORIAS
    assert isinstance(r.explicacion, str) and r.explicacion
    assert r.mejor_paso is None or isinstance(r.mejor_paso, (int, float))


@settings(max_examples=150, deadline=None)
@given(st.lists(flotantes, max_size=80))
def test_propiedad_cualquier_lista(valores):
    _valido_o_error_en_espanol(lambda: diagnosticar(entrenamiento=valores))


@settings(max_examples=100, deadline=None)
@given(st.lists(flotantes, min_size=1, max_size=60), st.lists(flotantes, max_size=15))
def test_propiedad_con_validacion(entrenamiento, validacion):
    _valido_o_error_en_espanol(lambda: diagnosticar(entrenamiento=entrenamiento, validacion=validacion))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(min_value=0, max_value=1e6), min_size=6, max_size=60))
def test_propiedad_positivas_nunca_fallan(valores):
    r = diagnosticar(entrenamiento=valores, validacion=valores[::3])
    assert r.categoria in CATEGORIAS


# --------------------------------------------------------------------------- gráfica

def test_grafica(tmp_path, corpus):
    datos = dict(corpus)
    for nombre in ("sobreajuste_01", "divergencia_01", "subajuste_01", "indeterminado_01"):
        fig = graficar(datos[nombre])
        ax = fig.axes[0]
        categoria = diagnosticar(datos[nombre]).categoria
        assert categoria in ax.get_title()
        assert ax.get_xlabel() == "Paso de entrenamiento"
        assert ax.get_ylabel().startswith("Pérdida")
        etiquetas = ax.get_legend_handles_labels()[1]
        assert "entrenamiento" in etiquetas
        fig.savefig(tmp_path / f"{nombre}.png")
    etiquetas = graficar(datos["sobreajuste_01"]).axes[0].get_legend_handles_labels()[1]
    assert "zona del problema" in etiquetas and any(e.startswith("mínimo de validación") for e in etiquetas)
    colores = {l.get_color() for l in graficar(datos["sobreajuste_01"]).axes[0].get_lines()}
    assert {curvas.COLORES["entrenamiento"], curvas.COLORES["validacion"]} <= colores
    sin = graficar(datos["sobreajuste_01"], con_veredicto=False).axes[0]
    assert "sobreajuste" not in sin.get_title()


# --------------------------------------------------------------------------- CLI

def test_cli_json(corpus, tmp_path):
    ruta = CORPUS / "sobreajuste_01.json"
    grafica = tmp_path / "curva.png"
    proc = _tutor(str(ruta), "--json", "--grafica", str(grafica))
    assert proc.returncode == 0, proc.stderr
    datos = json.loads(proc.stdout)
    assert set(datos) == {"categoria", "explicacion", "remedios", "mejor_paso"}
    assert datos["categoria"] == "sobreajuste"
    assert isinstance(datos["mejor_paso"], int)
    assert isinstance(datos["remedios"], list) and datos["remedios"]
    assert grafica.stat().st_size > 1000

    listas = tmp_path / "listas.json"
    listas.write_text(json.dumps({"entrenamiento": [0.7] * 3}), encoding="utf-8")
    proc = _tutor(str(listas), "--json")
    datos = json.loads(proc.stdout)
    assert datos["categoria"] == "indeterminado" and datos["mejor_paso"] is None


def test_cli_texto_y_errores(tmp_path):
    proc = _tutor(str(CORPUS / "divergencia_01.json"))
    assert proc.returncode == 0
    assert proc.stdout.startswith("Diagnóstico: divergencia")
    assert "Qué puedes hacer:" in proc.stdout

    proc = _tutor(str(tmp_path / "no_existe"), "--json")
    assert proc.returncode == 2
    assert "No existe la ruta" in proc.stderr and "Traceback" not in proc.stderr

    malo = tmp_path / "malo.json"
    malo.write_text(json.dumps({"entrenamiento": []}), encoding="utf-8")
    proc = _tutor(str(malo))
    assert proc.returncode == 2 and "vacía" in proc.stderr and "Traceback" not in proc.stderr

    proc = _tutor(str(CORPUS / "sano_01.json"), "--grafica", str(tmp_path / "x.bmp"))
    assert proc.returncode == 2 and "extensiones" in proc.stderr
