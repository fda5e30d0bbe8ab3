"""Reparte los datasets propios del curso en train/validation/test de forma determinista.

Uso:
    python scripts/dividir_datos.py NOMBRE [--fuente archivo.jsonl ...]

Junta las filas ya presentes en ``tutor_lib/datos/NOMBRE/*.jsonl`` con las de
las fuentes nuevas, descarta duplicados (tras normalizar mayúsculas, tildes y
puntuación) y vuelve a repartir: 70 % / 15 % / 15 %, estratificado por
``label`` cuando existe. El orden depende solo del texto (hash), así que correr
el script dos veces da el mismo resultado.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(RAIZ))

from tutor_lib.datos_utiles import clave_normalizada  # noqa: E402

PROPORCIONES = (("train", 0.70), ("validation", 0.15), ("test", 0.15))


def leer(ruta: Path) -> list[dict]:
    return [json.loads(l) for l in ruta.read_text(encoding="utf-8").splitlines() if l.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("nombre")
    parser.add_argument("--fuente", nargs="*", default=[])
    args = parser.parse_args()
    carpeta = RAIZ / "tutor_lib" / "datos" / args.nombre
    filas: list[dict] = []
    for division, _ in PROPORCIONES:
        if (carpeta / f"{division}.jsonl").exists():
            filas += leer(carpeta / f"{division}.jsonl")
    for fuente in args.fuente:
        filas += leer(Path(fuente))
    unicas: dict[str, dict] = {}
    for fila in filas:
        unicas.setdefault(clave_normalizada(fila), fila)
    grupos: dict[object, list[dict]] = {}
    for clave, fila in unicas.items():
        fila["_orden"] = hashlib.sha256(clave.encode("utf-8")).hexdigest()
        grupos.setdefault(fila.get("label"), []).append(fila)
    salida = {d: [] for d, _ in PROPORCIONES}
    for grupo in grupos.values():
        grupo.sort(key=lambda f: f["_orden"])
        n = len(grupo)
        corte1 = round(n * PROPORCIONES[0][1])
        corte2 = corte1 + round(n * PROPORCIONES[1][1])
        salida["train"] += grupo[:corte1]
        salida["validation"] += grupo[corte1:corte2]
        salida["test"] += grupo[corte2:]
    carpeta.mkdir(parents=True, exist_ok=True)
    for division, filas_div in salida.items():
        filas_div.sort(key=lambda f: f["_orden"])
        with open(carpeta / f"{division}.jsonl", "w", encoding="utf-8") as f:
            for fila in filas_div:
                fila.pop("_orden")
                f.write(json.dumps(fila, ensure_ascii=False) + "\n")
        print(f"{args.nombre}/{division}: {len(filas_div)} filas")


if __name__ == "__main__":
    main()
