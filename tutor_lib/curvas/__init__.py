"""Diagnóstico de curvas de entrenamiento a partir de ``log_history`` y su gráfica.

Se usa en lessons/09_curvas_de_entrenamiento.

Todo es puro salvo :func:`cargar_log_history` (lee un archivo) y
:func:`graficar` (dibuja). Las reglas son pocas, con nombre y explicables: cada
umbral es una constante de este módulo con un comentario que dice qué mide.
Las reglas son **independientes de la escala**: todo se mide relativo a la
pérdida inicial (o, en validación, relativo a su propio mínimo), así que una
pérdida MSE de 90 y una entropía cruzada de 0.7 se juzgan igual. Para no
confundir ruido con tendencia se comparan medianas de ventanas, no puntos
sueltos.

El orden de las reglas importa y es el mismo que seguirías mirando la curva:

1. ``divergencia``: la pérdida termina en NaN/inf (también el «0.0» que el
   Trainer escribe cuando la pérdida ya es NaN), sube y se queda arriba,
   termina peor que su primer registro, o explota y no se recupera.
2. ``indeterminado``: hay muy pocos puntos para decir nada.
3. ``inestable``: picos que no son tendencia, sierras grandes, o una
   validación que va a saltos. La validación se mide siempre con los mismos
   ejemplos: si ella es suave, un ruido moderado en el entrenamiento es ruido
   de los lotes, no un modelo inestable.
4. ``sobreajuste``: la validación tocó un mínimo y luego subió mientras el
   entrenamiento seguía bajando (o la brecha es enorme y la validación no mejora).
5. ``subajuste``: la pérdida casi no bajó, o sigue bajando en línea recta.
6. ``sano`` si hay validación suficiente para descartar el sobreajuste **y** se cumplen todas sus
   condiciones (ningún registro cien veces por encima del nivel final, la validación a menos de cien
   veces el entrenamiento, la pérdida claramente por debajo del azar, la validación sin subir); si falta
   validación, ``indeterminado`` (nunca adivina), y si alguna condición falla sin que se cumpla una regla
   de problema, ``no_concluyente`` con la evidencia (issue 42).

Antes de la 2 se buscan las explosiones sin suavizar (:mod:`tutor_lib.curvas.azar`: un registro cien
veces lo más bajo de antes, o un arranque que ya explotó) y, si la corrida no trae ``config.json``, se
estima el nivel del azar con la curva (donde empieza, o donde queda plana tras explotar); la explicación
dice «estimado». Ninguna explicación calla un pico de cien veces el nivel final.

Límite que conviene saber: «sano» quiere decir «las curvas no muestran ningún
problema», no «el mejor modelo posible». Un modelo demasiado pequeño que se
aplana enseguida da la misma curva que uno que ya convergió; solo comparando
con otra corrida (o con una referencia) se ve la diferencia.

Los umbrales se fijaron mirando solo la partición ``"ajuste"`` del corpus de
curvas reales de ``tests/datos/curvas/`` (ver ``scripts/generar_curvas.py``,
que cuenta también cómo se midió la partición ``"reserva"``).
"""


from __future__ import annotations

from tutor_lib.curvas.grafica import COLORES, graficar
from tutor_lib.curvas.lectura import (
    Curvas,
    Diagnostico,
    cargar_log_history,
    curvas_desde_listas,
    curvas_desde_log_history,
    leer_curvas,
    nivel_de_azar,
)
from tutor_lib.curvas.reglas import REMEDIOS, diagnosticar
from tutor_lib.curvas.reglas import _contraer  # noqa: F401 (lo usa tutor diagnosticar)
from tutor_lib.curvas.formato import _fmt  # noqa: F401 (idem)
from tutor_lib.curvas.lectura import _Contexto  # noqa: F401 (idem)
from tutor_lib.curvas.umbrales import *  # noqa: F401,F403 (los umbrales, como antes: curvas.RUIDO_MAXIMO...)
from tutor_lib.curvas.umbrales import CATEGORIAS, VEREDICTOS

__all__ = [
    "CATEGORIAS", "VEREDICTOS", "COLORES", "REMEDIOS", "Curvas", "Diagnostico", "cargar_log_history", "curvas_desde_listas",
    "curvas_desde_log_history", "diagnosticar", "graficar", "leer_curvas", "nivel_de_azar",
]
