"""El sitio del curso (issue 19): ``python -m benchmarks sitio``.

Mide ``python -m sitio`` como lo corre ``make sitio`` después de ``make test`` (las lecciones ya están en
la caché de ``sitio/cache.py``): una construcción desde cero en una carpeta nueva y otra encima de la
primera, con páginas y lecciones reutilizadas. Meta del issue 19: menos de 3 minutos en 2 núcleos. Si una
lección no está en la caché, la primera fila incluye ejecutarla (y lo dice).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path


def medir() -> list[tuple[str, str, str]]:
    from sitio import construir

    filas = []
    with tempfile.TemporaryDirectory() as carpeta:
        for etiqueta in ("desde cero", "otra vez, sin cambios"):
            inicio = time.perf_counter()
            informe = construir.construir(Path(carpeta), mostrar=lambda *_: None)
            segundos = time.perf_counter() - inicio
            filas.append((
                f"make sitio ({etiqueta})", f"{segundos:.1f} s",
                f"meta < 180 s; {informe.paginas} páginas; Sphinx {informe.segundos_sphinx:.1f} s; lecciones "
                f"reutilizadas {len(informe.reutilizadas)}, ejecutadas {len(informe.ejecutadas)} "
                f"({informe.segundos_ejecutar:.1f} s)",
            ))
    return filas
