"""Memoria por GPU con varias GPUs (``tutor_lib.vram.particion``, ``tutor vram --gpus --estrategia``).

Tres referencias externas:

1. **El artículo de ZeRO** (Rajbhandari et al., 2020, *ZeRO: Memory Optimizations Toward Training
   Trillion Parameter Models*, tabla 1): memoria de los estados del modelo por GPU para un modelo de
   7.5 mil millones de parámetros con Adam en precisión mixta (K = 12), según el grado de paralelismo
   de datos. Con ``contabilidad="zero"`` la calculadora debe dar esas cifras, redondeadas como allí.
2. **Los estimadores de DeepSpeed** (0.19.8, ``estimate_zero2_model_states_mem_needs`` en
   ``deepspeed/runtime/zero/stage_1_and_2.py`` y ``estimate_zero3_model_states_mem_needs`` en
   ``deepspeed/runtime/zero/stage3.py``, sin descarga a la CPU). DeepSpeed no está entre las
   dependencias del curso; sus fórmulas están transcritas en ``benchmarks/b_vram.py`` (la misma tabla de
   benchmarks las usa) y se comprobaron aquí contra las
   funciones reales (instaladas aparte, 5 de diciembre de 2026): 7e9 parámetros en 4 GPUs dan
   45 500 000 000 bytes (ZeRO-2) y, con una capa mayor de 5e8, 33 500 000 000 (ZeRO-3). Si
   ``deepspeed`` se puede importar, la prueba llama también a las funciones de verdad.
3. **FSDP de PyTorch, medido**: dos procesos gloo de verdad (``torchrun``) parten el Llama diminuto
   con ``fully_shard`` y cada uno mide su partición con ``vram.medir_estado``; la calculadora acierta
   dentro del 1 %.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.b_vram import estimadores_deepspeed
from benchmarks.b_vram import zero2_deepspeed as _deepspeed_zero2
from benchmarks.b_vram import zero3_deepspeed as _deepspeed_zero3
from tutor_lib import vram

RAIZ = Path(__file__).resolve().parents[1]

# Tabla 1 del artículo de ZeRO, columna de 7.5B parámetros: GB por GPU (P_os, P_os+g, P_os+g+p).
TABLA_1_ZERO = {
    1: (120, 120, 120),
    4: (52.5, 41.3, 30),
    16: (35.6, 21.6, 7.5),
    64: (31.4, 16.6, 1.88),
    256: (30.4, 15.4, 0.47),
    1024: (30.1, 15.1, 0.12),
}


def _redondeo_como_la_tabla(valor_gb: float, publicado: float) -> float:
    """Redondea como el artículo: mitades hacia arriba (41.25 → 41.3), con los decimales que imprime."""
    from decimal import ROUND_HALF_UP, Decimal

    decimales = len(str(publicado).split(".")[1]) if "." in str(publicado) else 0
    return float(Decimal(repr(valor_gb)).quantize(Decimal(1).scaleb(-decimales), rounding=ROUND_HALF_UP))


@pytest.mark.parametrize("n", sorted(TABLA_1_ZERO))
def test_reproduce_la_tabla_1_del_articulo_de_zero(n):
    for estrategia, publicado in zip(("zero1", "zero2", "zero3"), TABLA_1_ZERO[n]):
        e = vram.estimar_memoria(7.5e9, contabilidad="zero", gpus=n, estrategia=estrategia)
        assert e.gpus == n and e.estrategia == estrategia
        assert _redondeo_como_la_tabla(e.estatica_bytes / vram.GB, publicado) == publicado, (n, estrategia)
    base = vram.estimar_memoria(7.5e9, contabilidad="zero", gpus=n, estrategia="ddp")
    assert base.estatica_bytes == 120 * vram.GB  # DDP: nada se divide


def test_las_formulas_transcritas_de_deepspeed_dan_lo_que_dieron_sus_funciones():
    assert _deepspeed_zero2(7_000_000_000, 4) == 45_500_000_000
    assert _deepspeed_zero3(7_000_000_000, 500_000_000, 4) == 33_500_000_000


CONFIGURACIONES_DEEPSPEED = [(7e9, 2), (7e9, 8), (13e9, 4), (70e9, 8), (70e9, 64)]


@pytest.mark.parametrize("total,gpus", CONFIGURACIONES_DEEPSPEED)
def test_coincide_con_deepspeed_salvo_lo_que_deepspeed_guarda_de_mas(total, gpus):
    """DeepSpeed suma a la cuenta del artículo una partición de gradientes en fp32 (4 B/N por parámetro).

    ZeRO-2: artículo 2 + 14/N bytes por parámetro; DeepSpeed 2 + 18/N (sus comentarios: 2 de gradientes
    en 16 bits + 4 de gradientes fp32 + 4 de pesos fp32 + 8 de Adam). ZeRO-3: artículo 16/N; DeepSpeed
    18/N (sin los gradientes en 16 bits, con los fp32) más 4 B por parámetro de la capa mayor reunida.
    """
    total = int(total)
    capa_mayor = total // 40  # un orden de magnitud típico (embeddings de un Llama); no cambia la diferencia
    zero2 = vram.estimar_memoria(total, contabilidad="zero", gpus=gpus, estrategia="zero2").estatica_bytes
    zero3 = vram.estimar_memoria(total, contabilidad="zero", gpus=gpus, estrategia="zero3").estatica_bytes
    gradientes_fp32 = 4 * total / gpus
    assert abs(zero2 + gradientes_fp32 - _deepspeed_zero2(total, gpus)) <= gpus
    assert abs(zero3 + 2 * total / gpus + 4 * capa_mayor - _deepspeed_zero3(total, capa_mayor, gpus)) <= gpus


def test_con_deepspeed_instalado_las_funciones_reales():
    zero2, zero3, reales = estimadores_deepspeed()
    if not reales:
        pytest.skip("deepspeed no está instalado (no es dependencia del curso): quedan las fórmulas transcritas")
    for total, gpus in CONFIGURACIONES_DEEPSPEED:
        total = int(total)
        assert zero2(total, gpus) == _deepspeed_zero2(total, gpus)
        assert zero3(total, total // 40, gpus) == _deepspeed_zero3(total, total // 40, gpus)


@pytest.mark.parametrize("contabilidad", ["amp", "zero"])
def test_que_divide_cada_estrategia(contabilidad):
    una = vram.estimar_memoria(1e9, precision="mixta", lote=2, secuencia=128, contabilidad=contabilidad)
    for estrategia, divididos in vram.QUE_PARTICIONA.items():
        e = vram.estimar_memoria(1e9, precision="mixta", lote=2, secuencia=128, gpus=4, estrategia=estrategia,
                                 contabilidad=contabilidad)
        assert e.componentes_sin_particion == una.componentes
        for k, v in una.componentes.items():
            esperado = -(-v // 4) if k in divididos else v
            assert e.componentes[k] == esperado, (estrategia, k)
        assert e.activaciones_bytes == una.activaciones_bytes  # el lote es por dispositivo
        assert e.total_bytes == e.estatica_bytes + e.activaciones_bytes
    assert vram.QUE_PARTICIONA["fsdp"] == vram.QUE_PARTICIONA["zero3"]


def test_cada_estrategia_se_cuenta_como_su_motor():
    """Issue 41, punto 1: ZeRO con las cuentas de DeepSpeed (2 + 2 + 12), DDP y FSDP con las de PyTorch."""
    for estrategia in vram.ESTRATEGIAS:
        e = vram.estimar_memoria(7e9, gpus=8, estrategia=estrategia)
        assert e.contabilidad == vram.contabilidad_de(estrategia) == ("zero" if estrategia.startswith("zero") else "amp")
        assert vram.estimar_memoria(7e9, gpus=8, estrategia=estrategia, contabilidad="amp").contabilidad == "amp"
    # el artículo de ZeRO: 7B en 8 GPUs con ZeRO-1, 2·7 + 2·7 + 12·7/8 = 38.5 GB (con las cuentas de PyTorch, 63)
    assert vram.estimar_memoria(7e9, gpus=8, estrategia="zero1").estatica_bytes == 38_500_000_000
    assert vram.estimar_memoria(7e9, gpus=8, estrategia="zero1", contabilidad="amp").estatica_bytes == 63_000_000_000
    # la contabilidad cambia la decisión: 7B en 4 A100 de 40 GB
    caben = {c: [e for e in ("ddp", "zero1", "zero2", "fsdp")
                 if vram.cabe(vram.estimar_memoria(7e9, gpus=4, estrategia=e, contabilidad=c), "A100 40GB")]
             for c in (None, "amp")}
    assert caben[None][0] == "zero2" and caben["amp"][0] == "fsdp"
    # lote_maximo usa la misma contabilidad que estimar_memoria
    comun = dict(parametros=1.5e9, precision="mixta", secuencia=1024, gpus=4, estrategia="zero2")
    assert vram.lote_maximo("A100 40GB", **comun) == vram.lote_maximo("A100 40GB", contabilidad="zero", **comun)
    with pytest.raises(ValueError, match="contabilidad"):
        vram.estimar_memoria(7e9, gpus=8, estrategia="zero1", contabilidad="deepspeed")


def test_comunicacion_por_paso():
    """Anillo: DDP y ZeRO-1/2 mueven 2(N−1)/N veces los gradientes; ZeRO-3 y FSDP, 1.5 veces eso."""
    for n in (1, 2, 8):
        ddp = vram.estimar_memoria(7e9, contabilidad="zero", gpus=n, estrategia="ddp").comunicacion_bytes
        z2 = vram.estimar_memoria(7e9, contabilidad="zero", gpus=n, estrategia="zero2").comunicacion_bytes
        z3 = vram.estimar_memoria(7e9, contabilidad="zero", gpus=n, estrategia="zero3").comunicacion_bytes
        assert ddp == z2 == round(2 * (n - 1) / n * 2 * 7e9)
        assert z3 == round(1.5 * ddp)


def test_lote_maximo_crece_al_partir():
    comun = dict(parametros=1.5e9, precision="mixta", secuencia=1024)
    ddp = vram.lote_maximo("A100 40GB", gpus=4, estrategia="ddp", **comun)
    zero3 = vram.lote_maximo("A100 40GB", gpus=4, estrategia="zero3", **comun)
    assert zero3 > ddp
    assert vram.estimar_memoria(gpu="A100 40GB", lote=ddp, gpus=4, estrategia="ddp", **comun).gpu["cabe"]
    assert not vram.estimar_memoria(gpu="A100 40GB", lote=ddp + 1, gpus=4, estrategia="ddp", **comun).gpu["cabe"]


@pytest.mark.parametrize("argumentos,mensaje", [
    ({"gpus": 0}, "gpus debe ser"),
    ({"gpus": 2.5}, "gpus debe ser"),
    ({"gpus": "dos"}, "gpus debe ser"),
    ({"estrategia": "zero9"}, "estrategia"),
    ({"estrategia": None}, "estrategia"),
])
def test_errores_en_espanol(argumentos, mensaje):
    with pytest.raises((ValueError, TypeError), match=mensaje):
        vram.estimar_memoria(7e9, **argumentos)


def _tutor(*args):
    return subprocess.run([sys.executable, "-m", "tutor_lib", "vram", *args], capture_output=True, text=True,
                          cwd=RAIZ, timeout=120)


def test_cli_gpus_y_estrategia():
    r = _tutor("--parametros", "7e9", "--gpus", "4", "--estrategia", "zero3", "--json")
    assert r.returncode == 0, r.stderr
    datos = json.loads(r.stdout)
    assert datos["gpus"] == 4 and datos["estrategia"] == "zero3"
    assert datos["total_bytes"] == 112_000_000_000 // 4  # 16 B por parámetro entre 4 GPUs
    assert sum(v for k, v in datos["componentes_sin_particion"].items() if k != "activaciones") == 112_000_000_000
    assert datos["comunicacion_bytes"] > 0
    assert datos["contabilidad"] == "zero" and datos["componentes_sin_particion"]["pesos"] == 14_000_000_000
    texto = _tutor("--parametros", "7e9", "--gpus", "4", "--estrategia", "zero3").stdout
    assert "4 GPUs con zero3: cifras POR GPU" in texto
    assert "Contabilidad de la precisión mixta: zero, la de DeepSpeed" in texto and "2 + 2 + 12" in texto
    # --contabilidad manda sobre la del motor; fsdp se cuenta como PyTorch
    for argumentos, contabilidad, estatica in ((["--estrategia", "zero1"], "zero", 38_500_000_000),
                                               (["--estrategia", "zero1", "--contabilidad", "amp"], "amp", 63_000_000_000),
                                               (["--estrategia", "fsdp"], "amp", 14_000_000_000)):
        datos = json.loads(_tutor("--parametros", "7e9", "--gpus", "8", *argumentos, "--json").stdout)
        assert (datos["contabilidad"], datos["estatica_bytes"]) == (contabilidad, estatica), argumentos
    for malos, esperado in ((["--gpus", "0"], "--gpus debe ser un entero"),
                            (["--estrategia", "zero9"], "elige entre 'ddp'")):
        r = _tutor("--parametros", "7e9", *malos)
        assert r.returncode != 0 and esperado in r.stderr and "Traceback" not in r.stderr, r.stderr


SCRIPT_FSDP = r'''
import json, os, sys
import torch, torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard
from transformers import AutoModelForCausalLM
from tutor_lib import vram

dist.init_process_group("gloo")
torch.manual_seed(0)
modelo = AutoModelForCausalLM.from_pretrained(sys.argv[1], dtype=torch.float32)
malla = init_device_mesh("cpu", (dist.get_world_size(),))
for capa in modelo.model.layers:
    fully_shard(capa, mesh=malla)
fully_shard(modelo, mesh=malla)
optimizador = torch.optim.AdamW(modelo.parameters(), lr=1e-3)
ids = torch.randint(0, modelo.config.vocab_size, (2, 16))
modelo(input_ids=ids, labels=ids).loss.backward()
optimizador.step()
medido = vram.medir_estado(modelo, optimizador)
fila = json.dumps({"rank": dist.get_rank(), "mundo": dist.get_world_size(), **medido})
os.write(1, f"MEDIDO {fila}\n".encode())  # una sola escritura: las líneas de los dos procesos no se mezclan
dist.destroy_process_group()
'''


@pytest.mark.timeout(300)
def test_fsdp_de_verdad_en_dos_procesos_coincide_con_la_calculadora(tmp_path):
    from tutor_lib import recursos

    ruta = recursos.construir_llama_diminuto()
    script = tmp_path / "fsdp.py"
    script.write_text(SCRIPT_FSDP)
    env = {**os.environ, "PYTHONPATH": str(RAIZ), "GLOO_SOCKET_IFNAME": "lo", "OMP_NUM_THREADS": "1",
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_VERBOSITY": "error"}
    r = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
                        str(script), str(ruta)], capture_output=True, text=True, timeout=240, env=env, cwd=tmp_path)
    filas = [json.loads(l.split("MEDIDO ", 1)[1]) for l in r.stdout.splitlines() if "MEDIDO " in l]
    assert r.returncode == 0 and len(filas) == 2, r.stdout[-1500:] + r.stderr[-3000:]
    assert sorted(f["rank"] for f in filas) == [0, 1] and all(f["mundo"] == 2 for f in filas)

    from transformers import AutoConfig

    estimado = vram.estimar_memoria(AutoConfig.from_pretrained(ruta), precision="fp32", gpus=2, estrategia="fsdp")
    entero = vram.estimar_memoria(AutoConfig.from_pretrained(ruta), precision="fp32")
    for f in filas:
        for k in ("pesos", "gradientes", "estados_optimizador"):
            assert abs(f[k] - estimado.componentes[k]) <= 0.01 * estimado.componentes[k], (k, f[k], estimado.componentes[k])
            # y de verdad está partido: cada proceso guarda cerca de la mitad
            assert f[k] < 0.55 * entero.componentes[k], (k, f[k], entero.componentes[k])
