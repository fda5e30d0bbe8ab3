"""Calificar una clase entera: de una laptop a un clúster, sin perder ni repetir nada.

``tutor calificar`` llega aquí. Cada entrega se copia (sin seguir enlaces, ver
:mod:`tutor_lib.calificacion.entregas`), se reparte entre trabajadores de Dask
(:mod:`tutor_lib.calificacion.motor.reparto`) y se califica con el juez y el aislamiento de
siempre (:mod:`tutor_lib.calificacion.motor.calificador`). Las notas van a la libreta de nbgrader
(SQLite en la carpeta de salida, o PostgreSQL con ``--gradebook``, ver
:mod:`tutor_lib.calificacion.libreta`).

Nada se pierde ni se califica dos veces:

- cada resultado se anota al llegar en ``avance.jsonl`` (y el notebook
  autocalificado en ``autocalificados/``), así que una corrida interrumpida deja
  escrito todo lo que alcanzó a calificar;
- una corrida nueva deja la anterior a un lado (``<salida>.anterior-<fecha>``,
  nunca la pisa) y **reutiliza** cada resultado cuya huella coincide: la
  huella (SHA-256) junta el notebook fuente de la asignación, los límites y el
  contenido de la entrega; solo se califica lo que falta o cambió;
- si un trabajador muere, Dask manda sus entregas a otro; nbgrader muere con él
  (no queda nadie escribiendo notas por su cuenta) y la nueva calificación
  reemplaza a la parcial: una sola nota por estudiante.
"""

from __future__ import annotations

import csv
import glob
import hashlib
import json
import os
import shutil
import socket
import sys
import tempfile
import time
import uuid
from dataclasses import asdict, fields
from pathlib import Path

from tutor_lib.calificacion import libreta
from tutor_lib.calificacion.archivos import borrar_arbol, nombre_anterior
from tutor_lib.calificacion.entregas import EntregaEncontrada, explorar_entregas
from tutor_lib.calificacion.zip_entregas import extraer_entregas_zip
from tutor_lib.calificacion.kernel import aislamiento
from tutor_lib.calificacion.motor.calificador import CursoTemporal, celda_csv, fuente
from tutor_lib.calificacion.motor.precarga import activa as precarga_activa
from tutor_lib.calificacion.resultados import Calificacion, Limites, Parte

AVANCE = "avance.jsonl"
NO_FALLAS = ("calificado",)


def huella(texto_fuente: str, limites: Limites, entrega: bytes) -> str:
    """SHA-256 de lo que decide una nota: la fuente de la asignación, los límites y la entrega."""
    h = hashlib.sha256()
    for parte in (texto_fuente.encode("utf-8"), json.dumps(asdict(limites), sort_keys=True).encode(), entrega):
        h.update(len(parte).to_bytes(8, "big"))
        h.update(parte)
    return h.hexdigest()


def _leer_avance(carpeta: Path | None) -> dict[str, dict]:
    """Lo que anotó una corrida anterior, por estudiante (la última línea de cada uno gana)."""
    if carpeta is None or not (carpeta / AVANCE).is_file():
        return {}
    previos = {}
    for linea in (carpeta / AVANCE).read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            d = json.loads(linea)
            previos[str(d["estudiante"])] = d
        except (ValueError, KeyError, TypeError):
            continue  # una línea a medias (la corrida se cortó mientras escribía): se califica otra vez
    return previos


def _calificacion(d: dict) -> Calificacion:
    """Una :class:`Calificacion` desde su dict; las claves que esta versión no conoce se ignoran
    (un trabajador o un ``avance.jsonl`` de otra versión de tutor_lib no rompe la corrida)."""
    campos = {f.name for f in fields(Calificacion)}
    campos_parte = {f.name for f in fields(Parte)}
    partes = [Parte(**{k: v for k, v in p.items() if k in campos_parte}) for p in d.get("partes", [])]
    return Calificacion(**{k: v for k, v in d.items() if k in campos and k != "partes"}, partes=partes)


class _Avance:
    """``avance.jsonl``: una línea por resultado, escrita y llevada al disco al llegar."""

    def __init__(self, ruta: Path):
        self._f = open(ruta, "a", encoding="utf-8")

    def anotar(self, registro: dict) -> None:
        self._f.write(json.dumps(registro, ensure_ascii=False) + "\n")
        self._f.flush()
        os.fsync(self._f.fileno())

    def cerrar(self) -> None:
        self._f.close()


def calificar_clase(asignacion: str, carpeta: Path, salida: Path | None = None, limites: Limites | None = None,
                    aislar: bool = True, progreso=None, procesos: int | None = None, gradebook: str | None = None,
                    cluster: str | None = None, barra: bool = False, precarga: bool | None = None) -> dict:
    """Califica todas las entregas de ``carpeta`` (o de un zip); escribe CSV, JSON y retroalimentación.

    Una entrega rota, manipulada o que no termina se marca con su estado y las
    demás se califican igual. Lo que no se califica queda en ``omitidas`` con su
    motivo. ``procesos`` trabajadores locales (por omisión, la mitad de los
    núcleos) o los del planificador de Dask en ``cluster``; ``gradebook``, la URL
    de la libreta (con ``cluster``, PostgreSQL). ``barra`` muestra el avance con
    tqdm en stderr; ``progreso`` recibe una línea por entrega. ``precarga``: cada
    trabajador califica con un servidor de :mod:`tutor_lib.calificacion.motor.precarga` (por omisión
    sí, en Linux, salvo ``TUTOR_SIN_PRECARGA=1``).
    """
    fuente(asignacion)  # una asignación que no existe se dice antes que nada
    limites = limites or Limites()
    carpeta = Path(carpeta).resolve()
    if not carpeta.exists():
        raise FileNotFoundError(f"No existe {carpeta}.")
    if cluster and not (gradebook and libreta.es_postgresql(gradebook)):
        raise ValueError("Con --cluster las notas van a una libreta compartida: indica --gradebook "
                         "postgresql://usuario@servidor/base (ver la guía del instructor).")
    if gradebook:
        libreta.validar(gradebook)
    if cluster:
        from tutor_lib.calificacion.motor import reparto

        reparto.comprobar(cluster)  # antes de preparar nada
    base = carpeta.with_suffix("") if carpeta.is_file() else carpeta
    salida = Path(salida).resolve() if salida else base.parent / f"calificaciones_{asignacion}"
    if aislamiento.dentro_de(salida, carpeta):
        raise ValueError("La carpeta de salida no puede estar dentro de la carpeta de entregas.")
    anterior = None
    if salida.exists() and any(salida.iterdir()):
        # Nada se pierde: la corrida anterior queda a un lado con su fecha.
        anterior = nombre_anterior(salida)
        salida.rename(anterior)
    salida.mkdir(parents=True, exist_ok=True)
    # Notas, entregas calificadas y libreta son solo de quien califica: ni otros usuarios de la máquina
    # las leen (el kernel de un estudiante ni siquiera las ve, ver tutor_lib.calificacion.kernel.aislamiento).
    # También las corridas anteriores, incluidas las de versiones que las dejaban abiertas.
    for propia in (salida, *salida.parent.glob(f"{glob.escape(salida.name)}.anterior-*")):
        if propia.is_dir() and not propia.is_symlink():
            propia.chmod(0o700)
    db = gradebook or f"sqlite:///{salida / 'gradebook.db'}"
    if gradebook is None and anterior is not None and (anterior / "gradebook.db").is_file():
        shutil.copy2(anterior / "gradebook.db", salida / "gradebook.db")  # las notas reutilizadas siguen ahí

    tmp = Path(tempfile.mkdtemp(prefix="tutor-entregas-"))
    try:
        if carpeta.is_file():
            if carpeta.suffix.lower() != ".zip":
                raise ValueError(f"{carpeta.name} no es una carpeta ni un .zip de entregas.")
            # Topes por estudiante: quien trae algo que no se extrae queda «inválido» con su motivo.
            del_zip = extraer_entregas_zip(carpeta, tmp / "zip")  # aparte de las copias de tmp/copias
            raiz_entregas, invalidas, omitidas_zip = del_zip.raiz, del_zip.invalidas, del_zip.omitidas
            personas = del_zip.personas  # Moodle o Canvas: cada persona con su id del LMS
        else:
            raiz_entregas, invalidas, omitidas_zip, personas = carpeta, {}, [], {}
        exploracion = explorar_entregas(raiz_entregas, asignacion, copiar_a=tmp / "copias", invalidas=invalidas,
                                        personas=personas)
        entregas, omitidas = exploracion.entregas, omitidas_zip + exploracion.omitidas
        if not entregas:
            detalle = "; ".join(f"{o.nombre}: {o.motivo}" for o in omitidas[:5])
            raise ValueError(f"No encontré entregas en {carpeta}: espero una subcarpeta por estudiante con su notebook."
                             + (f" Omití {len(omitidas)}: {detalle}." if omitidas else ""))
        # El kernel tampoco ve la carpeta del socket de PostgreSQL (si la libreta llega por uno).
        ocultar = [carpeta, raiz_entregas, salida, tmp, *([anterior] if anterior else []), *libreta.carpetas_de_socket(db)]
        with CursoTemporal(asignacion, limites=limites, aislar=aislar, ocultar_extra=ocultar, gradebook=db) as curso:
            resultados, cifras = _calificar_todas(curso, entregas, salida, anterior, limites, aislar, ocultar,
                                                  procesos, cluster, progreso, barra,
                                                  precarga_activa() if precarga is None else precarga)
            maximo = curso.maximo()
            aislamientos = [c.aislamiento for c in resultados.values() if c.aislamiento]
    finally:
        borrar_arbol(tmp)  # sin recursión: lo extraído de un zip puede venir muy anidado

    return _escribir_salida(asignacion, salida, entregas, omitidas, resultados, maximo, aislamientos, cifras,
                            libreta.sin_clave(db), progreso)


def _calificar_todas(curso: CursoTemporal, entregas: list[EntregaEncontrada], salida: Path, anterior: Path | None,
                     limites: Limites, aislar: bool, ocultar: list[Path], procesos: int | None, cluster: str | None,
                     progreso, barra: bool, precarga: bool = False) -> tuple[dict[str, Calificacion], dict]:
    from tutor_lib.calificacion.motor import reparto

    asig = curso.asig
    texto_fuente = (curso.privado / "fuente" / asig / f"{asig}.ipynb").read_text(encoding="utf-8")
    previos = _leer_avance(anterior)
    maximo = curso.maximo()
    db_visible = libreta.sin_clave(curso.db_url)
    (salida / "autocalificados").mkdir(exist_ok=True)
    (salida / "registros").mkdir(exist_ok=True)
    avance = _Avance(salida / AVANCE)
    resultados: dict[str, Calificacion] = {}
    reutilizadas: list[str] = []
    tareas = []
    id_corrida = uuid.uuid4().hex
    (curso.privado / "corrida").write_text(id_corrida)
    corrida = {"id": id_corrida, "asignacion": asig, "fuente": texto_fuente, "limites": asdict(limites),
               "aislar": aislar, "libreta": curso.db_url, "ocultar": [str(p) for p in ocultar],
               # los trabajadores de esta máquina usan la carpeta ya preparada; con --cluster, cada uno prepara la suya
               "carpeta": None if cluster else str(curso.D), "anfitrion": socket.gethostname(),
               "precarga": precarga}

    for e in entregas:
        if e.ruta is None:
            problema = e.problema[:1].upper() + e.problema[1:]
            resultados[e.id] = Calificacion(asig, e.id, e.estado or "sin entrega", 0.0, maximo, problema + ".")
            continue
        contenido = e.ruta.read_bytes()
        h = huella(texto_fuente, limites, contenido)
        previo = previos.get(e.id)
        if previo and previo.get("huella") == h and previo.get("libreta") == db_visible and \
                _reutilizar(previo, anterior, salida, e.id):
            resultados[e.id] = _calificacion(previo["calificacion"])
            reutilizadas.append(e.id)
            avance.anotar(previo)
            continue
        tareas.append((e, h, {"estudiante": e.id, "notebook": contenido.decode("utf-8", errors="replace"),
                              "corrida": corrida}))

    inicio = time.perf_counter()
    cifras = {"total": len(tareas) + len(reutilizadas), "reutilizadas": len(reutilizadas), "calificadas": 0,
              "fallidas": 0, "trabajadores": 0, "segundos": 0.0, "entregas_por_minuto": None}
    indicador = _barra(barra, len(tareas), asig)
    if progreso and not indicador.disable:  # las líneas pasan por tqdm para no romper la barra
        progreso = lambda linea: indicador.write(linea, file=sys.stderr)  # noqa: E731
    try:
        if tareas:
            n = max(1, procesos or (os.cpu_count() or 2) // 2)
            with reparto.motor(min(n, len(tareas)), cluster) as cliente:
                from distributed import as_completed

                cifras["trabajadores"] = len(cliente.scheduler_info().get("workers", {}))
                futuros = {cliente.submit(reparto.calificar_tarea, t, key=f"calificar-{asig}-{e.id}-{h[:16]}",
                                          pure=False): (e, h) for e, h, t in tareas}
                try:
                    for futuro in as_completed(futuros):
                        e, h = futuros[futuro]
                        cal, datos = _resultado(futuro, asig, e.id, maximo)
                        resultados[e.id] = cal
                        if datos.get("autocalificado"):
                            (salida / "autocalificados" / f"{e.id}.ipynb").write_text(datos["autocalificado"],
                                                                                      encoding="utf-8")
                        if datos.get("registro"):
                            (salida / "registros" / f"{e.id}.log").write_text(datos["registro"][-200_000:],
                                                                              encoding="utf-8")
                        avance.anotar({"estudiante": e.id, "huella": h, "libreta": db_visible,
                                       "trabajador": datos.get("trabajador"),
                                       "preparacion_s": datos.get("preparacion_s"),
                                       "calificacion_s": datos.get("calificacion_s"), "calificacion": cal.como_dict()})
                        cifras["calificadas"] += 1
                        cifras["fallidas"] += cal.estado not in NO_FALLAS
                        indicador.set_postfix_str(f"fallidas={cifras['fallidas']}", refresh=False)
                        indicador.update(1)
                        if progreso:
                            progreso(f"{e.id:<24} {cal.estado:<15} {cal.puntos:g}/{cal.maximo:g}  {cal.mensaje}")
                finally:
                    try:
                        cliente.run(reparto.cerrar_corrida, id_corrida)
                    except Exception:  # noqa: BLE001  (un trabajador que ya no está no tiene nada que borrar)
                        pass
    finally:
        indicador.close()
        avance.cerrar()
    cifras["segundos"] = round(time.perf_counter() - inicio, 1)
    if cifras["calificadas"] and cifras["segundos"] > 0:
        cifras["entregas_por_minuto"] = round(60 * cifras["calificadas"] / cifras["segundos"], 1)
    if progreso:
        for id_ in reutilizadas:
            c = resultados[id_]
            progreso(f"{id_:<24} {c.estado:<15} {c.puntos:g}/{c.maximo:g}  (sin cambios: nota de la corrida anterior)")
    _retroalimentar(curso, salida, resultados)
    return resultados, cifras


def _resultado(futuro, asig: str, estudiante: str, maximo: float) -> tuple[Calificacion, dict]:
    try:
        datos = futuro.result()
        return _calificacion(datos["calificacion"]), datos
    except Exception as exc:  # noqa: BLE001  (KilledWorker: la entrega tumbó a tres trabajadores)
        nombre = type(exc).__name__
        mensaje = ("La calificación de esta entrega detuvo a varios trabajadores seguidos; no se pudo calificar."
                   if nombre == "KilledWorker" else f"Falla inesperada al calificar: {nombre}: {exc}")
        return Calificacion(asig, estudiante, "error", 0.0, maximo, mensaje), {}


def _reutilizar(previo: dict, anterior: Path, salida: Path, estudiante: str) -> bool:
    """Trae de la corrida anterior lo que hace falta para no calificar otra vez (o dice que no se puede)."""
    estado = previo.get("calificacion", {}).get("estado")
    if estado != "calificado":
        # «inválido» y «tiempo agotado» dependen solo de la entrega; un «error» puede venir de la
        # máquina (un kernel que no arrancó): ese se intenta otra vez.
        return estado in ("inválido", "tiempo agotado")
    auto = anterior / "autocalificados" / f"{estudiante}.ipynb"
    if not auto.is_file() or auto.is_symlink():
        return False
    shutil.copy2(auto, salida / "autocalificados" / auto.name)
    registro = anterior / "registros" / f"{estudiante}.log"
    if registro.is_file() and not registro.is_symlink():
        shutil.copy2(registro, salida / "registros" / registro.name)
    return True


def _retroalimentar(curso: CursoTemporal, salida: Path, resultados: dict[str, Calificacion]) -> None:
    """``nbgrader generate_feedback`` una vez para todos los calificados, con sus notebooks autocalificados."""
    calificados = [i for i, c in resultados.items() if c.estado == "calificado"]
    listos = []
    for id_ in calificados:
        origen = salida / "autocalificados" / f"{id_}.ipynb"
        destino = curso.curso / "autograded" / id_ / curso.asig / f"{curso.asig}.ipynb"
        if origen.is_file():
            if not destino.is_file():
                destino.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(origen, destino)
            listos.append(id_)
    for id_, html in curso.retroalimentacion_de_todos(listos).items():
        destino = salida / "retroalimentacion" / id_
        destino.mkdir(parents=True, exist_ok=True)
        shutil.copy2(html, destino / f"{curso.asig}.html")
        resultados[id_].retroalimentacion = str(destino / f"{curso.asig}.html")


def _barra(activa: bool, total: int, asig: str):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=f"Calificando {asig}", unit="entrega", file=sys.stderr, disable=not activa or not total,
                dynamic_ncols=True, bar_format="{desc}: {n}/{total} |{bar}| {elapsed}<{remaining} {postfix}")


def _del_lms(e: EntregaEncontrada) -> dict:
    """Lo que ``calificaciones.json`` dice de dónde vino cada entrega (``tutor exportar`` lo lee).

    ``nombre_original``: el nombre en el LMS o la carpeta; ``lms``: ``"moodle"``, ``"canvas"`` o ``None``;
    ``lms_id``: el número de participante de Moodle o el user_id de Canvas, como texto (o ``None``);
    ``tarde``: Canvas la marcó LATE. Las entregas de una carpeta no traen LMS.
    """
    return {"nombre_original": e.nombre, "lms": e.lms, "lms_id": e.lms_id, "tarde": bool(e.tarde)}


def _escribir_salida(asignacion: str, salida: Path, entregas, omitidas, resultados: dict[str, Calificacion],
                     maximo: float, aislamientos: list[dict], cifras: dict, db_visible: str, progreso) -> dict:
    partes = list(dict.fromkeys(p.id for c in resultados.values() for p in c.partes))
    origen = {e.id: _del_lms(e) for e in entregas}
    with open(salida / "calificaciones.csv", "w", newline="", encoding="utf-8", errors="replace") as f:
        w = csv.writer(f)
        w.writerow(["estudiante", "nombre_original", "estado", "puntos", "maximo", "pendiente_manual", *partes, "mensaje",
                    "lms", "lms_id", "tarde"])
        for e in entregas:
            c = resultados[e.id]
            o = origen[e.id]
            por_parte = {p.id: ("" if p.puntos is None else f"{p.puntos:g}") for p in c.partes}
            fila = [e.id, o["nombre_original"], c.estado, f"{c.puntos:g}", f"{c.maximo:g}", f"{c.pendiente_manual:g}",
                    *[por_parte.get(p, "") for p in partes], c.mensaje, o["lms"] or "", o["lms_id"] or "",
                    "sí" if o["tarde"] else "no"]
            w.writerow([celda_csv(x) for x in fila])
    if progreso:
        for o in omitidas:
            progreso(f"{'(omitida)':<24} {o.nombre}: {o.motivo}")
    orden = [e.id for e in entregas]
    datos = {
        "asignacion": asignacion,
        "maximo": maximo,
        "estudiantes": {i: {"puntos": resultados[i].puntos, "estado": resultados[i].estado,
                            "mensaje": resultados[i].mensaje, **origen[i]} for i in orden},
        "salida": str(salida),
        "aislamiento": {
            "completo": bool(aislamientos) and all(a.get("completo") for a in aislamientos),
            "protecciones": aislamientos[0].get("protecciones", []) if aislamientos else [],
        },
        "omitidas": [o.como_dict() for o in omitidas],
        "libreta": db_visible,
        "progreso": cifras,
    }
    (salida / "calificaciones.json").write_text(json.dumps(datos, ensure_ascii=False, indent=2), encoding="utf-8",
                                                errors="replace")
    detalle = {i: resultados[i].como_dict() for i in orden}
    for d in detalle.values():
        d.pop("retroalimentacion", None)
    (salida / "detalle.json").write_text(json.dumps(detalle, ensure_ascii=False, indent=1), encoding="utf-8",
                                         errors="replace")
    return datos
