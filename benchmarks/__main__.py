"""Imprime la tabla de benchmarks del curso: ``python -m benchmarks [filtro]``.

Cada módulo ``benchmarks/b_*.py`` define ``medir() -> list[(nombre, valor, nota)]``
y todas las cifras se miden en el momento (ninguna está escrita a mano).
Con un filtro solo corren los módulos cuyo nombre lo contiene (p. ej. ``vram``).
``python -m benchmarks gpu`` es otra cosa: el modo completo de cada lección paso a paso en una GPU
con CUDA (``benchmarks/gpu.py``; sin CUDA, solo las comprobaciones que no la necesitan).
"""

from __future__ import annotations

import importlib
import os
import sys
import time
import traceback
from pathlib import Path

os.environ.setdefault("TUTOR_MODO", "rapido")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("MPLBACKEND", "Agg")


def main(argv: list[str]) -> int:
    if argv[:1] == ["gpu"]:  # el chequeo del modo completo en una GPU imprime su propia tabla (benchmarks/gpu.py)
        from benchmarks import gpu

        return gpu.main(argv[1:])
    filtro = argv[0] if argv else ""
    carpeta = Path(__file__).resolve().parent
    filas: list[tuple[str, str, str]] = []
    fallos = 0
    for ruta in sorted(carpeta.glob("b_*.py")):
        if filtro not in ruta.stem:
            continue
        inicio = time.perf_counter()
        try:
            modulo = importlib.import_module(f"benchmarks.{ruta.stem}")
            filas += modulo.medir()
        except Exception as exc:  # una fila rota no esconde las demás
            fallos += 1
            filas.append((ruta.stem, "ERROR", f"{type(exc).__name__}: {exc}"))
            traceback.print_exc(file=sys.stderr)
        print(f"[{ruta.stem}: {time.perf_counter() - inicio:.1f} s]", file=sys.stderr)
    ancho = [max(len(f[i]) for f in filas + [("Medida", "Valor", "Nota")]) for i in range(3)]
    print(f"| {'Medida':<{ancho[0]}} | {'Valor':<{ancho[1]}} | {'Nota':<{ancho[2]}} |")
    print(f"|{'-' * (ancho[0] + 2)}|{'-' * (ancho[1] + 2)}|{'-' * (ancho[2] + 2)}|")
    for nombre, valor, nota in filas:
        print(f"| {nombre:<{ancho[0]}} | {valor:<{ancho[1]}} | {nota:<{ancho[2]}} |")
    return 1 if fallos else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
