"""Filas de la lección 10: LoRA frente a fine-tuning completo en el clasificador rápido con ``resenas``.

Repite la comparación de lessons/10_lora.ipynb (sección 8): el mismo modelo, los mismos datos y el
mismo bucle de entrenamiento corto, una vez con todos los pesos entrenables y otra con un adaptador
LoRA de peft (``task_type="SEQ_CLS"``, así la cabeza de clasificación también se entrena). Mide los
parámetros entrenables, los bytes de pesos + gradientes + estado de AdamW con
``tutor_lib.vram.medir_estado`` tras un paso, los segundos por paso y la exactitud en validación.
No lee el notebook: las cifras se miden en el momento. tests/lecciones/test_10.py usa esta función.
"""

from __future__ import annotations

from tutor_lib.formato import entero

import time
import warnings

#: Tamaños del modo rápido (más pequeños que ``recursos.receta_clasificacion("rapido")``).
MUESTRAS_RAPIDO, EVALUACION_RAPIDO, MAX_LENGTH_RAPIDO, EPOCAS_RAPIDO = 64, 96, 48, 1
#: El adaptador de la comparación: rango 8 en query y value, alpha 16.
R, ALPHA, MODULOS = 8, 16, ("query", "value")
#: LoRA suele usar una tasa de aprendizaje unas 10 veces mayor que el ajuste completo.
FACTOR_LR_LORA = 10


def entrenar_y_medir(metodo: str, modo: str = "rapido", semilla: int = 42) -> dict:
    """Entrena ``metodo`` (``"completo"`` o ``"lora"``) con la receta corta y devuelve lo medido.

    Claves: ``entrenables``, ``totales``, ``bytes_estado`` (dict de ``vram.medir_estado``),
    ``segundos_por_paso``, ``pasos``, ``exactitud``, ``lr``.
    """
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers.utils import logging as hf_logging

    from tutor_lib import entorno, recursos, vram

    warnings.filterwarnings("ignore")
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    receta = recursos.receta_clasificacion(modo)
    if modo == "rapido":
        n_entrenamiento, n_evaluacion, max_length, epocas = (
            MUESTRAS_RAPIDO, EVALUACION_RAPIDO, MAX_LENGTH_RAPIDO, EPOCAS_RAPIDO)
    else:
        n_entrenamiento, n_evaluacion, max_length, epocas = 4000, 1000, receta.max_length, 1
    dispositivo = "cuda" if torch.cuda.is_available() else "cpu"

    entorno.fijar_semilla(semilla)
    datos = recursos.cargar_dataset("resenas", modo=modo)
    entrenamiento = datos["train"].shuffle(seed=semilla).select(range(min(n_entrenamiento, len(datos["train"]))))
    evaluacion = datos["validation"].shuffle(seed=semilla).select(range(min(n_evaluacion, len(datos["validation"]))))
    tokenizer, modelo = recursos.cargar_clasificador(num_labels=2, modo=modo)
    lr = receta.learning_rate
    if metodo == "lora":
        config = LoraConfig(task_type="SEQ_CLS", r=R, lora_alpha=ALPHA, target_modules=list(MODULOS),
                            lora_dropout=0.0)
        modelo = get_peft_model(modelo, config)
        lr = lr * FACTOR_LR_LORA
    modelo.to(dispositivo)

    def lotes(ds, tam, mezclar):
        orden = torch.randperm(len(ds)).tolist() if mezclar else list(range(len(ds)))
        for i in range(0, len(orden), tam):
            filas = ds.select(orden[i:i + tam])
            lote = tokenizer(list(filas["text"]), padding=True, truncation=True, max_length=max_length,
                             return_tensors="pt")
            lote["labels"] = torch.tensor(filas["label"])
            yield {k: v.to(dispositivo) for k, v in lote.items()}

    entrenables = [p for p in modelo.parameters() if p.requires_grad]
    optimizador = torch.optim.AdamW(entrenables, lr=lr, weight_decay=0.01)
    estado, tiempos = None, []
    modelo.train()
    for _ in range(epocas):
        for lote in lotes(entrenamiento, receta.lote, mezclar=True):
            inicio = time.perf_counter()
            perdida = modelo(**lote).loss
            perdida.backward()
            optimizador.step()
            if estado is None:  # tras el primer paso ya existen gradientes y estados de AdamW
                estado = vram.medir_estado(modelo, optimizador)
            optimizador.zero_grad()
            if dispositivo == "cuda":
                torch.cuda.synchronize()
            tiempos.append(time.perf_counter() - inicio)

    modelo.eval()
    aciertos = 0
    with torch.no_grad():
        for lote in lotes(evaluacion, 64, mezclar=False):
            aciertos += (modelo(**lote).logits.argmax(-1) == lote["labels"]).sum().item()
    return {
        "entrenables": sum(p.numel() for p in entrenables),
        "totales": sum(p.numel() for p in modelo.parameters()),
        "bytes_estado": estado,
        "segundos_por_paso": sum(tiempos[1:]) / max(1, len(tiempos) - 1),
        "pasos": len(tiempos),
        "exactitud": aciertos / len(evaluacion),
        "lr": lr,
    }


def _puntos(n: int) -> str:
    return entero(n)


def medir() -> list[tuple[str, str, str]]:
    filas = []
    for metodo, nombre in (("completo", "fine-tuning completo"), ("lora", f"LoRA r={R} en query+value")):
        r = entrenar_y_medir(metodo)
        filas.append((
            f"LoRA vs fine-tuning completo (clasificador rápido, resenas): {nombre}",
            f"{_puntos(r['entrenables'])} entrenables; {_puntos(r['bytes_estado']['total'])} B de estado; "
            f"{r['segundos_por_paso']:.3f} s/paso; exactitud {r['exactitud']:.3f}",
            f"pesos {_puntos(r['bytes_estado']['pesos'])} B + gradientes {_puntos(r['bytes_estado']['gradientes'])} B"
            f" + AdamW {_puntos(r['bytes_estado']['estados_optimizador'])} B (vram.medir_estado tras un paso); "
            f"{r['pasos']} pasos, lr {r['lr']:g}, {MUESTRAS_RAPIDO} ejemplos × {MAX_LENGTH_RAPIDO} tokens, CPU",
        ))
    return filas


if __name__ == "__main__":
    for fila in medir():
        print(" | ".join(fila))
