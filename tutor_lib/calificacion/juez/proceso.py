"""El proceso del juez: ejecuta las celdas de prueba, lejos del código del estudiante.

Lo arranca :class:`tutor_lib.calificacion.juez.ejecutor.EjecutarConJuez` (una vez por
entrega) y le habla por dos tuberías privadas con mensajes JSON de una línea:

* ``{"tipo": "celda", "nombre": ..., "codigo": ...}``: ejecuta una celda de
  prueba (o una celda compartida) en el espacio de nombres del juez, que dura
  toda la entrega;
* mientras la celda corre, cada uso de :data:`tutor_lib.calificacion.juez.alumno` manda
  ``{"tipo": "alumno", "pedido": ...}`` y espera ``{"tipo": "respuesta",
  "respuesta": ...}``: el ejecutor corre el pedido en el kernel del estudiante;
* al terminar la celda responde ``{"tipo": "fin", "salidas": [...]}`` con las
  salidas en el formato de nbformat (texto impreso, el error o el valor final).

Los errores solo llevan tipo y mensaje, nunca las líneas del código: el
rastreo de una prueba oculta no sale del juez.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import warnings

from tutor_lib.calificacion.juez.puente import alumno, correr

MAX_SALIDA = 100_000  # caracteres de texto impreso por celda


class _Tuberia:
    """Transporte de ``alumno`` dentro del juez: cada pedido viaja al ejecutor."""

    #: Los errores del estudiante llegan con un mensaje del juez, nunca con su texto
    #: (ver :func:`tutor_lib.calificacion.juez.puente.interpretar`).
    del_juez = True

    def __init__(self, entrada, salida):
        self.entrada, self.salida = entrada, salida

    def enviar(self, mensaje: dict) -> None:
        self.salida.write(json.dumps(mensaje, ensure_ascii=False) + "\n")
        self.salida.flush()

    def recibir(self) -> dict:
        linea = self.entrada.readline()
        if not linea:
            raise SystemExit(0)  # el ejecutor cerró la tubería: se termina
        return json.loads(linea)

    def pedir(self, pedido: str) -> str:
        self.enviar({"tipo": "alumno", "pedido": pedido})
        mensaje = self.recibir()
        if mensaje.get("tipo") != "respuesta":
            raise RuntimeError("El ejecutor respondió algo inesperado al juez.")
        return mensaje["respuesta"]


def _texto(valor) -> str:
    try:
        return repr(valor)
    except Exception:  # noqa: BLE001
        return f"<{type(valor).__name__}>"


def ejecutar_celda(codigo: str, nombre: str, espacio: dict) -> list[dict]:
    """Corre ``codigo`` en ``espacio`` y devuelve sus salidas como nbformat."""
    salidas: list[dict] = []
    out, err = io.StringIO(), io.StringIO()
    resultado = None
    error = None
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            resultado = correr(codigo, espacio, f"<{nombre}>")
    except SystemExit:
        raise
    except BaseException as exc:  # noqa: BLE001 — toda falla de la prueba se informa
        error = exc
    for nombre_flujo, flujo in (("stdout", out), ("stderr", err)):
        texto = flujo.getvalue()
        if texto:
            if len(texto) > MAX_SALIDA:
                texto = texto[:MAX_SALIDA] + "\n[… salida recortada]\n"
            salidas.append({"output_type": "stream", "name": nombre_flujo, "text": texto})
    if error is not None:
        ename = type(error).__name__
        evalue = str(error)[:5000]
        salidas.append({"output_type": "error", "ename": ename, "evalue": evalue,
                        "traceback": [f"{ename}: {evalue}"]})
    elif resultado is not None:
        salidas.append({"output_type": "execute_result", "execution_count": None, "metadata": {},
                        "data": {"text/plain": _texto(resultado)[:MAX_SALIDA]}})
    return salidas


def main() -> None:
    entrada = os.fdopen(int(sys.argv[1]), "r", encoding="utf-8")
    salida = os.fdopen(int(sys.argv[2]), "w", encoding="utf-8")
    tuberia = _Tuberia(entrada, salida)
    alumno.transporte = tuberia
    warnings.simplefilter("ignore")  # un aviso de biblioteca en stderr le quitaría los puntos a la prueba
    espacio: dict = {"__name__": "__juez__", "__builtins__": __builtins__}
    while True:
        mensaje = tuberia.recibir()
        if mensaje.get("tipo") != "celda":
            continue
        salidas = ejecutar_celda(mensaje["codigo"], mensaje.get("nombre", "celda"), espacio)
        tuberia.enviar({"tipo": "fin", "salidas": salidas})


if __name__ == "__main__":
    main()
