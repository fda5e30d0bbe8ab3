"""Reconstrucción de una entrega sobre el notebook liberado (la usa :mod:`tutor_lib.calificacion.motor.calificador`).

Antes de calificar, cada entrega se rehace sobre el notebook que se publicó: las
celdas de prueba, bloqueadas y de enunciado salen del original; de la entrega solo
se toman las celdas de solución (por ``grade_id``, por id de celda o por posición
entre celdas conocidas) y las celdas que el estudiante agregó. Editar, borrar o
duplicar una prueba no cambia nada. Todo en tiempo lineal y con topes de celdas
y de tamaño (:mod:`tutor_lib.calificacion.entregas`). La guía del instructor lo explica en su
sección 7.
"""

from __future__ import annotations

import copy
import json
import re
from bisect import bisect_right
from collections import defaultdict
from pathlib import Path

import nbformat

from tutor_lib.calificacion import entregas as _entregas
from tutor_lib.calificacion.entregas import MAX_CELDAS, MAX_MIB_NOTEBOOK, nombre_visible



def _nbg(celda) -> dict:
    meta = celda.get("metadata") if isinstance(celda, dict) else None
    valor = meta.get("nbgrader") if isinstance(meta, dict) else None
    return valor if isinstance(valor, dict) else {}


def _texto(celda) -> str:
    fuente_ = celda.get("source", "")
    if isinstance(fuente_, list):
        return "".join(str(x) for x in fuente_)
    return str(fuente_)


def _clave(celda) -> tuple[str, str]:
    return celda.get("cell_type", ""), _texto(celda).strip()


def _cadena(valor) -> str | None:
    """``valor`` si es un texto no vacío (un id o un grade_id usable como clave); si no, None."""
    return valor if isinstance(valor, str) and valor else None


def normalizar(entrega: dict, liberado, max_celdas: int | None = MAX_CELDAS) -> tuple[nbformat.NotebookNode, list[str]]:
    """Reconstruye ``entrega`` (un notebook como dict) sobre el notebook ``liberado``.

    Devuelve el notebook que se califica y avisos en español para el estudiante.
    Tarda un tiempo lineal en el número de celdas; más de ``max_celdas`` celdas
    es un ``ValueError`` (el estado «inválido»).
    """
    crudas = entrega.get("cells", [])
    if not isinstance(crudas, list):
        raise ValueError("El notebook no es de Jupyter: «cells» no es una lista de celdas.")
    if max_celdas is not None and len(crudas) > max_celdas:
        raise ValueError(
            f"Tu notebook tiene {len(crudas)} celdas y el máximo es {max_celdas}: así no se puede "
            "calificar. Vuelve a descargar el ejercicio y copia ahí tus respuestas."
        )
    R = liberado.cells
    es_sol = [bool(_nbg(c).get("solution")) for c in R]
    por_grade_id = {_nbg(c)["grade_id"]: i for i, c in enumerate(R) if _cadena(_nbg(c).get("grade_id"))}
    por_id = {c.get("id"): i for i, c in enumerate(R) if _cadena(c.get("id"))}
    por_contenido: dict[tuple[str, str], int] = {}
    for i, c in enumerate(R):
        if not es_sol[i]:
            por_contenido.setdefault(_clave(c), i)

    S = [c for c in crudas if isinstance(c, dict) and c.get("cell_type") in ("code", "markdown", "raw")]
    asignado: list[int | None] = [None] * len(S)
    usados: set[int] = set()
    descartar: set[int] = set()
    for j, c in enumerate(S):
        cand = por_grade_id.get(_cadena(_nbg(c).get("grade_id")))
        if cand is None:
            cand = por_id.get(_cadena(c.get("id")))
        if cand is None:
            cand = por_contenido.get(_clave(c))
        if cand is None:
            continue
        if es_sol[cand]:
            if c.get("cell_type") == R[cand].cell_type and cand not in usados:
                asignado[j] = cand
                usados.add(cand)
        elif cand in usados:
            descartar.add(j)  # copia de una celda fija: sobra
        else:
            asignado[j] = cand  # celda fija: se usará la original
            usados.add(cand)

    # Para cada celda sin lugar: la primera celda ubicada que la sigue (en una pasada hacia
    # atrás) y la última ubicada que la precede (en la pasada hacia adelante, que también
    # cuenta las que se van ubicando). Así cada celda cuesta lo mismo: tiempo lineal.
    proximos = [len(R)] * (len(S) + 1)
    for j in range(len(S) - 1, -1, -1):
        proximos[j] = asignado[j + 1] if j + 1 < len(S) and asignado[j + 1] is not None else proximos[j + 1]
    libres: dict[str, list[int]] = defaultdict(list)  # soluciones sin usar, por tipo de celda, en orden
    for i, c in enumerate(R):
        if es_sol[i] and i not in usados:
            libres[c.cell_type].append(i)
    extras: dict[int, list] = defaultdict(list)
    previo = -1
    for j, c in enumerate(S):
        if asignado[j] is not None:
            previo = asignado[j]
            continue
        if j in descartar:
            continue
        huecos = libres.get(c.get("cell_type"), [])
        k = bisect_right(huecos, previo)
        if k < len(huecos) and huecos[k] < proximos[j]:
            asignado[j] = previo = huecos.pop(k)
            usados.add(previo)
        else:
            extras[previo].append(c)

    def extra(c, n):
        # Como nbformat.v4.new_*_cell, sin validar cada celda contra el esquema (1 ms por celda).
        nueva = {"id": f"extra-{n:03d}", "cell_type": c.get("cell_type"), "metadata": {}, "source": _texto(c)}
        if c.get("cell_type") == "code":
            nueva.update(execution_count=None, outputs=[])
        return nbformat.from_dict(nueva)

    inversa = {r: j for j, r in enumerate(asignado) if r is not None}
    avisos: list[str] = []
    celdas, n = [], 0
    for c in extras[-1]:
        celdas.append(extra(c, n))
        n += 1
    for i, original in enumerate(R):
        celda = copy.deepcopy(original)
        if es_sol[i]:
            if i in inversa:
                celda.source = _texto(S[inversa[i]])
            else:
                avisos.append(
                    f"No encontré tu respuesta para «{_nbg(original).get('grade_id')}»: "
                    "se califica como si estuviera vacía."
                )
        celdas.append(celda)
        for c in extras[i]:
            celdas.append(extra(c, n))
            n += 1
    nb = copy.deepcopy(liberado)
    nb.cells = celdas
    return nb, avisos


def codigo_de_solucion(texto: str) -> str:
    """El código de referencia de una celda fuente: sin las líneas BEGIN/END SOLUTION."""
    return "\n".join(
        linea for linea in texto.splitlines()
        if not re.match(r"\s*#+\s*(BEGIN|END) SOLUTION", linea) and linea.strip() not in ("BEGIN SOLUTION", "END SOLUTION")
    )


def entrega_de_referencia(fuente_nb, liberado, reemplazos: dict[str, str] | None = None):
    """Una entrega como la de un estudiante que resolvió todo con la solución de referencia.

    ``reemplazos`` cambia el contenido de celdas de solución por ``grade_id``
    (para probar otras soluciones correctas y errores típicos).
    """
    reemplazos = dict(reemplazos or {})
    referencia = {_nbg(c).get("grade_id"): codigo_de_solucion(_texto(c)) for c in fuente_nb.cells if _nbg(c).get("solution")}
    desconocidos = set(reemplazos) - set(referencia)
    if desconocidos:
        raise ValueError(f"Estas celdas no son de solución: {sorted(desconocidos)}")
    nb = copy.deepcopy(liberado)
    for celda in nb.cells:
        gid = _nbg(celda).get("grade_id")
        if _nbg(celda).get("solution"):
            celda.source = reemplazos.get(gid, referencia[gid])
    return nb


def puntos(nb) -> tuple[float, float]:
    """(puntos automáticos, puntos a mano) de un notebook de nbgrader, según sus metadatos."""
    auto = manual = 0.0
    for c in nb.cells:
        meta = _nbg(c)
        if meta.get("grade"):
            if meta.get("solution"):
                manual += float(meta.get("points", 0))
            else:
                auto += float(meta.get("points", 0))
    return auto, manual


def leer_entrega(ruta: Path) -> dict:
    """El notebook de un estudiante como dict; ``ValueError`` en español si no lo es.

    No sigue enlaces simbólicos ni abre lo que no es un archivo regular (FIFO,
    dispositivo), y no lee más de ``MAX_MIB_NOTEBOOK`` MiB (ver :mod:`tutor_lib.calificacion.entregas`).
    """
    nombre = nombre_visible(Path(ruta).name)
    crudo = _entregas.leer_archivo(Path(ruta), tope=MAX_MIB_NOTEBOOK * _entregas.MIB)
    try:
        datos = json.loads(crudo.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise ValueError(f"{nombre} no es un notebook: no es texto UTF-8.") from exc
    except json.JSONDecodeError as exc:
        raise ValueError(f"{nombre} no es un notebook válido: el JSON está dañado (línea {exc.lineno}).") from exc
    except RecursionError as exc:
        raise ValueError(f"{nombre} no es un notebook válido: el JSON anida demasiados niveles.") from exc
    if not isinstance(datos, dict) or not isinstance(datos.get("cells"), list):
        raise ValueError(f"{nombre} no es un notebook de Jupyter (no tiene lista de celdas).")
    return datos
