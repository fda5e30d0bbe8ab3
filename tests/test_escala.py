"""Una clase grande con piezas de verdad: PostgreSQL como libreta de nbgrader y Dask repartiendo.

Se levanta un servidor PostgreSQL (``initdb`` + ``pg_ctl`` del paquete de
Debian, en una carpeta temporal, con socket Unix y 127.0.0.1), un planificador
de Dask y dos trabajadores (``dask scheduler`` / ``dask worker``, procesos
aparte en 127.0.0.1). Luego, como un instructor: ``tutor calificar --cluster
... --gradebook postgresql://...``, matando un trabajador a media corrida,
interrumpiendo una corrida y volviendo a empezar. Se comprueba cada vez que
cada estudiante tiene exactamente una nota en la libreta, igual a la de una
calificación en serie, y que ``nbgrader export`` y la API de formgrader la leen.
"""

from __future__ import annotations

import copy
import csv
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pytest

from tutor_lib.calificacion.motor.calificador import CursoTemporal, Limites, entrega_de_referencia, fuente

RAIZ = Path(__file__).resolve().parents[1]
ASIG = "ej11_qlora"  # la asignación que más rápido se califica (python -m benchmarks calificacion)
LIMITES = ["--tiempo-celda", "30", "--tiempo-total", "240"]
BIN = Path(sys.executable).parent


def _puerto_libre() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _esperar(condicion, segundos: float, que: str, cada: float = 0.2):
    limite = time.monotonic() + segundos
    while time.monotonic() < limite:
        valor = condicion()
        if valor:
            return valor
        time.sleep(cada)
    raise AssertionError(f"no pasó en {segundos} s: {que}")


# --- PostgreSQL de verdad ------------------------------------------------------------


@pytest.fixture(scope="module")
def postgres():
    """Un servidor PostgreSQL propio; devuelve (url, carpeta del socket, puerto). Se detiene al final."""
    binarios = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    initdb = Path(binarios[-1]) if binarios else (Path(shutil.which("initdb")) if shutil.which("initdb") else None)
    if initdb is None:
        pytest.fail("Falta PostgreSQL (initdb): sudo apt-get install -y postgresql. .ci/run lo instala.")
    pg_ctl = initdb.parent / "pg_ctl"
    d = Path(tempfile.mkdtemp(prefix="tutor-pg-"))
    como: list[str] = []
    if os.geteuid() == 0:  # initdb no corre como root: el servidor es del usuario postgres
        os.chmod(d, 0o755)
        shutil.chown(d, "postgres")
        como = ["runuser", "-u", "postgres", "--"]
    datos, sockets, puerto = d / "datos", d / "s", _puerto_libre()
    subprocess.run([*como, "mkdir", "-m", "0700", str(sockets)], check=True)
    subprocess.run([*como, str(initdb), "-D", str(datos), "-A", "trust", "-U", "tutor", "-E", "UTF8", "--no-sync"],
                   check=True, capture_output=True)
    opciones = f"-k {sockets} -p {puerto} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
    subprocess.run([*como, str(pg_ctl), "-D", str(datos), "-l", str(d / "registro.log"), "-w", "-t", "60",
                    "-o", opciones, "start"], check=True, capture_output=True)
    try:
        subprocess.run([str(initdb.parent / "createdb"), "-h", str(sockets), "-p", str(puerto), "-U", "tutor", "libreta"],
                       check=True, capture_output=True)
        yield f"postgresql://tutor@/libreta?host={sockets}&port={puerto}", sockets, puerto
    finally:
        subprocess.run([*como, str(pg_ctl), "-D", str(datos), "-m", "immediate", "stop"], capture_output=True)
        shutil.rmtree(d, ignore_errors=True)


# --- Dask de verdad ------------------------------------------------------------------


class Grupo:
    """Un planificador de Dask y sus trabajadores, cada uno un proceso aparte en 127.0.0.1."""

    def __init__(self, carpeta: Path):
        self.carpeta = carpeta
        archivo = carpeta / "planificador.json"
        self.planificador = subprocess.Popen(
            [str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--dashboard-address", "127.0.0.1:0",
             "--scheduler-file", str(archivo)],
            stdout=subprocess.DEVNULL, stderr=open(carpeta / "planificador.log", "w"), start_new_session=True)
        _esperar(lambda: archivo.is_file() and archivo.stat().st_size > 0, 60, "el planificador de Dask arranca")
        self.direccion = json.loads(archivo.read_text())["address"]
        self.trabajadores: dict[str, subprocess.Popen] = {}

    def trabajador(self, nombre: str) -> subprocess.Popen:
        proc = subprocess.Popen(
            [str(BIN / "dask"), "worker", self.direccion, "--nthreads", "1", "--no-nanny", "--no-dashboard", "--dashboard-address", "127.0.0.1:0",
             "--memory-limit", "0", "--name", nombre, "--host", "127.0.0.1"],
            stdout=subprocess.DEVNULL, stderr=open(self.carpeta / f"{nombre}.log", "w"), start_new_session=True)
        self.trabajadores[nombre] = proc
        return proc

    def esperar_trabajadores(self, n: int) -> None:
        from distributed import Client

        with Client(self.direccion, timeout=30) as c:
            c.wait_for_workers(n, timeout=120)

    def cerrar(self) -> None:
        for proc in [*self.trabajadores.values(), self.planificador]:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.fixture(scope="module")
def grupo(tmp_path_factory):
    g = Grupo(tmp_path_factory.mktemp("dask"))
    try:
        g.trabajador("t1")
        g.trabajador("t2")
        g.esperar_trabajadores(2)
        yield g
    finally:
        g.cerrar()


# --- la clase --------------------------------------------------------------------------


def _procesos() -> list[tuple[int, int, str]]:
    """(pid, ppid, línea de órdenes) de cada proceso."""
    filas = []
    for linea in subprocess.run(["ps", "-ww", "-eo", "pid=,ppid=,args="], capture_output=True, text=True).stdout.splitlines():
        partes = linea.split(None, 2)
        if len(partes) == 3:
            filas.append((int(partes[0]), int(partes[1]), partes[2]))
    return filas


def _descendientes(pid: int) -> dict[int, str]:
    """Los procesos que cuelgan de ``pid`` (hijos, nietos...), con su línea de órdenes."""
    procesos = _procesos()
    hijos: dict[int, list[int]] = {}
    for p, pp, _ in procesos:
        hijos.setdefault(pp, []).append(p)
    args = {p: a for p, _, a in procesos}
    encontrados, pendientes = {}, list(hijos.get(pid, []))
    while pendientes:
        p = pendientes.pop()
        encontrados[p] = args[p]
        pendientes += hijos.get(p, [])
    return encontrados


def _calificando_en(pid: int) -> str | None:
    """El estudiante que el proceso ``pid`` (o un hijo suyo) califica ahora con ``nbgrader autograde``."""
    procesos = _procesos()
    padre = {p: pp for p, pp, _ in procesos}
    for p, _, args in procesos:
        if "nbgraderapp" in args and "autograde" in args and "--student" in args:
            while p > 1 and p != pid:
                p = padre.get(p, 1)
            if p == pid:
                return args.split("--student", 1)[1].split()[0]
    return None


@pytest.fixture(scope="module")
def entregas(tmp_path_factory, postgres):
    """Cuatro notebooks: dos resueltos, uno vacío y uno resuelto que además ataca la libreta."""
    _, sockets, puerto = postgres
    with CursoTemporal(ASIG, limites=Limites(tiempo_celda=30, tiempo_total=240)) as curso:
        liberado = curso.liberado
        referencia = json.loads(nbformat.writes(entrega_de_referencia(nbformat.read(fuente(ASIG), as_version=4),
                                                                      liberado)))
        vacia = json.loads(nbformat.writes(liberado))
        hostil = copy.deepcopy(referencia)
        ataque = (
            "import socket\n"
            f"for familia, destino in [(socket.AF_UNIX, {str(sockets / f'.s.PGSQL.{puerto}')!r}),"
            f" (socket.AF_INET, ('127.0.0.1', {puerto}))]:\n"
            "    s = socket.socket(familia)\n"
            "    s.settimeout(3)\n"
            "    try:\n"
            "        s.connect(destino)\n"
            "        print('CONECTADO a la libreta', destino)\n"
            "    except OSError as e:\n"
            "        print('BLOQUEADO', type(e).__name__)\n"
        )
        hostil["cells"].append({"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                                "source": ataque, "id": "ataque-libreta"})
        raiz = tmp_path_factory.mktemp("entregas")
        # La nota en serie de cada notebook distinto: la vara con que se mide la corrida repartida.
        serie = {}
        for nombre, nb in [("referencia", referencia), ("vacia", vacia), ("hostil", hostil)]:
            ruta = raiz / f"{nombre}.ipynb"
            ruta.write_text(json.dumps(nb))
            cal = curso.calificar(nombre, ruta, retroalimentacion=False)
            assert cal.estado == "calificado", cal.mensaje
            serie[nombre] = cal.puntos
    assert serie["referencia"] > 0 and serie["vacia"] == 0 and serie["hostil"] == serie["referencia"]
    carpeta = raiz / "clase"
    for est, cual in {"ana": "referencia", "bea": "referencia", "eva": "vacia", "hugo": "hostil"}.items():
        (carpeta / est).mkdir(parents=True)
        shutil.copy(raiz / f"{cual}.ipynb", carpeta / est / f"{ASIG}.ipynb")
    return carpeta, serie, raiz


def _tutor_calificar(carpeta, salida, postgres_url, grupo, **popen):
    return subprocess.Popen(
        [str(BIN / "tutor"), "calificar", ASIG, str(carpeta), "--json", "--salida", str(salida),
         "--cluster", grupo.direccion, "--gradebook", postgres_url, *LIMITES],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=RAIZ, **popen)


def _notas_en_la_libreta(url: str) -> dict[str, list[float]]:
    """Cada estudiante con la lista de sus notas de ``ASIG`` en la libreta (debe tener una sola)."""
    from nbgrader.api import Gradebook

    with Gradebook(url) as gb:
        notas: dict[str, list[float]] = {}
        for sub in gb.assignment_submissions(ASIG):
            notas.setdefault(sub.student.id, []).append(float(sub.score))
        return notas


def _linea_de(salida: Path, estudiantes: set[str]):
    ruta = salida / "avance.jsonl"
    if not ruta.is_file():
        return None
    for linea in ruta.read_text().splitlines():
        try:
            d = json.loads(linea)
        except ValueError:
            continue
        if d["estudiante"] in estudiantes:
            return d
    return None


@pytest.fixture(scope="module")
def corrida_con_muerte(postgres, grupo, entregas, tmp_path_factory):
    """La clase con ``--cluster``: a media corrida se mata el trabajador t1 (sin aviso)."""
    url = postgres[0]
    carpeta = entregas[0]
    salida = tmp_path_factory.mktemp("notas") / "ej11"
    t1 = grupo.trabajadores["t1"]
    proc = _tutor_calificar(carpeta, salida, url, grupo)
    # cuando t1 ya tiene un nbgrader calificando a alguien
    _esperar(lambda: _calificando_en(t1.pid) or proc.poll() is not None, 240, "t1 empieza a calificar")
    assert proc.poll() is None, proc.communicate()
    time.sleep(1.0)
    interrumpido = _calificando_en(t1.pid)
    assert interrumpido in ("ana", "bea", "eva", "hugo")
    vivos = _descendientes(t1.pid)  # nbgrader, su kernel y su juez, y el servidor de precarga de t1 con sus hijos
    assert any("tutor_lib.calificacion.motor.precarga" in a for a in vivos.values()), vivos
    os.killpg(t1.pid, signal.SIGKILL)
    t1.wait()
    salida_json, errores = proc.communicate(timeout=600)
    assert proc.returncode == 0, errores[-3000:]
    assert "Traceback" not in errores, errores[-3000:]
    grupo.trabajador("t3")  # un trabajador nuevo en lugar del muerto, para las pruebas que siguen
    return json.loads(salida_json), salida, interrumpido, t1.pid, vivos


def test_un_trabajador_muere_y_cada_estudiante_tiene_una_nota(postgres, entregas, corrida_con_muerte,
                                                              tmp_path_factory):
    url = postgres[0]
    _, serie, _ = entregas
    datos, salida, interrumpido, pid_t1, vivos = corrida_con_muerte
    esperado = {"ana": serie["referencia"], "bea": serie["referencia"], "eva": 0.0, "hugo": serie["hostil"]}
    assert {e: d["puntos"] for e, d in datos["estudiantes"].items()} == esperado
    assert all(d["estado"] == "calificado" for d in datos["estudiantes"].values())
    assert datos["progreso"]["trabajadores"] == 2 and datos["progreso"]["calificadas"] == 4
    assert datos["progreso"]["fallidas"] == 0 and datos["progreso"]["reutilizadas"] == 0
    assert "***" not in datos["libreta"] and datos["libreta"].startswith("postgresql://")

    # Lo que calificaba t1 cuando murió lo terminó t2; en la libreta, una sola nota por estudiante.
    lineas = [json.loads(l) for l in (salida / "avance.jsonl").read_text().splitlines()]
    assert sorted(l["estudiante"] for l in lineas) == sorted(esperado)
    assert next(l for l in lineas if l["estudiante"] == interrumpido)["trabajador"] != f"{socket.gethostname()}:{pid_t1}"
    assert _notas_en_la_libreta(url) == {e: [p] for e, p in esperado.items()}
    # nbgrader murió con t1: nada de esa calificación sigue vivo (ni nbgrader, ni su kernel, ni su juez)
    huerfanos = [a for _, _, a in _procesos() if "tutor_lib.calificacion.juez.proceso" in a or
                 ("ipykernel_launcher" in a and "/tutor-s-" in a) or ("nbgraderapp" in a and "autograde" in a)]
    assert not huerfanos, huerfanos
    # ni nada de lo que colgaba de t1 al morir (los hijos del servidor de precarga llevan la línea de órdenes
    # del servidor, no la de nbgrader: se buscan por pid)
    ahora = {p: a for p, _, a in _procesos()}
    assert not {p: a for p, a in vivos.items() if ahora.get(p) == a}, vivos

    # El código del estudiante no llega a la libreta: ni por su socket Unix ni por TCP.
    hugo = nbformat.read(salida / "autocalificados" / "hugo.ipynb", as_version=4)
    salida_ataque = "".join(o.get("text", "") for c in hugo.cells if "AF_UNIX" in c.source
                            for o in c.get("outputs", []))
    assert salida_ataque.count("BLOQUEADO") == 2 and "CONECTADO" not in salida_ataque, salida_ataque
    for est in esperado:
        assert (salida / "retroalimentacion" / est / f"{ASIG}.html").is_file()

    # nbgrader export y la API de formgrader leen las mismas notas desde PostgreSQL.
    curso = tmp_path_factory.mktemp("exportar")
    (curso / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.CourseDirectory.root = {str(curso)!r}\nc.CourseDirectory.db_url = {url!r}\n")
    r = subprocess.run([sys.executable, "-m", "nbgrader", "export", "--to", str(curso / "notas.csv")],
                       cwd=curso, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    with open(curso / "notas.csv", encoding="utf-8") as f:
        exportadas = {fila["student_id"]: float(fila["score"]) for fila in csv.DictReader(f)
                      if fila["assignment"] == ASIG}
    assert exportadas == esperado
    api = subprocess.run([sys.executable, "-c", (
        "import json, sys\n"
        "from traitlets.config import Config\n"
        "from nbgrader.apps.api import NbGraderAPI\n"
        "from nbgrader.coursedir import CourseDirectory\n"
        "c = Config(); c.CourseDirectory.root = sys.argv[1]; c.CourseDirectory.db_url = sys.argv[2]\n"
        "api = NbGraderAPI(CourseDirectory(config=c), config=c)\n"
        "print(json.dumps({s['student']: s['score'] for s in api.get_submissions(sys.argv[3])}))\n"),
        str(curso), url, ASIG], capture_output=True, text=True, timeout=120)
    assert api.returncode == 0, api.stderr[-2000:]
    assert json.loads(api.stdout.strip().splitlines()[-1]) == esperado


def test_una_corrida_interrumpida_sigue_sin_repetir_notas(postgres, grupo, entregas, corrida_con_muerte):
    url = postgres[0]
    carpeta, serie, raiz = entregas
    salida = corrida_con_muerte[1]  # la primera corrida, completa: la de la prueba anterior
    grupo.esperar_trabajadores(2)
    csv_primera = (salida / "calificaciones.csv").read_text(encoding="utf-8")

    # Dos estudiantes cambian su entrega; la corrida se corta (el proceso muere) a media calificación.
    shutil.copy(raiz / "referencia.ipynb", carpeta / "eva" / f"{ASIG}.ipynb")
    shutil.copy(raiz / "vacia.ipynb", carpeta / "bea" / f"{ASIG}.ipynb")
    segunda = _tutor_calificar(carpeta, salida, url, grupo, start_new_session=True)
    pids = [p.pid for p in grupo.trabajadores.values() if p.poll() is None]
    _esperar(lambda: any(_calificando_en(p) for p in pids) or segunda.poll() is not None, 240,
             "la segunda corrida empieza a calificar")
    assert segunda.poll() is None, segunda.communicate()
    assert _linea_de(salida, {"eva", "bea"}) is None  # todavía no terminó ninguna de las dos
    os.killpg(segunda.pid, signal.SIGKILL)
    segunda.communicate()

    tercera = _tutor_calificar(carpeta, salida, url, grupo)
    salida_json, errores = tercera.communicate(timeout=600)
    assert tercera.returncode == 0, errores[-3000:]
    datos = json.loads(salida_json)
    esperado = {"ana": serie["referencia"], "bea": 0.0, "eva": serie["referencia"], "hugo": serie["hostil"]}
    assert {e: d["puntos"] for e, d in datos["estudiantes"].items()} == esperado
    # ana y hugo no cambiaron: sus notas vienen de la corrida anterior; solo se califican eva y bea
    assert datos["progreso"]["reutilizadas"] == 2 and datos["progreso"]["calificadas"] == 2
    assert _notas_en_la_libreta(url) == {e: [p] for e, p in esperado.items()}
    # ninguna corrida pisó a otra: la primera y la interrumpida quedaron a un lado, con fecha
    anteriores = sorted(salida.parent.glob("ej11.anterior-*"))
    assert len(anteriores) == 2
    assert (anteriores[0] / "calificaciones.csv").read_text(encoding="utf-8") == csv_primera
    for est in esperado:
        assert (salida / "retroalimentacion" / est / f"{ASIG}.html").is_file()


def test_errores_claros_de_la_libreta_y_del_cluster(tmp_path, entregas, postgres):
    carpeta = entregas[0]

    def tutor(*args):
        return subprocess.run([str(BIN / "tutor"), "calificar", ASIG, str(carpeta), "--salida", str(tmp_path / "n"), *args],
                              capture_output=True, text=True, cwd=RAIZ, timeout=120)

    casos = [
        (["--gradebook", "mysql://x@y/z"], "no es una libreta"),
        (["--gradebook", f"postgresql://tutor@/nada?host={tmp_path}&port=1"], "No pude abrir la libreta"),
        (["--cluster", "tcp://127.0.0.1:1"], "indica --gradebook postgresql"),
        (["--cluster", "tcp://127.0.0.1:1", "--procesos", "2"], "no los dos"),
        (["--cluster", f"tcp://127.0.0.1:{_puerto_libre()}", "--gradebook", postgres[0]], "No pude conectarme al planificador"),
    ]
    for args, texto in casos:
        r = tutor(*args)
        assert r.returncode == 2 and texto in r.stderr and "Traceback" not in r.stderr, (args, r.stderr[-2000:])
