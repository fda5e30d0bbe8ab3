"""El preprocesador de nbgrader que ejecuta cada celda donde corresponde.

``nbgrader autograde`` ejecuta el notebook con su preprocesador ``Execute``.
:class:`EjecutarConJuez` lo reemplaza (``c.Autograde.autograde_preprocessors``
en la configuración que escribe :mod:`tutor_lib.calificador`) y conserva todo
lo demás de nbgrader: la libreta de calificaciones, la retroalimentación,
formgrader, la calificación a mano y la exportación.

Para cada entrega:

1. arranca el kernel del estudiante (aislado por el ``kernel.json`` del
   calificador) en su carpeta de trabajo, que no es ninguna carpeta de
   nbgrader, y al mismo tiempo el proceso del juez (:mod:`tutor_lib.juez.proceso`),
   al que le manda de inmediato las celdas compartidas;
2. ejecuta en el kernel, en orden, todas las celdas que no son de prueba
   (soluciones, celdas bloqueadas, celdas agregadas), con la salida acotada;
3. ejecuta en el juez, en orden, las celdas de prueba; cada pedido de
   ``alumno`` se ejecuta en el kernel como una celda aparte, cuya salida no
   se guarda en ningún lado: solo vuelve al juez el dato plano.

Qué celda es de prueba lo decide la metadata de nbgrader *después* de que
nbgrader la restauró desde su libreta (``OverwriteCells``), y qué celda es
compartida, el código de una celda bloqueada (también restaurado): nada que el
estudiante escriba en su notebook cambia dónde corre una celda.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from nbformat.v4 import new_code_cell, output_from_msg
from nbgrader.preprocessors import Execute
from traitlets import Integer, Unicode

from tutor_lib.juez import MARCA_COMPARTIDA
from tutor_lib.juez.puente import MIME
from tutor_lib.reconstruccion import _nbg


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
        argv = [sys.executable, "-m", "tutor_lib.juez.proceso", str(leer_juez), str(escribir_juez)]
        if env.get("TUTOR_PRECARGA"):  # nace del servidor de precarga, con lo pesado ya importado
            argv = [sys.executable, "-m", "tutor_lib.precarga", *argv]
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
            with open(os.path.join(self.carpeta, "juez.err")) as f:
                return f.read()[-2000:]
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

    # -- salida acotada del kernel del estudiante --
    def output(self, outs, msg, display_id, cell_index):
        if self._atendiendo:
            return super().output(outs, msg, display_id, cell_index)  # la respuesta a un pedido: la acota datos.py
        if msg.get("msg_type") == "error":  # el error de una celda siempre se guarda, acotado
            c = msg.get("content", {})
            acotado = {**c, "evalue": str(c.get("evalue", ""))[:10_000],
                       "traceback": [str(l)[:10_000] for l in list(c.get("traceback", []))[:100]]}
            return super().output(outs, {**msg, "content": acotado}, display_id, cell_index)
        if cell_index in self._recortadas:
            return None
        tamano = len(json.dumps(msg.get("content", {}), default=str))
        usados = self._bytes_por_celda.get(cell_index, 0)
        libres = min(self.max_salida_celda - usados, self.max_salida_total - self._bytes_total)
        if tamano <= libres:
            self._bytes_por_celda[cell_index] = usados + tamano
            self._bytes_total += tamano
            return super().output(outs, msg, display_id, cell_index)
        # Se pasa del máximo: de un texto se guarda lo que cabe; después, solo un aviso.
        self._recortadas.add(cell_index)
        contenido = msg.get("content", {})
        if msg.get("msg_type") == "stream" and libres > 0 and isinstance(contenido.get("text"), str):
            parcial = {**msg, "content": {**contenido, "text": contenido["text"][: libres // 2]}}
            super().output(outs, parcial, display_id, cell_index)
        self._bytes_por_celda[cell_index] = self.max_salida_celda
        self._bytes_total += max(libres, 0)
        outs.append(output_from_msg({
            "msg_type": "stream", "header": {"msg_type": "stream"},
            "content": {"name": "stdout", "text": "\n[… salida recortada: superó el máximo permitido]\n"},
        }))
        return None

    # -- un pedido de alumno: una celda aparte en el kernel del estudiante --
    def _atender(self, pedido: str, indice: int) -> str:
        original = self.nb.cells[indice]
        codigo = f"__import__('tutor_lib.juez.puente', fromlist=['publicar']).publicar({pedido!r})"
        celda = new_code_cell(codigo)
        self._atendiendo = True
        try:
            self.execute_cell(celda, indice, store_history=False)
        finally:
            self._atendiendo = False
            self.nb.cells[indice] = original
        for salida in celda.outputs:
            if salida.get("output_type") == "error":
                nombre = salida.get("ename", "")
                if "Timeout" in nombre or nombre == "KeyboardInterrupt":
                    return json.dumps({"error": {"ename": "TiempoAgotado", "evalue": (
                        f"Tu código tardó más de {self.timeout} s en responder a la prueba y se interrumpió: "
                        "¿hay un ciclo que no termina?")}})
        for salida in celda.outputs:
            datos = salida.get("data", {}) if salida.get("output_type") == "display_data" else {}
            if MIME in datos:
                respuesta = datos[MIME]
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
        from nbformat import from_dict

        inicio = time.perf_counter()
        tiempos: dict[str, float] = {}
        NotebookClient.__init__(self, nb, km)
        self.reset_execution_trackers()
        self._check_assign_resources(resources)
        self._bytes_por_celda: dict[int, int] = {}
        self._bytes_total = 0
        self._recortadas: set[int] = set()
        self._atendiendo = False
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
                        self.nb.cells[i].outputs = [from_dict(s) for s in salidas]
                    elif any(s.get("output_type") == "error" for s in salidas):
                        self.log.warning("La celda compartida %s falló en el juez: %s", i,
                                         [s.get("evalue") for s in salidas if s.get("output_type") == "error"])
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
