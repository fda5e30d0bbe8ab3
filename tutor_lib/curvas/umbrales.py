"""Los umbrales de las reglas de :mod:`tutor_lib.curvas`: cada uno con lo que mide.

Se fijaron mirando la partición ``"ajuste"`` de ``tests/datos/curvas/`` y la de ``"desarrollo"`` del
corpus independiente (``tutor_lib/datos/curvas_independientes/``). Se usa en lessons/09_curvas_de_entrenamiento.
"""

from __future__ import annotations

CATEGORIAS = ("sano", "sobreajuste", "subajuste", "inestable", "divergencia", "indeterminado")
#: Lo que puede responder el diagnóstico: las seis categorías y ``no_concluyente``, cuando ninguna regla de
#: problema se cumple pero tampoco todas las condiciones de una corrida sana (las señales se contradicen).
#: ``no_concluyente`` no es una causa: ninguna corrida de los corpus lleva esa etiqueta.
VEREDICTOS = CATEGORIAS + ("no_concluyente",)

# --------------------------------------------------------------------------- umbrales
#: Menos puntos de entrenamiento que esto (finitos) no permiten juzgar una forma.
MIN_PUNTOS_ENTRENAMIENTO = 6
#: Evaluaciones mínimas para hablar de la tendencia de la validación
#: (con 1 o 2 puntos no se distingue «tocó fondo y subió» de ruido).
MIN_EVALUACIONES = 3
#: Ventana (en puntos) de la mediana móvil con la que se suaviza el entrenamiento: 5 puntos,
#: o un 2.5 % de la curva si es más larga (una corrida que registra cada paso tiene
#: cientos de puntos con el ruido de un solo lote cada uno).
VENTANA_SUAVIZADO = 5
FRACCION_VENTANA = 0.025
#: El nivel final es la mediana de los últimos puntos: un 10 % de la curva,
#: pero al menos 2 y como mucho 4 (nunca un punto suelto). El nivel inicial,
#: la escala de casi todas las reglas, es la mediana de los primeros puntos, o
#: el primer registro si es menor (una explosión que ya empezó no cuenta como
#: «inicio»).
FRACCION_EXTREMOS = 0.1
PUNTOS_EXTREMOS_MIN = 2
PUNTOS_EXTREMOS_MAX = 4

#: Divergencia: la mediana del último tercio de la curva, y también la de los
#: últimos puntos, superan el primer registro en más de este factor (terminó
#: peor que cuando empezó: 1.25 = un 25 % por encima). Se usa el tercio entero
#: además de los últimos puntos para que un par de picos al final de una curva
#: ruidosa no cuenten como tendencia.
FACTOR_PEOR_QUE_INICIO = 1.25
#: Divergencia: la mediana del último tercio y la de los últimos puntos (la
#: menor de las dos) quedaron por encima del mejor tramo de la curva (la menor
#: mediana de ``FRACCION_TRAMO_MEJOR`` de los puntos seguidos) en más de esta
#: fracción de la pérdida inicial: bajó, volvió a subir y se quedó arriba. Una
#: curva inestable ronda 0.1–0.3; una que diverge, 0.9 o más.
SUBIDA_SOSTENIDA = 0.5
FRACCION_TRAMO_MEJOR = 1 / 6
#: Divergencia: la curva suavizada llegó a subir más que la pérdida inicial
#: entera (una explosión) y al final quedó a menos de ``CAIDA_TRAS_EXPLOSION``
#: por debajo del inicio: explotó y lo aprendido se perdió. (Si tras la
#: explosión termina claramente por debajo del inicio, es ``inestable``.)
REBOTE_EXPLOSION = 1.0
CAIDA_TRAS_EXPLOSION = 0.1

#: Inestable: ruido típico (mediana del |residuo| respecto de la mediana móvil)
#: mayor que esta fracción de la pérdida inicial. Un entrenamiento sano con
#: lotes pequeños anda por 0.01–0.03. Un ruido moderado (entre ``RUIDO_MAXIMO``
#: y ``RUIDO_ALTO``) puede ser solo el ruido de los lotes: cuenta como
#: inestabilidad si no hay validación suficiente para comprobarlo; si la hay y
#: es suave (ver ``RUGOSIDAD_VALIDACION_MAXIMA``), el modelo no está saltando.
RUIDO_MAXIMO = 0.05
RUIDO_ALTO = 0.1
#: Inestable: la curva suavizada volvió a subir, respecto de su mínimo hasta ese
#: momento, más que esta fracción de la pérdida inicial (pico que luego baja).
REBOTE_MAXIMO = 0.15
#: Inestable: la curva suavizada volvió a subir más que esta fracción del nivel al que había bajado
#: (un pico tardío: la pérdida casi se duplica cuando ya estaba baja). Para no inflar el ruido de una
#: pérdida cercana a 0, ese nivel nunca cuenta como menos de ``PISO_REBOTE_LOCAL`` de la inicial. Las
#: curvas sanas, que sobreajustan o no aprenden de los dos corpus llegan a 0.63 como mucho.
REBOTE_LOCAL_MAXIMO = 0.8
PISO_REBOTE_LOCAL = 0.1

#: Inestable: la validación (medida siempre con los mismos ejemplos, así que
#: no tiene ruido de lotes) se aparta de la mediana con sus dos vecinas, de
#: media, más que esta fracción de su valor inicial. Una curva sana o que
#: sobreajusta es casi monótona: 0–0.04. Hace falta un mínimo de evaluaciones.
RUGOSIDAD_VALIDACION_MAXIMA = 0.06
MIN_EVALUACIONES_RUGOSIDAD = 5

#: Sobreajuste: la validación final supera su mínimo en más de esta fracción
#: del propio mínimo (10 %: más que el ruido típico de una evaluación).
SUBIDA_VALIDACION = 0.1
#: Sobreajuste por brecha: el entrenamiento final es menos que esta fracción de
#: la validación final...
COCIENTE_BRECHA = 0.25
#: ... y la diferencia entre ambas es más que esta fracción de la pérdida inicial.
BRECHA_MINIMA = 0.2

#: Subajuste: la pérdida bajó menos que esta fracción de la inicial.
CAIDA_MINIMA = 0.2
#: Subajuste: en el último tramo (``FRACCION_TRAMO_FINAL`` de los pasos) la
#: pérdida sigue bajando a más de esta fracción de su ritmo medio: no convergió.
PENDIENTE_FINAL_MAXIMA = 0.5
FRACCION_TRAMO_FINAL = 0.4
#: ... salvo que ya haya bajado más que esto (entonces es sano aunque siga bajando).
CAIDA_SUFICIENTE = 0.8


#: Nivel del azar (si se conoce: ver ``nivel_de_azar``). Divergencia: la pérdida llegó a valer más que
#: ``EXPLOSION_SOBRE_AZAR`` veces el nivel del azar y terminó en él o por encima (al menos
#: ``FRACCION_AZAR_FINAL`` de él): explotó y el modelo quedó adivinando. Un clasificador que empieza
#: adivina ya (pérdida ≈ ln C); una explosión la lleva a decenas o miles.
EXPLOSION_SOBRE_AZAR = 5.0
FRACCION_AZAR_FINAL = 0.9

#: Sobreajuste por brecha, para toda la corrida: la validación final es más de ``COCIENTE_BRECHA_EXTREMA``
#: veces el entrenamiento final y la diferencia supera ``BRECHA_MINIMA`` de la escala (el nivel del azar
#: si se conoce; si no, la pérdida inicial). Nunca se llama sana a una corrida así.
COCIENTE_BRECHA_EXTREMA = 10.0
#: Un entrenamiento ruidoso con la validación suave en forma de U es sobreajuste (y no inestabilidad)
#: solo si ya pasó al menos estas veces por los datos: para memorizar hay que repetir ejemplos.
EPOCAS_PARA_MEMORIZAR = 2.0

# --------------------------------------------------------------------------- explosiones y azar estimado (issue 42)
#: Ninguna entropía cruzada bien inicializada empieza por encima de ln(1 000 000) ≈ 13.8 (un vocabulario de
#: 256 000 piezas da 12.5): una pérdida registrada más alta es de un modelo que ya explotó (o de una MSE).
LN_MAX_OPCIONES = 13.815510557964274
#: Explosión por salto: un registro vale al menos este factor por lo más bajo registrado antes. Para no
#: confundir con una explosión el ruido de una pérdida cercana a 0, «lo más bajo antes» nunca cuenta como
#: menos de ``PISO_SALTO`` del primer registro. Los picos que se recuperan de los corpus llegan a 21 veces.
FACTOR_EXPLOSION = 100.0
PISO_SALTO = 0.1
#: Explosión en el arranque: el primer tramo registrado supera ``LN_MAX_OPCIONES`` y el nivel final es al
#: menos este factor más bajo (la media de los primeros pasos ya incluía la explosión).
FACTOR_ARRANQUE_EXPLOTADO = 10.0
#: Tras la explosión la pérdida «quedó plana» si la mediana de la segunda mitad de lo que sigue al pico es
#: al menos esta fracción de la mediana de la primera mitad: no siguió aprendiendo.
COLA_PLANA = 0.9
#: Clases plausibles al reconocer el nivel del azar en la cola de una corrida que explotó (sin config.json):
#: la cola plana en ln(2) … ln(100), con este margen relativo.
CLASES_MAX_COLA = 100
MARGEN_AZAR = 0.05
#: Por encima del azar: una corrida que nunca bajó (su último tercio no está más de ``CAIDA_SIN_APRENDER`` por
#: debajo del primero: el primer registro puede venir inflado),
#: con ruido moderado (más que ``RUIDO_SIN_APRENDER`` de la inicial; más que ``RUIDO_MAXIMO`` ya es
#: inestabilidad) y que terminó más de ``SOBRE_SU_MEJOR`` por
#: encima de su mejor nivel: el optimizador rebota por encima del azar (tasa demasiado alta), no le falta
#: entrenamiento. Con la tasa demasiado baja la pérdida baja, muy poco pero sin rebotar: ruido ≤ 0.008.
CAIDA_SIN_APRENDER = 0.1
RUIDO_SIN_APRENDER = 0.008
SOBRE_SU_MEJOR = 0.02
#: Sana, como hallazgo positivo: la validación final no supera ``FACTOR_VALIDACION_SANA`` veces el
#: entrenamiento final (dos órdenes de magnitud) ni ``COCIENTE_BRECHA_EXTREMA`` veces con una diferencia grande
#: frente a la escala (``BRECHA_MINIMA``), y la
#: pérdida terminó por debajo de ``1 - CAIDA_MINIMA`` del nivel del azar, si se conoce o se estima.
FACTOR_VALIDACION_SANA = 100.0
#: Sobreajuste por brecha de dos órdenes de magnitud (``FACTOR_VALIDACION_SANA``): basta que la diferencia
#: supere esta fracción de la escala (el azar, o la pérdida inicial). En los dos corpus las corridas sanas
#: terminan con la validación a menos de 54 veces el entrenamiento y las que sobreajustan, a más de 120.
BRECHA_PEQUENA = 0.05
#: Sobreajuste con una validación ruidosa: si el entrenamiento es suave y la validación tiene forma de U, lo que
#: subió desde su mínimo (relativo a su valor inicial) supera este múltiplo de su rugosidad: la tendencia manda
#: sobre los saltos (una validación de 30 ejemplos salta, y aun así sube de 0.69 a 1.5).
TENDENCIA_SOBRE_SALTOS = 3.0
