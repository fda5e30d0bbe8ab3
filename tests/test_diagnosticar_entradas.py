"""``tutor diagnosticar`` frente a todo trainer_state.json raro que pueda llegarle (issue 43, puntos 1 y 20).

Cada entrada rara da un diagnóstico válido (código 0) o un error en español que
nombra el archivo y dice qué cambiar (código 2), nunca una traza de Python. La
mayoría de los casos llama a :func:`tutor_lib.cli.main` en este proceso (rápido);
unos pocos corren el comando de verdad en un proceso nuevo. Las pruebas del
punto 20 comprueban que cada cifra que cita el texto es el estadístico que el
texto dice que es, recalculándolo aquí con los datos.
"""

from __future__ import annotations

import json
import math
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from tutor_lib.cli import main
from tutor_lib.curvas import CATEGORIAS, _fmt, diagnosticar, leer_curvas
from tutor_lib.formato import entero

RAIZ = Path(__file__).resolve().parents[1]


def _tutor_proceso(*args: str) -> subprocess.CompletedProcess:
    """El comando real, en un proceso nuevo, como lo corre un estudiante."""
    entorno = {**os.environ, "PYTHONPATH": os.pathsep.join([str(RAIZ), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "tutor_lib", "diagnosticar", *args],
                          capture_output=True, text=True, cwd=RAIZ, env=entorno, timeout=120)


def _tutor(capsys, *args: str) -> tuple[int, str, str]:
    """``tutor diagnosticar ARGS`` en este proceso: (código, stdout, stderr)."""
    capsys.readouterr()
    codigo = main(["diagnosticar", *map(str, args)])
    salida = capsys.readouterr()
    return codigo, salida.out, salida.err


def _curva(n: int = 30) -> list[float]:
    return [1.5 * math.exp(-i / 8) + 0.3 + 0.01 * (i % 3) for i in range(n)]


def _log(perdidas, pasos=None, **extra) -> list[dict]:
    pasos = pasos or [10 * (i + 1) for i in range(len(perdidas))]
    return [{"loss": v, "step": p, **extra} for v, p in zip(perdidas, pasos)]


# --------------------------------------------------------------------------- entradas que no se pueden diagnosticar

RESUMEN = {"train_runtime": 1.2, "train_loss": 0.6931, "epoch": 1.0, "step": 3}

#: nombre → (contenido del archivo: bytes, str u objeto para json.dumps; fragmentos que debe tener el error)
ERRORES = {
    "vacio": ("", ["está vacío"]),
    "solo_espacios": ("  \n\t", ["está vacío"]),
    "no_es_json": ("{no es json", ["no es JSON válido", "línea 1"]),
    "binario": (b"\xff\xfe\x00\x81", ["no es un archivo de texto JSON"]),
    "lista_vacia": ("[]", ["vacía"]),
    "numero": ("42", ["contiene un número", "log_history"]),
    "texto": ('"checkpoint-1"', ["contiene un texto", "log_history"]),
    "null": ("null", ["contiene null"]),
    "booleano": ("true", ["contiene un booleano"]),
    "sin_log_history": ({"global_step": 3}, ["'log_history'", "global_step"]),
    "log_history_numero": ({"log_history": 5}, ["log_history debe ser una lista", "recibí int"]),
    "log_history_null": ({"log_history": None}, ["log_history debe ser una lista", "recibí null"]),
    "log_history_dict": ({"log_history": {"loss": 1}}, ["log_history debe ser una lista"]),
    "entradas_no_dict": ({"log_history": [1, "a"]}, ["log_history[0] debe ser un diccionario"]),
    "log_history_vacio": ({"log_history": []}, ["log_history está vacío", "logging_steps", "eval_strategy"]),
    "solo_resumen": ({"log_history": [RESUMEN], "global_step": 3, "max_steps": 3, "logging_steps": 500},
                     ["solo trae el resumen final", "train_loss = 0.693",
                      "La corrida dio 3 pasos con logging_steps=500", "logging_steps=1", "eval_strategy='steps'", "entrena también más pasos"]),
    "solo_resumen_sin_estado": ({"log_history": [RESUMEN]}, ["solo trae el resumen final", "500 por defecto"]),
    "solo_evaluaciones": ({"log_history": [{"eval_loss": 0.5, "step": 100}, {"eval_loss": 0.4, "step": 200}],
                           "global_step": 200, "logging_steps": 500},
                          ["2 evaluaciones (eval_loss) pero ninguna pérdida de entrenamiento",
                           "La validación sola no alcanza", "logging_steps=10 (unos 20 registros en 200 pasos)"]),
    "otras_claves": ({"log_history": [{"learning_rate": 1e-5, "step": 10}]}, ["el único registro", "no tiene loss"]),
    "loss_texto": ({"log_history": _log([0.5, "hola"])}, ["log_history[1]['loss']", "'hola'", "corrígelo"]),
    "loss_booleano": ({"log_history": _log([True, 0.5])}, ["booleano"]),
    "loss_lista": ({"log_history": _log([[0.5], 0.4])}, ["debe ser un número"]),
    "paso_negativo": ({"log_history": _log([0.5, 0.4], [-3, 2])}, ["vale -3", "no puede ser negativo"]),
    "paso_nan": ('{"log_history": [{"loss": 0.5, "step": NaN}]}', ["número finito"]),
    "paso_texto": ({"log_history": _log([0.5], ["abc"])}, ["'abc'"]),
    "paso_gigante": ('{"log_history": [{"loss": 0.5, "step": ' + "9" * 400 + "}]}", ["vale inf", "número finito"]),
    "entrenamiento_vacio": ({"entrenamiento": []}, ["vacía"]),
    "entrenamiento_texto": ({"entrenamiento": "0.5 0.4"}, ["lista de números"]),
    "validacion_numero": ({"entrenamiento": [0.5, 0.4], "validacion": 3}, ["validacion debe ser una lista"]),
    "pasos_negativos": ({"entrenamiento": [0.5, 0.4], "pasos": [-1, 2]}, ["pasos[0]", "negativo"]),
    "perdida_negativa": ({"entrenamiento": [1.0, -0.5, 0.3]}, ["negativa"]),
    "anidado": ("[" * 100_000 + "]" * 100_000, ["demasiados niveles"]),
    "cifras_de_mas": ('{"log_history": [{"loss": ' + "1" * 5000 + ', "step": 1}]}', ["demasiadas cifras"]),
}


def _escribir(ruta: Path, contenido) -> Path:
    if isinstance(contenido, bytes):
        ruta.write_bytes(contenido)
    elif isinstance(contenido, str):
        ruta.write_text(contenido, encoding="utf-8")
    else:
        ruta.write_text(json.dumps(contenido), encoding="utf-8")
    return ruta


def _es_error_en_espanol(codigo: int, salida: str, error: str, fragmentos, nombre_archivo: str | None) -> None:
    assert codigo == 2, (codigo, salida, error)
    assert salida == "", salida
    assert error.startswith("tutor diagnosticar: error: "), error
    assert "Traceback" not in error and "Error:" not in error  # ni traza ni «IndexError:», «KeyError:»...
    for fragmento in fragmentos:
        assert fragmento in error, f"falta {fragmento!r} en:\n{error}"
    if nombre_archivo:
        assert nombre_archivo in error, error


@pytest.mark.parametrize("caso", sorted(ERRORES))
def test_archivo_raro_da_error_en_espanol_con_el_archivo(caso, tmp_path, capsys):
    contenido, fragmentos = ERRORES[caso]
    ruta = _escribir(tmp_path / f"{caso}.json", contenido)
    for extra in ((), ("--json",)):
        codigo, salida, error = _tutor(capsys, ruta, *extra)
        _es_error_en_espanol(codigo, salida, error, fragmentos, ruta.name)


def test_archivo_demasiado_grande_no_se_lee(tmp_path, capsys):
    from tutor_lib.curvas.lectura import TAMANO_MAXIMO

    ruta = tmp_path / "trainer_state.json"
    with open(ruta, "wb") as f:
        f.truncate(TAMANO_MAXIMO + 1)  # disperso: no ocupa disco
    codigo, salida, error = _tutor(capsys, ruta)
    _es_error_en_espanol(codigo, salida, error, ["MiB", "logging_steps mayor"], "trainer_state.json")


def _estado(tmp_path: Path, carpeta: str, contenido) -> Path:
    (tmp_path / carpeta).mkdir(parents=True)
    return _escribir(tmp_path / carpeta / "trainer_state.json", contenido)


@pytest.mark.parametrize("caso", ["vacia", "checkpoint-abc", "checkpoint-sin-estado", "estado-es-carpeta", "no-existe"])
def test_carpeta_rara_da_error_en_espanol(caso, tmp_path, capsys):
    corrida = tmp_path / "corrida"
    corrida.mkdir()
    esperado = ["no hay trainer_state.json", "checkpoint-N"]
    if caso == "checkpoint-abc":
        _estado(corrida, "checkpoint-abc", {"log_history": _log(_curva())})
        esperado.append("La subcarpeta checkpoint-abc no se llama checkpoint-N con N un número")
    elif caso == "checkpoint-sin-estado":
        (corrida / "checkpoint-7").mkdir()
        (corrida / "checkpoint-12").mkdir()
        esperado.append("Las subcarpetas checkpoint-12, checkpoint-7 no tienen trainer_state.json")
    elif caso == "estado-es-carpeta":
        (corrida / "trainer_state.json").mkdir()
    elif caso == "no-existe":
        corrida = corrida / "otra"
        esperado = ["No existe la ruta"]
    codigo, salida, error = _tutor(capsys, corrida)
    _es_error_en_espanol(codigo, salida, error, esperado, None)


def test_corrida_cuyo_ultimo_checkpoint_solo_tiene_el_resumen(tmp_path, capsys):
    """La carpeta de corrida lleva al checkpoint-N más alto; el error nombra ESE archivo."""
    _estado(tmp_path, "checkpoint-2", {"log_history": _log(_curva())})
    _estado(tmp_path, "checkpoint-10", {"log_history": [RESUMEN], "global_step": 10, "logging_steps": 500})
    _estado(tmp_path, "checkpoint-abc", {"log_history": _log(_curva())})  # no cuenta: no es checkpoint-N
    codigo, salida, error = _tutor(capsys, tmp_path)
    _es_error_en_espanol(codigo, salida, error, ["La corrida dio 10 pasos con logging_steps=500"],
                         str(Path("checkpoint-10") / "trainer_state.json"))


# --------------------------------------------------------------------------- entradas raras que sí se diagnostican

def _json_con(curva: list, otros: list | None = None) -> str:
    """Un log_history escrito a mano, con ``NaN``/``Infinity`` como los escribe el json de Python."""
    return json.dumps({"log_history": curva + (otros or [])})


DIAGNOSTICABLES = {
    # nombre → (contenido, categoría esperada o None si vale cualquiera, fragmento de aviso o None)
    "un_registro": ({"log_history": _log([0.7])}, "indeterminado", None),
    "perdidas_como_texto": ({"log_history": _log([str(v) for v in _curva()])}, None, None),
    "loss_null": ({"log_history": _log(_curva()) + [{"loss": None, "step": 999}]}, None, "'loss': null"),
    "todo_nan": ('{"log_history": [{"loss": NaN, "step": 1}, {"loss": Infinity, "step": 2}]}', "divergencia", None),
    "nan_al_final": (_json_con(_log(_curva(20)) + _log([float("nan")] * 4, [300, 310, 320, 330])), "divergencia", None),
    "perdida_enorme": ('{"log_history": [{"loss": 1e400, "step": 1}]}', "divergencia", None),
    "desordenados": ({"log_history": list(reversed(_log(_curva())))}, None, "se ordenaron"),
    "duplicados": ({"log_history": _log(_curva()) + _log([0.31], [300])}, None, "se repite"),
    "sin_step": ({"log_history": [{"loss": v, "epoch": i / 10} for i, v in enumerate(_curva())]}, None, "época"),
    "lista_de_numeros": (_curva(), None, None),
    "listas": ({"entrenamiento": _curva(), "validacion": [1.0, 0.7, 0.5, 0.45]}, None, None),
    "listas_con_pasos_desordenados": ({"entrenamiento": [0.9, 1.0, 0.8], "pasos": [2, 1, 3]}, "indeterminado",
                                      "se ordenaron"),
}


@pytest.mark.parametrize("caso", sorted(DIAGNOSTICABLES))
def test_archivo_raro_pero_diagnosticable(caso, tmp_path, capsys):
    contenido, categoria, aviso = DIAGNOSTICABLES[caso]
    ruta = _escribir(tmp_path / "trainer_state.json", contenido)
    codigo, salida, error = _tutor(capsys, ruta, "--json")
    assert codigo == 0, error
    datos = json.loads(salida)
    assert datos["categoria"] in CATEGORIAS
    if categoria:
        assert datos["categoria"] == categoria, datos
    assert datos["categoria"] == diagnosticar(ruta).categoria  # el mismo veredicto que la biblioteca
    if aviso:
        assert aviso in error and error.startswith("tutor diagnosticar: aviso: "), error
    else:
        assert error == "", error
    codigo, salida, _ = _tutor(capsys, ruta, "--grafica", tmp_path / "curva.png")
    assert codigo == 0 and salida.startswith(f"Diagnóstico: {datos['categoria']}")
    assert "Cifras" in salida and (tmp_path / "curva.png").stat().st_size > 1000


def test_pasos_desordenados_dan_el_mismo_veredicto_que_ordenados(tmp_path, capsys):
    validacion = [{"eval_loss": v, "step": 60 * (i + 1)} for i, v in enumerate([1.0, 0.7, 0.55, 0.5, 0.6])]
    ordenado = _escribir(tmp_path / "ordenado.json", {"log_history": _log(_curva()) + validacion})
    desordenado = _escribir(tmp_path / "desordenado.json", {"log_history": (_log(_curva()) + validacion)[::-1]})
    uno, otro = (json.loads(_tutor(capsys, r, "--json")[1]) for r in (ordenado, desordenado))
    assert uno == otro


def test_curva_enorme_se_aligera_con_aviso_y_mismo_veredicto(tmp_path, capsys):
    from tutor_lib.curvas.lectura import MAX_REGISTROS

    n = MAX_REGISTROS + 2000
    curva = [2.0 * math.exp(-3 * i / n) + 0.1 + 0.02 * ((i * 7919) % 11) / 11 for i in range(n)]
    ruta = _escribir(tmp_path / "trainer_state.json", {"log_history": _log(curva, list(range(1, n + 1)))})
    codigo, salida, error = _tutor(capsys, ruta, "--json")
    assert codigo == 0, error
    assert f"tiene {entero(n)} registros" in error and "1 de cada 2" in error
    assert json.loads(salida)["categoria"] == diagnosticar(ruta).categoria  # la curva completa, sin aligerar
    codigo, salida, _ = _tutor(capsys, ruta)
    assert f"{entero(n // 2 + 1)} registros (de {entero(n)}, uno de cada 2)" in salida


# --------------------------------------------------------------------------- el comando real, en un proceso

def test_comando_real_sin_traza(tmp_path):
    """Los dos casos del issue (solo resumen, solo evaluaciones) y uno sano, con ``python -m tutor_lib``."""
    for caso in ("solo_resumen", "solo_evaluaciones"):
        contenido, fragmentos = ERRORES[caso]
        ruta = _escribir(tmp_path / f"{caso}.json", contenido)
        proceso = _tutor_proceso(str(ruta))
        _es_error_en_espanol(proceso.returncode, proceso.stdout, proceso.stderr, fragmentos, ruta.name)
    ruta = _escribir(tmp_path / "bien.json", {"log_history": _log(_curva())})
    proceso = _tutor_proceso(str(ruta), "--json")
    assert proceso.returncode == 0 and "Traceback" not in proceso.stderr, proceso.stderr
    assert json.loads(proceso.stdout)["categoria"] in CATEGORIAS


def test_trainer_real_con_logging_steps_por_defecto(tmp_path, capsys):
    """La pregunta 3 de la lección 3: una corrida corta con logging_steps=500 solo deja el resumen final."""
    import torch
    from torch import nn
    from transformers import PrinterCallback, Trainer, TrainingArguments

    class Conjunto(torch.utils.data.Dataset):
        def __len__(self):
            return 24

        def __getitem__(self, i):
            return {"x": torch.full((4,), float(i % 2)), "labels": torch.tensor(i % 2)}

    class Red(nn.Module):
        def __init__(self):
            super().__init__()
            self.lineal = nn.Linear(4, 2)

        def forward(self, x, labels=None):
            logits = self.lineal(x)
            return {"loss": nn.functional.cross_entropy(logits, labels), "logits": logits}

    argumentos = TrainingArguments(output_dir=str(tmp_path), max_steps=3, per_device_train_batch_size=8,
                                   report_to="none", use_cpu=True, disable_tqdm=True, save_strategy="no")
    trainer = Trainer(model=Red(), args=argumentos, train_dataset=Conjunto())
    trainer.remove_callback(PrinterCallback)
    trainer.train()
    trainer.save_state()
    assert all("loss" not in r for r in trainer.state.log_history)  # de verdad: solo el resumen final
    codigo, salida, error = _tutor(capsys, tmp_path / "trainer_state.json")
    _es_error_en_espanol(codigo, salida, error, ["solo trae el resumen final",
                                                 "La corrida dio 3 pasos con logging_steps=500", "logging_steps=1"],
                         "trainer_state.json")


# --------------------------------------------------------------------------- punto 20: cada cifra, su estadístico

def _mediana_movil(y: list[float], ventana: int) -> list[float]:
    """Mediana móvil centrada, recortada en los bordes (escrita aquí, sin la de tutor_lib)."""
    mitad = ventana // 2
    return [statistics.median(y[max(0, i - mitad): i + mitad + 1]) for i in range(len(y))]


def _comprobar_cifras_citadas(texto: str, y: list[float], x: list[int], yv: list[float]) -> int:
    """Recalcula cada cifra de ``texto`` que dice qué estadístico es; devuelve cuántas comprobó."""
    comprobadas = 0
    patrones = [
        (r"(\S+) es la mediana de los (\d+) primeros registros de entrenamiento",
         lambda k: statistics.median(y[:int(k)])),
        (r"(\S+) es la mediana de los (\d+) últimos registros de entrenamiento",
         lambda k: statistics.median(y[-int(k):])),
        (r"(\S+) es el primer registro de entrenamiento", lambda: y[0]),
        (r"(\S+) es el último registro de entrenamiento", lambda: y[-1]),
        (r"(\S+) es la mediana de las (\d+) últimas evaluaciones de validación",
         lambda k: statistics.median(yv[-int(k):])),
        (r"(\S+) es la última evaluación de validación", lambda: yv[-1]),
        (r"(\S+) es la curva de entrenamiento suavizada con una mediana móvil de (\d+) registros, en el paso (\d+)",
         lambda w, paso: _mediana_movil(y, int(w))[x.index(int(paso))]),
        (r"nivel inicial (\S+) \(mediana de los (\d+) primeros registros\)",
         lambda k: statistics.median(y[:int(k)])),
        (r"nivel inicial (\S+) \(primer registro\)", lambda: y[0]),
        (r"final (\S+) \(mediana de los (\d+) últimos registros\)", lambda k: statistics.median(y[-int(k):])),
        (r"primer registro (\S+) y último registro (\S+);", None),
        (r"mínimo de la curva suavizada con una mediana móvil de (\d+) registros: (\S+),", None),
        (r"nivel final (\S+) \(mediana de las (\d+) últimas evaluaciones\)",
         lambda k: statistics.median(yv[-int(k):])),
    ]
    for patron, calculo in patrones:
        for m in re.finditer(patron, texto):
            if patron.startswith("primer registro"):
                assert (m.group(1), m.group(2).rstrip(";")) == (_fmt(y[0]), _fmt(y[-1])), m.group(0)
            elif patron.startswith("mínimo"):
                assert m.group(2) == _fmt(min(_mediana_movil(y, int(m.group(1))))), m.group(0)
            else:
                assert m.group(1) == _fmt(calculo(*m.groups()[1:])), m.group(0)
            comprobadas += 1
    return comprobadas


def _sobreajuste_con_extremos_sueltos() -> tuple[list[float], list[int], list[float], list[int]]:
    """Sobreajuste cuyo primer registro está muy arriba y el último muy abajo de sus vecinos (el caso del issue)."""
    y = [7.0 - 2.6 * (1 - math.exp(-i / 12)) + 0.05 * ((i * 37) % 7) for i in range(60)]
    y[0], y[-1] = 7.4, 4.3
    x = [10 * (i + 1) for i in range(60)]
    yv = [6.8, 6.2, 5.6, 5.2, 5.0, 5.1, 5.3, 5.6, 5.9, 6.2]
    xv = [60 * (i + 1) for i in range(10)]
    return y, x, yv, xv


def test_cada_cifra_del_texto_es_el_estadistico_que_nombra(tmp_path, capsys):
    y, x, yv, xv = _sobreajuste_con_extremos_sueltos()
    log = _log(y, x) + [{"eval_loss": v, "step": p} for v, p in zip(yv, xv)]
    ruta = _escribir(tmp_path / "trainer_state.json", {"log_history": log})
    codigo, salida, error = _tutor(capsys, ruta)
    assert codigo == 0, error
    explicacion, cifras = salida.split("\n\n")[1], salida.split("Cifras")[1]
    assert "Cómo se midieron estas cifras" in explicacion
    # la explicación y el bloque de cifras dicen lo mismo de las mismas cifras, y es verdad
    assert _comprobar_cifras_citadas(explicacion, y, x, yv) >= 3
    assert _comprobar_cifras_citadas(cifras, y, x, yv) >= 5
    # los extremos que dibuja la gráfica, nombrados como tales, y distintos de los niveles que compara el texto
    assert f"el primero vale {_fmt(y[0])} y el último {_fmt(y[-1])}" in explicacion
    assert f"primer registro {_fmt(y[0])} y último registro {_fmt(y[-1])}" in cifras
    d = diagnosticar(ruta)
    assert _fmt(d.evidencia["perdida_inicial"]) != _fmt(y[0]) and _fmt(d.evidencia["perdida_final"]) != _fmt(y[-1])
    # toda cifra «de X a Y» de la explicación tiene su estadístico dicho en la nota
    original, nota = explicacion.split(" Cómo se midieron estas cifras: ")
    for cifra in re.findall(r"\bde (\d+\.?\d*) a (\d+\.?\d*)", original):
        for valor in cifra:
            assert re.search(rf"(?<![\d.]){re.escape(valor)} es ", nota), (valor, nota)


def test_nivel_inicial_que_es_el_primer_registro(tmp_path, capsys):
    """Si la curva sube desde el principio, el nivel inicial es el primer registro, y así se dice."""
    y = [0.8, 1.2, 3.0, 8.0, 20.0, 12.0, 6.0] + [1.1 + 0.01 * (i % 2) for i in range(23)]
    x = list(range(1, len(y) + 1))
    ruta = _escribir(tmp_path / "explota.json", {"entrenamiento": y})
    codigo, salida, error = _tutor(capsys, ruta)
    assert codigo == 0, error
    assert f"nivel inicial {_fmt(y[0])} (primer registro)" in salida
    assert f"{_fmt(y[0])} es el primer registro de entrenamiento" in salida
    assert _comprobar_cifras_citadas(salida, y, x, []) >= 4


def test_una_cifra_que_no_se_puede_comprobar_no_se_describe():
    """Si la evidencia no es lo que se recalcula (p. ej. otras reglas), nadie afirma qué estadístico es."""
    from tutor_lib.curvas.texto import medidas, nota_de_cifras

    y, x, yv, xv = _sobreajuste_con_extremos_sueltos()
    curvas = leer_curvas(entrenamiento=y, pasos=x, validacion=yv, pasos_validacion=xv)
    evidencia = dict(diagnosticar(curvas).evidencia)
    assert medidas(curvas, evidencia)["perdida_inicial"].corta == "mediana de los 4 primeros registros"
    evidencia["perdida_inicial"] = 6.123
    assert medidas(curvas, evidencia)["perdida_inicial"].corta is None
    assert "6.12 es" not in nota_de_cifras(curvas, evidencia, "bajó de 6.12 a 4.4")
