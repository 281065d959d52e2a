"""Turning sentences into vectors: resolving a model, running it, pooling tokens (``03_pooling_and_sts.ipynb``).

``resolve`` finds a model (local folder, Hugging Face cache or hub, embedded copy; ``00``),
``encoder`` runs it with token-length batching and out-of-memory back-off, ``pooling`` holds
CLS / mean / max and the layer averages, ``views`` pools one forward pass many ways (several
poolings at once, vectors at every layer; ``02``, ``05``), ``pooled_views`` keeps such frozen views
looked up by sentence (eager or lazy; ``03``, ``05``), ``contract`` says what every encoder promises
(``SentenceEncoder``: sentences in, a tensor out), ``onnx_backend`` runs the same network
in ONNX Runtime, ``text_input`` checks what the user passed, ``glove`` loads GloVe word vectors and
averages them into sentence vectors (SBERT Table 1's first row; ``02``, ``03``, ``05``). ``quiet_loading`` loads a
tokenizer and a transformer without the libraries' noise; ``st_folder``, ``st_modules``, ``st_pooling`` and
``model_encoding`` read a sentence-transformers folder's own modules and ``st_save`` writes one; ``batch_limits`` says
what truncation and out-of-memory cost (``07``); ``precision`` loads the transformer in int8 or bfloat16 (``08``).
Imported by: evaluation, anisotropy, calibration, forecast, mlm, training, cost, diagnosis, environment, classroom, cli,
lessons and the package's __init__.
"""
