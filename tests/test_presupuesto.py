"""tutor_lib.presupuesto: FLOPs por token y segundos estimados (Kaplan et al., 2020), contados a mano."""

from __future__ import annotations

import pytest

from tutor_lib import presupuesto, recursos


def _bert_diminuto():
    config = {"model_type": "bert", "vocab_size": 100, "hidden_size": 32, "num_hidden_layers": 2,
              "num_attention_heads": 4, "intermediate_size": 64, "max_position_embeddings": 64}
    return recursos.construir_en_meta(config, tarea="clasificacion")


def test_la_forma_cuenta_solo_las_matrices_de_las_capas_lineales():
    forma = presupuesto.forma_de_computo(_bert_diminuto())
    por_capa = 4 * 32 * 32 + 32 * 64 + 64 * 32  # q, k, v, salida de la atención; las dos de la FFN
    assert forma == presupuesto.FormaDeComputo(pesos_lineales=2 * por_capa + 32 * 32 + 32 * 2, capas=2, ancho=32)


def test_qwen_cuenta_su_cabeza_de_lenguaje_aunque_este_atada():
    forma = presupuesto.forma_de_computo(recursos.construir_en_meta("Qwen/Qwen2.5-0.5B-Instruct"))
    por_capa = 896 * 896 + 2 * 896 * 128 + 896 * 896 + 3 * 896 * 4864
    assert forma.pesos_lineales == 24 * por_capa + 151936 * 896 == 493_961_216
    assert (forma.capas, forma.ancho) == (24, 896)


def test_flops_por_token_siguen_la_tabla_de_kaplan():
    forma = presupuesto.FormaDeComputo(pesos_lineales=1000, capas=3, ancho=8)
    adelante = 2 * 1000 + 2 * 3 * 128 * 8
    assert presupuesto.flops_adelante_por_token(forma, 128) == adelante
    completo = presupuesto.flops_entrenamiento_por_token(forma, 128, "completo")
    assert completo == 3 * adelante
    assert presupuesto.flops_entrenamiento_por_token(forma, 128, "completo", checkpointing=True) == 4 * adelante
    lora = presupuesto.flops_entrenamiento_por_token(forma, 128, "lora", entrenables_lineales=10)
    assert lora == 2 * adelante + 20 < completo
    assert presupuesto.flops_entrenamiento_por_token(forma, 128, "qlora", 10, checkpointing=True) == lora + adelante


def test_segundos_son_flops_entre_el_rendimiento_supuesto():
    assert presupuesto.segundos_estimados(65e12 * 0.25) == pytest.approx(1.0)
    assert presupuesto.segundos_estimados(1e12, tflops_pico=1.0, utilizacion=0.5) == pytest.approx(2.0)


@pytest.mark.parametrize("llamada, mensaje", [
    (lambda: presupuesto.flops_adelante_por_token(presupuesto.FormaDeComputo(1, 1, 1), 0), "secuencia"),
    (lambda: presupuesto.flops_entrenamiento_por_token(presupuesto.FormaDeComputo(1, 1, 1), 8, "dpo"),
     "Método desconocido"),
    (lambda: presupuesto.segundos_estimados(1.0, utilizacion=1.5), "fracción del pico"),
    (lambda: presupuesto.forma_de_computo(object()), "No sé contar los FLOPs"),
])
def test_entradas_invalidas_dan_errores_en_espanol(llamada, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        llamada()
