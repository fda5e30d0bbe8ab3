"""Pruebas de lessons/12_sft_y_dpo.ipynb.

Las primeras son rápidas: extraen del notebook las funciones que la lección
define (la máscara del asistente marcada en el texto, la tokenización de un par
de preferencias, el log-prob de una respuesta y la pérdida de DPO a mano) y las
comparan con cuentas independientes sobre el modelo de juguete. La última
ejecuta el notebook una vez en modo rápido y comprueba las cifras clave de sus
salidas (entre ellas, que la pérdida de DPO a mano coincide con la de trl); por
eso este notebook puede quedar fuera del recorrido general de
tests/test_lecciones.py.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from cuadernos import ENTERO, a_entero, funciones_del_notebook
import torch
import torch.nn.functional as F

from tutor_lib import recursos

RAIZ = Path(__file__).resolve().parents[2]
LECCION = RAIZ / "lessons" / "12_sft_y_dpo.ipynb"
MAX_LENGTH = 128  # el max_length del modo rápido de la lección

# Avisos internos de peft/trl sobre nombres que cambiarán en transformers v6 (no son de la lección).
pytestmark = pytest.mark.filterwarnings("ignore:.*will be removed in v6:FutureWarning")


@pytest.fixture(scope="module")
def juguete():
    tokenizer, modelo = recursos.cargar_causal(modo="rapido", dtype=torch.float32)
    modelo.eval()
    return tokenizer, modelo


def _funciones_del_notebook(espacio: dict, *nombres: str) -> dict:
    """Compila solo las definiciones ``def nombre(...)`` de las celdas de código de la lección."""
    return funciones_del_notebook(LECCION, espacio, *nombres)


@pytest.fixture(scope="module")
def leccion(juguete):
    tokenizer, _ = juguete
    espacio = {"torch": torch, "F": F, "tokenizer": tokenizer, "max_length": MAX_LENGTH}
    return _funciones_del_notebook(
        espacio, "marcar_asistente", "tokenizar_par", "logprob_respuesta", "perdida_dpo_a_mano"
    )


def _par(indice: int = 0) -> dict:
    fila = recursos.cargar_dataset("preferencias", modo="rapido")["train"][indice]
    return {
        "prompt": [{"role": "user", "content": fila["prompt"]}],
        "chosen": [{"role": "assistant", "content": fila["chosen"]}],
        "rejected": [{"role": "assistant", "content": fila["rejected"]}],
    }


# --------------------------------------------------------------------------
# Funciones de la lección, contra cuentas independientes
# --------------------------------------------------------------------------


def test_marcar_asistente_encierra_solo_la_respuesta_y_su_fin_de_turno(leccion, juguete):
    tokenizer, _ = juguete
    conversacion = [
        {"role": "system", "content": "Responde breve."},
        {"role": "user", "content": "¿Qué es un token?"},
        {"role": "assistant", "content": "Un trozo de texto."},
    ]
    salida = tokenizer.apply_chat_template(conversacion, return_dict=True, return_assistant_tokens_mask=True)
    texto = leccion["marcar_asistente"](salida["input_ids"], salida["assistant_masks"])
    assert texto.count("⟦") == 1 and texto.endswith("⟦Un trozo de texto.<|fin|>⟧")
    assert texto.replace("⟦", "").replace("⟧", "") == tokenizer.decode(salida["input_ids"])


def test_tokenizar_par_separa_prompt_y_respuestas(leccion, juguete):
    tokenizer, _ = juguete
    par = _par()
    ids_prompt, elegida, rechazada = leccion["tokenizar_par"](par)
    assert tokenizer.decode(ids_prompt).endswith("<|assistant|>\n")
    assert tokenizer.decode(elegida) == par["chosen"][0]["content"] + "<|fin|>"
    assert tokenizer.decode(rechazada) == par["rejected"][0]["content"] + "<|fin|>"


def test_logprob_respuesta_coincide_con_la_perdida_del_modelo(leccion, juguete):
    """-log π(y|x) = (pérdida media de transformers sobre los tokens de y) × (número de tokens de y)."""
    _, modelo = juguete
    ids_prompt, elegida, _ = leccion["tokenizar_par"](_par(1))
    ids = torch.tensor([ids_prompt + elegida])
    etiquetas = torch.tensor([[-100] * len(ids_prompt) + elegida])
    with torch.no_grad():
        perdida = modelo(input_ids=ids, labels=etiquetas).loss.item()
    assert leccion["logprob_respuesta"](modelo, ids_prompt, elegida) == pytest.approx(-perdida * len(elegida), rel=1e-5)


def test_perdida_dpo_a_mano_vale_ln2_y_sigue_la_formula(leccion):
    from peft import LoraConfig, get_peft_model

    _, modelo = recursos.cargar_causal(modo="rapido", dtype=torch.float32)
    politica = get_peft_model(modelo, LoraConfig(r=4, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM"))
    politica.eval()
    pares = [_par(i) for i in range(3)]
    perdida, filas = leccion["perdida_dpo_a_mano"](politica, pares, 0.1)
    assert perdida == pytest.approx(math.log(2), abs=1e-7)  # B = 0: política idéntica a la referencia

    torch.manual_seed(0)
    for nombre, parametro in politica.named_parameters():
        if "lora_B" in nombre:
            parametro.data.normal_(0, 0.5)
    perdida, filas = leccion["perdida_dpo_a_mano"](politica, pares, 0.1)
    esperadas = [
        -F.logsigmoid(torch.tensor(0.1 * ((f["pol_w"] - f["ref_w"]) - (f["pol_l"] - f["ref_l"])))).item()
        for f in filas
    ]
    assert abs(perdida - math.log(2)) > 1e-3
    assert perdida == pytest.approx(sum(esperadas) / len(esperadas), rel=1e-6)
    assert all(f["pol_w"] != f["ref_w"] for f in filas)


# --------------------------------------------------------------------------
# El notebook entero, una vez
# --------------------------------------------------------------------------


def _numeros(patron: str, texto: str) -> list[float]:
    return [float(x.replace(" ", "")) for x in re.findall(patron, texto)]


@pytest.mark.cuaderno
@pytest.mark.lento
def test_notebook_muestra_las_cifras_clave(juguete):
    from cuadernos import ejecutar_cuaderno, textos_de_salida

    nb, segundos = ejecutar_cuaderno(LECCION)
    texto = textos_de_salida(nb)
    assert "Modo: rápido" in texto
    # El tiempo no se afirma aquí (depende de la máquina): su meta vive en benchmarks/b_lecciones.py.

    # Máscara del asistente: la misma cuenta que hace transformers con la plantilla del juguete.
    tokenizer, _ = juguete
    conversaciones = recursos.cargar_dataset("instrucciones", modo="rapido")["train"]["messages"]
    conversacion = next(m for m in conversaciones if m[0]["role"] == "system")
    mascara = tokenizer.apply_chat_template(conversacion, return_dict=True, return_assistant_tokens_mask=True)[
        "assistant_masks"
    ]
    assert f"Cuentan para la pérdida {sum(mascara)} de {len(mascara)} tokens" in texto
    assert "¿Coinciden token por token? True" in texto

    # Packing: menos filas y ningún token de relleno.
    sin = re.search(rf"sin packing\s+(\d+)\s+(\d+)\s+({ENTERO})\s+({ENTERO})", texto)
    con = re.search(rf"con packing\s+(\d+)\s+(\d+)\s+({ENTERO})\s+({ENTERO})", texto)
    assert sin and con
    assert int(sin.group(1)) == len(conversaciones)
    assert int(con.group(1)) < int(sin.group(1)) and int(con.group(2)) < int(sin.group(2))
    assert con.group(4) == "0" and a_entero(sin.group(4)) > 0

    # SFT: la pérdida empieza cerca de ln V y baja.
    sft = re.search(r"ln V = ([\d.]+); primera pérdida registrada = ([\d.]+); última = ([\d.]+)", texto)
    assert sft, "no encontré las pérdidas de SFT"
    ln_v, primera, ultima = map(float, sft.groups())
    assert ln_v == pytest.approx(math.log(len(tokenizer)), abs=1e-3)
    assert abs(primera - ln_v) < 0.2 and ultima < primera - 0.3

    # Adaptador guardado y recargado.
    assert "adapter_model.safetensors" in texto and "adapter_config.json" in texto
    diferencia = _numeros(r"entre el modelo entrenado y el cargado: ([\d.e+-]+)", texto)
    assert diferencia and diferencia[0] < 1e-5

    # DPO: misma tokenización, ln 2 al principio, y mano = trl también después de entrenar.
    assert "coincide con la de trl? True" in texto
    mano = _numeros(r"Pérdida DPO a mano:\s+([\d.]+)", texto)
    trl = _numeros(r"Pérdida DPO según trl:\s+([\d.]+)", texto)
    assert len(mano) == len(trl) == 2
    assert mano[0] == pytest.approx(math.log(2), abs=1e-6) and trl[0] == pytest.approx(math.log(2), abs=1e-6)
    assert abs(mano[1] - math.log(2)) > 1e-3
    assert mano[1] == pytest.approx(trl[1], abs=1e-4)
    tabla_dpo = [l.split() for l in texto.splitlines() if re.fullmatch(r"\s*\d+(\s+-?\d+\.\d+){5}\s*", l)]
    margenes = [float(fila[4]) for fila in tabla_dpo]
    assert margenes and margenes[-1] > margenes[0], "el margen de DPO no creció"
    validacion = recursos.cargar_dataset("preferencias", modo="rapido")["validation"]
    assert f"Validación ({len(validacion)} pares)" in texto

    # Tasa de victorias del DPO contra el SFT en validación: la cuenta a mano es la de trl y el veredicto
    # que imprime es el que corresponde a su intervalo
    victorias = re.search(r"El DPO gana en (\d+) de (\d+) pares de validación \((\d+) empates\): tasa de victorias "
                          r"([\d.]+) %, ± ([\d.]+) %", texto)
    assert victorias, "no encontré la tasa de victorias"
    ganados, total, _, tasa, dos_errores = victorias.groups()
    assert int(total) == len(validacion)
    assert float(tasa) == pytest.approx(100 * int(ganados) / int(total), abs=0.05)
    # trl promedia las tasas de sus lotes de evaluación: la misma cuenta hecha con nuestros márgenes da su cifra
    (segun_trl,) = _numeros(r"según trl \(eval_rewards/accuracies\): ([\d.]+) %, el promedio", texto)
    (nuestra,) = _numeros(r"lotes de evaluación \(con nuestras cuentas: ([\d.]+) %\)", texto)
    assert segun_trl == pytest.approx(nuestra, abs=0.05)
    por_encima = float(tasa) - float(dos_errores) > 50
    assert ("por encima del 50 %" in texto) == por_encima
    por_criterio = re.findall(r"^(\w+) +(\d+) +(\d+)$", texto.split("criterio de la rechazada", 1)[1], re.M)
    assert sum(int(p) for _, p, _ in por_criterio) == int(total)
    assert sum(int(g) for _, _, g in por_criterio) == int(ganados)
