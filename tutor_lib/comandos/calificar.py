"""``tutor calificar``: califica a toda una clase con nbgrader (autograde + feedback).

``CARPETA`` tiene una subcarpeta por estudiante con su notebook (o es el zip
de entregas de un LMS). Escribe en ``--salida`` (por omisión
``calificaciones_<ASIGNACION>`` junto a ``CARPETA``): ``calificaciones.csv``,
``calificaciones.json``, ``detalle.json``, ``retroalimentacion/<id>/<asig>.html``
la libreta ``gradebook.db`` (o las notas en PostgreSQL con ``--gradebook``),
``avance.jsonl`` y ``autocalificados/`` (para reanudar sin calificar dos veces).

Contrato de ``--json``: ``{"asignacion", "maximo", "estudiantes": {id: {"puntos",
"estado", "mensaje", "nombre_original", "lms", "lms_id", "tarde"}}}`` y además
``salida``, ``aislamiento``, ``omitidas``, ``libreta`` (la URL sin contraseña) y
``progreso`` (``total``, ``calificadas``, ``reutilizadas``, ``fallidas``,
``trabajadores``, ``segundos``, ``entregas_por_minuto``). ``estado`` es uno de
``calificado``, ``error``, ``tiempo agotado``, ``inválido``, ``sin entrega``.
``nombre_original`` es el nombre de la carpeta o el que puso el LMS; ``lms`` es
``moodle``, ``canvas`` o ``null`` (una carpeta, o un zip que no es de un LMS);
``lms_id``, el número de participante de Moodle o el user_id de Canvas como
texto (``null`` si no hay: una entrega anónima de Canvas, o un id que el zip trae
con dos nombres); ``tarde``, si Canvas la marcó LATE. El zip de un LMS se lee por
persona (:mod:`tutor_lib.calificacion.lms`): su id sale de su nombre y, si dos se
llaman igual, lleva su ``lms_id`` (``Ana_Perez_123456``).
Ver :mod:`tutor_lib.calificacion.motor.clase` y course/GUIA_INSTRUCTOR.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tutor_lib.comandos import Resultado

NOMBRE = "calificar"
AYUDA = "Califica todas las entregas de una asignación con nbgrader: CSV de notas y retroalimentación por estudiante."


def configurar(parser) -> None:
    parser.add_argument("asignacion", metavar="ASIGNACION", help="p. ej. ej04_warmup")
    parser.add_argument("carpeta", metavar="CARPETA", help="una subcarpeta por estudiante con su notebook, o un .zip del LMS")
    parser.add_argument("--salida", metavar="DIR", help="dónde escribir notas y retroalimentación")
    parser.add_argument("--tiempo-celda", type=int, default=60, metavar="S", help="segundos máximos por celda (60)")
    parser.add_argument("--tiempo-total", type=int, default=600, metavar="S", help="segundos máximos por entrega (600)")
    parser.add_argument("--memoria-mb", type=int, default=4096, metavar="MB", help="memoria virtual máxima del kernel (4096)")
    parser.add_argument("--procesos", type=int, default=0, metavar="N",
                        help="trabajadores locales (Dask) que califican a la vez (por omisión, la mitad de los núcleos)")
    parser.add_argument("--cluster", metavar="DIRECCION",
                        help="planificador de Dask con trabajadores ya iniciados, p. ej. tcp://10.0.0.5:8786 "
                             "(requiere --gradebook postgresql://...)")
    parser.add_argument("--gradebook", metavar="URL",
                        help="libreta de nbgrader: postgresql://usuario@servidor/base (por omisión, "
                             "gradebook.db en la carpeta de salida)")
    parser.add_argument("--sin-aislamiento", action="store_true",
                        help="no aísla el kernel (solo para depurar: el código de los estudiantes corre con tus permisos)")


def ejecutar(args) -> Resultado:
    from tutor_lib import formato
    from tutor_lib.calificacion.resultados import Limites
    from tutor_lib.calificacion.motor.clase import calificar_clase

    if args.procesos < 0:
        raise ValueError("--procesos debe ser 0 (automático) o un número positivo.")
    if args.cluster and args.procesos:
        raise ValueError("Usa --cluster o --procesos, no los dos: con --cluster trabajan los trabajadores del clúster.")
    for opcion in ("tiempo_celda", "tiempo_total", "memoria_mb"):
        if getattr(args, opcion) <= 0:
            raise ValueError(f"--{opcion.replace('_', '-')} debe ser positivo.")
    limites = Limites(tiempo_celda=args.tiempo_celda, tiempo_total=args.tiempo_total, memoria_mb=args.memoria_mb)
    avance = None if args.json else (lambda linea: print(linea, file=sys.stderr, flush=True))
    datos = calificar_clase(args.asignacion, Path(args.carpeta), Path(args.salida) if args.salida else None,
                            limites=limites, aislar=not args.sin_aislamiento, progreso=avance,
                            procesos=args.procesos or None, gradebook=args.gradebook, cluster=args.cluster,
                            barra=not args.json and sys.stderr.isatty())
    estudiantes = datos["estudiantes"]
    calificados = sum(1 for e in estudiantes.values() if e["estado"] == "calificado")
    cifras = datos["progreso"]
    lineas = [
        f"{args.asignacion}: {calificados} de {len(estudiantes)} entregas calificadas (máximo {datos['maximo']:g} puntos).",
        (f"Calificadas ahora: {cifras['calificadas']} en {formato.numero(cifras['segundos'], 1)} s con "
         f"{cifras['trabajadores']} trabajador{'' if cifras['trabajadores'] == 1 else 'es'} (fallidas: "
         f"{cifras['fallidas']}); sin cambios desde la corrida "
         f"anterior: {cifras['reutilizadas']}." if cifras["calificadas"] else
         f"Ninguna entrega cambió desde la corrida anterior: las {cifras['reutilizadas']} notas se reutilizaron."),
        f"Notas: {datos['salida']}/calificaciones.csv",
        f"Retroalimentación: {datos['salida']}/retroalimentacion/",
        f"Libreta: {datos['libreta']}",
    ]
    if not datos["aislamiento"]["completo"]:
        lineas.append("Atención: el kernel NO quedó aislado por completo (ver detalle.json y la guía del instructor).")
    return Resultado(datos=datos, texto="\n".join(lineas), codigo=0)
