"""``tutor actualizar``: trae la versión nueva de una lección o un ejercicio sin perder tu copia.

Trabaja sobre la carpeta de trabajo de ``tutor curso`` (por defecto ``trabajo/``): tu versión queda al
lado como ``<nombre>.respaldo-AAAAMMDD-HHMMSS.ipynb``. Contrato de ``--json``:
``{"carpeta": str, "actualizados": [{"notebook": str, "respaldo": str|null}, ...]}``.
La lógica está en :mod:`tutor_lib.trabajo`.
"""

from __future__ import annotations

from pathlib import Path

from tutor_lib.comandos import Resultado

NOMBRE = "actualizar"
AYUDA = ("Trae a tu carpeta de trabajo la versión del curso de una lección o un ejercicio "
         "(la tuya queda como respaldo al lado).")


def configurar(parser) -> None:
    parser.add_argument("nombres", nargs="+", metavar="NOMBRE",
                        help="lección o ejercicio: 03, 03_trainer, ej04 o ej04_warmup (uno o varios)")
    parser.add_argument("--trabajo", default=None,
                        help="tu carpeta de trabajo (por defecto, trabajo/ en la carpeta del curso)")


def ejecutar(args) -> Resultado:
    from tutor_lib import trabajo
    from tutor_lib.comandos.curso import raiz_del_curso

    raiz = raiz_del_curso()
    carpeta = Path(args.trabajo).expanduser() if args.trabajo else raiz / trabajo.CARPETA_POR_DEFECTO
    relativas = [trabajo.resolver(raiz, n) for n in args.nombres]  # todos los nombres antes de tocar nada
    hechos = [trabajo.actualizar(raiz, carpeta, r) for r in dict.fromkeys(relativas)]
    lineas = []
    for h in hechos:
        nombre = Path(h["notebook"]).name
        if h["respaldo"]:
            lineas.append(f"{nombre}: versión nueva del curso en {h['notebook']}; la tuya quedó en {h['respaldo']}.")
        else:
            lineas.append(f"{nombre}: tu copia ya era igual a la del curso; quedó en {h['notebook']}.")
    return Resultado(datos={"carpeta": str(carpeta.resolve()), "actualizados": hechos}, texto="\n".join(lineas))
