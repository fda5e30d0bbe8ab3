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
