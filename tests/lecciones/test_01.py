"""Lección 01 (el bucle de entrenamiento en PyTorch): lo que enseña es cierto.

Las pruebas rápidas comprueban los hechos sin el notebook (los gradientes se suman, el warmup
lineal empieza en lr = 0, ``zero_grad`` borra, ``EmbeddingBag`` ignora el relleno, transformers ya
no trae ``AdamW``). La prueba marcada ``cuaderno`` ejecuta el notebook una vez (por eso queda fuera
del recorrido general de tests/test_lecciones.py) y comprueba en sus salidas las cifras clave.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

RAIZ = Path(__file__).resolve().parents[2]
CUADERNO = RAIZ / "lessons" / "01_bucle_pytorch.ipynb"


def _celdas(tipo: str) -> str:
    nb = nbformat.read(CUADERNO, as_version=4)
    return "\n".join(c.source for c in nb.cells if c.cell_type == tipo)


# ---------------------------------------------------------------- hechos, sin notebook


def _modelo_diminuto():
    import torch

    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(5, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))


def test_tres_backward_sin_zero_grad_dan_la_suma_de_los_gradientes():
    import torch

    modelo = _modelo_diminuto()
    lotes = [(torch.randn(8, 5), torch.randint(0, 2, (8,))) for _ in range(3)]
    perdida = torch.nn.functional.cross_entropy
    separados = []
    for x, y in lotes:
        modelo.zero_grad()
        perdida(modelo(x), y).backward()
        separados.append([p.grad.clone() for p in modelo.parameters()])
    modelo.zero_grad()
    for x, y in lotes:
        perdida(modelo(x), y).backward()
    for p, grads in zip(modelo.parameters(), zip(*separados)):
        assert torch.allclose(p.grad, sum(grads), atol=1e-7)
        assert not torch.allclose(p.grad, grads[-1])  # no es solo el último


def test_zero_grad_borra_los_gradientes_por_defecto():
    import torch

    modelo = _modelo_diminuto()
    optimizador = torch.optim.AdamW(modelo.parameters(), lr=1e-3)
    modelo(torch.randn(2, 5)).sum().backward()
    optimizador.zero_grad()
    assert all(p.grad is None for p in modelo.parameters())


def test_warmup_lineal_empieza_en_cero_y_el_primer_paso_no_mueve_los_pesos():
    import torch
    from transformers import get_scheduler

    modelo = _modelo_diminuto()
    optimizador = torch.optim.AdamW(modelo.parameters(), lr=0.05, weight_decay=0.01)
    programador = get_scheduler("linear", optimizer=optimizador, num_warmup_steps=2, num_training_steps=10)
    tasas = []
    for _ in range(3):
        antes = [p.detach().clone() for p in modelo.parameters()]
        tasas.append(programador.get_last_lr()[0])
        modelo(torch.randn(4, 5)).pow(2).mean().backward()
        optimizador.step()
        cambio = max((p.detach() - a).abs().max().item() for p, a in zip(modelo.parameters(), antes))
        if len(tasas) == 1:
            assert cambio == 0.0
        else:
            assert cambio > 0
        programador.step()
        optimizador.zero_grad()
    assert tasas == pytest.approx([0.0, 0.025, 0.05])


def test_embeddingbag_con_padding_idx_ignora_el_relleno():
    import torch

    bolsa = torch.nn.EmbeddingBag(10, 3, mode="mean", padding_idx=0)
    con_relleno = bolsa(torch.tensor([[4, 7, 0, 0, 0]]))
    sin_relleno = bolsa(torch.tensor([[4, 7]]))
    assert torch.allclose(con_relleno, sin_relleno)


def test_transformers_ya_no_trae_adamw():
    import transformers

    assert not hasattr(transformers, "AdamW")
    with pytest.raises(ImportError):
        from transformers import AdamW  # noqa: F401


def test_cuaderno_usa_apis_actuales_y_los_dos_modos():
    codigo = _celdas("code")
    for viejo in ("torch_dtype", "evaluation_strategy", "from transformers import AdamW", "bf16=True", "warmup_ratio"):
        assert viejo not in codigo, viejo
    for necesario in (
        "get_scheduler(",
        "optimizador.zero_grad()",
        "torch.no_grad()",
        "modelo.eval()",
        "Accelerator(mixed_precision=",
        "acelerador.prepare(",
        "acelerador.backward(",
        "gather_for_metrics",
        "ENTORNO.precision",
        'ENTORNO.modo == "rapido"',
        "recursos.cargar_clasificador",
        'recursos.cargar_dataset("resenas")',
        "torch.allclose(",
    ):
        assert necesario in codigo, necesario
    markdown = _celdas("markdown")
    assert "## Lo que aprendiste" in markdown and "## Autoevaluación" in markdown


# ---------------------------------------------------------------- el notebook, una vez


def _numero(patron: str, texto: str) -> float:
    encontrado = re.search(patron, texto)
    assert encontrado, f"no encontré {patron!r} en las salidas"
    return float(encontrado.group(1).replace(" ", ""))


@pytest.mark.cuaderno
def test_cuaderno_muestra_las_cifras_calculadas():
    from cuadernos import ejecutar_cuaderno, textos_de_salida

    nb, segundos = ejecutar_cuaderno(CUADERNO)
    texto = textos_de_salida(nb)
    assert "Modo: rápido" in texto
    # El tiempo no se afirma aquí (depende de la máquina): su meta vive en benchmarks/b_lecciones.py.

    # los cinco pasos: con warmup, la primera iteración usa lr = 0 y no mueve ningún peso
    assert "3. optimizer.step()   con lr = 0: el peso que más cambió se movió 0\n" in texto
    assert "4. scheduler.step()   lr: 0 → 0.025" in texto
    assert "5. zero_grad()        gradientes: None" in texto

    # model.eval() controla el dropout; torch.no_grad() controla el grafo
    filas = {
        (m.group(1), m.group(2)): (m.group(3), m.group(4), m.group(5))
        for m in re.finditer(r"model\.(train|eval)\(\)\s+(activos|torch\.no_grad\(\))\s+(sí|no)\s+(sí|no)\s+([\d.]+) MiB", texto)
    }
    assert len(filas) == 4, filas
    assert filas[("train", "activos")][:2] == ("no", "sí")
    assert filas[("train", "torch.no_grad()")][:2] == ("no", "no")
    assert filas[("eval", "activos")][:2] == ("sí", "sí")
    assert filas[("eval", "torch.no_grad()")][:2] == ("sí", "no")
    assert filas[("train", "torch.no_grad()")][2] == filas[("eval", "torch.no_grad()")][2] == "0.0"
    assert float(filas[("eval", "activos")][2]) > 1  # más de 1 MiB guardado

    # la sección 5 ajusta el transformer del curso (no el clasificador diminuto): una época basta para que
    # acierte «la mayoría», como dice la prosa, y la pérdida de validación baja
    parametros = _numero(r"(?m)^BertForSequenceClassification: ([\d ]+) parámetros", texto)
    assert parametros > 100e6, parametros
    antes = _numero(r"antes de entrenar:\s+exactitud ([\d.]+) %", texto)
    despues = _numero(r"después de entrenar: exactitud ([\d.]+) %", texto)
    assert 40 <= antes <= 60 and despues >= 70 and despues >= antes + 15, (antes, despues)
    perdida_antes = _numero(r"antes de entrenar:.*pérdida ([\d.]+)", texto)
    perdida_despues = _numero(r"después de entrenar:.*pérdida ([\d.]+)", texto)
    assert perdida_despues < perdida_antes

    # acumulación de gradientes comprobada con torch.allclose
    assert re.search(r"torch\.allclose\(acumulado, suma a mano\):\s+True", texto)
    suma = _numero(r"norma de la suma a mano:\s+([\d.]+)", texto)
    acumulado = _numero(r"norma tras 3 backward sin zero_grad:\s+([\d.]+)", texto)
    assert suma == acumulado

    # el experimento: los dos entrenamientos rotos se delatan
    tabla = {}
    for nombre in ("correcto", "sin zero_grad()", "lr demasiado alta"):
        m = re.search(re.escape(nombre) + r"\s+\S+\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+) %", texto)
        assert m, nombre
        tabla[nombre] = [float(g) for g in m.groups()]
    assert tabla["sin zero_grad()"][2] > tabla["correcto"][2]  # pérdida de validación
    assert tabla["lr demasiado alta"][2] > tabla["correcto"][2]
    assert tabla["lr demasiado alta"][1] > 2 * tabla["correcto"][1]  # pérdida máxima
    assert tabla["correcto"][3] >= 55  # el clasificador diminuto, bien entrenado, aprende algo

    # Accelerate en la CPU, sin precisión mixta: el mismo entrenamiento que el bucle correcto, paso a paso
    assert "Accelerate: dispositivo cpu, precisión mixta: no" in texto
    assert _numero(r"exactitud con Accelerate: ([\d.]+) %", texto) == tabla["correcto"][3]
    assert _numero(r"paso a paso: ([\d.e+-]+)", texto) < 1e-6
