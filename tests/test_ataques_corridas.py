"""Corridas anteriores y copias del curso fuera de la carpeta personal: el kernel no las ve (issue 39, puntos 1 y 2).

Una clase de ``ej11_qlora`` vive en ``/srv`` (fuera de ``$HOME`` y de las carpetas temporales), junto a
una copia del curso con sus soluciones, y se califica tres veces, como lo haría un instructor:

1. ``tutor calificar`` desde esa carpeta: Ana entrega la solución, Beto el ejercicio sin resolver;
2. ``python -m tutor_lib calificar`` desde esa misma carpeta (``sys.path[0]`` es la carpeta actual):
   Beto cambia su entrega por un ataque;
3. ``tutor calificar`` otra vez, con otra versión del ataque. Ya hay dos corridas anteriores al lado
   (``calificaciones_<asig>.anterior-*``), con el notebook calificado de Ana y la libreta.

El ataque recorre todo el disco que ve: si encuentra un notebook con soluciones (el de Ana en una
corrida anterior, la copia del curso) ejecuta sus celdas de solución para quedarse con su nota, y si
encuentra la libreta, las notas o las pruebas ocultas, lo dice (``FU`` ``GA``). Con el aislamiento por
lista de permitidos nada de eso existe para el kernel: Beto saca lo mismo que sin el ataque.
Además, las carpetas de salida (la nueva y las anteriores) no son legibles por otros usuarios.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import nbformat
import pytest

from tutor_lib.calificacion.motor.calificador import CursoTemporal, entrega_de_referencia, fuente

RAIZ = Path(__file__).resolve().parents[1]
ASIG = "ej11_qlora"
TUTOR = Path(sys.executable).parent / "tutor"

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="el aislamiento solo existe en Linux")

ATAQUE = """
# VARIANTE {variante}
import json, os, pathlib, sys
propio = str(pathlib.Path.cwd())
saltar = ("/proc", "/sys", "/dev", "/usr", sys.prefix, sys.base_prefix)
def _archivos():
    vistos = 0
    for raiz in ("/srv", "/opt", "/home", "/mnt", "/var", "/work", "/root", "/tmp", "/"):
        for base, carpetas, archivos in os.walk(raiz, onerror=lambda e: None):
            carpetas[:] = [c for c in carpetas if not os.path.join(base, c).startswith(saltar)]
            for a in archivos:
                vistos += 1
                if vistos > 150000:
                    return
                yield os.path.join(base, a)
copiadas = set()
for ruta in _archivos():
    if ruta.startswith(propio) or ruta in copiadas:
        continue
    copiadas.add(ruta)
    nombre = os.path.basename(ruta)
    if nombre.endswith(".ipynb"):
        try:
            with open(ruta, encoding="utf-8") as f:
                nb = json.load(f)
        except (OSError, ValueError):
            continue
        fuentes = ["".join(c.get("source", "")) for c in nb.get("cells", []) if c.get("cell_type") == "code"
                   and (c.get("metadata", {{}}).get("nbgrader", {{}}) or {{}}).get("solution")]
        if fuentes and not any("NotImplementedError" in x for x in fuentes):
            for x in fuentes:
                try:
                    exec(x, globals())
                except Exception:
                    pass
            print("FU" "GA: ejecuté la solución de", ruta)
        if any("HIDDEN TESTS" in "".join(c.get("source", "")) for c in nb.get("cells", [])):
            print("FU" "GA: pruebas ocultas en", ruta)
    elif nombre in ("gradebook.db", "calificaciones.csv", "calificaciones.json", "detalle.json", "avance.jsonl"):
        try:
            with open(ruta, "rb") as f:
                f.read(16)
            print("FU" "GA: leí", ruta)
        except OSError:
            pass
print("ATAQUE" "-FIN")
"""


def _con_ataque(nb, variante: str):
    nuevo = nbformat.from_dict(json.loads(nbformat.writes(nb)))
    nbg = lambda c: c.get("metadata", {}).get("nbgrader", {}) or {}  # noqa: E731
    primera = next(i for i, c in enumerate(nuevo.cells) if nbg(c).get("solution") and c.cell_type == "code")
    nuevo.cells.insert(primera + 1, nbformat.v4.new_code_cell(textwrap.dedent(ATAQUE.format(variante=variante))))
    return nuevo


def _base() -> Path:
    for lugar in ("/srv", "/opt", "/mnt"):
        if os.access(lugar, os.W_OK):
            return Path(tempfile.mkdtemp(prefix="tutor-clase-", dir=lugar))
    pytest.skip("ni /srv, ni /opt, ni /mnt se pueden escribir: esta prueba necesita una clase fuera de $HOME y de /tmp")


def _calificar(orden: list[str], cwd: Path) -> dict:
    proc = subprocess.run([*orden, "calificar", ASIG, "entregas", "--procesos", "1", "--json"], cwd=cwd,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{orden} falló ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return json.loads(proc.stdout)


def _textos(carpeta: Path) -> str:
    partes = []
    for ruta in carpeta.rglob("*"):
        if ruta.is_file() and ruta.suffix in (".ipynb", ".log", ".json", ".jsonl", ".html", ".csv"):
            partes.append(ruta.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(partes)


@pytest.fixture(scope="module")
def corridas():
    base = _base()
    try:
        # Otra copia del curso, fuera de $HOME: sus soluciones tampoco se ven.
        copia = base / "curso" / "solutions" / ASIG
        copia.mkdir(parents=True)
        shutil.copy2(fuente(ASIG), copia / f"{ASIG}.ipynb")
        with CursoTemporal(ASIG) as curso:
            liberado = curso.liberado
        referencia = entrega_de_referencia(nbformat.read(fuente(ASIG), as_version=4), liberado)
        entregas = base / "entregas"
        for nombre, nb in (("ana", referencia), ("beto", liberado)):
            (entregas / nombre).mkdir(parents=True)
            nbformat.write(nb, entregas / nombre / f"{ASIG}.ipynb")
        primera = _calificar([str(TUTOR)], base)
        salida = base / f"calificaciones_{ASIG}"
        assert (salida / "autocalificados" / "ana.ipynb").is_file()

        resultados = []
        for variante, orden in (("python -m", [sys.executable, "-m", "tutor_lib"]), ("tutor", [str(TUTOR)])):
            nbformat.write(_con_ataque(liberado, variante), entregas / "beto" / f"{ASIG}.ipynb")
            datos = _calificar(orden, base)
            resultados.append((variante, datos, _textos(salida)))
        anteriores = sorted(base.glob(f"calificaciones_{ASIG}.anterior-*"))
        yield dict(base=base, primera=primera, resultados=resultados, salida=salida, anteriores=anteriores)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_la_clase_vive_fuera_de_home_y_hay_corridas_anteriores(corridas):
    assert not str(corridas["base"]).startswith(str(Path.home()))
    assert not str(corridas["base"]).startswith(tempfile.gettempdir())
    assert len(corridas["anteriores"]) == 2, corridas["anteriores"]
    for anterior in corridas["anteriores"]:
        assert (anterior / "autocalificados" / "ana.ipynb").is_file()
    e = corridas["primera"]["estudiantes"]
    assert e["ana"]["puntos"] == corridas["primera"]["maximo"] and e["beto"]["puntos"] < e["ana"]["puntos"], e


@pytest.mark.parametrize("indice", [0, 1], ids=["python -m tutor_lib", "tutor"])
def test_el_ataque_no_copia_ni_lee_nada_de_otras_corridas(corridas, indice):
    variante, datos, textos = corridas["resultados"][indice]
    antes = corridas["primera"]["estudiantes"]
    e = datos["estudiantes"]
    assert "ATAQUE-FIN" in textos, f"el ataque ({variante}) no llegó a correr"
    assert "FUGA" not in textos, [l for l in textos.splitlines() if "FUGA" in l][:10]
    assert e["beto"]["estado"] == "calificado", e["beto"]
    assert e["beto"]["puntos"] == antes["beto"]["puntos"], (variante, e["beto"], antes["beto"])
    assert e["ana"]["puntos"] == antes["ana"]["puntos"], e["ana"]
    assert datos["aislamiento"]["completo"], datos["aislamiento"]


def test_las_salidas_no_son_legibles_por_otros(corridas):
    for carpeta in (corridas["salida"], *corridas["anteriores"]):
        modo = stat.S_IMODE(carpeta.stat().st_mode)
        assert modo & 0o077 == 0, f"{carpeta} tiene modo {oct(modo)}"
