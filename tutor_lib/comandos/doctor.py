"""``tutor doctor``: una línea por requisito con [OK] o [FALTA]."""

from __future__ import annotations

from tutor_lib.comandos import Resultado
from tutor_lib.entorno import NOMBRES_MODO, comprobar_requisitos

NOMBRE = "doctor"
AYUDA = "Revisa el entorno: paquetes, GPU, acceso al Hub y modo del curso."


def configurar(parser) -> None:
    parser.add_argument(
        "--sin-hub", action="store_true", help="no intenta conectar con el Hub (lo da por inaccesible)"
    )


def ejecutar(args) -> Resultado:
    comprobaciones = comprobar_requisitos(probar_hub=not args.sin_hub)
    lineas = []
    for c in comprobaciones:
        etiqueta = "[OK]   " if c.ok else ("[FALTA]" if c.obligatoria else "[AVISO]")
        lineas.append(f"{etiqueta} {c.nombre}: {c.detalle}")
        if c.consejo:
            lineas.append(f"        → {c.consejo}")
    faltan = [c for c in comprobaciones if c.obligatoria and not c.ok]
    # la línea dice el modo en el texto («rápido»); --json da el valor del código («rapido»)
    escrito = next(c for c in comprobaciones if c.nombre == "Modo").detalle.split()[0]
    modo = {texto: valor for valor, texto in NOMBRES_MODO.items()}.get(escrito, escrito)
    lineas.append("")
    lineas.append(
        "Todo listo." if not faltan else (
            "Falta 1 requisito obligatorio: revisa la línea [FALTA]." if len(faltan) == 1
            else f"Faltan {len(faltan)} requisitos obligatorios: revisa las líneas [FALTA].")
    )
    datos = {
        "modo": modo,
        "comprobaciones": [
            {"nombre": c.nombre, "ok": c.ok, "detalle": c.detalle, "consejo": c.consejo, "obligatoria": c.obligatoria}
            for c in comprobaciones
        ],
        "faltan": [c.nombre for c in faltan],
    }
    return Resultado(datos=datos, texto="\n".join(lineas), codigo=1 if faltan else 0)
