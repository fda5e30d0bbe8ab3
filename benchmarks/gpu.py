"""``python -m benchmarks gpu``: el modo completo de cada lección, paso a paso, en una GPU con CUDA (issue 13).

El taller del curso no tiene GPU ni Hub, así que el modo completo no se puede correr entero aquí. Este
script prueba lo que sí se puede probar en cualquier máquina con CUDA, sin descargar nada:

* construye cada modelo del modo completo **a tamaño real** desde su ``config.json`` (los trae el curso:
  ``tutor_lib/datos/configs``), con pesos aleatorios;
* para cada fase de entrenamiento de ``tutor_lib.presupuesto_lecciones`` da unos pasos con el mismo código
  de entrenamiento que usa la lección: el ``Trainer`` con la precisión que el curso elige para una T4
  (fp16 con el escalador de gradientes, aunque la tarjeta sepa bf16), gradient checkpointing, LoRA de peft,
  QLoRA con la ruta NF4 de bitsandbytes en CUDA y ``paged_adamw_8bit``, y los ``SFTTrainer`` y
  ``DPOTrainer`` de trl;
* limita el proceso a la memoria utilizable de una T4 (``torch.cuda.set_per_process_memory_fraction``) e
  imprime una fila por fase: pico medido (``torch.cuda.max_memory_allocated``), estimación de
  ``tutor_lib.vram``, su cociente y segundos por paso.

Sin CUDA lo dice en español, comprueba lo que no necesita GPU (los configs se construyen, los presupuestos
se calculan y caben) y termina con código 0. ``tests/test_benchmark_gpu.py`` corre esa forma y, además, el
mismo código de pasos en la CPU con modelos diminutos.
"""

from __future__ import annotations

from tutor_lib.formato import entero

import gc
import os
import sys
import tempfile
import time
import warnings
from typing import Any

os.environ.setdefault("TUTOR_MODO", "rapido")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

#: Pasos que se miden por fase (después de uno de calentamiento, que no se cronometra).
PASOS_MEDIDOS = 3


def _optim(fase, cuda: bool) -> str:
    if fase.optimizador == "adamw_8bit":
        return "paged_adamw_8bit" if cuda else "adamw_torch"  # la paginación necesita CUDA (lección 11)
    return {"adamw": "adamw_torch", "sgd": "sgd", "sgd_momentum": "sgd"}[fase.optimizador]


def _opciones(fase, carpeta: str, cuda: bool, pasos: int) -> dict[str, Any]:
    """Los TrainingArguments de las lecciones: precisión elegida para capacidad 7.5 (fp16 con escalador)."""
    from tutor_lib import entorno, vram

    fp16 = cuda and fase.precision_efectiva == "mixta" and entorno.precision_recomendada(vram.buscar_gpu("T4")) == "fp16"
    return dict(
        output_dir=carpeta, max_steps=pasos, per_device_train_batch_size=fase.lote, learning_rate=1e-4,
        optim=_optim(fase, cuda), fp16=fp16, bf16=False, activation_checkpointing=fase.checkpointing,
        report_to="none", disable_tqdm=True, save_strategy="no", logging_strategy="no", use_cpu=not cuda,
        seed=0, dataloader_pin_memory=False,
    )


def _config(fase, config=None):
    from tutor_lib import recursos

    config = config if config is not None else recursos.cargar_config(fase.nombre_hub)
    if fase.modelo == "clasificacion":
        config.num_labels = 2
    return config


def _modelo(fase, config, dispositivo: str):
    """Pesos aleatorios a tamaño real; en QLoRA, guardados y recargados en NF4 como en la lección 11."""
    import torch
    from transformers import AutoModelForCausalLM, AutoModelForSequenceClassification, BitsAndBytesConfig

    clase = AutoModelForSequenceClassification if fase.modelo == "clasificacion" else AutoModelForCausalLM
    torch.manual_seed(0)
    if fase.metodo != "qlora":
        dtype = torch.float16 if fase.metodo == "lora" and fase.modelo == "causal" and dispositivo == "cuda" else torch.float32
        return clase.from_config(config, dtype=dtype).to(dispositivo)  # lección 12: base en 16 bits en la T4
    from peft import prepare_model_for_kbit_training

    computo = torch.float16 if dispositivo == "cuda" else torch.float32
    with tempfile.TemporaryDirectory(prefix="benchmark_gpu_") as carpeta:
        clase.from_config(config, dtype=torch.float16).save_pretrained(carpeta)
        cuant = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True,
                                   bnb_4bit_compute_dtype=computo)
        modelo = clase.from_pretrained(carpeta, quantization_config=cuant, device_map=dispositivo,
                                       dtype=torch.float16 if dispositivo == "cuda" else torch.bfloat16)
    return prepare_model_for_kbit_training(modelo, gradient_checkpointing_kwargs={"use_reentrant": False})


def _lora(fase):
    from peft import LoraConfig

    tarea = "SEQ_CLS" if fase.modelo == "clasificacion" else "CAUSAL_LM"
    modulos = list(fase.modulos) if isinstance(fase.modulos, tuple) else fase.modulos
    return LoraConfig(r=fase.r, lora_alpha=2 * fase.r, lora_dropout=0.0, target_modules=modulos, task_type=tarea)


def _tokens(config, n: int, largo: int, semilla: int = 0):
    import torch

    generador = torch.Generator().manual_seed(semilla)
    return torch.randint(5, min(config.vocab_size, 30_000), (n, largo), generator=generador).tolist()


def _entrenador(fase, config, dispositivo: str, pasos: int, carpeta: str):
    """El Trainer de la fase, como lo arma su lección."""
    import datasets
    from transformers import Trainer, TrainingArguments, default_data_collator

    cuda = dispositivo == "cuda"
    opciones = _opciones(fase, carpeta, cuda, pasos)
    n = fase.lote * pasos
    if fase.sin_gradiente_por_paso:  # DPO (lección 12): pares de texto y DPOTrainer con LoRA
        return _entrenador_dpo(fase, config, dispositivo, opciones, n)
    if fase.metodo == "lora" and fase.modelo == "causal":  # SFT (lección 12)
        return _entrenador_sft(fase, config, dispositivo, opciones, n)
    modelo = _modelo(fase, config, dispositivo)
    if fase.metodo in ("lora", "qlora"):
        from peft import get_peft_model

        modelo = get_peft_model(modelo, _lora(fase))
    ids = _tokens(config, n, fase.secuencia)
    columnas = {"input_ids": ids, "attention_mask": [[1] * fase.secuencia for _ in ids]}
    columnas["labels"] = [i % 2 for i in range(n)] if fase.modelo == "clasificacion" else ids
    return Trainer(model=modelo, args=TrainingArguments(**opciones), train_dataset=datasets.Dataset.from_dict(columnas),
                   data_collator=default_data_collator)


def _tokenizer_del_curso():
    from tutor_lib import recursos

    return recursos.cargar_causal(modo="rapido")[0]  # el tokenizer del Llama diminuto: sin Hub, con plantilla


def _texto(n_palabras: int, semilla: int) -> str:
    import random

    azar = random.Random(semilla)
    palabras = "el la los datos modelo entrena paso lote memoria tarjeta gráfica aprende texto respuesta".split()
    return " ".join(azar.choice(palabras) for _ in range(n_palabras))


def _entrenador_sft(fase, config, dispositivo, opciones, n):
    import datasets
    from trl import SFTConfig, SFTTrainer

    tokenizer = _tokenizer_del_curso()
    textos = [_texto(2 * fase.secuencia, i) for i in range(n)]  # de sobra: se recortan a max_length
    args = SFTConfig(**opciones, max_length=fase.secuencia, packing=True)
    return SFTTrainer(model=_modelo(fase, config, dispositivo), args=args, processing_class=tokenizer,
                      train_dataset=datasets.Dataset.from_dict({"text": textos}), peft_config=_lora(fase))


def _entrenador_dpo(fase, config, dispositivo, opciones, n):
    import datasets
    from trl import DPOConfig, DPOTrainer

    tokenizer = _tokenizer_del_curso()
    pares = n // 2  # cada par son dos secuencias: elegida y rechazada
    opciones = {**opciones, "per_device_train_batch_size": fase.lote // 2}
    filas = {
        "prompt": [_texto(fase.secuencia // 4, i) for i in range(pares)],
        "chosen": [_texto(fase.secuencia, 10_000 + i) for i in range(pares)],
        "rejected": [_texto(fase.secuencia, 20_000 + i) for i in range(pares)],
    }
    args = DPOConfig(**opciones, max_length=fase.secuencia, beta=0.1)
    return DPOTrainer(model=_modelo(fase, config, dispositivo), args=args, processing_class=tokenizer,
                      train_dataset=datasets.Dataset.from_dict(filas), peft_config=_lora(fase))


def medir_fase(fase, dispositivo: str = "cuda", config=None, pasos: int = PASOS_MEDIDOS) -> dict[str, Any]:
    """Entrena ``pasos`` + 1 pasos de la fase y devuelve el pico de memoria y los segundos por paso.

    ``config`` reemplaza el del Hub (las pruebas en CPU usan uno diminuto). En CPU no hay pico de CUDA:
    ``pico_bytes`` queda en None.
    """
    import torch
    from transformers import TrainerCallback

    class Cronometro(TrainerCallback):
        def __init__(self):
            self.inicios: list[float] = []

        def on_step_begin(self, args, state, control, **kwargs):
            if dispositivo == "cuda":
                torch.cuda.synchronize()
            self.inicios.append(time.perf_counter())

    cronometro = Cronometro()
    with tempfile.TemporaryDirectory(prefix="benchmark_gpu_") as carpeta, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gc.collect()
        if dispositivo == "cuda":
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats()
        entrenador = _entrenador(fase, _config(fase, config), dispositivo, pasos + 1, carpeta)
        entrenador.add_callback(cronometro)
        entrenador.train()
        if dispositivo == "cuda":
            torch.cuda.synchronize()
        fin = time.perf_counter()
        pico = torch.cuda.max_memory_allocated() if dispositivo == "cuda" else None
        pasos_dados = entrenador.state.global_step
        del entrenador
    segundos = (fin - cronometro.inicios[1]) / (len(cronometro.inicios) - 1) if len(cronometro.inicios) > 1 else None
    return {"pico_bytes": pico, "segundos_por_paso": segundos, "pasos": pasos_dados}


def comprobar_sin_gpu() -> list[str]:
    """Lo que no necesita GPU: cada config del modo completo se construye y cada presupuesto cabe en una T4."""
    from tutor_lib import presupuesto_lecciones as pl
    from tutor_lib import recursos

    lineas = []
    for nombre in recursos.configs_incluidos():
        modelo = recursos.construir_en_meta(nombre)
        lineas.append(f"config {nombre}: {entero(sum(p.numel() for p in modelo.parameters()))} parámetros en «meta»"
                      .replace(",", " "))
    for leccion in pl.LECCIONES:
        p = pl.presupuesto_leccion(leccion)
        if not p.cabe() or p.segundos > pl.MINUTOS_MAXIMOS * 60:
            raise SystemExit(f"La lección {leccion} no cabe en el presupuesto de la T4: "
                             f"{pl._gib(p.memoria_bytes)}, {pl._min(p.segundos)}.")
        fases = f"{len(p.filas)} fase{'s' if len(p.filas) > 1 else ''}"
        lineas.append(f"lección {leccion}: {fases}, hasta {pl._gib(p.memoria_bytes)}, "
                      f"{pl._min(p.segundos)} estimados en una T4")
    return lineas


def main(argv: list[str] | None = None) -> int:
    import torch

    from tutor_lib import presupuesto_lecciones as pl
    from tutor_lib import vram

    for linea in comprobar_sin_gpu():
        print(linea)
    if not torch.cuda.is_available():
        print("\nNo hay GPU con CUDA en esta máquina: comprobé solo lo que no la necesita (arriba). "
              "Corre `python -m benchmarks gpu` en una máquina con CUDA (por ejemplo, Colab con una T4) para medir "
              "cada lección paso a paso.")
        return 0
    total = torch.cuda.get_device_properties(0).total_memory
    utilizable = vram.memoria_utilizable(pl.GPU)
    torch.cuda.set_per_process_memory_fraction(min(1.0, utilizable / total))
    nombre = torch.cuda.get_device_name(0)
    print(f"\nGPU: {nombre}, capacidad {'.'.join(map(str, torch.cuda.get_device_capability(0)))}; proceso limitado "
          f"a {pl._gib(utilizable)} (lo utilizable de una T4). Precisión: la de capacidad 7.5 (fp16 con escalador).")
    print("\n| lección | fase | pico medido | estimación | medido / estimado | s por paso |")
    print("|---|---|---|---|---|---|")
    fallos = 0
    for leccion in pl.LECCIONES:
        for fila in pl.presupuesto_leccion(leccion).filas:
            if not fila.fase.pasos:
                continue
            try:
                medida = medir_fase(fila.fase)
            except Exception as exc:  # una fase rota no esconde las demás
                fallos += 1
                print(f"| {leccion} | {fila.fase.nombre} | ERROR: {type(exc).__name__}: {str(exc)[:200]} | | | |")
                continue
            estimada = fila.memoria_bytes - fila.fase.extra_bytes  # el pico medido es el de una sola fase
            print(f"| {leccion} | {fila.fase.nombre} | {pl._gib(medida['pico_bytes'])} | {pl._gib(estimada)} | "
                  f"{medida['pico_bytes'] / estimada:.2f} | {medida['segundos_por_paso']:.3f} |")
            sys.stdout.flush()
    return 1 if fallos else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
