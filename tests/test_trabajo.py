"""La carpeta de trabajo de quien estudia: copias que git no ve y que nada pisa (tutor_lib.trabajo)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from tutor_lib import trabajo

RAIZ = Path(__file__).resolve().parents[1]


def _curso(tmp_path: Path) -> Path:
    """Un curso de mentira con dos lecciones y un ejercicio (y algo que no debe copiarse)."""
    raiz = tmp_path / "curso"
    for relativa, texto in {
        "lessons/00_bienvenida.ipynb": "lección 0 v1",
        "lessons/03_trainer.ipynb": "lección 3 v1",
        "exercises/ej04_warmup/ej04_warmup.ipynb": "ejercicio 4 v1",
        "lessons/notas_del_autor.md": "no es una lección",
        "solutions/ej04_warmup/ej04_warmup.ipynb": "la solución: nunca va a la carpeta de trabajo",
    }.items():
        (raiz / relativa).parent.mkdir(parents=True, exist_ok=True)
        (raiz / relativa).write_text(texto, encoding="utf-8")
    return raiz


def _leer(ruta: Path) -> str:
    return ruta.read_text(encoding="utf-8")


def _leccion_3_cambiada_por_los_dos(tmp_path: Path, mia: str) -> tuple[Path, Path]:
    """Carpeta de trabajo en la que cambiaste la lección 3 (con ``mia``) y el curso publicó su versión 2."""
    raiz = _curso(tmp_path)
    destino = tmp_path / "trabajo"
    trabajo.sincronizar(raiz, destino)
    (destino / "lessons" / "03_trainer.ipynb").write_text(mia, encoding="utf-8")
    (raiz / "lessons" / "03_trainer.ipynb").write_text("lección 3 v2", encoding="utf-8")
    return raiz, destino


def test_la_primera_vez_copia_lecciones_y_ejercicios_y_nada_mas(tmp_path):
    raiz = _curso(tmp_path)
    destino = tmp_path / "mi_trabajo"
    s = trabajo.sincronizar(raiz, destino)
    assert s.copiadas == ["lessons/00_bienvenida.ipynb", "lessons/03_trainer.ipynb",
                          "exercises/ej04_warmup/ej04_warmup.ipynb"]
    assert _leer(destino / "lessons" / "03_trainer.ipynb") == "lección 3 v1"
    assert not (destino / "solutions").exists() and not (destino / "lessons" / "notas_del_autor.md").exists()
    assert "Copié 2 lecciones y 1 ejercicio del curso." in s.texto()
    registro = json.loads(_leer(destino / trabajo.REGISTRO))
    assert set(registro) == set(s.copiadas)
    # la segunda vez no hay nada que hacer
    otra = trabajo.sincronizar(raiz, destino)
    assert not (otra.copiadas or otra.actualizadas or otra.con_version_nueva)


def test_nunca_pisa_tu_trabajo_y_actualiza_lo_que_no_tocaste(tmp_path):
    raiz, destino = _leccion_3_cambiada_por_los_dos(tmp_path, "lección 3 con MIS notas")
    # el curso publica además versiones nuevas de la lección 0 (que no tocaste) y una lección 4
    (raiz / "lessons" / "00_bienvenida.ipynb").write_text("lección 0 v2", encoding="utf-8")
    (raiz / "lessons" / "04_warmup.ipynb").write_text("lección 4 v1", encoding="utf-8")
    s = trabajo.sincronizar(raiz, destino)
    assert _leer(destino / "lessons" / "03_trainer.ipynb") == "lección 3 con MIS notas"
    assert _leer(destino / "lessons" / "00_bienvenida.ipynb") == "lección 0 v2"
    assert s.copiadas == ["lessons/04_warmup.ipynb"]
    assert s.actualizadas == ["lessons/00_bienvenida.ipynb"]
    assert s.con_version_nueva == ["lessons/03_trainer.ipynb"]
    assert "tutor actualizar 03_trainer" in s.texto()
    # y sigue avisando mientras no la traigas
    assert trabajo.sincronizar(raiz, destino).con_version_nueva == ["lessons/03_trainer.ipynb"]


def test_actualizar_guarda_tu_version_como_respaldo(tmp_path):
    raiz, destino = _leccion_3_cambiada_por_los_dos(tmp_path, "mis respuestas")
    ahora = datetime(2026, 12, 4, 18, 30, 5)
    hecho = trabajo.actualizar(raiz, destino, "03", ahora=ahora)
    respaldo = destino / "lessons" / "03_trainer.respaldo-20261204-183005.ipynb"
    assert hecho == {"notebook": str(destino.resolve() / "lessons" / "03_trainer.ipynb"), "respaldo": str(respaldo.resolve())}
    assert _leer(respaldo) == "mis respuestas"
    assert _leer(destino / "lessons" / "03_trainer.ipynb") == "lección 3 v2"
    # otro respaldo en el mismo segundo no pisa el primero
    (destino / "lessons" / "03_trainer.ipynb").write_text("otra versión mía", encoding="utf-8")
    segundo = trabajo.actualizar(raiz, destino, "lessons/03_trainer.ipynb", ahora=ahora)
    assert segundo["respaldo"].endswith("03_trainer.respaldo-20261204-183005-2.ipynb")
    assert _leer(respaldo) == "mis respuestas"
    # ya al día: ni aviso ni respaldo
    assert not trabajo.sincronizar(raiz, destino).con_version_nueva
    assert trabajo.actualizar(raiz, destino, "03_trainer")["respaldo"] is None


@pytest.mark.parametrize("nombre, esperado", [
    ("03", "lessons/03_trainer.ipynb"), ("03_trainer", "lessons/03_trainer.ipynb"),
    ("03_trainer.ipynb", "lessons/03_trainer.ipynb"), ("lessons/03_trainer.ipynb", "lessons/03_trainer.ipynb"),
    ("ej04", "exercises/ej04_warmup/ej04_warmup.ipynb"), ("ej04_warmup", "exercises/ej04_warmup/ej04_warmup.ipynb"),
    ("exercises/ej04_warmup/ej04_warmup.ipynb", "exercises/ej04_warmup/ej04_warmup.ipynb"),
])
def test_resolver_entiende_como_se_nombra_un_notebook(tmp_path, nombre, esperado):
    assert trabajo.resolver(_curso(tmp_path), nombre) == esperado


@pytest.mark.parametrize("nombre", ["99", "ej99", "../solutions/ej04_warmup/ej04_warmup", "", "notas_del_autor"])
def test_resolver_rechaza_en_espanol_lo_que_no_es_del_curso(tmp_path, nombre):
    with pytest.raises(ValueError, match="No conozco el notebook"):
        trabajo.resolver(_curso(tmp_path), nombre)


def test_la_carpeta_de_trabajo_no_puede_ser_la_que_sigue_git(tmp_path):
    raiz = _curso(tmp_path)
    for mala in (raiz, raiz / "lessons", raiz / "exercises" / "ej04_warmup"):
        with pytest.raises(ValueError, match="no puede"):
            trabajo.sincronizar(raiz, mala)
    (tmp_path / "archivo").write_text("x")
    with pytest.raises(ValueError, match="no es una carpeta"):
        trabajo.sincronizar(raiz, tmp_path / "archivo")


def test_un_registro_roto_o_borrado_no_hace_perder_nada(tmp_path):
    raiz, destino = _leccion_3_cambiada_por_los_dos(tmp_path, "mi trabajo")
    for roto in ('{"lessons/03_trainer.ipynb": ', "[1, 2]", None):
        if roto is None:
            (destino / trabajo.REGISTRO).unlink()
        else:
            (destino / trabajo.REGISTRO).write_text(roto, encoding="utf-8")
        trabajo.sincronizar(raiz, destino)
        assert _leer(destino / "lessons" / "03_trainer.ipynb") == "mi trabajo"


def test_tutor_actualizar_en_la_terminal(tmp_path):
    """Con el curso de verdad: la orden que sugiere ``tutor curso``, y un nombre que no existe."""
    destino = tmp_path / "trabajo"
    trabajo.sincronizar(RAIZ, destino)
    mia = destino / "lessons" / "03_trainer.ipynb"
    mia.write_text(mia.read_text(encoding="utf-8").replace("Trainer", "Trainer (mis notas)"), encoding="utf-8")
    orden = [sys.executable, "-m", "tutor_lib", "actualizar", "03", "ej04", "--trabajo", str(destino)]
    r = subprocess.run(orden + ["--json"], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    datos = json.loads(r.stdout)
    assert set(datos) == {"carpeta", "actualizados"}
    leccion, ejercicio = datos["actualizados"]
    assert "mis notas" in Path(leccion["respaldo"]).read_text(encoding="utf-8")
    assert Path(leccion["notebook"]).read_bytes() == (RAIZ / "lessons" / "03_trainer.ipynb").read_bytes()
    assert ejercicio["respaldo"] is None  # no lo habías cambiado
    r = subprocess.run([sys.executable, "-m", "tutor_lib", "actualizar", "lección-tres", "--trabajo", str(destino)],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert r.returncode == 2 and "No conozco el notebook «lección-tres»" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_trabajo_esta_en_el_gitignore():
    lineas = (RAIZ / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert f"/{trabajo.CARPETA_POR_DEFECTO}/" in lineas
    if (RAIZ / ".git").exists():
        r = subprocess.run(["git", "check-ignore", "-q", f"{trabajo.CARPETA_POR_DEFECTO}/lessons/03_trainer.ipynb"],
                           cwd=RAIZ, env={**os.environ, "GIT_DIR": str(RAIZ / ".git")})
        assert r.returncode == 0, "git vería la carpeta de trabajo"
