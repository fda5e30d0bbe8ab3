"""Pruebas de lessons/14_proyecto_final.ipynb.

Las primeras son rápidas: extraen del notebook sus funciones (la plantilla con marcas, la pérdida de validación y
la generación en lotes) y las comparan con cuentas independientes: la pérdida de transformers, la máscara de
trl y la generación de una pregunta a la vez. La última ejecuta el notebook una vez en modo rápido (SmolLM2) y
comprueba las cifras clave de sus salidas: que la cuenta de memoria eligió el modelo del curso, que la pérdida de
validación bajó tras QLoRA, que la tabla de antes y después es coherente con su conclusión y que el modelo
fusionado, guardado y servido con ``pipeline`` responde lo mismo.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
import torch
from cuadernos import ENTERO, a_entero, funciones_del_notebook
from trl.chat_template_utils import get_training_chat_template, has_generation_markers

from tutor_lib import generacion, recursos
from tutor_lib.modelos import smollm2

RAIZ = Path(__file__).resolve().parents[2]
LECCION = RAIZ / "lessons" / "14_proyecto_final.ipynb"
SISTEMA = {"role": "system", "content": "Eres un asistente útil. Responde siempre en español, con frases cortas."}

pytestmark = pytest.mark.filterwarnings("ignore:.*will be removed in v6:FutureWarning")


def _leccion(tokenizer) -> dict:
    espacio = {"torch": torch, "tokenizer": tokenizer, "SISTEMA": SISTEMA, "has_generation_markers": has_generation_markers,
               "get_training_chat_template": get_training_chat_template}
    return funciones_del_notebook(LECCION, espacio, "plantilla_con_marcas", "perdida_media", "responder")


@pytest.fixture(scope="module")
def juguete():
    tokenizer, modelo = recursos.cargar_causal(modo="rapido", dtype=torch.float32)
    modelo.eval()
    return tokenizer, modelo


@pytest.fixture(scope="module")
def tokenizer_smollm2():
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(smollm2.convertir())


def _conversaciones(n: int, division: str = "train") -> list:
    datos = recursos.cargar_dataset("instrucciones", modo="rapido")[division]["messages"][:n]
    return [m if m[0]["role"] == "system" else [SISTEMA] + m for m in datos]


# --------------------------------------------------------------------------
# Funciones de la lección, contra cuentas independientes
# --------------------------------------------------------------------------


def test_la_plantilla_de_smollm2_con_marcas_da_el_mismo_texto_y_marca_solo_al_asistente(tokenizer_smollm2):
    tokenizer = tokenizer_smollm2
    assert not has_generation_markers(tokenizer.chat_template)
    with pytest.raises(ValueError):  # trl no sabe parcharla: por eso la lección la escribe
        get_training_chat_template(tokenizer)
    plantilla = _leccion(tokenizer)["plantilla_con_marcas"](tokenizer)
    assert has_generation_markers(plantilla)
    conversacion = [SISTEMA, {"role": "user", "content": "¿Qué es un token?"},
                    {"role": "assistant", "content": "Un trozo de texto."},
                    {"role": "user", "content": "¿Y un lote?"}, {"role": "assistant", "content": "Varios ejemplos."}]
    assert tokenizer.apply_chat_template(conversacion, tokenize=False) == tokenizer.apply_chat_template(
        conversacion, tokenize=False, chat_template=plantilla)
    salida = tokenizer.apply_chat_template(conversacion, chat_template=plantilla, return_dict=True,
                                           return_assistant_tokens_mask=True)
    marcado = tokenizer.decode([t for t, m in zip(salida["input_ids"], salida["assistant_masks"]) if m])
    assert marcado == "Un trozo de texto.<|im_end|>Varios ejemplos.<|im_end|>"


def test_la_plantilla_con_marcas_respeta_la_que_ya_las_tiene_y_se_niega_en_espanol(juguete, tokenizer_smollm2):
    tokenizer, _ = juguete
    assert _leccion(tokenizer)["plantilla_con_marcas"](tokenizer) == tokenizer.chat_template
    otro = tokenizer_smollm2
    original = otro.chat_template
    try:
        otro.chat_template = "{% for message in messages %}{{ message['content'] }}{% endfor %}"
        with pytest.raises(ValueError, match="No sé marcar al asistente"):
            _leccion(otro)["plantilla_con_marcas"](otro)
    finally:
        otro.chat_template = original


def test_perdida_media_es_la_entropia_cruzada_por_token_del_asistente(juguete):
    """La misma cuenta, conversación por conversación, con la pérdida de transformers y las etiquetas de la máscara."""
    tokenizer, modelo = juguete
    conversaciones = _conversaciones(11)
    total = tokens = 0.0
    for conversacion in conversaciones:
        salida = tokenizer.apply_chat_template(conversacion, return_dict=True, return_assistant_tokens_mask=True)
        ids = torch.tensor([salida["input_ids"]])
        etiquetas = torch.where(torch.tensor([salida["assistant_masks"]]) == 1, ids, -100)
        n = int((etiquetas[0, 1:] != -100).sum())
        with torch.no_grad():
            total += modelo(input_ids=ids, labels=etiquetas).loss.item() * n
        tokens += n
    calculada = _leccion(tokenizer)["perdida_media"](modelo, conversaciones, lote=4)  # lotes con relleno
    assert calculada == pytest.approx(total / tokens, rel=1e-5)
    assert tokenizer.padding_side == "right"


def test_responder_en_lotes_rellena_a_la_izquierda_y_da_lo_mismo_que_de_a_una(juguete):
    tokenizer, modelo = juguete
    responder = _leccion(tokenizer)["responder"]
    preguntas = ["Hola", "¿Cuál es la capital de un país muy, muy lejano que nadie recuerda?", "¿2 + 2?"]
    juntas = responder(modelo, preguntas, max_new_tokens=8)
    de_a_una = [responder(modelo, [p], max_new_tokens=8)[0] for p in preguntas]
    assert juntas == de_a_una
    assert tokenizer.padding_side == "right"  # deja el tokenizer listo para entrenar


# --------------------------------------------------------------------------
# El notebook entero, una vez
# --------------------------------------------------------------------------


def _cifra(patron: str, texto: str) -> float:
    encontrada = re.search(patron, texto)
    assert encontrada, f"no encontré {patron!r} en las salidas"
    return float(encontrada.group(1).replace(" ", ""))


@pytest.mark.cuaderno
@pytest.mark.lento
def test_notebook_mide_antes_y_despues_y_sirve_el_modelo(tokenizer_smollm2):
    from cuadernos import ejecutar_cuaderno, textos_de_salida

    nb, segundos = ejecutar_cuaderno(LECCION)
    texto = textos_de_salida(nb)
    assert "Modo: rápido" in texto

    # 1. La cuenta de memoria elige el modelo que el curso usa en modo completo.
    assert "Elegido: Qwen/Qwen2.5-1.5B-Instruct" in texto
    assert "¿Es el del modo completo del curso (recursos.MODELOS)? True" in texto

    # 1. La guía: el método más simple que cabe, y el configurador sobre la receta del modo completo.
    guia = {fila.split()[0] + " " + fila.split()[1]: fila.split()[2:] for fila in texto.splitlines()
            if re.match(r"^\d+(\.\d)? B\s", fila)}
    assert guia["0.5 B"][0] == "completo" and guia["1.5 B"][0] == "LoRA" and guia["7 B"][0] == "QLoRA", guia
    assert guia["70 B"][:2] == ["no", "cabe"] and guia["70 B"][-1] == "QLoRA", guia
    assert re.search(r"^qlora: \d+ pasos, lote efectivo 16, ¿cabe en la T4\? sí$", texto, flags=re.M)
    assert re.search(r"^completo: \d+ pasos, lote efectivo 16, ¿cabe en la T4\? no$", texto, flags=re.M)
    assert "[error] memoria" in texto and "[aviso] learning_rate" in texto  # el completo no cabe y su tasa es alta

    # 2. SmolLM2 en 4 bits, todas sus capas lineales protegidas del reacomodo de bitsandbytes.
    capas = re.search(rf"Capas lineales en 4 bits: ({ENTERO}) \(protegidas del reacomodo: ({ENTERO})\)", texto)
    assert capas and a_entero(capas.group(1)) == a_entero(capas.group(2)) == 30 * 7
    assert "pad_token = '<|im_end|>'" in texto

    # 3. La plantilla con marcas da el mismo texto en todas las conversaciones.
    total = sum(len(d) for d in recursos.cargar_dataset("instrucciones", modo="rapido").values())
    assert f"Conversaciones con el mismo texto en las dos plantillas: {total} de {total}" in texto

    # 4 y 6. Cuantizar cuesta; QLoRA baja la pérdida de validación; la tabla y su conclusión coinciden.
    sin_cuantizar = _cifra(r"Pérdida de validación sin cuantizar: ([\d.]+)", texto)
    antes = _cifra(r"pérdida de validación \(nats\)\s+([\d.]+)", texto)
    despues = _cifra(r"pérdida de validación \(nats\)\s+[\d.]+\s+([\d.]+)", texto)
    assert antes > sin_cuantizar, "NF4 debería costar algo de pérdida"
    assert despues < antes - 0.1, f"QLoRA no bajó la pérdida de validación: {antes} → {despues}"
    aciertos = re.search(r"aciertos: total\s+(\d+) de 24\s+(\d+) de 24", texto)
    assert aciertos
    a0, a1 = map(int, aciertos.groups())
    verbo = "subieron" if a1 > a0 else "no subieron" if a1 == a0 else "bajaron"
    assert f"los aciertos {verbo} ({a0} → {a1} de {len(generacion.TAREAS)})" in texto
    assert "La perplejidad bajó" in texto
    for tipo in ("sentimiento", "capital", "conversion"):
        assert re.search(rf"aciertos: {tipo}\s+\d de 8\s+\d de 8", texto), tipo

    # 7. La voraz es determinista.
    assert "¿La voraz se repite idéntica? True" in texto

    # 8. Adaptador pequeño, modelo fusionado entero; el pipeline responde como el modelo en memoria.
    adaptador = _cifra(r"Adaptador: ([\d.]+) MiB", texto)
    fusionado = _cifra(r"modelo fusionado: ([\d.]+) MiB", texto)
    assert adaptador < 20 < 400 < fusionado
    assert "Respuestas iguales a las del modelo en memoria: 3 de 3" in texto
    # La comparación justa, en la misma precisión: el modelo fusionado contra la base sin cuantizar.
    base = _cifra(r"base sin cuantizar \(float32\) ([\d.]+)", texto)
    servido = _cifra(r"fusionado en float32 ([\d.]+)", texto)
    assert base == pytest.approx(math.exp(sin_cuantizar), abs=0.06)
    assert servido < base * 0.95, f"el ajuste no mejoró la perplejidad frente a la base: {base} → {servido}"
