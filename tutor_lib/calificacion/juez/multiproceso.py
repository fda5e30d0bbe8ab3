"""Varios procesos de ``torch.distributed`` (gloo, en CPU) lanzados desde un notebook, como ``torchrun``.

:func:`lanzar` arranca ``procesos`` intérpretes de Python nuevos (uno por
rango, el *rank*), los une en un grupo de gloo, corre en cada uno el código de tus
funciones y un trozo de código, y devuelve la última expresión de cada proceso
como dato plano (:mod:`tutor_lib.calificacion.juez.datos`)::

    from tutor_lib.juez.multiproceso import lanzar

    def sumar_rangos():
        t = torch.tensor([float(dist.get_rank())])
        dist.all_reduce(t)
        return t.item()

    lanzar("sumar_rangos()", 2, funciones=[sumar_rangos])   # [1.0, 1.0]

Por qué así y no con ``torch.multiprocessing.spawn``: una función definida en
una celda no se puede enviar por pickle a un proceso nuevo. Aquí viaja su
**código** (``inspect.getsource``), junto con el de las funciones y las
constantes de tu notebook que usa; cada proceso lo vuelve a ejecutar.

En cada proceso están ``torch``, ``nn``, ``F``, ``dist``, ``math``, ``rank`` y
``world_size``, las variables de ``valores`` y las variables de entorno de
``torchrun`` (``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``...). El grupo ya está
iniciado (``dist.init_process_group("gloo")`` con un archivo como punto de
encuentro, sin puertos) y se cierra al final.

Nada se queda colgado: una operación colectiva que un proceso hace y otro no
falla a los ``tiempo_colectivas`` segundos, y a los ``tiempo_max`` segundos se
matan los procesos que queden. Los errores llegan con un mensaje en español
(:class:`TimeoutError` si algo no terminó; el mismo tipo de excepción si tu
código lanzó una excepción común de Python).

Se usa en exercises/ej13_distribuido.
"""

from __future__ import annotations

import builtins
import dis
import inspect
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import types

from tutor_lib.calificacion.juez import datos

MAX_PROCESOS = 8
MAX_SALIDA = 4000  # caracteres de lo que imprime cada proceso que se muestran

# Lo que ya está definido en cada proceso: no hace falta copiarlo del notebook.
_PREDEFINIDOS = {"torch", "nn", "F", "dist", "math", "rank", "world_size"}

# Excepciones de Python que se vuelven a lanzar con su tipo (el resto, como RuntimeError).
_CONOCIDAS = (
    "NotImplementedError", "NameError", "TypeError", "ValueError", "AttributeError", "KeyError", "IndexError",
    "ZeroDivisionError", "AssertionError", "RecursionError", "MemoryError", "UnboundLocalError",
    "OverflowError", "ImportError", "ModuleNotFoundError", "LookupError", "ArithmeticError",
)


# -- lado del notebook -------------------------------------------------------------------------

def _fuente_de(nombre: str, funcion) -> str:
    try:
        fuente = textwrap.dedent(inspect.getsource(funcion))
    except (OSError, TypeError):
        raise ValueError(
            f"No pude leer el código de {nombre}: defínela con def en una celda del notebook "
            "(cada proceso recibe el código de tus funciones, no el objeto)."
        ) from None
    if funcion.__name__ != nombre and funcion.__name__ != "<lambda>":
        fuente += f"\n{nombre} = {funcion.__name__}\n"
    return fuente


def _nombres_globales(codigo: types.CodeType) -> set[str]:
    """Los nombres globales que lee ``codigo`` (y las funciones definidas dentro), sin los atributos."""
    nombres = {i.argval for i in dis.get_instructions(codigo)
               if i.opname in ("LOAD_GLOBAL", "LOAD_NAME") and isinstance(i.argval, str)}
    for constante in codigo.co_consts:
        if isinstance(constante, types.CodeType):
            nombres |= _nombres_globales(constante)
    return nombres


def _programa(funciones: dict) -> list[str]:
    """El código que reconstruye ``funciones`` en otro proceso, con lo que usan de su notebook.

    Se copian también las funciones del notebook que usan (con su código), los módulos (como un
    ``import``) y las constantes simples (números, textos cortos, ``None``).
    """
    trozos: list[str] = []
    vistos: set[str] = set(_PREDEFINIDOS)
    pendientes = [(nombre, funcion, True) for nombre, funcion in funciones.items()]
    while pendientes:
        nombre, funcion, pedida = pendientes.pop(0)
        if nombre in vistos:
            continue
        vistos.add(nombre)
        if type(funcion) is not types.FunctionType:
            raise TypeError(f"{nombre} debe ser una función definida con def; es {type(funcion).__name__}.")
        try:
            trozos.append(_fuente_de(nombre, funcion))
        except ValueError:
            if pedida:
                raise
            continue  # una función que usa y no se puede leer: si de verdad la necesita, el proceso lo dirá
        globales = funcion.__globals__
        for usado in sorted(_nombres_globales(funcion.__code__) - vistos):
            if usado not in globales:
                continue
            valor = globales[usado]
            if type(valor) is types.FunctionType and valor.__globals__ is globales:
                pendientes.append((usado, valor, False))
            elif type(valor) is types.ModuleType:
                vistos.add(usado)
                trozos.append(f"import {valor.__name__} as {usado}\n")
            elif type(valor) is float:  # repr(inf) es «inf», un nombre que el proceso no conoce: float('inf') sí
                vistos.add(usado)
                trozos.append(f"{usado} = float({repr(valor)!r})\n")
            elif valor is None or type(valor) in (bool, int) or (type(valor) is str and len(valor) < 10_000):
                vistos.add(usado)
                trozos.append(f"{usado} = {valor!r}\n")
    return trozos


def _interfaz_de_bucle() -> str:
    return "lo0" if sys.platform == "darwin" else "lo"


def _matar(proceso: subprocess.Popen) -> None:
    """Mata el proceso y lo que haya lanzado (su grupo de procesos, en Linux y macOS)."""
    if hasattr(os, "killpg"):
        try:
            os.killpg(proceso.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        proceso.kill()
    except ProcessLookupError:
        pass
    proceso.wait()


def _leer(ruta: str, limite: int) -> str:
    try:
        with open(ruta, encoding="utf-8", errors="replace") as f:
            return f.read(limite + 1)
    except OSError:
        return ""


def _pista(mensaje: str) -> str:
    texto = mensaje.lower()
    if any(t in texto for t in ("timed out", "timeout", "connection closed", "connection reset", "broken pipe")):
        return ("Pista: los procesos deben hacer las mismas operaciones colectivas (all_reduce, broadcast...), "
                "en el mismo orden y con tensores de la misma forma; si un proceso hace una y otro no, se quedan "
                "esperándose.")
    if "init_process_group" in texto or "default process group" in texto:
        return "Pista: el grupo ya está iniciado en cada proceso; tu función no debe iniciarlo ni destruirlo."
    if "is not defined" in texto:
        return ("Pista: cada proceso recibe el código de tus funciones y las constantes que usan; "
                "lo demás (por ejemplo, un objeto creado en otra celda) no existe allí.")
    if "nonetype" in texto or "invalid function argument" in texto:
        return "Pista: salta los tensores que son None, como el .grad de un parámetro congelado."
    if "leaf variable" in texto:
        return "Pista: cambia los parámetros dentro de torch.no_grad() (o usa p.data)."
    return ""


def _limpiar(mensaje: str) -> str:
    """El mensaje de una biblioteca sin la ruta de su código fuente ni el consejo para sus desarrolladores."""
    mensaje = re.sub(r"\[[^\]]*\.(?:cc|cpp|h):\d+\]\s*", "", mensaje)
    mensaje = mensaje.split(" This is typically caused")[0]
    return " ".join(mensaje.split())[:400]


def explicar_error(nombre: str, mensaje: str) -> str:
    """Un error de un proceso en español: su tipo, una pista si se reconoce y el detalle de la biblioteca al final.

    Se usa en :func:`lanzar` y en las pruebas de exercises/ej13_distribuido (errores que el código de la prueba
    atrapa dentro de cada proceso y devuelve como texto).
    """
    detalle, pista = _limpiar(str(mensaje)), _pista(str(mensaje))
    if pista:
        return f"{nombre}. {pista}" + (f" (Detalle: {detalle})" if detalle else "")
    return f"{nombre}: {detalle}" if detalle else f"{nombre}."


def lanzar(codigo: str, procesos: int = 2, *, funciones=(), tiempo_max: float = 60.0,
           tiempo_colectivas: float | None = None, **valores) -> list:
    """Corre ``codigo`` en ``procesos`` procesos de gloo y devuelve la última expresión de cada uno.

    ``funciones``: tus funciones (una lista, o un dict nombre → función) cuyo código viaja a cada proceso.
    ``valores``: datos planos (números, textos, listas, dicts, tensores) que cada proceso recibe como variables.
    Devuelve una lista con un valor por rango (0, 1, ...). Se usa en exercises/ej13_distribuido.
    """
    if type(codigo) is not str:
        raise TypeError(f"codigo debe ser un texto con código de Python; es {type(codigo).__name__}.")
    if type(procesos) is not int or not 1 <= procesos <= MAX_PROCESOS:
        raise ValueError(f"procesos debe ser un entero entre 1 y {MAX_PROCESOS}; es {procesos!r}.")
    if not 1 <= float(tiempo_max) <= 600:
        raise ValueError(f"tiempo_max debe estar entre 1 y 600 segundos; es {tiempo_max!r}.")
    tiempo_colectivas = float(tiempo_colectivas or max(1.0, float(tiempo_max) / 3))
    if isinstance(funciones, dict):
        pedidas = dict(funciones)
    else:
        pedidas = {}
        for funcion in funciones:
            if type(funcion) is not types.FunctionType:
                raise TypeError(f"funciones debe tener funciones definidas con def; recibí {type(funcion).__name__}.")
            pedidas[funcion.__name__] = funcion
    programa = {
        "fuentes": _programa(pedidas),
        "codigo": codigo,
        "valores": datos.codificar(valores),
        "procesos": procesos,
        "tiempo_colectivas": tiempo_colectivas,
        "tiempo_max": float(tiempo_max),
    }
    carpeta = tempfile.mkdtemp(prefix="tutor-dist-")
    try:
        with open(os.path.join(carpeta, "programa.json"), "w", encoding="utf-8") as f:
            json.dump(programa, f)
        base = dict(os.environ)
        base.update(
            WORLD_SIZE=str(procesos), LOCAL_WORLD_SIZE=str(procesos), MASTER_ADDR="127.0.0.1",
            GLOO_SOCKET_IFNAME=_interfaz_de_bucle(), OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
            PYTHONUNBUFFERED="1", PYTHONWARNINGS="ignore",
        )
        hijos = []
        try:
            for rank in range(procesos):
                env = dict(base, RANK=str(rank), LOCAL_RANK=str(rank))
                with open(os.path.join(carpeta, f"salida-{rank}.txt"), "wb") as salida:
                    hijos.append(subprocess.Popen(
                        [sys.executable, "-m", "tutor_lib.calificacion.juez.multiproceso", carpeta, str(rank)],
                        stdin=subprocess.DEVNULL, stdout=salida, stderr=subprocess.STDOUT, cwd=carpeta, env=env,
                        start_new_session=True,
                    ))
            limite = time.monotonic() + float(tiempo_max)
            while time.monotonic() < limite and any(h.poll() is None for h in hijos):
                time.sleep(0.02)
            colgados = [r for r, h in enumerate(hijos) if h.poll() is None]
        finally:
            for h in hijos:
                if h.poll() is None:
                    _matar(h)
        for rank in range(procesos):
            impreso = _leer(os.path.join(carpeta, f"salida-{rank}.txt"), MAX_SALIDA)
            if impreso.strip():
                recortado = impreso[:MAX_SALIDA] + ("\n[… salida recortada]" if len(impreso) > MAX_SALIDA else "")
                print(textwrap.indent(recortado.rstrip("\n"), f"[proceso {rank}] "))
        if colgados:
            lista = " y ".join(map(str, colgados)) if len(colgados) < 3 else ", ".join(map(str, colgados))
            quienes = (f"El proceso de rango {lista} no terminó en {tiempo_max:g} s y se detuvo" if len(colgados) == 1
                       else f"Los procesos de rango {lista} no terminaron en {tiempo_max:g} s y se detuvieron")
            raise TimeoutError(
                f"{quienes}. ¿Hay un ciclo sin fin, o un proceso espera una operación colectiva (all_reduce, "
                "broadcast...) que otro no hace?"
            )
        resultados, errores = [], []
        for rank in range(procesos):
            texto = _leer(os.path.join(carpeta, f"resultado-{rank}.json"), datos.MAX_BYTES)
            try:
                respuesta = json.loads(texto)
            except json.JSONDecodeError:
                impreso = _leer(os.path.join(carpeta, f"salida-{rank}.txt"), 10**6).strip()
                final = " ".join(impreso.splitlines()[-3:])[-400:]
                evalue = f"Código de salida: {hijos[rank].returncode}."
                if final:
                    evalue += f" Lo último que escribió: {final}"
                respuesta = {"error": {"ename": "SinRespuesta", "evalue": evalue}}
            if "error" in respuesta:
                errores.append((rank, respuesta["error"]))
                resultados.append(None)
            else:
                resultados.append(datos.decodificar(respuesta["valor"]))
        if errores:
            rank, error = errores[0]
            nombre, mensaje = str(error.get("ename", "RuntimeError")), str(error.get("evalue", ""))
            demas = [str(r) for r, _ in errores[1:]]
            otros = ""  # los demás procesos que fallaron igual
            if demas:
                otros = f"el de rango {demas[0]}" if len(demas) == 1 else \
                    f"los de rango {', '.join(demas[:-1])} y {demas[-1]}"
            texto = (f"En el proceso de rango {rank}{f' (y en {otros})' if otros else ''}, tu código lanzó "
                     f"{explicar_error(nombre, mensaje)}")
            if nombre == "ErrorDeConexion":
                texto = (f"Los {procesos} procesos no pudieron formar el grupo de gloo (¿la interfaz "
                         f"{_interfaz_de_bucle()} está apagada?). Detalle: {_limpiar(mensaje)}")
            elif nombre == "SinRespuesta":
                texto = f"El proceso de rango {rank}{f' (y {otros})' if otros else ''} terminó sin responder. {mensaje}"
            clase = getattr(builtins, nombre) if nombre in _CONOCIDAS else RuntimeError
            raise clase(texto)
        return resultados
    finally:
        shutil.rmtree(carpeta, ignore_errors=True)


# -- lado de cada proceso --------------------------------------------------------------------

def _trabajar(carpeta: str, rank: int, programa: dict) -> dict:
    import datetime
    import math

    import torch
    import torch.distributed as dist
    import torch.nn as nn
    import torch.nn.functional as F

    from tutor_lib.calificacion.juez.puente import correr

    procesos = int(programa["procesos"])
    torch.set_num_threads(1)
    try:
        dist.init_process_group(
            "gloo", init_method=f"file://{os.path.join(carpeta, 'encuentro')}", rank=rank, world_size=procesos,
            timeout=datetime.timedelta(seconds=float(programa["tiempo_colectivas"])),
        )
    except Exception as exc:  # noqa: BLE001 — se informa como dato
        return {"error": {"ename": "ErrorDeConexion", "evalue": f"{type(exc).__name__}: {exc}"[:2000]}}
    espacio = {"__name__": "__main__", "__builtins__": builtins, "torch": torch, "nn": nn, "F": F, "dist": dist,
               "math": math, "rank": rank, "world_size": procesos}
    try:
        for i, fuente in enumerate(programa["fuentes"]):
            exec(compile(fuente, f"<tu código {i}>", "exec"), espacio)
        espacio.update(datos.decodificar(programa["valores"]))
        valor = correr(programa["codigo"], espacio, "<prueba>")
        return {"valor": datos.codificar(valor)}
    except BaseException as exc:  # noqa: BLE001 — todo error del estudiante se informa como dato
        try:
            mensaje = str(exc)
        except BaseException:  # noqa: BLE001 — un __str__ hostil
            mensaje = ""
        return {"error": {"ename": type(exc).__name__[:100], "evalue": mensaje[:2000]}}
    finally:
        try:
            if dist.is_initialized():
                dist.destroy_process_group()
        except BaseException:  # noqa: BLE001
            pass


def main() -> None:
    carpeta, rank = sys.argv[1], int(sys.argv[2])
    with open(os.path.join(carpeta, "programa.json"), encoding="utf-8") as f:
        programa = json.load(f)
    if hasattr(signal, "alarm"):
        # Si el notebook que lo lanzó muere sin matarlo, el proceso no queda colgado para siempre.
        signal.alarm(int(programa["tiempo_max"]) + 10)
    respuesta = _trabajar(carpeta, rank, programa)
    sys.stdout.flush()
    with open(os.path.join(carpeta, f"resultado-{rank}.json"), "w", encoding="utf-8") as f:
        json.dump(respuesta, f)
    os._exit(0)  # sin esperar hilos de gloo ni destructores


if __name__ == "__main__":
    main()
