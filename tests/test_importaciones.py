"""Los módulos de ``tutor_lib`` no se importan en círculo (issue 44, punto 2).

El grafo sale del código fuente con ``ast``: cuenta cada ``import`` y ``from … import``, también los que
están dentro de una función o de un ``if TYPE_CHECKING`` (un ciclo escondido en una función sigue siendo
un ciclo: solo se nota más tarde). ``from paquete import sub`` es una arista al submódulo ``sub``;
importar un submódulo no cuenta como importar los paquetes que lo contienen.
"""

from __future__ import annotations

import ast
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[1]

#: Ciclos conocidos que aún no se rompen. Ninguno: el último (el calificador, la corrida de una clase, el reparto
#: y la retroalimentación) se rompió al reunir la calificación en un paquete (issue 44, punto 1), con lo que
#: comparten en ``tutor_lib.calificacion.resultados``. Un ciclo nuevo no se agrega aquí: se rompe.
CICLOS_PENDIENTES: list[list[str]] = []


def _modulos(raiz: Path) -> dict[str, Path]:
    modulos = {}
    for archivo in (raiz / "tutor_lib").rglob("*.py"):
        partes = list(archivo.relative_to(raiz).with_suffix("").parts)
        if partes[-1] == "__init__":
            partes = partes[:-1]
        modulos[".".join(partes)] = archivo
    return modulos


def _destinos(modulo: str, archivo: Path, nodo: ast.AST, modulos: dict[str, Path]) -> list[str]:
    if isinstance(nodo, ast.Import):
        return [a.name for a in nodo.names]
    base = modulo.split(".")
    if nodo.level:  # import relativo: desde el paquete de este módulo
        paquete = base if archivo.name == "__init__.py" else base[:-1]
        paquete = paquete[:len(paquete) - (nodo.level - 1)]
        origen = ".".join(paquete + ([nodo.module] if nodo.module else []))
    else:
        origen = nodo.module or ""
    return [f"{origen}.{a.name}" if f"{origen}.{a.name}" in modulos else origen for a in nodo.names]


def grafo_de_importaciones(raiz: Path = RAIZ) -> dict[str, set[str]]:
    """``{módulo: módulos de tutor_lib que importa}``, leído del código fuente."""
    modulos = _modulos(raiz)
    grafo = {}
    for modulo, archivo in modulos.items():
        arbol = ast.parse(archivo.read_text(encoding="utf-8"))
        grafo[modulo] = {
            destino
            for nodo in ast.walk(arbol) if isinstance(nodo, (ast.Import, ast.ImportFrom))
            for destino in _destinos(modulo, archivo, nodo, modulos)
            if destino in modulos and destino != modulo
        }
    return grafo


def ciclos(grafo: dict[str, set[str]]) -> list[list[str]]:
    """Las componentes fuertemente conexas de más de un módulo, ordenadas (networkx, que ya trae torch)."""
    import networkx

    dirigido = networkx.DiGraph([(origen, destino) for origen, destinos in grafo.items() for destino in destinos])
    return sorted(sorted(c) for c in networkx.strongly_connected_components(dirigido) if len(c) > 1)


def test_la_deteccion_ve_un_ciclo_escondido_en_una_funcion(tmp_path):
    """La prueba misma: un ciclo cuyo regreso está dentro de una función (y uno relativo) se detecta."""
    paquete = tmp_path / "tutor_lib"
    (paquete / "sub").mkdir(parents=True)
    (paquete / "__init__.py").write_text("")
    (paquete / "a.py").write_text("from tutor_lib import b\n")
    (paquete / "b.py").write_text("def f():\n    from tutor_lib.a import algo\n")
    (paquete / "sub" / "__init__.py").write_text("from . import c\n")
    (paquete / "sub" / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .d import X\n")
    (paquete / "sub" / "d.py").write_text("from tutor_lib.sub.c import Y\n")
    (paquete / "e.py").write_text("import tutor_lib.a\n")
    assert ciclos(grafo_de_importaciones(tmp_path)) == [
        ["tutor_lib.a", "tutor_lib.b"], ["tutor_lib.sub.c", "tutor_lib.sub.d"]]


def test_tutor_lib_no_tiene_ciclos_de_importacion_nuevos():
    hallados = ciclos(grafo_de_importaciones())
    nuevos = [c for c in hallados if c not in CICLOS_PENDIENTES]
    assert not nuevos, (
        "Módulos que se importan en círculo (pon lo que comparten en un módulo que ambos puedan importar):\n"
        + "\n".join(" ↔ ".join(c) for c in nuevos))
    resueltos = [c for c in CICLOS_PENDIENTES if c not in hallados]
    assert not resueltos, f"Ciclos ya rotos: quítalos de CICLOS_PENDIENTES: {resueltos}"
