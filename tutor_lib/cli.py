"""El comando ``tutor``: cada subcomando vive en ``tutor_lib/comandos/<nombre>.py``.

Contrato de cada módulo de ``comandos``: ``NOMBRE`` (str), ``AYUDA`` (str),
``configurar(parser)`` que añade sus argumentos y ``ejecutar(args) -> Resultado``.
Con ``--json`` se imprime ``Resultado.datos``; sin él, ``Resultado.texto``.
Un error previsible (``ValueError``/``TypeError``/``FileNotFoundError``) se
muestra en español y el proceso sale con código 2, sin traza de Python; la
ayuda y los errores de argparse también están en español
(:mod:`tutor_lib.comandos.analizador`). ``Resultado.avisos`` se imprimen en
stderr, con o sin ``--json``.

Cada subcomando importa torch o transformers solo dentro de ``ejecutar`` y solo
si de verdad los necesita: ``tutor --ayuda``, ``tutor warmup`` o
``tutor vram --parametros`` responden en menos de un segundo.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import sys

from tutor_lib.comandos import Resultado
from tutor_lib.comandos.analizador import Analizador

SUBCOMANDOS = (
    "doctor",
    "curso",
    "actualizar",
    "warmup",
    "configurar",
    "vram",
    "lora",
    "diagnosticar",
    "corregir",
    "calificar",
)


def _cargar_modulos():
    modulos = []
    for nombre in SUBCOMANDOS:
        try:
            modulos.append(importlib.import_module(f"tutor_lib.comandos.{nombre}"))
        except ModuleNotFoundError as exc:
            if exc.name != f"tutor_lib.comandos.{nombre}":
                raise
    return modulos


def construir_parser() -> argparse.ArgumentParser:
    """El analizador de ``tutor`` con un subanalizador por módulo de ``comandos``."""
    parser = Analizador(
        prog="tutor",
        description="Herramientas del curso de fine-tuning de transformers en español.",
        epilog="Escribe «tutor SUBCOMANDO --ayuda» para ver las opciones de cada subcomando.",
    )
    sub = parser.add_subparsers(
        title="subcomandos", dest="subcomando", metavar="SUBCOMANDO", parser_class=Analizador
    )
    for modulo in _cargar_modulos():
        p = sub.add_parser(modulo.NOMBRE, help=modulo.AYUDA, description=modulo.AYUDA)
        p.add_argument("--json", action="store_true", help="imprime el resultado como JSON estable")
        modulo.configurar(p)
        p.set_defaults(_ejecutar=modulo.ejecutar)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Corre ``tutor`` con ``argv`` (por defecto, ``sys.argv[1:]``) y devuelve el código de salida."""
    # bitsandbytes avisa en inglés, al importarse, de un kernel opcional de CPU que no hace falta aquí
    logging.getLogger("bitsandbytes").setLevel(logging.ERROR)
    parser = construir_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_ejecutar", None):
        parser.print_help()
        return 2
    try:
        resultado: Resultado = args._ejecutar(args)
    except (ValueError, TypeError, FileNotFoundError, IsADirectoryError) as exc:
        print(f"tutor {args.subcomando}: error: {exc}", file=sys.stderr)
        return 2
    try:
        if args.json:
            print(json.dumps(resultado.datos, ensure_ascii=False, indent=2))
        else:
            print(resultado.texto)
        sys.stdout.flush()  # el aviso, en stderr, sale después de la tabla también en una terminal
    except BrokenPipeError:  # `tutor ... | head`: quien leía ya tiene lo que quería
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return resultado.codigo
    for aviso in resultado.avisos:
        print(f"tutor {args.subcomando}: aviso: {aviso}", file=sys.stderr)
    return resultado.codigo


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
