"""Anisotropy: how raw sentence and word embeddings crowd into a narrow cone (``02_anisotropy.ipynb``).

``metrics`` measures the space (mean random-pair cosine, principal variance, k-NN distances by
frequency bucket, alignment and uniformity), ``word_frequency`` ranks WordPiece tokens by how often
they occur, ``plots`` draws the figures. Reads embeddings from ``encoding``; writes nothing.
"""
