"""What an embedding costs: fewer bytes per vector (int8 and binary quantization) and the searches that read them.

Built for ``08_what_an_embedding_costs`` (issue 42, in progress): :mod:`.quantization` turns float32 vectors into
int8 and binary ones, :mod:`.compressed_search` searches them (Hamming distance on bits, then rescoring),
:mod:`.truncation` keeps fewer dimensions (the first k, PCA-k), :mod:`.storage` puts each way of keeping vectors
behind one interface and :mod:`.frontier` measures them all against float32 in one run.
"""
