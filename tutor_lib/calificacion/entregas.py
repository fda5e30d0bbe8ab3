"""Las entregas de una clase: encontrarlas y leerlas sin seguir nada plantado.

Lo usa :func:`tutor_lib.calificacion.motor.clase.calificar_clase` (``tutor calificar``). La
carpeta de entregas la escriben otras personas, así que aquí nada se sigue:

* una carpeta de estudiante o un notebook que es un enlace simbólico, un
  archivo que no es regular (FIFO, dispositivo, socket) o una ruta que sale de
  la carpeta de entregas se rechaza con su motivo (estado ``inválido`` o
  ``sin entrega``) y nunca se lee. Se mira con ``os.lstat`` y se abre
  componente por componente con ``O_NOFOLLOW``;
* dos nombres que dan el mismo id («José» y «Jose») quedan como dos filas
  distintas y estables (sufijo con un hash corto del nombre original);
* lo que no se califica (carpetas ocultas, archivos sueltos que no son
  notebooks) no se salta en silencio: queda en :attr:`Exploracion.omitidas`
  con su motivo. Solo ``__MACOSX`` y ``.ipynb_checkpoints`` se ignoran: son
  basura conocida de macOS y de Jupyter;
* los topes son por estudiante: un archivo enorme, un nombre de más de 255
  bytes, un enlace o una ruta peligrosa en la carpeta de alguien (en el zip
  del LMS o en la carpeta de entregas) deja a esa persona ``inválido`` con su
  motivo y las demás se califican. Cada operación de la exploración y de la
  copia va protegida entrada por entrada: un error del sistema de archivos
  (un archivo que desaparece o deja de poder leerse a mitad de camino) se
  vuelve el motivo de esa entrega, nunca una traza que detiene la clase;
* el zip de un LMS lo extrae :mod:`tutor_lib.calificacion.zip_entregas`: solo los notebooks (lo único
  que se califica), y solo se rechaza entero si está roto o si el abuso es de verdad global (más de
  ``ZIP_MAX_ENTRADAS`` entradas o ``ZIP_MAX_TOTAL`` bytes entre muchas carpetas normales); el mensaje
  dice entonces qué carpeta trae más;
* los ids caben en ``MAX_LARGO_ID`` bytes (ASCII, ya normalizados) y son únicos;
* en el zip de Moodle o de Canvas (nombres en :mod:`tutor_lib.calificacion.lms`), cada persona es una
  entrega con su id del LMS (``lms``, ``lms_id``, ``tarde``), venga en una carpeta o en varios archivos
  sueltos; su id es el de su nombre, y si dos personas se llaman igual, su id del LMS las distingue. Lo
  suyo que no es un notebook (un PDF, el texto en línea) queda en las omitidas con su nombre. Una carpeta
  de entregas (ya extraída) se lee como siempre: los nombres del LMS solo se leen en el zip.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from tutor_lib.calificacion import lms
from tutor_lib.calificacion.lms import EstudianteLMS

MIB = 2**20
GIB = 2**30

#: Un notebook de un ejercicio pesa unos cientos de KiB; más que esto no se lee.
MAX_MIB_NOTEBOOK = 50
#: Un ejercicio tiene unas decenas de celdas; más que esto es un notebook inválido.
MAX_CELDAS = 5000


#: Largo máximo de un nombre de archivo en casi todos los sistemas de archivos (NAME_MAX).
MAX_BYTES_NOMBRE = 255
#: Largo máximo de un id de estudiante, en bytes (es ASCII): cabe en una ruta y en la libreta.
MAX_LARGO_ID = 64

#: Carpetas que dejan macOS y Jupyter: se ignoran sin avisar.
BASURA_CONOCIDA = frozenset({"__MACOSX", ".ipynb_checkpoints"})

#: Dentro de la carpeta de un estudiante: hasta qué profundidad se buscan notebooks y
#: cuántas entradas se miran antes de rendirse (una carpeta con un entorno virtual entero cabe).
MAX_PROFUNDIDAD = 10
MAX_ARCHIVOS_CARPETA = 50_000

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_NOCTTY = getattr(os, "O_NOCTTY", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)


# --- nombres e ids --------------------------------------------------------------


def id_seguro(nombre: str) -> str:
    """Un identificador de estudiante válido para nbgrader a partir de un nombre de carpeta.

    ASCII (``[A-Za-z0-9_.-]``) y de a lo más :data:`MAX_LARGO_ID` bytes: NFKD puede
    alargar un nombre («㎯» da «rad∕s2»), así que el tope se aplica después de
    normalizar. Si hay que recortar, el final es un hash corto del nombre original:
    dos nombres largos que empiezan igual no comparten id.
    """
    sin_tildes = unicodedata.normalize("NFKD", nombre).encode("ascii", "ignore").decode()
    limpio = re.sub(r"[^A-Za-z0-9_.-]+", "_", sin_tildes).strip("._") or "estudiante"
    if len(limpio) > MAX_LARGO_ID:
        limpio = _con_sufijo(limpio, _huella(nombre, 8))
    return limpio


def _con_sufijo(base: str, sufijo: str) -> str:
    """``base_sufijo`` sin pasar de :data:`MAX_LARGO_ID` (se recorta ``base``)."""
    corta = base[: max(1, MAX_LARGO_ID - 1 - len(sufijo))].rstrip("._-") or "e"
    return f"{corta}_{sufijo}"


def nombre_visible(nombre: str) -> str:
    """El nombre tal como se puede mostrar: UTF-8 válido y sin caracteres de control.

    Un nombre de carpeta puede traer bytes que no son UTF-8, saltos de línea o
    caracteres que invierten el texto (U+202E): aquí se cambian por «�».
    """
    texto = nombre.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return "".join("\ufffd" if unicodedata.category(ch) in ("Cc", "Cf", "Cs") else ch for ch in texto)


def _huella(nombre: str, largo: int = 6) -> str:
    return hashlib.sha256(nombre.encode("utf-8", "surrogateescape")).hexdigest()[:largo]


# --- resultados de la exploración -----------------------------------------------


@dataclass
class EntregaEncontrada:
    id: str
    nombre: str  # el nombre original (carpeta o archivo), listo para mostrar
    ruta: Path | None
    problema: str = ""
    estado: str = ""  # "" si se califica; si no, "sin entrega" o "inválido"
    nombre_crudo: str = field(default="", repr=False)  # el nombre tal como está en el disco
    lms: str | None = None  # "moodle" o "canvas" si vino del zip de un LMS
    lms_id: str | None = None  # número de participante de Moodle o user_id de Canvas
    tarde: bool = False  # Canvas la marcó LATE

    def __post_init__(self):
        if not self.estado and self.ruta is None:
            self.estado = "sin entrega"
        if not self.nombre_crudo:
            self.nombre_crudo = self.nombre


@dataclass
class Omitida:
    nombre: str
    motivo: str

    def como_dict(self) -> dict:
        return {"nombre": self.nombre, "motivo": self.motivo}


@dataclass
class Exploracion:
    entregas: list[EntregaEncontrada]
    omitidas: list[Omitida]


# --- leer sin seguir enlaces ------------------------------------------------------


def _tipo(modo: int) -> str:
    if stat.S_ISLNK(modo):
        return "enlace"
    if stat.S_ISDIR(modo):
        return "carpeta"
    if stat.S_ISREG(modo):
        return "archivo"
    return "especial"


def _no_es_regular(nombre: str, modo: int) -> str:
    if stat.S_ISLNK(modo):
        return f"«{nombre}» es un enlace simbólico: no lo sigo (entrega el archivo, no un enlace)"
    if stat.S_ISDIR(modo):
        return f"«{nombre}» es una carpeta, no un archivo"
    return f"«{nombre}» no es un archivo común (FIFO, dispositivo o socket): no lo leo"


def _leer_fd(fd: int, nombre: str, tope: int) -> bytes:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(_no_es_regular(nombre, info.st_mode) + ".")
    if info.st_size > tope:
        raise ValueError(f"«{nombre}» pesa {info.st_size / MIB:.1f} MiB; el máximo es {tope / MIB:g} MiB.")
    if _O_NONBLOCK:
        try:
            os.set_blocking(fd, True)
        except OSError:
            pass
    partes, leidos = [], 0
    while leidos <= tope:
        trozo = os.read(fd, min(MIB, tope + 1 - leidos))
        if not trozo:
            break
        partes.append(trozo)
        leidos += len(trozo)
    if leidos > tope:  # creció mientras se leía
        raise ValueError(f"«{nombre}» pesa más de {tope / MIB:g} MiB.")
    return b"".join(partes)


def _error_al_abrir(nombre: str, exc: OSError) -> ValueError:
    if exc.errno in (errno.ELOOP, errno.EMLINK):
        return ValueError(f"«{nombre}» es (o pasa por) un enlace simbólico: no lo sigo.")
    if exc.errno == errno.ENOTDIR:
        return ValueError(f"«{nombre}» pasa por algo que no es una carpeta (¿un enlace?): no lo sigo.")
    if exc.errno == errno.ENOENT:
        return ValueError(f"«{nombre}» ya no existe.")
    return ValueError(f"No pude abrir «{nombre}»: {exc.strerror or exc}.")


def leer_archivo(ruta: Path, tope: int = MAX_MIB_NOTEBOOK * MIB) -> bytes:
    """Los bytes de ``ruta`` si es un archivo regular (no un enlace) de a lo más ``tope`` bytes.

    Mira primero con ``os.lstat`` (un FIFO o un dispositivo ni se abre) y abre
    con ``O_NOFOLLOW``. ``ValueError`` en español si no se puede.
    """
    ruta = Path(ruta)
    nombre = nombre_visible(ruta.name)
    try:
        modo = os.lstat(ruta).st_mode
    except OSError as exc:
        raise _error_al_abrir(nombre, exc) from exc
    if not stat.S_ISREG(modo):
        raise ValueError(_no_es_regular(nombre, modo) + ".")
    try:
        fd = os.open(ruta, os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_NOCTTY | _O_CLOEXEC | _O_BINARY)
    except OSError as exc:
        raise _error_al_abrir(nombre, exc) from exc
    try:
        return _leer_fd(fd, nombre, tope)
    finally:
        os.close(fd)


def leer_dentro_de(raiz: Path, partes: tuple[str, ...], tope: int = MAX_MIB_NOTEBOOK * MIB) -> bytes:
    """Los bytes de ``raiz/partes...`` sin seguir ningún enlace en el camino.

    Cada carpeta intermedia se abre relativa a la anterior con ``O_NOFOLLOW``:
    aunque alguien cambie una carpeta por un enlace mientras se califica, la
    lectura no sale de ``raiz``. ``raiz`` es de confianza (la elige quien califica).
    """
    if not partes or any(p in ("", ".", "..") or "/" in p or "\0" in p for p in partes):
        raise ValueError(f"Ruta peligrosa dentro de las entregas: {'/'.join(map(nombre_visible, partes))!r}.")
    nombre = nombre_visible("/".join(partes))
    if os.open not in os.supports_dir_fd or not _O_NOFOLLOW:
        # Sin openat (Windows): se mira cada componente con lstat antes de abrir.
        actual = Path(raiz)
        for parte in partes[:-1]:
            actual = actual / parte
            if not stat.S_ISDIR(os.lstat(actual).st_mode):
                raise ValueError(f"«{nombre}» pasa por algo que no es una carpeta (¿un enlace?): no lo sigo.")
        return leer_archivo(actual / partes[-1], tope)
    fd = os.open(raiz, os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)
    try:
        for parte in partes[:-1]:
            try:
                nuevo = os.open(parte, os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC, dir_fd=fd)
            except OSError as exc:
                raise _error_al_abrir(nombre, exc) from exc
            os.close(fd)
            fd = nuevo
        try:
            modo = os.lstat(partes[-1], dir_fd=fd).st_mode
        except OSError as exc:
            raise _error_al_abrir(nombre, exc) from exc
        if not stat.S_ISREG(modo):
            raise ValueError(_no_es_regular(nombre, modo) + ".")
        try:
            archivo = os.open(partes[-1], os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_NOCTTY | _O_CLOEXEC, dir_fd=fd)
        except OSError as exc:
            raise _error_al_abrir(nombre, exc) from exc
        try:
            return _leer_fd(archivo, nombre, tope)
        finally:
            os.close(archivo)
    finally:
        os.close(fd)


# --- explorar la carpeta de entregas ----------------------------------------------


@dataclass
class _Notebook:
    partes: tuple[str, ...]  # relativas a la carpeta de entregas
    tipo: str  # "archivo", "enlace" o "especial"


def _recorrer(raiz: Path, carpeta: str) -> tuple[list[_Notebook], list[str], str]:
    """Los notebooks dentro de ``raiz/carpeta`` sin entrar en enlaces: (notebooks, enlaces, problema)."""
    notebooks: list[_Notebook] = []
    enlaces: list[str] = []
    pendientes: list[tuple[str, ...]] = [(carpeta,)]
    vistos = 0
    while pendientes:
        partes = pendientes.pop()
        try:
            with os.scandir(raiz.joinpath(*partes)) as it:
                entradas = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            return notebooks, enlaces, f"no pude leer la carpeta «{nombre_visible('/'.join(partes))}»: {exc.strerror or exc}"
        for e in entradas:
            vistos += 1
            if vistos > MAX_ARCHIVOS_CARPETA:
                return notebooks, enlaces, f"la carpeta tiene más de {MAX_ARCHIVOS_CARPETA} archivos: no la recorro"
            if e.name in BASURA_CONOCIDA:
                continue
            try:
                tipo = _tipo(e.stat(follow_symlinks=False).st_mode)
            except OSError:
                continue
            sub = (*partes, e.name)
            if tipo == "carpeta":
                if len(sub) <= MAX_PROFUNDIDAD:  # más hondo no se busca: ahí no hay una entrega
                    pendientes.append(sub)
            elif e.name.lower().endswith(".ipynb"):
                notebooks.append(_Notebook(sub, tipo))
            elif tipo == "enlace":
                enlaces.append("/".join(sub[1:]))
    notebooks.sort(key=lambda n: n.partes)
    return notebooks, enlaces, ""


def _id_de_suelto(nombre: str, asignacion: str) -> str:
    base = nombre[: -len(".ipynb")] if nombre.lower().endswith(".ipynb") else nombre
    return id_seguro(base.replace(asignacion, "").strip(" _-.") or base)


def _de_carpeta(raiz: Path, nombre: str, asignacion: str, persona: EstudianteLMS | None = None,
                omitidas: list[Omitida] | None = None) -> EntregaEncontrada:
    """La entrega de una carpeta; con ``persona`` (del zip de un LMS), los otros notebooks van a ``omitidas``."""
    visible = nombre_visible(nombre)
    ident = id_seguro(nombre)
    notebooks, enlaces, problema = _recorrer(raiz, nombre)
    if problema:
        return EntregaEncontrada(ident, visible, None, problema, "inválido", nombre)
    propios = [n for n in notebooks if asignacion in n.partes[-1]] or notebooks
    if not notebooks:
        motivo = "la carpeta no tiene ningún notebook"
        if persona is not None:
            motivo = "la entrega no trae ningún notebook (.ipynb); lo que trae está en las omitidas"
        if enlaces:
            motivo += f" (tiene enlaces simbólicos, que no sigo: {', '.join(map(nombre_visible, enlaces[:5]))})"
        return EntregaEncontrada(ident, visible, None, motivo, "sin entrega", nombre)
    if len(propios) > 1:
        nombres = ", ".join(nombre_visible("/".join(n.partes[1:])) for n in propios[:5])
        if len(propios) > 5:
            nombres += f" y {len(propios) - 5} más"
        return EntregaEncontrada(ident, visible, None, f"hay {len(propios)} notebooks y no sé cuál calificar: {nombres}",
                                 "sin entrega", nombre)
    elegido = propios[0]
    relativa = nombre_visible("/".join(elegido.partes[1:]))
    if persona is not None and omitidas is not None:
        for otro in notebooks:
            if otro is not elegido:
                omitidas.append(Omitida(nombre_visible("/".join((persona.nombre, *otro.partes[1:]))),
                                        f"es otro notebook de {_quien(persona)}: se califica «{relativa}»"))
    if elegido.tipo == "enlace":
        return EntregaEncontrada(ident, visible, None,
                                 f"tu notebook «{relativa}» es un enlace simbólico: no lo sigo (entrega el archivo, no un enlace)",
                                 "inválido", nombre)
    if elegido.tipo != "archivo":
        return EntregaEncontrada(ident, visible, None,
                                 f"«{relativa}» no es un archivo común (FIFO, dispositivo o socket): no lo leo",
                                 "inválido", nombre)
    return EntregaEncontrada(ident, visible, raiz.joinpath(*elegido.partes), estado="", nombre_crudo=nombre)


def _ids_unicos(entregas: list[EntregaEncontrada]) -> None:
    """Dos nombres que dan el mismo id (sin contar mayúsculas) quedan distintos y estables.

    Primero, una persona del zip de un LMS cuyo id choca con otro lleva ``_`` y su id del LMS
    (``Ana_Perez_123456``; si no tiene, un hash corto de su nombre). Después, si en un grupo que
    sigue chocando hay un único nombre que ya es su id, lo conserva; los demás llevan ``_`` y un
    hash corto de su nombre original, que no depende del orden.
    """
    cuantos: dict[str, int] = {}
    for e in entregas:
        cuantos[e.id.casefold()] = cuantos.get(e.id.casefold(), 0) + 1
    for e in entregas:
        if e.lms is not None and cuantos[e.id.casefold()] > 1:
            e.id = _con_sufijo(e.id, e.lms_id or _huella(unicodedata.normalize("NFC", e.nombre), 8))
    grupos: dict[str, list[EntregaEncontrada]] = {}
    for e in entregas:
        grupos.setdefault(e.id.casefold(), []).append(e)
    usados = {k for k, g in grupos.items() if len(g) == 1}
    for clave, grupo in grupos.items():
        if len(grupo) == 1:
            continue
        exactos = [e for e in grupo if e.nombre_crudo == e.id]
        conserva = exactos[0] if len(exactos) == 1 else None
        if conserva is not None:
            usados.add(clave)
        for e in sorted(grupo, key=lambda x: x.nombre_crudo.encode("utf-8", "surrogateescape")):
            if e is conserva:
                continue
            largo, n = 6, 0
            nuevo = _con_sufijo(e.id, _huella(e.nombre_crudo, largo))
            while nuevo.casefold() in usados:
                if largo < 16:
                    largo += 2
                else:  # dos hashes iguales de 16 cifras: no pasa, pero tampoco se cicla
                    n += 1
                nuevo = _con_sufijo(e.id, _huella(e.nombre_crudo, largo) + (f"{n}" if n else ""))
            usados.add(nuevo.casefold())
            e.id = nuevo


def _copiar_privado(e: EntregaEncontrada, raiz: Path, destino: Path) -> None:
    """Lee la entrega sin seguir enlaces y la deja en ``destino/<id>/``: se califica esa copia.

    Lo que falle con esta entrega queda como su estado y su motivo, sin detener a
    las demás: si no se puede leer (desapareció, dejó de ser legible, es un
    enlace), ``inválido``; si no se puede escribir la copia (disco lleno), ``error``,
    que la corrida siguiente vuelve a intentar.
    """
    partes = e.ruta.relative_to(raiz).parts
    relativa = nombre_visible("/".join(partes))
    try:
        contenido = leer_dentro_de(raiz, partes)
    except ValueError as exc:
        e.ruta, e.problema, e.estado = None, str(exc).rstrip("."), "inválido"
        return
    except OSError as exc:  # se cayó a mitad de la lectura (EIO, permisos que cambiaron...)
        e.ruta, e.problema, e.estado = None, f"no pude leer «{relativa}»: {exc.strerror or exc}", "inválido"
        return
    carpeta = destino / e.id
    copia = carpeta / partes[-1]  # el mismo nombre: los mensajes lo nombran como el estudiante
    try:
        carpeta.mkdir(parents=True, exist_ok=True, mode=0o700)
        copia.write_bytes(contenido)
    except OSError as exc:
        e.ruta, e.problema, e.estado = None, f"no pude copiar «{relativa}» para calificarlo: {exc.strerror or exc}", "error"
        return
    e.ruta = copia


def _motivo_omitida(nombre: str, tipo: str) -> str | None:
    """Por qué una entrada del primer nivel no es una entrega, o ``None`` si lo es (lo comparten carpeta y zip)."""
    es_notebook = nombre.lower().endswith(".ipynb")
    if nombre.startswith("."):
        if tipo == "carpeta":
            return "carpeta oculta (su nombre empieza con «.»): no la califico"
        return "archivo oculto (su nombre empieza con «.»): no lo califico"
    if tipo in ("carpeta", "enlace") or es_notebook:
        return None
    if tipo == "archivo":
        return "archivo suelto que no es un notebook (.ipynb) ni una carpeta de estudiante"
    return "no es un archivo común ni una carpeta (FIFO, dispositivo o socket)"


def _id_de_entrada(nombre: str, asignacion: str) -> str:
    return _id_de_suelto(nombre, asignacion) if nombre.lower().endswith(".ipynb") else id_seguro(nombre)


def _quien(persona: EstudianteLMS) -> str:
    """«Ana Pérez» (Moodle, participante 123456): la persona en un mensaje para quien califica."""
    nombre = nombre_visible(persona.nombre)
    if persona.lms_id is None:
        return f"«{nombre}» ({lms.nombre_del_lms(persona.lms)})"
    return f"«{nombre}» ({lms.nombre_del_lms(persona.lms)}, {lms.nombre_del_id(persona.lms)} {persona.lms_id})"


def _con_persona(e: EntregaEncontrada, persona: EstudianteLMS | None) -> EntregaEncontrada:
    """La entrega de una persona del LMS: su id sale de su nombre y lleva su id del LMS."""
    if persona is not None:
        e.id = id_seguro(persona.nombre)
        e.nombre = nombre_visible(persona.nombre)
        e.lms, e.lms_id, e.tarde = persona.lms, persona.lms_id, persona.tarde
    return e


def explorar_entregas(carpeta: Path, asignacion: str, copiar_a: Path | None = None,
                      invalidas: dict[str, str] | None = None,
                      personas: dict[str, EstudianteLMS] | None = None) -> Exploracion:
    """Las entregas de ``carpeta`` (una subcarpeta por estudiante, o ``<id>_<asig>.ipynb`` sueltos).

    Devuelve cada entrega (con su estado si no se puede calificar) y lo que se
    omitió con su motivo. Con ``copiar_a``, cada notebook se lee ya (sin seguir
    enlaces) y ``ruta`` apunta a una copia privada en esa carpeta: lo que pase
    después en la carpeta de entregas no cambia lo que se califica.
    ``invalidas``: nombres del primer nivel que ya se sabe que no se califican,
    con su motivo (los da :func:`extraer_entregas_zip`); aparecen como
    ``inválido`` aunque no estén en el disco. ``personas``: las carpetas que
    armó :func:`extraer_entregas_zip` para cada persona del zip de un LMS (su id
    sale de su nombre y lleva ``lms``, ``lms_id`` y ``tarde``). Un error del
    sistema de archivos con una entrada la deja ``inválido`` (o en las omitidas)
    con su motivo; solo una carpeta de entregas que no se puede leer entera es un
    ``ValueError``.
    """
    raiz = Path(carpeta)
    entregas: list[EntregaEncontrada] = []
    omitidas: list[Omitida] = []
    invalidas = dict(invalidas or {})
    personas = dict(personas or {})
    try:
        with os.scandir(raiz) as it:
            items = sorted(it, key=lambda e: e.name)
    except OSError as exc:
        raise ValueError(f"No pude leer la carpeta de entregas {nombre_visible(str(raiz))}: "
                         f"{exc.strerror or exc}.") from exc
    for nombre, motivo in invalidas.items():
        entregas.append(_con_persona(EntregaEncontrada(_id_de_entrada(nombre, asignacion), nombre_visible(nombre),
                                                       None, motivo, "inválido", nombre), personas.get(nombre)))
    for item in items:
        nombre = item.name
        if nombre in BASURA_CONOCIDA or nombre in invalidas:
            continue
        try:
            _explorar_item(raiz, item, asignacion, entregas, omitidas, personas.get(nombre))
        except (OSError, ValueError) as exc:  # desapareció o dejó de poder leerse a mitad de camino
            motivo = f"no pude revisarlo: {getattr(exc, 'strerror', None) or exc}"
            if nombre.startswith(".") or not (nombre.lower().endswith(".ipynb") or _parece_carpeta(item)):
                omitidas.append(Omitida(nombre_visible(nombre), motivo))
            else:
                entregas.append(_con_persona(EntregaEncontrada(_id_de_entrada(nombre, asignacion),
                                                               nombre_visible(nombre), None, motivo, "inválido",
                                                               nombre), personas.get(nombre)))
    # Las personas de un LMS, por su nombre (en NFC); lo demás, por su nombre en el disco, como siempre.
    entregas.sort(key=lambda e: e.nombre_crudo if e.lms is None else unicodedata.normalize("NFC", e.nombre))
    _ids_unicos(entregas)
    if copiar_a is not None:
        for e in entregas:
            if e.ruta is not None:
                _copiar_privado(e, raiz, Path(copiar_a))
    return Exploracion(entregas, omitidas)


def _parece_carpeta(item: os.DirEntry) -> bool:
    """Lo que dijo el listado (sin volver a mirar el disco): ¿era una carpeta?"""
    try:
        return item.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _explorar_item(raiz: Path, item: os.DirEntry, asignacion: str, entregas: list[EntregaEncontrada],
                   omitidas: list[Omitida], persona: EstudianteLMS | None = None) -> None:
    """Una entrada del primer nivel de la carpeta de entregas: una entrega, una omitida o nada.

    ``persona``: la carpeta es la que armó :func:`extraer_entregas_zip` para una persona del LMS.
    """
    antes = len(entregas)
    nombre = item.name
    visible = nombre_visible(nombre)
    tipo = _tipo(item.stat(follow_symlinks=False).st_mode)  # si falla, lo atrapa explorar_entregas
    es_notebook = nombre.lower().endswith(".ipynb")
    motivo = _motivo_omitida(nombre, tipo)
    if motivo:
        omitidas.append(Omitida(visible, motivo))
    elif tipo == "enlace":
        entregas.append(EntregaEncontrada(
            _id_de_entrada(nombre, asignacion), visible, None, f"«{visible}» es un enlace simbólico: no lo sigo (entrega la carpeta o el archivo real)",
            "inválido", nombre))
    elif tipo == "carpeta":
        entregas.append(_de_carpeta(raiz, nombre, asignacion, persona, omitidas))
    elif es_notebook and tipo == "archivo":
        entregas.append(EntregaEncontrada(_id_de_suelto(nombre, asignacion), visible, raiz / nombre,
                                          nombre_crudo=nombre))
    else:
        entregas.append(EntregaEncontrada(
            _id_de_suelto(nombre, asignacion), visible, None,
            f"«{visible}» no es un archivo común (FIFO, dispositivo o socket): no lo leo", "inválido", nombre))
    if persona is not None and len(entregas) > antes:
        _con_persona(entregas[-1], persona)


def entregas_de_carpeta(carpeta: Path, asignacion: str, copiar_a: Path | None = None) -> list[EntregaEncontrada]:
    """Las entregas de una carpeta: una subcarpeta por estudiante, o notebooks sueltos ``<id>_<asig>.ipynb``.

    Igual que :func:`explorar_entregas`, sin la lista de omitidas.
    """
    return explorar_entregas(carpeta, asignacion, copiar_a).entregas
