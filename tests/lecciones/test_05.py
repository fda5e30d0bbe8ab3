"""Pruebas de lessons/05_callbacks_y_checkpoints.ipynb.

Las primeras son rápidas: comprueban contra transformers instalado los hechos que la
lección enseña (nombres de eventos, validaciones de TrainingArguments, la regla de
EarlyStoppingCallback, la rotación de checkpoints, el checkpoint JIT). La última
ejecuta el notebook una vez en modo rápido y revisa las cifras de sus salidas; por eso
este notebook puede quedar fuera del recorrido general de tests/test_lecciones.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

RAIZ = Path(__file__).resolve().parents[2]
LECCION = RAIZ / "lessons" / "05_callbacks_y_checkpoints.ipynb"


# --------------------------------------------------------------------------
# Hechos de transformers que la lección usa
# --------------------------------------------------------------------------


def test_eventos_de_trainercallback_que_nombra_la_leccion():
    from transformers import TrainerCallback

    eventos = {nombre for nombre in vars(TrainerCallback) if nombre.startswith("on_")}
    nombrados = {"on_init_end", "on_train_begin", "on_epoch_begin", "on_step_begin", "on_pre_optimizer_step",
                 "on_optimizer_step", "on_substep_end", "on_step_end", "on_log", "on_evaluate", "on_save",
                 "on_prediction_step", "on_predict", "on_push_begin", "on_epoch_end", "on_train_end"}
    assert nombrados == eventos


def _args(tmp_path, **cambios):
    from transformers import TrainingArguments

    return TrainingArguments(output_dir=str(tmp_path), report_to="none", use_cpu=True, **cambios)


def test_load_best_model_at_end_exige_guardar_cuando_se_evalua(tmp_path):
    comunes = dict(eval_strategy="steps", load_best_model_at_end=True, metric_for_best_model="eval_loss")
    with pytest.raises(ValueError, match="strategy to match"):
        _args(tmp_path, eval_steps=10, save_strategy="epoch", **comunes)
    with pytest.raises(ValueError, match="multiple"):
        _args(tmp_path, eval_steps=10, save_strategy="steps", save_steps=15, **comunes)
    _args(tmp_path, eval_steps=10, save_strategy="steps", save_steps=20, **comunes)
    _args(tmp_path, eval_steps=10, save_strategy="best", **comunes)
    # autoevaluación, pregunta 1
    with pytest.raises(ValueError):
        _args(tmp_path, eval_steps=100, save_strategy="steps", save_steps=250, **comunes)
    _args(tmp_path, eval_steps=100, save_strategy="steps", save_steps=200, **comunes)


def test_greater_is_better_se_deduce_del_nombre(tmp_path):
    comunes = dict(eval_strategy="epoch", save_strategy="epoch", load_best_model_at_end=True)
    for metrica, esperado in (("eval_loss", False), ("loss", False), ("accuracy", True), ("eval_mae", True)):
        assert _args(tmp_path, metric_for_best_model=metrica, **comunes).greater_is_better is esperado
    sin_metrica = _args(tmp_path, **comunes)
    assert sin_metrica.metric_for_best_model == "loss" and sin_metrica.greater_is_better is False


def test_regla_de_early_stopping_de_la_autoevaluacion(tmp_path):
    """0.800, 0.805, 0.812, 0.809 con umbral 0.01 y paciencia 3: contadores 0,1,2,3; best_metric 0.812."""
    from transformers import EarlyStoppingCallback, TrainerControl, TrainerState

    args = _args(tmp_path, eval_strategy="epoch", save_strategy="epoch", load_best_model_at_end=True,
                 metric_for_best_model="accuracy")
    callback = EarlyStoppingCallback(early_stopping_patience=3, early_stopping_threshold=0.01)
    estado, control = TrainerState(), TrainerControl()
    contadores = []
    for valor in (0.800, 0.805, 0.812, 0.809):
        callback.on_evaluate(args, estado, control, metrics={"eval_accuracy": valor})
        contadores.append(callback.early_stopping_patience_counter)
        # lo que hace después Trainer._determine_best_metric: cualquier mejora, sin umbral
        if estado.best_metric is None or valor > estado.best_metric:
            estado.best_metric = valor
    assert contadores == [0, 1, 2, 3]
    assert control.should_training_stop
    assert estado.best_metric == 0.812


def test_rotacion_de_checkpoints(tmp_path):
    from transformers.trainer_utils import rotate_checkpoints

    def crear(carpeta, pasos):
        for paso in pasos:
            (carpeta / f"checkpoint-{paso}").mkdir(parents=True)

    sin_limite = tmp_path / "cero"
    crear(sin_limite, (1, 2, 3))
    rotate_checkpoints(str(sin_limite), save_total_limit=0)
    assert len(list(sin_limite.iterdir())) == 3, "save_total_limit=0 no borra nada"

    con_mejor = tmp_path / "uno"
    crear(con_mejor, (1, 2, 3))
    rotate_checkpoints(str(con_mejor), save_total_limit=1, best_model_checkpoint=str(con_mejor / "checkpoint-1"))
    assert sorted(p.name for p in con_mejor.iterdir()) == ["checkpoint-1", "checkpoint-3"], \
        "se conservan el mejor y el más reciente"


def test_checkpoint_jit_existe_como_lo_describe_la_leccion():
    import inspect

    from transformers import TrainingArguments
    from transformers.trainer_jit_checkpoint import CheckpointManager, JITCheckpointCallback

    assert TrainingArguments.__dataclass_fields__["enable_jit_checkpoint"].default is False
    assert inspect.signature(CheckpointManager.__init__).parameters["kill_wait"].default == 3
    revisa = {n for n in vars(JITCheckpointCallback) if n.startswith("on_")}
    assert {"on_step_begin", "on_pre_optimizer_step", "on_step_end", "on_epoch_end"} <= revisa
    assert "checkpoint-is-incomplete.txt" in inspect.getsource(CheckpointManager)


def test_valores_por_defecto_del_registro(tmp_path):
    from transformers import TrainingArguments

    por_defecto = TrainingArguments(output_dir=str(tmp_path))
    assert por_defecto.report_to == []
    assert por_defecto.logging_steps == 500
    assert str(por_defecto.save_strategy.value) == "steps" and por_defecto.save_total_limit is None


# --------------------------------------------------------------------------
# El notebook entero, una vez
# --------------------------------------------------------------------------


@pytest.mark.cuaderno
@pytest.mark.lento
def test_leccion_05_corre_y_muestra_las_cifras():
    from cuadernos import ejecutar_cuaderno, textos_de_salida

    # Un hilo de PyTorch: en una máquina de 2 núcleos compartida (CI, varios procesos a la vez) los hilos
    # de más se estorban y la lección tarda varias veces más; en una CPU libre la diferencia es pequeña.
    nb, segundos = ejecutar_cuaderno(LECCION)
    texto = textos_de_salida(nb)
    # El tiempo no se afirma aquí (depende de la máquina): su meta vive en benchmarks/b_lecciones.py.

    esperados = [
        "Modo: rápido",
        "paso 3          : step_begin · pre_optimizer_step · optimizer_step · step_end · log(loss) · "
        "prediction_step ×2 · log(eval) · evaluate · save",
        "cierre          : epoch_end · log(resumen) · train_end",
        "válido      · evaluar cada 10 pasos, save_strategy='best'",
        "sin métrica → metric_for_best_model='loss', greater_is_better=False",
        "¿La regla repetida coincide con el paso donde paró el Trainer? sí",
        "diferencia con best_metric: 0.0e+00",
        "on_save se disparó en los pasos [3, 6]",
        "En disco quedó: ['checkpoint-6']",
        "El entrenamiento se cortó en el paso 4 de 6",
        "En disco: ['checkpoint-3']",
        "global_step del Trainer nuevo antes de train(): 0",
        "global_step al terminar: 6",
        "AdamW lleva la cuenta de 6 pasos aunque este train() solo dio 3",
        "¿iguales con tolerancia 1e-5? True",
        "El proceso terminó con código 0",
        "SIGTERM received",
        "¿Guardado completo (sin centinela)? sí",
        "report_to          = []",
        "logging_steps      = 500",
        "callbacks con estado guardado: ['EarlyStoppingCallback', 'TrainerControl']",
    ]
    faltan = [e for e in esperados if e not in texto]
    assert not faltan, f"no encontré en las salidas: {faltan}"

    # La corrida reanudada empieza en el paso 4
    reanudada = texto.split("global_step del Trainer nuevo antes de train(): 0", 1)[1]
    assert re.search(r"^paso (\d+)", reanudada, re.M).group(1) == "4"

    # Tabla sin cortes / reanudado: tasa y pérdida idénticas en los 6 pasos
    filas = re.findall(r"^\s+(\d)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(del checkpoint|calculado al reanudar)$",
                       texto, re.M)
    assert [int(f[0]) for f in filas] == [1, 2, 3, 4, 5, 6]
    assert all(f[1] == f[2] and f[3] == f[4] for f in filas), filas

    # Checkpoint JIT: se reanuda en el paso siguiente y la tasa sigue el schedule lineal
    jit = re.search(r"Pasos ejecutados al reanudar: \[(\d+), (\d+)\] \(el checkpoint JIT era del paso (\d+)\)", texto)
    assert jit, "falta la línea de la reanudación JIT"
    primero, segundo, paso_jit = map(int, jit.groups())
    assert (primero, segundo) == (paso_jit + 1, paso_jit + 2) and paso_jit >= 2
    tasa = re.search(r"en el paso \d+: (\S+) \(= .* = (\S+)\)", texto)
    assert tasa and float(tasa.group(1)) == pytest.approx(float(tasa.group(2)), rel=1e-4)

    # La carpeta temporal se borró al final
    carpeta = re.search(r"salidas en (\S+)", texto).group(1)
    assert not Path(carpeta).exists(), f"la lección no borró {carpeta}"

    # save_only_model: el checkpoint no trae lo que hace falta para reanudar, y reanudar no falla pero no
    # continúa: AdamW empieza de cero en el paso 4 y la tasa de ese paso no es la del schedule sin cortes
    assert "faltan para reanudar: ['optimizer.pt', 'scheduler.pt', 'rng_state.pth']" in texto
    assert "AdamW cree que dio 3 pasos (sin cortes: 6): empezó de cero en el paso 4." in texto
    liviano = texto.split("faltan para reanudar:", 1)[1]
    filas = re.findall(r"^\s+([4-6])\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)$", liviano, re.M)[:3]
    assert [int(f[0]) for f in filas] == [4, 5, 6]
    assert float(filas[0][1]) != float(filas[0][2]), "la tasa del paso 4 debería delatar el schedule nuevo"

    # TensorBoard: los escalares están en el archivo de eventos y son los de log_history
    assert "¿Las pérdidas de TensorBoard son las de log_history? True (8 puntos)" in texto
    escalares = re.search(r"escalares registrados: (\[.*\])", texto).group(1)
    assert all(f"'{e}'" in escalares for e in ("train/loss", "eval/loss", "train/learning_rate"))
