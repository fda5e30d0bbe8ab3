"""El zip de entregas de un LMS: extraer los notebooks de cada estudiante sin seguir nada plantado.

La otra mitad de :mod:`tutor_lib.calificacion.entregas` (que explora la carpeta que queda): aquí se abre el
zip que bajaste de Moodle, Canvas o Classroom, se repara la codificación de sus nombres, se reconoce de quién
es cada archivo (:mod:`tutor_lib.calificacion.lms`) y se extraen solo los notebooks, con topes por estudiante
y para toda la clase. Lo usa :func:`tutor_lib.calificacion.motor.clase.calificar_clase` (``tutor calificar
ASIG entregas.zip``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import struct
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from tutor_lib.calificacion import lms
from tutor_lib.calificacion.archivos import borrar_arbol
from tutor_lib.calificacion.entregas import (
    _O_BINARY,
    _O_CLOEXEC,
    _O_NOFOLLOW,
    BASURA_CONOCIDA,
    GIB,
    MAX_BYTES_NOMBRE,
    MAX_PROFUNDIDAD,
    MIB,
    Omitida,
    _huella,
    _motivo_omitida,
    _quien,
    id_seguro,
    nombre_visible,
)
from tutor_lib.calificacion.lms import EstudianteLMS

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

@dataclass
class ZipDeEntregas:
    """Lo que salió del zip de entregas de un LMS (ver :func:`extraer_entregas_zip`)."""

    raiz: Path  # la carpeta con una subcarpeta (o un notebook suelto) por estudiante
    invalidas: dict[str, str]  # nombre del primer nivel (carpeta o notebook suelto) -> motivo
    omitidas: list[Omitida]  # lo que no es de ningún estudiante y no se extrajo, con su motivo
    rechazos: list[str] = field(default_factory=list)  # cada cosa que no se extrajo por peligrosa o por un tope
    #: carpeta del primer nivel -> la persona del LMS (Moodle o Canvas) cuyas entregas se juntaron ahí
    personas: dict[str, EstudianteLMS] = field(default_factory=dict)


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
    mostrar: str = ""  # su ruta en el zip, si se movió a la carpeta de su persona del LMS
    reportada: bool = False  # de una persona del LMS pero no es un archivo entregado (texto en línea): no se extrae


def _carpeta_de_persona(persona: EstudianteLMS, carpetas: list[str]) -> str:
    """El nombre de la carpeta de una persona del LMS: el de su carpeta en el zip de Moodle si la hay, o el
    que le daría su LMS (``Ana Pérez_123456_assignsubmission_file_``, ``perezana_4567``)."""
    if carpetas:
        return carpetas[0]
    numero = persona.lms_id or persona.conflicto_id
    if persona.lms == lms.MOODLE:
        return f"{persona.nombre}_{numero}_assignsubmission_file_"
    return f"{persona.nombre}_{numero}" if numero else persona.nombre


def _reubicar_lms(entradas: list[_EntradaZip], omitidas: list[Omitida]) -> tuple[dict[str, EstudianteLMS],
                                                                                dict[str, str]]:
    """Junta en una carpeta por persona lo de cada persona del LMS: ``({carpeta: persona}, {carpeta: motivo})``.

    Cada entrada cuyo primer nombre es de Moodle o de Canvas (:func:`tutor_lib.calificacion.lms.reconocer_todas`)
    pasa a ``<carpeta de su persona>/<archivo>`` (o ``/<lo que venía dentro>`` en la carpeta de Moodle). El
    archivo sale del mismo nombre, sin separadores nuevos: las comprobaciones de siempre (``..``, enlaces,
    topes) se le aplican igual. La carpeta es la de Moodle si venía en una (así, quien lee la carpeta
    extraída sin saber del LMS ve los nombres de siempre) o la que le daría su LMS, y siempre es distinta de
    todo otro nombre del primer nivel del zip (sin contar mayúsculas); si chocara, es una ASCII nueva. Lo
    de una persona que no es un notebook, o que no es un archivo entregado, va a ``omitidas`` con su
    nombre; una persona cuyo id del LMS viene también con otro nombre no se califica (el segundo
    diccionario trae su motivo).
    """
    candidatas = [e for e in entradas if e.problema != "absoluta" and e.partes and e.partes[0] != ".."]
    reconocidas = lms.reconocer_todas([(e.partes[0], len(e.partes) > 1 or e.info.is_dir()) for e in candidatas])
    pares = [(e, r) for e, r in zip(candidatas, reconocidas) if r is not None]
    if not pares:
        return {}, {}
    personas, cual = lms.agrupar([r for _, r in pares])
    movidas = {id(e) for e, _ in pares}
    ocupados = {e.partes[0].casefold() for e in entradas if e.partes and id(e) not in movidas}
    carpetas_de_moodle: dict[int, set[str]] = {}
    for (e, r), i in zip(pares, cual):
        if r.carpeta and r.se_califica:
            carpetas_de_moodle.setdefault(i, set()).add(e.partes[0])
    claves: list[str] = []
    for i, persona in enumerate(personas):
        clave = _carpeta_de_persona(persona, sorted(carpetas_de_moodle.get(i, ())))
        if clave.casefold() in ocupados or _nombre_largo(clave):
            base = f"{id_seguro(persona.nombre)[:40]}-{persona.lms}-{persona.lms_id or _huella(persona.nombre, 8)}"
            clave, n = base, 1
            while clave.casefold() in ocupados:
                n += 1
                clave = f"{base}-{n}"
        ocupados.add(clave.casefold())
        claves.append(clave)
    for (e, r), i in zip(pares, cual):
        persona = personas[i]
        e.mostrar = nombre_visible("/".join(e.partes))
        e.partes = (claves[i], *(() if r.carpeta else (r.archivo,)), *e.partes[1:])
        e.reportada = not r.se_califica
        if e.info.is_dir() or len(e.partes) < 2 or persona.conflicto_id is not None:
            continue
        if e.reportada:
            que = "el texto en línea" if r.lms == lms.MOODLE and r.tipo == "onlinetext" else (
                f"lo del complemento «{r.tipo}»" if r.lms == lms.MOODLE else "el texto o el enlace")
            omitidas.append(Omitida(e.mostrar, f"es {que} que entregó {_quien(persona)}: solo califico notebooks"))
        elif not e.partes[-1].lower().endswith(".ipynb"):
            omitidas.append(Omitida(e.mostrar, f"es de {_quien(persona)} y no es un notebook (.ipynb): no lo califico"))
    conflictos = {}
    for clave, persona in zip(claves, personas):
        if persona.conflicto_id is not None:
            otros = ", ".join(f"«{nombre_visible(o)}»" for o in persona.conflicto_con[:3])
            if len(persona.conflicto_con) > 3:
                otros += f" y {len(persona.conflicto_con) - 3} más"
            conflictos[clave] = (f"el zip trae el {lms.nombre_del_id(persona.lms)} {persona.conflicto_id} de "
                                 f"{lms.nombre_del_lms(persona.lms)} también con otro nombre ({otros}): ningún LMS "
                                 "hace eso, así que no sé de quién es cada archivo y no lo califico")
    return dict(zip(claves, personas)), conflictos


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
            personas, conflictos = _reubicar_lms(entradas, omitidas)
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
                if clave in conflictos:
                    invalidas[clave] = conflictos[clave]
                    continue
                es_carpeta = clave in personas or any(len(e.partes) > 1 or e.info.is_dir() for e in suyas)
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
                                  and len(e.partes) <= MAX_PROFUNDIDAD + 1 and not e.reportada]
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
    rechazos[:0] = [f"{_quien(personas[c]) if c in personas else f'«{nombre_visible(c)}»'}: {m}"
                    for c, m in sorted(invalidas.items())]
    return ZipDeEntregas(raiz, invalidas, omitidas, rechazos, personas)


def _envoltura(entradas: list[_EntradaZip]) -> str | None:
    """La carpeta que envuelve todo (muchos LMS ponen una), si la hay y no trae notebooks sueltos."""
    normales = [e for e in entradas if e.problema != "absoluta" and e.partes[0] != ".."]
    primeras = {e.partes[0] for e in normales}
    if len(primeras) != 1:
        return None
    (unica,) = primeras
    if lms.reconocer(unica, carpeta=True) is not None:
        return None  # es la carpeta de una persona en el zip de Moodle
    if any(len(e.partes) == 1 and not e.info.is_dir() for e in normales):
        return None  # es un archivo, no una carpeta
    adentro = [(e.partes[1], len(e.partes) > 2 or e.info.is_dir()) for e in normales if len(e.partes) >= 2]
    if any(r is not None for r in lms.reconocer_todas(adentro)):
        return unica  # envuelve los nombres de un LMS (el zip se volvió a comprimir con su carpeta)
    if any(len(e.partes) >= 2 and e.partes[1].lower().endswith(".ipynb") for e in normales):
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
        ruta = e.mostrar or nombre_visible("/".join(e.partes))
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
        if e.reportada:
            continue  # no se extrae: no choca con nada
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
        ruta = e.mostrar or nombre_visible("/".join(e.partes))
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
