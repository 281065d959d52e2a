"""What an embedding costs: fewer bytes per vector (int8 and binary quantization) and the searches that read them.

Taught in ``08_what_an_embedding_costs``: :mod:`.quantization` turns float32 vectors into int8 and binary ones,
:mod:`.compressed_search` searches them (Hamming distance on bits, then rescoring), :mod:`.storage` puts each way of
keeping vectors behind one interface (fewer dimensions too, through the calibrators of
:mod:`sbert_workbook.calibration.dimensions`: the first k, PCA-k) and :mod:`.frontier` measures them all against
float32 in one run; :mod:`.static_model` distils a static model (model2vec), :mod:`.sweep` grows a corpus and times
each search against exact search, and :mod:`.encoder_cost` times the encoder itself at each precision beside
sentence-transformers. Layer 5, beside ``diagnosis``, whose pair scoring it reuses.
Imported by: lessons.
"""
