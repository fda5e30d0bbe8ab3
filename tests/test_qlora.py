"""Pruebas de tutor_lib.qlora: la trampa del reacomodo de pesos de 4 bits en CPU con AVX512-BF16.

Usan el Llama de juguete del curso cargado en 4 bits (segundos en CPU). La trampa se mide aquí mismo: si
bitsandbytes deja de reacomodar los pesos o vuelve a dejar pasar el gradiente, la primera prueba falla y
hay que revisar lessons/11_qlora.ipynb y el docstring de tutor_lib/qlora.py.
"""

from __future__ import annotations

import copy

import pytest
import torch

bnb = pytest.importorskip("bitsandbytes")
import bitsandbytes.functional as bnbF  # noqa: E402
from peft import LoraConfig, get_peft_model  # noqa: E402
from transformers import BitsAndBytesConfig  # noqa: E402

from tutor_lib import qlora, recursos  # noqa: E402

pytestmark = [
    # avisos en inglés de peft/transformers y de PyTorch (este último es justo la trampa: lo medimos aparte)
    pytest.mark.filterwarnings("ignore:.*is_gradient_checkpointing.*:FutureWarning"),
    pytest.mark.filterwarnings("ignore:.*autograd kernel was not registered.*:UserWarning"),
]

CPU_CON_AVX512_BF16 = bool(bnbF.has_avx512bf16())
solo_con_avx512_bf16 = pytest.mark.skipif(
    not CPU_CON_AVX512_BF16,
    reason="la trampa solo existe en CPU con AVX512-BF16: en esta CPU bitsandbytes nunca reacomoda los pesos",
)
#: Las filas del formato de CPU van en grupos de 32 (``block_n`` de ``_convert_weight_packed_for_cpu``).
FILAS_POR_GRUPO = 32


def _cargar(proteger: bool):
    """El Llama de juguete en 4 bits con LoRA r=8 en todas sus lineales: ``(tokenizer, modelo_peft, protegidas)``."""
    config = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.float32)
    tokenizer, modelo = recursos.cargar_causal(modo="rapido", quantization_config=config, device_map="cpu")
    protegidas = qlora.evitar_reempaquetado(modelo) if proteger else 0
    if not proteger:
        _solo_capas_reacomodables(modelo)
    lora = LoraConfig(r=8, lora_alpha=16, lora_dropout=0.0, target_modules="all-linear", task_type="CAUSAL_LM")
    return tokenizer, get_peft_model(modelo, lora), protegidas


def _solo_capas_reacomodables(modelo) -> None:
    """Apaga el atajo solo donde bitsandbytes 0.50 ni siquiera sabe reacomodar (ver la prueba de abajo).

    En el Llama de juguete, gate_proj y up_proj tienen 176 salidas (no múltiplo de 32) y down_proj 176
    entradas (no múltiplo del bloque de 64): ahí el reacomodo falla con un error. En las demás capas, las de
    atención, el reacomodo ocurre en silencio, como en cualquier modelo real (SmolLM2, Qwen2.5...).
    """
    for capa in qlora.capas_4bit(modelo):
        if capa.out_features % FILAS_POR_GRUPO or capa.in_features % capa.weight.quant_state.blocksize:
            capa.support_avx512bf16_for_cpu = False


def _lote(tokenizer):
    lote = tokenizer(["Hola, ¿cómo estás? Hoy aprendemos QLoRA en el curso."], return_tensors="pt")
    lote["labels"] = lote["input_ids"].clone()
    return lote


def _backward(modelo, lote) -> float:
    """Un forward y un backward en modo entrenamiento, como un paso del Trainer; devuelve la pérdida."""
    modelo.train()
    modelo.zero_grad(set_to_none=True)
    salida = modelo(**lote)
    salida.loss.backward()
    return salida.loss.item()


def _inferir(modelo, lote) -> None:
    """Lo que hacen ``generate`` y ``Trainer.evaluate``: modo evaluación y sin gradientes."""
    modelo.eval()
    with torch.no_grad():
        modelo(**lote)
    modelo.train()


@solo_con_avx512_bf16
def test_sin_proteccion_una_inferencia_en_eval_corta_el_gradiente():
    tokenizer, modelo, _ = _cargar(proteger=False)
    lote = _lote(tokenizer)
    _backward(modelo, lote)
    con_antes, total = qlora.adaptadores_con_gradiente(modelo)
    assert (con_antes, total) == (14, 14)  # 7 lineales × 2 capas del juguete
    assert qlora.capas_reempaquetadas(modelo) == 0

    _inferir(modelo, lote)
    reacomodadas = qlora.capas_reempaquetadas(modelo)
    assert reacomodadas == 8  # q, k, v y o de las 2 capas: todas las que bitsandbytes sabe reacomodar

    _backward(modelo, lote)
    con_despues, _ = qlora.adaptadores_con_gradiente(modelo)
    assert con_despues < con_antes, "la trampa ya no corta el gradiente: revisa la lección 11 y tutor_lib/qlora.py"
    # o_proj ya no deja pasar el gradiente hacia su entrada (y B = 0 al empezar): q, k y v se quedan sin él
    assert con_despues == 14 - 3 * 2


@solo_con_avx512_bf16
def test_en_el_juguete_bitsandbytes_ni_siquiera_sabe_reacomodar_las_capas_del_mlp():
    """Lo que dice la lección 11 del Llama de juguete (capas de 176): sin protección, inferir en eval falla."""
    config = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.float32)
    tokenizer, modelo = recursos.cargar_causal(modo="rapido", quantization_config=config, device_map="cpu")
    with pytest.raises(AssertionError, match="divisible by block_n"):
        _inferir(modelo, _lote(tokenizer))


def test_con_proteccion_nada_se_reacomoda_y_todos_los_adaptadores_aprenden():
    tokenizer, modelo, protegidas = _cargar(proteger=True)
    assert protegidas == 14
    assert all(capa.support_avx512bf16_for_cpu is False for capa in qlora.capas_4bit(modelo))
    lote = _lote(tokenizer)

    _inferir(modelo, lote)
    assert qlora.capas_reempaquetadas(modelo) == 0
    perdida_inicial = _backward(modelo, lote)
    assert qlora.adaptadores_con_gradiente(modelo) == (14, 14)

    optimizador = torch.optim.AdamW([p for p in modelo.parameters() if p.requires_grad], lr=1e-2)
    for _ in range(5):
        _backward(modelo, lote)
        optimizador.step()
        _inferir(modelo, lote)  # evaluar entre pasos, como Trainer con eval_strategy="steps"
    perdida_final = _backward(modelo, lote)
    assert qlora.capas_reempaquetadas(modelo) == 0
    assert perdida_final < perdida_inicial - 0.1, (perdida_inicial, perdida_final)


def _reacomodar(modelo, lote) -> None:
    """Reacomoda los pesos como lo hace bitsandbytes al inferir; en una CPU sin AVX512-BF16, a mano."""
    if CPU_CON_AVX512_BF16:
        _inferir(modelo, lote)
        return
    for capa in qlora.capas_4bit(modelo):
        if capa.out_features % FILAS_POR_GRUPO == 0 and capa.in_features % capa.weight.quant_state.blocksize == 0:
            capa.weight.data, capa.weight.quant_state = bnbF._convert_weight_packed_for_cpu(
                capa.weight.data, capa.weight.quant_state
            )


def test_proteger_demasiado_tarde_pide_cargar_de_nuevo_en_espanol():
    tokenizer, modelo, _ = _cargar(proteger=False)
    _reacomodar(modelo, _lote(tokenizer))
    assert qlora.capas_reempaquetadas(modelo) == 8
    with pytest.raises(qlora.PesosReempaquetados) as error:
        qlora.evitar_reempaquetado(modelo)
    mensaje = str(error.value)
    assert "8 de 14 capas de 4 bits" in mensaje
    assert "Vuelve a cargar el modelo" in mensaje and "evitar_reempaquetado" in mensaje
    assert isinstance(error.value, RuntimeError)


@pytest.mark.parametrize("doble_cuantizacion", [False, True], ids=["sin_doble", "con_doble"])
def test_la_conversion_inversa_de_bitsandbytes_no_devuelve_los_pesos(doble_cuantizacion):
    """Lo que afirma el docstring de tutor_lib/qlora.py: deshacer el reacomodo no es fiable en bitsandbytes 0.50.

    ``_convert_weight_packed_for_cpu_inverse`` recupera bien los códigos de 4 bits, pero no las constantes:
    el reacomodo las traspuso y las pasó a bf16, y la inversa (sin doble cuantización) las deja traspuestas,
    así que cada bloque se descuantiza con la escala de otro. Con doble cuantización las reordena, pero se
    queda el redondeo a bf16. Si esta prueba falla, bitsandbytes lo arregló: revisa el docstring de
    tutor_lib/qlora.py y la lección 11, que dicen que lo único seguro es volver a cargar el modelo.
    """
    torch.manual_seed(0)
    # 576 entradas (9 bloques de 64 por fila) como las proyecciones de SmolLM2-135M; pesos de colas pesadas,
    # como los de una red entrenada (t de Student), para que cada bloque tenga su propia escala
    pesos = torch.distributions.StudentT(4.0).sample((192, 576)) * 0.02
    capa = bnb.nn.Linear4bit(576, 192, bias=False, compute_dtype=torch.float32, quant_type="nf4",
                             compress_statistics=doble_cuantizacion)
    capa.weight = bnb.nn.Params4bit(pesos, requires_grad=False, quant_type="nf4",
                                    compress_statistics=doble_cuantizacion, module=capa)
    capa = capa.to("cpu")  # aquí se cuantiza
    original = bnbF.dequantize_4bit(capa.weight.data, copy.deepcopy(capa.weight.quant_state))
    error_nf4 = ((original - pesos).abs().mean() / pesos.abs().mean()).item()  # lo que ya cuesta NF4
    codigos = capa.weight.data.clone()
    x = torch.randn(4, 576)
    if CPU_CON_AVX512_BF16:
        capa.eval()
        with torch.no_grad():
            capa(x)
    else:
        capa.weight.data, capa.weight.quant_state = bnbF._convert_weight_packed_for_cpu(
            capa.weight.data, capa.weight.quant_state
        )
    assert capa.weight.quant_state.packing_format_for_cpu

    capa.weight.data, capa.weight.quant_state = bnbF._convert_weight_packed_for_cpu_inverse(
        capa.weight.data, capa.weight.quant_state
    )
    assert torch.equal(capa.weight.data, codigos)  # los códigos sí vuelven
    recuperado = bnbF.dequantize_4bit(capa.weight.data, capa.weight.quant_state)
    error_relativo = ((recuperado - original).abs().mean() / original.abs().mean()).item()
    if doble_cuantizacion:
        assert error_relativo > 0, "la inversa ya devuelve los pesos exactos: revisa tutor_lib/qlora.py"
    else:
        # la ida y vuelta daña los pesos más que la propia cuantización a 4 bits
        assert error_relativo > error_nf4, (error_relativo, error_nf4, "revisa tutor_lib/qlora.py")


def test_sin_capas_de_4_bits_no_hay_nada_que_proteger():
    _, modelo = recursos.cargar_causal(modo="rapido")
    assert qlora.capas_4bit(modelo) == []
    assert qlora.evitar_reempaquetado(modelo) == 0
    assert qlora.capas_reempaquetadas(modelo) == 0
    assert qlora.adaptadores_con_gradiente(modelo) == (0, 0)  # sin LoRA no hay lora_B
