"""Las entregas de una clase: encontrarlas, leerlas y extraer el zip de un LMS sin seguir nada plantado.

Lo usa :func:`tutor_lib.calificador.calificar_clase` (``tutor calificar``). La
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
* el zip se extrae con topes de tamaño total, de número de entradas y de
  tamaño por archivo, sin enlaces simbólicos ni rutas que salgan del destino.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
import unicodedata
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

MIB = 2**20
GIB = 2**30

#: Un notebook de un ejercicio pesa unos cientos de KiB; más que esto no se lee.
MAX_MIB_NOTEBOOK = 50
#: Un ejercicio tiene unas decenas de celdas; más que esto es un notebook inválido.
MAX_CELDAS = 5000

#: Topes del zip de entregas de un LMS (de sobra para una clase).
ZIP_MAX_TOTAL = 2 * GIB
ZIP_MAX_ENTRADAS = 20_000
ZIP_MAX_ARCHIVO = 200 * MIB

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
    """Un identificador de estudiante válido para nbgrader a partir de un nombre de carpeta."""
    sin_tildes = unicodedata.normalize("NFKD", nombre).encode("ascii", "ignore").decode()
    limpio = re.sub(r"[^A-Za-z0-9_.-]+", "_", sin_tildes).strip("._")
    return limpio or "estudiante"


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
        nombres = ", ".join(nombre_visible("/".join(n.partes[1:])) for n in propios)
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
            largo = 6
            nuevo = f"{e.id}_{_huella(e.nombre_crudo, largo)}"
            while nuevo.casefold() in usados:
                largo += 2
                nuevo = f"{e.id}_{_huella(e.nombre_crudo, largo)}"
            usados.add(nuevo.casefold())
            e.id = nuevo


def _copiar_privado(e: EntregaEncontrada, raiz: Path, destino: Path) -> None:
    """Lee la entrega sin seguir enlaces y la deja en ``destino/<id>/``: se califica esa copia."""
    partes = e.ruta.relative_to(raiz).parts
    try:
        contenido = leer_dentro_de(raiz, partes)
    except ValueError as exc:
        e.ruta, e.problema, e.estado = None, str(exc).rstrip("."), "inválido"
        return
    carpeta = destino / e.id
    carpeta.mkdir(parents=True, exist_ok=True, mode=0o700)
    copia = carpeta / partes[-1]  # el mismo nombre: los mensajes lo nombran como el estudiante
    copia.write_bytes(contenido)
    e.ruta = copia


def explorar_entregas(carpeta: Path, asignacion: str, copiar_a: Path | None = None) -> Exploracion:
    """Las entregas de ``carpeta`` (una subcarpeta por estudiante, o ``<id>_<asig>.ipynb`` sueltos).

    Devuelve cada entrega (con su estado si no se puede calificar) y lo que se
    omitió con su motivo. Con ``copiar_a``, cada notebook se lee ya (sin seguir
    enlaces) y ``ruta`` apunta a una copia privada en esa carpeta: lo que pase
    después en la carpeta de entregas no cambia lo que se califica.
    """
    raiz = Path(carpeta)
    entregas: list[EntregaEncontrada] = []
    omitidas: list[Omitida] = []
    with os.scandir(raiz) as it:
        items = sorted(it, key=lambda e: e.name)
    for item in items:
        nombre = item.name
        visible = nombre_visible(nombre)
        if nombre in BASURA_CONOCIDA:
            continue
        try:
            tipo = _tipo(item.stat(follow_symlinks=False).st_mode)
        except OSError as exc:
            omitidas.append(Omitida(visible, f"no pude mirarlo: {exc.strerror or exc}"))
            continue
        es_notebook = nombre.lower().endswith(".ipynb")
        if nombre.startswith("."):
            if tipo == "carpeta":
                omitidas.append(Omitida(visible, "carpeta oculta (su nombre empieza con «.»): no la califico"))
            else:
                omitidas.append(Omitida(visible, "archivo oculto (su nombre empieza con «.»): no lo califico"))
        elif tipo == "enlace":
            ident = _id_de_suelto(nombre, asignacion) if es_notebook else id_seguro(nombre)
            entregas.append(EntregaEncontrada(
                ident, visible, None, f"«{visible}» es un enlace simbólico: no lo sigo (entrega la carpeta o el archivo real)",
                "inválido", nombre))
        elif tipo == "carpeta":
            entregas.append(_de_carpeta(raiz, nombre, asignacion))
        elif es_notebook and tipo == "archivo":
            entregas.append(EntregaEncontrada(_id_de_suelto(nombre, asignacion), visible, raiz / nombre,
                                              nombre_crudo=nombre))
        elif es_notebook:
            entregas.append(EntregaEncontrada(
                _id_de_suelto(nombre, asignacion), visible, None,
                f"«{visible}» no es un archivo común (FIFO, dispositivo o socket): no lo leo", "inválido", nombre))
        elif tipo == "archivo":
            omitidas.append(Omitida(visible, "archivo suelto que no es un notebook (.ipynb) ni una carpeta de estudiante"))
        else:
            omitidas.append(Omitida(visible, "no es un archivo común ni una carpeta (FIFO, dispositivo o socket)"))
    _ids_unicos(entregas)
    if copiar_a is not None:
        for e in entregas:
            if e.ruta is not None:
                _copiar_privado(e, raiz, Path(copiar_a))
    return Exploracion(entregas, omitidas)


def entregas_de_carpeta(carpeta: Path, asignacion: str, copiar_a: Path | None = None) -> list[EntregaEncontrada]:
    """Las entregas de una carpeta: una subcarpeta por estudiante, o notebooks sueltos ``<id>_<asig>.ipynb``.

    Igual que :func:`explorar_entregas`, sin la lista de omitidas.
    """
    return explorar_entregas(carpeta, asignacion, copiar_a).entregas


# --- el zip de un LMS -------------------------------------------------------------


def _partes_seguras(nombre: str) -> tuple[str, ...]:
    if "\0" in nombre:
        raise ValueError(f"El zip trae una ruta peligrosa: {nombre_visible(nombre)!r}; no lo extraigo.")
    normal = nombre.replace("\\", "/")
    if normal.startswith("/") or re.match(r"^[A-Za-z]:", normal):
        raise ValueError(f"El zip trae una ruta peligrosa: {nombre_visible(nombre)!r}; no lo extraigo.")
    partes = tuple(p for p in normal.split("/") if p not in ("", "."))
    if any(p == ".." for p in partes):
        raise ValueError(f"El zip trae una ruta peligrosa: {nombre_visible(nombre)!r}; no lo extraigo.")
    return partes


def _tamano(n: int) -> str:
    return f"{n / GIB:g} GiB" if n >= GIB else f"{n / MIB:g} MiB"


def extraer_zip(zip_ruta: Path, destino: Path, max_total: int = ZIP_MAX_TOTAL,
                max_entradas: int = ZIP_MAX_ENTRADAS, max_archivo: int = ZIP_MAX_ARCHIVO) -> Path:
    """Extrae el zip de entregas de un LMS en ``destino`` (una carpeta propia, vacía o que aún no existe).

    Rechaza con ``ValueError`` en español: rutas que salen de ``destino``
    (zip-slip), enlaces simbólicos, más de ``max_entradas`` entradas, un archivo
    de más de ``max_archivo`` bytes o más de ``max_total`` bytes descomprimidos
    en total (se cuentan los bytes de verdad, no lo que dice el zip). Devuelve
    la carpeta con las entregas (se baja un nivel si el LMS envolvió todo en
    una sola carpeta).
    """
    zip_ruta, destino = Path(zip_ruta), Path(destino)
    destino.mkdir(parents=True, exist_ok=True)
    base = destino.resolve()
    try:
        with zipfile.ZipFile(zip_ruta) as z:
            infos = z.infolist()
            if len(infos) > max_entradas:
                raise ValueError(f"El zip trae {len(infos)} entradas; el máximo es {max_entradas}. No lo extraigo.")
            plan: list[tuple[zipfile.ZipInfo, tuple[str, ...]]] = []
            declarado = 0
            for info in infos:
                partes = _partes_seguras(info.filename)
                if not partes or any(p in BASURA_CONOCIDA for p in partes):
                    continue
                modo = info.external_attr >> 16
                if stat.S_ISLNK(modo):
                    raise ValueError(f"El zip trae un enlace simbólico ({nombre_visible(info.filename)!r}); no lo extraigo.")
                if modo and stat.S_IFMT(modo) and not (stat.S_ISREG(modo) or stat.S_ISDIR(modo)):
                    raise ValueError(f"El zip trae algo que no es un archivo común ({nombre_visible(info.filename)!r}); no lo extraigo.")
                objetivo = base.joinpath(*partes).resolve()
                if not (objetivo == base or base in objetivo.parents):
                    raise ValueError(f"El zip trae una ruta peligrosa: {nombre_visible(info.filename)!r}; no lo extraigo.")
                if info.file_size > max_archivo:
                    raise ValueError(f"El zip trae un archivo de más de {_tamano(max_archivo)} "
                                     f"({nombre_visible(info.filename)!r}); no lo extraigo.")
                declarado += info.file_size
                if declarado > max_total:
                    raise ValueError(f"El zip descomprimido pasa de {_tamano(max_total)}; no lo extraigo.")
                plan.append((info, partes))
            total = 0
            for info, partes in plan:
                objetivo = destino.joinpath(*partes)
                if info.is_dir():
                    objetivo.mkdir(parents=True, exist_ok=True)
                    continue
                objetivo.parent.mkdir(parents=True, exist_ok=True)
                try:
                    fd = os.open(objetivo, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_CLOEXEC | _O_BINARY, 0o600)
                except FileExistsError:
                    raise ValueError(f"El zip trae dos veces {nombre_visible(info.filename)!r}; no lo extraigo.") from None
                escritos = 0
                with os.fdopen(fd, "wb") as salida, z.open(info) as entrada:
                    while True:
                        trozo = entrada.read(MIB)
                        if not trozo:
                            break
                        escritos += len(trozo)
                        total += len(trozo)
                        if escritos > max_archivo:
                            raise ValueError(f"El zip trae un archivo de más de {_tamano(max_archivo)} "
                                             f"({nombre_visible(info.filename)!r}); no lo extraigo.")
                        if total > max_total:
                            raise ValueError(f"El zip descomprimido pasa de {_tamano(max_total)}; no lo extraigo.")
                        salida.write(trozo)
    except zipfile.BadZipFile as exc:
        raise ValueError(f"{nombre_visible(zip_ruta.name)} no es un zip válido: {exc}.") from exc
    except (RuntimeError, NotImplementedError, EOFError, OSError, zlib.error) as exc:
        raise ValueError(f"No pude extraer {nombre_visible(zip_ruta.name)}: {exc}.") from exc
    # Muchos LMS envuelven todo en una carpeta: se baja un nivel si es lo único que hay.
    hijos = [p for p in destino.iterdir() if p.name not in BASURA_CONOCIDA]
    if len(hijos) == 1 and hijos[0].is_dir() and not hijos[0].is_symlink() and not list(hijos[0].glob("*.ipynb")):
        return hijos[0]
    return destino


#: El nombre de antes (lo importa :mod:`tutor_lib.calificador`).
_extraer_zip = extraer_zip
