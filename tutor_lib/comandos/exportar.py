"""``tutor exportar``: las notas de ``tutor calificar`` al LMS (Canvas, Moodle, XML de Moodle o LTI 1.3).

``CARPETA`` es la salida de ``tutor calificar`` (``calificaciones.json`` y ``detalle.json``);
``--hoja`` es el archivo que bajaste del LMS: el libro de calificaciones de Canvas o la hoja de
calificaciones de la tarea de Moodle (en inglés o en español). ``--salida`` recibe una copia de
la hoja con las notas llenas (o el XML, o los Score de LTI): la hoja original no se toca nunca.

Contrato de ``--json``: ``asignacion``, ``formato``, ``hoja``, ``salida``, ``anterior`` (dónde quedó
una salida que ya existía, o ``null``), ``columna``, ``maximo``, ``maximo_lms``, ``factor``,
``exportadas`` (``estudiante``, ``valor`` y, según el formato, ``fila``, ``nombre_en_hoja``,
``lms_id``, ``anterior``, ``numero_id``, ``userId``, ``gradingProgress``; y ``puntos``, ``tarde``),
``pendiente_manual`` (``estudiante``, ``puntos``, ``pendiente_manual``, ``maximo``),
``no_calificadas`` (``estudiante``, ``estado``, ``mensaje``), ``omitidas`` (``estudiante``,
``fila``, ``motivo``), ``sin_fila`` (``estudiante``, ``nombre_original``, ``lms``, ``lms_id``,
``motivo``), ``conflictos``, ``sin_entrega`` (``fila``, ``nombre``, ``lms_id``),
``celdas_neutralizadas`` y ``avisos``. Ver :mod:`tutor_lib.calificacion.exportar` y
course/GUIA_INSTRUCTOR.md.
"""

from __future__ import annotations

from pathlib import Path

from tutor_lib.comandos import Resultado

NOMBRE = "exportar"
AYUDA = ("Lleva las notas de «tutor calificar» al LMS: llena la hoja de Canvas o de Moodle, o escribe el XML de "
         "Moodle o los Score de LTI 1.3.")
EPILOGO = (
    "Solo se escribe la nota de quien quedó «calificado»: quien tiene respuestas escritas pendientes de calificar "
    "a mano queda en blanco (en LTI sale como PendingManual, nunca como definitiva) y se informa, igual que los "
    "errores, las filas sin entrega y las entregas sin fila. --lista es un CSV con la columna «estudiante» (el id "
    "del curso) y al menos una de lms_id (user_id de Canvas o número de participante de Moodle), email, numero_id "
    "(el «ID number» de Moodle, que pide moodle-xml; SIS User ID en Canvas) y lti_user_id. La salida nunca pisa la "
    "hoja ni las notas; si ya existía, la anterior queda al lado como ARCHIVO.anterior-<fecha>."
)


def configurar(parser) -> None:
    parser.epilog = EPILOGO
    parser.add_argument("carpeta", metavar="CARPETA", help="la carpeta de salida de «tutor calificar»")
    parser.add_argument("--hoja", metavar="HOJA_DEL_LMS",
                        help="el CSV que bajaste del LMS: libro de Canvas u hoja de calificaciones de Moodle")
    parser.add_argument("--salida", metavar="ARCHIVO", required=True,
                        help="dónde escribir la hoja llena (o el XML, o el JSON Lines de LTI)")
    parser.add_argument("--columna", metavar="NOMBRE",
                        help="Canvas: la columna de la tarea si su título no es el de la asignación; Moodle: la "
                             "columna de comentarios; moodle-xml: el número ID del ítem de calificación (por "
                             "omisión, la asignación)")
    parser.add_argument("--lista", metavar="LISTA.csv", help="CSV estudiante → lms_id, email, numero_id, lti_user_id")
    parser.add_argument("--formato", choices=("canvas", "moodle", "moodle-xml", "lti"),
                        help="por omisión, el de --hoja (canvas o moodle)")


def _nombres(filas: list[dict], clave: str = "estudiante", maximo: int = 6) -> str:
    nombres = [str(f.get(clave)) for f in filas]
    return "; ".join(nombres[:maximo]) + (f" y {len(nombres) - maximo} más" if len(nombres) > maximo else "")


def ejecutar(args) -> Resultado:
    from tutor_lib.calificacion.exportar import exportar_notas

    datos = exportar_notas(Path(args.carpeta), Path(args.salida), hoja=Path(args.hoja) if args.hoja else None,
                           formato=args.formato, columna=args.columna, lista=Path(args.lista) if args.lista else None)
    lms = {"canvas": "Canvas", "moodle": "Moodle", "moodle-xml": "XML de Moodle", "lti": "LTI 1.3"}[datos["formato"]]
    destino = f", columna «{datos['columna']}»" if datos["formato"] in ("canvas", "moodle") else ""
    if datos["formato"] == "moodle-xml":
        destino = f", ítem «{datos['columna']}»"
    lineas = [f"{datos['asignacion']} → {lms}{destino}: {len(datos['exportadas'])} nota"
              f"{'' if len(datos['exportadas']) == 1 else 's'} escrita{'' if len(datos['exportadas']) == 1 else 's'}."]
    if datos["factor"] != 1.0:
        lineas.append(f"Puntos escalados de {datos['maximo']:g} a {datos['maximo_lms']:g} (×{datos['factor']:.4g}).")
    tarde = [e for e in datos["exportadas"] if e.get("tarde")]
    if tarde:
        lineas.append(f"Entregaron tarde (la nota va sin descuento; el LMS aplica su política): {_nombres(tarde)}.")
    if datos["pendiente_manual"]:
        como = ("salen como PendingManual (pendientes en el LMS)" if datos["formato"] == "lti"
                else "quedan en blanco hasta que califiques sus respuestas escritas")
        quienes = ", ".join(f"{p['estudiante']} ({p['pendiente_manual']:g} puntos)" for p in datos["pendiente_manual"])
        lineas.append(f"Pendientes de calificar a mano, {como}: {quienes}.")
    if datos["no_calificadas"]:
        lineas.append("Sin calificar (quedan en blanco): "
                      + ", ".join(f"{n['estudiante']} ({n['estado']})" for n in datos["no_calificadas"]) + ".")
    for clave, titulo in (("omitidas", "No se tocaron"), ("sin_fila", "Entregas que no llegan al LMS"),
                          ("conflictos", "Conflictos (fila sin tocar)")):
        for f in datos[clave]:
            quien = f.get("estudiante") or ", ".join(f.get("estudiantes", []))
            lineas.append(f"{titulo}: {quien}: {f['motivo']}.")
    if datos["sin_entrega"]:
        lineas.append(f"Filas de la hoja sin entrega (quedan como estaban): {len(datos['sin_entrega'])} "
                      f"({_nombres(datos['sin_entrega'], 'nombre')}).")
    if datos["celdas_neutralizadas"]:
        lineas.append("Celdas de la hoja que empezaban como fórmula y llevan «'» delante: "
                      f"{datos['celdas_neutralizadas']}.")
    lineas.append(f"Salida: {datos['salida']}")
    if datos["anterior"]:
        lineas.append(f"La salida anterior quedó en {datos['anterior']}")
    return Resultado(datos=datos, texto="\n".join(lineas), codigo=0, avisos=list(datos["avisos"]))
