"""Autoevaluación para quien estudia sin instructor: ``tutor corregir`` y ``revisar()``.

Califica tu notebook con nbgrader y con **las mismas pruebas** que usa un
instructor (también las ocultas), a través de :mod:`tutor_lib.calificacion.motor.calificador`.
Te dice qué parte pasa y qué revisar, en español, sin mostrar código de la
solución. Lo usan la última celda de cada ejercicio (``exercises/``) y la
lección 00, que explica cómo trabajar con los ejercicios.

Desde una terminal::

    tutor corregir exercises/ej04_warmup/ej04_warmup.ipynb
    tutor corregir mi_copia.ipynb --asignacion ej04_warmup --json
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from tutor_lib.calificacion.motor.calificador import CursoTemporal, detectar_asignacion
from tutor_lib.calificacion.resultados import Calificacion, Limites


def corregir(notebook: str | Path, asignacion: str | None = None, limites: Limites | None = None,
             aislar: bool = True) -> Calificacion:
    """Califica un notebook y devuelve la :class:`~tutor_lib.calificacion.resultados.Calificacion`."""
    ruta = Path(notebook)
    if not ruta.is_file():
        raise FileNotFoundError(f"No existe el notebook {ruta}.")
    asig = asignacion or detectar_asignacion(ruta.name)
    # Con precarga (Linux): torch y transformers se importan mientras nbgrader prepara la asignación. Sin
    # retroalimentación HTML: se borraría con la carpeta temporal y el informe es el texto de abajo.
    with CursoTemporal(asig, limites=limites, aislar=aislar, precarga=True) as curso:
        return curso.calificar("tu_entrega", ruta, retroalimentacion=False)


def como_json(cal: Calificacion) -> dict:
    """El JSON estable de ``tutor corregir --json`` (claves documentadas en course/REFERENCIA_TUTOR.md)."""
    return {
        "asignacion": cal.asignacion,
        "puntos": cal.puntos,
        "maximo": cal.maximo,
        "partes": [{"id": p.id, "puntos": p.puntos, "maximo": p.maximo, "mensaje": p.mensaje} for p in cal.partes],
        "estado": cal.estado,
        "mensaje": cal.mensaje,
        "pendiente_manual": cal.pendiente_manual,
        "avisos": cal.avisos,
    }


def como_texto(cal: Calificacion) -> str:
    """Informe legible: una línea por parte, con ✔ / ✘ / ✎ (a mano)."""
    lineas = [f"Asignación {cal.asignacion}: {cal.mensaje}"]
    if cal.estado != "calificado":
        return "\n".join(lineas)
    ancho = max((len(p.id) for p in cal.partes), default=10)
    for p in cal.partes:
        if p.puntos is None:
            marca, cifra = "✎", f"  ? / {p.maximo:g}"
        else:
            marca = "✔" if p.puntos >= p.maximo else ("½" if p.puntos > 0 else "✘")
            cifra = f"{p.puntos:>3g} / {p.maximo:g}"
        lineas.append(f"  {marca} {p.id:<{ancho}}  {cifra}  {p.mensaje}")
    if cal.pendiente_manual:
        uno = cal.pendiente_manual == 1
        lineas.append(f"  ({cal.pendiente_manual:g} punto{'' if uno else 's'} de respuestas escritas "
                      f"se califica{'' if uno else 'n'} a mano.)")
    for aviso in cal.avisos:
        lineas.append(f"  Aviso: {aviso}")
    completas = all(p.puntos is None or p.puntos >= p.maximo for p in cal.partes)
    if completas:
        lineas.append("Todo lo que se califica solo está bien. ¡Buen trabajo!")
    return "\n".join(lineas)


def _notebook_en_curso(asignacion: str) -> Path | None:
    """El archivo del notebook que se está ejecutando, si el entorno lo dice."""
    if "google.colab" in sys.modules:  # en Colab el notebook no está en el disco: se pide su contenido
        from google.colab import _message  # type: ignore

        contenido = _message.blocking_request("get_ipynb", timeout_sec=30)["ipynb"]
        destino = Path(tempfile.mkdtemp()) / f"{asignacion}.ipynb"
        destino.write_text(json.dumps(contenido))
        return destino
    vscode = None
    try:
        vscode = get_ipython().user_ns.get("__vsc_ipynb_file__")  # type: ignore[name-defined]  # noqa: F821
    except NameError:
        pass
    for candidato in (os.environ.get("JPY_SESSION_NAME"), vscode):
        if candidato and Path(candidato).suffix == ".ipynb" and Path(candidato).is_file():
            return Path(candidato)
    local = Path.cwd() / f"{asignacion}.ipynb"
    return local if local.is_file() else None


def revisar(asignacion: str) -> None:
    """Califica el notebook guardado de esta asignación y muestra el informe.

    Devuelve ``None`` a propósito: es la última línea de la celda de revisión, y Jupyter mostraría
    debajo del informe la representación cruda del objeto (rutas temporales incluidas). Quien
    necesite la calificación como datos usa :func:`corregir`. No hace nada mientras nbgrader califica (``NBGRADER_EXECUTION``): así la
    celda de revisión no se califica a sí misma.
    """
    if os.environ.get("NBGRADER_EXECUTION"):
        print("(Revisión omitida: este notebook lo está calificando nbgrader.)")
        return None
    ruta = _notebook_en_curso(asignacion)
    if ruta is None:
        print(
            f"No encuentro el archivo {asignacion}.ipynb en esta carpeta. Guárdalo (Ctrl+S) y vuelve a "
            f"ejecutar, o desde una terminal: tutor corregir RUTA/{asignacion}.ipynb"
        )
        return None
    print(f"Calificando {ruta.name} (la versión guardada) con nbgrader... unos segundos.")
    try:
        cal = corregir(ruta, asignacion)
    except (ValueError, FileNotFoundError) as exc:
        print(f"No pude calificar: {exc}")
        return None
    print(como_texto(cal))
    return None
