"""Searching compressed vectors: Hamming distance on binary vectors, then rescoring a few candidates
(``08_what_an_embedding_costs.ipynb``, §2).

A binary vector keeps one bit a dimension (:func:`~sbert_workbook.cost.quantization.binary_vectors`); two of them are
compared by how many bits differ:

    hamming(a, b) = popcount(a XOR b)

which a CPU counts in a few instructions per 64 dimensions. Ranking a whole corpus by it is fast and rough; rescoring
reads the ``multiplier · k`` best candidates again with the float query (the query is never stored, so it can stay
float32), scores each as ``q · b`` with b its bits (0 or 1) or its int8 values, and keeps the ``k`` best. This is the
recipe of sentence-transformers' ``semantic_search_faiss(..., rescore=True)`` without the index.
"""
from __future__ import annotations

import numpy as np

from sbert_workbook.cost.quantization import binary_vectors

#: How many bits are set in each byte value 0…255 (NumPy before 2.0, which has no bitwise_count).
POPCOUNT = np.array([bin(value).count("1") for value in range(256)], dtype=np.uint8)


def popcount(bytes_: np.ndarray) -> np.ndarray:
    """The set bits of each byte: NumPy's popcount instruction where it has one (2.0+), else a table lookup."""
    return np.bitwise_count(bytes_) if hasattr(np, "bitwise_count") else POPCOUNT[bytes_]


def hamming_distances(query_bits: np.ndarray, corpus_bits: np.ndarray, chunk: int = 256) -> np.ndarray:
    """(queries, corpus): popcount(a XOR b) of every query against every corpus vector (packed uint8 rows)."""
    query_bits, corpus_bits = _packed(query_bits, "query bits"), _packed(corpus_bits, "corpus bits")
    if query_bits.shape[1] != corpus_bits.shape[1]:
        raise ValueError(f"queries have {query_bits.shape[1]} bytes a vector, the corpus {corpus_bits.shape[1]}: "
                         "binarise both from vectors of the same model and dimension.")
    distances = np.empty((len(query_bits), len(corpus_bits)), dtype=np.int32)
    for start in range(0, len(query_bits), chunk):  # queries × corpus × bytes at a time, never the whole cube
        block = np.bitwise_xor(query_bits[start:start + chunk, None, :], corpus_bits[None, :, :])
        distances[start:start + chunk] = popcount(block).sum(axis=-1, dtype=np.int32)
    return distances


def paired_hamming(a_bits: np.ndarray, b_bits: np.ndarray) -> np.ndarray:
    """popcount(a_i XOR b_i) row by row: two equally long lists of packed vectors."""
    a_bits, b_bits = _packed(a_bits, "first bits"), _packed(b_bits, "second bits")
    if a_bits.shape != b_bits.shape:
        raise ValueError(f"paired rows must have one shape, got {a_bits.shape} and {b_bits.shape}.")
    return popcount(np.bitwise_xor(a_bits, b_bits)).sum(axis=1, dtype=np.int32)


def binary_top_k(query_bits: np.ndarray, corpus_bits: np.ndarray, k: int) -> np.ndarray:
    """(queries, k): the corpus indices nearest each query in Hamming distance, ties to the lower index."""
    distances = hamming_distances(query_bits, corpus_bits)
    return np.argsort(distances, axis=1, kind="stable")[:, :_checked_k(k, distances.shape[1])]


def rescored_top_k(query_vectors: np.ndarray, corpus_bits: np.ndarray, k: int, multiplier: int = 4,
                   corpus_int8: np.ndarray | None = None) -> np.ndarray:
    """(queries, k): :func:`binary_top_k`'s ``multiplier · k`` candidates, reordered by the float query's dot product
    with each candidate's bits (0/1) or, given ``corpus_int8``, its int8 values; the ``k`` best."""
    query_vectors = np.asarray(query_vectors, dtype=np.float32)
    dimensions = query_vectors.shape[1]
    candidates = binary_top_k(binary_vectors(query_vectors), corpus_bits, min(multiplier * k, len(corpus_bits)))
    if corpus_int8 is None:
        stored = np.unpackbits(corpus_bits[candidates], axis=-1)[..., :dimensions].astype(np.float32)
    else:
        stored = np.asarray(corpus_int8)[candidates].astype(np.float32)
    scores = np.einsum("qd,qcd->qc", query_vectors, stored)
    order = np.argsort(-scores, axis=1, kind="stable")[:, :_checked_k(k, len(corpus_bits))]
    return np.take_along_axis(candidates, order, axis=1)


def _packed(bits, what: str) -> np.ndarray:
    bits = np.asarray(bits)
    if bits.dtype != np.uint8 or bits.ndim != 2:
        raise ValueError(f"{what} must be packed binary vectors, a (n, ⌈d/8⌉) uint8 matrix from binary_vectors; "
                         f"got {bits.dtype} of shape {bits.shape}.")
    return bits


def _checked_k(k: int, corpus_size: int) -> int:
    if not 1 <= k <= corpus_size:
        raise ValueError(f"k must be between 1 and the corpus size {corpus_size}, got {k}.")
    return k
