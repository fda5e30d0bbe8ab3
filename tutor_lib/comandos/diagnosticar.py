"""``tutor diagnosticar``: diagnostica una curva de entrenamiento desde un trainer_state.json.

Contrato de ``--json``: ``{"categoria", "explicacion", "remedios": [...], "mejor_paso": int|null}``.
Las reglas viven en :mod:`tutor_lib.curvas` (se usa en lessons/09_curvas_de_entrenamiento).
"""

from __future__ import annotations

from pathlib import Path

from tutor_lib.comandos import Resultado

NOMBRE = "diagnosticar"
AYUDA = (
    "Diagnostica una curva de entrenamiento (sano, sobreajuste, subajuste, inestable, "
    "divergencia o indeterminado) desde trainer_state.json, una carpeta de checkpoint o de corrida."
)

FORMATOS_GRAFICA = (".png", ".svg", ".pdf", ".jpg", ".jpeg")


def configurar(parser) -> None:
    parser.add_argument(
        "ruta",
        metavar="RUTA",
        help=(
            "trainer_state.json, carpeta de checkpoint, carpeta de corrida (se toma el checkpoint-N más alto) "
            'o un JSON con {"entrenamiento": [...], "validacion": [...]}'
        ),
    )
    parser.add_argument("--grafica", metavar="SALIDA", help="guarda la gráfica en este archivo (.png, .svg o .pdf)")


def ejecutar(args) -> Resultado:
    from tutor_lib.curvas import diagnosticar, graficar, leer_curvas

    curvas = leer_curvas(Path(args.ruta))
    diagnostico = diagnosticar(curvas)
    lineas = [f"Diagnóstico: {diagnostico.categoria}", "", diagnostico.explicacion, ""]
    if diagnostico.mejor_paso is not None:
        lineas += [f"Mejor paso de validación: {diagnostico.mejor_paso}", ""]
    lineas.append("Qué puedes hacer:")
    lineas += [f"  - {r}" for r in diagnostico.remedios]
    if args.grafica:
        salida = Path(args.grafica)
        if salida.suffix.lower() not in FORMATOS_GRAFICA:
            raise ValueError(
                f"No sé guardar la gráfica como {salida.suffix or '(sin extensión)'!r}: "
                f"usa una de estas extensiones: {', '.join(FORMATOS_GRAFICA)}."
            )
        if not salida.parent.is_dir():
            raise FileNotFoundError(f"No existe la carpeta {str(salida.parent)!r} donde guardar la gráfica.")
        figura = graficar(curvas, diagnostico=diagnostico)
        figura.savefig(salida, dpi=100)
        lineas += ["", f"Gráfica guardada en {salida}"]
    return Resultado(datos=diagnostico.como_dict(), texto="\n".join(lineas), codigo=0)
