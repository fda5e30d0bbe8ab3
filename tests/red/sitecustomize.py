"""Bloqueo de red para las pruebas (se carga en todo proceso Python hijo).

Las pruebas ponen esta carpeta en PYTHONPATH y definen TUTOR_BLOQUEAR_RED=1:
así los kernels de Jupyter, el comando ``tutor`` y nbgrader también quedan sin
red. Solo se permite loopback (127.0.0.0/8, ::1) y sockets Unix. Cada intento
bloqueado se anota en el archivo TUTOR_REGISTRO_RED para que la prueba falle
aunque la biblioteca que lo intentó se trague la excepción.
"""

import os
import sys

if os.environ.get("TUTOR_BLOQUEAR_RED") == "1":
    import ipaddress
    import socket

    _registro = os.environ.get("TUTOR_REGISTRO_RED")
    _connect = socket.socket.connect
    _connect_ex = socket.socket.connect_ex
    _getaddrinfo = socket.getaddrinfo

    def _es_local(host) -> bool:
        if host is None:
            return True
        if isinstance(host, bytes):
            host = host.decode()
        host = str(host).strip("[]")
        if host in ("localhost", "", "localhost.localdomain"):
            return True
        try:
            return ipaddress.ip_address(host.split("%")[0]).is_loopback
        except ValueError:
            return False

    def _anotar(destino) -> None:
        if _registro:
            with open(_registro, "a", encoding="utf-8") as f:
                programa = " ".join(sys.argv)[:160]  # quién fue: para encontrarlo si pasa en CI
                f.write(f"{os.getpid()} {destino!r} [{programa}]\n")

    def _revisar(sock, direccion) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            host = direccion[0] if isinstance(direccion, tuple) else direccion
            if not _es_local(host):
                _anotar(direccion)
                raise ConnectionRefusedError(
                    f"Red bloqueada en las pruebas del curso: intento de conexión a {direccion!r}"
                )

    def connect(self, direccion):
        _revisar(self, direccion)
        return _connect(self, direccion)

    def connect_ex(self, direccion):
        _revisar(self, direccion)
        return _connect_ex(self, direccion)

    def getaddrinfo(host, *args, **kwargs):
        if not _es_local(host):
            _anotar(host)
            raise socket.gaierror(
                socket.EAI_NONAME, f"Red bloqueada en las pruebas del curso: resolución de {host!r}"
            )
        return _getaddrinfo(host, *args, **kwargs)

    socket.socket.connect = connect
    socket.socket.connect_ex = connect_ex
    socket.getaddrinfo = getaddrinfo
