"""Las entregas de una clase: encontrarlas, leerlas y extraer el zip de un LMS sin seguir nada plantado.

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
* del zip solo se extraen los notebooks (lo único que se califica) y solo se
  rechaza entero si está roto o si el abuso es de verdad global (más de
  ``ZIP_MAX_ENTRADAS`` entradas o ``ZIP_MAX_TOTAL`` bytes entre muchas
  carpetas normales); el mensaje dice entonces qué carpeta trae más;
* los ids caben en ``MAX_LARGO_ID`` bytes (ASCII, ya normalizados) y son únicos.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import stat
import struct
import unicodedata
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from tutor_lib.calificacion.archivos import borrar_arbol

MIB = 2**20
GIB = 2**30

#: Un notebook de un ejercicio pesa unos cientos de KiB; más que esto no se lee.
MAX_MIB_NOTEBOOK = 50
#: Un ejercicio tiene unas decenas de celdas; más que esto es un notebook inválido.
MAX_CELDAS = 5000

#: Topes del zip de entregas de un LMS (de sobra para una clase). Los de toda la clase solo se
#: alcanzan entre muchas carpetas: una sola choca antes con los suyos.
ZIP_MAX_TOTAL = 2 * GIB
ZIP_MAX_ENTRADAS = 20_000
ZIP_MAX_ARCHIVO = 200 * MIB
#: Topes de la carpeta de un estudiante dentro del zip (pasarlos la deja «inválido», no detiene la clase).
ZIP_MAX_ESTUDIANTE = 256 * MIB
ZIP_MAX_ENTRADAS_ESTUDIANTE = 5_000
#: Lo que trae una entrega normal: si el zip entero pasa un tope global, primero quedan fuera las
#: carpetas que traen más que esto (de mayor a menor); si aun así no alcanza, el zip no se extrae.
_ENTRADAS_NORMALES = 100
_BYTES_NORMALES = 20 * MIB

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


def _de_carpeta(raiz: Path, nombre: str, asignacion: str) -> EntregaEncontrada:
    visible = nombre_visible(nombre)
    ident = id_seguro(nombre)
    notebooks, enlaces, problema = _recorrer(raiz, nombre)
    if problema:
        return EntregaEncontrada(ident, visible, None, problema, "inválido", nombre)
    propios = [n for n in notebooks if asignacion in n.partes[-1]] or notebooks
    if not notebooks:
        motivo = "la carpeta no tiene ningún notebook"
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

    Si en el grupo hay un único nombre que ya es su id, lo conserva; los demás
    llevan ``_`` y un hash corto de su nombre original, que no depende del orden.
    """
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


def explorar_entregas(carpeta: Path, asignacion: str, copiar_a: Path | None = None,
                      invalidas: dict[str, str] | None = None) -> Exploracion:
    """Las entregas de ``carpeta`` (una subcarpeta por estudiante, o ``<id>_<asig>.ipynb`` sueltos).

    Devuelve cada entrega (con su estado si no se puede calificar) y lo que se
    omitió con su motivo. Con ``copiar_a``, cada notebook se lee ya (sin seguir
    enlaces) y ``ruta`` apunta a una copia privada en esa carpeta: lo que pase
    después en la carpeta de entregas no cambia lo que se califica.
    ``invalidas``: nombres del primer nivel que ya se sabe que no se califican,
    con su motivo (los da :func:`extraer_entregas_zip`); aparecen como
    ``inválido`` aunque no estén en el disco. Un error del sistema de archivos
    con una entrada la deja ``inválido`` (o en las omitidas) con su motivo; solo
    una carpeta de entregas que no se puede leer entera es un ``ValueError``.
    """
    raiz = Path(carpeta)
    entregas: list[EntregaEncontrada] = []
    omitidas: list[Omitida] = []
    invalidas = dict(invalidas or {})
    try:
        with os.scandir(raiz) as it:
            items = sorted(it, key=lambda e: e.name)
    except OSError as exc:
        raise ValueError(f"No pude leer la carpeta de entregas {nombre_visible(str(raiz))}: "
                         f"{exc.strerror or exc}.") from exc
    for nombre, motivo in invalidas.items():
        entregas.append(EntregaEncontrada(_id_de_entrada(nombre, asignacion), nombre_visible(nombre), None,
                                          motivo, "inválido", nombre))
    for item in items:
        nombre = item.name
        if nombre in BASURA_CONOCIDA or nombre in invalidas:
            continue
        try:
            _explorar_item(raiz, item, asignacion, entregas, omitidas)
        except (OSError, ValueError) as exc:  # desapareció o dejó de poder leerse a mitad de camino
            motivo = f"no pude revisarlo: {getattr(exc, 'strerror', None) or exc}"
            if nombre.startswith(".") or not (nombre.lower().endswith(".ipynb") or _parece_carpeta(item)):
                omitidas.append(Omitida(nombre_visible(nombre), motivo))
            else:
                entregas.append(EntregaEncontrada(_id_de_entrada(nombre, asignacion), nombre_visible(nombre),
                                                  None, motivo, "inválido", nombre))
    entregas.sort(key=lambda e: e.nombre_crudo)
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
                   omitidas: list[Omitida]) -> None:
    """Una entrada del primer nivel de la carpeta de entregas: una entrega, una omitida o nada."""
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
        entregas.append(_de_carpeta(raiz, nombre, asignacion))
    elif es_notebook and tipo == "archivo":
        entregas.append(EntregaEncontrada(_id_de_suelto(nombre, asignacion), visible, raiz / nombre,
                                          nombre_crudo=nombre))
    else:
        entregas.append(EntregaEncontrada(
            _id_de_suelto(nombre, asignacion), visible, None,
            f"«{visible}» no es un archivo común (FIFO, dispositivo o socket): no lo leo", "inválido", nombre))


def entregas_de_carpeta(carpeta: Path, asignacion: str, copiar_a: Path | None = None) -> list[EntregaEncontrada]:
    """Las entregas de una carpeta: una subcarpeta por estudiante, o notebooks sueltos ``<id>_<asig>.ipynb``.

    Igual que :func:`explorar_entregas`, sin la lista de omitidas.
    """
    return explorar_entregas(carpeta, asignacion, copiar_a).entregas


# --- el zip de un LMS -------------------------------------------------------------


@dataclass
class ZipDeEntregas:
    """Lo que salió del zip de entregas de un LMS (ver :func:`extraer_entregas_zip`)."""

    raiz: Path  # la carpeta con una subcarpeta (o un notebook suelto) por estudiante
    invalidas: dict[str, str]  # nombre del primer nivel (carpeta o notebook suelto) -> motivo
    omitidas: list[Omitida]  # lo que no es de ningún estudiante y no se extrajo, con su motivo
    rechazos: list[str] = field(default_factory=list)  # cada cosa que no se extrajo por peligrosa o por un tope


class _ErrorGlobal(ValueError):
    """Un problema de toda la clase, no de una carpeta (un tope global, el disco lleno): el zip no se extrae."""


def _tamano(n: int) -> str:
    if n < MIB:
        return f"{n} bytes"
    return f"{n / GIB:g} GiB" if n >= GIB else f"{n / MIB:g} MiB"


def _mib(n: int) -> str:
    return f"{n} bytes" if n < MIB else f"{n / MIB:.1f} MiB"


class _LectorParchado:
    """Un archivo de solo lectura que devuelve algunos bytes cambiados (``{posición: byte}``)."""

    def __init__(self, archivo, parches: dict[int, int]):
        self._f = archivo
        self._parches = parches

    def read(self, n: int = -1) -> bytes:
        inicio = self._f.tell()
        datos = self._f.read(n)
        tocados = [p for p in self._parches if inicio <= p < inicio + len(datos)]
        if not tocados:
            return datos
        cambiados = bytearray(datos)
        for p in tocados:
            cambiados[p - inicio] = self._parches[p]
        return bytes(cambiados)

    def seek(self, *args) -> int:
        return self._f.seek(*args)

    def tell(self) -> int:
        return self._f.tell()

    def seekable(self) -> bool:
        return True


def _reparar_nombres(archivo) -> tuple[dict[int, int], dict[int, str], dict[int, str]]:
    """Lo que hay que cambiar para que ``zipfile`` abra un zip con entradas que no sabe leer.

    ``zipfile`` no abre el zip entero si una sola entrada marcada UTF-8 trae bytes
    que no son UTF-8, o pide una versión de zip que no conoce. Aquí se recorre el
    directorio central: esas entradas pierden la marca (en el directorio y en su
    cabecera local) o bajan de versión. Devuelve (parches, {índice: nombre leído
    con ``surrogateescape``}, {índice: motivo para no extraerla}).
    """
    fin = zipfile._EndRecData(archivo)
    if not fin:
        raise zipfile.BadZipFile("no encontré el final del directorio central")
    tam_dir, pos_dir = fin[zipfile._ECD_SIZE], fin[zipfile._ECD_OFFSET]
    desfase = fin[zipfile._ECD_LOCATION] - tam_dir - pos_dir
    if fin[zipfile._ECD_SIGNATURE] == zipfile.stringEndArchive64:
        desfase -= zipfile.sizeEndCentDir64 + zipfile.sizeEndCentDir64Locator
    inicio = pos_dir + desfase
    archivo.seek(inicio)
    datos = archivo.read(tam_dir)
    parches: dict[int, int] = {}
    nombres: dict[int, str] = {}
    problemas: dict[int, str] = {}
    pos = indice = 0
    while pos + zipfile.sizeCentralDir <= len(datos):
        campos = struct.unpack_from(zipfile.structCentralDir, datos, pos)
        if campos[0] != zipfile.stringCentralDir:
            break
        version, banderas = campos[3], campos[5]
        largo_nombre, largo_extra, largo_comentario, local = campos[12], campos[13], campos[14], campos[18]
        crudo = datos[pos + zipfile.sizeCentralDir: pos + zipfile.sizeCentralDir + largo_nombre]
        if banderas & 0x800:
            try:
                crudo.decode("utf-8")
            except UnicodeDecodeError:
                nombres[indice] = crudo.decode("utf-8", "surrogateescape")
                parches[inicio + pos + 9] = datos[pos + 9] & ~0x08  # la marca UTF-8 (bit 11 de las banderas)
                archivo.seek(local + desfase + 7)
                byte_local = archivo.read(1)
                if byte_local:
                    parches[local + desfase + 7] = byte_local[0] & ~0x08
        if version > zipfile.MAX_EXTRACT_VERSION:
            nombres.setdefault(indice, crudo.decode("utf-8" if banderas & 0x800 else "cp437", "surrogateescape"))
            problemas[indice] = f"pide una versión de zip que no sé leer ({version / 10:.1f})"
            parches[inicio + pos + 6] = 20
        pos += zipfile.sizeCentralDir + largo_nombre + largo_extra + largo_comentario
        indice += 1
    return parches, nombres, problemas


@contextlib.contextmanager
def _abrir_zip(ruta: Path):
    """``(zip, nombres, problemas)``: el zip abierto aunque alguna entrada traiga un nombre que no es UTF-8."""
    try:
        z = zipfile.ZipFile(ruta)
    except (UnicodeDecodeError, NotImplementedError):
        z = None
    if z is not None:
        with z:
            yield z, {}, {}
        return
    with open(ruta, "rb") as archivo:
        parches, nombres, problemas = _reparar_nombres(archivo)
        with zipfile.ZipFile(_LectorParchado(archivo, parches)) as z:
            yield z, nombres, problemas


@dataclass
class _EntradaZip:
    info: zipfile.ZipInfo
    partes: tuple[str, ...]  # relativas a la raíz de las entregas (sin la carpeta que envuelve todo)
    problema: str = ""  # por qué esta entrada deja inválida a su carpeta


def _nombre_largo(parte: str) -> bool:
    try:
        return len(os.fsencode(parte)) > MAX_BYTES_NOMBRE
    except UnicodeError:
        return True


def _recortar_global(usado: dict[str, int], tope: int, normal: int, que: str) -> list[str]:
    """Las carpetas que quedan fuera para que la clase no pase ``tope`` (las que más traen, si traen más de ``normal``)."""
    total = sum(usado.values())
    fuera = []
    for clave in sorted(usado, key=lambda c: (-usado[c], c)):
        if total <= tope or usado[clave] <= normal:
            break
        fuera.append(clave)
        total -= usado[clave]
    if total > tope:
        mayor = max(usado, key=lambda c: (usado[c], c))
        if que == "entradas":
            exceso = f"El zip trae {total} entradas entre {len(usado)} carpetas; el máximo es {tope}."
            cuanto = f"{usado[mayor]} entradas"
        else:
            exceso = (f"El zip descomprimido pasa de {_tamano(tope)}: sus notebooks suman {_tamano(total)} "
                      f"entre {len(usado)} carpetas.")
            cuanto = _tamano(usado[mayor])
        raise _ErrorGlobal(f"{exceso} La carpeta que más trae es «{nombre_visible(mayor)}» ({cuanto}); no lo extraigo.")
    return fuera


def extraer_entregas_zip(zip_ruta: Path, destino: Path, max_total: int = ZIP_MAX_TOTAL,
                         max_entradas: int = ZIP_MAX_ENTRADAS, max_archivo: int = ZIP_MAX_ARCHIVO,
                         max_estudiante: int = ZIP_MAX_ESTUDIANTE,
                         max_entradas_estudiante: int = ZIP_MAX_ENTRADAS_ESTUDIANTE) -> ZipDeEntregas:
    """Extrae los notebooks del zip de entregas de un LMS en ``destino``, con topes por estudiante.

    Cada entrada se atribuye a la carpeta (o notebook suelto) del primer nivel
    que la contiene, bajo la carpeta que envuelve todo si el LMS puso una. Una
    carpeta con algo que no se extrae (un archivo de más de ``max_archivo``
    bytes, más de ``max_estudiante`` bytes o ``max_entradas_estudiante``
    entradas, un nombre de más de 255 bytes, un enlace, un dispositivo, una
    ruta con ``..``, un nombre repetido, un notebook dañado o cifrado) queda en
    ``invalidas`` con su motivo y no se extrae; las demás, sí. Lo que no es de
    ningún estudiante (rutas absolutas, carpetas ocultas, archivos sueltos que no
    son notebooks) queda en ``omitidas``. Solo se extraen los notebooks: es lo
    único que se califica. ``ValueError`` en español solo si el zip está roto o
    si, aun dejando fuera las carpetas más grandes, la clase pasa de
    ``max_entradas`` entradas o ``max_total`` bytes (dice qué carpeta trae más).
    Lo usa :func:`tutor_lib.calificacion.motor.clase.calificar_clase` (``tutor calificar``).
    """
    zip_ruta, destino = Path(zip_ruta), Path(destino)
    destino.mkdir(parents=True, exist_ok=True)
    invalidas: dict[str, str] = {}
    omitidas: list[Omitida] = []
    rechazos: list[str] = []
    try:
        with _abrir_zip(zip_ruta) as (z, nombres, problemas):
            entradas: list[_EntradaZip] = []
            for i, info in enumerate(z.infolist()):
                nombre = nombres.get(i, info.orig_filename)
                normal = nombre.replace("\\", "/")
                partes = tuple(p for p in normal.split("/") if p not in ("", "."))
                if not partes or any(p in BASURA_CONOCIDA for p in partes):
                    continue
                peligrosa = normal.startswith("/") or re.match(r"^[A-Za-z]:", normal) is not None
                entradas.append(_EntradaZip(info, partes, problemas.get(i, "") if not peligrosa else "absoluta"))
            envoltura = _envoltura(entradas)
            raiz = destino
            if envoltura is not None:
                if not _nombre_largo(envoltura) and "\0" not in envoltura:
                    raiz = destino / envoltura
                for e in entradas:
                    if e.partes[0] == envoltura and e.problema != "absoluta":
                        e.partes = e.partes[1:]
            estudiantes: dict[str, list[_EntradaZip]] = {}
            for e in entradas:
                visible = nombre_visible("/".join(e.partes) or e.info.orig_filename)
                if not e.partes:
                    continue  # la carpeta que envuelve todo
                if e.problema == "absoluta" or e.partes[0] == "..":
                    motivo = f"el zip trae una ruta peligrosa («{nombre_visible(e.info.orig_filename)}»): no la extraigo"
                    omitidas.append(Omitida(visible, motivo))
                    rechazos.append(motivo)
                    continue
                estudiantes.setdefault(e.partes[0], []).append(e)
            raiz.mkdir(parents=True, exist_ok=True)
            extraer: dict[str, list[_EntradaZip]] = {}
            for clave, suyas in sorted(estudiantes.items()):
                es_carpeta = any(len(e.partes) > 1 or e.info.is_dir() for e in suyas)
                motivo = _motivo_omitida(clave, "carpeta" if es_carpeta else "archivo")
                if motivo:
                    omitidas.append(Omitida(nombre_visible(clave), motivo))
                    continue
                problema = _problema_de_carpeta(clave, suyas, es_carpeta, max_archivo, max_estudiante,
                                                max_entradas_estudiante)
                if problema:
                    invalidas[clave] = problema
                    continue
                extraer[clave] = [e for e in suyas if not e.info.is_dir() and e.partes[-1].lower().endswith(".ipynb")
                                  and len(e.partes) <= MAX_PROFUNDIDAD + 1]
            # Topes de la clase: primero quedan fuera las carpetas que más traen; si no alcanza, no se extrae.
            for clave in _recortar_global({c: len(estudiantes[c]) for c in extraer}, max_entradas, _ENTRADAS_NORMALES,
                                          "entradas"):
                invalidas[clave] = (f"el zip entero pasa de {max_entradas} entradas y tu carpeta es de las que más "
                                    f"traen ({len(estudiantes[clave])}): no la extraigo")
                del extraer[clave]
            for clave in _recortar_global({c: sum(e.info.file_size for e in extraer[c]) for c in extraer}, max_total,
                                          _BYTES_NORMALES, "bytes"):
                invalidas[clave] = (f"el zip entero pasa de {_tamano(max_total)} y tus notebooks son de los que más "
                                    "pesan: no los extraigo")
                del extraer[clave]
            total = [0]
            for clave, suyas in extraer.items():
                try:
                    _extraer_carpeta(z, raiz, clave, suyas, estudiantes[clave], max_archivo, max_estudiante,
                                     max_total, total)
                except _ErrorGlobal:
                    raise
                except OSError as exc:
                    if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
                        raise _ErrorGlobal(f"No queda espacio en el disco para extraer {nombre_visible(zip_ruta.name)}: "
                                         f"{exc.strerror}.") from exc
                    invalidas[clave] = _motivo_de_extraccion(exc)
                    _borrar(raiz, clave)
                except Exception as exc:  # noqa: BLE001 - un notebook dañado, cifrado o con compresión rara
                    invalidas[clave] = _motivo_de_extraccion(exc)
                    _borrar(raiz, clave)
    except _ErrorGlobal:
        raise
    except zipfile.BadZipFile as exc:
        raise ValueError(f"{nombre_visible(zip_ruta.name)} no es un zip válido: {exc}.") from exc
    except (RuntimeError, NotImplementedError, EOFError, OSError, zlib.error, struct.error, ValueError) as exc:
        raise ValueError(f"No pude extraer {nombre_visible(zip_ruta.name)}: {exc}.") from exc
    rechazos[:0] = [f"«{nombre_visible(c)}»: {m}" for c, m in sorted(invalidas.items())]
    return ZipDeEntregas(raiz, invalidas, omitidas, rechazos)


def _envoltura(entradas: list[_EntradaZip]) -> str | None:
    """La carpeta que envuelve todo (muchos LMS ponen una), si la hay y no trae notebooks sueltos."""
    normales = [e for e in entradas if e.problema != "absoluta" and e.partes[0] != ".."]
    primeras = {e.partes[0] for e in normales}
    if len(primeras) != 1:
        return None
    (unica,) = primeras
    for e in normales:
        if len(e.partes) == 1 and not e.info.is_dir():
            return None  # es un archivo, no una carpeta
        if len(e.partes) >= 2 and e.partes[1].lower().endswith(".ipynb"):
            return None  # trae notebooks sueltos: es la carpeta de un estudiante
    return unica


def _problema_de_carpeta(clave: str, suyas: list[_EntradaZip], es_carpeta: bool, max_archivo: int,
                         max_estudiante: int, max_entradas: int) -> str:
    """Por qué la carpeta (o el notebook suelto) ``clave`` del zip no se extrae, o ``""``."""
    if len(suyas) > max_entradas:
        return f"el zip trae {len(suyas)} entradas en esta carpeta; el máximo es {max_entradas}: no la extraigo"
    archivos: set[tuple[str, ...]] = set()
    carpetas: set[tuple[str, ...]] = set()
    declarado = 0
    for e in suyas:
        ruta = nombre_visible("/".join(e.partes))
        if e.problema:
            return f"«{ruta}» {e.problema}: no lo extraigo"
        if ".." in e.partes or "\0" in e.info.orig_filename:
            return f"el zip trae una ruta peligrosa («{ruta}»): no la extraigo"
        largo = next((p for p in e.partes if _nombre_largo(p)), None)
        if largo is not None:
            return (f"el zip trae un nombre de más de {MAX_BYTES_NOMBRE} bytes («{nombre_visible(largo)[:60]}…»): "
                    "no lo extraigo")
        modo = e.info.external_attr >> 16
        if stat.S_ISLNK(modo):
            return f"el zip trae un enlace simbólico («{ruta}»): no lo extraigo ni lo sigo"
        if modo and stat.S_IFMT(modo) and not (stat.S_ISREG(modo) or stat.S_ISDIR(modo)):
            return f"el zip trae algo que no es un archivo común («{ruta}»: FIFO, dispositivo o socket): no lo extraigo"
        if e.info.file_size > max_archivo:
            return (f"el zip trae un archivo de más de {_tamano(max_archivo)} («{ruta}», {_mib(e.info.file_size)}): "
                    "no lo extraigo")
        declarado += e.info.file_size
        if declarado > max_estudiante:
            return f"esta carpeta pesa más de {_tamano(max_estudiante)} descomprimida: no la extraigo"
        carpetas.update(e.partes[:k] for k in range(1, len(e.partes)))
        if e.info.is_dir():
            carpetas.add(e.partes)
        elif e.partes in archivos:
            return f"el zip trae dos veces «{ruta}»: no sé cuál es la entrega"
        else:
            archivos.add(e.partes)
    choque = next(iter(sorted(archivos & carpetas)), None)
    if choque is not None:
        return f"el zip trae «{nombre_visible('/'.join(choque))}» como archivo y como carpeta a la vez: no lo extraigo"
    return ""


def _extraer_carpeta(z: zipfile.ZipFile, raiz: Path, clave: str, notebooks: list[_EntradaZip],
                     suyas: list[_EntradaZip], max_archivo: int, max_estudiante: int, max_total: int,
                     total: list[int]) -> None:
    """Los notebooks de una carpeta del zip, contando los bytes de verdad (no lo que dice el zip)."""
    if any(len(e.partes) > 1 or e.info.is_dir() for e in suyas):
        (raiz / clave).mkdir()  # sin exist_ok: dos carpetas que este disco no distingue chocan aquí
    escritos_carpeta = 0
    for e in notebooks:
        objetivo = raiz.joinpath(*e.partes)
        ruta = nombre_visible("/".join(e.partes))
        objetivo.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(objetivo, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_CLOEXEC | _O_BINARY, 0o600)
        except FileExistsError:
            raise ValueError(f"el zip trae dos veces «{ruta}» (o dos nombres que este disco no distingue): "
                             "no sé cuál es la entrega") from None
        escritos = 0
        with os.fdopen(fd, "wb") as salida, z.open(e.info) as entrada:
            while True:
                trozo = entrada.read(MIB)
                if not trozo:
                    break
                escritos += len(trozo)
                escritos_carpeta += len(trozo)
                total[0] += len(trozo)
                if escritos > max_archivo:
                    raise ValueError(f"el zip trae un archivo de más de {_tamano(max_archivo)} («{ruta}»): no lo extraigo")
                if escritos_carpeta > max_estudiante:
                    raise ValueError(f"esta carpeta pesa más de {_tamano(max_estudiante)} descomprimida: no la extraigo")
                if total[0] > max_total:
                    raise _ErrorGlobal(f"El zip descomprimido pasa de {_tamano(max_total)} (iba en la carpeta "
                                      f"«{nombre_visible(clave)}»); no lo extraigo.")
                salida.write(trozo)


def _motivo_de_extraccion(exc: BaseException) -> str:
    if isinstance(exc, ValueError) and not isinstance(exc, UnicodeError):
        return str(exc).rstrip(".")
    if isinstance(exc, RuntimeError) and "encrypted" in str(exc):
        return "el zip trae tu notebook cifrado (con contraseña): no lo puedo leer"
    if isinstance(exc, OSError):
        return f"no pude extraer tu entrega del zip: {exc.strerror or exc}"
    return f"no pude extraer tu entrega del zip (está dañada o usa una compresión que no conozco: {type(exc).__name__})"


def _borrar(raiz: Path, clave: str) -> None:
    """Borra lo que alcanzó a extraerse de una carpeta inválida (lo creó esta misma extracción, sin enlaces)."""
    ruta = raiz / clave
    try:
        if ruta.is_dir() and not ruta.is_symlink():
            borrar_arbol(ruta)
        elif ruta.exists() or ruta.is_symlink():
            ruta.unlink()
    except OSError:
        pass


def extraer_zip(zip_ruta: Path, destino: Path, max_total: int = ZIP_MAX_TOTAL,
                max_entradas: int = ZIP_MAX_ENTRADAS, max_archivo: int = ZIP_MAX_ARCHIVO) -> Path:
    """Extrae los notebooks del zip de entregas de un LMS en ``destino`` o dice por qué no, sin términos medios.

    La versión estricta de :func:`extraer_entregas_zip` (mismos topes): si algo
    del zip no se puede extraer (una ruta que sale de ``destino``, un enlace,
    un archivo de más de ``max_archivo`` bytes...), ``ValueError`` en español
    con el motivo. Devuelve la carpeta con las entregas (se baja un nivel si el
    LMS envolvió todo en una sola carpeta). ``tutor calificar`` usa la otra: ahí
    un estudiante con un problema no detiene a la clase.
    """
    resultado = extraer_entregas_zip(zip_ruta, destino, max_total, max_entradas, max_archivo)
    if resultado.rechazos:
        primero = resultado.rechazos[0]
        otros = len(resultado.rechazos) - 1
        raise ValueError(primero[:1].upper() + primero[1:] + (f" (y {otros} problema{'s' if otros > 1 else ''} más)."
                                                              if otros else "."))
    return resultado.raiz


#: El nombre de antes (lo importa :mod:`tutor_lib.calificacion.motor.calificador`).
_extraer_zip = extraer_zip
