"""Lección 0 y ``tutor doctor``: el consejo sobre HF_HUB_OFFLINE dice quién lo activó (issue 43, punto 7)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

CODIGO = """
import json
from tutor_lib import entorno
entorno.sin_hub()  # lo que hace preparar() en modo rápido (sin preguntar al Hub: sin red en las pruebas)
hub = next(c for c in entorno.comprobar_requisitos(probar_hub=False) if c.nombre == "Hub de Hugging Face")
print(json.dumps({"consejo": hub.consejo, "offline": __import__("os").environ.get("HF_HUB_OFFLINE")}))
"""


def _consejo(**variables) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    env.update(TUTOR_MODO="rapido", **variables)
    r = subprocess.run([sys.executable, "-c", CODIGO], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_si_lo_activo_el_modo_rapido_no_le_pide_al_estudiante_quitarlo():
    salida = _consejo()
    assert salida["offline"] == "1", "el modo rápido debía apagar el Hub"
    assert "El curso activó HF_HUB_OFFLINE" in salida["consejo"], salida
    assert "modo completo" in salida["consejo"] and "quítalo" not in salida["consejo"], salida


def test_si_ya_estaba_en_su_entorno_le_dice_que_lo_quite():
    salida = _consejo(HF_HUB_OFFLINE="1")
    assert "ya estaba activo en tu entorno" in salida["consejo"] and "quítalo" in salida["consejo"], salida


# --- issue 43, punto 2: la primera celda avisa si la máquina está ocupada o le falta RAM -----------------

def test_avisa_cuando_la_maquina_esta_ocupada_o_sin_memoria():
    from tutor_lib.entorno import avisos_de_maquina

    assert avisos_de_maquina(0.3, 2, 12 * 2**30, 6 * 2**30) == []
    (ocupada,) = avisos_de_maquina(3.2, 2, 12 * 2**30, 6 * 2**30)
    assert "ocupada" in ocupada and "3.20" in ocupada and "2 núcleos" in ocupada
    (sin_ram,) = avisos_de_maquina(0.1, 2, 3 * 2**30, int(6.5 * 2**30))
    assert "quedan 3.0 GiB" in sin_ram and "6.5 GiB" in sin_ram
    assert len(avisos_de_maquina(4.0, 4, 2**30)) == 2  # sin cifra de la lección: avisa bajo 2 GiB
    assert avisos_de_maquina(None, 2, None) == []  # donde no se puede leer (Windows), nada


def test_preparar_muestra_los_avisos_con_la_maquina_de_verdad():
    """En esta máquina: una lección que pidiera más RAM de la que hay recibe el aviso en la primera celda."""
    codigo = ("from tutor_lib import entorno\nentorno.hub_accesible = lambda *a, **k: False\n"
              "entorno.preparar(memoria_gib=10**6)")
    env = {**os.environ, "TUTOR_MODO": "rapido", "HF_HUB_OFFLINE": "1"}
    r = subprocess.run([sys.executable, "-c", codigo], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "Modo: rápido" in r.stdout and "de RAM libres y esta lección llega a usar" in r.stdout, r.stdout
