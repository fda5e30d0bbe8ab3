"""Deriva de APIs: cada argumento con nombre que los notebooks pasan a transformers, trl, peft,
datasets o accelerate existe en la versión instalada, y ningún argumento eliminado aparece.

Se analiza el código de las celdas (sin ejecutarlo) con ``ast``.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
from pathlib import Path

import nbformat
import pytest

RAIZ = Path(__file__).resolve().parents[1]
CUADERNOS = (
    sorted(RAIZ.glob("lessons/*.ipynb"))
    + sorted(RAIZ.glob("solutions/*/*.ipynb"))
    + sorted(RAIZ.glob("exercises/*/*.ipynb"))
)

#: Argumentos que transformers 5 / trl 1 eliminaron o renombraron (ver ../shared/seeds/README.md).
#: Los de cuantización solo están prohibidos en ``from_pretrained`` (en ``BitsAndBytesConfig`` son los correctos).
SOLO_EN_FROM_PRETRAINED = {"load_in_4bit", "load_in_8bit"}
ELIMINADOS = {
    "evaluation_strategy": "eval_strategy",
    "warmup_ratio": "warmup_steps (float < 1)",
    "torch_dtype": "dtype",
    "logging_dir": "(eliminado)",
    "no_cuda": "use_cpu",
    "max_seq_length": "max_length",
    "group_by_length": 'train_sampling_strategy="group_by_length"',
    "load_in_4bit": "quantization_config=BitsAndBytesConfig(...)",
    "load_in_8bit": "quantization_config=BitsAndBytesConfig(...)",
}


def _callables() -> dict[str, object]:
    import accelerate
    import datasets
    import peft
    import transformers
    import trl

    nombres = {
        transformers: [
            "TrainingArguments", "Trainer", "DataCollatorWithPadding", "DataCollatorForLanguageModeling",
            "EarlyStoppingCallback", "BitsAndBytesConfig", "get_scheduler", "pipeline",
        ],
        trl: ["SFTConfig", "SFTTrainer", "DPOConfig", "DPOTrainer"],
        peft: ["LoraConfig", "get_peft_model", "prepare_model_for_kbit_training", "PeftModel"],
        datasets: ["load_dataset"],
        accelerate: ["Accelerator"],
    }
    return {n: getattr(m, n) for m, lista in nombres.items() for n in lista if hasattr(m, n)}


def _parametros_validos(objeto) -> set[str] | None:
    """Nombres aceptados, o None si acepta **kwargs arbitrarios (no se puede comprobar)."""
    campos = {f.name for f in dataclasses.fields(objeto)} if dataclasses.is_dataclass(objeto) else set()
    try:
        firma = inspect.signature(objeto)
    except (TypeError, ValueError):
        return campos or None
    if any(p.kind is p.VAR_KEYWORD for p in firma.parameters.values()):
        return None
    return set(firma.parameters) | campos


def _codigo(ruta: Path) -> str:
    nb = nbformat.read(ruta, as_version=4)
    lineas = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        primera = cell.source.split("\n", 1)[0].strip()
        if primera.startswith("%%writefile") and not primera.endswith(".py"):
            continue  # un archivo que no es Python (el YAML de Accelerate de la lección 13)
        for linea in cell.source.splitlines():
            limpia = linea.lstrip()
            # las líneas mágicas de IPython (!pip, %timeit) no son Python: se vuelven «pass»
            sangria = linea[: len(linea) - len(limpia)]
            lineas.append(sangria + "pass" if limpia.startswith(("!", "%")) else linea)
        lineas.append("")
    return "\n".join(lineas)


def _llamadas(arbol):
    for nodo in ast.walk(arbol):
        if isinstance(nodo, ast.Call):
            f = nodo.func
            nombre = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            yield nombre, nodo


#: Una llamada que muestra a propósito el error de una API vieja lleva este comentario en su línea.
MARCA_A_PROPOSITO = "# API vieja a propósito"


def test_hay_cuadernos_que_revisar():
    assert CUADERNOS


@pytest.mark.parametrize("ruta", CUADERNOS, ids=[str(p.relative_to(RAIZ)) for p in CUADERNOS])
def test_argumentos_existen_en_las_versiones_instaladas(ruta):
    codigo = _codigo(ruta)
    lineas = codigo.splitlines()
    arbol = ast.parse(codigo)
    conocidos = _callables()
    problemas = []
    for nombre, nodo in _llamadas(arbol):
        if any(MARCA_A_PROPOSITO in lineas[n - 1] for n in range(nodo.lineno, (nodo.end_lineno or nodo.lineno) + 1)):
            continue  # la lección enseña el TypeError de la forma antigua
        for kw in nodo.keywords:
            if kw.arg in ELIMINADOS and (kw.arg not in SOLO_EN_FROM_PRETRAINED or nombre == "from_pretrained"):
                problemas.append(f"{nombre}({kw.arg}=...) ya no existe: usa {ELIMINADOS[kw.arg]}")
        if nombre in conocidos:
            validos = _parametros_validos(conocidos[nombre])
            if validos is None:
                continue
            for kw in nodo.keywords:
                if kw.arg is not None and kw.arg not in validos:
                    problemas.append(f"{nombre}() no acepta el argumento {kw.arg!r} en la versión instalada")
    assert not problemas, f"{ruta.name}:\n" + "\n".join(problemas)


def test_la_deteccion_encuentra_argumentos_viejos(tmp_path):
    """La prueba de arriba no es decorativa: un notebook con APIs viejas falla."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "from transformers import TrainingArguments\n"
            "args = TrainingArguments('x', evaluation_strategy='epoch', inventado=3)\n"
            "TrainingArguments('x', warmup_ratio=0.1)  # API vieja a propósito"
        )
    ]
    ruta = tmp_path / "viejo.ipynb"
    nbformat.write(nb, ruta)
    with pytest.raises(AssertionError) as error:
        test_argumentos_existen_en_las_versiones_instaladas(ruta)
    assert "evaluation_strategy" in str(error.value) and "inventado" in str(error.value)
    assert "warmup_ratio" not in str(error.value)  # la línea marcada se respeta
