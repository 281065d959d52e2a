"""Similarity of embeddings: cosine, dot product and negated distances, pair by pair or as matrices.

Introduced in ``00_start_here.ipynb`` (the cosine of two sentences); ``03_pooling_and_sts.ipynb``
scores STS pairs with every entry of :data:`SIMILARITIES`, ``02_anisotropy.ipynb`` averages
cosines over all pairs (:func:`mean_cosine`), ``04_siamese_finetuning.ipynb`` builds the
in-batch score matrix of MNRL from :func:`cosine_matrix`. Every similarity is "higher = more
similar": distances are negated, as in sentence-transformers' evaluators.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
import torch.nn.functional as F

from sbert_workbook.evaluation.arrays import as_array, as_tensor


# ----------------------------------------------------------------------------- row i of u with row i of v
def cosine_similarity(u, v) -> np.ndarray:
    """cos(u_i, v_i) = u_i·v_i / (‖u_i‖ ‖v_i‖), row by row (``00_start_here.ipynb``)."""
    u, v = as_array(u), as_array(v)
    norms = np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1)
    return (u * v).sum(axis=1) / np.maximum(norms, 1e-12)


def dot_similarity(u, v) -> np.ndarray:
    """u_i·v_i, row by row (``03_pooling_and_sts.ipynb``)."""
    return (as_array(u) * as_array(v)).sum(axis=1)


def negative_euclidean(u, v) -> np.ndarray:
    """−‖u_i − v_i‖₂, so that closer pairs score higher (``03_pooling_and_sts.ipynb``)."""
    return -np.linalg.norm(as_array(u) - as_array(v), axis=1)


def negative_manhattan(u, v) -> np.ndarray:
    """−‖u_i − v_i‖₁, so that closer pairs score higher (``03_pooling_and_sts.ipynb``)."""
    return -np.abs(as_array(u) - as_array(v)).sum(axis=1)


#: Similarity name (as in metric keys such as ``spearman_cosine``) -> row-by-row function.
SIMILARITIES: dict[str, Callable] = {
    "cosine": cosine_similarity,
    "dot": dot_similarity,
    "euclidean": negative_euclidean,
    "manhattan": negative_manhattan,
}


# ----------------------------------------------------------------------------- every row with every row
def cosine_matrix(a, b):
    """cos(a_i, b_j) for every row i of ``a`` and j of ``b``: shape (len(a), len(b)).

    Two tensors give a tensor that gradients flow through (MNRL's scores in
    ``04_siamese_finetuning.ipynb``, as sentence-transformers' ``cos_sim``); anything else gives a
    float64 array (the classroom's pair explorer). Rows of zeros have cosine 0 with everything.
    """
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return F.normalize(a, dim=-1) @ F.normalize(b, dim=-1).T
    return cosine_matrix(torch.from_numpy(as_array(a)), torch.from_numpy(as_array(b))).numpy()


def unit_rows(vectors, dtype=np.float32) -> np.ndarray:
    """Each row divided by its length, as ``dtype`` (None keeps the input's); a row of zeros stays zero."""
    x = np.asarray(vectors, dtype=dtype)
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


def all_pair_cosines(vectors) -> np.ndarray:
    """cos(v_i, v_j) for every pair i < j of different rows, in scipy's ``pdist`` order (``classroom``'s embedding explorer)."""
    vectors = as_array(vectors)
    upper = np.triu_indices(len(vectors), k=1)
    return cosine_matrix(vectors, vectors)[upper]


def mean_cosine(embeddings) -> float:
    """Mean cos(x_i, x_j) over all pairs i ≠ j, exactly: (‖Σ x̂_i‖² − n) / (n(n − 1)), x̂ = x/‖x‖ (``02_anisotropy.ipynb``)."""
    x = F.normalize(as_tensor(embeddings, min_rows=2), dim=1)
    n = x.shape[0]
    return float((x.sum(dim=0).square().sum() - n) / (n * (n - 1)))
