"""``tutor diagnosticar``: diagnostica una curva de entrenamiento desde un trainer_state.json.

Contrato de ``--json``: ``{"categoria", "explicacion", "remedios": [...], "mejor_paso": int|null}``.
Sin ``--json``, además del diagnóstico imprime las cifras de la curva, cada una
con lo que mide (pérdida de entrenamiento o de validación, en qué paso y época).
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
    parser.add_argument(
        "--clases", metavar="N", type=int,
        help=(
            "número de clases, si la pérdida es una entropía cruzada entre N clases: el nivel del azar es ln(N). "
            "Sin esta opción se lee del config.json de la corrida (num_labels o vocab_size), si está"
        ),
    )


def _cifras(curvas, diagnostico) -> list[str]:
    """Las cifras del diagnóstico, cada una con su nombre y dónde ocurrió (paso, época o registro).

    Son las de ``diagnostico.evidencia``, las mismas con que se redacta la explicación.
    """
    import math

    from tutor_lib.curvas import _Contexto, _contraer, _fmt

    ev = diagnostico.evidencia
    donde = _Contexto(curvas).donde
    lineas = ["Cifras (pérdidas en la unidad de tu función de pérdida, p. ej. entropía cruzada):"]

    pasos = curvas.pasos_entrenamiento
    tramo = f"en {donde(pasos[0])}" if len(pasos) == 1 else f"de {donde(pasos[0])} a {donde(pasos[-1])}"
    texto = f"  - Pérdida de entrenamiento: {_contar(len(pasos), 'registro')}, {tramo}"
    if "perdida_inicial" in ev:
        texto += (
            f"; nivel inicial {_fmt(ev['perdida_inicial'])} y final {_fmt(ev['perdida_final'])} "
            "(mediana de los primeros y de los últimos registros)"
        )
    if "paso_minimo_entrenamiento" in ev:
        texto += (
            f"; mínima de la curva suavizada {_fmt(ev['perdida_minima_entrenamiento'])} "
            f"en {donde(ev['paso_minimo_entrenamiento'])}"
        )
    lineas.append(texto + ".")

    if not curvas.validacion:
        lineas.append("  - Pérdida de validación: no hay registros (activa eval_strategy para tenerla).")
    else:
        texto = f"  - Pérdida de validación: {_contar(len(curvas.validacion), 'evaluación')}"
        if "validacion_minima" in ev:
            texto += f"; mínima {_fmt(ev['validacion_minima'])} en {donde(ev['paso_validacion_minima'])}"
        else:
            texto += "; ninguna es un número finito"
        final = ev.get("validacion_final", curvas.validacion[-1])
        if math.isfinite(final):
            texto += f"; final {_fmt(final)} en {donde(curvas.pasos_validacion[-1])}"
        lineas.append(texto + ".")

    if ev.get("puntos_no_finitos"):
        texto = f"  - Registros de entrenamiento que no son un número (NaN o infinito): {ev['puntos_no_finitos']}"
        if "paso_no_finito" in ev:
            texto += f", desde {donde(ev['paso_no_finito'])} hasta el final"
        lineas.append(texto + ".")
    if curvas.azar is not None:
        lineas.append(f"  - Nivel del azar (la pérdida de un modelo que adivina): {curvas.origen_azar}.")
    if diagnostico.mejor_paso is not None:
        lineas.append(f"  - Mejor {curvas.eje} (el de menor pérdida de validación): {diagnostico.mejor_paso}.")
    return [_contraer(linea) for linea in lineas]


def _contar(n: int, cosa: str) -> str:
    plural = {"registro": "registros", "evaluación": "evaluaciones"}[cosa]
    return f"1 {cosa}" if n == 1 else f"{n} {plural}"


def ejecutar(args) -> Resultado:
    from tutor_lib.curvas import diagnosticar, graficar, leer_curvas

    curvas = leer_curvas(Path(args.ruta), num_clases=args.clases)
    diagnostico = diagnosticar(curvas)
    lineas = [f"Diagnóstico: {diagnostico.categoria}", "", diagnostico.explicacion, ""]
    lineas += _cifras(curvas, diagnostico) + [""]
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
