"""La libreta de calificaciones (el *gradebook* de nbgrader): SQLite o PostgreSQL.

nbgrader guarda notas en una base de datos SQLAlchemy. Para una clase en una
sola computadora basta el archivo SQLite que ``tutor calificar`` deja en su
carpeta de salida; cuando varios trabajadores califican a la vez (``--cluster``,
o muchos procesos), la libreta va en PostgreSQL: ``--gradebook
postgresql://usuario@servidor/base``. Ver course/GUIA_INSTRUCTOR.md («Calificar
una clase grande»). Lo usan :mod:`tutor_lib.calificacion.motor.calificador` y
:mod:`tutor_lib.calificacion.motor.clase`.
"""

from __future__ import annotations

import re
from pathlib import Path

#: Esquemas que acepta ``--gradebook``; ``postgresql://`` usa psycopg 3 (extra ``escala``;
#: SQLAlchemy 2.1 lo elige por omisión), ``postgresql+psycopg2://`` psycopg2.
_ESQUEMAS = ("sqlite:///", "postgresql://", "postgresql+psycopg2://", "postgresql+psycopg://")


def es_postgresql(url: str) -> bool:
    return url.startswith("postgresql")


def sin_clave(url: str) -> str:
    """``url`` sin la contraseña, para mostrarla en mensajes y guardarla en ``avance.jsonl``."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)


def carpetas_de_socket(url: str) -> list[Path]:
    """Las carpetas de los sockets Unix por los que llega la libreta (``?host=/ruta``), para ocultarlas.

    El kernel del estudiante no tiene red; un socket Unix, en cambio, es un
    archivo: la carpeta que lo contiene se oculta dentro del aislamiento.
    """
    if not es_postgresql(url):
        return []
    from sqlalchemy.engine import make_url

    hosts = make_url(url).query.get("host", ())
    hosts = [hosts] if isinstance(hosts, str) else list(hosts)
    return [Path(h) for h in hosts if h.startswith("/")]


def validar(url: str) -> str:
    """Comprueba que ``url`` sea una libreta que nbgrader puede usar y que se pueda abrir.

    Devuelve ``url``; si no sirve, lanza ``ValueError`` con la causa en español
    (esquema desconocido, falta el controlador de PostgreSQL, el servidor no
    responde o rechaza la conexión).
    """
    if not isinstance(url, str) or not url.startswith(_ESQUEMAS):
        raise ValueError(
            f"--gradebook {sin_clave(str(url))!r} no es una libreta que entienda nbgrader: usa sqlite:///ruta/gradebook.db "
            "o postgresql://usuario@servidor:5432/base (ver la guía del instructor)."
        )
    if not es_postgresql(url):
        return url
    import sqlalchemy
    from sqlalchemy.engine import make_url

    try:
        dialecto = make_url(url).get_dialect()
        dialecto.import_dbapi()
    except ImportError as exc:
        raise ValueError(
            f"Para una libreta en PostgreSQL falta el controlador {getattr(exc, 'name', None) or 'de PostgreSQL'}: "
            "pip install -e '.[escala]' (instala psycopg)."
        ) from None
    except sqlalchemy.exc.ArgumentError as exc:
        raise ValueError(f"--gradebook {sin_clave(url)!r} no se entiende: {exc}") from None

    try:
        motor = sqlalchemy.create_engine(url, connect_args={"connect_timeout": 10})
        with motor.connect():
            pass
        motor.dispose()
    except sqlalchemy.exc.SQLAlchemyError as exc:
        texto = str(getattr(exc, "orig", None) or exc).strip()
        causa = texto.splitlines()[0] if texto else type(exc).__name__
        raise ValueError(f"No pude abrir la libreta {sin_clave(url)}: {causa}") from None
    return url
