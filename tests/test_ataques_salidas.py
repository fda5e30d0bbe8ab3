"""Lo que el kernel escribe mientras el juez pregunta no se publica; las bombas de salida no llegan a quien califica.

Issue 39, puntos 3 y 5. Una clase real de ``ej02_datos`` (una de sus pruebas ocultas le pide al
kernel código con líneas ocultas: ``alumno.ejecutar('''...''')``) se califica una sola vez con
``tutor calificar`` (dos entregas a la vez, con el servidor de precarga), con compañeros honestos
y con estos ataques (cada uno, en su propia entrega):

* **publicar lo que pide el juez** (3a): una celda envuelve ``tutor_lib.calificacion.juez.puente.responder``
  y, mientras el juez pregunta, escribe cada pedido (código y valores) en una salida anterior con
  ``update_display``; con un ``execute_result`` crudo (por el socket iopub del kernel) con el
  ``display_id`` de otra celda; en el estado de un widget (``comm_open``); o con ``os.write`` a
  los descriptores 1 y 2;
* **el texto de una excepción o de un dato** (3b): una función del estudiante falla solo con la
  entrada de una prueba oculta y lleva el pedido en los argumentos de un ``AssertionError``, en el
  nombre de su clase y su ``__str__``, en un ``ValueError`` falso, en un ``SystemExit`` o en un
  ``KeyboardInterrupt``; o responde un dato dañado que lo trae adentro; o lo devuelve como dato
  plano para que el mensaje de una prueba lo muestre;
* **bombas de salida** (5): ``update_display`` de 8 salidas con 16 MiB cada una; ``display_data``
  con el ``display_id`` de salidas de otra celda (8 × 5 MiB) y 50 errores crudos de 1 MB; las
  mismas actualizaciones, 64 MiB impresos y 32 MiB a ``os.write(2)`` mientras el juez pregunta;
* **bombas de tubería** (5): 512 MiB a la copia de la salida estándar que hereda el kernel
  (``sys.stdout._original_stdstream_copy``); 256 MiB a la de errores y 64 MiB al descriptor 2.

Para cada ataque: su nota es la de su base (la entrega honesta, sin las partes que el ataque hace
fallar a propósito; un control que falla igual con un mensaje inocente muestra qué ve entonces
quien estudia); ninguna línea oculta (las de más de 24 caracteres entre ``BEGIN``/``END HIDDEN
TESTS``) aparece en ningún archivo de la carpeta de salida: HTML, JSON, CSV, registros y notebooks
calificados (de estos, todo salvo el código de las celdas de prueba, que nbgrader restaura de su
libreta por diseño; la libreta, ``gradebook.db``, guarda las pruebas por diseño y no se revisa); el
notebook calificado no pasa del máximo de salida y el registro de nbgrader, de 64 KiB. La memoria
del proceso que califica (este) y la de los procesos de nbgrader y del juez quedan acotadas. Las
entregas honestas conservan su nota y sus mensajes, también la que muestra su avance con
``update_display`` y ``clear_output``.

Sin el arreglo (medido en una CPU de 2 núcleos compartida): las 17 pruebas fallan; el proceso que
califica crecía 2682 MiB, un nbgrader llegaba a 583 MiB sobre el servidor de precarga, los
notebooks calificados pesaban 128, 64 y 40 MiB y los registros llegaban a su tope de 200 000
bytes. Con el arreglo: 130 MiB, 114 MiB, menos de 1 MiB y menos de 64 KiB.
"""

from __future__ import annotations

import html
import json
import os
import re
import textwrap
import threading
import time
from pathlib import Path

import nbformat
import pytest

from tutor_lib.calificacion.motor.calificador import entrega_de_referencia, fuente
from tutor_lib.calificacion.motor.clase import calificar_clase

RAIZ = Path(__file__).resolve().parents[1]
ASIG = "ej02_datos"
MIB = 2**20
#: Máximo de salida guardada por notebook (EjecutarConJuez.max_salida_total) más el código de la entrega.
MAX_NOTEBOOK = 10_000_000 + 2 * MIB
#: Cuánto puede crecer la memoria del proceso que califica (el de esta prueba) durante la clase.
MAX_CRECIMIENTO_PRINCIPAL = 400 * MIB
#: Cuánto puede pasar un proceso de nbgrader o del juez de lo que ocupa el servidor de precarga del que nacen.
MAX_SOBRE_PRECARGA = 320 * MIB


def _nbg(celda) -> dict:
    return celda.get("metadata", {}).get("nbgrader", {}) or {}


def _es_prueba(celda) -> bool:
    return celda.get("cell_type") == "code" and bool(_nbg(celda).get("grade")) and not _nbg(celda).get("solution")


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
    """``nb`` con celdas del atacante al final de las celdas de solución (antes de la revisión final)."""
    nuevo = nbformat.from_dict(json.loads(nbformat.writes(nb)))
    ultima = max(i for i, c in enumerate(nuevo.cells) if _nbg(c).get("solution") and c.cell_type == "code")
    for k, codigo in enumerate(codigos):
        nuevo.cells.insert(ultima + 1 + k, nbformat.v4.new_code_cell(textwrap.dedent(codigo).strip() + "\n"))
    return nuevo


# --- el espía: envuelve responder y anota cada pedido del juez -----------------------------------

ESPIA = """
import json, os
import tutor_lib.calificacion.juez.puente as _puente

_pedidos, _codigos = [], []
_responder_original = _puente.responder


def _anotar(pedido):
    try:
        contenido = json.loads(pedido)
        _codigos.append(contenido["codigo"])
        valores = _puente.datos.decodificar(contenido["valores"])
        _pedidos.append(contenido["codigo"] + "\\n" + repr(valores)[:3000])
    except Exception:
        _pedidos.append(pedido[:3000])


def _oculto():
    # El último pedido con código de una prueba oculta, sin lo que ya muestra la visible (va al principio).
    con = [c for c in _codigos if "DatasetDict(" in c] or _codigos[-1:] or [""]
    return con[-1][-700:]


def _linea_corta():
    lineas = [l.strip() for c in _codigos for l in c.splitlines() if "Dataset.from_dict(datos)" in l]
    return lineas[-1] if lineas else "nada"


def _todo():
    return "FU" "GA:\\n" + "\\n".join(_pedidos)
"""


def _espia(cuerpo: str) -> str:
    """El espía, una función ``_espia(pedido, espacio)`` con ``cuerpo`` y la instalación."""
    return ESPIA + "\n\ndef _espia(pedido, espacio=None):\n    _anotar(pedido)\n" + textwrap.indent(
        textwrap.dedent(cuerpo).strip(), "    ") + "\n    return _responder_original(pedido, espacio)\n\n\n" \
        "_puente.responder = _espia\nprint(\"ATAQUE\" \"-FIN\")\n"


KERNEL = "import IPython\n_k = IPython.get_ipython().kernel\n"


def _crudo(tipo: str, contenido: str) -> str:
    """Un mensaje del kernel mandado a mano por su socket iopub, con el pedido en curso como padre."""
    return f"_k.session.send(_k.iopub_socket, {tipo!r}, {contenido}, parent=_k.get_parent())"


# 3a. Lo que pide el juez, escrito en una salida anterior.
PUBLICAR = {
    "pantalla_actualizada": (
        'from IPython.display import display\n_pantalla = display("Mis notas", display_id=True)\n',
        _espia("_pantalla.update(_todo())"),
    ),
    "resultado_crudo_a_otra_celda": (
        'from IPython.display import display\ndisplay({"text/plain": "Mis notas"}, raw=True, display_id="otra-celda")\n',
        # una sola vez, con el pedido oculto (nbclient, sin el arreglo, tropieza en la segunda actualización)
        KERNEL + _espia('if "DatasetDict(" in _codigos[-1]:\n    ' + _crudo(
            "execute_result", '{"data": {"text/plain": _todo()}, "metadata": {}, "execution_count": 1, '
                              '"transient": {"display_id": "otra-celda"}}')),
    ),
    "estado_de_widget": (
        KERNEL + _espia(_crudo("comm_open", '{"comm_id": "c%d" % len(_pedidos), "target_name": "jupyter.widget", '
                                            '"data": {"state": {"_model_name": "Notas", "_model_module": "notas", '
                                            '"texto": _todo()}, "buffer_paths": []}}')),
    ),
    "descriptor_1_en_juez": (
        _espia('os.write(1, _todo().encode() + b"\\n")\nos.write(2, _todo().encode() + b"\\n")'),
    ),
}

# 3b. El texto de una excepción (o de un dato) lleva el pedido de la prueba oculta. Cada ataque falla
#     solo las partes de PARTES_FALLIDAS (la del DatasetDict falla igual en CONTROL_LOTES, con un
#     mensaje inocente): su nota es la de la honesta menos esas partes.
FALLAS = """
_preparar_original, _contar_relleno_original = preparar, contar_relleno


def preparar(datos, funcion_tokenizar):
    if type(datos).__name__ == "DatasetDict":
        {con_datasetdict}
    return _preparar_original(datos, funcion_tokenizar)


def contar_relleno(longitudes, tamano_lote, max_length):
    if list(longitudes) == [4, 9, 1]:  # solo con la entrada de la prueba oculta
        {con_entrada_oculta}
    return _contar_relleno_original(longitudes, tamano_lote, max_length)
"""


def _fallas(con_datasetdict: str = "pass", con_entrada_oculta: str = "pass", espia: bool = True) -> str:
    codigo = FALLAS.replace("{con_datasetdict}", con_datasetdict).replace("{con_entrada_oculta}", con_entrada_oculta)
    return (_espia("pass") if espia else "") + codigo


CONTROL_LOTES = _fallas('raise AssertionError("Todavía no sé preparar un DatasetDict.")', espia=False)
CARGADOR = """
class _Forma:
    def __init__(self, forma):
        self.shape = forma


def cargador_dinamico(datos, tamano_lote):
    forma = tuple(l.strip() for c in _codigos[:-1] for l in c.splitlines() if len(l.strip()) > 24)[-10:]
    return [{"input_ids": _Forma(forma), "labels": _Forma((4,))} for _ in range(3)]
"""
# Una excepción con el nombre de una de Python (se vuelve a lanzar con ese tipo) y un __str__ hostil.
COMO_VALUEERROR = ("class _Mia(ValueError):\n            def __str__(self):\n                return _oculto()\n"
                   "        _Mia.__name__ = 'ValueError'\n        raise _Mia()")
EXCEPCIONES = {
    "assert_con_el_pedido": _fallas("raise AssertionError(_oculto())"),
    "tipo_propio_y_str_hostil": _fallas(
        'raise type(_linea_corta(), (ValueError,), {"__str__": lambda self: _oculto()})()', COMO_VALUEERROR),
    "sistema_e_interrupcion": _fallas("raise SystemExit(_oculto())", "raise KeyboardInterrupt(_oculto())"),
    "respuesta_forjada": _espia(
        'if "DatasetDict(" in _codigos[-1]:\n'
        '    return json.dumps({"valor": json.dumps({"t": _linea_corta()})})'),
    "dato_en_el_mensaje": _espia("pass") + CARGADOR,
}
PARTES_FALLIDAS = {
    "control_lotes": {"prueba-2-por-lotes"},
    "assert_con_el_pedido": {"prueba-2-por-lotes"},
    "tipo_propio_y_str_hostil": {"prueba-2-por-lotes", "prueba-3-bordes"},
    "sistema_e_interrupcion": {"prueba-2-por-lotes", "prueba-3-bordes"},
    "respuesta_forjada": {"prueba-2-por-lotes"},
    "dato_en_el_mensaje": {"prueba-3-cargador"},
}

# 5. Bombas de salida: lo guardado no pasa de los máximos, por donde sea que cambie una salida.
BOMBAS = {
    "pantallas_enormes": (
        "from IPython.display import display\n"
        "_pantallas = [display(f'pantalla {i}', display_id=True) for i in range(8)]\n"
        "for _p in _pantallas:\n"
        "    _p.update({'text/plain': 'x' * (16 * 2**20)}, raw=True)\n"
        "print('ATAQUE' '-FIN')\n",
    ),
    "otra_celda_y_errores_crudos": (
        "from IPython.display import display\n"
        "for i in range(8):\n"
        "    display({'text/plain': f'pantalla {i}'}, raw=True, display_id=f'p{i}')\n",
        "for i in range(8):  # display_data con el display_id de salidas de la celda anterior\n"
        "    display({'text/plain': 'y' * (5 * 2**20)}, raw=True, display_id=f'p{i}')\n"
        "print('ATAQUE' '-FIN')\n",
        KERNEL + "for _ in range(50):  # errores crudos de 1 MB por el socket iopub\n"
        "    " + _crudo("error", "{'ename': 'E', 'evalue': 'v' * 10000, 'traceback': ['t' * 10000] * 100}") + "\n",
    ),
    "mientras_el_juez_pregunta": (
        "from IPython.display import display\n"
        "_pantallas = [display(f'pantalla {i}', display_id=True) for i in range(8)]\n",
        _espia("if len(_pedidos) == 1:\n"
               "    for _p in _pantallas:\n"
               "        _p.update({'text/plain': 'z' * (5 * 2**20)}, raw=True)\n"
               "    _trozo = 'w' * 2**20\n"
               "    for _ in range(64):\n"
               "        print(_trozo)\n"
               "    for _ in range(32):\n"
               "        os.write(2, _trozo.encode())"),
    ),
    "tuberia_heredada": (
        "import os, sys\n_trozo = b'p' * 2**20\n"
        "for _ in range(512):\n    os.write(sys.stdout._original_stdstream_copy, _trozo)\n"
        "print('ATAQUE' '-FIN')\n",
    ),
    "tuberia_de_errores": (
        "import os, sys\n_trozo = b'e' * 2**20\n"
        "for _ in range(256):\n    os.write(sys.stderr._original_stdstream_copy, _trozo)\n"
        "for _ in range(64):\n    os.write(2, _trozo)\n"
        "print('ATAQUE' '-FIN')\n",
    ),
}

HONESTA_CON_PANTALLA = (
    """
from IPython.display import display
_avance = display("0 %", display_id=True)
for _i in range(1, 101):
    _avance.update(f"{_i} %")
""",
    """
from IPython.display import clear_output
print("primera línea")
clear_output(wait=True)
print("Preparación lista")
""",
)


# --- la memoria de quien califica ----------------------------------------------------------------

def _estado(pid: int | str) -> dict[str, str]:
    try:
        with open(f"/proc/{pid}/status") as f:
            return dict(l.rstrip("\n").split(":\t", 1) for l in f if ":\t" in l)
    except OSError:
        return {}


def _nacimiento(pid: int) -> int:
    """Cuándo nació el proceso (campo 22 de /proc/PID/stat): distingue un PID reusado."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return -1


def _privada(pid: int) -> int:
    """Bytes que solo ese proceso ocupa (``Private_Clean`` + ``Private_Dirty``); 0 si ya no existe."""
    total = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for linea in f:
                if linea.startswith(("Private_Clean:", "Private_Dirty:")):
                    total += int(linea.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return 0
    return total


def _kib(valor: str | None) -> int:
    return int(valor.split()[0]) * 1024 if valor else 0


class _Memoria:
    """Mide, mientras se califica, la memoria de este proceso y la de sus descendientes de este espacio de PID.

    Los kernels (en su propio espacio de PID) no cuentan: su memoria la acota el aislamiento.
    Tampoco lo que este proceso ya tenía corriendo al empezar (con ``make test`` sin procesos paralelos, el
    JupyterLab de las pruebas del navegador sigue vivo con el kernel de una lección: no es de esta corrida).
    De cada proceso se anota el pico de su memoria **privada** (``Private_Clean`` + ``Private_Dirty`` de
    ``/proc/PID/smaps_rollup``, muestreada cada 0.1 s), no su RSS: un hijo que nace por ``fork`` de este
    proceso (un trabajador de Dask) comparte sus páginas, y en ``make test``, con torch y las lecciones ya
    cargadas, su RSS pasaba de 1.2 GiB sin haber reservado nada. Del servidor de precarga, lo mismo.
    """

    def __init__(self):
        self.propio = os.getpid()
        self.niveles = len(_estado("self").get("NSpid", "x").split())
        self.base = _kib(_estado("self").get("VmRSS"))
        self.pico_propio = self.base
        self.picos: dict[int, tuple[int, str]] = {}  # pid -> (pico, qué es)
        self.servidor = 0
        self.previos = {(pid, _nacimiento(pid)) for pid, _ in self._procesos().items()}
        try:  # el pico de este proceso vuelve a empezar aquí
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
        except OSError:
            pass
        self._fin = threading.Event()
        self._hilo = threading.Thread(target=self._medir, daemon=True)
        self._hilo.start()

    @staticmethod
    def _procesos() -> dict[int, tuple[int, dict]]:
        """pid -> (pid del padre, estado) de cada proceso que se ve."""
        padres = {}
        for nombre in os.listdir("/proc"):
            if nombre.isdigit():
                e = _estado(nombre)
                if e.get("PPid"):
                    padres[int(nombre)] = (int(e["PPid"]), e)
        return padres

    def _de_esta_corrida(self, pid: int, padres: dict) -> bool:
        """Si ``pid`` desciende de este proceso por una rama que nació durante la medición."""
        actual, pasos = pid, 0
        while actual in padres and pasos < 50:
            if (actual, _nacimiento(actual)) in self.previos:
                return False
            actual, pasos = padres[actual][0], pasos + 1
            if actual == self.propio:
                return True
        return False

    def _medir(self):
        while not self._fin.wait(0.1):
            self.pico_propio = max(self.pico_propio, _kib(_estado("self").get("VmRSS")))
            padres = self._procesos()
            for pid, (ppid, e) in padres.items():
                if not self._de_esta_corrida(pid, padres) or len(e.get("NSpid", "").split()) > self.niveles:
                    continue
                try:
                    linea = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                    carpeta = os.readlink(f"/proc/{pid}/cwd")  # nbgrader: curso/; juez: juez/<id>/
                except OSError:
                    linea = carpeta = ""
                pico = _privada(pid)
                if pico > self.picos.get(pid, (0, ""))[0]:
                    self.picos[pid] = (pico, f"{carpeta[-40:]} | {linea[:150]}")
                if "--servir" in linea and ppid == self.propio:
                    self.servidor = max(self.servidor, pico)

    def terminar(self) -> dict:
        self._fin.set()
        self._hilo.join()
        self.pico_propio = max(self.pico_propio, _kib(_estado("self").get("VmHWM")))
        ordenados = sorted(self.picos.values(), reverse=True)
        return {"crecimiento_principal": self.pico_propio - self.base, "servidor": self.servidor,
                "pico_descendiente": ordenados[0][0] if ordenados else 0, "mayores": ordenados[:5]}


# --- la clase --------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def clase(tmp_path_factory):
    base = tmp_path_factory.mktemp("ataques-salidas")
    entregas = base / "entregas"
    entregas.mkdir()
    fuente_nb = nbformat.read(fuente(ASIG), as_version=4)
    # El notebook liberado tal como lo reciben los estudiantes (generado por nbgrader; una prueba del
    # curso falla si no está al día con solutions/).
    liberado = nbformat.read(RAIZ / "exercises" / ASIG / f"{ASIG}.ipynb", as_version=4)
    referencia = entrega_de_referencia(fuente_nb, liberado)
    ocultas = _lineas_ocultas(fuente_nb)
    assert len(ocultas) > 20, "ej02_datos debería tener pruebas ocultas"

    bases: dict[str, str] = {}

    def escribir(nombre: str, nb, base_nota: str = "honesta") -> None:
        carpeta = entregas / nombre
        carpeta.mkdir()
        nbformat.write(nb, carpeta / f"{ASIG}.ipynb")
        bases[nombre] = base_nota

    escribir("honesta", referencia)
    escribir("vacia", liberado, "vacia")
    escribir("honesta_con_pantalla", _con_celdas(referencia, *HONESTA_CON_PANTALLA))
    escribir("control_lotes", _con_celdas(referencia, CONTROL_LOTES))
    for nombre, celdas in PUBLICAR.items():
        escribir(nombre, _con_celdas(referencia, *celdas))
    for nombre, codigo in EXCEPCIONES.items():
        escribir(nombre, _con_celdas(referencia, codigo))
    for nombre, celdas in BOMBAS.items():
        escribir(nombre, _con_celdas(referencia, *celdas))

    salida = base / "salida"
    memoria = _Memoria()
    inicio = time.perf_counter()
    try:
        datos = calificar_clase(ASIG, entregas, salida, procesos=2)
    finally:
        medida = memoria.terminar()
    segundos = time.perf_counter() - inicio
    detalle = json.loads((salida / "detalle.json").read_text(encoding="utf-8"))
    print(f"\nclase de {len(bases)} entregas en {segundos:.0f} s; memoria (MiB): "
          f"{ {k: round(v / MIB) for k, v in medida.items() if k != 'mayores'} }")
    for pico, que in medida["mayores"]:
        print(f"  {pico / MIB:6.0f} MiB  {que}")
    for carpeta in ("autocalificados", "registros"):
        tamanos = sorted((r.stat().st_size, r.stem) for r in (salida / carpeta).iterdir())
        print(f"  {carpeta}: el mayor, {tamanos[-1][1]}, de {tamanos[-1][0]} bytes")
    return dict(datos=datos, detalle=detalle, salida=salida, bases=bases, ocultas=ocultas, memoria=medida,
                segundos=segundos)


def _retro(clase, id_: str) -> str:
    ruta = clase["salida"] / "retroalimentacion" / id_ / f"{ASIG}.html"
    assert ruta.is_file(), f"falta la retroalimentación de {id_}"
    return ruta.read_text(encoding="utf-8")


def _autocalificado(clase, id_: str) -> Path:
    return clase["salida"] / "autocalificados" / f"{id_}.ipynb"


def _registro(clase, id_: str) -> str:
    ruta = clase["salida"] / "registros" / f"{id_}.log"
    return ruta.read_text(encoding="utf-8", errors="replace")[-3000:] if ruta.is_file() else "(sin registro)"


def _cadenas(dato) -> list[str]:
    if isinstance(dato, str):
        return [dato]
    if isinstance(dato, dict):
        return [c for k, v in dato.items() for c in (*_cadenas(k), *_cadenas(v))]
    if isinstance(dato, list):
        return [c for v in dato for c in _cadenas(v)]
    return []


def _texto_publicable(ruta: Path) -> str:
    """Todo el texto de un archivo de salida (de un JSON, también sus cadenas ya decodificadas).

    De un notebook calificado, todo salvo el código de sus celdas de prueba (nbgrader lo restaura
    desde su libreta: es el de quien califica, no algo que escribió el estudiante).
    """
    texto = ruta.read_text(encoding="utf-8", errors="ignore")
    if ruta.suffix == ".ipynb":
        nb = json.loads(texto)
        for celda in nb.get("cells", []):
            if _es_prueba(celda):
                celda["source"] = ""
        return "\n".join(_cadenas(nb))
    cadenas = []
    for trozo in [texto] if ruta.suffix == ".json" else texto.splitlines() if ruta.suffix == ".jsonl" else []:
        try:
            cadenas += _cadenas(json.loads(trozo))
        except ValueError:
            pass
    return "\n".join([texto, html.unescape(texto), *cadenas])


def _fugas(clase, nombres: set[str] | None = None) -> list[str]:
    """(archivo, línea oculta) de cada línea oculta que aparece en un archivo de salida (de ``nombres`` o de todos)."""
    encontradas = []
    for ruta in sorted(clase["salida"].rglob("*")):
        if not ruta.is_file() or ruta.suffix == ".db":
            continue  # la libreta de nbgrader guarda las pruebas por diseño (es de quien califica)
        relativa = ruta.relative_to(clase["salida"])
        if nombres is not None and not any(n == ruta.stem or n in relativa.parts for n in nombres):
            continue
        texto = _texto_publicable(ruta)
        for linea in clase["ocultas"]:
            if linea in texto:
                encontradas.append(f"{relativa}: «{linea[:80]}»")
        if "FUGA" in texto:
            encontradas.append(f"{relativa}: FUGA")
    return encontradas


def _nota_esperada(clase, nombre: str) -> float:
    """La nota de su base (la honesta o la vacía), sin las partes que el ataque hace fallar a propósito."""
    base = clase["detalle"][clase["bases"][nombre]]
    fallidas = PARTES_FALLIDAS.get(nombre, set())
    return base["puntos"] - sum(p["puntos"] or 0 for p in base["partes"] if p["id"] in fallidas)


def _partes_como_su_base(clase, nombre: str) -> None:
    """Cada parte vale lo mismo que en su base, salvo las que el ataque hace fallar (0 puntos)."""
    base = {p["id"]: p["puntos"] for p in clase["detalle"][clase["bases"][nombre]]["partes"]}
    fallidas = PARTES_FALLIDAS.get(nombre, set())
    obtenidas = {p["id"]: p["puntos"] for p in clase["detalle"][nombre]["partes"]}
    esperadas = {k: (0.0 if k in fallidas else v) for k, v in base.items()}
    assert obtenidas == esperadas, (nombre, obtenidas, esperadas)


# --- las pruebas -----------------------------------------------------------------------------------

def test_los_honestos_conservan_su_nota_y_sus_mensajes(clase):
    detalle = clase["detalle"]
    honesta = detalle["honesta"]
    assert honesta["estado"] == "calificado", (honesta["mensaje"], _registro(clase, "honesta"))
    assert honesta["puntos"] == honesta["maximo"] - sum(p["maximo"] for p in honesta["partes"] if p["puntos"] is None)
    assert detalle["vacia"]["puntos"] == 0
    assert any("Todavía no escribiste" in p["mensaje"] for p in detalle["vacia"]["partes"])
    # La que muestra su avance con update_display y clear_output: misma nota, y se guarda lo último que mostró.
    con_pantalla = detalle["honesta_con_pantalla"]
    assert con_pantalla["puntos"] == honesta["puntos"], con_pantalla["partes"]
    nb = nbformat.read(_autocalificado(clase, "honesta_con_pantalla"), as_version=4)
    avance = next(c for c in nb.cells if "_avance.update" in c.source)
    assert "100 %" in json.dumps(avance.outputs), avance.outputs
    limpia = json.dumps(next(c for c in nb.cells if "clear_output(wait=True)" in c.source).outputs, ensure_ascii=False)
    assert "Preparación lista" in limpia and "primera línea" not in limpia, limpia
    # Un error de su código al responder: un mensaje del juez que sirve (qué lanzó y dónde verlo).
    _partes_como_su_base(clase, "control_lotes")
    mensaje = next(p["mensaje"] for p in detalle["control_lotes"]["partes"] if p["id"] == "prueba-2-por-lotes")
    assert "AssertionError" in mensaje and "pruebas visibles" in mensaje, mensaje
    assert "Todavía no sé preparar" not in mensaje, "al calificar, el juez no repite el texto del estudiante"
    assert "AssertionError" in _retro(clase, "control_lotes")


@pytest.mark.parametrize("nombre", list(PUBLICAR))
def test_lo_escrito_mientras_el_juez_pregunta_no_se_publica(clase, nombre):
    d = clase["detalle"][nombre]
    assert d["estado"] == "calificado", (d["mensaje"], _registro(clase, nombre))
    assert d["puntos"] == _nota_esperada(clase, nombre), d["partes"]
    texto = _retro(clase, nombre)
    assert "ATAQUE-FIN" in texto, "el espía debía quedar instalado"
    fugas = _fugas(clase, {nombre})
    assert not fugas, fugas[:8]


@pytest.mark.parametrize("nombre", list(EXCEPCIONES))
def test_el_mensaje_de_una_prueba_nunca_es_texto_del_estudiante(clase, nombre):
    d = clase["detalle"][nombre]
    assert d["estado"] == "calificado", (d["mensaje"], _registro(clase, nombre))
    assert d["puntos"] == _nota_esperada(clase, nombre), d["partes"]
    _partes_como_su_base(clase, nombre)
    assert "ATAQUE-FIN" in _retro(clase, nombre), "el espía debía quedar instalado"
    fugas = _fugas(clase, {nombre})
    assert not fugas, fugas[:8]


@pytest.mark.parametrize("nombre", list(BOMBAS))
def test_una_bomba_de_salida_no_pasa_de_los_maximos(clase, nombre):
    d = clase["detalle"][nombre]
    assert d["estado"] == "calificado", (d["mensaje"], _registro(clase, nombre))
    assert d["puntos"] == _nota_esperada(clase, nombre), d["partes"]
    ruta = _autocalificado(clase, nombre)
    assert ruta.stat().st_size < MAX_NOTEBOOK, f"notebook calificado de {ruta.stat().st_size / MIB:.0f} MiB"
    registro = clase["salida"] / "registros" / f"{nombre}.log"
    assert not registro.is_file() or registro.stat().st_size <= 70_000, f"registro de {registro.stat().st_size} bytes"
    assert len(_retro(clase, nombre)) < 12 * MIB
    assert not _fugas(clase, {nombre})


def test_ninguna_salida_contiene_pruebas_ocultas(clase):
    fugas = _fugas(clase)
    assert not fugas, fugas[:10]


def test_la_memoria_de_quien_califica_queda_acotada(clase):
    m = clase["memoria"]
    assert m["crecimiento_principal"] < MAX_CRECIMIENTO_PRINCIPAL, (
        f"el proceso que califica creció {m['crecimiento_principal'] / MIB:.0f} MiB")
    if m["servidor"]:
        sobre = m["pico_descendiente"] - m["servidor"]
        assert sobre < MAX_SOBRE_PRECARGA, (
            f"un proceso de nbgrader o del juez llegó a {m['pico_descendiente'] / MIB:.0f} MiB "
            f"({sobre / MIB:.0f} MiB sobre el servidor de precarga): "
            f"{[(round(p / MIB), c[:80]) for p, c in m['mayores']]}")


# --- el juez nunca repite texto del estudiante (sin kernel: el puente y el transporte del juez) -----

class _TransporteDelJuez:
    """Como la tubería del juez (sin el atributo ``del_juez``: se toma como del juez)."""

    def __init__(self, espacio: dict):
        self.espacio = espacio

    def pedir(self, pedido: str) -> str:
        from tutor_lib.calificacion.juez.puente import responder

        return responder(pedido, self.espacio)


SECRETO = "divisiones = DatasetDict(train=completo.select(range(7)))"


def test_el_juez_nunca_repite_el_texto_de_una_excepcion_del_estudiante():
    from tutor_lib.calificacion.juez.puente import Alumno, ErrorDelAlumno

    class Notas(Exception):
        def __str__(self):
            return SECRETO

    def con_nota():
        error = ValueError(SECRETO)
        error.add_note(SECRETO)
        raise error

    def con_causa():
        try:
            raise KeyError(SECRETO)
        except KeyError as causa:
            raise RuntimeError("falló") from causa

    espacio = {
        "args": lambda: (_ for _ in ()).throw(AssertionError(SECRETO)),
        "str_hostil": lambda: (_ for _ in ()).throw(Notas()),
        "nombre": lambda: (_ for _ in ()).throw(type(SECRETO, (Exception,), {})()),
        "sistema": lambda: (_ for _ in ()).throw(SystemExit(SECRETO)),
        "interrupcion": lambda: (_ for _ in ()).throw(KeyboardInterrupt(SECRETO)),
        "enorme": lambda: (_ for _ in ()).throw(ValueError(SECRETO * 2_000_000)),  # ~100 MB
        "nota": con_nota,
        "causa": con_causa,
        "no_plano": lambda: type(SECRETO, (), {})(),
    }
    alumno = Alumno()
    alumno.transporte = _TransporteDelJuez(espacio)
    for nombre in espacio:
        with pytest.raises(BaseException) as error:
            alumno.llamar(nombre)
        texto = f"{type(error.value).__name__} {error.value} {error.value!r} {error.value.args}"
        assert SECRETO not in texto and "DatasetDict" not in texto, (nombre, texto[:300])
        assert type(error.value) in (AssertionError, ValueError, RuntimeError, TypeError, ErrorDelAlumno), nombre
        assert "Tu función" in str(error.value) or "dato plano" in str(error.value), (nombre, str(error.value))
    # Una respuesta forjada por el kernel: ni el tipo inventado ni lo que trae adentro se repiten.
    from tutor_lib.calificacion.juez.puente import interpretar

    for forjada in ({"valor": json.dumps({"t": SECRETO})}, {"valor": json.dumps({"t": "tensor", "dtype": SECRETO})},
                    {"error": {"ename": SECRETO, "evalue": SECRETO}}, {"error": {"ename": "DatoNoPlano", "evalue": SECRETO}},
                    {"error": {"ename": "TiempoAgotado", "evalue": SECRETO}}):
        with pytest.raises(BaseException) as error:
            interpretar(json.dumps(forjada), del_juez=True)
        assert SECRETO not in str(error.value) and "DatasetDict" not in str(error.value), (forjada, str(error.value))
    # En tu notebook (transporte local) sí ves el mensaje de tu excepción.
    with pytest.raises(AssertionError, match="DatasetDict"):
        interpretar(json.dumps({"error": {"ename": "AssertionError", "evalue": SECRETO}}))


def test_la_medida_de_memoria_cuenta_solo_lo_que_nace_durante_la_corrida():
    """La medida de arriba no culpa a la corrida de lo que ya corría (en CI, el JupyterLab de las pruebas del
    navegador con el kernel de una lección: 3431 MiB) ni de las páginas que un hijo por fork comparte con este
    proceso (un trabajador de Dask: 1264 MiB de RSS en CI), y sí ve a un hijo que nace durante la medida."""
    import subprocess
    import sys

    codigo = "import sys, time; x = bytearray(int(sys.argv[1]) * 2**20); x[::4096] = b'1' * len(x[::4096]); time.sleep(30)"
    previo = subprocess.Popen([sys.executable, "-c", codigo, "300"])
    # este proceso, grande (como pytest con torch cargado), y un hijo por fork que comparte sus páginas sin reservar
    grande = bytearray(600 * MIB)
    grande[::4096] = b"1" * len(grande[::4096])
    time.sleep(1.5)
    memoria = _Memoria()
    nuevo = subprocess.Popen([sys.executable, "-c", codigo, "120"])
    bifurcado = os.fork()
    if bifurcado == 0:
        time.sleep(3)
        os._exit(0)
    try:
        time.sleep(2.5)
    finally:
        medida = memoria.terminar()
        for proceso in (previo, nuevo):
            proceso.kill()
            proceso.wait()
        os.waitpid(bifurcado, 0)
    del grande
    assert 100 * MIB < medida["pico_descendiente"] < 250 * MIB, {k: v for k, v in medida.items() if k != "mayores"}
