"""Entregas hostiles: una clase entera con atacantes y compañeros honestos, calificada de verdad.

Cada ataque es una entrega construida aquí mismo (la solución de referencia o el
ejercicio sin resolver, más celdas del atacante) y toda la clase se califica en
una sola corrida de ``tutor calificar`` con dos entregas a la vez y con
``TMPDIR`` fuera de ``/tmp``. Para cada ataque se comprueba que:

* su nota es la del mismo notebook sin el ataque (ni un punto más);
* los compañeros honestos conservan la suya;
* ningún archivo fuera de su carpeta cambia: archivos canario con hash y modo
  conocidos en la carpeta personal del instructor y en la carpeta temporal,
  las entregas originales de todos, el repositorio;
* ningún archivo de salida (CSV, JSON, retroalimentación) contiene una línea
  de las pruebas ocultas;
* lo que el ataque «encontró» (las líneas ``FUGA``) nunca aparece: el ataque
  imprime ``FUGA: ...`` solo si logra lo que intenta, y ``ATAQUE-FIN`` al final
  para demostrar que corrió.

Las clases de ataque son las del issue «Grading you can trust» (1 a 8); la
guía del instructor (``course/GUIA_INSTRUCTOR.md``) nombra esta prueba para
cada garantía.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import os
import socket
import stat
import subprocess
import sys
import tempfile
import textwrap
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

from tutor_lib.calificacion.motor.calificador import entrega_de_referencia, fuente
from tutor_lib.calificacion.motor.clase import calificar_clase

RAIZ = Path(__file__).resolve().parents[1]
ASIG = "ej11_qlora"  # la asignación que más rápido se califica
TOKEN_EN_LINEA = "tutor-token-de-linea-de-ordenes-7f3a"
SECRETO_EN_ENTORNO = "postgresql://instructor:clave-secreta-91b2@localhost/notas"


def _nbg(celda) -> dict:
    return celda.get("metadata", {}).get("nbgrader", {}) or {}


def _hash_y_modo(ruta: Path) -> tuple[str, int]:
    st = os.lstat(ruta)
    return hashlib.sha256(ruta.read_bytes()).hexdigest(), stat.S_IMODE(st.st_mode)


def _lineas_ocultas(nb) -> list[str]:
    lineas, dentro = [], False
    for celda in nb.cells:
        for linea in celda.source.splitlines():
            if "BEGIN HIDDEN TESTS" in linea:
                dentro = True
            elif "END HIDDEN TESTS" in linea:
                dentro = False
            elif dentro and len(linea.strip()) > 24:
                lineas.append(linea.strip())
    return lineas


def _con_celdas(nb, *codigos: str):
    """``nb`` con celdas del atacante justo después de la primera celda de solución."""
    nuevo = nbformat.from_dict(json.loads(nbformat.writes(nb)))
    primera = next(i for i, c in enumerate(nuevo.cells) if _nbg(c).get("solution") and c.cell_type == "code")
    for k, codigo in enumerate(codigos):
        nuevo.cells.insert(primera + 1 + k, nbformat.v4.new_code_cell(textwrap.dedent(codigo)))
    return nuevo


# --- los ataques -----------------------------------------------------------------

# 1. Enlaces plantados en la carpeta de trabajo para desviar lo que escribe nbgrader.
ENLACES = """
import os, pathlib
aqui = pathlib.Path.cwd()
objetivos = [{canario_home!r}, {canario_tmp!r}, {original_victima!r}, os.path.expanduser("~/.bashrc"),
             str(aqui.parent.parent / "privado" / "gradebook.db")]
for i, destino in enumerate(objetivos):
    for nombre in ("{asig}.ipynb", f"enlace{{i}}", "aislamiento.json"):
        try:
            os.symlink(destino, aqui / nombre)
        except OSError:
            pass
for destino in objetivos:
    for modo in ("a", "w"):
        try:
            with open(destino, modo) as f:
                f.write("echo atacado\\n")
            print("FU" "GA: escribí en", destino)
        except OSError:
            pass
    try:
        os.chmod(destino, 0o777)
        print("FU" "GA: cambié permisos de", destino)
    except OSError:
        pass
print("ATAQUE" "-FIN")
"""

# 2. Silenciar las pruebas: transformador de AST, funciones parcheadas, objetos que siempre comparan igual.
SILENCIAR = """
import ast, builtins, math
import IPython, torch

class _SinAsserts(ast.NodeTransformer):
    def visit_Assert(self, nodo):
        return ast.Pass()

IPython.get_ipython().ast_transformers.append(_SinAsserts())
math.isclose = lambda *a, **k: True
torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True

class _Todo(float):
    def __eq__(self, otro): return True
    def __ne__(self, otro): return False
    def __lt__(self, otro): return False
    def __gt__(self, otro): return False
    __le__ = __ge__ = __eq__
    __hash__ = float.__hash__
    def __abs__(self): return _Todo(0)
    def __sub__(self, otro): return _Todo(0)
    __rsub__ = __add__ = __radd__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = __sub__

for _nombre, _valor in list(globals().items()):
    if callable(_valor) and getattr(_valor, "__module__", None) == "__main__" and not isinstance(_valor, type):
        globals()[_nombre] = lambda *a, **k: _Todo(0)
print("ATAQUE" "-FIN")
"""

# 3. Buscar las pruebas ocultas: en el disco, en otros procesos y en los pedidos del juez.
BUSCAR_OCULTAS = """
import base64, json, os, pathlib
buscadas = json.loads(base64.b64decode({ocultas_b64!r}))  # en base64: la retroalimentación muestra este código
def revisar(ruta):
    try:
        texto = pathlib.Path(ruta).read_text(errors="ignore")
    except (OSError, ValueError):
        return
    if any(b in texto for b in buscadas):
        print("FU" "GA: pruebas ocultas en", ruta)
raices = [pathlib.Path.cwd().parent.parent, pathlib.Path({raiz!r}), pathlib.Path("/tmp"), pathlib.Path.home()]
vistos = 0
for raiz in raices:
    for base, carpetas, archivos in os.walk(raiz):
        for a in archivos:
            vistos += 1
            if vistos < 20000 and (a.endswith((".ipynb", ".db", ".json", ".html", ".py")) or "." not in a):
                revisar(os.path.join(base, a))
for pid in os.listdir("/proc"):
    if pid.isdigit():
        for archivo in ("cmdline", "environ"):
            revisar(f"/proc/{{pid}}/{{archivo}}")
# Anotar todo lo que el juez le pide a este kernel (los pedidos traen el código de las pruebas).
import tutor_lib.calificacion.juez.puente as puente
_responder = puente.responder
def _espiar(pedido, espacio=None):
    print("ESPI" "ADO:", pedido)
    with open("espiado.txt", "a") as f:
        f.write(pedido + "\\n")
    return _responder(pedido, espacio)
puente.responder = _espiar
print("ATAQUE" "-FIN")
"""

# 4. Compañeros: sus carpetas, sus archivos de conexión, sus entregas.
COMPANEROS = """
import os, pathlib
base = pathlib.Path.cwd().parent.parent
for sub in ("trabajo", "ejecucion", "juez", "curso", "privado"):
    carpeta = base / sub
    try:
        otros = [p for p in carpeta.iterdir() if p.name != pathlib.Path.cwd().name]
    except OSError:
        continue
    for p in otros:
        print("FU" "GA: veo", p)
for raiz in (pathlib.Path({tmp_clase!r}), pathlib.Path({carpeta_entregas!r})):
    try:
        for p in raiz.rglob("*"):
            if p.suffix in (".json", ".ipynb") and "kernel" in p.name or p.name.endswith(".ipynb"):
                try:
                    p.read_text()
                    print("FU" "GA: leí", p)
                except OSError:
                    pass
    except OSError:
        pass
print("ATAQUE" "-FIN")
"""

# 5. Root de verdad: /proc, /sys, /dev, procesos y variables del anfitrión, sockets Unix.
ROOT = """
import glob, os, socket
for ruta in ("/proc/sys/vm/overcommit_ratio", "/proc/sysrq-trigger", "/sys/kernel/mm/transparent_hugepage/enabled",
             "/proc/sys/kernel/core_pattern"):
    try:
        fd = os.open(ruta, os.O_WRONLY)  # solo abrir: no se escribe nada
        os.close(fd)
        print("FU" "GA: puedo escribir", ruta)
    except OSError:
        pass
for ruta in glob.glob("/dev/pts/*") + glob.glob("/dev/tty*") + ["/dev/console"]:
    try:
        fd = os.open(ruta, os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK)
        os.close(fd)
        print("FU" "GA: terminal", ruta)
    except OSError:
        pass
for pid in os.listdir("/proc"):
    try:
        if {token!r} in open(f"/proc/{{pid}}/cmdline").read():
            print("FU" "GA: token en la línea de órdenes de", pid)
    except OSError:
        pass
if any({secreto!r} in str(v) for v in os.environ.values()):
    print("FU" "GA: secreto en el entorno")
try:
    s = socket.socket(socket.AF_UNIX)
    s.connect({socket_unix!r})
    print("FU" "GA: socket del anfitrión")
except OSError:
    pass
if os.geteuid() == 0 and os.path.exists("/root") and os.access("/root", os.W_OK):
    print("FU" "GA: root puede escribir en /root")
print("ATAQUE" "-FIN")
"""

# 6. Dañar al instructor cuando mira: HTML y JavaScript en salidas y markdown.
HTML_HOSTIL = """
from IPython.display import HTML, Javascript, display
display(HTML('<script>document.title="atacado"</script><img src=x onerror="alert(1)">'))
display(Javascript('alert("atacado")'))
print("ATAQUE" "-FIN")
"""
MARKDOWN_HOSTIL = '<script>alert("md")</script>\n\n<img src="x" onerror="alert(2)"> <a href="javascript:alert(3)">clic</a>'

# 7. Agotar: muchos procesos, /tmp sin fondo, salida enorme.
AGOTAR = """
import os, time
hijos = []
for _ in range(3000):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    hijos.append(pid)
if len(hijos) >= 3000:
    print("FU" "GA: 3000 procesos sin límite")
for pid in hijos:
    try:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    except OSError:
        pass
escritos = 0
try:
    with open("/tmp/relleno", "wb") as f:
        for _ in range(600):
            f.write(b"0" * 2**20)
            escritos += 1
except OSError:
    pass
if escritos >= 600:
    print("FU" "GA: 600 MiB en /tmp")
try:
    os.remove("/tmp/relleno")
except OSError:
    pass
print("ATAQUE" "-FIN")
import sys
for _ in range(40):  # 40 MiB de salida: se guarda solo el primer MB de la celda
    sys.stdout.write("x" * 2**20)
"""

# 8. Falsificar el informe de aislamiento.
FALSIFICAR = """
import json, os, pathlib
falso = json.dumps({{"completo": True, "protecciones": ["FALSIFICADO"]}})
base = pathlib.Path.cwd().parent.parent
for ruta in [pathlib.Path.cwd() / "aislamiento.json", base / "privado" / "informes" / (pathlib.Path.cwd().name + ".json"),
             base / "ejecucion" / pathlib.Path.cwd().name / "aislamiento.json"]:
    try:
        ruta.parent.mkdir(parents=True, exist_ok=True)
        ruta.write_text(falso)
    except OSError:
        pass
print("ATAQUE" "-FIN")
"""

# 9. Nacer de un proceso ya cargado (tutor_lib.calificacion.motor.precarga): secretos en la memoria heredada, el
# servidor y su socket.
# Se busca cada secreto por un prefijo y su sha256: el texto entero nunca está en esta celda (si estuviera, la
# búsqueda se encontraría a sí misma).
PRECARGA = """
import base64, hashlib, json, os, socket, stat
buscadas = json.loads(base64.b64decode({huellas_b64!r}))
encontradas = set()
regiones = []
with open("/proc/self/maps") as f:
    for linea in f:
        campos = linea.split()
        inicio, fin = (int(x, 16) for x in campos[0].split("-"))
        if campos[1].startswith("r") and fin - inicio < 2**32:
            regiones.append((inicio, fin))
leidos = 0
with open("/proc/self/mem", "rb", 0) as mem:
    for inicio, fin in regiones:
        pos = inicio
        while pos < fin:
            try:
                mem.seek(pos)
                datos = mem.read(min(2**24 + 4096, fin - pos))
            except (OSError, ValueError, OverflowError):
                break
            leidos += len(datos)
            for prefijo, largo, huella in buscadas:
                p = bytes.fromhex(prefijo)
                i = datos.find(p)
                while i >= 0:
                    if hashlib.sha256(datos[i:i + largo]).hexdigest() == huella:
                        encontradas.add(huella[:12])
                    i = datos.find(p, i + 1)
            pos += 2**24
print("MEMORIA-LEIDA", leidos > 50 * 2**20)
for h in sorted(encontradas):
    print("FU" "GA: en mi memoria", h)
if any("PRECARGA" in k for k in os.environ):
    print("FU" "GA: la ruta del servidor de precarga en mi entorno")
import ipykernel
propios = os.path.dirname(ipykernel.get_connection_file())  # los sockets de este mismo kernel
for base in ("/tmp", "/run", "/var/tmp", "/dev/shm", os.path.expanduser("~")):
    for raiz, carpetas, archivos in os.walk(base):
        for a in archivos:
            ruta = os.path.join(raiz, a)
            if os.path.dirname(ruta) == propios:
                continue
            try:
                if stat.S_ISSOCK(os.lstat(ruta).st_mode):
                    s = socket.socket(socket.AF_UNIX)
                    s.settimeout(2)
                    s.connect(ruta)
                    print("FU" "GA: me conecté a", ruta)
            except OSError:
                pass
try:
    with open("/proc/net/unix") as f:
        sockets = [l.split()[-1] for l in f.read().splitlines()[1:] if len(l.split()) > 7]
    if any("tutor-p-" in x for x in sockets):
        print("FU" "GA: veo el socket del servidor de precarga")
except OSError:
    pass
print("ATAQUE" "-FIN")
"""


def _huellas(textos: list[str]) -> str:
    """[prefijo en hex, largo en bytes, sha256] de cada texto, en base64: lo que busca el ataque 9."""
    filas = []
    for texto in textos:
        b = texto.encode()
        filas.append([b[:10].hex(), len(b), hashlib.sha256(b).hexdigest()])
    return base64.b64encode(json.dumps(filas).encode()).decode()


@pytest.fixture(scope="module")
def clase(tmp_path_factory):
    """Arma la clase, la califica una vez y devuelve todo lo necesario para revisarla."""
    base = tmp_path_factory.mktemp("ataques")
    tmp_clase = base / "tmp-fuera-de-tmp"  # TMPDIR que no está debajo de /tmp
    tmp_clase.mkdir()
    entregas = base / "entregas"
    entregas.mkdir()
    fuente_nb = nbformat.read(fuente(ASIG), as_version=4)

    # Canarios: en la carpeta personal del instructor y en la carpeta temporal.
    canario_home = Path.home() / ".tutor-canario-ataques"
    canario_home.write_text("export PS1='instructor'\n")
    canario_home.chmod(0o600)
    canario_tmp = tmp_clase / "canario.txt"
    canario_tmp.write_text("no me toques\n")
    canario_tmp.chmod(0o644)
    servidor = socket.socket(socket.AF_UNIX)
    ruta_socket = str(tmp_clase / "anfitrion.sock")
    servidor.bind(ruta_socket)
    servidor.listen(1)
    durmiente = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)", TOKEN_EN_LINEA])

    from tutor_lib.calificacion.motor.calificador import CursoTemporal

    with CursoTemporal(ASIG) as curso:
        liberado = curso.liberado
    referencia = entrega_de_referencia(fuente_nb, liberado)
    vacia = liberado
    ocultas = _lineas_ocultas(fuente_nb)
    assert ocultas, "la asignación debería tener pruebas ocultas"

    def escribir(nombre: str, nb) -> Path:
        carpeta = entregas / nombre
        carpeta.mkdir()
        ruta = carpeta / f"{ASIG}.ipynb"
        nbformat.write(nb, ruta)
        return ruta

    honesta = escribir("honesta", referencia)
    escribir("vacia", vacia)
    datos = dict(asig=ASIG, canario_home=str(canario_home), canario_tmp=str(canario_tmp),
                 original_victima=str(honesta), raiz=str(RAIZ),
                 ocultas_b64=base64.b64encode(json.dumps(ocultas[:40]).encode()).decode(),
                 tmp_clase=str(tmp_clase), carpeta_entregas=str(entregas), token=TOKEN_EN_LINEA,
                 secreto=SECRETO_EN_ENTORNO, socket_unix=ruta_socket,
                 # el secreto del entorno de quien califica y las pruebas ocultas: ni en la memoria del kernel
                 huellas_b64=_huellas([SECRETO_EN_ENTORNO, *ocultas[:40]]))
    ataques = {
        # nombre: (base, código) — la nota esperada es la de la base
        "enlaces": ("referencia", ENLACES),
        "silenciar": ("vacia", SILENCIAR),
        "buscar_ocultas": ("referencia", BUSCAR_OCULTAS),
        "companeros": ("referencia", COMPANEROS),
        "root": ("referencia", ROOT),
        "html_hostil": ("referencia", HTML_HOSTIL),
        "agotar": ("referencia", AGOTAR),
        "falsificar": ("referencia", FALSIFICAR),
        "precarga": ("referencia", PRECARGA),
    }
    for nombre, (base_nb, codigo) in ataques.items():
        nb = _con_celdas(referencia if base_nb == "referencia" else vacia, codigo.format(**datos))
        if nombre == "html_hostil":
            nb.cells.insert(1, nbformat.v4.new_markdown_cell(MARKDOWN_HOSTIL))
        escribir(nombre, nb)
    # 6 y 8: nombres de carpeta hostiles, ids que chocan, enlaces como entrega, carpeta con «_».
    escribir('=HYPERLINK("x")', referencia)
    escribir("José", referencia)
    escribir("Jose", vacia)
    (entregas / "enlace_a_companero").symlink_to(entregas / "honesta")
    (entregas / "notebook_enlazado").mkdir()
    (entregas / "notebook_enlazado" / f"{ASIG}.ipynb").symlink_to(fuente(ASIG))
    escribir("_guion_bajo", referencia)

    originales = {p: _hash_y_modo(p) for p in entregas.rglob("*.ipynb") if not p.is_symlink()}
    canarios = {p: _hash_y_modo(p) for p in (canario_home, canario_tmp)}
    repo_antes = subprocess.run(["git", "status", "--porcelain", "--ignored"], cwd=RAIZ, capture_output=True,
                                text=True).stdout

    salida = base / "salida"
    viejo_tmp = tempfile.tempdir
    viejo_env = {k: os.environ.get(k) for k in ("TMPDIR", "DATABASE_URL")}
    tempfile.tempdir = str(tmp_clase)
    os.environ["TMPDIR"] = str(tmp_clase)
    os.environ["DATABASE_URL"] = SECRETO_EN_ENTORNO
    try:
        datos_clase = calificar_clase(ASIG, entregas, salida, procesos=2)
    finally:
        tempfile.tempdir = viejo_tmp
        for k, v in viejo_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        durmiente.kill()
        servidor.close()
    detalle = json.loads((salida / "detalle.json").read_text(encoding="utf-8"))
    resultado = dict(datos=datos_clase, detalle=detalle, salida=salida, entregas=entregas, ataques=ataques,
                     originales=originales, canarios=canarios, ocultas=ocultas, repo_antes=repo_antes,
                     tmp_clase=tmp_clase)
    yield resultado
    canario_home.unlink(missing_ok=True)


def _filas_csv(clase) -> list[dict]:
    import csv

    with open(clase["salida"] / "calificaciones.csv", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _retro(clase, id_: str) -> str:
    ruta = clase["salida"] / "retroalimentacion" / id_ / f"{ASIG}.html"
    assert ruta.is_file(), f"falta la retroalimentación de {id_}"
    return ruta.read_text(encoding="utf-8")


def _registro(clase, id_: str) -> str:
    ruta = clase["salida"] / "registros" / f"{id_}.log"
    return ruta.read_text(encoding="utf-8")[-3000:] if ruta.is_file() else "(sin registro)"


def test_los_honestos_conservan_su_nota(clase):
    honesta = clase["detalle"]["honesta"]
    assert honesta["estado"] == "calificado", (honesta["mensaje"], _registro(clase, "honesta"))
    automaticos = honesta["maximo"] - sum(p["maximo"] for p in honesta["partes"] if p["puntos"] is None)
    assert honesta["puntos"] == automaticos, honesta["partes"]
    assert clase["detalle"]["vacia"]["puntos"] == 0
    assert honesta["aislamiento"].get("completo"), honesta["aislamiento"]


@pytest.mark.parametrize("nombre", ["enlaces", "silenciar", "buscar_ocultas", "companeros", "root",
                                    "html_hostil", "agotar", "falsificar", "precarga"])
def test_un_ataque_no_suma_puntos_ni_encuentra_nada(clase, nombre):
    base, _ = clase["ataques"][nombre]
    esperado = clase["detalle"]["honesta" if base == "referencia" else "vacia"]["puntos"]
    d = clase["detalle"][nombre]
    assert d["estado"] == "calificado", (d["mensaje"], _registro(clase, nombre))
    assert d["puntos"] == esperado, (d["puntos"], esperado, d["partes"])
    texto = _retro(clase, nombre)
    assert "ATAQUE-FIN" in texto, "la celda del atacante debería haber corrido hasta el final"
    assert "FUGA" not in texto, [l for l in texto.splitlines() if "FUGA" in l][:5]
    assert "ESPIADO" not in texto
    assert d["aislamiento"].get("completo"), d["aislamiento"]
    assert "FALSIFICADO" not in json.dumps(d["aislamiento"])
    if nombre == "precarga":
        assert "MEMORIA-LEIDA True" in texto, "el ataque debía leer de verdad la memoria de su kernel"
    if nombre == "agotar":
        assert "salida recortada" in texto and len(texto) < 5 * 2**20, "la salida de 40 MiB debía quedar recortada"


def test_la_clase_se_califico_con_precarga(clase):
    """Los ataques de arriba atacan el camino rápido: cada kernel nació del servidor de precarga."""
    from tutor_lib.calificacion.motor.precarga import activa

    if not activa():
        pytest.skip("TUTOR_SIN_PRECARGA=1: esta corrida calificó sin precarga")
    sin = [e for e, d in clase["detalle"].items() if d["estado"] == "calificado" and not d["aislamiento"].get("precarga")]
    assert not sin, sin


def _sin_cache(estado: str) -> list[str]:
    return [l for l in estado.splitlines() if ".pytest_cache" not in l]


def test_nada_fuera_de_la_carpeta_del_estudiante_cambia(clase):
    for ruta, antes in {**clase["canarios"], **clase["originales"]}.items():
        assert _hash_y_modo(ruta) == antes, f"{ruta} cambió"
    assert (Path.home() / ".tutor-canario-ataques").read_text() == "export PS1='instructor'\n"
    despues = subprocess.run(["git", "status", "--porcelain", "--ignored"], cwd=RAIZ, capture_output=True,
                             text=True).stdout
    assert _sin_cache(despues) == _sin_cache(clase["repo_antes"]), "la calificación cambió archivos del repositorio"
    restos = [p.name for p in clase["tmp_clase"].iterdir() if p.name.startswith("tutor-")]
    assert not restos, f"quedaron carpetas temporales: {restos}"


def test_ninguna_salida_contiene_pruebas_ocultas(clase):
    ocultas = clase["ocultas"]
    for ruta in clase["salida"].rglob("*"):
        if ruta.is_file() and ruta.suffix in (".csv", ".json", ".html"):
            texto = ruta.read_text(encoding="utf-8", errors="ignore")
            sin_entidades = html.unescape(texto)
            for linea in ocultas:
                assert linea not in texto and linea not in sin_entidades, f"{ruta.name} contiene «{linea}»"


class _Etiquetas(HTMLParser):
    """Las etiquetas de verdad de una página (lo escapado como texto no cuenta)."""

    def __init__(self):
        super().__init__()
        self.peligros: list[str] = []
        self.csp = False

    def handle_starttag(self, etiqueta, atributos):
        if etiqueta in ("script", "iframe", "object", "embed"):
            self.peligros.append(etiqueta)
        for nombre, valor in atributos:
            if nombre.startswith("on"):
                self.peligros.append(f"{etiqueta} {nombre}")
            if nombre in ("href", "src", "action") and (valor or "").strip().lower().startswith("javascript:"):
                self.peligros.append(f"{etiqueta} {nombre}=javascript:")
        if etiqueta == "meta" and dict(atributos).get("http-equiv", "").lower() == "content-security-policy":
            self.csp = "script-src" not in dict(atributos).get("content", "") and "default-src 'none'" in dict(
                atributos).get("content", "")


def test_la_retroalimentacion_no_ejecuta_nada_al_abrirla(clase):
    for id_ in ("html_hostil", "honesta"):
        etiquetas = _Etiquetas()
        etiquetas.feed(_retro(clase, id_))
        assert not etiquetas.peligros, (id_, etiquetas.peligros)
        assert etiquetas.csp, f"{id_}: falta la Content-Security-Policy que no deja ejecutar nada"


def test_el_csv_no_trae_formulas_y_nadie_se_pierde(clase):
    filas = _filas_csv(clase)
    for fila in filas:
        for celda in fila.values():
            assert not str(celda).startswith(("=", "+", "@", "\t", "\r")), fila
    ids = [f["estudiante"] for f in filas]
    assert len(ids) == len(set(ids)), ids
    por_nombre = {f["nombre_original"].lstrip("'"): f for f in filas}
    assert '=HYPERLINK("x")' in por_nombre, sorted(por_nombre)
    honesta = clase["detalle"]["honesta"]["puntos"]
    assert float(por_nombre["José"]["puntos"]) == honesta and float(por_nombre["Jose"]["puntos"]) == 0
    omitidas = {o["nombre"]: o["motivo"] for o in clase["datos"].get("omitidas", [])}
    for nombre in ("enlace_a_companero", "notebook_enlazado", "_guion_bajo"):
        fila = por_nombre.get(nombre)
        assert nombre in omitidas or fila is not None, f"{nombre} no aparece ni calificado ni omitido"
        if nombre != "_guion_bajo" and fila is not None:
            assert fila["estado"] in ("inválido", "sin entrega") and float(fila["puntos"]) == 0, fila
