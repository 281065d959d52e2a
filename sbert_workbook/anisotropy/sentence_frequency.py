"""Observation 2 at the sentence level: does word frequency decide where a sentence vector sits? (``02_anisotropy``, §5)

BERT-flow measures frequency on the input word-embedding matrix (its Table 1) and carries the effect to
sentence vectors by assumption. These functions measure it on sentences: where each sentence vector sits
(its distance from the mean sentence vector, raw and after whitening, and its log-density under a Gaussian
fitted to the sentences), and Spearman's ρ between those positions and a sentence's mean token
log-frequency or length. Under the Gaussian fit, log N(x; μ, Σ) = const − ½‖(x − μ) U Λ^{−1/2}‖²: the
density and the whitened distance are one measure, read in opposite directions.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

#: The three positions :func:`sentence_positions` returns, in order.
POSITIONS = ("distance from the mean (raw)", "distance from the mean (whitened)", "Gaussian log-density")


def _rows(vectors) -> np.ndarray:
    x = np.asarray(vectors, dtype=np.float64)
    if x.ndim != 2 or len(x) < 3:
        raise ValueError(f"Need a matrix of at least 3 sentence vectors (one per row); got shape {x.shape}.")
    return x


def gaussian_dimensions(n_sentences: int, dimension: int) -> int:
    """How many principal directions a Gaussian fit of ``n_sentences`` vectors can use: all ``dimension`` when there
    are at least twice as many sentences, else ``n_sentences // 2`` (a covariance of n vectors has rank below n)."""
    return dimension if n_sentences >= 2 * dimension else max(1, n_sentences // 2)


def _principal_axes(x: np.ndarray, dimensions: int | None):
    """(mean, top eigenvectors U_k as columns, their eigenvalues λ_k) of the maximum-likelihood covariance."""
    k = x.shape[1] if dimensions is None else dimensions
    if not 1 <= k <= x.shape[1] or k >= len(x):
        raise ValueError(f"dimensions={k} must be between 1 and the vector size {x.shape[1]} and below the number of "
                         f"sentences {len(x)}; use gaussian_dimensions({len(x)}, {x.shape[1]}) to pick it.")
    mean = x.mean(axis=0)
    eigenvalues, eigenvectors = np.linalg.eigh(np.cov(x - mean, rowvar=False, bias=True))
    top = np.argsort(eigenvalues)[::-1][:k]
    if eigenvalues[top[-1]] <= 1e-12 * eigenvalues[top[0]]:
        raise ValueError(f"the covariance has fewer than {k} non-zero directions: pass fewer dimensions.")
    return mean, eigenvectors[:, top], eigenvalues[top]


def distance_from_mean(vectors) -> np.ndarray:
    """‖x_i − μ‖₂, μ the mean of the rows: how far each sentence sits from the centre of the cloud."""
    x = _rows(vectors)
    return np.linalg.norm(x - x.mean(axis=0), axis=1)


def whitened_distance_from_mean(vectors, dimensions: int | None = None) -> np.ndarray:
    """‖(x_i − μ) U_k Λ_k^{−1/2}‖₂: the distance from the mean after whitening to the top ``dimensions`` directions."""
    x = _rows(vectors)
    mean, axes, variances = _principal_axes(x, dimensions)
    return np.linalg.norm((x - mean) @ axes / np.sqrt(variances), axis=1)


def gaussian_log_density(vectors, dimensions: int | None = None) -> np.ndarray:
    """log N(y_i; 0, Λ_k) of each sentence under a Gaussian fitted to all of them (maximum likelihood), with
    y_i = (x_i − μ) U_k its coordinates along the top ``dimensions`` principal directions (all by default)."""
    x = _rows(vectors)
    mean, axes, variances = _principal_axes(x, dimensions)
    coordinates = (x - mean) @ axes
    return -0.5 * ((coordinates ** 2 / variances).sum(axis=1) + np.log(variances).sum() + len(variances) * np.log(2 * np.pi))


def sentence_positions(vectors, dimensions: int | None = None) -> dict[str, np.ndarray]:
    """Each sentence's distance from the mean (raw and whitened) and its Gaussian log-density (see :data:`POSITIONS`)."""
    return dict(zip(POSITIONS, (distance_from_mean(vectors), whitened_distance_from_mean(vectors, dimensions),
                                gaussian_log_density(vectors, dimensions))))


def spearman_table(properties: Mapping[str, np.ndarray], positions: Mapping[str, np.ndarray]) -> pd.DataFrame:
    """Spearman ρ of every sentence property (rows) with every position (columns); sentences with a NaN are left out."""
    table = {}
    for position, where in positions.items():
        column = {}
        for name, values in properties.items():
            values, where = np.asarray(values, dtype=np.float64), np.asarray(where, dtype=np.float64)
            if len(values) != len(where):
                raise ValueError(f"{name!r} has {len(values)} values for {len(where)} sentences: one per sentence.")
            known = np.isfinite(values) & np.isfinite(where)
            column[name] = spearmanr(values[known], where[known]).statistic
        table[position] = column
    return pd.DataFrame(table)
