"""El comando ``tutor``: cada subcomando vive en ``tutor_lib/comandos/<nombre>.py``.

Contrato de cada módulo de ``comandos``: ``NOMBRE`` (str), ``AYUDA`` (str),
``configurar(parser)`` que añade sus argumentos y ``ejecutar(args) -> Resultado``.
Con ``--json`` se imprime ``Resultado.datos``; sin él, ``Resultado.texto``.
Un error previsible (``ValueError``/``TypeError``/``FileNotFoundError``) se
muestra en español y el proceso sale con código 2, sin traza de Python.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys

from tutor_lib.comandos import Resultado

SUBCOMANDOS = (
    "doctor",
    "curso",
    "warmup",
    "configurar",
    "vram",
    "lora",
    "diagnosticar",
    "corregir",
    "calificar",
)


class _Parser(argparse.ArgumentParser):
    """argparse con mensajes de error en español y salida con código 2."""

    def error(self, message: str) -> None:  # pragma: no cover - formato
        traducciones = {
            "the following arguments are required": "faltan estos argumentos",
            "unrecognized arguments": "argumentos no reconocidos",
            "invalid choice": "opción no válida",
            "expected one argument": "se esperaba un valor",
            "invalid float value": "número no válido",
            "invalid int value": "entero no válido",
            "not allowed with argument": "no se puede usar junto con",
            "one of the arguments": "hace falta uno de los argumentos",
            "is required": "es obligatorio",
            "choose from": "elige entre",
        }
        for ingles, espanol in traducciones.items():
            message = message.replace(ingles, espanol)
        self.print_usage(sys.stderr)
        self.exit(2, f"tutor: error: {message}\n")


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
    parser = _Parser(
        prog="tutor",
        description="Herramientas del curso de fine-tuning de transformers en español.",
    )
    sub = parser.add_subparsers(dest="subcomando", metavar="SUBCOMANDO", parser_class=_Parser)
    for modulo in _cargar_modulos():
        p = sub.add_parser(modulo.NOMBRE, help=modulo.AYUDA, description=modulo.AYUDA)
        p.add_argument("--json", action="store_true", help="imprime el resultado como JSON estable")
        modulo.configurar(p)
        p.set_defaults(_ejecutar=modulo.ejecutar)
    return parser


def main(argv: list[str] | None = None) -> int:
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
    if args.json:
        print(json.dumps(resultado.datos, ensure_ascii=False, indent=2))
    else:
        print(resultado.texto)
    return resultado.codigo


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
