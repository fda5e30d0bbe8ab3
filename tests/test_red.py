"""El bloqueo de red funciona de verdad: si no bloqueara, el resto de pruebas no probaría nada."""

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

# El registro lo define tests/conftest.py; se lee por su ruta (``import conftest`` sería ambiguo:
# hay varios conftest.py en tests/).
REGISTRO = Path(os.environ["TUTOR_REGISTRO_RED"])


def _intentos() -> list[str]:
    return REGISTRO.read_text(encoding="utf-8").splitlines() if REGISTRO.exists() else []


def _olvidar(fragmento: str) -> None:
    """Borra del registro los intentos esperados de esta prueba (para que la guardia no la repruebe)."""
    REGISTRO.write_text("".join(l + "\n" for l in _intentos() if fragmento not in l), encoding="utf-8")


def test_conexion_externa_bloqueada_en_este_proceso():
    with pytest.raises(OSError):
        socket.create_connection(("93.184.216.34", 443), timeout=1)
    # el intento quedó registrado; lo borramos para que esta prueba no falle por él
    assert any("93.184.216.34" in l for l in _intentos())
    _olvidar("93.184.216.34")


def test_conexion_externa_bloqueada_en_procesos_hijos():
    codigo = (
        "import socket\n"
        "try:\n"
        "    socket.getaddrinfo('huggingface.co', 443)\n"
        "    print('ABIERTA')\n"
        "except OSError as e:\n"
        "    print('BLOQUEADA', e)\n"
    )
    salida = subprocess.run([sys.executable, "-c", codigo], capture_output=True, text=True, timeout=60)
    assert "BLOQUEADA" in salida.stdout
    assert any("huggingface.co" in l for l in _intentos())
    _olvidar("huggingface.co")


def test_loopback_permitido():
    servidor = socket.socket()
    servidor.bind(("127.0.0.1", 0))
    servidor.listen(1)
    cliente = socket.create_connection(servidor.getsockname(), timeout=2)
    cliente.close()
    servidor.close()
