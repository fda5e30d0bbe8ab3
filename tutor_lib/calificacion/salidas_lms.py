"""Lo que ``tutor exportar`` escribe además de la hoja: el comentario, el XML de Moodle, los Score de LTI.

Y cómo los escribe sin perder nada (:func:`escribir_atomico`, :func:`revisar_salida`). Funciones
sobre valores planos (puntos, máximo, partes), sin saber de dónde vienen: las llama
:mod:`tutor_lib.calificacion.exportar`.

* ``grade/import/xml`` de Moodle (``grade/import/xml/lib.php``): ``<results>`` con un ``<result>``
  por nota: ``<assignment>`` es el número ID del ítem de calificación, ``<student>`` el número ID
  del usuario (campo «ID number» de su perfil: sin él Moodle no lo encuentra), ``<score>`` un número
  con punto (``is_numeric``) y ``<feedback>`` el comentario, que Moodle guarda como HTML.
* LTI 1.3 Assignment and Grade Services, servicio Score: ``userId``, ``scoreGiven``,
  ``scoreMaximum``, ``activityProgress``, ``gradingProgress``, ``timestamp`` (ISO 8601 con zona
  y fracción de segundo) y ``comment`` (texto plano). Canvas acepta como ``userId`` el
  ``lti_user_id`` o su user_id (documentación de su Score API).
"""

from __future__ import annotations

import html
import os
import re
import shutil
import tempfile
from pathlib import Path
from xml.sax.saxutils import escape as escapar_xml

from tutor_lib.calificacion.archivos import nombre_anterior
from tutor_lib.calificacion.hojas_lms import escribir_numero
from tutor_lib.formato import sin_controles


# --- el comentario ---------------------------------------------------------------------------------


def _cifra(x: float) -> str:
    return escribir_numero(x)


def _mensaje_de_parte(texto) -> str:
    """El mensaje de una parte tal como lo vio el estudiante: una línea, sin controles, a lo más 300 caracteres."""
    texto = sin_controles(str(texto or ""))
    if texto.startswith("La prueba escribió en stderr"):
        texto = texto.splitlines()[0]
    return " ".join(texto.split())[:300]


def comentario(asignacion: str, puntos: float, maximo: float, partes: list[dict], *, como_html: bool = False) -> str:
    """El desglose por parte para el estudiante: puntos de cada parte y su mensaje, en texto plano.

    Solo usa ``id``, ``puntos``, ``maximo`` y ``mensaje`` de cada parte (lo que ya muestra su
    retroalimentación), nunca el código de las pruebas. ``como_html``: con ``< > &`` escapados,
    porque Moodle guarda el comentario como HTML.
    """
    lineas = [f"{asignacion}: {_cifra(puntos)} de {_cifra(maximo)} puntos."]
    for p in partes:
        ident = _mensaje_de_parte(p.get("id", "?"))
        tope = p.get("maximo")
        cuanto = _cifra(float(tope)) if isinstance(tope, (int, float)) else "?"
        de = f" de {cuanto}" if cuanto != "?" else ""
        if p.get("puntos") is None:
            lineas.append(f"Parte {ident}: respuesta escrita, pendiente de calificar a mano ({cuanto} puntos).")
        else:
            mensaje = _mensaje_de_parte(p.get("mensaje"))
            lineas.append(f"Parte {ident}: {_cifra(float(p['puntos']))}{de}. {mensaje}".rstrip())
    texto = "\n".join(lineas)
    return html.escape(texto, quote=False) if como_html else texto


# --- los formatos ----------------------------------------------------------------------------------

_NO_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _xml(texto: str) -> str:
    return escapar_xml(_NO_XML.sub("", str(texto)))


def xml_moodle(resultados: list[tuple[str, float, str]], item: str) -> str:
    """El XML de ``grade/import/xml``: un ``<result>`` por (número ID del estudiante, nota, comentario)."""
    partes = ['<?xml version="1.0" encoding="UTF-8"?>', "<results>"]
    for numero_id, valor, texto in resultados:
        partes += ["  <result>", f"    <assignment>{_xml(item)}</assignment>",
                   f"    <student>{_xml(numero_id)}</student>", f"    <score>{escribir_numero(valor)}</score>",
                   f"    <feedback>{_xml(texto)}</feedback>", "  </result>"]
    partes.append("</results>")
    return "\n".join(partes) + "\n"


def score_lti(user_id: str, puntos: float, maximo: float, pendiente_manual: float, texto: str, marca: str) -> dict:
    """Un Score de LTI 1.3 AGS: ``FullyGraded``, o ``PendingManual`` si quedan partes para calificar a mano.

    ``scoreGiven`` y ``scoreMaximum`` van en los puntos del curso (el LMS los escala a su
    columna); ``marca`` es ISO 8601 con zona horaria. Con ``PendingManual``, ``scoreGiven`` es lo
    calificado hasta ahora: el LMS lo muestra como pendiente de una persona.
    """
    return {
        "userId": user_id, "scoreGiven": round(puntos, 4), "scoreMaximum": round(maximo, 4),
        "activityProgress": "Completed",
        "gradingProgress": "PendingManual" if pendiente_manual > 0 else "FullyGraded",
        "timestamp": marca, "comment": texto,
    }


# --- escribir sin perder nada ----------------------------------------------------------------------


def _misma(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and os.path.samefile(a, b))
    except OSError:
        return False


def revisar_salida(salida: Path, entradas: list[Path]) -> None:
    """``ValueError`` si ``salida`` es una carpeta o alguno de los archivos de entrada (nunca se pisan)."""
    if salida.is_dir():
        raise ValueError(f"--salida {salida} es una carpeta: da la ruta de un archivo.")
    if not salida.parent.is_dir():
        raise FileNotFoundError(f"La carpeta de --salida ({salida.parent}) no existe.")
    for entrada in entradas:
        if _misma(salida, entrada):
            raise ValueError(f"--salida {salida} es {entrada}, uno de los archivos que lee tutor exportar: "
                             "elige otro nombre (la hoja del LMS y las notas nunca se sobrescriben).")


def escribir_atomico(ruta: Path, texto: str) -> Path | None:
    """Escribe ``texto`` (UTF-8) en ``ruta`` de una vez; si ya existía, la deja al lado y devuelve dónde.

    Un archivo temporal en la misma carpeta que se renombra sobre ``ruta`` (``os.replace``): quien
    lea ``ruta`` ve la versión vieja o la nueva entera, nunca una a medias. La vieja queda como
    ``ruta.anterior-<fecha>`` (un enlace duro, o una copia donde no hay enlaces).
    """
    try:
        fd, temporal = tempfile.mkstemp(prefix=f".{ruta.name}.", suffix=".tmp", dir=ruta.parent)
    except OSError as exc:
        raise ValueError(f"No puedo escribir en {ruta.parent} ({exc.strerror}): elige otra --salida.") from None
    anterior = None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(texto)
            f.flush()
            os.fsync(f.fileno())
        mascara = os.umask(0)
        os.umask(mascara)
        os.chmod(temporal, 0o666 & ~mascara)
        if ruta.exists() or ruta.is_symlink():
            anterior = nombre_anterior(ruta)
            try:
                os.link(ruta, anterior, follow_symlinks=False)
            except OSError:
                shutil.copy2(ruta, anterior, follow_symlinks=False)
        os.replace(temporal, ruta)
    except OSError as exc:
        Path(temporal).unlink(missing_ok=True)
        raise ValueError(f"No pude escribir {ruta} ({exc.strerror or exc}); no cambió nada.") from None
    except BaseException:
        Path(temporal).unlink(missing_ok=True)
        raise
    return anterior
