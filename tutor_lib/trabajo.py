"""La carpeta de trabajo de quien estudia: sus copias de las lecciones y los ejercicios.

Las lecciones (``lessons/``) y los ejercicios (``exercises/``) del repositorio son del curso: git los
sigue y un ``git pull`` los reemplaza. Quien estudia trabaja en otra carpeta (por defecto
``trabajo/``, que ``.gitignore`` excluye), con la misma forma::

    trabajo/lessons/03_trainer.ipynb
    trabajo/exercises/ej04_warmup/ej04_warmup.ipynb
    trabajo/.copias.json        de qué versión del curso salió cada copia

:func:`sincronizar` (lo llama ``tutor curso`` al arrancar) copia lo que falta y **nunca** pisa una
copia que cambiaste; si el curso trae una versión nueva de un notebook que no tocaste, la pone en
su lugar. :func:`actualizar` (``tutor actualizar 03``) trae la versión nueva de uno que sí tocaste
y guarda el tuyo como respaldo al lado. Se usa en ``tutor curso`` y ``tutor actualizar``; lo
explican el README («Tu carpeta de trabajo») y la lección 00.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

#: Las carpetas del curso que se copian, con los notebooks que cuentan en cada una.
PATRONES = {"lessons": "[0-9][0-9]_*.ipynb", "exercises": "ej[0-9][0-9]_*/ej[0-9][0-9]_*.ipynb"}
REGISTRO = ".copias.json"
CARPETA_POR_DEFECTO = "trabajo"


@dataclass
class Sincronizacion:
    """Qué hizo :func:`sincronizar` (rutas relativas a la carpeta de trabajo)."""

    carpeta: Path
    copiadas: list[str] = field(default_factory=list)
    actualizadas: list[str] = field(default_factory=list)
    con_version_nueva: list[str] = field(default_factory=list)

    def texto(self) -> str:
        """El resumen en español que imprime ``tutor curso`` antes de abrir JupyterLab."""
        lineas = [f"Tu carpeta de trabajo: {self.carpeta}",
                  "  (tus copias de las lecciones y los ejercicios; git no la ve y un git pull no la toca)"]
        if self.copiadas:
            lineas.append(f"  Copié {_cuantos(self.copiadas)} del curso.")
        if self.actualizadas:
            lineas.append(f"  Puse la versión nueva de {_cuantos(self.actualizadas)} que no habías cambiado: "
                          + ", ".join(Path(r).name for r in self.actualizadas) + ".")
        if self.con_version_nueva:
            nombres = " ".join(Path(r).stem for r in self.con_version_nueva)
            lineas.append(f"  El curso trae una versión nueva de {_cuantos(self.con_version_nueva)} que cambiaste: "
                          + ", ".join(Path(r).name for r in self.con_version_nueva) + ".")
            lineas.append(f"  Para traerla sin perder tu trabajo (el tuyo queda como respaldo): tutor actualizar {nombres}")
        return "\n".join(lineas)

    def como_dict(self) -> dict:
        return {"carpeta": str(self.carpeta), "copiadas": self.copiadas, "actualizadas": self.actualizadas,
                "con_version_nueva": self.con_version_nueva}


def _cuantos(rutas: list[str]) -> str:
    lecciones = sum(r.startswith("lessons/") for r in rutas)
    ejercicios = len(rutas) - lecciones
    partes = []
    if lecciones:
        partes.append(f"{lecciones} lección" if lecciones == 1 else f"{lecciones} lecciones")
    if ejercicios:
        partes.append(f"{ejercicios} ejercicio" if ejercicios == 1 else f"{ejercicios} ejercicios")
    return " y ".join(partes)


def _huella(ruta: Path) -> str:
    return hashlib.sha256(ruta.read_bytes()).hexdigest()


def notebooks_del_curso(raiz: Path) -> dict[str, Path]:
    """Los notebooks que se copian: ruta relativa (``lessons/03_trainer.ipynb``) → archivo en ``raiz``."""
    encontrados = {}
    for carpeta, patron in PATRONES.items():
        for ruta in sorted((raiz / carpeta).glob(patron)):
            encontrados[ruta.relative_to(raiz).as_posix()] = ruta
    return encontrados


def _leer_registro(trabajo: Path) -> dict[str, str]:
    archivo = trabajo / REGISTRO
    try:
        datos = json.loads(archivo.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # sin registro, o roto: no impide trabajar, se rehace con las huellas de hoy
        return {}
    return {k: v for k, v in datos.items() if isinstance(k, str) and isinstance(v, str)} if isinstance(datos, dict) else {}


def _escribir_registro(trabajo: Path, registro: dict[str, str]) -> None:
    temporal = trabajo / (REGISTRO + ".nuevo")
    temporal.write_text(json.dumps(dict(sorted(registro.items())), indent=1), encoding="utf-8")
    temporal.replace(trabajo / REGISTRO)


def _copiar(origen: Path, destino: Path) -> None:
    """Copia sin dejar nunca un notebook a medias: primero a un temporal, luego un rename."""
    destino.parent.mkdir(parents=True, exist_ok=True)
    temporal = destino.with_name(destino.name + ".copiando")
    shutil.copyfile(origen, temporal)
    temporal.replace(destino)


def validar_carpeta(raiz: Path, trabajo: Path) -> None:
    """La carpeta de trabajo no puede ser el repositorio ni estar dentro de ``lessons/`` o ``exercises/``."""
    raiz, trabajo = raiz.resolve(), trabajo.resolve()
    if trabajo == raiz:
        raise ValueError(f"La carpeta de trabajo no puede ser la del curso ({raiz}): ahí git sigue los notebooks. "
                         f"Usa, por ejemplo, --trabajo {raiz / CARPETA_POR_DEFECTO}.")
    for carpeta in PATRONES:
        if trabajo == raiz / carpeta or (raiz / carpeta) in trabajo.parents:
            raise ValueError(f"La carpeta de trabajo no puede estar dentro de {raiz / carpeta}: git sigue esa carpeta.")
    if trabajo.exists() and not trabajo.is_dir():
        raise ValueError(f"{trabajo} existe y no es una carpeta: elige otra con --trabajo.")


def sincronizar(raiz: Path, trabajo: Path) -> Sincronizacion:
    """Crea o completa la carpeta de trabajo desde ``raiz`` sin pisar nada que hayas cambiado.

    - Lo que falta se copia (la primera vez, todo).
    - Una copia que no cambiaste desde que se hizo (su huella es la registrada) y cuya fuente cambió
      se reemplaza por la versión nueva: no había trabajo tuyo que perder.
    - Una copia que cambiaste no se toca; si su fuente cambió, figura en ``con_version_nueva``.
    Se usa en ``tutor curso``.
    """
    validar_carpeta(raiz, trabajo)
    trabajo = trabajo.resolve()
    trabajo.mkdir(parents=True, exist_ok=True)
    registro = _leer_registro(trabajo)
    resultado = Sincronizacion(carpeta=trabajo)
    for relativa, fuente in notebooks_del_curso(raiz).items():
        copia = trabajo / relativa
        huella_fuente = _huella(fuente)
        if not copia.exists():
            _copiar(fuente, copia)
            registro[relativa] = huella_fuente
            resultado.copiadas.append(relativa)
            continue
        base = registro.get(relativa)
        if base is None:  # una copia que el registro no conoce (p. ej. de antes): se toma como tuya
            registro[relativa] = huella_fuente
            continue
        if base == huella_fuente:
            continue  # el curso no cambió este notebook
        if _huella(copia) == base:
            _copiar(fuente, copia)
            registro[relativa] = huella_fuente
            resultado.actualizadas.append(relativa)
        else:
            resultado.con_version_nueva.append(relativa)
    _escribir_registro(trabajo, registro)
    return resultado


def resolver(raiz: Path, nombre: str) -> str:
    """La ruta relativa de un notebook del curso a partir de cómo lo nombra quien estudia.

    Acepta ``03``, ``03_trainer``, ``03_trainer.ipynb``, ``lessons/03_trainer.ipynb``, ``ej04``,
    ``ej04_warmup`` o ``exercises/ej04_warmup/ej04_warmup.ipynb``.
    """
    del_curso = notebooks_del_curso(raiz)
    limpio = nombre.strip().replace("\\", "/")
    while limpio.startswith("./"):
        limpio = limpio[2:]
    if limpio in del_curso:
        return limpio
    base = Path(limpio).name
    base = base[:-len(".ipynb")] if base.endswith(".ipynb") else base
    # una ruta (con «/») tiene que ser, tal cual, la de un notebook del curso
    candidatas = [] if "/" in limpio else [r for r in del_curso if Path(r).stem == base]
    if not candidatas and "/" not in limpio and re.fullmatch(r"(ej)?\d{2}", base):
        candidatas = [r for r in del_curso if Path(r).stem.split("_")[0] == base]
    if len(candidatas) == 1:
        return candidatas[0]
    opciones = ", ".join(Path(r).stem for r in del_curso)
    raise ValueError(f"No conozco el notebook «{nombre}». Usa el número o el nombre de una lección o de un "
                     f"ejercicio, por ejemplo 03, 03_trainer o ej04_warmup. Los del curso: {opciones}.")


def actualizar(raiz: Path, trabajo: Path, nombre: str, ahora: datetime | None = None) -> dict:
    """Trae la versión del curso de un notebook y guarda la tuya al lado como respaldo.

    Devuelve ``{"notebook": ruta, "respaldo": ruta o None}``. Si tu copia es igual a la del curso no
    hay respaldo que hacer. El respaldo se llama como tu copia con ``.respaldo-AAAAMMDD-HHMMSS``
    antes de ``.ipynb`` y no pisa ningún archivo. Se usa en ``tutor actualizar``.
    """
    validar_carpeta(raiz, trabajo)
    trabajo = trabajo.resolve()
    relativa = resolver(raiz, nombre)
    fuente = notebooks_del_curso(raiz)[relativa]
    copia = trabajo / relativa
    respaldo = None
    if copia.exists() and _huella(copia) != _huella(fuente):
        sello = (ahora or datetime.now()).strftime("%Y%m%d-%H%M%S")
        respaldo = copia.with_name(f"{copia.stem}.respaldo-{sello}.ipynb")
        n = 1
        while respaldo.exists():
            n += 1
            respaldo = copia.with_name(f"{copia.stem}.respaldo-{sello}-{n}.ipynb")
        shutil.copy2(copia, respaldo)  # primero el respaldo: si algo falla después, tu trabajo sigue ahí
    _copiar(fuente, copia)
    registro = _leer_registro(trabajo)
    registro[relativa] = _huella(fuente)
    _escribir_registro(trabajo, registro)
    return {"notebook": str(copia), "respaldo": None if respaldo is None else str(respaldo)}
