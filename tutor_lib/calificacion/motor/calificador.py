"""Motor de calificación: nbgrader de verdad, en una carpeta desechable y con el kernel aislado.

Lo usan ``tutor corregir`` (una persona que estudia sola, ver
:mod:`tutor_lib.autoevaluacion`) y ``tutor calificar`` (el instructor, toda la
clase). Para cada asignación:

1. copia la fuente ``solutions/<asig>/<asig>.ipynb`` a una carpeta privada y
   corre ``nbgrader generate_assignment``: así la libreta de calificaciones
   (con las pruebas ocultas y los puntos) sale siempre de la fuente;
2. **reconstruye cada entrega** sobre el notebook liberado (:func:`normalizar`):
   las celdas de prueba, bloqueadas y de enunciado salen del original; de la
   entrega solo se toman las celdas de solución (por ``grade_id``, por id de
   celda o por posición entre celdas conocidas, para notebooks que Colab u otro
   editor dejó sin metadatos) y las celdas que el estudiante agregó. Editar,
   borrar, duplicar o convertir en markdown una prueba no cambia nada: se
   ejecuta la prueba original. Una solución que no se encuentra cuenta como
   vacía (nunca más puntos de los ganados);
3. corre ``nbgrader autograde`` y ``nbgrader generate_feedback`` en un proceso
   aparte, con tiempo límite total, y un kernel que arranca a través de
   :mod:`tutor_lib.calificacion.kernel.aislamiento` (sin red, sin ver la fuente ni otras entregas,
   escribiendo solo en su carpeta, con límites de memoria y CPU); las celdas de
   prueba no corren en ese kernel sino en el proceso del juez
   (:mod:`tutor_lib.calificacion.juez`), que solo recibe datos planos del estudiante;
4. lee los puntos de la libreta de nbgrader y los mensajes de las pruebas.

La entrega original nunca se modifica: se trabaja sobre copias.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import nbformat

import tutor_lib
from tutor_lib.calificacion.archivos import borrar_arbol
from tutor_lib.calificacion.kernel import aislamiento
from tutor_lib.calificacion.motor.precarga import activa as precarga_activa
from tutor_lib.calificacion.resultados import (  # noqa: F401  (se importan de aquí desde antes)
    MENSAJE_BIEN,
    Calificacion,
    Limites,
    Parte,
    mensajes_de_pruebas,
)
from tutor_lib.calificacion.entregas import (  # noqa: F401  (se importan de aquí desde antes)
    MAX_CELDAS,
    MAX_MIB_NOTEBOOK,
    EntregaEncontrada,
    entregas_de_carpeta,
    explorar_entregas,
    id_seguro,
    nombre_visible,
)
from tutor_lib.calificacion.zip_entregas import _extraer_zip  # noqa: F401  (se importa de aquí desde antes)

PATRON_ASIGNACION = re.compile(r"ej\d\d_[a-z0-9_]+")


# --- dónde están las asignaciones --------------------------------------------


def raiz_curso() -> Path:
    """La carpeta del repositorio del curso (la que tiene ``solutions/``).

    ``TUTOR_CURSO`` la fija; si no, se usa la carpeta que contiene a
    ``tutor_lib`` (instalación editable o clon del repositorio).
    """
    candidatas = [os.environ.get("TUTOR_CURSO"), Path(tutor_lib.__file__).resolve().parents[1]]
    for c in candidatas:
        if c and (Path(c) / "solutions").is_dir():
            return Path(c).resolve()
    raise FileNotFoundError(
        "No encuentro la carpeta solutions/ del curso. Clona el repositorio "
        "(git clone --depth 1 <repositorio>) e instala tutor_lib desde ahí con "
        "pip install -e ., o define TUTOR_CURSO con la ruta del clon."
    )


def asignaciones(raiz: Path | None = None) -> list[str]:
    raiz = raiz or raiz_curso()
    return sorted(p.name for p in (raiz / "solutions").iterdir() if (p / f"{p.name}.ipynb").is_file())


def fuente(asignacion: str, raiz: Path | None = None) -> Path:
    raiz = raiz or raiz_curso()
    ruta = raiz / "solutions" / asignacion / f"{asignacion}.ipynb"
    if not ruta.is_file():
        disponibles = ", ".join(asignaciones(raiz)) or "ninguna"
        raise ValueError(f"No existe la asignación {asignacion!r}. Las que hay: {disponibles}.")
    return ruta


def detectar_asignacion(nombre_archivo: str, raiz: Path | None = None) -> str:
    """La asignación por el nombre del archivo («Copia de ej03_trainer (2).ipynb» sirve)."""
    encontrada = PATRON_ASIGNACION.search(nombre_archivo)
    conocidas = asignaciones(raiz)
    if encontrada:
        for asig in conocidas:
            if encontrada.group(0).startswith(asig):
                return asig
    raise ValueError(
        f"No sé a qué asignación corresponde {nombre_archivo!r}. Indica cuál con "
        f"--asignacion (las que hay: {', '.join(conocidas)})."
    )


from tutor_lib.calificacion.reconstruccion import (  # noqa: E402,F401  (se importan de aquí desde antes)
    _nbg,
    _texto,
    codigo_de_solucion,
    entrega_de_referencia,
    leer_entrega,
    normalizar,
    puntos,
)


# --- la carpeta de nbgrader desechable ----------------------------------------------


CONFIG = '''# Generado por tutor_lib.calificacion.motor.calificador: curso temporal para calificar {asig}.
c = get_config()  # noqa: F821
load_subconfig({config_curso!r})  # noqa: F821
c.CourseDirectory.root = {raiz!r}
c.CourseDirectory.source_directory = {fuente!r}
c.CourseDirectory.release_directory = "liberado"
c.CourseDirectory.submitted_directory = "submitted"
c.CourseDirectory.autograded_directory = "autograded"
c.CourseDirectory.feedback_directory = "feedback"
c.CourseDirectory.db_url = {db!r}
c.Execute.timeout = {tiempo_celda}
c.Execute.interrupt_on_timeout = True
{transporte}# Retroalimentación sin pruebas ocultas, saneada y en español (tutor_lib.calificacion.retroalimentacion).
import os as _os  # noqa: E402
from tutor_lib.calificacion import retroalimentacion as _retroalimentacion  # noqa: E402
_retroalimentacion.configurar(c, liberado=_os.path.join({raiz!r}, "liberado", {asig!r}, {asig!r} + ".ipynb"),
                              tiempo_celda={tiempo_celda})
'''


# ``python -m nbgrader`` sin el costo de arranque que no usa: nbgrader importa jsonschema, y
# jsonschema, si encuentra rfc3987_syntax, compila al importarse sus 39 gramáticas (1,2 s de
# CPU por proceso en 2 núcleos, medido), que solo sirven a los formatos «iri» de JSON Schema;
# ni nbgrader ni nbformat validan formatos. Cada calificación lanza nbgrader una o dos veces.
_NBGRADER = ("import sys; sys.modules['rfc3987_syntax'] = None; "
             "from nbgrader.apps.nbgraderapp import main; main()")


class CursoTemporal:
    """Una carpeta de curso de nbgrader desechable para calificar una asignación.

    Estructura (``D`` es una carpeta temporal)::

        D/privado/fuente/<asig>/<asig>.ipynb   copia de solutions/
        D/privado/gradebook.db                 libreta de nbgrader
        D/curso/nbgrader_config.py             esta configuración
        D/curso/{liberado,submitted,autograded,feedback}/...
        D/jupyter/kernels/python3/kernel.json  kernel que pasa por tutor_lib.calificacion.kernel.aislamiento
        D/trabajo/<estudiante>/                carpeta de trabajo del kernel (la única escribible)
        D/s/<n>/                               archivo de conexión y sockets del kernel (con un
                                               TMPDIR largo, /tmp/tutor-s-*/<n>/: ruta corta)
        D/juez/<estudiante>/                   carpeta del proceso del juez (el kernel no la ve)
        D/privado/informes/<estudiante>.json   informe de aislamiento (el kernel no lo ve)

    El kernel solo puede escribir en su carpeta de trabajo y en la de sus sockets:
    nbgrader nunca escribe, recorre ni cambia permisos en ninguna de las dos.
    """

    def __init__(self, asignacion: str, limites: Limites | None = None, aislar: bool = True,
                 ocultar_extra: list[Path] | None = None, raiz: Path | None = None, gradebook: str | None = None,
                 texto_fuente: str | None = None, carpeta: Path | None = None, precarga: bool = False):
        """Prepara la asignación (``nbgrader generate_assignment``) en una carpeta nueva.

        ``gradebook``: la URL de la libreta (por omisión, un SQLite privado; ver
        :mod:`tutor_lib.calificacion.libreta`). ``texto_fuente``: el notebook fuente tal como lo
        tiene quien reparte el trabajo (un trabajador de otra máquina califica con
        esa versión, no con la suya). ``carpeta``: una carpeta que otro proceso de
        esta misma máquina ya preparó para esta corrida; se usa tal cual, sin
        volver a preparar, y no se borra al cerrar (la borra quien la creó).
        ``precarga``: califica con el servidor de :mod:`tutor_lib.calificacion.motor.precarga`, que
        importa torch y transformers mientras nbgrader prepara la asignación (con una
        ``carpeta`` ya preparada, se inicia con la primera entrega).
        """
        self.raiz_repo = raiz or raiz_curso()
        self.asig = asignacion
        self.origen = fuente(asignacion, self.raiz_repo) if texto_fuente is None else None
        self.limites = limites or Limites()
        # El aislamiento usa espacios de nombres de Linux; en macOS o Windows se califica sin él
        # (y el informe lo dice).
        self.aislar = aislar and sys.platform.startswith("linux")
        self.ocultar_extra = [Path(p).resolve() for p in (ocultar_extra or [])]
        self._candado = threading.Lock()
        self._numeros: dict[str, int] = {}
        self._base_sockets: Path | None = None
        self._propia = carpeta is None
        self._precarga = precarga and precarga_activa()
        self._servidor = None
        self._hilo_precarga: threading.Thread | None = None
        self._ocultas: list[str] | None = None  # líneas de las pruebas ocultas (ver _tapar)
        if carpeta is not None:
            self.D = Path(carpeta).resolve()
            self.privado, self.curso = self.D / "privado", self.D / "curso"
            self.db_url = (self.privado / "libreta.url").read_text(encoding="utf-8")
            # Sockets en una carpeta propia de este proceso: los números de estudiante de otro
            # proceso que usa la misma carpeta no deben chocar con los de este.
            self._base_sockets = Path(tempfile.mkdtemp(prefix="tutor-s-", dir="/tmp" if Path("/tmp").is_dir() else None))
            self.liberado = nbformat.read(self.curso / "liberado" / asignacion / f"{asignacion}.ipynb", as_version=4)
            return
        self.D = Path(tempfile.mkdtemp(prefix=f"tutor-{asignacion}-")).resolve()
        self.privado = self.D / "privado"
        self.curso = self.D / "curso"
        self.db_url = gradebook or f"sqlite:///{self.privado / 'gradebook.db'}"
        destino = self.privado / "fuente" / asignacion
        destino.mkdir(parents=True)
        if texto_fuente is None:
            shutil.copy2(self.origen, destino / self.origen.name)
        else:
            (destino / f"{asignacion}.ipynb").write_text(texto_fuente, encoding="utf-8")
        (self.privado / "libreta.url").write_text(self.db_url, encoding="utf-8")
        self.curso.mkdir()
        (self.curso / "nbgrader_config.py").write_text(
            CONFIG.format(
                asig=asignacion,
                config_curso=str(self.raiz_repo / "course" / "nbgrader_config.py"),
                raiz=str(self.curso),
                fuente=str(self.privado / "fuente"),
                db=self.db_url,
                tiempo_celda=self.limites.tiempo_celda,
                # sockets de archivo: el kernel aislado vive en otro espacio de red
                transporte='c.KernelManager.transport = "ipc"\n' if self.aislar else "",
            )
        )
        kernel = self.D / "jupyter" / "kernels" / "python3"
        kernel.mkdir(parents=True)
        argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
        if self.aislar:
            argv = [sys.executable, "-m", "tutor_lib.calificacion.kernel.aislamiento", *argv]
        if sys.platform.startswith("linux"):
            # El relevo de tutor_lib.calificacion.motor.precarga: con servidor, el kernel nace de él; sin servidor,
            # execv y listo.
            argv = [sys.executable, "-m", "tutor_lib.calificacion.motor.precarga", *argv]
        (kernel / "kernel.json").write_text(
            json.dumps({"argv": argv, "display_name": "Python 3 (calificación)", "language": "python"})
        )
        if self._precarga:
            # El servidor de precarga importa (un núcleo) mientras nbgrader prepara la asignación (otro):
            # con sus módulos sale de las celdas compartidas del notebook fuente (ver precarga.modulos_de).
            fuente_nb = nbformat.reads(texto_fuente, as_version=4) if texto_fuente is not None else \
                nbformat.read(self.origen, as_version=4)
            self._hilo_precarga = threading.Thread(target=self._iniciar_servidor, args=(fuente_nb,), daemon=True)
            self._hilo_precarga.start()
        # Un trabajador de otra máquina prepara con una libreta privada: las celdas y puntos ya los
        # escribió en la libreta compartida quien reparte, con el mismo notebook fuente.
        privada = [] if texto_fuente is None else [f"--CourseDirectory.db_url=sqlite:///{self.privado / 'preparacion.db'}"]
        try:
            self._nbgrader("generate_assignment", asignacion, "--force", *privada, tiempo=300)
        except BaseException:
            self.cerrar()  # ni la carpeta ni el servidor de precarga quedan atrás
            raise
        self.liberado = nbformat.read(self.curso / "liberado" / asignacion / f"{asignacion}.ipynb", as_version=4)

    # -- utilidades --
    def cerrar(self) -> None:
        if self._hilo_precarga is not None:
            self._hilo_precarga.join()
        if self._servidor is not None:
            self._servidor.cerrar()
        if self._propia:
            borrar_arbol(self.D)  # sin recursión: lo que dejó una entrega puede venir muy anidado
        if self._base_sockets is not None and not aislamiento.dentro_de(self._base_sockets, self.D):
            borrar_arbol(self._base_sockets)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.cerrar()

    def _entorno(self, estudiante: str | None = None) -> dict[str, str]:
        env = dict(os.environ)
        env["JUPYTER_PATH"] = os.pathsep.join([str(self.D / "jupyter"), env.get("JUPYTER_PATH", "")]).rstrip(os.pathsep)
        env["PYTHONWARNINGS"] = "ignore"
        # nbgrader llama a «alembic» por nombre: el bin del entorno debe ir primero en PATH.
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
        if estudiante is not None:
            ejec, trabajo, juez = self._carpetas(estudiante)
            (self.privado / "informes").mkdir(parents=True, exist_ok=True)
            (self.privado / "informes" / f"{estudiante}.json").unlink(missing_ok=True)
            env["JUPYTER_RUNTIME_DIR"] = str(ejec)
            env["TMPDIR"] = str(ejec)  # ahí deja nbclient el archivo de conexión del kernel
            env[aislamiento.VARIABLE] = json.dumps({
                "escribibles": [str(trabajo), str(ejec)],
                # La de trabajo es un tmpfs acotado del kernel: lo que escriba no llena tu disco.
                "efimeras": [str(trabajo)],
                # Lista de permitidos: el kernel ve solo el sistema, Python y sus paquetes, tutor_lib y las
                # cachés de modelos (más sus dos carpetas escribibles); cualquier otra ruta no existe para
                # él, dondequiera que estén el curso, las entregas o las corridas anteriores.
                "visibles": [r for r in aislamiento.rutas_necesarias() if Path(r).resolve() != self.raiz_repo],
                # Defensa de más: si algo de esto quedara dentro de algo visible, igual se tapa.
                "ocultar": [
                    str(self.privado), str(self.curso), str(self.D / "juez"),
                    *(str(self.raiz_repo / d) for d in ("solutions", "course", "tests", ".git")),
                    *map(str, self.ocultar_extra),
                ],
                "memoria_mb": self.limites.memoria_mb,
                "cpu_s": self.limites.cpu_s,
                "archivo_mb": self.limites.archivo_mb,
                "informe": str(self.privado / "informes" / f"{estudiante}.json"),
                "tmp": "/tmp",
            })
        return env

    def _iniciar_servidor(self, nb) -> None:
        """Inicia el servidor de precarga; si no se puede, se califica sin él (cada programa, un proceso nuevo)."""
        from tutor_lib.calificacion.motor import precarga

        try:
            self._servidor = precarga.Servidor(precarga.modulos_de(nb), aislamiento.entorno_limpio({"tmp": "/tmp"}))
        except (OSError, ValueError, SyntaxError):
            self._precarga = False  # el informe de cada kernel lo dice: "precarga": false

    def _precargar(self) -> float:
        """El servidor de precarga, listo (segundos que hubo que esperarlo; 0 si ya estaba o no se usa).

        Si no se inició al preparar (una carpeta ya preparada), se inicia con la primera entrega.
        """
        if not self._precarga:
            return 0.0
        inicio = time.perf_counter()
        if self._hilo_precarga is not None:
            self._hilo_precarga.join()
        with self._candado:
            if self._servidor is None and self._precarga:
                self._iniciar_servidor(self.liberado)
        espera = time.perf_counter() - inicio
        return espera if espera > 0.01 else 0.0

    def _sockets(self, estudiante: str) -> Path:
        """La carpeta de los sockets del kernel de ``estudiante``, con una ruta corta.

        Un socket Unix admite unos 107 bytes de ruta: con un ``TMPDIR`` largo (o un id
        largo), los sockets van a una carpeta corta propia en ``/tmp``, con un número por
        estudiante.
        """
        with self._candado:
            if estudiante not in self._numeros:
                self._numeros[estudiante] = len(self._numeros)
            numero = self._numeros[estudiante]
            if self._base_sockets is None:
                self._base_sockets = self.D / "s"
                if len(str(self._base_sockets)) > 40 and Path("/tmp").is_dir():
                    self._base_sockets = Path(tempfile.mkdtemp(prefix="tutor-s-", dir="/tmp"))
        return self._base_sockets / str(numero)

    def _carpetas(self, estudiante: str) -> tuple[Path, Path, Path]:
        """(sockets, trabajo, juez) de ``estudiante``: nuevas y vacías en cada calificación."""
        carpetas = (self._sockets(estudiante), self.D / "trabajo" / estudiante, self.D / "juez" / estudiante)
        for c in carpetas:
            if c.is_symlink() or c.exists():
                if not borrar_arbol(c):
                    raise OSError(f"no se pudo vaciar {c} (quedó de una calificación anterior)")
            c.mkdir(parents=True, mode=0o700)
        return carpetas

    def _nbgrader(self, *args: str, tiempo: int, estudiante: str | None = None) -> subprocess.CompletedProcess:
        """Corre ``nbgrader`` en su propio grupo de procesos; lo mata entero si se pasa de tiempo."""
        extra = []
        if estudiante is not None:
            extra = [f"--EjecutarConJuez.carpeta_trabajo={self.D / 'trabajo' / estudiante}",
                     f"--EjecutarConJuez.carpeta_juez={self.D / 'juez' / estudiante}"]
        if estudiante is not None and self.aislar:
            # Sockets del kernel como archivos (ipc) en su carpeta de ejecución: funcionan
            # aunque el kernel esté en otro espacio de red.
            extra.append(f"--KernelManager.ip={self._sockets(estudiante) / 'k'}")
        argv, env = [sys.executable, "-c", _NBGRADER, *args, *extra], self._entorno(estudiante)
        ruta = self._servidor.ruta if self._servidor is not None else None
        if ruta:
            # nbgrader, el kernel y el juez nacen del servidor de precarga (ver tutor_lib.calificacion.motor.precarga)
            argv, env["TUTOR_PRECARGA"] = [sys.executable, "-m", "tutor_lib.calificacion.motor.precarga", *argv], ruta
        # La salida de nbgrader va a un archivo sin nombre en la carpeta privada (ni una tubería que
        # haya que leer entera ni algo que el kernel vea): se leen solo sus últimos MAX_REGISTRO bytes.
        carpeta = self.privado if self.privado.is_dir() else None
        with tempfile.TemporaryFile(dir=carpeta) as registro:
            proc = subprocess.Popen(
                argv,
                cwd=self.curso, env=env, stdin=subprocess.DEVNULL, stdout=registro, stderr=subprocess.STDOUT,
                start_new_session=True,
                # si muere el hilo que lanzó nbgrader (un trabajador matado), nbgrader muere con él y no sigue
                # escribiendo notas por su cuenta
                preexec_fn=aislamiento._morir_con_el_padre if sys.platform.startswith("linux") else None,
            )
            try:
                proc.wait(timeout=tiempo)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                raise TimeoutError(self._tapar(_final_de(registro))) from None
            finally:
                try:  # lo que quede del grupo (un hijo que siguiera escribiendo en el registro)
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            salida = self._tapar(_final_de(registro))
        if estudiante is None and proc.returncode != 0:
            raise RuntimeError(f"nbgrader {args[0]} falló:\n{salida[-3000:]}")
        return subprocess.CompletedProcess(proc.args, proc.returncode, salida, "")

    def _tapar(self, texto: str) -> str:
        """``texto`` (lo que escribió nbgrader) sin líneas de las pruebas ocultas: va a los registros."""
        from tutor_lib.calificacion.juez.ocultas import lineas_ocultas, tapar_ocultas

        if self._ocultas is None:
            try:
                fuente_nb = nbformat.read(self.privado / "fuente" / self.asig / f"{self.asig}.ipynb", as_version=4)
                self._ocultas = lineas_ocultas(fuente_nb.cells)
            except (OSError, ValueError):
                self._ocultas = []
        return tapar_ocultas(texto, self._ocultas)

    # -- calificar una entrega --
    def calificar(self, estudiante: str, ruta: Path, retroalimentacion: bool = True) -> Calificacion:
        """Califica el notebook ``ruta`` como entrega de ``estudiante`` (un id seguro).

        Con ``retroalimentacion`` genera además el HTML de nbgrader (unos 2 s más).
        """
        base = dict(asignacion=self.asig, estudiante=estudiante, puntos=0.0, maximo=self.maximo())
        try:
            nb, avisos = normalizar(leer_entrega(ruta), self.liberado)
        except ValueError as exc:
            return Calificacion(estado="inválido", mensaje=str(exc), **base)
        carpeta = self.curso / "submitted" / estudiante / self.asig
        carpeta.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, carpeta / f"{self.asig}.ipynb")
        precarga_s = self._precargar()
        inicio = time.perf_counter()
        try:
            proc = self._nbgrader("autograde", self.asig, "--student", estudiante, "--force",
                                  tiempo=self.limites.tiempo_total, estudiante=estudiante)
        except TimeoutError:
            return Calificacion(
                estado="tiempo agotado", avisos=avisos,
                mensaje=f"La entrega superó el tiempo total ({self.limites.tiempo_total} s) y se detuvo; no recibe puntos.",
                aislamiento=self._informe_aislamiento(estudiante), **base,
            )
        registros = self.privado / "registros"
        registros.mkdir(exist_ok=True)
        (registros / f"{estudiante}.log").write_text(proc.stdout, encoding="utf-8")  # ya acotado (MAX_REGISTRO)
        autocalificado = self.curso / "autograded" / estudiante / self.asig / f"{self.asig}.ipynb"
        if proc.returncode != 0 or not autocalificado.is_file():
            return Calificacion(
                estado="error", avisos=avisos, mensaje=_explicar_fallo(proc.stdout),
                aislamiento=self._informe_aislamiento(estudiante), **base,
            )
        tiempos = {"nbgrader_s": time.perf_counter() - inicio}
        if precarga_s:
            tiempos["precarga_s"] = precarga_s  # iniciar el servidor: una vez por corrida y trabajador
        try:
            medidos = json.loads((self.D / "juez" / estudiante / "tiempos.json").read_text())
            tiempos.update({k: float(v) for k, v in medidos.items() if isinstance(v, (int, float))})
        except (OSError, ValueError):
            pass
        retro = self._retroalimentacion(estudiante) if retroalimentacion else None
        partes, obtenidos, pendiente = self._partes(estudiante, nbformat.read(autocalificado, as_version=4))
        return Calificacion(
            asignacion=self.asig, estudiante=estudiante, estado="calificado", puntos=obtenidos,
            maximo=base["maximo"], mensaje=f"{_num(obtenidos)} de {_num(base['maximo'])} puntos.",
            partes=partes, avisos=avisos, pendiente_manual=pendiente,
            aislamiento=self._informe_aislamiento(estudiante), retroalimentacion=retro, tiempos=tiempos,
        )

    def _retroalimentacion(self, estudiante: str) -> str | None:
        """``nbgrader generate_feedback``: el HTML que recibe el estudiante (o None si falla).

        El HTML sale de :mod:`tutor_lib.calificacion.retroalimentacion` (sin pruebas ocultas ni
        scripts); si aun así no pasa :func:`~tutor_lib.calificacion.retroalimentacion.verificar_html`,
        se borra: mejor sin retroalimentación que con una insegura.
        """
        try:
            fb = self._nbgrader("generate_feedback", self.asig, "--student", estudiante, "--force", tiempo=120)
        except (TimeoutError, RuntimeError):
            return None
        html = self.curso / "feedback" / estudiante / self.asig / f"{self.asig}.html"
        return str(html) if fb.returncode == 0 and _html_seguro(html) else None

    def retroalimentacion_de_todos(self, estudiantes: list[str]) -> dict[str, Path]:
        """``nbgrader generate_feedback`` una sola vez para todos los ``estudiantes`` calificados.

        Las carpetas autocalificadas de quien no quedó calificado (tiempo agotado,
        error) se quitan antes, para que nbgrader no use un notebook a medias.
        """
        if not estudiantes:
            return {}
        for carpeta in (self.curso / "autograded").glob("*"):
            if carpeta.name not in estudiantes:
                borrar_arbol(carpeta)
        try:
            self._nbgrader("generate_feedback", self.asig, "--force", tiempo=60 + 10 * len(estudiantes))
        except (TimeoutError, RuntimeError):
            pass  # se intenta abajo una por una
        html = {e: self.curso / "feedback" / e / self.asig / f"{self.asig}.html" for e in estudiantes}
        seguros = {e: _html_seguro(ruta) for e, ruta in html.items()}
        for e in [e for e, bien in seguros.items() if not bien]:  # si la llamada de todos falló, una por una
            seguros[e] = self._retroalimentacion(e) is not None
        return {e: ruta for e, ruta in html.items() if seguros[e]}

    def maximo(self) -> float:
        return sum(puntos(self.liberado))

    def _partes(self, estudiante: str, autocalificado) -> tuple[list[Parte], float, float]:
        from nbgrader.api import Gradebook

        mensajes = mensajes_de_pruebas(autocalificado, self.limites)
        orden = [_nbg(c)["grade_id"] for c in self.liberado.cells if _nbg(c).get("grade")]
        partes, pendiente = {}, 0.0
        with Gradebook(self.db_url) as gb:
            sub = gb.find_submission_notebook(self.asig, self.asig, estudiante)
            total = float(sub.score)
            for g in sub.grades:
                if g.needs_manual_grade or (g.auto_score is None and g.manual_score is None):
                    pendiente += float(g.max_score)
                    partes[g.name] = Parte(g.name, None, float(g.max_score),
                                           "Respuesta escrita: la califica una persona (tu instructor, o tú con la pauta).")
                elif g.cell.cell_type == "markdown":
                    partes[g.name] = Parte(g.name, float(g.score), float(g.max_score),
                                           "Respuesta escrita vacía." if g.score == 0 else "Respuesta escrita calificada.")
                else:
                    partes[g.name] = Parte(g.name, float(g.score), float(g.max_score), mensajes.get(g.name, MENSAJE_BIEN))
        return [partes[n] for n in orden if n in partes], total, pendiente

    def _informe_aislamiento(self, estudiante: str) -> dict:
        ruta = self.privado / "informes" / f"{estudiante}.json"
        if not self.aislar:
            motivo = ("calificación sin aislamiento (pedido explícito)" if sys.platform.startswith("linux")
                      else "el aislamiento solo existe en Linux: aquí el kernel corre con tus permisos")
            return {"completo": False, "protecciones": [], "error": motivo}
        try:
            return json.loads(ruta.read_text())
        except (OSError, json.JSONDecodeError):
            return {"completo": False, "protecciones": [], "error": "el kernel no llegó a arrancar"}


#: Bytes de lo que escribe nbgrader que se leen (los últimos): lo demás nunca llega a la memoria.
MAX_REGISTRO = 64 * 1024


def _final_de(archivo) -> str:
    """Los últimos :data:`MAX_REGISTRO` bytes de ``archivo`` como texto (con un aviso si hay más)."""
    archivo.flush()
    tamano = archivo.seek(0, os.SEEK_END)
    archivo.seek(max(0, tamano - MAX_REGISTRO))
    texto = archivo.read(MAX_REGISTRO).decode("utf-8", errors="replace")
    if tamano > MAX_REGISTRO:
        texto = f"[… registro recortado: se omiten los primeros {tamano - MAX_REGISTRO} bytes]\n" + \
            texto.split("\n", 1)[-1]
    return texto


def _num(x: float) -> str:
    return f"{x:g}"


def _html_seguro(ruta: Path) -> bool:
    """¿``ruta`` es un HTML de retroalimentación que se puede entregar? Si no lo es, se borra."""
    from tutor_lib.calificacion.retroalimentacion import verificar_html

    if not ruta.is_file() or ruta.is_symlink():
        return False
    try:
        verificar_html(ruta.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        ruta.unlink(missing_ok=True)
        return False
    return True


def _explicar_fallo(salida: str) -> str:
    if "DeadKernelError" in salida or "Kernel died" in salida or "kernel died" in salida.lower():
        return ("El kernel se detuvo mientras corría tu notebook (memoria o CPU agotadas, o el código "
                "terminó el proceso); no se pudo calificar.")
    if "Timeout" in salida:
        return "El kernel no respondió a tiempo; no se pudo calificar."
    lineas = [l for l in salida.strip().splitlines() if l.strip()]
    errores = [l for l in lineas if re.match(r"\s*[A-Za-z_.]*(Error|Exception):", l)]
    ultima = (errores or lineas)[-1:] or ["sin detalles"]
    return f"nbgrader no pudo calificar esta entrega: {ultima[0][:300]}"


# --- toda una clase ----------------------------------------------------------------


# EntregaEncontrada y entregas_de_carpeta viven en tutor_lib.calificacion.entregas y _extraer_zip en
# tutor_lib.calificacion.zip_entregas; la corrida de
# toda una clase (calificar_clase: reparto entre trabajadores, reanudación) en tutor_lib.calificacion.motor.clase,
# que usa este módulo (este no la importa: así no hay un ciclo entre los dos).


def celda_csv(valor) -> str:
    """``valor`` como celda de CSV que ninguna hoja de cálculo ejecuta como fórmula.

    El nombre de una carpeta puede ser ``=HYPERLINK(...)`` o ``ana;=1+1;``: la
    segunda no empieza con ``=``, pero Excel y LibreOffice en español separan
    por ``;`` y ahí ``=1+1`` es una celda. Por eso se antepone ``'`` a cada
    ``= + - @`` que queda al comienzo del texto o justo después de un
    separador (``,`` ``;`` tabulador ``|``), una comilla o un salto de línea;
    también a un texto que empieza con tabulador o retorno de carro. El
    resto no cambia: ``a=b`` y ``0.5`` quedan igual. Lo usa ``tutor calificar``
    para ``calificaciones.csv``.
    """
    # Donde una celda puede empezar: el comienzo, o tras un separador, una comilla o un salto de línea
    # (con espacios de por medio); ahí, lo que abre una fórmula (también en ancho completo) lleva «'».
    inicio_de_formula = "(^|[,;\t|\r\n\"'\u2028\u2029])([ \u00a0\u3000]*)([=+\\-@\uff1d\uff0b\uff0d\uff20])"
    texto = str(valor)
    if texto[:1] in ("\t", "\r"):
        texto = "'" + texto
    return re.sub(inicio_de_formula, lambda m: f"{m.group(1)}{m.group(2)}'{m.group(3)}", texto)


def resumen_asignaciones(raiz: Path | None = None) -> list[dict]:
    """Cada asignación publicada en ``exercises/`` con sus puntos automáticos y a mano.

    Lo muestra la lección 00; los puntos salen de los metadatos de nbgrader.
    """
    raiz = raiz or raiz_curso()
    filas = []
    for asig in asignaciones(raiz):
        ruta = raiz / "exercises" / asig / f"{asig}.ipynb"
        if not ruta.is_file():
            continue
        nb = nbformat.read(ruta, as_version=4)
        auto, manual = puntos(nb)
        filas.append({"asignacion": asig, "ruta": str(ruta.relative_to(raiz)), "automaticos": auto, "a_mano": manual})
    return filas
