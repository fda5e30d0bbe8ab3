"""El comando ``tutor``: cada subcomando vive en ``tutor_lib/comandos/<nombre>.py``.

Contrato de cada módulo de ``comandos``: ``NOMBRE`` (str), ``AYUDA`` (str),
``configurar(parser)`` que añade sus argumentos y ``ejecutar(args) -> Resultado``.
Con ``--json`` se imprime ``Resultado.datos``; sin él, ``Resultado.texto``.
Un error previsible (``ValueError``/``TypeError``/``FileNotFoundError``) se
muestra en español y el proceso sale con código 2, sin traza de Python; la
ayuda y los errores de argparse también están en español
(:mod:`tutor_lib.comandos.analizador`), y un error en los argumentos de
``tutor X`` muestra el uso de ``tutor X``, no el de ``tutor``. ``Resultado.avisos`` se imprimen en
stderr, con o sin ``--json``.

Todo lo que ``tutor`` imprime (resultados, avisos, errores, ayuda, el avance de
``tutor calificar``) pasa por :func:`tutor_lib.formato.sin_controles`: un mensaje
que viene del notebook de un estudiante no trae secuencias ANSI, ``\r``,
retrocesos ni caracteres que inviertan el texto, así que no puede reescribir lo
que se ve en la terminal. Con ``--json`` esos caracteres salen escapados
(``\u001b``, ``\u202e``): el dato llega entero y la terminal no los interpreta.

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
import re
import sys

from tutor_lib.comandos import Resultado
from tutor_lib.comandos.analizador import Analizador
from tutor_lib.formato import sin_controles

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
    "exportar",
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


class _Subcomandos(argparse._SubParsersAction):
    """La acción de los subcomandos, con los argumentos que sobran atribuidos al subcomando.

    argparse deja que el subanalizador ignore lo que no reconoce y lo devuelve al
    analizador de ``tutor``, que se queja con **su** uso («uso: tutor [-h]
    SUBCOMANDO ...»). Aquí se queja el subanalizador: ``tutor corregir
    --ejercicio ej04`` muestra «uso: tutor corregir ...», el error en español y
    sale con código 2.
    """

    def __call__(self, parser, namespace, values, option_string=None):
        super().__call__(parser, namespace, values, option_string)
        sobrantes = vars(namespace).pop(argparse._UNRECOGNIZED_ARGS_ATTR, None)
        if sobrantes:
            subanalizador = self._name_parser_map[values[0]]
            subanalizador.error("unrecognized arguments: " + " ".join(sobrantes))


def construir_parser() -> argparse.ArgumentParser:
    """El analizador de ``tutor`` con un subanalizador por módulo de ``comandos``."""
    parser = Analizador(
        prog="tutor",
        description="Herramientas del curso de fine-tuning de transformers en español.",
        epilog="Escribe «tutor SUBCOMANDO --ayuda» para ver las opciones de cada subcomando.",
    )
    sub = parser.add_subparsers(
        title="subcomandos", dest="subcomando", metavar="SUBCOMANDO", parser_class=Analizador,
        action=_Subcomandos,
    )
    for modulo in _cargar_modulos():
        p = sub.add_parser(modulo.NOMBRE, help=modulo.AYUDA, description=modulo.AYUDA)
        p.add_argument("--json", action="store_true", help="imprime el resultado como JSON estable")
        modulo.configurar(p)
        p.set_defaults(_ejecutar=modulo.ejecutar)
    return parser


class _SalidaLimpia:
    """Un flujo de texto (``sys.stdout`` o ``sys.stderr``) que escribe todo pasado por :func:`sin_controles`.

    Una sola excepción: un ``\r`` al comienzo de un trozo, en una terminal, si la
    línea está vacía o la escribió otro trozo igual. Así redibuja tqdm la barra
    de avance de ``tutor calificar``; un ``\r`` así no puede tapar texto de nadie.
    """

    def __init__(self, flujo):
        self._flujo = flujo
        self._linea = "vacia"  # "vacia", "barra" (la escribió un trozo con \r) o "texto"

    def write(self, texto) -> int:
        texto = str(texto)
        inicio = ""
        if texto.startswith("\r") and self._linea in ("vacia", "barra") and self._es_terminal():
            inicio, texto_resto = "\r", texto[1:]
        else:
            texto_resto = texto
        limpio = inicio + sin_controles(texto_resto)
        if "\n" in limpio:
            self._linea = "texto" if limpio.rsplit("\n", 1)[1] else "vacia"
        elif inicio:
            self._linea = "barra"
        elif limpio:
            self._linea = "texto"
        self._flujo.write(limpio)
        return len(texto)

    def writelines(self, lineas) -> None:
        for linea in lineas:
            self.write(linea)

    def _es_terminal(self) -> bool:
        try:
            return bool(self._flujo.isatty())
        except (AttributeError, ValueError, OSError):
            return False

    def __getattr__(self, nombre):
        return getattr(self._flujo, nombre)


#: Lo que ``json.dumps(..., ensure_ascii=False)`` deja pasar tal cual y una terminal interpreta
#: (DEL, C1, dirección del texto) o no puede escribir (sustitutos sueltos): sale como ``\uXXXX``.
_ESCAPAR_EN_JSON = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def json_para_terminal(datos) -> str:
    """``datos`` como JSON legible (UTF-8, con sangría) sin ningún carácter de control crudo.

    ``json.dumps`` ya escapa C0; aquí se escapan también DEL, C1, los de dirección
    del texto y los sustitutos sueltos. Sigue siendo JSON válido con los mismos datos.
    """
    texto = json.dumps(datos, ensure_ascii=False, indent=2)
    return _ESCAPAR_EN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", texto)


def main(argv: list[str] | None = None) -> int:
    """Corre ``tutor`` con ``argv`` (por defecto, ``sys.argv[1:]``) y devuelve el código de salida.

    Mientras corre, ``sys.stdout`` y ``sys.stderr`` escriben sin caracteres de
    control (ver :class:`_SalidaLimpia`); al terminar quedan como estaban.
    """
    originales = sys.stdout, sys.stderr
    if sys.stdout is not None:
        sys.stdout = _SalidaLimpia(sys.stdout)
    if sys.stderr is not None:
        sys.stderr = _SalidaLimpia(sys.stderr)
    try:
        return _main(argv)
    finally:
        sys.stdout, sys.stderr = originales


def _main(argv: list[str] | None) -> int:
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
            print(json_para_terminal(resultado.datos))
        else:
            print(sin_controles(resultado.texto))
        sys.stdout.flush()  # el aviso, en stderr, sale después de la tabla también en una terminal
    except BrokenPipeError:  # `tutor ... | head`: quien leía ya tiene lo que quería
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return resultado.codigo
    for aviso in resultado.avisos:
        print(f"tutor {args.subcomando}: aviso: {aviso}", file=sys.stderr)
    return resultado.codigo


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
