"""tutor_lib.calificacion.archivos.borrar_arbol: lo que deja una entrega se borra aunque sea hostil.

Sin recursión y sin seguir enlaces.
"""

from __future__ import annotations

import os
import shutil
import sys

import pytest

from tutor_lib.calificacion.archivos import borrar_arbol


def _anidar(base, niveles: int) -> None:
    fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(niveles):
            os.mkdir("a", dir_fd=fd)
            with open(os.open("archivo", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd), "w") as f:
                f.write("x")
            nuevo = os.open("a", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = nuevo
    finally:
        os.close(fd)


def test_un_arbol_de_3000_carpetas_se_borra_y_shutil_no_puede(tmp_path):
    for nombre in ("a_mano", "con_shutil"):
        (tmp_path / nombre).mkdir()
        _anidar(tmp_path / nombre, 3000)  # rutas de más de 6000 bytes
    if sys.version_info < (3, 12):  # el rmtree recursivo de 3.11: así se caía el calificador
        with pytest.raises((RecursionError, OSError)):
            shutil.rmtree(tmp_path / "con_shutil")
    assert borrar_arbol(tmp_path / "a_mano") is True
    assert not (tmp_path / "a_mano").exists()
    assert borrar_arbol(tmp_path / "con_shutil") is True


def test_no_sigue_enlaces_y_devuelve_el_permiso(tmp_path):
    afuera = tmp_path / "afuera"
    afuera.mkdir()
    (afuera / "tuyo.txt").write_text("no me borres")
    arbol = tmp_path / "arbol"
    (arbol / "sub").mkdir(parents=True)
    (arbol / "enlace").symlink_to(afuera)
    (arbol / "sub" / "enlace_archivo").symlink_to(afuera / "tuyo.txt")
    (arbol / "cerrada").mkdir()
    (arbol / "cerrada" / "x").write_text("x")
    os.chmod(arbol / "cerrada", 0)
    assert borrar_arbol(arbol) is True
    assert not arbol.exists()
    assert (afuera / "tuyo.txt").read_text() == "no me borres"
    assert borrar_arbol(tmp_path / "no_existe") is True
    enlace = tmp_path / "solo_un_enlace"
    enlace.symlink_to(afuera)
    assert borrar_arbol(enlace) is True and afuera.is_dir() and not os.path.lexists(enlace)
