"""El preprocesador de nbgrader que ejecuta cada celda donde corresponde.

``nbgrader autograde`` ejecuta el notebook con su preprocesador ``Execute``.
:class:`EjecutarConJuez` lo reemplaza (``c.Autograde.autograde_preprocessors``
en la configuración que escribe :mod:`tutor_lib.calificacion.motor.calificador`) y conserva todo
lo demás de nbgrader: la libreta de calificaciones, la retroalimentación,
formgrader, la calificación a mano y la exportación.

Para cada entrega:

1. arranca el kernel del estudiante (aislado por el ``kernel.json`` del
   calificador) en su carpeta de trabajo, que no es ninguna carpeta de
   nbgrader, y al mismo tiempo el proceso del juez (:mod:`tutor_lib.calificacion.juez.proceso`),
   al que le manda de inmediato las celdas compartidas;
2. ejecuta en el kernel, en orden, todas las celdas que no son de prueba
   (soluciones, celdas bloqueadas, celdas agregadas), con la salida acotada;
3. ejecuta en el juez, en orden, las celdas de prueba; cada pedido de
   ``alumno`` se ejecuta en el kernel como una celda aparte, cuya salida no
   se guarda en ningún lado: solo vuelve al juez el dato plano.

Lo que el kernel publica (issue 39, puntos 3 y 5):

* **cuando terminan las celdas del estudiante, sus salidas se congelan**: lo
  que el kernel mande después (mientras el juez pregunta) no cambia nada de lo
  que se guarda ni de lo que se publica: ni salidas nuevas, ni actualizaciones
  de un ``display_id`` (de esa celda o de otra), ni ``clear_output``, ni
  mensajes ``comm`` o estado de widgets (que nunca se guardan), ni un
  ``execute_result`` con ``transient``; de cada pedido solo se lee la
  respuesta (un dato plano de tamaño acotado) y el nombre de un error.
  Al final, las salidas de las celdas que no son de prueba vuelven a ser las
  congeladas; las de las pruebas son las que produjo el juez;
* **todo cambio de una salida cuenta contra los máximos** (por celda y por
  notebook), también mientras corren las celdas del estudiante: una salida
  nueva, un error (el primero de cada celda se guarda siempre, acotado), una
  actualización de un ``display_id`` (lo que crece; si no cabe, queda lo que
  había) y ``clear_output`` (libera lo que borra);
* **el texto de las pruebas que se guarda no trae líneas ocultas**: el juez
  nunca repite el texto de una excepción del estudiante
  (:func:`tutor_lib.calificacion.juez.puente.interpretar`); además, si un mensaje de una
  prueba muestra un dato del estudiante que contiene una línea de las pruebas
  ocultas (el estudiante devolvió el código que le pidió una prueba oculta),
  esa línea se tapa (:mod:`tutor_lib.calificacion.juez.ocultas`). Es una defensa de más:
  un texto codificado no se reconoce, por eso las pruebas no deben mostrar
  textos largos del estudiante.

Qué celda es de prueba lo decide la metadata de nbgrader *después* de que
nbgrader la restauró desde su libreta (``OverwriteCells``), y qué celda es
compartida, el código de una celda bloqueada (también restaurado): nada que el
estudiante escriba en su notebook cambia dónde corre una celda.
"""

from __future__ import annotations

import copy
import itertools
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from nbclient.exceptions import CellExecutionComplete, CellTimeoutError, DeadKernelError
from nbformat import from_dict
from nbformat.v4 import new_code_cell
from nbgrader.preprocessors import Execute
from traitlets import Integer, Unicode

from tutor_lib.calificacion.juez import MARCA_COMPARTIDA, datos
from tutor_lib.calificacion.juez.ocultas import lineas_ocultas, tapar
from tutor_lib.calificacion.juez.puente import MIME
from tutor_lib.calificacion.reconstruccion import _nbg

#: Mensajes del kernel que agregan una salida (los demás no se guardan nunca).
_SALIDAS = ("stream", "display_data", "execute_result", "error")
#: Lo que se guarda de un error: caracteres del mensaje, líneas del rastreo y caracteres de cada línea.
MAX_ERROR, MAX_LINEAS_ERROR = 5_000, 50
#: Cuánto pueden pasar del máximo del notebook los primeros errores de cada celda (se guardan siempre).
RESERVA_ERRORES = 2_000_000
AVISO_RECORTE = "\n[… salida recortada: superó el máximo permitido]\n"
_FIN = object()


def _tamano(dato, tope: int) -> int:
    """Caracteres de ``dato`` (el contenido de un mensaje) sin serializarlo; deja de contar al pasar ``tope``."""
    total, pila = 0, [iter((dato,))]
    while pila:
        x = next(pila[-1], _FIN)
        if x is _FIN:
            pila.pop()
            continue
        if isinstance(x, str):
            total += len(x) + 3
        elif isinstance(x, dict):
            total += 2
            pila.append(itertools.chain.from_iterable(x.items()))
        elif isinstance(x, (list, tuple)):
            total += 2
            pila.append(iter(x))
        else:
            total += 8
        if total > tope:
            break
    return total


def _texto(valor, maximo: int) -> str:
    return valor[:maximo] if isinstance(valor, str) else ""


def _error_acotado(contenido: dict) -> dict:
    """Un error del kernel con solo texto y de tamaño acotado."""
    traza = contenido.get("traceback")
    lineas = [_texto(l, MAX_ERROR) for l in traza] if isinstance(traza, list) else []
    if len(lineas) > MAX_LINEAS_ERROR:  # el principio y el final del rastreo
        lineas = [*lineas[:5], "[…]", *lineas[-(MAX_LINEAS_ERROR - 6):]]
    return {"ename": _texto(contenido.get("ename"), 200), "evalue": _texto(contenido.get("evalue"), MAX_ERROR),
            "traceback": lineas}


def _nodo(tipo: str, contenido: dict):
    """La salida de nbformat que describe un mensaje del kernel, solo con campos del tipo esperado."""
    if tipo == "stream":
        return from_dict({"output_type": "stream", "name": "stderr" if contenido.get("name") == "stderr" else "stdout",
                          "text": _texto(contenido.get("text"), sys.maxsize)})
    if tipo == "error":
        return from_dict({"output_type": "error", **_error_acotado(contenido)})
    datos_ = contenido.get("data")
    meta = contenido.get("metadata")
    nodo = {"output_type": tipo, "data": datos_ if isinstance(datos_, dict) else {},
            "metadata": meta if isinstance(meta, dict) else {}}
    if tipo == "execute_result":
        cuenta = contenido.get("execution_count")
        nodo["execution_count"] = cuenta if type(cuenta) is int else None
    return from_dict(nodo)


def es_prueba(celda) -> bool:
    """Una celda de prueba de nbgrader: de código, calificada y que no es de solución."""
    meta = _nbg(celda)
    return celda.cell_type == "code" and bool(meta.get("grade")) and not meta.get("solution")


def es_compartida(celda) -> bool:
    """Una celda bloqueada que corre también en el juez (empieza con :data:`MARCA_COMPARTIDA`)."""
    meta = _nbg(celda)
    return (celda.cell_type == "code" and bool(meta.get("locked")) and not meta.get("solution")
            and not meta.get("grade") and celda.source.lstrip().startswith(MARCA_COMPARTIDA))


class _Juez:
    """El proceso del juez y sus dos tuberías."""

    def __init__(self, carpeta: str | None, env: dict[str, str]):
        leer_juez, escribir_ejecutor = os.pipe()
        leer_ejecutor, escribir_juez = os.pipe()
        self.carpeta = carpeta or tempfile.mkdtemp(prefix="tutor-juez-")
        self._errores = open(os.path.join(self.carpeta, "juez.err"), "w")
        argv = [sys.executable, "-m", "tutor_lib.calificacion.juez.proceso", str(leer_juez), str(escribir_juez)]
        if env.get("TUTOR_PRECARGA"):  # nace del servidor de precarga, con lo pesado ya importado
            argv = [sys.executable, "-m", "tutor_lib.calificacion.motor.precarga", *argv]
        self.proc = subprocess.Popen(
            argv,
            pass_fds=(leer_juez, escribir_juez), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=self._errores, cwd=self.carpeta, env=env, start_new_session=True,
        )
        os.close(leer_juez)
        os.close(escribir_juez)
        self.salida = os.fdopen(escribir_ejecutor, "w", encoding="utf-8")
        self.entrada = os.fdopen(leer_ejecutor, "r", encoding="utf-8")
        self.pendientes = 0  # celdas enviadas cuya respuesta aún no se leyó

    def enviar(self, mensaje: dict) -> None:
        self.salida.write(json.dumps(mensaje, ensure_ascii=False) + "\n")
        self.salida.flush()

    def recibir(self, limite: float) -> dict | None:
        """El próximo mensaje del juez, o None si no llegó antes de ``limite`` (tiempo monotónico)."""
        while True:
            restante = limite - time.monotonic()
            if restante <= 0:
                return None
            listos, _, _ = select.select([self.entrada], [], [], restante)
            if listos:
                linea = self.entrada.readline()
                if not linea:
                    raise RuntimeError(f"el juez terminó inesperadamente: {self._ultimo_error()}")
                return json.loads(linea)

    def _ultimo_error(self) -> str:
        try:
            with open(os.path.join(self.carpeta, "juez.err"), "rb") as f:
                f.seek(max(0, f.seek(0, os.SEEK_END) - 2000))  # solo el final: nunca el archivo entero
                return f.read().decode("utf-8", errors="replace")
        except OSError:
            return ""

    def cerrar(self) -> None:
        for f in (self.salida, self.entrada):
            try:
                f.close()
            except OSError:
                pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        self._errores.close()


class EjecutarConJuez(Execute):
    """``Execute`` de nbgrader con las pruebas en el proceso del juez (ver el módulo)."""

    carpeta_trabajo = Unicode(
        "", help="Carpeta de trabajo del kernel del estudiante (vacía: la de nbgrader)."
    ).tag(config=True)
    carpeta_juez = Unicode("", help="Carpeta privada del proceso del juez.").tag(config=True)
    max_salida_celda = Integer(1_000_000, help="Bytes de salida que se guardan por celda.").tag(config=True)
    max_salida_total = Integer(10_000_000, help="Bytes de salida que se guardan por notebook.").tag(config=True)

    def _entorno_juez(self) -> dict[str, str]:
        env = dict(os.environ)
        env.pop("TUTOR_AISLAMIENTO", None)
        env["PYTHONWARNINGS"] = "ignore"
        env.setdefault("OMP_NUM_THREADS", "2")
        env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
        return env

    # -- lo que manda el kernel: solo salidas, acotadas, y nada después de congelar --
    def process_message(self, msg, cell, cell_index):
        """Cada mensaje de iopub de la celda en curso (reemplaza al de nbclient; ver el módulo).

        Mientras el juez pregunta, de la celda del pedido solo se lee la respuesta; después
        de congelar, nada más cambia lo guardado. Los mensajes ``comm`` (widgets) se ignoran
        siempre: su estado no se guarda.
        """
        tipo = msg.get("msg_type")
        contenido = msg.get("content")
        if type(contenido) is not dict:
            return None
        if tipo == "status":
            if contenido.get("execution_state") == "idle":
                raise CellExecutionComplete()
            return None
        if self._atendiendo:
            self._respuesta(cell.outputs, tipo, contenido)
            return None
        if self._congelado:
            return None
        transitorio = contenido.get("transient")
        display_id = transitorio.get("display_id") if type(transitorio) is dict else None
        if type(display_id) is not str or not display_id:
            display_id = None
        if display_id and tipo in ("execute_result", "display_data", "update_display_data"):
            self._update_display_id(display_id, msg)
        cuenta = contenido.get("execution_count")
        if type(cuenta) is int and tipo in ("execute_input", "execute_result"):
            cell["execution_count"] = cuenta
        if tipo == "clear_output":
            self.clear_output(cell.outputs, msg, cell_index)
        elif tipo in _SALIDAS:
            return self.output(cell.outputs, msg, display_id, cell_index)
        return None

    def _respuesta(self, outs, tipo, contenido: dict) -> None:
        """De la celda de un pedido se guarda solo la respuesta (acotada) y el nombre de un error."""
        if tipo == "display_data" and not any(o.get("output_type") == "display_data" for o in outs):
            datos_ = contenido.get("data")
            respuesta = datos_.get(MIME) if type(datos_) is dict else None
            if type(respuesta) is str and len(respuesta) <= datos.MAX_BYTES + 4096:
                outs.append(from_dict({"output_type": "display_data", "data": {MIME: respuesta}, "metadata": {}}))
        elif tipo == "error" and not any(o.get("output_type") == "error" for o in outs):
            outs.append(from_dict({"output_type": "error", "ename": _texto(contenido.get("ename"), 200),
                                   "evalue": "", "traceback": []}))

    def _libres(self, indice: int) -> int:
        return min(self.max_salida_celda - self._bytes_por_celda.get(indice, 0),
                   self.max_salida_total - self._bytes_total)

    def _sumar(self, indice: int, cantidad: int) -> None:
        self._bytes_por_celda[indice] = self._bytes_por_celda.get(indice, 0) + cantidad
        self._bytes_total += cantidad

    def _vaciar(self, outs, indice: int) -> None:
        """Borra las salidas de una celda (``clear_output``): lo que ocupaban vuelve a quedar libre."""
        outs[:] = []
        self.clear_display_id_mapping(indice)
        self.clear_before_next_output = False
        self._bytes_total -= self._bytes_por_celda.pop(indice, 0)
        self._recortadas.discard(indice)
        self._con_error.discard(indice)

    def _recortar(self, outs, indice: int) -> None:
        """Desde aquí la celda no guarda más salidas (salvo errores): se avisa una vez."""
        if indice in self._recortadas:
            return
        self._recortadas.add(indice)
        aviso = from_dict({"output_type": "stream", "name": "stdout", "text": AVISO_RECORTE})
        outs.append(aviso)
        self._sumar(indice, len(AVISO_RECORTE))

    def clear_output(self, outs, msg, cell_index):
        if self._atendiendo or self._congelado:
            return
        contenido = msg.get("content")
        if type(contenido) is dict and contenido.get("wait"):
            self.clear_before_next_output = True  # se borra al llegar la próxima salida
        else:
            self._vaciar(outs, cell_index)

    def output(self, outs, msg, display_id, cell_index):
        """Guarda una salida de una celda del estudiante si cabe en los máximos (ver el módulo)."""
        tipo = msg.get("msg_type")
        contenido = msg.get("content")
        if self._atendiendo or self._congelado or tipo not in _SALIDAS or type(contenido) is not dict:
            return None
        if self.clear_before_next_output:
            self._vaciar(outs, cell_index)
        tope = self.max_salida_celda + 1
        if tipo == "error":
            nodo = _nodo(tipo, contenido)
            tamano = _tamano(dict(nodo), tope)
            if cell_index not in self._con_error:
                # El primer error de cada celda se guarda siempre (dice por qué falló): entero si cabe en
                # la reserva, si no, solo su nombre y el principio del mensaje.
                self._con_error.add(cell_index)
                if self._bytes_total + tamano > self.max_salida_total + RESERVA_ERRORES:
                    nodo = from_dict({"output_type": "error", "ename": nodo.ename, "evalue": nodo.evalue[:200],
                                      "traceback": []})
                    tamano = _tamano(dict(nodo), tope)
                self._sumar(cell_index, tamano)
                outs.append(nodo)
                return nodo
        else:
            if cell_index in self._recortadas:
                return None
            tamano = _tamano(contenido, tope)
            libres = self._libres(cell_index)
            if tamano > libres:
                # De un texto se guarda lo que cabe; después, solo el aviso.
                if tipo == "stream" and libres > 200 and isinstance(contenido.get("text"), str):
                    parcial = _nodo(tipo, {**contenido, "text": contenido["text"][: (libres - 200) // 2]})
                    outs.append(parcial)
                    self._sumar(cell_index, _tamano(dict(parcial), tope))
                self._recortar(outs, cell_index)
                return None
            nodo = _nodo(tipo, contenido)
        if tamano > self._libres(cell_index):
            self._recortar(outs, cell_index)
            return None
        self._sumar(cell_index, tamano)
        if display_id:
            self._display_id_map.setdefault(display_id, {}).setdefault(cell_index, []).append(len(outs))
        outs.append(nodo)
        return nodo

    def _update_display_id(self, display_id, msg):
        """Actualiza las salidas con ``display_id``, contando lo que crecen; si no caben, quedan como estaban."""
        if self._atendiendo or self._congelado:
            return
        contenido = msg.get("content")
        celdas = self._display_id_map.get(display_id)
        if not celdas or type(contenido) is not dict or type(contenido.get("data")) is not dict:
            return
        nuevo = _nodo("display_data", contenido)
        tope = self.max_salida_celda + 1
        tamano = _tamano({"data": nuevo.data, "metadata": nuevo.metadata}, tope)
        for indice, posiciones in celdas.items():
            if not 0 <= indice < len(self.nb.cells):
                continue
            salidas = self.nb.cells[indice].get("outputs", [])
            for j in posiciones:
                if not 0 <= j < len(salidas) or salidas[j].get("output_type") not in ("display_data", "execute_result"):
                    continue
                antes = _tamano({"data": salidas[j].get("data", {}), "metadata": salidas[j].get("metadata", {})}, tope)
                if tamano - antes > self._libres(indice):
                    self._recortar(salidas, indice)
                    continue
                self._sumar(indice, tamano - antes)
                salidas[j]["data"] = copy.deepcopy(nuevo.data)
                salidas[j]["metadata"] = copy.deepcopy(nuevo.metadata)

    def handle_comm_msg(self, outs, msg, cell_index):
        """Los mensajes ``comm`` (widgets) no se guardan ni se atienden al calificar."""
        return None

    def on_cell_executed(self, **kwargs):
        """Como nbgrader: si la respuesta fue un error que no llegó como salida (un tiempo agotado), se agrega.

        Acotado y contado como cualquier error; de la celda de un pedido, solo su nombre.
        """
        celda, respuesta = kwargs.get("cell"), kwargs.get("execute_reply")
        contenido = respuesta.get("content") if type(respuesta) is dict else None
        if celda is None or type(contenido) is not dict or contenido.get("status") != "error":
            return
        nombre = _texto(contenido.get("ename"), 200)
        if any(o.get("output_type") == "error" and o.get("ename") == nombre for o in celda.outputs):
            return
        if self._atendiendo:
            celda.outputs.append(from_dict({"output_type": "error", "ename": nombre, "evalue": "", "traceback": []}))
            return
        error = {**contenido, "ename": nombre}
        if not error.get("traceback"):
            error["traceback"] = ["ERROR: An error occurred while showtraceback was disabled"]
        indice = kwargs.get("cell_index", -1)
        self.output(celda.outputs, {"msg_type": "error", "content": error}, None, indice)

    # -- un pedido de alumno: una celda aparte en el kernel del estudiante --
    def _atender(self, pedido: str, indice: int) -> str:
        original = self.nb.cells[indice]
        codigo = f"__import__('tutor_lib.calificacion.juez.puente', fromlist=['publicar']).publicar({pedido!r})"
        celda = new_code_cell(codigo)
        self._atendiendo = True
        agotado = False
        try:
            self.execute_cell(celda, indice, store_history=False)
        except CellTimeoutError:
            agotado = True  # el kernel no terminó de publicar a tiempo
        except DeadKernelError:
            # Sin el texto de nbclient, que puede traer el código de la celda (el pedido de una prueba oculta).
            raise DeadKernelError("Kernel died") from None
        finally:
            self._atendiendo = False
            self.nb.cells[indice] = original
        for salida in celda.outputs:
            if salida.get("output_type") == "error":
                nombre = salida.get("ename", "")
                if "Timeout" in nombre or nombre == "KeyboardInterrupt":
                    agotado = True
        if agotado:
            return json.dumps({"error": {"ename": "TiempoAgotado", "evalue": (
                f"Tu código tardó más de {self.timeout} s en responder a la prueba y se interrumpió: "
                "¿hay un ciclo que no termina?")}})
        for salida in celda.outputs:
            publicado = salida.get("data", {}) if salida.get("output_type") == "display_data" else {}
            if MIME in publicado:
                respuesta = publicado[MIME]
                return respuesta if isinstance(respuesta, str) else json.dumps(respuesta)
        return json.dumps({"error": {"ename": "RuntimeError", "evalue": (
            "Tu kernel no respondió a la prueba (¿cambiaste tutor_lib, print o la salida del kernel?).")}})

    def _correr_en_juez(self, juez: _Juez, indice: int) -> list[dict] | None:
        """Espera el fin de la celda ``indice`` en el juez atendiendo sus pedidos; None si se pasó de tiempo."""
        limite = time.monotonic() + (self.timeout or 600)
        while True:
            mensaje = juez.recibir(limite)
            if mensaje is None:
                return None
            if mensaje.get("tipo") == "alumno":
                # El tiempo que tarda el código del estudiante tiene su propio límite (el de cada celda).
                inicio = time.monotonic()
                respuesta = self._atender(str(mensaje.get("pedido", "")), indice)
                limite += time.monotonic() - inicio
                juez.enviar({"tipo": "respuesta", "respuesta": respuesta})
            elif mensaje.get("tipo") == "fin":
                return mensaje.get("salidas", [])

    def preprocess(self, nb, resources=None, km=None):
        from nbclient import NotebookClient

        inicio = time.perf_counter()
        tiempos: dict[str, float] = {}
        NotebookClient.__init__(self, nb, km)
        self.reset_execution_trackers()
        self._check_assign_resources(resources)
        self._bytes_por_celda: dict[int, int] = {}
        self._bytes_total = 0
        self._recortadas: set[int] = set()
        self._con_error: set[int] = set()
        self._atendiendo = False
        self._congelado = False
        self.store_widget_state = False  # el estado de los widgets no se guarda (lo escribe el estudiante)
        if self.carpeta_trabajo:
            # El kernel arranca en su carpeta de trabajo, nunca en la de nbgrader.
            self.resources = {**(resources or {}), "metadata": {**(resources or {}).get("metadata", {}),
                                                                 "path": self.carpeta_trabajo}}
        celdas = list(self.nb.cells)
        lado_juez = [i for i, c in enumerate(celdas) if es_prueba(c) or es_compartida(c)]
        juez = _Juez(self.carpeta_juez or None, self._entorno_juez())
        try:
            # Las celdas compartidas viajan ya: el juez importa y prepara mientras arranca el kernel.
            enviadas = []
            for i in lado_juez:
                if es_compartida(celdas[i]):
                    juez.enviar({"tipo": "celda", "nombre": f"compartida-{i}", "codigo": celdas[i].source})
                    enviadas.append(i)
            with self.setup_kernel():
                info = self.wait_for_reply(self.kc.kernel_info())
                tiempos["arranque_kernel_s"] = time.perf_counter() - inicio
                self.nb.metadata["language_info"] = info["content"]["language_info"]
                for i, celda in enumerate(celdas):
                    if not es_prueba(celda):
                        self.preprocess_cell(celda, resources, i)
                tiempos["celdas_estudiante_s"] = time.perf_counter() - inicio - tiempos["arranque_kernel_s"]
                # Terminaron las celdas del estudiante: sus salidas se congelan. Lo que el kernel mande
                # mientras el juez pregunta no cambia nada de lo guardado (ver el módulo).
                self._congelado = True
                self._display_id_map = {}
                self.clear_before_next_output = False
                congeladas = {i: copy.deepcopy(self.nb.cells[i].get("outputs", []))
                              for i, c in enumerate(celdas) if c.cell_type == "code" and not es_prueba(c)}
                ocultas = lineas_ocultas([c for c in celdas if es_prueba(c)])
                vivo = True
                for i in lado_juez:
                    if not vivo:
                        salidas = [{"output_type": "error", "ename": "CellTimeoutError", "evalue": "",
                                    "traceback": ["El juez no respondió a tiempo en una prueba anterior."]}]
                    else:
                        if i not in enviadas:
                            juez.enviar({"tipo": "celda", "nombre": _nbg(celdas[i]).get("grade_id", f"celda-{i}"),
                                         "codigo": celdas[i].source})
                        salidas = self._correr_en_juez(juez, i)
                        if salidas is None:
                            vivo = False
                            salidas = [{"output_type": "error", "ename": "CellTimeoutError", "evalue": "",
                                        "traceback": [f"La prueba tardó más de {self.timeout} s y se detuvo."]}]
                    if es_prueba(celdas[i]):
                        self.nb.cells[i].outputs = [from_dict(s) for s in tapar(salidas, ocultas)]
                    elif any(s.get("output_type") == "error" for s in salidas):
                        self.log.warning("La celda compartida %s falló en el juez: %s", i,
                                         [s.get("evalue") for s in salidas if s.get("output_type") == "error"])
                for i, salidas in congeladas.items():
                    self.nb.cells[i].outputs = salidas
            tiempos["pruebas_s"] = (time.perf_counter() - inicio - tiempos["arranque_kernel_s"]
                                    - tiempos["celdas_estudiante_s"])
        finally:
            juez.cerrar()
        if self.carpeta_juez and tiempos:
            # Para tutor calificar y benchmarks/b_escala.py: en qué se fue el tiempo de esta entrega.
            (Path(self.carpeta_juez) / "tiempos.json").write_text(json.dumps(tiempos))
        self.set_widgets_metadata()
        self.resources = resources
        return self.nb, resources
