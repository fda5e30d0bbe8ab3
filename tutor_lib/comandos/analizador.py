"""argparse en español para el comando ``tutor``: ayuda, errores y números negativos.

* :class:`Analizador`: un ``argparse.ArgumentParser`` con títulos en español
  («uso:», «opciones:», «argumentos posicionales:»), la opción de ayuda
  ``-h``/``--ayuda``/``--help`` y errores traducidos que salen con código 2.
* :func:`traducir_error`: pasa al español los mensajes de error de argparse.
* :func:`entero_positivo`, :func:`real_positivo`: ``type=`` que rechazan el cero
  y los negativos con un mensaje en español.

Además, un valor que empieza con un guion y un dígito (``-3``, ``-7e9``, ``-6.7B``)
o que es ``-inf``/``-nan`` se lee como valor y no como opción: así
``--parametros -7e9`` llega al comando, que explica que debe ser positivo, en
vez de fallar con «falta su valor».
"""

from __future__ import annotations

import argparse
import math
import re
import sys

#: Un argumento con esta forma es un número negativo (un valor), nunca una opción.
NUMERO_NEGATIVO = re.compile(r"^-(\.?\d|inf(inity)?$|nan$)", re.IGNORECASE)

_FRASES = (
    (r"the following arguments are required: (?P<a>.+)", "faltan argumentos obligatorios: {a}"),
    (r"one of the arguments (?P<a>.+) is required", "hace falta uno de los argumentos {a}"),
    (r"unrecognized arguments: (?P<a>.+)", "argumentos no reconocidos: {a}"),
    (r"ambiguous option: (?P<o>\S+) could match (?P<m>.+)", "opción ambigua: {o} puede ser {m}"),
    (r"invalid choice: (?P<v>.+?) \(choose from (?P<c>.+)\)", "valor no válido: {v} (elige entre {c})"),
    (r"expected one argument", "falta su valor"),
    (r"expected at most one argument", "admite como mucho un valor"),
    (r"expected at least one argument", "necesita al menos un valor"),
    (r"expected (?P<n>\d+) arguments?", "necesita {n} valores"),
    (r"not allowed with argument (?P<a>.+)", "no se puede usar junto con {a}"),
    (r"ignored explicit argument (?P<a>.+)", "no admite un valor con «=»: sobra {a}"),
    (r"invalid (?P<t>\w+) value: (?P<v>.+)", "valor no válido ({t}): {v}"),
    (r"unexpected option string: (?P<a>.+)", "opción inesperada: {a}"),
)
_TIPOS = {"int": "se esperaba un entero", "float": "se esperaba un número"}


def _frase(texto: str) -> str:
    for patron, plantilla in _FRASES:
        coincide = re.fullmatch(patron, texto)
        if coincide:
            partes = coincide.groupdict()
            if "t" in partes:
                partes["t"] = _TIPOS.get(partes["t"], partes["t"])
            return plantilla.format(**partes)
    return texto


def traducir_error(mensaje: str) -> str:
    """El mensaje de error de argparse (en inglés) dicho en español.

    ``"argument --lr: expected one argument"`` → ``"argumento --lr: falta su valor"``.
    Si el mensaje viene de un ``type=`` del curso (empieza con «debe»), se une a la
    opción: ``"--lote debe ser un entero ≥ 1 (un número positivo); recibí '0'."``.
    Un mensaje que no reconoce se deja igual.
    """
    coincide = re.fullmatch(r"argument (?P<nombre>.+?): (?P<resto>.+)", mensaje, re.DOTALL)
    if not coincide:
        return _frase(mensaje)
    nombre, resto = coincide.group("nombre"), coincide.group("resto")
    if resto.startswith("debe "):
        return f"{nombre} {resto}"
    if nombre == "SUBCOMANDO" and resto.startswith("invalid choice"):
        return "subcomando desconocido: " + _frase(resto).removeprefix("valor no válido: ")
    return f"argumento {nombre}: {_frase(resto)}"


class FormateadorAyuda(argparse.HelpFormatter):
    """El formateador de argparse con «uso:» en lugar de «usage:»."""

    def add_usage(self, usage, actions, groups, prefix=None):
        return super().add_usage(usage, actions, groups, "uso: " if prefix is None else prefix)


class Analizador(argparse.ArgumentParser):
    """``ArgumentParser`` en español: ayuda, títulos y errores (código de salida 2).

    Acepta los mismos argumentos que ``argparse.ArgumentParser``; ``add_help=True``
    añade ``-h``/``--ayuda``/``--help`` con su texto en español.
    """

    def __init__(self, *args, add_help: bool = True, formatter_class=FormateadorAyuda, **kwargs):
        super().__init__(*args, add_help=False, formatter_class=formatter_class, **kwargs)
        self._positionals.title = "argumentos posicionales"
        self._optionals.title = "opciones"
        self._negative_number_matcher = NUMERO_NEGATIVO
        if add_help:
            self.add_argument(
                "-h", "--ayuda", "--help", action="help", default=argparse.SUPPRESS,
                help="muestra esta ayuda y termina",
            )

    def error(self, message: str) -> None:
        """Imprime el uso y el error en español en stderr y sale con código 2."""
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {traducir_error(message)}\n")


def entero_positivo(texto: str) -> int:
    """``type=`` de argparse: un entero ≥ 1 (lote, secuencia, pasos, rango de LoRA...)."""
    try:
        valor = int(str(texto).strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"debe ser un número entero; recibí {texto!r}.") from None
    if valor < 1:
        raise argparse.ArgumentTypeError(f"debe ser un entero ≥ 1 (un número positivo); recibí {texto!r}.")
    return valor


def real_positivo(texto: str) -> float:
    """``type=`` de argparse: un número finito mayor que 0 (tasa de aprendizaje, épocas...)."""
    try:
        valor = float(str(texto).strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"debe ser un número (p. ej. 2e-5 o 3); recibí {texto!r}.") from None
    if not math.isfinite(valor):
        raise argparse.ArgumentTypeError(f"debe ser un número finito; recibí {texto!r}.")
    if valor <= 0:
        raise argparse.ArgumentTypeError(f"debe ser un número positivo (mayor que 0); recibí {texto!r}.")
    return valor
