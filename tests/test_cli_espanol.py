"""El comando ``tutor`` habla español de punta a punta y responde rápido.

Cada prueba corre el comando real en un proceso nuevo (``python -m tutor_lib``):
ayuda y errores de argparse en español, números no positivos explicados,
avisos de ``tutor warmup``, ``--modelo`` sin red, la tabla de ``tutor vram`` sin
filas repetidas, las cifras con nombre de ``tutor diagnosticar`` y que los
caminos de pura aritmética no importen torch.
"""

from __future__ import annotations

import json
import re
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tutor_lib.cli import SUBCOMANDOS

RAIZ = Path(__file__).resolve().parents[1]
CURVAS = RAIZ / "tests" / "datos" / "curvas"

#: Frases de argparse en inglés que nunca deben llegar al estudiante.
INGLES = (
    "usage:", "options:", "positional arguments", "show this help", "the following arguments", "invalid choice",
    "expected one argument", "unrecognized arguments", "not allowed with", "is required", "invalid int value",
    "invalid float value", "Traceback",
)


def _tutor(*argumentos: str, entorno: dict | None = None, timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tutor_lib", *argumentos], capture_output=True, text=True, timeout=timeout,
        env={**os.environ, **(entorno or {})}, cwd=RAIZ,
    )


def _sin_ingles(texto: str) -> None:
    for frase in INGLES:
        assert frase not in texto, f"{frase!r} en:\n{texto}"


# --------------------------------------------------------------------------
# Ayuda
# --------------------------------------------------------------------------


@pytest.mark.parametrize("subcomando", [None, *SUBCOMANDOS])
def test_ayuda_en_espanol(subcomando):
    argumentos = ["--help"] if subcomando is None else [subcomando, "--help"]
    r = _tutor(*argumentos)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("uso: tutor"), r.stdout
    assert "opciones:" in r.stdout and "-h, --ayuda, --help" in r.stdout
    assert "muestra esta ayuda y termina" in r.stdout
    if subcomando is None:
        assert "subcomandos:" in r.stdout and all(s in r.stdout for s in SUBCOMANDOS)
    else:
        assert "--json" in r.stdout
    if subcomando in ("diagnosticar", "corregir", "calificar"):
        assert "argumentos posicionales:" in r.stdout
    _sin_ingles(r.stdout + r.stderr)


def test_h_ayuda_y_help_son_lo_mismo():
    salidas = {opcion: _tutor("vram", opcion) for opcion in ("-h", "--ayuda", "--help")}
    assert all(r.returncode == 0 for r in salidas.values())
    assert len({r.stdout for r in salidas.values()}) == 1


# --------------------------------------------------------------------------
# Errores de argparse
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argumentos,texto",
    [
        (["warmup"], "faltan argumentos obligatorios: --lr"),
        (["diagnosticar"], "faltan argumentos obligatorios: RUTA"),
        (["warmup", "--lr"], "argumento --lr: falta su valor"),
        (["vram", "--parametros", "7e9", "--metodo", "nada"], "argumento --metodo: valor no válido: 'nada' (elige entre"),
        (["warmup", "--lr", "1e-3", "--pasos-totales", "10", "--zzz"], "argumentos no reconocidos: --zzz"),
        (["vram", "--parametros", "7e9", "--config", "c.json"], "argumento --config: no se puede usar junto con --parametros"),
        (["lora", "--r", "16", "--modulos", "q_proj"], "hace falta uno de los argumentos --config --modelo"),
        (["warmp"], "subcomando desconocido: 'warmp' (elige entre"),
        (["warmup", "--lr", "dos", "--pasos-totales", "10"], "--lr debe ser un número"),
        (["vram", "--parametros", "7e9", "--lote", "ocho", "--secuencia", "8"], "--lote debe ser un número entero"),
    ],
)
def test_errores_de_argparse_en_espanol(argumentos, texto):
    r = _tutor(*argumentos)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("uso: tutor"), r.stderr
    assert texto in r.stderr, r.stderr
    _sin_ingles(r.stdout + r.stderr)


def test_traduccion_y_numeros_negativos_sin_proceso():
    from tutor_lib.comandos.analizador import NUMERO_NEGATIVO, traducir_error

    assert traducir_error("argument --lr: expected one argument") == "argumento --lr: falta su valor"
    assert traducir_error("argument --r: debe ser positivo") == "--r debe ser positivo"
    assert traducir_error("un mensaje que no es de argparse") == "un mensaje que no es de argparse"
    for valor in ("-3", "-3.5", "-.5", "-7e9", "-1E-5", "-6.7B", "-inf", "-nan"):
        assert NUMERO_NEGATIVO.match(valor), valor
    for opcion in ("-h", "--lr", "--pasos-totales", "-", "--"):
        assert not NUMERO_NEGATIVO.match(opcion), opcion


# --------------------------------------------------------------------------
# Números que deben ser positivos
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argumentos,texto",
    [
        (["vram", "--parametros", "-7e9"], "--parametros debe ser un número positivo"),
        (["vram", "--parametros", "0"], "--parametros debe ser un número positivo"),
        (["vram", "--parametros", "-6.7B"], "--parametros debe ser un número positivo"),
        (["vram", "--parametros", "7e9", "--lote", "0", "--secuencia", "512"], "--lote debe ser un entero ≥ 1 (un número positivo)"),
        (["vram", "--parametros", "7e9", "--lote", "4", "--secuencia", "-512"], "--secuencia debe ser un entero ≥ 1"),
        (["vram", "--parametros", "7e9", "--metodo", "lora", "--r", "-8"], "--r debe ser un entero ≥ 1"),
        (["warmup", "--lr", "2e-5", "--pasos", "-3"], "--pasos-totales debe ser un entero ≥ 1 (un número positivo)"),
        (["warmup", "--lr", "-2e-5", "--pasos-totales", "10"], "--lr debe ser un número positivo"),
        (["warmup", "--lr", "0", "--pasos-totales", "10"], "--lr debe ser un número positivo"),
        (["warmup", "--lr", "1e-3", "--ejemplos", "100", "--lote", "-16", "--epocas", "1"], "--lote debe ser un entero ≥ 1"),
        (["warmup", "--lr", "1e-3", "--ejemplos", "100", "--lote", "16", "--epocas", "-1e0"], "--epocas debe ser un número positivo"),
        (["warmup", "--lr", "1e-3", "--pasos-totales", "10", "--warmup", "-3"], "--warmup no puede ser negativo"),
        (["lora", "--config", "config.json", "--r", "-4", "--modulos", "q_proj"], "--r debe ser un entero ≥ 1"),
    ],
)
def test_numeros_no_positivos(argumentos, texto):
    r = _tutor(*argumentos)
    assert r.returncode == 2, r.stderr
    assert texto in r.stderr, r.stderr
    assert "se esperaba un valor" not in r.stderr and "no es un número" not in r.stderr
    _sin_ingles(r.stdout + r.stderr)


# --------------------------------------------------------------------------
# tutor warmup: avisos y pie de la tabla
# --------------------------------------------------------------------------


def test_warmup_mas_largo_que_el_entrenamiento_avisa():
    r = _tutor("warmup", "--lr", "2e-5", "--pasos-totales", "10", "--warmup", "30")
    assert r.returncode == 0, r.stderr
    assert "tutor warmup: aviso: el warmup (30 pasos) no es más corto que el entrenamiento (10 pasos)" in r.stderr
    assert "nunca llega a --lr" in r.stderr
    assert "Todo el entrenamiento es warmup" in r.stdout
    r = _tutor("warmup", "--lr", "2e-5", "--pasos-totales", "10", "--warmup", "30", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["pasos_warmup"] == 30
    assert "aviso" in r.stderr


def test_warmup_sin_warmup_no_habla_del_warmup():
    r = _tutor("warmup", "--lr", "2e-5", "--pasos-totales", "20")
    assert r.returncode == 0, r.stderr
    assert "usa 0" not in r.stdout and "Durante el warmup" not in r.stdout
    assert "Cada fila es un paso de optimización" in r.stdout
    assert r.stderr == ""
    r = _tutor("warmup", "--lr", "2e-5", "--pasos-totales", "20", "--warmup", "5")
    assert "Durante el warmup (5 pasos) la tasa sube desde 0.000 (paso 0) hasta 2e-5." in r.stdout
    assert r.stderr == ""
    r = _tutor("warmup", "--lr", "2e-5", "--pasos-totales", "20", "--warmup", "5", "--tipo", "constant")
    assert "ignora el warmup" in r.stderr and "constant_with_warmup" in r.stderr


def test_warmup_puro_es_identico_al_scheduler_de_transformers():
    """Las fórmulas en Python puro de ``tutor warmup`` dan los mismos floats que el scheduler real."""
    from tutor_lib import warmup, warmup_puro

    opciones = {
        "cosine": [{}, {"num_cycles": 1.5}],
        "cosine_with_restarts": [{}, {"num_cycles": 3}],
        "polynomial": [{}, {"lr_end": 1e-6, "power": 2.0}],
        "inverse_sqrt": [{}, {"timescale": 7}],
        "cosine_with_min_lr": [{}, {"min_lr": 1e-6}, {"min_lr_rate": 0.3, "num_cycles": 0.7}],
        "cosine_warmup_with_min_lr": [{}, {"min_lr": 2e-6}, {"warmup_lr_rate": 0.1, "min_lr_rate": 0.05}],
        "warmup_stable_decay": [
            {}, {"num_stable_steps": 5, "decay_type": "linear"},
            {"warmup_type": "cosine", "decay_type": "1-sqrt", "min_lr_ratio": 0.1},
            {"warmup_type": "1-sqrt", "num_decay_steps": 7},
        ],
    }
    casos = 0
    for tipo in warmup.TIPOS:
        assert warmup_puro.OPCIONES_VALIDAS[tipo] == warmup.opciones_validas(tipo), tipo
        for extra in opciones.get(tipo, [{}]):
            for total, pasos_warmup in [(1, 0), (10, 0), (10, 3), (37, 0.1), (20, 25), (50, 50), (7, 1)]:
                for lr in (2e-5, 0.3):
                    real = warmup.tasas_de_aprendizaje(lr, total, pasos_warmup, tipo, **extra)
                    puro = warmup_puro.tasas_de_aprendizaje(lr, total, pasos_warmup, tipo, **extra)
                    assert puro == real, (tipo, extra, total, pasos_warmup, lr)
                    casos += 1
    assert casos > 200
    with pytest.raises(TypeError, match="no acepta la opción"):
        warmup_puro.tasas_de_aprendizaje(1e-3, 10, 0, "linear", num_cycles=2)


# --------------------------------------------------------------------------
# tutor vram / lora --modelo sin red; tabla sin filas repetidas
# --------------------------------------------------------------------------


@pytest.mark.parametrize("subcomando,extra,sugerencias", [
    ("vram", [], ("--config", "--parametros")),
    ("lora", ["--r", "16", "--modulos", "q_proj"], ("--config",)),
])
def test_modelo_desconocido_sin_red_falla_al_momento(subcomando, extra, sugerencias):
    inicio = time.perf_counter()
    r = _tutor(subcomando, "--modelo", "fulano/modelo-inventado-para-pruebas", *extra, entorno={"HF_HUB_OFFLINE": "1"})
    segundos = time.perf_counter() - inicio
    print(f"tutor {subcomando} --modelo (sin red): {segundos:.2f} s")
    assert r.returncode != 0
    assert "No pude obtener la configuración de 'fulano/modelo-inventado-para-pruebas'" in r.stderr
    assert "no está en la caché local" in r.stderr and "Qwen/Qwen2.5-0.5B-Instruct" in r.stderr
    assert all(s in r.stderr for s in sugerencias), r.stderr
    assert "Retrying" not in r.stderr
    _sin_ingles(r.stdout + r.stderr)
    assert segundos < 10  # el requisito es < 3 s; el margen evita falsos fallos en una máquina cargada


def _filas_de_la_tabla(texto: str) -> list[str]:
    lineas = texto.splitlines()
    inicio = next(i for i, linea in enumerate(lineas) if linea.startswith("Componente"))
    fin = next(i for i, linea in enumerate(lineas) if linea.startswith("TOTAL"))
    # el nombre va antes de dos espacios o más (los bytes llevan espacios de miles: «112 000 000 000»)
    return [re.split(r"\s{2,}", linea.strip())[0] for linea in lineas[inicio + 1: fin + 1] if not linea.startswith("---")]


def test_vram_sin_filas_repetidas_y_modelo_del_curso_sin_red():
    r = _tutor("vram", "--parametros", "7e9")
    assert r.returncode == 0, r.stderr
    filas = _filas_de_la_tabla(r.stdout)
    assert len(filas) == len(set(filas)) and filas.count("Activaciones (estimación)") == 1, filas
    # un modelo que trae el curso funciona sin red (construye el modelo en «meta»: importa torch)
    r = _tutor("vram", "--modelo", "Qwen/Qwen2.5-0.5B-Instruct", "--metodo", "qlora", "--lote", "4",
               "--secuencia", "512", entorno={"HF_HUB_OFFLINE": "1"})
    assert r.returncode == 0, r.stderr
    filas = _filas_de_la_tabla(r.stdout)
    assert len(filas) == len(set(filas)), filas
    assert {"Pesos", "Estado estático", "Activaciones (estimación)", "TOTAL"} <= set(filas)
    assert "kernels" not in r.stderr  # el aviso de bitsandbytes, en inglés, no llega al estudiante
    _sin_ingles(r.stdout + r.stderr)


def test_modelo_en_la_cache_sigue_funcionando_sin_red(tmp_path):
    """Sin red, un modelo que ya está en la caché de Hugging Face no se rechaza."""
    config = {
        "model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 64, "intermediate_size": 128,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 256,
    }
    repo = tmp_path / "models--fulano--llama-en-cache"
    instantanea = repo / "snapshots" / ("0" * 40)
    instantanea.mkdir(parents=True)
    (instantanea / "config.json").write_text(json.dumps(config), encoding="utf-8")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("0" * 40, encoding="utf-8")
    r = _tutor("lora", "--modelo", "fulano/llama-en-cache", "--r", "4", "--modulos", "q_proj", "--json",
               entorno={"HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path)})
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["parametros_entrenables"] == 2 * 4 * (64 + 64)


# --------------------------------------------------------------------------
# tutor diagnosticar: cada cifra con su nombre
# --------------------------------------------------------------------------


def test_diagnosticar_nombra_sus_cifras():
    from tutor_lib.curvas import _fmt, diagnosticar, leer_curvas

    ruta = CURVAS / "sobreajuste_01.json"
    esperado = diagnosticar(leer_curvas(ruta))
    r = _tutor("diagnosticar", str(ruta))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("Diagnóstico: sobreajuste")
    minima = _fmt(esperado.evidencia["validacion_minima"])
    assert f"Pérdida de validación: 25 evaluaciones; mínima {minima} en el paso {esperado.mejor_paso}" in r.stdout
    assert "Pérdida de entrenamiento: 60 registros" in r.stdout and "nivel inicial" in r.stdout
    assert f"Mejor paso (el de menor pérdida de validación): {esperado.mejor_paso}." in r.stdout
    assert "Qué puedes hacer:" in r.stdout
    r = _tutor("diagnosticar", str(ruta), "--json")
    assert set(json.loads(r.stdout)) == {"categoria", "explicacion", "remedios", "mejor_paso"}


# --------------------------------------------------------------------------
# Rapidez: los caminos de aritmética no importan torch
# --------------------------------------------------------------------------

_SONDA = """
import contextlib, io, sys
from tutor_lib.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    for argumentos in {casos!r}:
        try:
            main(argumentos)
        except SystemExit:
            pass
print(sorted(m for m in ("torch", "transformers", "bitsandbytes", "peft") if m in sys.modules))
"""


def test_warmup_vram_y_ayudas_no_importan_torch():
    casos = [
        ["warmup", "--lr", "2e-5", "--ejemplos", "1000", "--lote", "16", "--epocas", "3", "--warmup", "0.1",
         "--tipo", "cosine_with_min_lr", "--opcion", "min_lr_rate=0.2"],
        ["vram", "--parametros", "7e9", "--metodo", "qlora", "--lote", "4", "--secuencia", "512", "--gpu", "T4"],
        ["configurar", "--metodo", "completo", "--parametros", "66e6", "--ejemplos", "3668", "--lr", "2e-5",
         "--lote", "16", "--epocas", "3"],
        ["lora", "--help"],
        ["configurar", "--help"],
    ]
    r = subprocess.run([sys.executable, "-c", _SONDA.format(casos=casos)], capture_output=True, text=True,
                       timeout=120, cwd=RAIZ)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]", r.stdout


def test_tutor_warmup_responde_rapido():
    inicio = time.perf_counter()
    r = _tutor("warmup", "--lr", "2e-5", "--pasos-totales", "500", "--warmup", "100")
    segundos = time.perf_counter() - inicio
    print(f"tutor warmup: {segundos:.2f} s")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert segundos < 5  # ~0.3 s medido; el requisito es ≤ 2 s, el margen evita falsos fallos en una máquina cargada


# --------------------------------------------------------------------------
# Las cifras, en el formato de course/GLOSARIO.md
# --------------------------------------------------------------------------


@pytest.mark.parametrize("argumentos", [
    ("warmup", "--lr", "2e-5", "--pasos-totales", "500", "--warmup", "0.06"),
    ("vram", "--parametros", "7e9", "--metodo", "qlora", "--lote", "4", "--secuencia", "512", "--gpu", "T4"),
    ("lora", "--modelo", "Qwen/Qwen2.5-0.5B-Instruct", "--r", "16", "--modulos", "all-linear"),
    ("configurar", "--metodo", "lora", "--parametros", "1.2e9", "--ejemplos", "20000", "--lr", "2e-4", "--lote", "8",
     "--epocas", "3", "--gpu", "T4"),
    ("diagnosticar", str(CURVAS / "sobreajuste_01.json")),
], ids=lambda a: a[0])
def test_cifras_en_el_formato_del_glosario(argumentos):
    """Miles con espacio, punto decimal, «85.9 %» y GiB: la misma convención que las lecciones."""
    from tutor_lib.formato import infracciones

    r = _tutor(*argumentos, entorno={"HF_HUB_OFFLINE": "1"})
    assert r.returncode == 0, r.stderr
    assert re.search(r"\d", r.stdout), r.stdout  # hay cifras que revisar
    assert not infracciones(r.stdout), "\n".join(infracciones(r.stdout)) + "\n\n" + r.stdout


def test_una_tuberia_que_se_cierra_antes_no_da_traceback():
    """``tutor vram ... --json | head -c 50``: el lector cierra la tubería; tutor termina sin traceback.

    El extremo de lectura se cierra antes de arrancar: la primera escritura de tutor falla siempre.
    """
    lectura, escritura = os.pipe()
    os.close(lectura)
    try:
        r = subprocess.run([sys.executable, "-m", "tutor_lib", "vram", "--parametros", "7e9", "--json"],
                           stdout=escritura, stderr=subprocess.PIPE, cwd=Path(__file__).resolve().parents[1],
                           timeout=60)
    finally:
        os.close(escritura)
    assert r.returncode == 0, r.stderr.decode()
    assert b"Traceback" not in r.stderr and b"BrokenPipe" not in r.stderr, r.stderr.decode()
