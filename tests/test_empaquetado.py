"""El paquete se instala como dice el README y sus listas de dependencias coinciden."""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml
from packaging.requirements import Requirement


def _normalizar(req: str) -> tuple[str, str]:
    r = Requirement(req)
    return re.sub(r"[-_.]+", "-", r.name).lower(), str(r.specifier)


def test_environment_yml_coincide_con_pyproject(raiz):
    proyecto = tomllib.loads((raiz / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    esperado = set(map(_normalizar, proyecto["dependencies"]))
    for extra in ("dev", "navegador"):
        esperado |= set(map(_normalizar, proyecto["optional-dependencies"][extra]))
    env = yaml.safe_load((raiz / "environment.yml").read_text(encoding="utf-8"))
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)
    assert set(map(_normalizar, pip)) == esperado


def test_extra_gpu_trae_bitsandbytes(raiz):
    proyecto = tomllib.loads((raiz / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert any(_normalizar(r)[0] == "bitsandbytes" for r in proyecto["optional-dependencies"]["gpu"])


def test_torch_no_esta_fijado_a_una_build(raiz):
    proyecto = tomllib.loads((raiz / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    torch = [r for r in proyecto["dependencies"] if _normalizar(r)[0] == "torch"][0]
    assert "+cpu" not in torch and "==" not in torch


def test_comando_tutor_y_modulo_equivalentes():
    a = subprocess.run([str(Path(sys.executable).parent / "tutor"), "--help"], capture_output=True, text=True, timeout=120)
    b = subprocess.run([sys.executable, "-m", "tutor_lib", "--help"], capture_output=True, text=True, timeout=120)
    assert a.returncode == 0 and b.returncode == 0
    for sub in ("doctor", "curso"):
        assert sub in a.stdout and sub in b.stdout


def test_cada_dependencia_tiene_piso_y_techo_y_la_instalada_cumple(raiz):
    """Pisos en las versiones con que se prueba y techos en la próxima versión mayor (issue 15)."""
    from importlib.metadata import PackageNotFoundError, version

    proyecto = tomllib.loads((raiz / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for texto in proyecto["dependencies"]:
        req = Requirement(texto)
        if req.marker is not None and not req.marker.evaluate():
            continue
        operadores = {s.operator for s in req.specifier}
        assert operadores in ({">=", "<"}, {"=="}), f"{texto}: falta el piso o el techo"
        try:
            instalada = version(req.name)
        except PackageNotFoundError:  # pragma: no cover - el entorno de pruebas las instala todas
            raise AssertionError(f"{req.name} no está instalada")
        assert req.specifier.contains(instalada.split("+")[0], prereleases=True), f"{req.name} {instalada} ∉ {texto}"
    nombres = {_normalizar(d)[0] for d in proyecto["dependencies"]}
    assert "bitsandbytes" in nombres  # las lecciones 11 y 12 lo importan
