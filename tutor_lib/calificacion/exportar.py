"""``tutor exportar``: las notas de ``tutor calificar`` de vuelta al LMS, sin copiarlas a mano.

Lee la carpeta que dejó ``tutor calificar`` (``calificaciones.json`` y ``detalle.json``) y escribe
uno de cuatro formatos (``--formato``):

* ``canvas``: el libro de calificaciones que exportó Canvas, con la columna de la asignación llena
  (puntos con punto decimal, escalados a su «Points Possible»); se sube con «Importar» del libro;
* ``moodle``: la hoja de calificaciones de la tarea de Moodle (en inglés o en español) con
  «Calificación» y «Comentarios de retroalimentación» llenos, los números como los escribe la hoja
  y escalados a su «Calificación máxima»; se sube con «Subir hoja de calificaciones»;
* ``moodle-xml``: el formato de ``grade/import/xml`` de Moodle (``<results><result><assignment>``
  número ID del ítem de calificación, ``<student>`` número ID del usuario, ``<score>``,
  ``<feedback>``); ``--lista`` da el número ID de cada estudiante (``numero_id``);
* ``lti``: un objeto Score de LTI 1.3 Assignment and Grade Services por línea (JSON Lines): el
  cuerpo de cada POST a ``{lineitem}/scores``; ``userId`` sale de ``--lista`` (``lti_user_id``)
  o, en Canvas, del user_id que trajo el zip (Canvas acepta los dos).

Cada estudiante se reconoce por el id del LMS que guardó ``tutor calificar`` al leer el zip
(``lms``, ``lms_id``) o, si no, por ``--lista`` (:func:`leer_lista`). Solo se escribe la nota de
quien quedó ``calificado`` y sin respuestas pendientes de calificar a mano: las demás celdas
quedan como estaban y el informe dice por qué (``pendiente_manual``, ``no_calificadas``,
``sin_fila``, ``sin_entrega``...). En LTI, una calificación con partes pendientes sale como
``PendingManual``, que el LMS muestra como pendiente, nunca como definitiva. El comentario trae
el puntaje de cada parte y el mensaje que ya vio el estudiante: nunca el código de las pruebas.

Nada de lo que hizo el instructor se pisa: la salida no puede ser la hoja, la lista ni un archivo
de la carpeta de ``tutor calificar``; se escribe de una vez (un archivo temporal que se renombra)
y, si ya existía, la versión anterior queda al lado como ``ARCHIVO.anterior-<fecha>``. Un error en
la entrada (hoja corrupta, sin la columna, de otro curso...) es un ``ValueError`` en español y no
se escribe nada. Las hojas se leen en :mod:`tutor_lib.calificacion.hojas_lms`.
"""

from __future__ import annotations

import datetime
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from tutor_lib.calificacion import hojas_lms
from tutor_lib.calificacion.hojas_lms import FilaLMS, escribir_numero, leer_csv, numero_de_participante
from tutor_lib.calificacion.salidas_lms import comentario as _comentario
from tutor_lib.calificacion.salidas_lms import escribir_atomico, revisar_salida, score_lti, xml_moodle
from tutor_lib.formato import sin_controles

FORMATOS = ("canvas", "moodle", "moodle-xml", "lti")
ARCHIVOS_DE_CALIFICAR = ("calificaciones.json", "detalle.json", "calificaciones.csv")


# --- lo que dejó tutor calificar ----------------------------------------------------------------------


@dataclass
class Nota:
    """La calificación de un estudiante, como la escribió ``tutor calificar``."""

    estudiante: str
    estado: str
    puntos: float
    maximo: float
    mensaje: str = ""
    pendiente_manual: float = 0.0
    partes: list[dict] = field(default_factory=list)
    nombre_original: str = ""
    lms: str | None = None
    lms_id: str | None = None
    tarde: bool = False


def _leer_json(ruta: Path, que: str):
    if not ruta.is_file():
        raise FileNotFoundError(f"{ruta.parent} no tiene {ruta.name} ({que}): ¿es la carpeta de salida de "
                                "«tutor calificar»?")
    try:
        return json.loads(ruta.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{ruta} no es un JSON válido ({exc}): vuelve a correr «tutor calificar».") from None


def _real(valor, que: str) -> float:
    if isinstance(valor, bool) or not isinstance(valor, (int, float)) or not math.isfinite(valor) or valor < 0:
        raise ValueError(f"{que} debe ser un número ≥ 0; encontré {valor!r}.")
    return float(valor)


def leer_resultados(carpeta: Path) -> tuple[str, float, list[Nota]]:
    """``(asignacion, maximo, notas)`` de la carpeta de salida de ``tutor calificar``.

    Acepta las corridas anteriores al issue 45 (sin ``lms``, ``lms_id`` ni ``tarde``: se toman
    como ``None``/``False``). Falta un archivo, JSON roto o claves con tipos equivocados:
    ``ValueError``/``FileNotFoundError`` en español.
    """
    carpeta = Path(carpeta)
    if not carpeta.is_dir():
        raise FileNotFoundError(f"No encuentro la carpeta {carpeta}: da la carpeta de salida de «tutor calificar».")
    cal = _leer_json(carpeta / "calificaciones.json", "las notas")
    detalle = _leer_json(carpeta / "detalle.json", "el detalle por parte")
    if not isinstance(cal, dict) or not isinstance(cal.get("estudiantes"), dict):
        raise ValueError(f"{carpeta / 'calificaciones.json'} no tiene «estudiantes»: "
                         "¿la escribió «tutor calificar»?")
    asignacion = cal.get("asignacion")
    if not isinstance(asignacion, str) or not asignacion.strip():
        raise ValueError(f"{carpeta / 'calificaciones.json'} no dice la asignación («asignacion»).")
    maximo = _real(cal.get("maximo"), "«maximo» de calificaciones.json")
    if not isinstance(detalle, dict):
        raise ValueError(f"{carpeta / 'detalle.json'} no es un objeto estudiante → detalle.")
    notas = []
    for ident, e in cal["estudiantes"].items():
        if not isinstance(e, dict):
            raise ValueError(f"calificaciones.json: el estudiante {ident!r} no es un objeto.")
        d = detalle.get(ident)
        if not isinstance(d, dict):
            raise ValueError(f"detalle.json no tiene al estudiante {ident!r} de calificaciones.json: vuelve a correr "
                             "«tutor calificar» para que los dos coincidan.")
        partes = d.get("partes") or []
        if not isinstance(partes, list) or not all(isinstance(p, dict) for p in partes):
            raise ValueError(f"detalle.json: las partes de {ident!r} no son una lista de objetos.")
        for p in partes:
            if p.get("puntos") is not None:
                _real(p["puntos"], f"detalle.json: los puntos de la parte {p.get('id')!r} de {ident!r}")
            _real(p.get("maximo"), f"detalle.json: el máximo de la parte {p.get('id')!r} de {ident!r}")
        lms = e.get("lms") if e.get("lms") in ("moodle", "canvas") else None
        lms_id = e.get("lms_id")
        notas.append(Nota(
            estudiante=str(ident), estado=str(e.get("estado", "")),
            puntos=_real(e.get("puntos", 0), f"los puntos de {ident!r}"),
            maximo=maximo, mensaje=str(e.get("mensaje", "")),
            pendiente_manual=_real(d.get("pendiente_manual", 0) or 0, f"pendiente_manual de {ident!r}"),
            partes=partes, nombre_original=str(e.get("nombre_original") or ident),
            lms=lms, lms_id=str(lms_id).strip() if lms and lms_id not in (None, "") else None,
            tarde=e.get("tarde") is True,
        ))
    if not notas:
        raise ValueError(f"{carpeta / 'calificaciones.json'} no tiene estudiantes: no hay nada que exportar.")
    return asignacion.strip(), maximo, notas


# --- la lista del curso (--lista) -----------------------------------------------------------------------

#: Columnas de ``--lista``: ``estudiante`` (el id del curso, como en calificaciones.json) y al menos una de las otras.
COLUMNAS_LISTA = ("lms_id", "email", "numero_id", "lti_user_id")


@dataclass
class Contacto:
    """Una fila de ``--lista``: cómo reconoce el LMS a un estudiante del curso."""

    estudiante: str
    lms_id: str | None = None  # Canvas: user_id (columna ID); Moodle: número de participante
    email: str | None = None  # Moodle: correo; Canvas: SIS Login ID
    numero_id: str | None = None  # Moodle: «ID number» del usuario (moodle-xml); Canvas: SIS User ID
    lti_user_id: str | None = None  # el «sub» de LTI 1.3 (--formato lti)


def leer_lista(ruta: Path) -> dict[str, Contacto]:
    """La lista del curso: un CSV con ``estudiante`` y al menos una columna de :data:`COLUMNAS_LISTA`.

    Los encabezados no distinguen mayúsculas; las demás columnas se ignoran. Un estudiante
    repetido, un mismo id para dos estudiantes o una fila sin ``estudiante``: ``ValueError``.
    """
    leido = leer_csv(Path(ruta), "la lista")
    enc = [c.strip().casefold() for c in leido.filas[0]]
    if "estudiante" not in enc or not set(COLUMNAS_LISTA) & set(enc):
        raise ValueError(f"La lista {Path(ruta).name} necesita la columna «estudiante» y al menos una de "
                         f"{', '.join(COLUMNAS_LISTA)}; su encabezado es {', '.join(leido.filas[0])}.")
    contactos: dict[str, Contacto] = {}
    vistos: dict[tuple[str, str], str] = {}
    for n, fila in enumerate(leido.filas[1:], start=2):
        if not any(c.strip() for c in fila):
            continue
        valores = {enc[j]: fila[j].strip() for j in range(len(enc))}
        ident = valores["estudiante"]
        if not ident:
            raise ValueError(f"La lista {Path(ruta).name}: la fila {n} no tiene «estudiante».")
        if ident in contactos:
            raise ValueError(f"La lista {Path(ruta).name}: {ident!r} aparece dos veces (fila {n}).")
        datos = {c: valores.get(c) or None for c in COLUMNAS_LISTA}
        if datos["lms_id"]:
            datos["lms_id"] = numero_de_participante(datos["lms_id"]) or datos["lms_id"]
        for c, v in datos.items():
            clave = (c, v.casefold() if c == "email" else v) if v else None
            if clave and clave in vistos:
                raise ValueError(f"La lista {Path(ruta).name}: {c} {v!r} es de {vistos[clave]!r} y de {ident!r} "
                                 f"(fila {n}).")
            if clave:
                vistos[clave] = ident
        contactos[ident] = Contacto(ident, **datos)
    return contactos


# --- quién es quién ----------------------------------------------------------------------------------------


@dataclass
class Emparejamiento:
    filas: dict[str, FilaLMS]  # estudiante → su fila
    sin_fila: list[dict]
    conflictos: list[dict]


def emparejar(notas: list[Nota], filas: list[FilaLMS], lms: str, lista: dict[str, Contacto]) -> Emparejamiento:
    """La fila de la hoja de cada estudiante: por el id del zip si vino del mismo LMS; si no, por ``--lista``.

    En la lista se prueba ``lms_id``, luego ``email`` y luego ``numero_id``. Dos estudiantes que
    caen en la misma fila (o una clave repetida en la hoja) son un conflicto: esa fila no se toca.
    """
    indices: dict[str, dict[str, list[FilaLMS]]] = {"lms_id": {}, "email": {}, "numero_id": {}}
    for f in filas:
        for clave in indices:
            valor = getattr(f, clave)
            if valor:
                indices[clave].setdefault(valor.casefold() if clave == "email" else valor, []).append(f)
    elegidas: dict[str, FilaLMS] = {}
    sin_fila, conflictos = [], []
    for nota in notas:
        intentos = []
        if nota.lms == lms and nota.lms_id:
            intentos.append(("lms_id", nota.lms_id, "su id del zip"))
        contacto = lista.get(nota.estudiante)
        if contacto:
            intentos += [(c, getattr(contacto, c), f"{c} de --lista") for c in ("lms_id", "email", "numero_id")
                         if getattr(contacto, c)]
        encontrada, motivo = None, ""
        for clave, valor, origen in intentos:
            halladas = indices[clave].get(valor.casefold() if clave == "email" else valor, [])
            if len(halladas) == 1:
                encontrada = halladas[0]
                break
            if len(halladas) > 1:
                motivo = f"{origen} ({valor}) está en {len(halladas)} filas de la hoja"
                break
        if encontrada is not None:
            elegidas[nota.estudiante] = encontrada
            continue
        if not motivo:
            if intentos:
                motivo = "; ".join(f"{origen} ({valor}) no está en la hoja" for _, valor, origen in intentos)
            elif nota.lms and nota.lms != lms:
                motivo = (f"la entrega vino de {nota.lms.capitalize()} y la hoja es de {lms.capitalize()}: "
                          "agrégalo a --lista")
            else:
                motivo = "no hay id del LMS para este estudiante: agrégalo a --lista"
        (conflictos if "filas de la hoja" in motivo else sin_fila).append(_sin_fila(nota, motivo))
    por_fila: dict[int, list[str]] = {}
    for est, f in elegidas.items():
        por_fila.setdefault(f.indice, []).append(est)
    for indice, quienes in por_fila.items():
        if len(quienes) > 1:
            conflictos.append({"fila": indice + 1, "estudiantes": sorted(quienes),
                               "motivo": "varios estudiantes del curso caen en la misma fila: no se escribe ninguno"})
            for est in quienes:
                del elegidas[est]
    return Emparejamiento(elegidas, sin_fila, conflictos)


def _sin_fila(nota: Nota, motivo: str) -> dict:
    return {"estudiante": nota.estudiante, "nombre_original": nota.nombre_original, "lms": nota.lms,
            "lms_id": nota.lms_id, "motivo": motivo}


# --- todo junto ------------------------------------------------------------------------------------------------


def comentario(nota: Nota, asignacion: str, *, como_html: bool = False) -> str:
    """El desglose por parte de ``nota`` (ver :func:`tutor_lib.calificacion.salidas_lms.comentario`)."""
    return _comentario(asignacion, nota.puntos, nota.maximo, nota.partes, como_html=como_html)


def _valor_lms(nota: Nota, maximo_lms: float | None) -> float:
    if maximo_lms is None or nota.maximo == 0 or math.isclose(maximo_lms, nota.maximo):
        return nota.puntos
    return nota.puntos * maximo_lms / nota.maximo


def _clasificar(notas: list[Nota], pendientes_se_exportan: bool) -> tuple[list[Nota], list[dict], list[dict]]:
    """(se exportan, pendiente_manual, no_calificadas)."""
    si, pendientes, no = [], [], []
    for n in notas:
        if n.estado != "calificado":
            no.append({"estudiante": n.estudiante, "estado": n.estado, "mensaje": sin_controles(n.mensaje)[:300]})
            continue
        if n.pendiente_manual > 0:
            pendientes.append({"estudiante": n.estudiante, "puntos": n.puntos, "pendiente_manual": n.pendiente_manual,
                               "maximo": n.maximo})
            if not pendientes_se_exportan:
                continue
        si.append(n)
    return si, pendientes, no


def exportar_notas(carpeta: Path, salida: Path, *, hoja: Path | None = None, formato: str | None = None,
                   columna: str | None = None, lista: Path | None = None,
                   ahora: datetime.datetime | None = None) -> dict:
    """Escribe ``salida`` en ``formato`` con las notas de ``carpeta``; devuelve el informe (el ``--json`` de la orden).

    ``formato`` None: el de ``hoja`` (Canvas o Moodle). Si algo de la entrada está mal, lanza
    ``ValueError`` antes de escribir nada.
    """
    carpeta, salida = Path(carpeta), Path(salida)
    if formato is not None and formato not in FORMATOS:
        raise ValueError(f"--formato debe ser uno de {', '.join(FORMATOS)}; recibí {formato!r}.")
    asignacion, maximo, notas = leer_resultados(carpeta)
    contactos = leer_lista(Path(lista)) if lista else {}
    entradas = [carpeta / a for a in ARCHIVOS_DE_CALIFICAR] + [Path(p) for p in (hoja, lista) if p]
    revisar_salida(salida, entradas)
    if formato == "lti" and hoja:
        raise ValueError("--formato lti no usa --hoja: cada Score lleva los puntos y el máximo del curso "
                         "(el LMS los escala a su columna). Quita --hoja y da --lista con lti_user_id.")
    if hoja is None and formato in (None, "canvas", "moodle"):
        raise ValueError("Falta --hoja: la hoja de calificaciones que bajaste del LMS (Canvas o Moodle), "
                         "o elige --formato moodle-xml o lti.")
    informe = {"asignacion": asignacion, "formato": formato, "hoja": str(hoja) if hoja else None,
               "salida": str(salida), "anterior": None, "columna": None, "maximo": maximo, "maximo_lms": None,
               "factor": 1.0, "exportadas": [], "pendiente_manual": [], "no_calificadas": [], "omitidas": [],
               "sin_fila": [], "conflictos": [], "sin_entrega": [], "celdas_neutralizadas": 0, "avisos": []}
    leido = reconocida = None
    if hoja is not None:
        leido = leer_csv(Path(hoja), "la hoja")
        reconocida = hojas_lms.reconocer(leido.filas, asignacion, None if formato == "moodle-xml" else columna)
        if formato is None:
            formato = informe["formato"] = reconocida.lms
        if formato.split("-")[0] != reconocida.lms:
            raise ValueError(f"--formato {formato} no corresponde a la hoja: {Path(hoja).name} es de "
                             f"{reconocida.lms.capitalize()}.")
        informe["avisos"] += reconocida.avisos
        informe["maximo_lms"] = reconocida.maximo
    exportables, informe["pendiente_manual"], informe["no_calificadas"] = _clasificar(notas, formato == "lti")
    if formato == "lti":
        contenido = _lti(informe, exportables, contactos, ahora)
    else:
        par = emparejar(notas, reconocida.filas, reconocida.lms, contactos) if reconocida else None
        if formato == "moodle-xml":
            contenido = _moodle_xml(informe, notas, exportables, par, contactos, reconocida, columna or asignacion)
        else:
            contenido = _hoja(informe, notas, exportables, par, leido, reconocida)
    if informe["maximo_lms"] is not None and maximo and not math.isclose(informe["maximo_lms"], maximo):
        informe["factor"] = informe["maximo_lms"] / maximo
    informe["anterior"] = str(a) if (a := escribir_atomico(salida, contenido)) else None
    return informe


def _ninguno(informe: dict, donde: str) -> ValueError:
    return ValueError(
        f"Ningún estudiante de {informe['asignacion']} coincide con {donde}: ¿es de otro curso u otra tarea? "
        "Si las entregas no vinieron del zip de este LMS, da --lista con el id del LMS (o el correo) de cada "
        "estudiante. No se escribió nada."
    )


def _hoja(informe, notas, exportables, par: Emparejamiento, leido, hoja) -> str:
    if not par.filas:
        raise _ninguno(informe, f"las filas de la hoja ({len(hoja.filas)} estudiantes)")
    informe["columna"] = hoja.titulo
    informe["sin_fila"], informe["conflictos"] = par.sin_fila, par.conflictos
    valores = {}
    por_nombre = {n.estudiante: n for n in exportables}
    for est, fila in sorted(par.filas.items(), key=lambda x: x[1].indice):
        nota = por_nombre.get(est)
        if nota is None:
            continue  # pendiente o sin calificar: ya está en su lista y la celda no se toca
        if fila.no_escribir:
            informe["omitidas"].append({"estudiante": est, "fila": fila.indice + 1, "motivo": fila.no_escribir})
            continue
        valor = _valor_lms(nota, hoja.maximo)
        texto = escribir_numero(valor, hoja.decimal, hoja.decimales)
        com = comentario(nota, informe["asignacion"], como_html=True) if hoja.columna_comentario is not None else None
        valores[fila.indice] = (texto, com)
        informe["exportadas"].append({"estudiante": est, "nombre_en_hoja": fila.nombre, "fila": fila.indice + 1,
                                      "lms_id": fila.lms_id, "valor": texto, "anterior": fila.anterior.strip(),
                                      "puntos": nota.puntos, "tarde": nota.tarde})
    usadas = {f.indice for f in par.filas.values()}
    informe["sin_entrega"] = [{"fila": f.indice + 1, "nombre": f.nombre, "lms_id": f.lms_id}
                              for f in hoja.filas if f.indice not in usadas]
    texto, informe["celdas_neutralizadas"] = hojas_lms.llenar(leido, hoja, valores)
    return texto


def _moodle_xml(informe, notas, exportables, par, contactos, hoja, item: str) -> str:
    """El XML de Moodle. La hoja (opcional) solo aporta el máximo y el «ID number» de quien no está en --lista."""
    informe["columna"] = item
    if par is not None:
        informe["conflictos"] = par.conflictos
    resultados = []
    for nota in exportables:
        contacto = contactos.get(nota.estudiante)
        fila = par.filas.get(nota.estudiante) if par else None
        if fila is not None and fila.no_escribir:
            informe["omitidas"].append({"estudiante": nota.estudiante, "fila": fila.indice + 1,
                                        "motivo": fila.no_escribir})
            continue
        numero_id = (contacto.numero_id if contacto else None) or (fila.numero_id if fila else None)
        if not numero_id:
            informe["sin_fila"].append(_sin_fila(nota, "sin número ID de Moodle: agrégalo a --lista (columna "
                                                       "numero_id), es el «ID number» de su perfil"))
            continue
        valor = _valor_lms(nota, hoja.maximo if hoja else None)
        resultados.append((numero_id, valor, comentario(nota, informe["asignacion"], como_html=True)))
        informe["exportadas"].append({"estudiante": nota.estudiante, "numero_id": numero_id,
                                      "valor": escribir_numero(valor), "puntos": nota.puntos, "tarde": nota.tarde})
    if exportables and not resultados and not informe["omitidas"]:
        raise _ninguno(informe, "--lista ni la hoja (nadie tiene número ID de Moodle)")
    if hoja is None or hoja.maximo is None:
        informe["avisos"].append(f"Los puntos van sin escalar: el ítem de calificación «{item}» de Moodle debe "
                                 f"tener calificación máxima {escribir_numero(informe['maximo'])} (o da --hoja con la "
                                 "hoja de la tarea).")
    return xml_moodle(resultados, item)


def _lti(informe, exportables, contactos, ahora) -> str:
    momento = ahora or datetime.datetime.now().astimezone()
    if momento.tzinfo is None:
        momento = momento.astimezone()  # la hora local, con su zona: ISO 8601 con desfase
    marca = momento.isoformat(timespec="milliseconds")
    lineas = []
    for nota in exportables:
        contacto = contactos.get(nota.estudiante)
        user_id = (contacto.lti_user_id if contacto else None) or (nota.lms_id if nota.lms == "canvas" else None)
        if not user_id:
            informe["sin_fila"].append(_sin_fila(nota, "sin userId de LTI: agrégalo a --lista (columna lti_user_id)"))
            continue
        score = score_lti(user_id, nota.puntos, nota.maximo, nota.pendiente_manual,
                          comentario(nota, informe["asignacion"]), marca)
        lineas.append(json.dumps(score, ensure_ascii=False))
        informe["exportadas"].append({"estudiante": nota.estudiante, "userId": user_id, "valor": score["scoreGiven"],
                                      "gradingProgress": score["gradingProgress"], "puntos": nota.puntos,
                                      "tarde": nota.tarde})
    if not lineas and exportables:
        raise _ninguno(informe, "--lista (nadie tiene lti_user_id, ni id de Canvas del zip)")
    return "".join(linea + "\n" for linea in lineas)
