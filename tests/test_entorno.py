"""Detección del entorno, elección del modo y `tutor doctor` sin red."""

import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from tutor_lib import entorno
from tutor_lib.entorno import InfoGPU

T4 = InfoGPU("Tesla T4", 15_828_320_256, (7, 5))
A100 = InfoGPU("NVIDIA A100-SXM4-40GB", 42_298_834_944, (8, 0))


def test_bf16_solo_desde_ampere():
    assert not T4.soporta_bf16 and A100.soporta_bf16
    assert entorno.precision_recomendada(T4) == "fp16"
    assert entorno.precision_recomendada(A100) == "bf16"
    assert entorno.precision_recomendada(None) == "fp32"


def test_precision_cpu_segun_las_instrucciones(monkeypatch):
    monkeypatch.delenv("TUTOR_PRECISION_CPU", raising=False)
    assert entorno.precision_cpu({"avx2", "avx512f", "avx512_bf16"}) == "bf16"
    assert entorno.precision_cpu({"amx_bf16", "amx_tile"}) == "bf16"
    assert entorno.precision_cpu({"avx2", "avx512f"}) == "fp32"  # bf16 emulado: más lento que fp32
    assert entorno.precision_cpu(set()) == "fp32"
    monkeypatch.setenv("TUTOR_PRECISION_CPU", "FP32")
    assert entorno.precision_cpu({"amx_bf16"}) == "fp32"
    monkeypatch.setenv("TUTOR_PRECISION_CPU", "fp8")
    with pytest.raises(ValueError, match="TUTOR_PRECISION_CPU='fp8' no es válida"):
        entorno.precision_cpu()


def test_banderas_de_esta_cpu_y_autocast_bf16(monkeypatch):
    """Las banderas salen de /proc/cpuinfo de verdad, y si dicen bf16, el autocast de la CPU lo usa."""
    import torch

    monkeypatch.delenv("TUTOR_PRECISION_CPU", raising=False)
    banderas = entorno.banderas_cpu()
    if sys.platform.startswith("linux"):
        with open("/proc/cpuinfo", encoding="utf-8") as archivo:
            linea = next(l for l in archivo if l.startswith("flags"))
        assert banderas == set(linea.split(":", 1)[1].split()) and "fpu" in banderas
    capa = torch.nn.Linear(8, 4)
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=entorno.precision_cpu() == "bf16"):
        salida = capa(torch.ones(2, 8))
    assert salida.dtype == (torch.bfloat16 if entorno.precision_cpu(banderas) == "bf16" else torch.float32)


@pytest.mark.parametrize("valor,esperado", [("rapido", "rapido"), ("Rápido", "rapido"), ("completo", "completo")])
def test_tutor_modo_manda(monkeypatch, valor, esperado):
    monkeypatch.setenv("TUTOR_MODO", valor)
    assert entorno.elegir_modo(gpu=None, hub=False) == esperado


def test_modo_invalido_da_error_en_espanol(monkeypatch):
    monkeypatch.setenv("TUTOR_MODO", "turbo")
    with pytest.raises(ValueError, match="Modo desconocido"):
        entorno.elegir_modo()


def test_completo_solo_con_gpu_y_hub(monkeypatch):
    monkeypatch.delenv("TUTOR_MODO", raising=False)
    assert entorno.elegir_modo(gpu=T4, hub=True) == "completo"
    assert entorno.elegir_modo(gpu=T4, hub=False) == "rapido"
    assert entorno.elegir_modo(gpu=None, hub=True) == "rapido"


def test_hf_hub_offline_evita_toda_conexion(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    entorno.hub_accesible.cache_clear()
    assert entorno.hub_accesible() is False  # el bloqueo de red habría anotado cualquier intento


def test_semilla_repetible():
    import torch

    entorno.fijar_semilla(7)
    a = torch.rand(3)
    entorno.fijar_semilla(7)
    assert torch.equal(a, torch.rand(3))
    with pytest.raises(ValueError, match="semilla"):
        entorno.fijar_semilla(-1)


def test_preparar_muestra_modo_rapido(capsys):
    e = entorno.preparar()
    salida = capsys.readouterr().out
    assert e.modo == "rapido" and "Modo: rápido" in salida and e.dispositivo == "cpu"


def test_modo_rapido_no_deja_que_bitsandbytes_vaya_al_hub(tmp_path):
    """Con red (aquí, bloqueada y anotada) y sin HF_HUB_OFFLINE: tras preparar() en modo rápido,
    importar el Trainer no intenta ninguna conexión ni imprime avisos en inglés de kernels.

    En CPUs con AVX512-BF16, bitsandbytes pide al importarse un kernel del Hub (paquete
    «kernels»); en las demás CPUs no lo pide y esta prueba comprueba solo los avisos.
    """
    registro = tmp_path / "red.log"
    codigo = (
        "import pathlib, sys\n"
        "from tutor_lib import entorno\n"
        "e = entorno.preparar(mostrar=False)\n"
        f"r = pathlib.Path({str(registro)!r})\n"
        "antes = r.read_text().splitlines() if r.exists() else []\n"
        "from transformers import Trainer\n"
        "despues = r.read_text().splitlines() if r.exists() else []\n"
        "print(e.modo, len(antes), despues[len(antes):])\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    env.update(TUTOR_REGISTRO_RED=str(registro), TUTOR_MODO="rapido")
    proc = subprocess.run([sys.executable, "-c", codigo], capture_output=True, text=True, timeout=180, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    modo, antes, nuevos = proc.stdout.split(" ", 2)
    assert modo == "rapido" and int(antes) >= 1, proc.stdout  # la única conexión: la comprobación de preparar()
    assert nuevos.strip() == "[]", f"importar el Trainer intentó salir a la red: {nuevos}"
    for ruido in ("kernels-community", "Skipping publisher", "gemm_4bit"):
        assert ruido not in proc.stderr, proc.stderr[-2000:]


def _tutor(*args, env=None, sin_red=False):
    comando = [sys.executable, "-m", "tutor_lib", *args]
    if sin_red:
        comando = ["unshare", "--net", "--map-root-user", *comando]
    return subprocess.run(comando, capture_output=True, text=True, timeout=120, env={**os.environ, **(env or {})})


@pytest.mark.skipif(shutil.which("unshare") is None, reason="hace falta unshare para quitar la red de verdad")
def test_doctor_sin_ninguna_red_termina_rapido_y_elige_rapido():
    # Sin HF_HUB_OFFLINE ni TUTOR_MODO: doctor debe intentar el Hub, fallar rápido y elegir el modo rápido.
    env = {"HF_HUB_OFFLINE": "", "TRANSFORMERS_OFFLINE": "", "TUTOR_MODO": "", "TUTOR_BLOQUEAR_RED": "0"}
    inicio = time.perf_counter()
    r = _tutor("doctor", "--json", env=env, sin_red=True)
    segundos = time.perf_counter() - inicio
    assert r.returncode == 0, r.stderr
    datos = json.loads(r.stdout)
    assert datos["modo"] == "rapido"
    hub = next(c for c in datos["comprobaciones"] if c["nombre"] == "Hub de Hugging Face")
    assert hub["ok"] is False
    assert segundos < 10, f"tutor doctor tardó {segundos:.1f} s sin red (límite 10 s)"


def test_doctor_texto_en_espanol():
    r = _tutor("doctor")
    assert r.returncode == 0, r.stderr
    assert "[OK]" in r.stdout and "Modo: rápido" in r.stdout and "Todo listo." in r.stdout
