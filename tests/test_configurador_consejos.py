"""Consejos del configurador (issue 43, puntos 4 y 12).

Punto 4: todo consejo de lote y acumulación conserva el lote efectivo exacto
(lote × acumulación × dispositivos) o dice que cambia y de cuánto a cuánto. Se
barren muchas combinaciones de lote, acumulación y memoria (modelo, GPU,
secuencia) por :func:`revisar_configuracion`, la regla real.

Punto 12: el widget del configurador se lee con cualquier fuente: sin emoji
(fuera del plano básico, o de los bloques de símbolos que Chromium pinta con
una fuente de emoji) ni selectores de variación U+FE0F.
"""

from __future__ import annotations

import itertools
import re

import pytest

from tutor_lib import configurador as cf
from tutor_lib.configurador import lote as reparto
from tutor_lib.configurador import vista

# --------------------------------------------------------------------------
# Punto 4: el lote efectivo de cada consejo
# --------------------------------------------------------------------------

#: «lote 8 con gradient_accumulation_steps=2 (mismo lote efectivo: 8 × 2 = 16)»
#: o «..., o lote 9 con gradient_accumulation_steps=2, que cambia el lote efectivo de 16 a 18 (...)».
CONSEJO_REPARTO = re.compile(
    r"lote (?P<lote>\d+) con gradient_accumulation_steps=(?P<acumulacion>\d+)"
    r"(?P<resto>(?: \(mismo lote efectivo[^)]*\))|(?:, que cambia el lote efectivo de (?P<de>\d+) a (?P<a>\d+)))?"
)
#: «p. ej. acumulación 6: el lote efectivo cambia de 3 a 18»
CONSEJO_ACUMULACION = re.compile(
    r"acumulación (?P<acumulacion>\d+)(?P<resto>: el lote efectivo cambia de (?P<de>\d+) a (?P<a>\d+))?"
)
#: Un producto escrito: «8 × 2 = 16» o «8 × 2 × 2 dispositivos = 32».
PRODUCTO = re.compile(r"(\d+) × (\d+)(?: × (\d+) dispositivos)? = (\d+)")


def _consejos(mensaje: str, c: cf.Configuracion) -> list[str]:
    """Comprueba cada consejo de lote/acumulación de ``mensaje``; devuelve sus tipos («igual», «cambia»)."""
    efectivo = c.lote_efectivo
    tipos = []
    for m in CONSEJO_REPARTO.finditer(mensaje):
        nuevo = int(m["lote"]) * int(m["acumulacion"]) * c.dispositivos
        assert m["resto"], f"consejo de lote sin decir qué pasa con el lote efectivo: {m.group()!r} en {mensaje!r}"
        if m["de"] is None:
            assert nuevo == efectivo, f"dice «mismo lote efectivo» pero {m.group()!r} da {nuevo}, no {efectivo}"
            assert int(m["lote"]) < c.lote, f"el consejo no baja el lote: {m.group()!r} con lote {c.lote}"
            tipos.append("igual")
        else:
            assert (int(m["de"]), int(m["a"])) == (efectivo, nuevo), f"{m.group()!r}: el cambio no cuadra"
            assert nuevo != efectivo
            tipos.append("cambia")
    for m in CONSEJO_ACUMULACION.finditer(mensaje):
        nuevo = c.lote * int(m["acumulacion"]) * c.dispositivos
        if nuevo == efectivo:
            tipos.append("igual")
            continue
        assert m["resto"], f"«{m.group()}» cambia el lote efectivo ({efectivo} → {nuevo}) sin decirlo: {mensaje!r}"
        assert (int(m["de"]), int(m["a"])) == (efectivo, nuevo), f"{m.group()!r}: el cambio no cuadra"
        tipos.append("cambia")
    for m in PRODUCTO.finditer(mensaje):  # todo producto escrito es aritmética correcta
        a, b, d, total = int(m[1]), int(m[2]), int(m[3] or 1), int(m[4])
        assert a * b * d == total, f"cuenta mal escrita: {m.group()!r}"
    return tipos


MODELOS = [
    ("qlora", 8_030_261_248, "causal"),
    ("lora", 1_235_814_400, "causal"),
    ("completo", 66_955_010, "clasificacion"),
    ("completo", 109_483_778, "clasificacion"),
]
GPUS = ["T4", "A100 40GB"]
LOTES = [2, 3, 5, 7, 9, 12, 16, 17, 24, 32, 48, 64, 96]
ACUMULACIONES = [1, 2, 3]


def _revisiones():
    for (metodo, parametros, tarea), gpu, lote, acumulacion, secuencia, dispositivos in itertools.product(
        MODELOS, GPUS, LOTES, ACUMULACIONES, (512, 2048), (1, 2)
    ):
        c = cf.Configuracion(
            metodo=metodo, parametros=parametros, tarea=tarea, ejemplos=20_000, lr=2e-4 if metodo != "completo" else 2e-5,
            lote=lote, acumulacion=acumulacion, dispositivos=dispositivos, epocas=2, warmup=0.06, gpu=gpu,
            secuencia=secuencia, checkpointing=False,
        )
        yield c, cf.revisar_configuracion(c)


def test_todo_consejo_de_lote_conserva_el_lote_efectivo_o_dice_que_cambia():
    vistos = {"igual": 0, "cambia": 0}
    niveles_memoria = set()
    for c, revision in _revisiones():
        for h in revision.hallazgos:
            for tipo in _consejos(h.mensaje, c):
                vistos[tipo] += 1
            if h.parametro == "memoria":
                niveles_memoria.add(h.nivel)
    # el barrido pasa de verdad por los tres casos: no cabe, va justo y cabe; y por los dos tipos de consejo
    assert niveles_memoria == {"ok", "aviso", "error"}
    assert vistos["igual"] > 50 and vistos["cambia"] > 5, vistos


def test_el_caso_del_issue_qlora_8b_lote_16_en_t4():
    """El ejemplo del issue: antes decía «lote 9 con gradient_accumulation_steps=2 (mismo lote efectivo)» (18)."""
    c = cf.Configuracion(metodo="qlora", parametros=8e9, tarea="causal", ejemplos=2000, lr=2e-4, lote=16,
                         epocas=2, gpu="T4", secuencia=1024)
    revision = cf.revisar_configuracion(c)
    memoria = next(h for h in revision.hallazgos if h.parametro == "memoria")
    assert memoria.nivel == "error"
    assert _consejos(memoria.mensaje, c) == ["igual"]
    assert "lote 8 con gradient_accumulation_steps=2 (mismo lote efectivo: 8 × 2 = 16)" in memoria.mensaje


@pytest.mark.parametrize("por_dispositivo", range(2, 130))
def test_repartir_lote_da_siempre_el_mismo_producto(por_dispositivo):
    for lote in (d for d in range(2, por_dispositivo + 1) if por_dispositivo % d == 0):
        acumulacion = por_dispositivo // lote
        for maximo in range(1, lote):
            for dispositivos in (1, 3):
                c = cf.Configuracion(lote=lote, acumulacion=acumulacion, dispositivos=dispositivos)
                texto = reparto.repartir_lote(lote, acumulacion, maximo, dispositivos)
                tipos = _consejos(texto, c)
                assert tipos[0] == "igual"
                nuevo = int(re.match(r"lote (\d+)", texto)[1])
                assert nuevo <= maximo  # cabe
                # y es el mayor divisor que cabe: nada mejor se quedó sin decir
                assert all(por_dispositivo % d for d in range(nuevo + 1, maximo + 1))


def test_divisor_mayor():
    assert reparto.divisor_mayor(16, 9) == 8
    assert reparto.divisor_mayor(17, 9) == 1
    assert reparto.divisor_mayor(36, 36) == 36
    assert reparto.divisor_mayor(36, 35) == 18
    with pytest.raises(ValueError, match="tope"):
        reparto.divisor_mayor(16, 0)


def test_primo_sin_divisor_cercano_ofrece_la_alternativa_y_dice_cuanto_cambia():
    texto = reparto.repartir_lote(17, 1, 9)
    assert texto.startswith("lote 1 con gradient_accumulation_steps=17 (mismo lote efectivo: 1 × 17 = 17)")
    assert "lote 9 con gradient_accumulation_steps=2, que cambia el lote efectivo de 17 a 18" in texto


# --------------------------------------------------------------------------
# Punto 12: el widget sin emoji
# --------------------------------------------------------------------------

#: Bloques que Chromium suele pintar con una fuente de emoji (✅ U+2705, ❌ U+274C, ⚠ U+26A0, ⭐ U+2B50...).
_BLOQUES_EMOJI = ((0x2600, 0x27BF), (0x2B00, 0x2BFF), (0x1F000, 0x1FAFF))


def _caracteres_problematicos(texto: str) -> set[str]:
    malos = set()
    for ch in texto:
        n = ord(ch)
        if n > 0xFFFF or n == 0xFE0F or any(a <= n <= b for a, b in _BLOQUES_EMOJI):
            malos.add(f"U+{n:04X} {ch!r}")
    return malos


def _html_del_panel(panel) -> str:
    return "".join(
        w.value for w in (panel.salida_resumen, panel.texto_memoria, panel.salida_hallazgos, panel.grafica,
                          panel.salida_codigo)
    )


def test_el_detector_ve_los_emoji_de_antes():
    """Los iconos anteriores (✅, ⚠️, ❌) los detecta: la prueba de abajo puede fallar."""
    for viejo in ("✅", "⚠️", "❌", "\u26a0"):
        assert _caracteres_problematicos(f"<span>{viejo}</span> 1")


def test_widget_sin_emoji_en_ningun_estado(monkeypatch):
    pytest.importorskip("ipywidgets")
    panel = cf.widget_configurador()
    c = panel.controles
    estados = [
        {},
        {"precision": "bf16"},  # error de bf16 en una T4
        {"modelo": "llama-3-8b"},  # no cabe
        {"metodo": "qlora", "lote": 1},
        {"lr": 5e-3, "weight_decay": 0.3},  # error y aviso
        {"gpu": "cpu"},
    ]
    niveles = set()
    for cambios in estados:
        for nombre, valor in cambios.items():
            c[nombre].value = valor
        html = _html_del_panel(panel)
        assert not _caracteres_problematicos(html), (cambios, _caracteres_problematicos(html))
        niveles |= {h.nivel for h in panel.revision.hallazgos}
        for nivel in ("ok", "aviso", "error"):  # el resumen cuenta los tres niveles con su marca de texto
            assert re.search(rf"{re.escape(cf.ICONOS[nivel])}</span> \d+", panel.salida_resumen.value)
    assert niveles == {"ok", "aviso", "error"}
    # cada hallazgo lleva su marca en texto, la misma que la salida de `tutor configurar`
    for h in panel.revision.hallazgos:
        assert f"[{h.nivel.upper()}]" in vista.marca_html(h.nivel)
    assert panel.salida_hallazgos.value.count('class="tutor-marca"') == len(panel.revision.hallazgos)

    # la vía de error del widget («Revisa los valores») también usa la marca de texto
    def falla(_configuracion):
        raise ValueError("lr fuera de rango")

    monkeypatch.setattr("tutor_lib.configurador.widget.revisar_configuracion", falla)
    panel.actualizar()
    assert "[ERROR]" in panel.salida_hallazgos.value and "Revisa los valores" in panel.salida_hallazgos.value
    assert not _caracteres_problematicos(panel.salida_hallazgos.value)


def test_marcas_de_texto_legibles_sin_color():
    """El significado va en el texto (daltonismo): tres marcas distintas, solo ASCII."""
    marcas = [vista.ICONOS[n] for n in ("ok", "aviso", "error")]
    assert len(set(marcas)) == 3 and all(m.isascii() and m.strip("[]").isalpha() for m in marcas)
    resumen = vista.hallazgos_html([cf.Hallazgo("aviso", "lr", "texto", "fuente")])
    assert "[AVISO]" in re.sub(r"<[^>]+>", "", resumen)
