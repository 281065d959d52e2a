"""Ways to keep a corpus's vectors, each with what it costs and how it compares a float query with what it kept
(``08_what_an_embedding_costs.ipynb``).

A :class:`Storage` is fitted on calibration vectors (sentences that are not the corpus: a real index calibrates before
it has its documents), then ``store``s the corpus and answers two questions the cost–quality plane asks of it:

- ``similarity(queries, stored)``: a float query against each stored row, row by row (STS reads a pair as a query
  and a stored sentence);
- ``search(queries, stored, k)``: each query's ``k`` nearest stored rows.

The storages: :class:`Float32` (cosine), :class:`Int8` (the query quantized with the same ranges, cosine of the int8
values, as an int8 index compares them), :class:`Binary` (the query binarised; bits agreeing, d − 2·Hamming),
:class:`RescoredBinary` (binary candidates, reordered with the float query: :mod:`.compressed_search`; a pair for STS
read as the cosine of the float query with the partner's ±1 bits or int8 values), and
:class:`Reduced` (fewer dimensions through a calibrator: the first k and PCA-k of :mod:`sbert_workbook.calibration.dimensions`,
whitening-k; cosine) and
:class:`ApproximateIndex` (float32 in usearch's HNSW graph: each query visits a few hundred vectors, not all).
"""
from __future__ import annotations

import numpy as np
import torch

from sbert_workbook.cost.compressed_search import binary_top_k, paired_hamming, rescored_top_k
from sbert_workbook.cost.quantization import binary_vectors, bytes_per_vector, int8_ranges, int8_vectors
from sbert_workbook.evaluation.similarity import unit_rows


def cosine_top_k(queries: np.ndarray, unit_corpus: np.ndarray, k: int) -> np.ndarray:
    """(queries, k): the rows of ``unit_corpus`` (already unit length) with the largest cosine to each query."""
    scores = torch.from_numpy(unit_rows(queries)) @ torch.from_numpy(np.ascontiguousarray(unit_corpus)).T
    return torch.topk(scores, k=min(k, unit_corpus.shape[0]), dim=1).indices.numpy()


class Storage:
    """Float32 vectors as they are: the reference every other storage is measured against."""

    name = "float32"
    precision = "float32"

    def fit(self, calibration: np.ndarray) -> Storage:
        self.dimensions = np.asarray(calibration).shape[1]
        return self

    @property
    def bytes_per_vector(self) -> int:
        return bytes_per_vector(self.precision, self.dimensions)

    def store(self, vectors: np.ndarray) -> np.ndarray:
        return unit_rows(vectors)

    def similarity(self, queries: np.ndarray, stored: np.ndarray) -> np.ndarray:
        return (unit_rows(queries) * stored).sum(axis=1)

    def search(self, queries: np.ndarray, stored: np.ndarray, k: int) -> np.ndarray:
        return cosine_top_k(queries, stored, k)


Float32 = Storage


class Int8(Storage):
    """One byte a dimension: each value's bucket among 256 in its dimension's calibration range."""

    name = precision = "int8"

    def fit(self, calibration):
        super().fit(calibration)
        self.ranges = int8_ranges(calibration)
        return self

    def store(self, vectors):
        return unit_rows(int8_vectors(vectors, self.ranges).astype(np.float32)).astype(np.float32)

    def similarity(self, queries, stored):
        return (self.store(queries) * stored).sum(axis=1)

    def search(self, queries, stored, k):
        return cosine_top_k(self.store(queries), stored, k)


class Binary(Storage):
    """One bit a dimension, its sign; two vectors agree in d − Hamming bits, so d − 2·Hamming is their ±1 dot product."""

    name = precision = "binary"

    def store(self, vectors):
        return binary_vectors(vectors)

    def similarity(self, queries, stored):
        return (self.dimensions - 2 * paired_hamming(binary_vectors(queries), stored)).astype(np.float32)

    def search(self, queries, stored, k):
        return binary_top_k(binary_vectors(queries), stored, k)


class RescoredBinary(Binary):
    """Binary in memory; the ``multiplier · k`` binary candidates rescored with the float query against their bits
    (or, ``with_int8``, their int8 values, kept beside: one byte a dimension more)."""

    def __init__(self, multiplier: int = 4, with_int8: bool = False):
        self.multiplier, self.with_int8 = multiplier, with_int8
        self.name = f"binary, rescored ×{multiplier}" + (" with int8" if with_int8 else "")

    def fit(self, calibration):
        super().fit(calibration)
        self.ranges = int8_ranges(calibration) if self.with_int8 else None
        return self

    @property
    def bytes_per_vector(self) -> int:
        return super().bytes_per_vector + (bytes_per_vector("int8", self.dimensions) if self.with_int8 else 0)

    def store(self, vectors):
        bits = binary_vectors(vectors)
        return (bits, int8_vectors(vectors, self.ranges)) if self.with_int8 else (bits, None)

    def similarity(self, queries, stored):
        """A pair read as the cosine of the float query with what its partner kept: its bits as ±1 (2b − 1), or its
        int8 values. Search ranks one query's candidates by the recipe's q · b, whose per-query offset Σq/2 changes no
        ranking within a query; STS compares pairs with each other, so it needs a score on one scale for every pair."""
        bits, values = stored
        kept = (2 * np.unpackbits(bits, axis=-1)[:, :self.dimensions].astype(np.float32) - 1 if values is None
                else values.astype(np.float32))
        return (unit_rows(queries) * unit_rows(kept)).sum(axis=1)

    def search(self, queries, stored, k):
        bits, values = stored
        return rescored_top_k(queries, bits, k, self.multiplier, corpus_int8=values)


class Reduced(Storage):
    """Fewer float32 dimensions through a calibrator fitted on the calibration vectors; compared by cosine."""

    def __init__(self, calibrator):
        self.calibrator = calibrator
        self.name = f"{calibrator.name} (k = {calibrator.k})"

    def fit(self, calibration):
        self.calibrator.fit(calibration)
        self.dimensions = self.calibrator.k
        return self

    def reduce(self, vectors) -> np.ndarray:
        return self.calibrator.transform(vectors).numpy()

    def store(self, vectors):
        return unit_rows(self.reduce(vectors))

    def similarity(self, queries, stored):
        return (unit_rows(self.reduce(queries)) * stored).sum(axis=1)

    def search(self, queries, stored, k):
        return cosine_top_k(self.reduce(queries), stored, k)


class ApproximateIndex(Storage):
    """Float32 vectors in an HNSW graph (Malkov & Yashunin 2018; usearch): each node linked to about
    ``connectivity`` near neighbours, a search walking the graph from an entry point and keeping the ``expansion``
    best nodes seen. It may miss a true neighbour; what it gains is a search that visits far fewer vectors than the
    corpus holds. Bytes: the vector and its links (``connectivity`` 4-byte neighbour ids at the base layer)."""

    def __init__(self, connectivity: int = 16, expansion: int = 64):
        self.connectivity, self.expansion = connectivity, expansion
        self.name = f"HNSW index (usearch, M = {connectivity}, ef = {expansion})"

    @property
    def bytes_per_vector(self) -> int:
        return super().bytes_per_vector + 4 * 2 * self.connectivity  # base layer: 2M links of 4 bytes

    def store(self, vectors):
        from usearch.index import Index

        vectors = unit_rows(vectors)
        index = Index(ndim=vectors.shape[1], metric="cos", dtype="f32", connectivity=self.connectivity,
                      expansion_add=max(128, self.expansion), expansion_search=self.expansion)
        index.add(np.arange(len(vectors)), vectors)
        return index, vectors  # the vectors for similarity(): the index answers searches, not pairs

    def similarity(self, queries, stored):
        return (unit_rows(queries) * stored[1]).sum(axis=1)

    def search(self, queries, stored, k):
        found = stored[0].search(unit_rows(queries), k)
        return np.asarray(found.keys, dtype=np.int64).reshape(len(queries), -1)
