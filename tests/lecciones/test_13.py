"""Pruebas de lessons/13_mas_alla_de_una_gpu.ipynb.

Las primeras son rápidas: compilan los scripts que la lección escribe con ``%%writefile`` y prueban su
función ``comprobar_procesos`` con salidas inventadas (un grupo bien armado, un solo proceso, procesos
independientes), para que la comprobación que se le enseña a quien estudia pueda fallar de verdad.

La última ejecuta el notebook una vez en modo rápido y lee sus salidas **sin fiarse de los veredictos
que imprime**: cuenta ella misma los procesos (pid), los rangos y el world size de las etiquetas
``[rango r de N · pid P]`` de cada corrida, compara las pérdidas de 1 y 2 procesos, vuelve a promediar las
pérdidas locales de cada rango, cuenta los bytes del modelo diminuto para los repartos de FSDP2 y ZeRO-1 y
rehace con ``tutor_lib.vram`` la tabla de «¿cuál usar?».
"""

from __future__ import annotations

import ast
import io
import re
from contextlib import redirect_stdout
from pathlib import Path

import nbformat
import pytest
from cuadernos import ENTERO
from cuadernos import a_entero as _a_entero

RAIZ = Path(__file__).resolve().parents[2]
LECCION = RAIZ / "lessons" / "13_mas_alla_de_una_gpu.ipynb"
#: Diferencia de pérdida aceptada entre 1 proceso y 2 procesos (fp32 en la CPU: la misma que la lección).
TOLERANCIA = 1e-5
ETIQUETA = re.compile(r"\[rango (\d+) de (\d+) · pid (\d+)\]")
SCRIPTS = ("ddp_a_mano.py", "entrenar_bucle.py", "entrenar_trainer.py", "quien_soy.py", "repartir.py", "acumular.py",
           "barajar.py", "precision.py", "guardar_repartido.py", "ver_config.py", "nodos.py")


def _celdas_de_codigo():
    return [c for c in nbformat.read(LECCION, as_version=4).cells if c.cell_type == "code"]


def _scripts() -> dict[str, str]:
    """Los scripts que la lección escribe con ``%%writefile {CARPETA}/nombre``."""
    encontrados = {}
    for celda in _celdas_de_codigo():
        primera, _, cuerpo = celda.source.partition("\n")
        if primera.startswith("%%writefile"):
            encontrados[primera.rsplit("/", 1)[-1].strip()] = cuerpo
    return encontrados


@pytest.fixture(scope="module")
def comprobar_procesos():
    """La función ``comprobar_procesos`` tal como la define el notebook."""
    espacio = {"re": re, "ETIQUETA": ETIQUETA}
    for celda in _celdas_de_codigo():
        if "def comprobar_procesos" not in celda.source:
            continue
        for nodo in ast.parse(celda.source).body:
            if isinstance(nodo, ast.FunctionDef) and nodo.name == "comprobar_procesos":
                exec(compile(ast.Module(body=[nodo], type_ignores=[]), str(LECCION), "exec"), espacio)
                return espacio["comprobar_procesos"]
    raise AssertionError("el notebook ya no define comprobar_procesos")


# --------------------------------------------------------------------------
# Sin ejecutar el notebook
# --------------------------------------------------------------------------


def test_la_leccion_escribe_sus_scripts_y_son_python_valido():
    scripts = _scripts()
    assert set(SCRIPTS) <= set(scripts), f"faltan scripts: {set(SCRIPTS) - set(scripts)}"
    for nombre, fuente in scripts.items():
        if not nombre.endswith(".py"):
            continue
        compile(fuente, nombre, "exec")
        assert 'os.write(1, f"[rango {' in fuente, f"{nombre} no etiqueta sus líneas con el rango"
    # lo que la lección promete de cada script
    assert 'dist.init_process_group("nccl" if en_gpu else "gloo")' in scripts["ddp_a_mano.py"]
    assert "dist.all_reduce(p.grad" in scripts["ddp_a_mano.py"] and "p.grad /= procesos" in scripts["ddp_a_mano.py"]
    assert "Accelerator(cpu=a.cpu)" in scripts["entrenar_bucle.py"]
    assert "acelerador.is_main_process" in scripts["entrenar_bucle.py"]
    assert "use_cpu=a.cpu" in scripts["entrenar_trainer.py"]
    assert "trainer.is_world_process_zero()" in scripts["entrenar_trainer.py"]
    assert "acelerador.print(" in scripts["quien_soy.py"]
    assert "fully_shard(" in scripts["repartir.py"] and "ZeroRedundancyOptimizer(" in scripts["repartir.py"]
    assert "modelo.no_sync()" in scripts["acumular.py"] and "acelerador.accumulate(modelo)" in scripts["acumular.py"]
    assert "register_comm_hook" in scripts["acumular.py"]
    assert "muestreador.set_epoch(epoca)" in scripts["barajar.py"]
    assert "MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)" in scripts["precision.py"]
    assert "gradient_checkpointing_enable()" in scripts["precision.py"]
    for pieza in ("full_state_dict=True, cpu_offload=True", "dcp.save(", "dcp.load(", "set_state_dict("):
        assert pieza in scripts["guardar_repartido.py"], pieza
    import yaml

    configuracion = yaml.safe_load(scripts["fsdp2.yaml"])
    assert configuracion["distributed_type"] == "FSDP" and configuracion["fsdp_config"]["fsdp_version"] == 2
    assert configuracion["mixed_precision"] == "bf16" and configuracion["num_processes"] == 2


def _salida(*filas: tuple[int, int, int]) -> str:
    return "\n".join(f"[rango {r} de {n} · pid {pid}] algo" for r, n, pid in filas)


@pytest.mark.parametrize(
    ("filas", "esperado", "frase"),
    [
        ([(0, 2, 10), (1, 2, 11)], True, "✔ un solo entrenamiento"),
        ([(0, 1, 10)], False, "arrancó un solo proceso"),
        ([(0, 1, 10), (0, 1, 11)], False, "2 entrenamientos independientes"),
        ([(0, 2, 10), (0, 2, 11)], False, "no forman un solo grupo"),  # dos procesos que dicen ser el 0
        ([(0, 2, 10), (1, 2, 10)], False, "arrancó un solo proceso"),  # un pid que dice ser dos rangos
    ],
)
def test_comprobar_procesos_detecta_cada_caso(comprobar_procesos, filas, esperado, frase):
    texto = io.StringIO()
    with redirect_stdout(texto):
        resultado = comprobar_procesos(_salida(*filas), 2, "prueba")
    assert resultado is esperado
    assert frase in texto.getvalue()


def _torchrun(carpeta: Path, *argumentos: str) -> str:
    import os
    import socket
    import subprocess
    import sys

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        puerto = s.getsockname()[1]
    entorno = dict(os.environ, OMP_NUM_THREADS="1", GLOO_SOCKET_IFNAME="lo", CUDA_VISIBLE_DEVICES="")
    resultado = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=2", "--master_addr=127.0.0.1",
         f"--master_port={puerto}", *argumentos], cwd=carpeta, env=entorno, capture_output=True, text=True, timeout=300,
    )
    assert resultado.returncode == 0, resultado.stderr[-3000:]
    return resultado.stdout


def test_checkpoint_repartido_reanuda_identico_bit_a_bit(tmp_path):
    """El script de la lección, fuera del notebook: un checkpoint DCP del paso 3 leído por procesos nuevos da, al
    final, los mismos bytes que la corrida que no se detuvo; sin el estado del optimizador, no."""
    import torch

    (tmp_path / "guardar_repartido.py").write_text(_scripts()["guardar_repartido.py"])
    _torchrun(tmp_path, "guardar_repartido.py", "entera", "--carpeta", "g", "--pasos", "5", "--guardar-en", "2")
    # el checkpoint es repartido: un archivo por proceso, más el índice
    assert sorted(p.name for p in (tmp_path / "g" / "checkpoint_paso_2").iterdir()) == [
        ".metadata", "__0_0.distcp", "__1_0.distcp"]
    _torchrun(tmp_path, "guardar_repartido.py", "reanudar", "--carpeta", "g", "--pasos", "5", "--guardar-en", "2")
    entera, reanudada, sin_optimizador = (torch.load(tmp_path / "g" / f"{n}.pt")
                                          for n in ("entera", "reanudada", "sin_optimizador"))
    assert set(entera) == set(reanudada) == {"0.weight", "0.bias", "2.weight", "2.bias"}
    assert entera["0.weight"].shape == (6, 8)  # el estado completo, no la parte de un proceso
    assert all(torch.equal(entera[k], reanudada[k]) for k in entera)
    assert not all(torch.equal(entera[k], sin_optimizador[k]) for k in entera)
    # las pérdidas de los pasos 3 a 5, idénticas; sin el optimizador, el primer paso coincide y después no
    import json

    perdidas = {n: json.loads((tmp_path / "g" / f"{n}.json").read_text())["perdidas"]
                for n in ("entera", "reanudada", "sin_optimizador")}
    assert len(perdidas["entera"]) == 5 and perdidas["reanudada"] == perdidas["entera"][2:]
    assert perdidas["sin_optimizador"][0] == perdidas["entera"][2] != perdidas["sin_optimizador"][1]


# --------------------------------------------------------------------------
# El notebook entero, una vez
# --------------------------------------------------------------------------


def _salidas_de_celda(nb, fragmento: str) -> str:
    """El stdout de la primera celda de código cuyo código contiene ``fragmento``."""
    for celda in nb.cells:
        if celda.cell_type == "code" and fragmento in celda.source:
            return "".join(s.get("text", "") for s in celda.get("outputs", []) if s.get("name") == "stdout")
    raise AssertionError(f"no encontré la celda con «{fragmento}»")


def _grupo(texto: str) -> tuple[set[int], set[int], set[int]]:
    """(pids, rangos, world sizes) de las etiquetas de una corrida."""
    filas = {(int(r), int(n), int(p)) for r, n, p in ETIQUETA.findall(texto)}
    return {p for *_, p in filas}, {r for r, _, _ in filas}, {n for _, n, _ in filas}


def _corridas(texto: str) -> list[str]:
    """Corta la salida de una celda en una parte por comando lanzado (cada una empieza con «$ »)."""
    return [parte for parte in re.split(r"^\$ ", texto, flags=re.M)[1:]]


def _repartida_de_verdad(texto: str, procesos: int = 2) -> None:
    pids, rangos, mundos = _grupo(texto)
    assert len(pids) == procesos, f"esperaba {procesos} procesos distintos; vi {len(pids)}:\n{texto}"
    assert rangos == set(range(procesos)) and mundos == {procesos}, texto


def _perdidas_comparadas(texto: str, nombre: str) -> tuple[list[tuple[float, float]], float]:
    bloque = texto.split(f"{nombre}: 1 proceso frente a 2 procesos", 1)
    assert len(bloque) == 2, f"no encontré la comparación de «{nombre}»"
    pares = [(float(a), float(b)) for a, b in re.findall(r"paso \d+: pérdida ([\d.]+) y ([\d.]+)", bloque[1])[:4]]
    diferencia = float(re.search(r"diferencia máxima de pérdida: ([\d.e+-]+)", bloque[1]).group(1))
    return pares, diferencia


def comprobar_salidas(nb) -> None:
    """Todo lo que la prueba del notebook exige de sus salidas (separado para poder probarlo aparte)."""
    from tutor_lib import recursos, vram

    texto = "".join(
        s.get("text", "") for c in nb.cells if c.cell_type == "code" for s in c.get("outputs", [])
        if s.get("name") == "stdout"
    )
    assert "Modo: rápido" in texto
    assert "Cada corrida: 2 procesos en la CPU, con gloo." in texto

    # 1. DDP a mano: dos procesos, cada uno con su mitad, y el gradiente promediado = el del lote entero.
    ddp = _salidas_de_celda(nb, 'torchrun("ddp_a_mano.py"')
    _repartida_de_verdad(ddp)
    assert "ejemplos 0 a 31" in ddp and "ejemplos 32 a 63" in ddp
    perdidas_mitades = re.findall(r"pérdida de mi parte = ([\d.]+)", ddp)
    assert len(perdidas_mitades) == 2 and perdidas_mitades[0] != perdidas_mitades[1]
    difs = [float(x) for x in re.findall(r"diferencia máxima (?:con el gradiente del lote entero|de los pesos después "
                                         r"del paso): ([\d.e+-]+)", ddp)]
    assert len(difs) == 4 and max(difs) < 1e-6, difs

    # 2. Lote efectivo y warmup: la tabla sale de tutor_lib.warmup y el comando tutor corrió.
    from tutor_lib import warmup

    for n in (1, 2, 4, 8):
        pasos = warmup.pasos_totales(10_000, 8, 1, 2, n)
        assert re.search(rf"^\s+{n}\s+{16 * n}\s+{pasos}\s+{warmup.pasos_de_warmup(0.1, pasos)} pasos", texto, re.M)
    assert "157 pasos de optimización, 16 de warmup" in texto  # tutor warmup --dispositivos 4

    # 3 y 4. Bucle con Accelerate y Trainer: 1 proceso con lote 8 y 2 procesos con lote 4 dan lo mismo.
    for fragmento, nombre in (('torchrun("entrenar_bucle.py"', "bucle con Accelerate"),
                              ('torchrun("entrenar_trainer.py", *comunes', "Trainer")):
        corridas = _corridas(_salidas_de_celda(nb, fragmento))
        assert len(corridas) == 2, f"{nombre}: esperaba dos comandos lanzados"
        uno, dos = corridas
        assert "--nproc_per_node=1" in uno and "--nproc_per_node=2" in dos
        pids, rangos, mundos = _grupo(uno)
        assert len(pids) == 1 and rangos == {0} and mundos == {1}
        _repartida_de_verdad(dos)
        pares, diferencia = _perdidas_comparadas(texto, nombre)
        assert len(pares) == 4 and all(abs(a - b) <= TOLERANCIA for a, b in pares), pares
        assert diferencia <= TOLERANCIA
        # las pérdidas de la corrida de 1 proceso son las que registró esa corrida
        registradas = [float(x) for x in re.findall(r"paso \d+: (?:\d+ secuencias, pérdida local [\d.]+, media |pérdida )"
                                                    r"([\d.]+)", uno)]
        assert registradas == pytest.approx([a for a, _ in pares], abs=1e-6)
        if nombre == "bucle con Accelerate":
            # la «media» de cada rango es el promedio de las pérdidas locales de los dos (all-reduce de verdad)
            for paso in range(1, 5):
                filas = re.findall(rf"paso {paso}: 4 secuencias, pérdida local ([\d.]+), media ([\d.]+)", dos)
                assert len(filas) == 2
                locales = [float(a) for a, _ in filas]
                assert locales[0] != locales[1]
                assert float(filas[0][1]) == float(filas[1][1]) == pytest.approx(sum(locales) / 2, abs=2e-6)

    # 5. Trampa 1: accelerate launch --cpu --num_processes 2 arranca UN proceso (accelerate 1.16).
    trampa1 = _salidas_de_celda(nb, '"accelerate.commands.launch", "--cpu"')
    pids, rangos, mundos = _grupo(trampa1)
    assert len(pids) == 1 and rangos == {0} and mundos == {1}, trampa1
    assert "WORLD_SIZE=sin definir" in trampa1 and "✘ arrancó un solo proceso" in trampa1
    assert "simple_launcher(args)" in _salidas_de_celda(nb, "inspect.getsource(lanzador_accelerate")

    # 6. Trampa 2: torchrun sin cpu=True / use_cpu=True: dos procesos de rango 0 que se creen solos.
    for fragmento in ('torchrun("quien_soy.py", "torchrun_sin_cpu"', '"--salida", "trainer_sin_cpu"'):
        salida = _salidas_de_celda(nb, fragmento)
        pids, rangos, mundos = _grupo(salida)
        assert len(pids) == 2 and rangos == {0} and mundos == {1}, salida
        assert "entrenamientos independientes" in salida
    trainer_sin_cpu = _salidas_de_celda(nb, '"--salida", "trainer_sin_cpu"')
    assert trainer_sin_cpu.count("modo not_parallel") == 2
    primeras = re.findall(r"paso 1: pérdida ([\d.]+)", trainer_sin_cpu)
    assert len(primeras) == 2 and primeras[0] == primeras[1]  # los dos vieron los mismos datos
    (bucle_n,) = [c for c in _corridas(_salidas_de_celda(nb, 'torchrun("entrenar_bucle.py"')) if "bucle_n" in c]
    rango0_paso1 = re.search(r"\[rango 0 de 2 [^\]]*\] paso 1: 4 secuencias, pérdida local ([\d.]+)", bucle_n).group(1)
    assert primeras[0] == rango0_paso1  # cada uno entrenó con lote 4, como el rango 0 de la corrida buena

    # 7. Trampa 3 y su arreglo: con cpu=True, dos procesos; sin cuidado escriben los dos, con cuidado uno.
    _repartida_de_verdad(_salidas_de_celda(nb, 'torchrun("quien_soy.py", "torchrun_con_cpu"'))
    archivos = _salidas_de_celda(nb, '("sin_cuidado.txt", "con_cuidado.txt")')
    assert "sin_cuidado.txt: 2 escrituras" in archivos and "con_cuidado.txt: 1 escritura" in archivos
    assert "checkpoint del rango 1" in archivos.split("con_cuidado.txt")[0]
    assert "checkpoint del rango 1" not in archivos.split("con_cuidado.txt")[1]

    # 8. FSDP2 y ZeRO-1: dos procesos, la misma pérdida que el proceso único, y los bytes de cada rango.
    repartir = _salidas_de_celda(nb, 'torchrun("repartir.py"')
    _repartida_de_verdad(repartir)
    for nombre in ("FSDP2", "ZeRO-1"):
        diferencia = float(re.search(rf"{nombre}: diferencia máxima con la pérdida del proceso único[^:]*: ([\d.e+-]+)",
                                     repartir).group(1))
        assert diferencia <= TOLERANCIA
    from transformers import AutoModelForCausalLM

    modelo = AutoModelForCausalLM.from_pretrained(recursos.construir_llama_diminuto())
    unicos = {p.data_ptr(): p for p in modelo.parameters()}  # el embedding atado cuenta una vez
    bytes_pesos = sum(p.numel() * p.element_size() for p in unicos.values())
    bytes_adamw = 2 * bytes_pesos + 4 * len(unicos)  # m y v en fp32, más un contador step de 4 bytes por tensor
    medido = {}
    for estrategia, componente, rango, bytes_medidos, bytes_calculadora in re.findall(
        rf"^(fsdp|zero1)\s+(pesos|gradientes|estados_optimizador)\s+(\d)\s+({ENTERO})\s+({ENTERO})\s+-?[\d.]+ %$",
        _salidas_de_celda(nb, "estructura = recursos.construir_en_meta"), re.M,
    ):
        medido[(estrategia, componente, int(rango))] = (_a_entero(bytes_medidos), _a_entero(bytes_calculadora))
    assert len(medido) == 12, medido
    for componente, total in (("pesos", bytes_pesos), ("gradientes", bytes_pesos), ("estados_optimizador", bytes_adamw)):
        # FSDP2: cada rango con su parte; la suma de las partes es el total (los step, en cada rango)
        partes = [medido[("fsdp", componente, r)][0] for r in (0, 1)]
        extra = 4 * len(unicos) if componente == "estados_optimizador" else 0  # los step: uno por tensor en cada rango
        assert sum(partes) == total + extra, (componente, partes, total)
        assert max(partes) - min(partes) <= 0.01 * total
        # ZeRO-1: pesos y gradientes completos en cada rango; los estados de AdamW, repartidos por tensores
        if componente == "estados_optimizador":
            zero = [medido[("zero1", componente, r)][0] for r in (0, 1)]
            assert sum(zero) == total and min(zero) < total / 2 < max(zero)
        else:
            assert all(medido[("zero1", componente, r)][0] == total for r in (0, 1))
    # la calculadora, por GPU, dentro del 1 % en FSDP (el contrato de tutor_lib.vram)
    estructura = recursos.construir_en_meta(recursos.cargar_config(str(recursos.construir_llama_diminuto())),
                                            tarea="causal")
    for estrategia in ("fsdp", "zero1"):
        calculo = vram.estimar_memoria(estructura, precision="fp32", gpus=2, estrategia=estrategia)
        for componente in ("pesos", "gradientes", "estados_optimizador"):
            for rango in (0, 1):
                bytes_medidos, bytes_impresos = medido[(estrategia, componente, rango)]
                assert bytes_impresos == calculo.componentes[componente]
                if estrategia == "fsdp" or componente != "estados_optimizador":
                    assert abs(bytes_medidos - bytes_impresos) <= 0.01 * bytes_impresos, (estrategia, componente)

    # Acumulación con DDP: la prueba cuenta los all-reduce de las líneas de cada rango.
    acumular = _salidas_de_celda(nb, 'torchrun("acumular.py"')
    _repartida_de_verdad(acumular)
    cuentas = {}
    for rango, forma, veces, pasos, micro in re.findall(
        r"\[rango (\d) de 2 [^\]]*\] (sin_cuidado|no_sync|accelerate): (\d+) all-reduce en (\d+) pasos de (\d+) micro", acumular
    ):
        cuentas[(int(rango), forma)] = (int(veces), int(pasos), int(micro))
    assert len(cuentas) == 6, cuentas
    for (rango, forma), (veces, pasos, micro) in cuentas.items():
        assert micro > 1 and veces == (pasos * micro if forma == "sin_cuidado" else pasos), (rango, forma, veces)
    difs = [float(x) for x in re.findall(r"diferencia máxima de los pesos con sin_cuidado: ([\d.e+-]+)", acumular)]
    assert len(difs) == 4 and max(difs) < 1e-6, difs

    # set_epoch: sin él, cada rango repite el orden de la época 0; con él, no. Cada época cubre los 12 ejemplos.
    epocas = _salidas_de_celda(nb, 'torchrun("barajar.py"')
    _repartida_de_verdad(epocas)
    vistas = {}
    for rango, forma, resto in re.findall(r"\[rango (\d) de 2 [^\]]*\] (sin|con) set_epoch: (.+)$", epocas, re.M):
        vistas[(int(rango), forma)] = [list(map(int, e.split(": ")[1].split())) for e in resto.split(" | ")]
    assert len(vistas) == 4
    for forma in ("sin", "con"):
        for epoca in range(3):
            assert sorted(vistas[(0, forma)][epoca] + vistas[(1, forma)][epoca]) == list(range(12))
        repetido = [all(orden == vistas[(r, forma)][0] for orden in vistas[(r, forma)]) for r in (0, 1)]
        assert repetido == ([True, True] if forma == "sin" else [False, False]), (forma, vistas)
    assert vistas[(0, "sin")][0] == vistas[(0, "con")][0]  # la época 0 es la misma permutación (seed + 0)

    # FSDP2 con precisión mixta y checkpointing: lo repartido no cambia; bf16 junta la mitad; menos activaciones.
    precision = _salidas_de_celda(nb, 'torchrun("precision.py"')
    _repartida_de_verdad(precision)
    medidas = {}
    for rango, variante, estado, capa, tipo, activ, grad in re.findall(
        rf"\[rango (\d) de 2 [^\]]*\] (fp32|bf16|fp32 \+ checkpointing|bf16 \+ checkpointing): estado repartido "
        rf"({ENTERO}) B, una capa juntada ({ENTERO}) B \((\w+)\), activaciones ({ENTERO}) B .*gradiente en (\w+)",
        precision,
    ):
        medidas[(int(rango), variante)] = (_a_entero(estado), _a_entero(capa), tipo, _a_entero(activ), grad)
    assert len(medidas) == 8, medidas
    for rango in (0, 1):
        fp32, fp32_ck, bf16, bf16_ck = (medidas[(rango, v)] for v in ("fp32", "fp32 + checkpointing", "bf16",
                                                                     "bf16 + checkpointing"))
        assert fp32[0] == fp32_ck[0] == bf16[0] == bf16_ck[0]  # el estado repartido, igual
        assert {m[4] for m in (fp32, fp32_ck, bf16, bf16_ck)} == {"float32"}  # gradientes en fp32
        assert fp32[2] == "float32" and bf16[2] == "bfloat16" and bf16[1] * 2 == fp32[1]
        assert fp32_ck[3] < fp32[3] and bf16[3] < fp32[3] and bf16_ck[3] < bf16[3]

    # Guardar el estado repartido: la trampa guarda la mitad; la corrida reanudada es idéntica a la entera.
    guardar = _salidas_de_celda(nb, 'torchrun("guardar_repartido.py"')
    assert len(_corridas(guardar)) == 3
    for corrida in _corridas(guardar):
        _repartida_de_verdad(corrida)
    assert "DTensor, forma (6, 8), lo que guarda este proceso: (3, 8)" in guardar
    trampa = _salidas_de_celda(nb, 'torch.load(GUARDAR / "solo_rango_0.pt")')
    assert "dice medir (6, 8), pero trae (3, 8)" in trampa and "son las primeras filas del peso completo? sí" in trampa
    assert "solo_rango_0.pt se carga en un modelo sin repartir: no" in trampa
    huellas = dict(re.findall(r"\] (entera|reanudada|sin_optimizador): pérdidas [^;]*; huella (\w+)", guardar))
    assert huellas["entera"] == huellas["reanudada"] != huellas["sin_optimizador"], huellas
    reanudar = _salidas_de_celda(nb, "corridas = {n: json.loads")
    assert "reanudada: pérdidas" in reanudar and "idénticos bit a bit a los de la entera: sí (diferencia máxima 0.0e+00" \
        in reanudar
    assert "sin_optimizador: pérdidas" in reanudar and "idénticos bit a bit a los de la entera: no" in reanudar
    assert re.search(r"checkpoint_paso_3/: \.metadata, __0_0\.distcp, __1_0\.distcp", reanudar)

    # El archivo de Accelerate para FSDP2, lanzado en la CPU: 2 procesos, lo leyeron, y Accelerate armó DDP.
    config = _salidas_de_celda(nb, '"--config_file", "fsdp2.yaml"')
    _repartida_de_verdad(config)
    assert config.count("ACCELERATE_USE_FSDP=true, FSDP_VERSION=2") == 2
    assert config.count("tipo=MULTI_CPU, el modelo es un DistributedDataParallel") == 2
    assert "no FSDP, aunque el archivo lo pide" in config

    # Dos «máquinas» de un proceso: un grupo de 2, GROUP_RANK 0 y 1, LOCAL_RANK 0 en las dos.
    nodos = _salidas_de_celda(nb, '"--nnodes", "2"')
    _repartida_de_verdad(nodos)
    filas = re.findall(r"máquina \(GROUP_RANK\) (\d), LOCAL_RANK (\d), LOCAL_WORLD_SIZE 1; suma de los rangos de todos: (\d)",
                       nodos)
    assert sorted(filas) == [("0", "0", "1"), ("1", "0", "1")], filas

    # 7. La tabla de 7B en 8 GPUs: cada estrategia con la contabilidad de su motor, y ZeRO con la de PyTorch.
    from tutor_lib.formato import memoria

    siete = _salidas_de_celda(nb, "def fila(estrategia")
    motor, con_amp = siete.split("con la contabilidad de PyTorch (amp)")
    filas_siete = re.findall(r"^(ddp|zero1|zero2|zero3|fsdp)\s+(amp|zero)\s+.*?([\d.]+ GiB)\s+([\d.]+ GiB)\s*$", motor, re.M)
    assert [(e, c) for e, c, *_ in filas_siete] == [(e, vram.contabilidad_de(e)) for e in vram.ESTRATEGIAS]
    filas_amp = re.findall(r"^(zero1|zero2|zero3)\s+(amp|zero)\s+.*?([\d.]+ GiB)\s+([\d.]+ GiB)\s*$", con_amp, re.M)
    assert [(e, c) for e, c, *_ in filas_amp] == [(e, "amp") for e in ("zero1", "zero2", "zero3")]
    for estrategia, contabilidad, estatico, _ in filas_siete + filas_amp:
        e = vram.estimar_memoria(7e9, precision="mixta", gpus=8, estrategia=estrategia, contabilidad=contabilidad)
        assert estatico == memoria(e.estatica_bytes), (estrategia, contabilidad, estatico)

    # 9. ¿Cuál usar?: dos tablas de 8 filas (7B y 70B × 1, 2, 4, 8 GPUs), cada celda la estrategia más simple
    # que cabe: la primera con la contabilidad de cada motor, la segunda con la de PyTorch.
    tabla = _salidas_de_celda(nb, "def primera_que_cabe")
    bloques = tabla.split("Todas con la contabilidad de PyTorch (amp)")
    assert len(bloques) == 2, tabla
    orden = ("ddp", "zero1", "zero2", "fsdp")
    gpus_tabla = ("T4", "L4", "A100 40GB", "A100 80GB")
    elegida = {}
    for bloque, contabilidad in zip(bloques, (None, "amp")):
        filas = re.findall(r"^(7B|70B)\s+(\d)\s+(.+)$", bloque, re.M)
        assert [(m, int(n)) for m, n, _ in filas] == [(m, n) for m in ("7B", "70B") for n in (1, 2, 4, 8)]
        for modelo_txt, n, resto in filas:
            parametros, n = (7e9 if modelo_txt == "7B" else 70e9), int(n)
            celdas = re.findall(r"—|(?:una GPU|ddp|zero1|zero2|fsdp) \([\d.]+ GiB\)", resto)
            assert len(celdas) == 4, resto
            for celda, gpu in zip(celdas, gpus_tabla):
                caben = [e for e in orden if vram.cabe(vram.estimar_memoria(
                    parametros, precision="mixta", gpus=n, estrategia=e, contabilidad=contabilidad), gpu)]
                if celda == "—":
                    assert not caben, (modelo_txt, n, gpu, caben)
                else:
                    nombre = celda.split(" (")[0]
                    assert caben and nombre == ("una GPU" if n == 1 else caben[0]), (modelo_txt, n, gpu, celda, caben)
                    if (modelo_txt, n, gpu) == ("7B", 4, "A100 40GB"):
                        elegida[contabilidad] = nombre
        assert all(c == "—" for c in re.findall(r"—|\(", filas[-1][2]))  # un 70B no cabe ni en 8 GPUs de 80 GB
    # la frase final lee las dos tablas (hoy: zero2 con DeepSpeed, fsdp con PyTorch)
    assert f"Un 7B en 4 A100 40GB: {elegida[None]} con las cuentas de cada motor, {elegida['amp']} con las de PyTorch" \
        in tabla
    assert ("la contabilidad cambia la decisión" in tabla) == (elegida[None] != elegida["amp"])
    # más allá de una máquina: el 70B con FSDP en 16 y 32 GPUs, cada línea con la calculadora
    for n in (16, 32):
        e = vram.estimar_memoria(70e9, precision="mixta", gpus=n, estrategia="fsdp")
        cabe = "cabe" if vram.cabe(e, "A100 80GB") else "no cabe"
        assert (f"70B con fsdp en {n} GPUs ({n // 8} máquinas de 8): {memoria(e.estatica_bytes)} de estado por GPU; "
                f"{cabe} en una A100 80GB") in tabla, n


@pytest.mark.cuaderno
@pytest.mark.lento
def test_notebook_lanza_procesos_de_verdad_y_muestra_las_cifras_clave():
    from cuadernos import ejecutar_cuaderno

    nb, segundos = ejecutar_cuaderno(LECCION)
    # El tiempo no se afirma aquí (depende de la máquina): su meta vive en benchmarks/b_lecciones.py.
    comprobar_salidas(nb)


@pytest.mark.cuaderno
@pytest.mark.lento
@pytest.mark.parametrize(
    ("fragmento", "antes", "despues"),
    [
        # el rango 1 del bucle dice ser el 0: ya no hay dos rangos
        ('torchrun("entrenar_bucle.py"', "[rango 1 de 2", "[rango 0 de 2"),
        # la trampa 1 «arrancó» dos procesos
        ('"accelerate.commands.launch", "--cpu"', "WORLD_SIZE=sin definir", "WORLD_SIZE=2"),
        # una pérdida de la corrida repartida se aleja de la del proceso único
        ("def comparar(", "pérdida 7.", "pérdida 8."),
    ],
)
def test_la_lectura_de_salidas_falla_si_las_salidas_mienten(fragmento, antes, despues):
    """comprobar_salidas no es decorativa: una salida alterada la hace fallar."""
    import copy

    from cuadernos import ejecutar_cuaderno

    nb, _ = ejecutar_cuaderno(LECCION)
    alterado = copy.deepcopy(nb)
    celda = next(c for c in alterado.cells if c.cell_type == "code" and fragmento in c.source)
    cambiadas = 0
    for salida in celda.outputs:
        if salida.get("name") == "stdout" and antes in salida["text"]:
            salida["text"] = salida["text"].replace(antes, despues)
            cambiadas += 1
    assert cambiadas, f"la salida de la celda con «{fragmento}» ya no contiene «{antes}»"
    with pytest.raises(AssertionError):
        comprobar_salidas(alterado)
