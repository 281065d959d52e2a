"""Anisotropy: how raw sentence and word embeddings crowd into a narrow cone (``02_anisotropy.ipynb``).

``metrics`` measures the space (mean random-pair cosine, k-NN distances by frequency bucket,
layer-wise anisotropy; the singular spectrum, alignment and uniformity are in
:mod:`sbert_workbook.evaluation.geometry`), ``word_frequency`` ranks WordPiece tokens by how often
they occur, ``sentence_frequency`` asks whether a sentence's word frequency decides where its vector sits
(distance from the mean, raw and whitened, and density under a Gaussian fit), ``plots`` draws the figures.
Reads embeddings from ``encoding``; writes nothing.
Imported by: diagnosis, solutions and lessons.
"""
