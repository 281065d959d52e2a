"""Fewer bytes per vector: scalar (int8) and binary quantization of sentence embeddings (``08_what_an_embedding_costs``, §2).

int8, per dimension j, with the range [lo_j, hi_j] read from *calibration* vectors (never the ones being stored,
which a real index does not have yet):

    Δ_j = (hi_j − lo_j) / 255,   q_ij = clip(⌊(x_ij − lo_j) / Δ_j⌋, 0, 255) − 128        (1 byte a dimension)

binary: one bit a dimension, its sign, eight dimensions packed into a byte:

    b_ij = [x_ij > 0]                                                                     (1/8 byte a dimension)

These are the rules of sentence-transformers' ``quantize_embeddings`` (precisions ``int8`` and ``ubinary``), which
the tests hold them to; they are written out here so they read beside the two lines above.
"""
from __future__ import annotations

import math

import numpy as np

#: Bytes one dimension takes in each precision.
BYTES_PER_DIMENSION = {"float32": 4.0, "int8": 1.0, "binary": 1 / 8}


def bytes_per_vector(precision: str, dimensions: int) -> int:
    """Bytes one ``dimensions``-long vector takes in ``precision`` (binary rounds up to whole bytes)."""
    if precision not in BYTES_PER_DIMENSION:
        raise ValueError(f"Unknown precision {precision!r}; choose from {', '.join(BYTES_PER_DIMENSION)}.")
    if dimensions < 1:
        raise ValueError(f"A vector has at least one dimension, got {dimensions}.")
    return math.ceil(BYTES_PER_DIMENSION[precision] * dimensions)


def int8_ranges(calibration: np.ndarray) -> np.ndarray:
    """(2, d): each dimension's smallest and largest value over the calibration vectors."""
    calibration = _float_matrix(calibration, "calibration vectors")
    if len(calibration) < 2:
        raise ValueError("int8 ranges need at least two calibration vectors (a few hundred is usual); "
                         f"got {len(calibration)}.")
    return np.vstack([calibration.min(axis=0), calibration.max(axis=0)])


def int8_vectors(vectors: np.ndarray, ranges: np.ndarray) -> np.ndarray:
    """Equation (1): each value's bucket among 256 between its dimension's lo and hi, shifted to int8."""
    vectors = _float_matrix(vectors, "vectors")
    ranges = np.asarray(ranges, dtype=np.float32)
    if ranges.shape != (2, vectors.shape[1]):
        raise ValueError(f"ranges must be (2, {vectors.shape[1]}) (int8_ranges of calibration vectors), got {ranges.shape}.")
    lo, hi = ranges
    step = (hi - lo) / 255
    step = np.where(step == 0, 1, step)  # a dimension that never varied: every value in bucket 0
    buckets = np.clip(np.floor((vectors - lo) / step), 0, 255)
    return (buckets - 128).astype(np.int8)


def binary_vectors(vectors: np.ndarray) -> np.ndarray:
    """Equation (2): the sign bit of every dimension, packed eight to a byte (uint8, ⌈d/8⌉ columns)."""
    return np.packbits(_float_matrix(vectors, "vectors") > 0, axis=-1)


def _float_matrix(values, what: str) -> np.ndarray:
    """``values`` as a 2-D float32 array, or a ValueError saying what shape it had."""
    array = np.asarray(values.detach().cpu() if hasattr(values, "detach") else values)
    if array.ndim != 2 or array.shape[0] == 0 or array.shape[1] == 0:
        raise ValueError(f"{what} must be a non-empty (n, d) matrix of floats, got shape {array.shape}.")
    if not np.issubdtype(array.dtype, np.floating):
        raise ValueError(f"{what} must be floats (already quantized? quantize the float32 vectors), got {array.dtype}.")
    return array.astype(np.float32, copy=False)
