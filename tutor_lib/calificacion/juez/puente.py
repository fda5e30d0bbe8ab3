"""El puente: cómo una prueba le pide algo al código del estudiante.

Una celda de prueba nunca toca un objeto del estudiante. Le pide a su
proceso que ejecute un trozo de código y le devuelva el resultado como dato
plano (:mod:`tutor_lib.calificacion.juez.datos`)::

    from tutor_lib.juez import alumno

    total = alumno.llamar("pasos_totales", 1000, 16, 1, 3)      # un int de verdad
    nombres = alumno.ejecutar('''
    modelo = bert_diminuto()
    [n for n, _ in modelo.named_parameters()]
    ''')                                                       # una lista de str

* ``ejecutar(codigo, **valores)`` corre ``codigo`` en una copia del espacio
  de nombres del notebook del estudiante (sus funciones y variables), con
  ``valores`` (datos planos) como variables, y devuelve el valor de la última
  expresión;
* ``llamar(nombre, *args, **kwargs)`` llama a una función del estudiante;
* ``existe(nombre)`` dice si el estudiante definió ``nombre``.

Si el código del estudiante lanza una excepción, ``alumno`` la vuelve a lanzar
en la prueba con el mismo tipo cuando es una excepción común de Python
(``NotImplementedError``, ``TypeError``...) y como :class:`ErrorDelAlumno`
si no. El mensaje depende de dónde corre la prueba:

* en tu notebook, es el de tu excepción (es tu propio kernel: ves tus errores);
* al calificar, es un mensaje fijo del juez que nombra el tipo solo si es una
  excepción de Python (nunca el texto, los argumentos, las notas ni la causa
  de tu excepción, ni el nombre de una clase tuya): lo que muestra el juez
  nunca es texto que produjo el código del estudiante (el código del pedido
  de una prueba oculta, por ejemplo).

Hay dos formas de transporte, con la misma conversión a datos planos:

* **en tu notebook** (JupyterLab, Colab), las pruebas visibles corren en tu
  propio kernel: ``alumno`` ejecuta el código ahí mismo, pasando el resultado
  por la codificación para que veas lo mismo que verá el juez;
* **al calificar**, las pruebas corren en el proceso del juez, y ``alumno``
  manda cada pedido a tu kernel aislado (:mod:`tutor_lib.calificacion.juez.ejecutor`).
"""

from __future__ import annotations

import ast
import builtins
import json
import sys

from tutor_lib.calificacion.juez import datos

MIME = "application/x-tutor-juez+json"

# Excepciones que se vuelven a lanzar con su tipo (el resto, como ErrorDelAlumno).
_CONOCIDAS = {
    nombre: getattr(builtins, nombre)
    for nombre in (
        "NotImplementedError", "NameError", "TypeError", "ValueError", "AttributeError", "KeyError",
        "IndexError", "ZeroDivisionError", "RuntimeError", "AssertionError", "RecursionError",
        "MemoryError", "UnboundLocalError", "OverflowError", "ImportError", "ModuleNotFoundError",
        "StopIteration", "LookupError", "ArithmeticError", "FloatingPointError",
    )
}


class ErrorDelAlumno(Exception):
    """El código del estudiante lanzó una excepción que no es de las comunes."""


def correr(codigo: str, espacio: dict, nombre: str = "<prueba>"):
    """Corre ``codigo`` en ``espacio`` y devuelve el valor de su última expresión (o None).

    Es lo que hace una celda de Jupyter; lo usan el puente (con una copia del espacio
    del estudiante) y el proceso del juez (con su propio espacio, que dura toda la entrega).
    """
    arbol = ast.parse(codigo, nombre, "exec")
    ultima = None
    if arbol.body and isinstance(arbol.body[-1], ast.Expr):
        ultima = ast.Expression(arbol.body.pop().value)
    exec(compile(arbol, nombre, "exec"), espacio)
    return eval(compile(ultima, nombre, "eval"), espacio) if ultima is not None else None


def _ejecutar_en(espacio: dict, codigo: str, valores: dict):
    """Corre ``codigo`` en una copia de ``espacio`` (con ``valores``) y devuelve su última expresión."""
    return correr(codigo, {**espacio, **valores})


def responder(pedido: str, espacio: dict | None = None) -> str:
    """Lado del estudiante: atiende un pedido (JSON) y devuelve la respuesta (JSON).

    La respuesta es ``{"valor": <dato codificado>}`` o ``{"error": {"ename", "evalue"}}``.
    """
    if espacio is None:
        espacio = sys.modules["__main__"].__dict__
    try:
        contenido = json.loads(pedido)
        valores = datos.decodificar(contenido["valores"])
        resultado = _ejecutar_en(espacio, contenido["codigo"], valores)
        return json.dumps({"valor": datos.codificar(resultado)})
    except BaseException as exc:  # noqa: BLE001 — todo error del estudiante se informa como dato
        nombre = type(exc).__name__
        try:
            mensaje = str(exc)
        except BaseException:  # noqa: BLE001 — un __str__ hostil
            mensaje = ""
        return json.dumps({"error": {"ename": nombre[:100], "evalue": mensaje[:2000]}})


def publicar(pedido: str) -> None:
    """Lado del estudiante al calificar: responde y publica la respuesta como salida del kernel."""
    from IPython.display import publish_display_data

    publish_display_data({MIME: responder(pedido)})


#: Nombres de excepciones de Python que el juez puede nombrar en su mensaje: son nombres de la
#: biblioteca estándar, no texto del estudiante (una clase propia puede llamarse como quiera).
_NOMBRABLES = frozenset(
    nombre for nombre, valor in vars(builtins).items()
    if isinstance(valor, type) and issubclass(valor, BaseException)
)


def _mensaje_del_juez(nombre: str, llamada: str | None) -> str:
    """Lo que dice el juez cuando el código del estudiante lanzó ``nombre`` (texto fijo del juez)."""
    quien = f"Tu función {llamada}" if llamada else "Tu código"
    que = f"lanzó {nombre}" if nombre in _NOMBRABLES else "lanzó una excepción de un tipo propio"
    return (f"{quien} {que} al responder a la prueba. Al calificar no se muestra el mensaje de tu "
            "excepción: ejecuta las pruebas visibles en tu notebook para verlo.")


def _rastro_corto(self) -> list[str]:
    """Lo que IPython muestra en vez del traceback: solo el mensaje (no hay nada que depurar en el juez)."""
    return [f"\x1b[31mNotImplementedError\x1b[39m: {self}"]


#: Una ``NotImplementedError`` (``except NotImplementedError`` la atrapa y se llama igual) que en
#: Jupyter se muestra sin los marcos del puente (IPython usa ``_render_traceback_`` si existe).
_SinEscribir = type("NotImplementedError", (NotImplementedError,), {
    "_render_traceback_": _rastro_corto, "__module__": "builtins"})


def _sin_escribir(llamada: str | None, mensaje: str) -> str:
    """En tu notebook, una parte sin escribir: lo mismo que dice la autoevaluación, no un traceback mudo."""
    quien = f"tu función {llamada}" if llamada else "tu código"
    propio = f" (tu mensaje: {mensaje})" if mensaje else ""
    return (f"Todavía no escribiste esta parte: {quien} aún lanza NotImplementedError{propio}. Reemplaza "
            "`raise NotImplementedError()` por tu código, ejecuta esa celda y luego esta prueba otra vez.")


def interpretar(respuesta: str, del_juez: bool = False, llamada: str | None = None):
    """Lado del juez: el valor de una respuesta, o la excepción del estudiante lanzada de nuevo.

    Con ``del_juez`` (al calificar) los mensajes son del juez: nunca el texto de la
    excepción del estudiante, ni lo que hizo fallar la decodificación; ``llamada`` es el
    nombre de la función que pidió la prueba (lo escribió la prueba, no el estudiante).
    Sin ``del_juez`` (en tu notebook) llega el mensaje de tu excepción, como siempre; una parte
    sin escribir (``NotImplementedError``) lo dice en español, como la autoevaluación.
    """
    __tracebackhide__ = True  # noqa: F841 — IPython no muestra este marco: el error es del estudiante
    try:
        contenido = json.loads(respuesta)
    except (TypeError, json.JSONDecodeError):
        raise ErrorDelAlumno("La respuesta de tu kernel llegó dañada.") from None
    if type(contenido) is not dict:
        raise ErrorDelAlumno("La respuesta de tu kernel llegó dañada.")
    if "error" in contenido:
        error = contenido["error"] if type(contenido["error"]) is dict else {}
        nombre, mensaje = str(error.get("ename", "Error")), str(error.get("evalue", ""))
        if del_juez:
            if nombre == "DatoNoPlano":
                raise TypeError(
                    "Tu código devolvió algo que no es un dato plano: las pruebas solo reciben números, textos, "
                    "listas, tuplas, diccionarios, conjuntos y tensores (o arreglos de numpy).")
            if nombre in ("TiempoAgotado", "TimeoutError"):
                raise TimeoutError("Tu código tardó demasiado en responder a la prueba y se interrumpió: "
                                   "¿hay un ciclo que no termina?")
            clase = _CONOCIDAS.get(nombre)
            raise (clase or ErrorDelAlumno)(_mensaje_del_juez(nombre, llamada))
        if nombre == "DatoNoPlano":
            raise TypeError(mensaje)
        if nombre in ("TiempoAgotado", "TimeoutError"):
            raise TimeoutError(mensaje)
        if nombre == "NotImplementedError":
            raise _SinEscribir(_sin_escribir(llamada, mensaje))
        clase = _CONOCIDAS.get(nombre)
        if clase is not None:
            raise clase(mensaje)
        raise ErrorDelAlumno(f"Tu código lanzó {nombre}: {mensaje}")
    try:
        return datos.decodificar(contenido.get("valor"))
    except datos.DatoInvalido as exc:
        detalle = "" if del_juez else f" ({exc})"
        raise ErrorDelAlumno(f"Tu kernel devolvió algo que no es un dato plano válido{detalle}.") from None


class _Local:
    """Transporte en el propio kernel del estudiante (pruebas visibles en su notebook)."""

    #: En tu notebook ves el mensaje de tus excepciones (ver :func:`interpretar`).
    del_juez = False

    def pedir(self, pedido: str) -> str:
        return responder(pedido)


class Alumno:
    """El código del estudiante visto desde una prueba (ver la documentación del módulo)."""

    def __init__(self):
        self.transporte = _Local()

    def ejecutar(self, codigo: str, **valores):
        """Corre ``codigo`` con el código del estudiante y devuelve su última expresión como dato plano."""
        __tracebackhide__ = True  # noqa: F841
        return self._pedir(codigo, valores, None)

    def _pedir(self, codigo: str, valores: dict, llamada: str | None):
        __tracebackhide__ = True  # noqa: F841
        pedido = json.dumps({"codigo": codigo, "valores": datos.codificar(valores)})
        # Sin el atributo (un transporte ajeno), como al calificar: el mensaje es del juez.
        del_juez = getattr(self.transporte, "del_juez", True) is not False
        return interpretar(self.transporte.pedir(pedido), del_juez=del_juez, llamada=llamada)

    def llamar(self, nombre: str, *args, **kwargs):
        """``nombre(*args, **kwargs)`` en el proceso del estudiante; devuelve el resultado como dato plano."""
        __tracebackhide__ = True  # noqa: F841
        if not nombre.isidentifier():
            raise ValueError(f"{nombre!r} no es un nombre de función válido.")
        return self._pedir(f"{nombre}(*_args_juez, **_kwargs_juez)",
                           {"_args_juez": list(args), "_kwargs_juez": kwargs}, nombre)

    def existe(self, nombre: str) -> bool:
        """¿El estudiante definió ``nombre``?"""
        __tracebackhide__ = True  # noqa: F841
        return self.ejecutar(f"{nombre!r} in globals()") is True


alumno = Alumno()
