"""El presupuesto de cada lección en una T4: el encabezado de cada cuaderno es el que sale de la cuenta y cabe.

Y una trampa por lección: las cifras que el presupuesto supone (reseñas, lotes, pasos, rangos de LoRA)
tienen que seguir escritas en el código del modo completo del cuaderno; si alguien cambia la lección sin
cambiar el presupuesto, esta prueba lo dice.
"""

from __future__ import annotations

import dataclasses
import json
import math
import shutil

import pytest

from tutor_lib import presupuesto, presupuesto_lecciones as pl, recursos, vram, warmup


def _codigo(leccion: str) -> str:
    celdas = json.loads(pl.cuaderno(leccion).read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in celdas if c["cell_type"] == "code")


def test_cada_leccion_con_modo_completo_tiene_presupuesto():
    cuadernos = sorted(p.name[:2] for p in pl.cuaderno("01").parent.glob("[0-9][0-9]_*.ipynb"))
    assert [c for c in cuadernos if c != "00"] == list(pl.LECCIONES)  # la 00 no entrena nada


@pytest.mark.parametrize("leccion", pl.LECCIONES)
def test_el_encabezado_del_cuaderno_es_el_generado(leccion):
    en_cuaderno = pl.texto_en_cuaderno(pl.cuaderno(leccion))
    assert en_cuaderno is not None, f"la lección {leccion} no tiene las marcas {pl.MARCA_INICIO}"
    assert en_cuaderno == pl.texto_encabezado(leccion), (
        "el encabezado no coincide con la cuenta: corre python -m tutor_lib.presupuesto_lecciones --escribir")


@pytest.mark.parametrize("leccion", pl.LECCIONES)
def test_la_marca_no_abre_un_bloque_html(leccion):
    """En Markdown, una línea que empieza con ``<!--`` abre un bloque HTML: lo que sigue no se vería con formato."""
    for celda in json.loads(pl.cuaderno(leccion).read_text(encoding="utf-8"))["cells"]:
        for linea in "".join(celda["source"]).splitlines():
            assert not linea.lstrip().startswith(pl.MARCA_INICIO), f"lección {leccion}: {linea[:80]}"


@pytest.mark.parametrize("leccion", pl.LECCIONES)
def test_cada_leccion_cabe_en_una_t4_y_en_media_hora(leccion):
    p = pl.presupuesto_leccion(leccion)
    assert p.memoria_bytes <= 14 * vram.GIB
    assert p.cabe(), f"{pl._gib(p.memoria_bytes)} no cabe en lo utilizable de una T4"
    assert 0 < p.segundos <= pl.MINUTOS_MAXIMOS * 60


def test_la_prueba_de_tiempo_puede_fallar_la_leccion_3_con_todas_las_resenas_no_cabe():
    entera = pl.presupuesto_leccion("03", dataclasses.replace(recursos.RECETAS["completo"], muestras_entrenamiento=None))
    assert entera.segundos > pl.MINUTOS_MAXIMOS * 60
    assert entera.filas[0].fase.pasos == 30_000  # 160 000 reseñas / 16 × 3 épocas
    assert "30 000" not in pl.texto_encabezado("03") and "160 000 reseñas" in pl.texto_encabezado("03")


def test_la_fase_de_la_leccion_3_da_los_pasos_que_cuenta_el_trainer():
    receta = recursos.RECETAS["completo"]
    fase, pares = pl.fases("03")
    assert pl.resenas_utiles("train") == 160_000 and pl.resenas_utiles("validation") == 4_000
    assert fase.pasos == warmup.pasos_totales(receta.muestras_entrenamiento, receta.lote, receta.epocas) == 3750
    assert (fase.lote, fase.secuencia) == (receta.lote, receta.max_length)
    # sección 12: los pares de PAWS-X, tres veces con el mismo presupuesto
    receta_pares = recursos.RECETAS_PARES["completo"]
    assert pares.pasos == warmup.pasos_totales(receta_pares.muestras_entrenamiento, receta_pares.lote,
                                               receta_pares.epocas) == 1000
    assert pares.repeticiones == 3 and pares.evaluadas == 4 * 2_000


def test_el_tiempo_de_una_fase_se_rehace_a_mano():
    """La lección 11: 40 pasos × 8 × 256 tokens de QLoRA con checkpointing, más dos pasadas por la validación."""
    (fila,) = pl.presupuesto_leccion("11").filas
    forma = presupuesto.forma_de_computo(recursos.construir_en_meta("Qwen/Qwen2.5-0.5B-Instruct"))
    adelante = 2 * forma.pesos_lineales + 2 * forma.capas * 256 * forma.ancho
    lora = vram.estimar_memoria(recursos.cargar_config("Qwen/Qwen2.5-0.5B-Instruct"), metodo="qlora", r=16,
                                modulos="all-linear", tarea="causal").parametros_entrenables
    por_token = 3 * adelante + 2 * lora  # adelante, atrás (solo activaciones + adaptadores) y el recómputo
    validacion = len(recursos.cargar_dataset("instrucciones", modo="rapido")["validation"])
    flops = 40 * 8 * 256 * por_token + 2 * validacion * 256 * adelante
    assert fila.flops == pytest.approx(flops)
    assert fila.segundos == pytest.approx(flops / (65e12 * 0.25))


def test_las_fases_en_fp32_usan_el_pico_de_fp32():
    fp32, mixta = pl.presupuesto_leccion("01").filas
    assert fp32.fase.precision == "fp32" and mixta.fase.precision_efectiva == "mixta" == pl.precision_t4()
    por_paso_fp32 = fp32.segundos / (fp32.fase.pasos * fp32.fase.repeticiones)
    assert por_paso_fp32 > 5 * mixta.segundos / mixta.fase.pasos  # 65 / 8.1 TFLOPS, menos la evaluación


def test_los_datos_del_hub_se_leen_del_codigo_de_la_leccion():
    assert pl.datos_del_hub("02") == ["parafrasis"]
    assert pl.datos_del_hub("04") == []  # pide modo="rapido": las reseñas del curso en los dos modos
    assert pl.datos_del_hub("08") == ["resenas", "parafrasis"]
    assert pl.datos_del_hub("12") == []
    assert "`SetFit/amazon_reviews_multi_es`" in pl.texto_encabezado("03")


def test_la_descarga_sale_del_dtype_del_checkpoint():
    assert pl.descarga_bytes("dccuchile/bert-base-spanish-wwm-cased") == 4 * vram.estimar_memoria(
        recursos.cargar_config("dccuchile/bert-base-spanish-wwm-cased")).parametros  # guardado en fp32
    assert pl.descarga_bytes("Qwen/Qwen2.5-0.5B-Instruct") == 2 * 494_032_768  # guardado en bf16


def test_escribir_encabezado_repara_un_cuaderno_desactualizado(tmp_path):
    copia = tmp_path / "lessons"
    copia.mkdir()
    ruta = copia / pl.cuaderno("11").name
    shutil.copy(pl.cuaderno("11"), ruta)
    texto = ruta.read_text(encoding="utf-8")
    ruta.write_text(texto.replace(pl.texto_encabezado("11"), "unos 5 minutos, escrito a mano"), encoding="utf-8")
    assert pl.texto_en_cuaderno(ruta) == "unos 5 minutos, escrito a mano"
    assert pl.escribir_encabezado(ruta, "11") is True
    assert ruta.read_text(encoding="utf-8") == texto  # mismo formato de JSON que el del repositorio
    assert pl.escribir_encabezado(ruta, "11") is False


def test_un_cuaderno_sin_marcas_da_un_error_en_espanol(tmp_path):
    ruta = tmp_path / "11_x.ipynb"
    ruta.write_text(json.dumps({"cells": [{"cell_type": "markdown", "source": ["hola"]}]}), encoding="utf-8")
    with pytest.raises(ValueError, match="no tiene las marcas"):
        pl.escribir_encabezado(ruta, "11")
    with pytest.raises(ValueError, match="no tiene modo completo"):
        pl.fases("15")
    with pytest.raises(FileNotFoundError, match="No encuentro el cuaderno de la lección 11"):
        pl.cuaderno("11", tmp_path / "sin_lecciones")


# Lo que cada presupuesto supone del código del modo completo de su lección (rama ``else`` del modo).
SUPUESTOS = {
    "01": ["CONFIG = dict(muestras_train=3000, muestras_validacion=1000, ejemplos_por_lote=16,", "epocas=1,",
           "MAX_TOKENS = 128", '"sin zero_grad()"', '"lr demasiado alta"', "Accelerator(mixed_precision"],
    "02": ["cargar_dataset(\"parafrasis\")"],
    "04": ["n_resenas, max_length = 32, 128"],
    "05": ["N_ENTRENAMIENTO, N_VALIDACION, LOTE, MAX_LENGTH = 4000, 400, receta.lote, receta.max_length",
           "CADA, TOPE_ES = 25, 500", "max_steps=6", "max_steps=200"],
    "06": ["N_DESBALANCE, N_VALIDACION = 4000, 1000", "EPOCAS_DESBALANCE, LR_DESBALANCE = 1,", "N_LM, LARGO_LM = 32, 128",
           "max_steps=3", "per_device_train_batch_size=4", "dtype=torch.float32"],
    "07": ["LOTE, SECUENCIA = 16, 128"],
    "08": ["MUESTRAS_ENTRENAMIENTO = 4000", "entrenar_transformer(resenas, receta, MUESTRAS_ENTRENAMIENTO)",
           "num_train_epochs=receta.epocas"],
    "09": ["select(range(2000))", "select(range(500))", "num_train_epochs=2", "eval_steps=10"],
    "10": ["n_entrenamiento, n_evaluacion, max_length, epocas = 4000, 1000, receta.max_length, 1", "r=8",
           'target_modules=["query", "value"]'],
    "11": ["n_entrenamiento, n_validacion, largo_maximo, lote, pasos, tasa = None, None, 256, 8, 40, 2e-4",
           "r, alfa = 16, 32", 'target_modules="all-linear"', "prepare_model_for_kbit_training"],
    "12": ["max_length, lote, epocas_sft, tasa_sft = 512, 4, 3, 2e-4",
           'pares_dpo, lote_dpo, epocas_dpo, tasa_dpo = pares["train"], 4, 2, 5e-5', "r=16",
           "activation_checkpointing=ENTORNO.gpu is not None"],
    "13": ['MODELO, SECUENCIA = recursos.nombre_modelo("causal", "completo"), 128',
           "PASOS, LOTE_POR_DISPOSITIVO = 4, 4", "--lote-por-dispositivo", 'dtype=torch.float32'],
    "14": ["epocas, lote, acumulacion, tasa, max_length = 2, 4, 4, 2e-4, 512", 'objetivo = dict(target_modules="all-linear")',
           "r=16", "activation_checkpointing=ENTORNO.gpu is not None", 'recursos.nombre_modelo("proyecto")'],
}


@pytest.mark.parametrize("leccion", pl.LECCIONES)
def test_el_presupuesto_supone_lo_que_el_cuaderno_hace(leccion):
    codigo = _codigo(leccion)
    if leccion in ("03",):
        assert "receta = recursos.receta_clasificacion(ENTORNO.modo)" in codigo
        assert "entrenamiento.select(range(min(receta.muestras_entrenamiento" in codigo
        return
    faltan = [s for s in SUPUESTOS[leccion] if s not in codigo]
    assert not faltan, f"la lección {leccion} cambió; actualiza tutor_lib/presupuesto_lecciones.py: {faltan}"


def test_la_receta_del_modo_completo_se_recorto_para_caber():
    receta = recursos.RECETAS["completo"]
    assert receta.muestras_entrenamiento == 20_000
    assert math.ceil(receta.muestras_entrenamiento / receta.lote) * receta.epocas < 30_000


def test_la_tabla_de_rendimiento_es_la_de_la_cuenta():
    """La tabla vive en course/RENDIMIENTO.md (issue 44, punto 4), y el README enlaza esa página."""
    raiz = pl.cuaderno("01").parent.parent
    rendimiento = (raiz / "course" / "RENDIMIENTO.md").read_text(encoding="utf-8")
    assert pl.tabla() in rendimiento, (
        "actualiza la tabla de course/RENDIMIENTO.md con python -m tutor_lib.presupuesto_lecciones")
    readme = (raiz / "README.md").read_text(encoding="utf-8")
    assert "](course/RENDIMIENTO.md)" in readme, "el README debe enlazar course/RENDIMIENTO.md"
