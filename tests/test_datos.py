"""Los datasets propios del curso: tamaño, campos, equilibrio y sin duplicados."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tutor_lib import recursos
from tutor_lib.datos_utiles import clave_normalizada, normalizar_texto

CARPETA = Path(recursos.CARPETA_DATOS)
MINIMOS = {"resenas": 1200, "parafrasis": 600, "instrucciones": 200, "preferencias": 150}


def filas(nombre: str) -> list[dict]:
    todas = []
    for division in recursos.DIVISIONES:
        ruta = CARPETA / nombre / f"{division}.jsonl"
        todas += [json.loads(l) for l in ruta.read_text(encoding="utf-8").splitlines() if l.strip()]
    return todas


@pytest.mark.parametrize("nombre", MINIMOS)
def test_tamano_minimo_y_tres_divisiones(nombre):
    assert len(filas(nombre)) >= MINIMOS[nombre]
    for division in recursos.DIVISIONES:
        assert (CARPETA / nombre / f"{division}.jsonl").stat().st_size > 0


@pytest.mark.parametrize("nombre", MINIMOS)
def test_sin_duplicados_normalizados(nombre):
    claves = Counter(clave_normalizada(f) for f in filas(nombre))
    repetidas = [k for k, n in claves.items() if n > 1]
    assert not repetidas, f"filas duplicadas en {nombre}: {repetidas[:3]}"


def test_normalizacion_ignora_mayusculas_tildes_y_puntuacion():
    assert normalizar_texto("¡Qué PELÍCULA, tan buena!") == normalizar_texto("que pelicula tan buena")


@pytest.mark.parametrize("nombre", ["resenas", "parafrasis"])
def test_clases_equilibradas(nombre):
    etiquetas = Counter(f["label"] for f in filas(nombre))
    assert set(etiquetas) == {0, 1}
    assert max(etiquetas.values()) / sum(etiquetas.values()) <= 0.55


def test_resenas_campos_y_longitud():
    for f in filas("resenas"):
        assert isinstance(f["text"], str) and f["label"] in (0, 1)
        assert 5 <= len(f["text"].split()) <= 80, f["text"]


def test_resenas_cubren_dominios_variados():
    dominios = Counter(f["dominio"] for f in filas("resenas"))
    for esperado in ("peliculas", "libros", "restaurantes", "productos", "servicios"):
        assert dominios[esperado] >= 50


def test_parafrasis_campos():
    for f in filas("parafrasis"):
        assert f["sentence1"].strip() and f["sentence2"].strip() and f["label"] in (0, 1)
        assert f["sentence1"] != f["sentence2"]


def test_instrucciones_formato_messages():
    for f in filas("instrucciones"):
        roles = [m["role"] for m in f["messages"]]
        if roles[0] == "system":
            roles = roles[1:]
        assert roles and roles[-1] == "assistant"
        assert roles == ["user", "assistant"] * (len(roles) // 2), roles
        assert all(m["content"].strip() for m in f["messages"])


def test_preferencias_campos():
    for f in filas("preferencias"):
        assert f["prompt"].strip() and f["chosen"].strip() and f["rejected"].strip()
        assert normalizar_texto(f["chosen"]) != normalizar_texto(f["rejected"])


@pytest.mark.parametrize("nombre", MINIMOS)
def test_divisiones_sin_filas_compartidas(nombre):
    vistas: dict[str, str] = {}
    for division in recursos.DIVISIONES:
        ruta = CARPETA / nombre / f"{division}.jsonl"
        for l in ruta.read_text(encoding="utf-8").splitlines():
            clave = clave_normalizada(json.loads(l))
            assert vistas.setdefault(clave, division) == division, f"fila en {vistas[clave]} y {division}"


def test_la_ficha_tecnica_coincide_con_los_archivos():
    ficha = (CARPETA / "DATASHEET.md").read_text(encoding="utf-8")
    for nombre in MINIMOS:
        tamanos = [sum(1 for _ in open(CARPETA / nombre / f"{d}.jsonl", encoding="utf-8")) for d in recursos.DIVISIONES]
        fila = f"| `{nombre}` | {tamanos[0]} | {tamanos[1]} | {tamanos[2]} | {sum(tamanos)} |"
        assert fila in ficha, f"la tabla de DATASHEET.md no coincide para {nombre}: se esperaba {fila}"
