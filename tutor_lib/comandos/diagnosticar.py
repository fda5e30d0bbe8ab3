"""``tutor diagnosticar``: diagnostica una curva de entrenamiento desde un trainer_state.json.

Contrato de ``--json``: ``{"categoria", "explicacion", "remedios": [...], "mejor_paso": int|null}``.
Sin ``--json``, además del diagnóstico imprime las cifras de la curva, cada una
con lo que mide (pérdida de entrenamiento o de validación, en qué paso y época)
y qué estadístico es: la explicación compara niveles (la mediana de los primeros
y de los últimos registros), mientras la gráfica dibuja cada registro; la
explicación termina con una nota que lo dice para cada cifra que cita.

Un archivo sin ninguna pérdida de entrenamiento (``log_history`` vacío, solo el
resumen final de una corrida más corta que ``logging_steps``, solo
evaluaciones) o ilegible es un error en español que nombra el archivo y dice qué
cambiar (código 2). Lo que la lectura arregló (pasos desordenados o repetidos,
``loss`` nulos, una curva tan larga que se usa uno de cada tantos registros) se
avisa en stderr. Las reglas viven en :mod:`tutor_lib.curvas` (se usa en
lessons/09_curvas_de_entrenamiento).
"""

from __future__ import annotations

from pathlib import Path

from tutor_lib.comandos import Resultado

NOMBRE = "diagnosticar"
AYUDA = (
    "Diagnostica una curva de entrenamiento (sano, sobreajuste, subajuste, inestable, divergencia, "
    "indeterminado o no_concluyente) desde trainer_state.json, una carpeta de checkpoint o de corrida."
)

FORMATOS_GRAFICA = (".png", ".svg", ".pdf", ".jpg", ".jpeg")


def configurar(parser) -> None:
    parser.add_argument(
        "ruta",
        metavar="RUTA",
        help=(
            "trainer_state.json, carpeta de checkpoint, carpeta de corrida (se toma el checkpoint-N más alto), "
            'un JSON con {"entrenamiento": [...], "validacion": [...]} o una lista JSON de pérdidas'
        ),
    )
    parser.add_argument("--grafica", metavar="SALIDA", help="guarda la gráfica en este archivo (.png, .svg o .pdf)")
    parser.add_argument(
        "--clases", metavar="N", type=int,
        help=(
            "número de clases, si la pérdida es una entropía cruzada entre N clases: el nivel del azar es ln(N). "
            "Sin esta opción se lee del config.json de la corrida (num_labels o vocab_size), si está; "
            "si tampoco está, se estima con la curva y la explicación lo dice"
        ),
    )


def _cifras(curvas, diagnostico, cifras) -> list[str]:
    """Las cifras del diagnóstico, cada una con su nombre, el estadístico que es y dónde ocurrió.

    Son las de ``diagnostico.evidencia``, las mismas con que se redacta la
    explicación, y además el primer y el último registro: los extremos que
    dibuja la gráfica, que no tienen por qué coincidir con los niveles.
    ``cifras`` son las de :func:`tutor_lib.curvas.texto.medidas`: cada cifra con su estadístico.
    """
    import math

    from tutor_lib.curvas import _Contexto, _contraer, _fmt

    ev = diagnostico.evidencia
    donde = _Contexto(curvas).donde
    lineas = ["Cifras (pérdidas en la unidad de tu función de pérdida, p. ej. entropía cruzada):"]

    def con(nombre: str) -> str:
        """La cifra y, entre paréntesis, qué estadístico es (si se pudo comprobar)."""
        medida = cifras[nombre]
        return _fmt(medida.valor) + (f" ({medida.corta})" if medida.corta else "")

    pasos = curvas.pasos_entrenamiento
    tramo = f"en {donde(pasos[0])}" if len(pasos) == 1 else f"de {donde(pasos[0])} a {donde(pasos[-1])}"
    aligerado = curvas.registro.get("aligerado", {})
    cuantos = _contar(len(pasos), "registro", aligerado.get("entrenamiento"))
    texto = f"  - Pérdida de entrenamiento: {cuantos}, {tramo}"
    if "primer_registro" in cifras and len(pasos) > 1:
        texto += (f"; en la gráfica, {cifras['primer_registro'].corta} {_fmt(cifras['primer_registro'].valor)} "
                  f"y {cifras['ultimo_registro'].corta} {_fmt(cifras['ultimo_registro'].valor)}")
    if "perdida_inicial" in cifras and "perdida_final" in cifras:
        texto += f"; nivel inicial {con('perdida_inicial')} y final {con('perdida_final')}"
    if "perdida_minima_entrenamiento" in cifras:
        medida = cifras["perdida_minima_entrenamiento"]
        suavizada = "curva suavizada"
        if medida.ventana:
            suavizada += f" con una mediana móvil de {medida.ventana} registros"
        texto += f"; mínimo de la {suavizada}: {_fmt(medida.valor)}, en {donde(ev['paso_minimo_entrenamiento'])}"
    lineas.append(texto + ".")

    if not curvas.validacion:
        lineas.append("  - Pérdida de validación: no hay registros (activa eval_strategy para tenerla).")
    else:
        cuantas = _contar(len(curvas.validacion), "evaluación", aligerado.get("validacion"))
        texto = f"  - Pérdida de validación: {cuantas}"
        if "validacion_minima" in ev:
            texto += f"; mínima {_fmt(ev['validacion_minima'])} en {donde(ev['paso_validacion_minima'])}"
        else:
            texto += "; ninguna es un número finito"
        ultima = curvas.validacion[-1]
        if math.isfinite(ultima):
            texto += f"; última {_fmt(ultima)} en {donde(curvas.pasos_validacion[-1])}"
        if "validacion_final" in cifras and cifras["validacion_final"].corta != "última evaluación":
            texto += f"; nivel final {con('validacion_final')}"
        lineas.append(texto + ".")

    if ev.get("puntos_no_finitos"):
        texto = f"  - Registros de entrenamiento que no son un número (NaN o infinito): {ev['puntos_no_finitos']}"
        if "paso_no_finito" in ev:
            texto += f", desde {donde(ev['paso_no_finito'])} hasta el final"
        lineas.append(texto + ".")
    if curvas.azar is not None:
        lineas.append(f"  - Nivel del azar (la pérdida de un modelo que adivina): {curvas.origen_azar}.")
    elif ev.get("azar_estimado"):
        lineas.append(f"  - Nivel del azar, {ev['origen_azar']} (con --clases N lo fijas tú).")
    if diagnostico.mejor_paso is not None:
        lineas.append(f"  - Mejor {curvas.eje} (el de menor pérdida de validación): {diagnostico.mejor_paso}.")
    return [_contraer(linea) for linea in lineas]


def _contar(n: int, cosa: str, aligerado: tuple[int, int] | None = None) -> str:
    """«1 registro», «12 registros»; «10 001 registros (de 100 000, uno de cada 10)» si la curva se aligeró."""
    from tutor_lib.formato import entero

    plural = {"registro": "registros", "evaluación": "evaluaciones"}[cosa]
    texto = f"1 {cosa}" if n == 1 else f"{entero(n)} {plural}"
    if aligerado:
        texto += f" (de {entero(aligerado[0])}, {'una' if cosa == 'evaluación' else 'uno'} de cada {aligerado[1]})"
    return texto


def ejecutar(args) -> Resultado:
    from tutor_lib.curvas import _contraer, diagnosticar, graficar, leer_curvas
    from tutor_lib.curvas.lectura import aligerar, exigir_entrenamiento
    from tutor_lib.curvas.texto import medidas, nota_de_cifras

    curvas = leer_curvas(Path(args.ruta), num_clases=args.clases)
    exigir_entrenamiento(curvas)  # sin ningún «loss» no hay curva que diagnosticar: error que dice qué cambiar
    curvas = aligerar(curvas)
    try:
        diagnostico = diagnosticar(curvas)
    except ValueError as exc:  # p. ej. una pérdida negativa: el mensaje nombra el archivo
        raise ValueError(f"En {curvas.origen!r}: {exc}" if curvas.origen else str(exc)) from None
    # la explicación compara niveles (medianas), la gráfica dibuja registros: se dice qué es cada cifra
    cifras = medidas(curvas, diagnostico.evidencia)
    nota = nota_de_cifras(curvas, diagnostico.evidencia, diagnostico.explicacion, cifras)
    if nota:
        diagnostico.explicacion = _contraer(f"{diagnostico.explicacion} {nota}")
    lineas = [f"Diagnóstico: {diagnostico.categoria}", "", diagnostico.explicacion, ""]
    lineas += _cifras(curvas, diagnostico, cifras) + [""]
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
    return Resultado(datos=diagnostico.como_dict(), texto="\n".join(lineas), codigo=0, avisos=list(curvas.avisos))
