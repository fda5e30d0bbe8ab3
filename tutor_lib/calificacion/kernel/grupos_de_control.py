"""Los cgroups de un kernel que califica: memoria, procesos y CPU acotados para él y todo lo que lance.

Lo usa :mod:`tutor_lib.calificacion.kernel.aislamiento` antes de aislar el kernel. Primero intenta un cgroup v2 hoja
(``memory.max``, ``pids.max`` y, si el controlador está, uno ``cpu`` propio); si la máquina no
delega cgroup v2 pero tiene las jerarquías v1 de siempre (Docker con cgroup v1, muchas máquinas de
CI), usa un cgroup hoja en cada una: ``memory.limit_in_bytes``, ``pids.max`` y ``cpu``.

El cgroup ``cpu`` propio reparte la CPU con justicia: para el planificador de Linux, todos los
procesos e hilos de un kernel juntos pesan lo mismo que un solo proceso de otro kernel, así que 255
procesos que giran sin parar no dejan sin CPU a las entregas que se califican a la vez (ni a
nbgrader). Con ``cpu_nucleos`` en la configuración, además un tope duro de esa cantidad de núcleos.
Sin ningún cgroup, el informe lo dice y queda ``RLIMIT_NPROC`` como respaldo para los procesos.
Lo ataca ``tests/test_ataques_nuevos.py::test_acaparar_la_cpu``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

#: Procesos e hilos del kernel como máximo y tamaño de /tmp (y de /dev/shm) en MB, por omisión.
PROCESOS = 256
TMP_MB = 256
#: Periodo del tope de CPU (µs): cpu.max de v2 y cpu.cfs_period_us de v1.
PERIODO_US = 100_000


def _decodificar(campo: str) -> str:
    """Los campos de mountinfo escapan espacios y otros caracteres como ``\\040``."""
    return campo.encode().decode("unicode_escape")


class GrupoDeControl:
    """Un cgroup hoja para un kernel (v2, o uno de una jerarquía v1); al terminar se borra."""

    def __init__(self, nombre: str, fd_base: int, fd_origen: int):
        self.nombre, self.fd_base, self.fd_origen = nombre, fd_base, fd_origen

    def soltar(self) -> None:
        try:
            os.write(self.fd_origen, b"0")  # este proceso vuelve a su cgroup de antes
        except OSError:
            pass
        for _ in range(50):  # los procesos del kernel tardan un instante en irse
            try:
                os.rmdir(self.nombre, dir_fd=self.fd_base)
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.02)


class Grupos:
    """Varios cgroups hoja (uno por jerarquía v1) que se sueltan juntos."""

    def __init__(self, grupos: list[GrupoDeControl]):
        self.grupos = grupos

    def soltar(self) -> None:
        for grupo in self.grupos:
            grupo.soltar()


def _montaje_cgroup2() -> str | None:
    with open("/proc/self/mountinfo") as f:
        for linea in f:
            izq, _, der = linea.partition(" - ")
            if der.split()[:1] == ["cgroup2"]:
                return _decodificar(izq.split()[4])
    return None


def _cgroup_propio() -> Path | None:
    """La carpeta del cgroup v2 de este proceso (None si no hay cgroup v2)."""
    raiz = _montaje_cgroup2()
    if raiz is None:
        return None
    try:
        with open("/proc/self/cgroup") as f:
            propio = next((l.strip()[3:] for l in f if l.startswith("0::")), None)
    except OSError:
        return None
    return None if propio is None else Path(raiz) / propio.lstrip("/")


def _cgroups_v1() -> dict[str, Path]:
    """Controlador (``memory``, ``pids``, ``cpu``) → carpeta del cgroup v1 de este proceso en esa jerarquía."""
    montajes: dict[str, tuple[str, str]] = {}
    try:
        with open("/proc/self/mountinfo") as f:
            for linea in f:
                izq, _, der = linea.partition(" - ")
                campos = der.split()
                if campos[:1] != ["cgroup"] or len(campos) < 3:
                    continue
                raiz_montaje, punto = _decodificar(izq.split()[3]), _decodificar(izq.split()[4])
                for controlador in ("memory", "pids", "cpu"):
                    if controlador in campos[2].split(",") and controlador not in montajes:
                        montajes[controlador] = (punto, raiz_montaje)
        propios = {}
        with open("/proc/self/cgroup") as f:
            for linea in f:
                _, controladores, ruta = linea.strip().split(":", 2)
                for controlador in controladores.split(","):
                    if controlador in montajes:
                        punto, raiz_montaje = montajes[controlador]
                        relativa = os.path.relpath(ruta, raiz_montaje) if ruta.startswith(raiz_montaje) else "."
                        propios[controlador] = Path(punto) / relativa
    except (OSError, ValueError):
        return {}
    return propios


def _limpiar_viejas(base: Path) -> None:
    for vieja in base.glob("tutor-*"):  # de kernels que murieron sin limpiar
        if vieja.name[6:].isdigit() and not Path(f"/proc/{vieja.name[6:]}").exists():
            try:
                vieja.rmdir()
            except OSError:
                pass


def _memoria_total(conf: dict) -> int | None:
    """MB del tope de memoria: la del kernel más lo que quepa en /tmp y /dev/shm (tmpfs cuenta aquí)."""
    memoria = conf.get("memoria_mb")
    return int(memoria + 2 * int(conf.get("tmp_mb", TMP_MB))) if memoria else None


def _hoja(base: Path, procs_origen: Path, escribir) -> GrupoDeControl:
    """Crea ``base/tutor-<pid>``, le escribe los límites con ``escribir(hoja)`` y mete este proceso."""
    hoja = base / f"tutor-{os.getpid()}"
    fds = [os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)]
    try:
        fds.append(os.open(procs_origen, os.O_WRONLY | os.O_CLOEXEC))
        _limpiar_viejas(base)
        hoja.mkdir()
        try:
            escribir(hoja)
            (hoja / "cgroup.procs").write_text(str(os.getpid()))
        except OSError:
            try:
                hoja.rmdir()
            except OSError:
                pass
            raise
    except OSError:
        for fd in fds:
            os.close(fd)
        raise
    return GrupoDeControl(hoja.name, fds[0], fds[1])


def _grupo_v2(conf: dict) -> tuple[GrupoDeControl | None, str]:
    origen = _cgroup_propio()
    if origen is None:
        return None, "no hay cgroup v2"
    base = Path(conf["cgroup"]) if conf.get("cgroup") else origen
    procesos = int(conf.get("procesos", PROCESOS))
    total = _memoria_total(conf)
    nucleos = conf.get("cpu_nucleos")
    detalle: list[str] = []
    try:
        disponibles = set((base / "cgroup.controllers").read_text().split())
        if not {"memory", "pids"} <= disponibles:
            return None, f"el cgroup v2 {base} no tiene los controladores memory y pids"
        pedidos = ["memory", "pids"] + (["cpu"] if "cpu" in disponibles else [])
        if not set(pedidos) <= set((base / "cgroup.subtree_control").read_text().split()):
            (base / "cgroup.subtree_control").write_text(" ".join("+" + c for c in pedidos))
    except OSError as exc:
        return None, f"no se pudo usar el cgroup v2 {base} ({exc.strerror or exc})"

    def escribir(hoja: Path) -> None:
        (hoja / "pids.max").write_text(str(procesos))
        detalle.append(f"pids.max={procesos}")
        if total:
            (hoja / "memory.max").write_text(str(total * 2**20))
            detalle.append(f"memory.max={total} MB")
            try:
                (hoja / "memory.swap.max").write_text("0")
            except OSError:
                pass
        if "cpu" in pedidos:
            detalle.append("cpu propio (reparto justo)")
            if nucleos:
                (hoja / "cpu.max").write_text(f"{int(float(nucleos) * PERIODO_US)} {PERIODO_US}")
                detalle.append(f"cpu.max={nucleos} núcleos")

    try:
        grupo = _hoja(base, origen / "cgroup.procs", escribir)
    except OSError as exc:
        return None, f"no se pudo usar el cgroup v2 {base} ({exc.strerror or exc})"
    return grupo, f"cgroup v2 propio ({', '.join(detalle)})"


def _grupo_v1(conf: dict) -> tuple[Grupos | None, str]:
    propios = _cgroups_v1()
    if not propios:
        return None, "tampoco hay cgroups v1"
    procesos = int(conf.get("procesos", PROCESOS))
    total = _memoria_total(conf)
    nucleos = conf.get("cpu_nucleos")
    escrituras = {
        "pids": ([("pids.max", str(procesos))], f"pids.max={procesos}"),
        "memory": ([("memory.limit_in_bytes", str(total * 2**20))] if total else [],
                   f"memory.limit_in_bytes={total} MB" if total else ""),
        "cpu": ([("cpu.cfs_period_us", str(PERIODO_US)), ("cpu.cfs_quota_us", str(int(float(nucleos) * PERIODO_US)))]
                if nucleos else [], "cpu propio (reparto justo)" + (f", tope de {nucleos} núcleos" if nucleos else "")),
    }
    grupos, logrado, fallas = [], [], []
    for controlador, (archivos, texto) in escrituras.items():
        if controlador not in propios or (controlador == "memory" and not archivos):
            continue
        base = propios[controlador]

        def escribir(hoja: Path, archivos=archivos) -> None:
            for nombre, valor in archivos:
                (hoja / nombre).write_text(valor)

        try:
            grupos.append(_hoja(base, base / "cgroup.procs", escribir))
            logrado.append(texto)
        except OSError as exc:
            fallas.append(f"{controlador}: {exc.strerror or exc}")
    if not grupos:
        return None, "no se pudo usar ningún cgroup v1 (" + "; ".join(fallas or ["sin memory, pids ni cpu"]) + ")"
    detalle = "cgroups v1 propios (" + ", ".join(logrado) + ")"
    if fallas:
        detalle += "; sin " + "; ".join(fallas)
    return Grupos(grupos), detalle


def grupo_de_control(conf: dict) -> tuple[GrupoDeControl | Grupos | None, str]:
    """Mete a este proceso (y a todo lo que lance) en cgroups con memoria, procesos y CPU acotados.

    cgroup v2 si la máquina lo delega; si no, las jerarquías v1 que haya. Devuelve (grupo,
    descripción) o (None, por qué no se pudo). Lo llama :func:`tutor_lib.calificacion.kernel.aislamiento.main`.
    """
    grupo, detalle = _grupo_v2(conf)
    if grupo is not None:
        return grupo, detalle
    grupo_v1, detalle_v1 = _grupo_v1(conf)
    if grupo_v1 is not None:
        return grupo_v1, detalle_v1
    return None, f"{detalle}; {detalle_v1}"
