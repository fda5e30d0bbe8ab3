"""El ajuste en modo rápido aprende español de verdad: si no, las lecciones que entrenan no enseñan nada.

Con su receta medida (``recursos.RECETA_E5``), multilingual-e5-small (``recursos.ruta_e5``, el
reemplazo multilingüe de MiniLM en modo rápido) ajustado en CPU llegó aquí al 82,8 % de exactitud en
la validación de ``resenas`` (48 % antes de entrenar; MiniLM con su receta: 57,1 %) y al 87,5 % en
48 reseñas nuevas que escribió el equipo aparte del dataset (``tests/datos/resenas_nuevas``), con
otros dominios y otras frases. La meta del issue 12 es 85 % en validación: todavía no se alcanza.
Las cifras se imprimen; el tiempo se mide en ``python -m benchmarks codificador``, no aquí. El entrenamiento en CPU con semilla fija es determinista en una misma
máquina, así que el margen cubre solo diferencias entre procesadores.
"""

import pytest

from benchmarks.tareas import ajustar_en_proceso, leer_resenas_nuevas


def test_hay_al_menos_40_resenas_nuevas_equilibradas_y_fuera_del_dataset():
    from tutor_lib import recursos

    textos, etiquetas = leer_resenas_nuevas()
    assert len(textos) >= 40 and sum(etiquetas) == len(etiquetas) // 2
    del_dataset = set()
    for division in recursos.cargar_dataset("resenas", modo="rapido").values():
        del_dataset |= set(division["text"])
    assert not set(textos) & del_dataset


@pytest.mark.lento
@pytest.mark.timeout(1200)
def test_e5_aprende_sentimiento_en_espanol(tmp_path):
    r = ajustar_en_proceso("multilingual-e5-small", str(tmp_path))
    print(
        f"validación {r.exactitud_antes:.1%} → {r.exactitud_validacion:.1%}; reseñas nuevas "
        f"{r.exactitud_nuevas:.1%}; entrenamiento {r.exactitud_entrenamiento:.1%}; {r.segundos:.0f} s "
        f"({r.pasos} pasos, {r.entrenables:,} de {r.parametros:,} parámetros entrenables)"
    )
    assert r.modelo == "multilingual-e5-small" and r.parametros > 100_000_000  # no MiniLM (22,7 M) por error
    assert r.exactitud_validacion >= 0.80  # medido: 82,8 %
    assert r.exactitud_nuevas >= 0.80  # medido: 87,5 %
    assert r.exactitud_validacion >= r.exactitud_antes + 0.2, "el ajuste apenas movió al modelo"


@pytest.mark.lento
@pytest.mark.timeout(900)
def test_minilm_del_modo_rapido_actual_aprende_algo(tmp_path):
    """Las lecciones todavía usan all-MiniLM-L6-v2 (inglés) con ``RECETAS["rapido"]``: que al menos aprenda.

    Medido aquí: validación 54,5 % → 57,1 %, reseñas nuevas 64,6 % (la validación está equilibrada:
    adivinar da 50 %).
    """
    r = ajustar_en_proceso("all-MiniLM-L6-v2", str(tmp_path))
    print(f"validación {r.exactitud_antes:.1%} → {r.exactitud_validacion:.1%}; nuevas {r.exactitud_nuevas:.1%}")
    assert r.exactitud_entrenamiento >= 0.65, "el modelo no logró ajustarse ni a sus datos de entrenamiento"
    assert r.exactitud_validacion >= 0.55
    assert r.exactitud_validacion >= r.exactitud_antes + 0.02
