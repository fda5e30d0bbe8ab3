"""Filas del comando ``tutor``: cuánto tarda cada subcomando, de principio a fin, en un proceso nuevo.

Cada fila corre ``python -m tutor_lib ...`` como lo escribiría un estudiante
(arranque de Python incluido) y da la mediana de varias corridas; una corrida
que no termina con código 0 se informa como ERROR. Sin red: ``--modelo`` usa un
config que trae el curso. Tarda unos 20 s en una CPU de 2 núcleos.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[1]
#: Una curva real del corpus de tests/datos/curvas (si está) para ``tutor diagnosticar``.
CURVA = RAIZ / "tests" / "datos" / "curvas" / "sano_01.json"

#: (nombre de la fila, argumentos de tutor, corridas, nota)
_CASOS = (
    ("tutor --ayuda", ["--ayuda"], 3, "solo arma la ayuda de los subcomandos"),
    ("tutor warmup", ["warmup", "--lr", "2e-5", "--ejemplos", "1000", "--lote", "16", "--epocas", "3",
                      "--warmup", "0.1", "--tipo", "cosine"], 3, "Python puro, sin torch"),
    ("tutor vram --parametros", ["vram", "--parametros", "7e9", "--metodo", "qlora", "--lote", "4",
                                 "--secuencia", "512", "--gpu", "T4"], 3, "aritmética, sin torch"),
    ("tutor vram --modelo", ["vram", "--modelo", "Qwen/Qwen2.5-0.5B-Instruct", "--metodo", "qlora", "--lote", "4",
                             "--secuencia", "512"], 1, "construye el modelo en «meta»: importa torch y transformers"),
    ("tutor lora --modelo", ["lora", "--modelo", "Qwen/Qwen2.5-0.5B-Instruct", "--r", "16", "--modulos", "all-linear"],
     1, "construye el modelo en «meta»: importa torch y transformers"),
)


def _segundos(argumentos: list[str]) -> tuple[float, int]:
    entorno = {**os.environ, "HF_HUB_OFFLINE": "1"}
    inicio = time.perf_counter()
    proceso = subprocess.run([sys.executable, "-m", "tutor_lib", *argumentos], capture_output=True, text=True,
                             env=entorno, cwd=RAIZ, timeout=300, check=False)
    return time.perf_counter() - inicio, proceso.returncode


def _fila(nombre: str, argumentos: list[str], corridas: int, nota: str) -> tuple[str, str, str]:
    tiempos = []
    for _ in range(corridas):
        segundos, codigo = _segundos(argumentos)
        if codigo != 0:
            return (f"cli: {nombre}", f"ERROR (código {codigo})", " ".join(argumentos))
        tiempos.append(segundos)
    cuantas = f"mediana de {corridas}" if corridas > 1 else "1 corrida"
    return (f"cli: {nombre}", f"{statistics.median(tiempos):.2f} s", f"{cuantas}, proceso nuevo; {nota}")


def medir() -> list[tuple[str, str, str]]:
    """Filas (nombre, valor, nota) con el tiempo de cada subcomando medido en esta máquina."""
    import tempfile

    from tutor_lib import trabajo

    casos = list(_CASOS)
    if CURVA.is_file():
        casos.insert(4, ("tutor diagnosticar", ["diagnosticar", str(CURVA)], 3, f"{CURVA.name}; importa numpy"))
    with tempfile.TemporaryDirectory(prefix="bench_trabajo_") as carpeta:
        trabajo.sincronizar(RAIZ, Path(carpeta))  # una carpeta de trabajo como la primera vez de un estudiante
        casos.append(("tutor actualizar", ["actualizar", "03", "ej04", "--trabajo", carpeta], 3,
                      "dos notebooks del curso a una carpeta de trabajo"))
        return [_fila(*caso) for caso in casos]


if __name__ == "__main__":
    for nombre, valor, nota in medir():
        print(f"{nombre:<32} {valor:<20} {nota}")
