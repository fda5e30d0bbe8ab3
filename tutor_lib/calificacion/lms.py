"""De quién es cada archivo del zip de entregas de Moodle o de Canvas (solo nombres: nada se abre aquí).

Lo usa :func:`tutor_lib.calificacion.zip_entregas.extraer_entregas_zip` (``tutor calificar ASIG entregas.zip``)
para calificar por estudiante y guardar su id del LMS, que después usa ``tutor exportar``. Son funciones
puras sobre el nombre de la primera carpeta (o del archivo suelto) de cada entrada del zip.

Los nombres, tal como los escribe cada LMS (revisados en su código fuente):

* **Moodle**, «Descargar todas las entregas» (``mod/assign/locallib.php``, ``download_submissions``): el
  prefijo es el nombre completo con cada ``_`` cambiado por un espacio, ``_`` y el número de participante
  de la tarea (``get_uniqueid_for_user``; con calificación anónima, «Participant» o su traducción en vez
  del nombre; en grupos, ``<grupo>-`` delante). Con «Descargar entregas en carpetas» (lo normal desde
  Moodle 3.1) cada complemento de entrega va en su carpeta, ``Ana Pérez_123456_assignsubmission_file_/``
  con los archivos dentro (y sus subcarpetas), y ``..._assignsubmission_onlinetext_/onlinetext.html``
  para el texto en línea. Sin esa casilla, todo queda suelto:
  ``Ana Pérez_123456_assignsubmission_file_<archivo>``. Como el nombre nunca trae ``_``, el primer
  ``_<número>_assignsubmission_<tipo>_`` separa sin ambigüedad el nombre del archivo, aunque el archivo
  (que elige el estudiante) traiga otro igual adentro.
* **Canvas**, «Descargar entregas» (``lib/content_zipper.rb``): ``<nombre>_<user_id>_<id del archivo>_<archivo>``
  y, si la entrega llegó tarde, ``<nombre>_LATE_<user_id>_<id del archivo>_<archivo>``. El nombre es el
  «sortable name» («Pérez, Juan») en minúsculas y sin lo que no es letra, número o ``_``: ``pérezjuan``
  (Canvas quita antes todo ``_<número>_`` del nombre, justamente para que el primer ``_<número>_`` sea el
  user_id). El tercer número es el id del archivo adjunto (no de la entrega). Un texto o un enlace llegan
  como ``<nombre>_<user_id>_text.html`` y ``..._link.html``; con calificación anónima, ``anon_<id anónimo>``
  en lugar de nombre y user_id. Si el mismo nombre completo se repite en el zip, Canvas le agrega ``-1``,
  ``-2`` antes de la extensión.

Decisiones (ver :func:`agrupar`): un estudiante es (LMS, id del LMS, nombre en NFC), así que «José» en NFC
y en NFD es la misma persona. Un mismo id del LMS con dos nombres distintos no se junta nunca: ningún LMS
escribe eso, así que el zip está armado a mano o manipulado, y las entregas de ese id quedan sin calificar
con su motivo. Canvas solo se reconoce en un zip sin nombres de Moodle y en archivos sueltos (Canvas no
hace carpetas): un zip que no es de un LMS sigue leyéndose como siempre.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

MOODLE = "moodle"
CANVAS = "canvas"

#: Un id de Moodle o de Canvas es un entero (Canvas usa hasta 19 cifras con el número de su servidor):
#: solo cifras ASCII (``\d`` aceptaría «١٢٣») y un largo con tope, para que quepa en el id del estudiante.
_ID = r"[0-9]{1,20}"
#: El complemento es un nombre de Moodle («file», «onlinetext»; los de terceros pueden llevar «_»: en la
#: carpeta se lee entero, y suelto se corta en el primer «_», lo que basta para no calificarlo).
_MOODLE_CARPETA = re.compile(rf"(?P<nombre>[^_/\\]+)_(?P<id>{_ID})_assignsubmission_(?P<tipo>[a-z][a-z0-9_]*)_")
_MOODLE_SUELTO = re.compile(rf"(?P<nombre>[^_/\\]+)_(?P<id>{_ID})_assignsubmission_(?P<tipo>[a-z][a-z0-9]*)_"
                            r"(?P<archivo>.+)", re.DOTALL)
_CANVAS = re.compile(rf"(?P<nombre>[^/\\]+?)_(?:(?P<tarde>LATE)_)?(?P<id>{_ID})_(?P<adjunto>{_ID})_(?P<archivo>.+)",
                     re.DOTALL)
_CANVAS_TEXTO = re.compile(rf"(?P<nombre>[^/\\]+?)_(?:(?P<tarde>LATE)_)?(?P<id>{_ID})_"
                           r"(?P<archivo>text\.html|link\.html)")
_CANVAS_ANONIMO = re.compile(rf"(?:(?P<tarde>LATE)_)?(?P<nombre>anon_[0-9A-Za-z]{{1,20}})_(?:(?P<adjunto>{_ID})_)?"
                             r"(?P<archivo>.+)", re.DOTALL)
_NOMBRE_CANVAS = re.compile(r"\w+")


@dataclass(frozen=True)
class EntregaLMS:
    """Lo que dice el nombre de una entrada del zip: de quién es y qué archivo es.

    ``archivo`` es lo que subió el estudiante (``""`` en la carpeta de Moodle: los archivos van dentro);
    ``tipo``, el complemento de Moodle (``file`` se califica; ``onlinetext`` y los demás solo se informan);
    ``adjunto_id``, el id del archivo en Canvas. ``lms_id``: el número de participante de Moodle o el user_id
    de Canvas (``None`` en una entrega anónima de Canvas: ahí no hay user_id).
    """

    lms: str
    lms_id: str | None
    nombre: str
    tarde: bool = False
    archivo: str = ""
    tipo: str = "file"
    adjunto_id: str | None = None
    carpeta: bool = False

    @property
    def estudiante(self) -> tuple[str, str | None, str]:
        """La clave de la persona: (LMS, id del LMS, nombre en NFC)."""
        return (self.lms, self.lms_id, unicodedata.normalize("NFC", self.nombre))

    @property
    def se_califica(self) -> bool:
        """¿Es un archivo entregado (y no un texto en línea o un enlace)?"""
        return self.tipo == "file"


@dataclass
class EstudianteLMS:
    """Una persona del zip del LMS: lo que va a ``calificaciones.json`` (``lms``, ``lms_id``, ``tarde``).

    ``conflicto_id``: el id del LMS que el zip trae también con otros nombres (``conflicto_con``); entonces
    ``lms_id`` es ``None`` y sus entregas no se califican.
    """

    lms: str
    lms_id: str | None
    nombre: str  # en NFC, como lo escribió el LMS
    tarde: bool = False
    conflicto_id: str | None = None
    conflicto_con: tuple[str, ...] = ()


def _archivo_valido(archivo: str) -> bool:
    return archivo not in ("", ".", "..")


def reconocer(nombre: str, carpeta: bool = False) -> EntregaLMS | None:
    """Lee el nombre de una entrada del primer nivel del zip como Moodle o Canvas, o ``None``.

    ``carpeta``: si la entrada es una carpeta (la forma en carpetas de Moodle). Un nombre oculto (que empieza
    con «.») no es de nadie. Se usa en :func:`reconocer_todas`.
    """
    if nombre.startswith("."):
        return None
    if carpeta:
        m = _MOODLE_CARPETA.fullmatch(nombre)
        if m and m["nombre"].strip():
            return EntregaLMS(MOODLE, m["id"], m["nombre"], archivo="", tipo=m["tipo"], carpeta=True)
        return None  # Canvas no arma carpetas
    m = _MOODLE_SUELTO.fullmatch(nombre)
    if m and m["nombre"].strip():
        return EntregaLMS(MOODLE, m["id"], m["nombre"], archivo=m["archivo"], tipo=m["tipo"]) \
            if _archivo_valido(m["archivo"]) else None
    return _reconocer_canvas(nombre)


def _reconocer_canvas(nombre: str) -> EntregaLMS | None:
    m = _CANVAS_ANONIMO.fullmatch(nombre)
    # Un id anónimo de Canvas trae letras; «anon_123_456_x» es el estudiante «anon» con su user_id.
    if m and not m["nombre"][5:].isdigit() and _archivo_valido(m["archivo"]):
        texto = m["adjunto"] is None
        if not texto or m["archivo"] in ("text.html", "link.html"):
            return EntregaLMS(CANVAS, None, m["nombre"], tarde=bool(m["tarde"]), archivo=m["archivo"],
                              tipo="texto" if texto else "file", adjunto_id=m["adjunto"])
    for patron, tipo in ((_CANVAS, "file"), (_CANVAS_TEXTO, "texto")):
        m = patron.fullmatch(nombre)
        if m is None:
            continue
        propio = unicodedata.normalize("NFC", m["nombre"])
        # Canvas escribe el nombre en minúsculas y solo con letras, números y «_».
        if not _NOMBRE_CANVAS.fullmatch(propio) or any(c.isupper() for c in propio):
            return None
        if not _archivo_valido(m["archivo"]):
            return None
        return EntregaLMS(CANVAS, m["id"], m["nombre"], tarde=bool(m["tarde"]), archivo=m["archivo"], tipo=tipo,
                          adjunto_id=m.groupdict().get("adjunto"))
    return None


def reconocer_todas(entradas: list[tuple[str, bool]]) -> list[EntregaLMS | None]:
    """:func:`reconocer` para cada ``(nombre del primer nivel, es carpeta)`` de un zip, con la regla del zip.

    Si algún nombre es de Moodle, ninguno se lee como Canvas: un LMS no mezcla los nombres del otro, y
    el patrón de Canvas (``<nombre>_<número>_<número>_<archivo>``) es el que más se parece a un nombre
    cualquiera.
    """
    reconocidas = [reconocer(nombre, carpeta) for nombre, carpeta in entradas]
    if any(r is not None and r.lms == MOODLE for r in reconocidas):
        reconocidas = [r if r is not None and r.lms == MOODLE else None for r in reconocidas]
    return reconocidas


def agrupar(reconocidas: list[EntregaLMS]) -> tuple[list[EstudianteLMS], list[int]]:
    """Las personas del zip y, para cada entrada reconocida, el índice de su persona.

    Dos entradas son de la misma persona si tienen el mismo LMS, el mismo id del LMS y el mismo nombre en
    NFC (el orden de las entradas no importa: las personas salen ordenadas por nombre e id). Si un id del
    LMS aparece con dos nombres distintos, cada nombre es una persona aparte, sin ``lms_id`` y con
    ``conflicto_id`` (no se califica: no hay forma de saber de quién es cada archivo). ``tarde`` es de la
    persona si cualquiera de sus archivos llegó tarde: nunca se pierde.
    """
    nombres_por_id: dict[tuple[str, str], set[str]] = {}
    for r in reconocidas:
        lms, lms_id, nombre = r.estudiante
        if lms_id is not None:
            nombres_por_id.setdefault((lms, lms_id), set()).add(nombre)
    claves = sorted({r.estudiante for r in reconocidas}, key=lambda c: (c[2], c[0], c[1] or ""))
    estudiantes: list[EstudianteLMS] = []
    indice: dict[tuple[str, str | None, str], int] = {}
    for lms, lms_id, nombre in claves:
        otros = tuple(sorted(nombres_por_id.get((lms, lms_id), set()) - {nombre})) if lms_id is not None else ()
        indice[(lms, lms_id, nombre)] = len(estudiantes)
        estudiantes.append(EstudianteLMS(lms, None if otros else lms_id, nombre,
                                         conflicto_id=lms_id if otros else None, conflicto_con=otros))
    cual = [indice[r.estudiante] for r in reconocidas]
    for r, i in zip(reconocidas, cual):
        estudiantes[i].tarde = estudiantes[i].tarde or r.tarde
    return estudiantes, cual


def nombre_del_lms(lms: str) -> str:
    """«Moodle» o «Canvas», para los mensajes."""
    return "Moodle" if lms == MOODLE else "Canvas"


def nombre_del_id(lms: str) -> str:
    """Cómo se llama el id de cada LMS en sus propias pantallas y hojas."""
    return "participante" if lms == MOODLE else "user_id"
