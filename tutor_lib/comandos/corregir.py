"""``tutor corregir``: califica tu notebook con las pruebas del instructor (nbgrader, local).

Contrato de ``--json``: ``{"asignacion", "puntos", "maximo", "partes": [{"id", "puntos",
"maximo", "mensaje"}]}`` y además ``estado``, ``mensaje``, ``pendiente_manual`` y ``avisos``.
``puntos`` de una parte es ``null`` si es una respuesta escrita que se califica a mano.
Ver :mod:`tutor_lib.autoevaluacion`.
"""

from __future__ import annotations

from tutor_lib.comandos import Resultado

NOMBRE = "corregir"
AYUDA = "Califica un notebook de ejercicio con nbgrader y las mismas pruebas del instructor (sin mostrar soluciones)."


def configurar(parser) -> None:
    parser.add_argument("notebook", metavar="NOTEBOOK", help="tu notebook, p. ej. exercises/ej04_warmup/ej04_warmup.ipynb")
    parser.add_argument("--asignacion", metavar="ASIG", help="la asignación, si el nombre del archivo no la dice (p. ej. ej04_warmup)")
    parser.add_argument("--tiempo-celda", type=int, default=60, metavar="S", help="segundos máximos por celda (60)")


def ejecutar(args) -> Resultado:
    from tutor_lib.autoevaluacion import como_json, como_texto, corregir
    from tutor_lib.calificacion.resultados import Limites

    if args.tiempo_celda <= 0:
        raise ValueError("--tiempo-celda debe ser un número positivo de segundos.")
    cal = corregir(args.notebook, args.asignacion, limites=Limites(tiempo_celda=args.tiempo_celda))
    codigo = 0 if cal.estado == "calificado" else 1
    return Resultado(datos=como_json(cal), texto=como_texto(cal), codigo=codigo)
