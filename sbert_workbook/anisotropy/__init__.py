"""Anisotropy: how raw sentence and word embeddings crowd into a narrow cone (``02_anisotropy.ipynb``).

``metrics`` measures the space (mean random-pair cosine, k-NN distances by frequency bucket,
layer-wise anisotropy; the singular spectrum, alignment and uniformity are in
:mod:`sbert_workbook.evaluation.geometry`), ``word_frequency`` ranks WordPiece tokens by how often
they occur, ``plots`` draws the figures. Reads embeddings from ``encoding``; writes nothing.
"""
