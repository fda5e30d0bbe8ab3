"""Pruebas de tutor_lib.warmup: los schedules coinciden paso a paso con un Trainer real."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tutor_lib import warmup

ESPANOL = re.compile(r"recibí|[Ee]lige|válidas|debe|no se puede|hace falta")


def _tutor(*argumentos: str, timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tutor_lib", *argumentos], capture_output=True, text=True, timeout=timeout
    )


# --------------------------------------------------------------------------
# Igualdad con un Trainer real
# --------------------------------------------------------------------------

# Cada tipo alterna un warmup fraccionario y uno entero; algunos con opciones propias.
CASOS_TRAINER = [
    ("linear", 0.1, {}),
    ("cosine", 3, {}),
    ("constant_with_warmup", 0.1, {}),
    ("cosine_with_min_lr", 3, {"min_lr_rate": 0.2}),
    ("warmup_stable_decay", 0.1, {"num_decay_steps": 8}),
    ("cosine_with_restarts", 0.1, {"num_cycles": 2}),
    ("polynomial", 3, {"power": 2.0}),
    ("constant", 3, {}),
    ("inverse_sqrt", 0.1, {}),
    ("cosine_warmup_with_min_lr", 3, {}),
]


def test_los_casos_cubren_todos_los_tipos():
    assert {tipo for tipo, _, _ in CASOS_TRAINER} == set(warmup.TIPOS)


@pytest.mark.parametrize("tipo,valor_warmup,opciones", CASOS_TRAINER, ids=[c[0] for c in CASOS_TRAINER])
def test_igual_que_el_trainer_paso_a_paso(tipo, valor_warmup, opciones):
    # 50 ejemplos, lote 4 -> 13 lotes por época (el último incompleto), 3 épocas -> 39 pasos
    registro = warmup.tasas_usadas_por_trainer(2e-5, 50, 4, 3, 1, valor_warmup, tipo, **opciones)
    assert registro.pasos_totales == warmup.pasos_totales(50, 4, 3) == 39
    assert registro.pasos_warmup == warmup.pasos_de_warmup(valor_warmup, 39)
    esperadas = warmup.tasas_de_aprendizaje(2e-5, 39, valor_warmup, tipo, **opciones)
    # la tasa justo antes de optimizer.step() es la que se usa en ese paso
    assert registro.tasas == esperadas
    # on_step_begin ve la misma tasa (el scheduler avanza después del paso anterior)
    assert registro.tasas_inicio_paso == esperadas
    # y el log del propio Trainer (logging_steps=1) también
    assert registro.tasas_registro == esperadas


COMBINACIONES = [
    # ejemplos, lote, épocas, acumulación, max_pasos, descartar_ultimo
    (37, 4, 2.5, 3, -1, False),  # épocas fraccionarias, acumulación con resto
    (17, 5, 2, 2, -1, False),  # último lote incompleto
    (20, 4, 1, 5, -1, False),  # acumulación = lotes de la época
    (9, 4, 1, 4, -1, False),  # acumulación mayor que los lotes
    (30, 4, 3, 1, 7, False),  # max_steps manda sobre las épocas
    (11, 4, 2, 1, -1, True),  # dataloader_drop_last
    (64, 8, 0.3, 1, -1, False),  # fracción de época
]


@pytest.mark.parametrize("ejemplos,lote,epocas,acumulacion,max_pasos,descartar", COMBINACIONES)
def test_pasos_totales_igual_que_max_steps_del_trainer(ejemplos, lote, epocas, acumulacion, max_pasos, descartar):
    registro = warmup.tasas_usadas_por_trainer(
        1e-3, ejemplos, lote, epocas, acumulacion, 0.25, "linear", max_pasos, descartar_ultimo=descartar
    )
    calculados = warmup.pasos_totales(
        ejemplos, lote, epocas, acumulacion, max_pasos=max_pasos, descartar_ultimo=descartar
    )
    assert calculados == registro.pasos_totales
    assert len(registro.tasas) == calculados  # pasos de optimización que de verdad se dieron
    assert registro.tasas == warmup.tasas_de_aprendizaje(1e-3, calculados, 0.25, "linear")


# --------------------------------------------------------------------------
# Números del curso (errata de la fuente)
# --------------------------------------------------------------------------


def test_tabla_corregida_de_la_fuente():
    filas = warmup.tabla_warmup(2e-5, 500, 100, pasos=(0, 20, 50, 100))
    assert [f.paso for f in filas] == [0, 20, 50, 100]
    lrs = [f.lr for f in filas]
    assert lrs[0] == 0.0  # el primer paso se da con lr = 0
    assert lrs[1] == pytest.approx(4e-6, rel=1e-12)
    assert lrs[2] == pytest.approx(1e-5, rel=1e-12)
    assert lrs[3] == pytest.approx(2e-5, rel=1e-12)
    for paso, lr in filas:  # las filas se desempaquetan como tuplas
        assert isinstance(paso, int) and isinstance(lr, float)
    texto = warmup.tabla_como_texto(filas)
    assert "Paso" in texto and "4.000e-6" in texto and "1.000e-5" in texto


def test_tabla_con_pasos_por_defecto_y_fuera_de_rango():
    filas = warmup.tabla_warmup(2e-5, 500, 100)
    assert [f.paso for f in filas] == [0, 20, 50, 100, 300, 499]
    with pytest.raises(ValueError, match="paso"):
        warmup.tabla_warmup(2e-5, 500, 100, pasos=(500,))


def test_pasos_de_la_fuente():
    assert warmup.pasos_por_epoca(1000, 16) == 63
    assert warmup.pasos_totales(1000, 16, 3) == 189
    assert warmup.pasos_totales(1000, 16, 3, acumulacion=4) == 48  # ceil(63/4) = 16 por época
    assert warmup.pasos_totales(1000, 16, 3, dispositivos=2) == 96  # ceil(63/2) = 32 por época
    assert warmup.pasos_totales(1000, 16, 3, max_pasos=50) == 50


def test_pasos_de_warmup_como_transformers_5():
    assert warmup.pasos_de_warmup(0.1, 189) == 19  # ceil(18.9)
    assert warmup.pasos_de_warmup(0.0, 189) == 0
    assert warmup.pasos_de_warmup(100, 189) == 100
    assert warmup.pasos_de_warmup(1.0, 189) == 1  # 1.0 no es el 100 %: son pasos
    assert warmup.pasos_de_warmup(2.7, 189) == 2  # el Trainer trunca


def test_pasos_de_warmup_igual_que_training_arguments(tmp_path):
    from transformers import TrainingArguments

    for valor in (0, 0.0, 0.05, 0.1, 0.33, 0.999, 1, 1.0, 7, 2.7, 250):
        args = TrainingArguments(output_dir=str(tmp_path), warmup_steps=valor, report_to="none", use_cpu=True)
        for total in (1, 7, 189, 1000):
            assert warmup.pasos_de_warmup(valor, total) == args.get_warmup_steps(total), (valor, total)


def test_tipos_coinciden_con_transformers():
    from transformers.trainer_utils import SchedulerType

    assert set(warmup.TIPOS) | set(warmup.TIPOS_SEGUN_METRICA) == {s.value for s in SchedulerType}
    assert not set(warmup.TIPOS) & set(warmup.TIPOS_SEGUN_METRICA)


@pytest.mark.parametrize("tipo", warmup.TIPOS_SEGUN_METRICA)
def test_schedules_segun_metrica_se_rechazan_en_espanol(tipo):
    with pytest.raises(ValueError, match="métrica"):
        warmup.tasas_de_aprendizaje(1e-3, 10, 0, tipo)


def test_constant_ignora_el_warmup_como_el_trainer():
    assert warmup.tasas_de_aprendizaje(1e-3, 20, 5, "constant") == [1e-3] * 20


def test_opciones_y_valores_por_defecto():
    # cosine_with_min_lr sin opciones usa min_lr_rate = 0.1
    tasas = warmup.tasas_de_aprendizaje(1e-3, 100, 10, "cosine_with_min_lr")
    assert min(tasas[10:]) >= 0.1 * 1e-3 * (1 - 1e-12)
    tasas = warmup.tasas_de_aprendizaje(1e-3, 100, 10, "cosine_with_min_lr", min_lr=2e-4)
    assert 2e-4 <= min(tasas[10:]) < 2.01e-4  # el último paso (99) queda justo antes del mínimo
    # warmup_stable_decay sin num_decay_steps: decae el último 10 %
    tasas = warmup.tasas_de_aprendizaje(1e-3, 100, 10, "warmup_stable_decay")
    assert tasas[10:90] == [1e-3] * 80
    assert tasas[95] < 1e-3
    assert "num_decay_steps" in warmup.opciones_validas("warmup_stable_decay")
    assert warmup.opciones_validas("linear") == ()


@pytest.mark.parametrize(
    "argumentos,opciones,error",
    [
        ((-1, 100), {}, ValueError),
        ((0, 100), {}, ValueError),
        ((float("nan"), 100), {}, ValueError),
        ((float("inf"), 100), {}, ValueError),
        (("2e-5", 100), {}, TypeError),
        ((True, 100), {}, TypeError),
        ((1e-3, 0), {}, ValueError),
        ((1e-3, 10.0), {}, TypeError),
        ((1e-3, True), {}, TypeError),
        ((1e-3, warmup.MAX_PASOS + 1), {}, ValueError),
        ((1e-3, 100, -1), {}, ValueError),
        ((1e-3, 100, float("nan")), {}, ValueError),
        ((1e-3, 100, "10"), {}, TypeError),
        ((1e-3, 100, 10, "inventado"), {}, ValueError),
        ((1e-3, 100, 10, 3), {}, TypeError),
        ((1e-3, 100, 10, "linear"), {"num_cycles": 2}, TypeError),
        ((1e-3, 100, 10, "cosine_with_min_lr"), {"min_lr_rate": 1.5}, ValueError),
        ((1e-3, 100, 10, "cosine_with_min_lr"), {"min_lr": 1e-4, "min_lr_rate": 0.1}, ValueError),
        ((1e-3, 100, 10, "polynomial"), {"lr_end": 2e-3}, ValueError),
        ((1e-8, 100, 10, "polynomial"), {}, ValueError),
        ((1e-3, 100, 10, "warmup_stable_decay"), {"decay_type": "exponencial"}, ValueError),
        ((1e-3, 100, 10, "warmup_stable_decay"), {"num_decay_steps": -3}, ValueError),
    ],
)
def test_errores_en_espanol(argumentos, opciones, error):
    with pytest.raises(error) as info:
        warmup.tasas_de_aprendizaje(*argumentos, **opciones)
    assert ESPANOL.search(str(info.value)), str(info.value)


@pytest.mark.parametrize(
    "funcion,argumentos",
    [
        (warmup.pasos_totales, (0, 16, 3)),
        (warmup.pasos_totales, (100, 0, 3)),
        (warmup.pasos_totales, (100, 16, 0)),
        (warmup.pasos_totales, (100, 16, -1.5)),
        (warmup.pasos_totales, (100, 16, float("inf"))),
        (warmup.pasos_totales, (100, 16, 3, 0)),
        (warmup.pasos_totales, (100, 16, 3, 1, 0)),
        (warmup.pasos_totales, (100, 16, 3, 1, 1, 0)),
        (warmup.pasos_totales, (100.0, 16, 3)),
        (warmup.pasos_totales, (True, 16, 3)),
        (warmup.pasos_por_epoca, (3, 4)),  # válido sin descartar...
        (warmup.pasos_de_warmup, (-0.1, 100)),
        (warmup.pasos_de_warmup, (True, 100)),
        (warmup.pasos_de_warmup, (0.1, 0)),
    ],
)
def test_errores_de_conteo(funcion, argumentos):
    if funcion is warmup.pasos_por_epoca:
        assert funcion(*argumentos) == 1
        with pytest.raises(ValueError, match="descartar_ultimo"):
            funcion(*argumentos, descartar_ultimo=True)
        return
    with pytest.raises((ValueError, TypeError)) as info:
        funcion(*argumentos)
    assert ESPANOL.search(str(info.value)), str(info.value)


# --------------------------------------------------------------------------
# Propiedades (hypothesis)
# --------------------------------------------------------------------------

warmups_validos = st.one_of(st.integers(0, 400), st.floats(0, 1, exclude_max=True))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lr=st.floats(1e-6, 1.0),
    total=st.integers(1, 300),
    valor_warmup=warmups_validos,
    tipo=st.sampled_from(warmup.TIPOS),
)
def test_propiedad_tasas_validas(lr, total, valor_warmup, tipo):
    tasas = warmup.tasas_de_aprendizaje(lr, total, valor_warmup, tipo)
    assert len(tasas) == total
    assert all(0.0 <= t <= lr * (1 + 1e-12) for t in tasas)
    w = warmup.pasos_de_warmup(valor_warmup, total)
    if tipo in ("linear", "cosine", "constant_with_warmup") and 0 < w < total:
        assert tasas[0] == 0.0
        assert tasas[w] == pytest.approx(lr, rel=1e-12)  # al acabar el warmup se llega a lr
        assert all(a <= b for a, b in zip(tasas[:w], tasas[1 : w + 1]))  # el warmup sube


valores_cualesquiera = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 50),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
)


@settings(max_examples=80, deadline=None)
@given(
    lr=valores_cualesquiera,
    total=valores_cualesquiera,
    valor_warmup=valores_cualesquiera,
    tipo=st.one_of(st.sampled_from(warmup.TIPOS + warmup.TIPOS_SEGUN_METRICA), st.text(max_size=8), st.integers()),
)
def test_propiedad_solo_errores_documentados(lr, total, valor_warmup, tipo):
    try:
        tasas = warmup.tasas_de_aprendizaje(lr, total, valor_warmup, tipo)
    except (ValueError, TypeError) as exc:
        assert ESPANOL.search(str(exc)), str(exc)
    else:
        assert len(tasas) == total
        assert all(0.0 <= t <= lr * (1 + 1e-12) for t in tasas)


@settings(max_examples=80, deadline=None)
@given(
    ejemplos=st.integers(1, 5000),
    lote=st.integers(1, 64),
    epocas=st.floats(0.01, 10),
    acumulacion=st.integers(1, 16),
    dispositivos=st.integers(1, 8),
)
def test_propiedad_pasos_totales(ejemplos, lote, epocas, acumulacion, dispositivos):
    total = warmup.pasos_totales(ejemplos, lote, epocas, acumulacion, dispositivos)
    por_epoca = warmup.pasos_por_epoca(ejemplos, lote, acumulacion, dispositivos)
    assert total >= 1 and por_epoca >= 1
    assert total == math.ceil(epocas * por_epoca)
    # más acumulación o más dispositivos nunca dan más pasos
    assert warmup.pasos_por_epoca(ejemplos, lote, acumulacion + 1, dispositivos) <= por_epoca
    assert warmup.pasos_por_epoca(ejemplos, lote, acumulacion, dispositivos + 1) <= por_epoca


# --------------------------------------------------------------------------
# Gráfica y widget
# --------------------------------------------------------------------------


def test_grafica_en_espanol_con_warmup_sombreado():
    import matplotlib.pyplot as plt

    tipos = ("linear", "cosine", "constant_with_warmup", "warmup_stable_decay")
    figura = warmup.graficar_schedules(2e-5, 189, 0.1, tipos)
    try:
        ax = figura.axes[0]
        assert ax.get_xlabel() == "Paso de optimización"
        assert ax.get_ylabel() == "Tasa de aprendizaje"
        assert ax.get_title()
        assert len(ax.get_lines()) == len(tipos)
        colores = {linea.get_color() for linea in ax.get_lines()}
        assert colores <= set(warmup.PALETA_OKABE_ITO) and len(colores) == len(tipos)
        assert len({linea.get_linestyle() for linea in ax.get_lines()}) > 1
        assert any("Warmup" in p.get_label() for p in ax.patches)  # región sombreada
        assert list(ax.get_lines()[0].get_ydata()) == warmup.tasas_de_aprendizaje(2e-5, 189, 0.1, "linear")
    finally:
        plt.close(figura)
    with pytest.raises(ValueError):
        warmup.graficar_schedules(2e-5, 100, 10, ())


def test_widget_redibuja_y_expone_valores():
    panel = warmup.widget_warmup(lr=2e-5, ejemplos=1000, lote=16, epocas=3, warmup=0.1, tipo="linear")
    descripciones = {c.description for c in panel.controles.values()}
    assert {"Tasa de aprendizaje", "Ejemplos", "Tamaño de lote", "Épocas", "Warmup (fracción)", "Schedule"} <= descripciones
    assert "Pasos totales: 189" in panel.salida_texto.value
    assert "pasos de warmup: 19" in panel.salida_texto.value
    assert panel.salida_grafica.value[:4] == b"\x89PNG"
    assert panel.controles["paso"].max == 188
    imagen_antes = panel.salida_grafica.value

    panel.controles["paso"].value = 10
    assert "tasa en el paso 10: 1.053e-5" in panel.salida_texto.value  # 2e-5 · 10/19
    panel.controles["lote"].value = 32  # ceil(1000/32) = 32 pasos por época
    assert "Pasos totales: 96" in panel.salida_texto.value
    panel.controles["tipo"].value = "constant"
    assert "tasa en el paso 10: 2.000e-5" in panel.salida_texto.value
    assert panel.salida_grafica.value != imagen_antes


# --------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------


def test_cli_json_con_pasos_totales():
    r = _tutor("warmup", "--lr", "2e-5", "--pasos-totales", "500", "--warmup", "100", "--tipo", "linear", "--json")
    assert r.returncode == 0, r.stderr
    datos = json.loads(r.stdout)
    assert {"learning_rates", "pasos_totales", "pasos_warmup"} <= set(datos)
    assert datos["pasos_totales"] == 500 and datos["pasos_warmup"] == 100
    assert datos["learning_rates"] == warmup.tasas_de_aprendizaje(2e-5, 500, 100, "linear")
    assert datos["learning_rates"][20] == pytest.approx(4e-6)


def test_cli_con_ejemplos_y_texto(capsys):
    # en el mismo proceso (main de cli.py) para no pagar otra vez la importación de transformers
    from tutor_lib.cli import main

    base = ["warmup", "--lr", "2e-5", "--ejemplos", "1000", "--lote", "16", "--epocas", "3", "--warmup", "0.1"]
    opciones = ["--tipo", "cosine_with_min_lr", "--opcion", "min_lr_rate=0.2"]
    assert main(base + opciones) == 0
    salida = capsys.readouterr().out
    assert "189 pasos de optimización" in salida and "19 de warmup" in salida
    assert "Tasa de aprendizaje" in salida
    assert main(base + ["--acumulacion", "4", "--json"]) == 0
    datos = json.loads(capsys.readouterr().out)
    assert datos["pasos_totales"] == 48 and datos["pasos_warmup"] == 5
    assert datos["learning_rates"] == warmup.tasas_de_aprendizaje(2e-5, 48, 0.1)


@pytest.mark.parametrize(
    "argumentos,texto",
    [
        (["--lr", "-1", "--pasos-totales", "10"], "lr"),
        (["--lr", "nan", "--pasos-totales", "10"], "finito"),
        (["--lr", "1e-3", "--pasos-totales", "10", "--tipo", "inventado"], "inventado"),
        (["--lr", "1e-3", "--pasos-totales", "10", "--tipo", "reduce_lr_on_plateau"], "métrica"),
        (["--lr", "1e-3", "--pasos-totales", "0"], "--pasos-totales debe ser un entero ≥ 1"),
        (["--lr", "1e-3", "--pasos-totales", "10", "--warmup", "mucho"], "--warmup"),
        (["--lr", "1e-3", "--pasos-totales", "10", "--warmup", "2.5"], "--warmup"),
        (["--lr", "1e-3", "--pasos-totales", "10", "--lote", "4"], "no se puede usar"),
        (["--lr", "1e-3", "--ejemplos", "100"], "hace falta"),
        (["--lr", "1e-3", "--ejemplos", "100", "--lote", "0", "--epocas", "1"], "lote"),
        (["--lr", "1e-3"], "hace falta uno de los argumentos"),
        (["--lr", "1e-3", "--pasos-totales", "10", "--ejemplos", "5"], "no se puede usar"),
    ],
)
def test_cli_errores_en_espanol(argumentos, texto):
    r = _tutor("warmup", *argumentos)
    assert r.returncode == 2
    assert texto in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
