"""Repartir las entregas de una clase entre trabajadores con Dask distributed.

Por qué Dask: corre igual en una laptop (``LocalCluster``, procesos de esta
máquina) que en un clúster (``dask scheduler`` + ``dask worker`` a mano, en
SLURM/PBS con dask-jobqueue, en Kubernetes con dask-kubernetes); se instala con
pip, sin intermediarios (Celery necesita Redis o RabbitMQ) ni un almacén de
objetos propio (Ray); y si un trabajador muere, el planificador vuelve a mandar
sus tareas a otro. Cada tarea es una entrega; cada trabajador la califica con el
mismo :class:`~tutor_lib.calificacion.motor.calificador.CursoTemporal` (y el mismo aislamiento) que
una calificación en serie.

La asignación se prepara **una vez por corrida**: en esta máquina, todos los
trabajadores usan la carpeta que preparó quien reparte; en otra máquina, cada
trabajador la prepara una vez con el notebook fuente que le llega en la tarea y
la reutiliza para todas sus entregas. Lo usa :func:`tutor_lib.calificacion.motor.clase.calificar_clase`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import socket
import tempfile
import threading
import time
from pathlib import Path

#: Cursos preparados en este proceso trabajador, por corrida (ver :func:`calificar_tarea`).
_CURSOS: dict[str, object] = {}
_CANDADO = threading.Lock()


@contextlib.contextmanager
def motor(procesos: int, cluster: str | None = None):
    """Un ``distributed.Client``: el clúster en ``cluster`` o ``procesos`` trabajadores locales.

    Los trabajadores locales viven en este proceso, con un hilo cada uno: cada
    entrega ya se califica en procesos aparte (nbgrader, el kernel aislado, el
    juez), así que otro proceso por trabajador solo sumaría arranques (medido:
    la clase de tests/test_ataques.py tardaba 13 s más con procesos). Sin
    tablero web ni límite de memoria de Dask (el límite de cada entrega lo pone
    el aislamiento).
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ValueError("Para repartir la calificación falta dask distributed: pip install -e '.[escala]'.") from None
    logging.getLogger("distributed").setLevel(logging.ERROR)
    if cluster:
        try:
            cliente = Client(cluster, timeout=10)
        except (OSError, TimeoutError, ValueError) as exc:
            raise ValueError(f"No pude conectarme al planificador de Dask en {cluster!r}: {exc}") from None
        try:
            if not cliente.scheduler_info().get("workers"):
                cliente.wait_for_workers(1, timeout=60)
        except TimeoutError:
            cliente.close()
            raise ValueError(f"El planificador {cluster!r} no tiene trabajadores: inicia al menos uno "
                             f"(dask worker {cluster} --nthreads 1).") from None
        try:
            yield cliente
        finally:
            cliente.close()
        return
    with LocalCluster(n_workers=procesos, threads_per_worker=1, processes=False, protocol="tcp://", host="127.0.0.1",
                      dashboard_address=None, memory_limit=0, silence_logs=logging.ERROR) as local, \
            Client(local) as cliente:
        yield cliente


def comprobar(cluster: str) -> None:
    """Falla pronto (``ValueError`` en español) si el planificador ``cluster`` no responde o no tiene trabajadores."""
    tcp = re.fullmatch(r"(?:tcp://)?\[?([^\]/]+?)\]?:(\d+)/?", cluster.strip())
    if tcp:  # si nadie escucha, decirlo ya: Dask reintentaría hasta su tiempo límite
        try:
            socket.create_connection((tcp.group(1), int(tcp.group(2))), timeout=10).close()
        except OSError as exc:
            raise ValueError(f"No pude conectarme al planificador de Dask en {cluster!r}: {exc.strerror or exc}. "
                             "¿Está corriendo «dask scheduler» y se llega a ese puerto?") from None
    with motor(1, cluster):
        pass


def calificar_tarea(tarea: dict) -> dict:
    """Lo que corre en un trabajador: califica una entrega y devuelve datos planos.

    ``tarea`` trae la entrega (su texto), el id del estudiante y la
    ``corrida`` (asignación, fuente, límites, libreta, carpeta preparada). El
    resultado: la calificación como dict, el notebook autocalificado (para la
    retroalimentación), el registro de nbgrader, el nombre del trabajador y los
    segundos de preparación y de calificación.
    """
    from tutor_lib.calificacion.resultados import Calificacion

    inicio = time.perf_counter()
    curso, preparado_aqui = _curso(tarea["corrida"])
    preparacion = time.perf_counter() - inicio
    corrida = tarea["corrida"]
    with tempfile.TemporaryDirectory(prefix="tutor-tarea-") as tmp:
        ruta = Path(tmp) / f"{corrida['asignacion']}.ipynb"
        ruta.write_text(tarea["notebook"], encoding="utf-8")
        try:
            cal = curso.calificar(tarea["estudiante"], ruta, retroalimentacion=False)
        except Exception as exc:  # una entrega nunca detiene al trabajador
            cal = Calificacion(corrida["asignacion"], tarea["estudiante"], "error", 0.0, curso.maximo(),
                               f"Falla inesperada al calificar: {type(exc).__name__}: {exc}")
    est = tarea["estudiante"]
    autocalificado = curso.curso / "autograded" / est / curso.asig / f"{curso.asig}.ipynb"
    registro = curso.privado / "registros" / f"{est}.log"
    return {
        "calificacion": cal.como_dict(),
        "autocalificado": (autocalificado.read_text(encoding="utf-8")
                           if cal.estado == "calificado" and autocalificado.is_file() else None),
        "registro": registro.read_text(encoding="utf-8", errors="replace") if registro.is_file() else "",
        "trabajador": f"{socket.gethostname()}:{os.getpid()}",
        "preparacion_s": preparacion if preparado_aqui else 0.0,
        "calificacion_s": time.perf_counter() - inicio - preparacion,
    }


def _curso(corrida: dict):
    """El curso preparado de esta corrida en este proceso (se prepara la primera vez)."""
    from tutor_lib.calificacion.motor.calificador import CursoTemporal
    from tutor_lib.calificacion.resultados import Limites

    with _CANDADO:
        if corrida["id"] in _CURSOS:
            return _CURSOS[corrida["id"]], False
        carpeta = corrida.get("carpeta")
        comun = dict(limites=Limites(**corrida["limites"]), aislar=corrida["aislar"],
                     precarga=corrida.get("precarga", False),
                     ocultar_extra=[Path(p) for p in corrida.get("ocultar", []) if Path(p).exists()])
        if carpeta and corrida.get("anfitrion") == socket.gethostname() and \
                (Path(carpeta) / "privado" / "corrida").is_file() and \
                (Path(carpeta) / "privado" / "corrida").read_text() == corrida["id"]:
            curso = CursoTemporal(corrida["asignacion"], carpeta=Path(carpeta), **comun)
        else:
            curso = CursoTemporal(corrida["asignacion"], gradebook=corrida["libreta"],
                                  texto_fuente=corrida["fuente"], **comun)
        _CURSOS[corrida["id"]] = curso
        return curso, True


def cerrar_corrida(id_corrida: str) -> None:
    """En cada trabajador, al terminar: borra lo que preparó para la corrida ``id_corrida``."""
    with _CANDADO:
        curso = _CURSOS.pop(id_corrida, None)
    if curso is not None:
        curso.cerrar()
