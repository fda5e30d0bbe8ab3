"""El bloqueo de red funciona de verdad: si no bloqueara, el resto de pruebas no probaría nada."""

import socket
import subprocess
import sys

import pytest

import conftest


def test_conexion_externa_bloqueada_en_este_proceso():
    with pytest.raises(OSError):
        socket.create_connection(("93.184.216.34", 443), timeout=1)
    # el intento quedó registrado; lo borramos para que esta prueba no falle por él
    lineas = conftest.intentos_de_red()
    assert any("93.184.216.34" in l for l in lineas)
    conftest.REGISTRO_RED.write_text(
        "".join(l + "\n" for l in lineas if "93.184.216.34" not in l), encoding="utf-8"
    )


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
    lineas = conftest.intentos_de_red()
    conftest.REGISTRO_RED.write_text(
        "".join(l + "\n" for l in lineas if "huggingface.co" not in l), encoding="utf-8"
    )


def test_loopback_permitido():
    servidor = socket.socket()
    servidor.bind(("127.0.0.1", 0))
    servidor.listen(1)
    cliente = socket.create_connection(servidor.getsockname(), timeout=2)
    cliente.close()
    servidor.close()
