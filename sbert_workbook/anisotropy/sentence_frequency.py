"""BERT-flow's Observations 1 and 2 at the sentence level: does word frequency decide where a sentence vector sits?
(``02_anisotropy``, §5)

BERT-flow (§2.2) measures frequency on the input word-embedding matrix (its Table 1) and carries the effect to
sentence vectors by assumption. These functions measure it on sentences: where each sentence vector sits
(its distance from the mean sentence vector, raw (Observation 1: frequency sets how far out a vector sits) and after
whitening, and its log-density under a Gaussian fitted to the sentences (Observation 2: rare words in sparse
regions)), and Spearman's ρ between those positions and a sentence's mean token log-frequency or length. Under
the Gaussian fit, log N(x; μ, Σ) = const − ½‖(x − μ) U Λ^{−1/2}‖²: the density and the whitened distance are one
measure, read in opposite directions.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from sbert_workbook.evaluation.geometry import NO_VARIANCE, covariance_axes, supported_dimensions, whitening_kernel

#: The three positions :func:`sentence_positions` returns, in order.
POSITIONS = ("distance from the mean (raw)", "distance from the mean (whitened)", "Gaussian log-density")


def _rows(vectors) -> np.ndarray:
    x = np.asarray(vectors, dtype=np.float64)
    if x.ndim != 2 or len(x) < 3:
        raise ValueError(f"Need a matrix of at least 3 sentence vectors (one per row); got shape {x.shape}.")
    return x


def gaussian_dimensions(vectors) -> int:
    """How many principal directions a Gaussian fit of these sentence vectors can use: those along which the sentences
    vary at all, and at most half the number of sentences when there are fewer than twice as many sentences as
    dimensions (a covariance of n vectors has rank below n). A view read straight from a LayerNorm output lies in a
    hyperplane (each token vector's normalised coordinates sum to 0), so one of its directions has no variance.
    (:func:`~sbert_workbook.evaluation.geometry.supported_dimensions`, named for what 02 asks of it.)"""
    return supported_dimensions(_rows(vectors))


def _whitened(vectors, dimensions: int | None) -> tuple[np.ndarray, np.ndarray]:
    """(z, λ_k): z_i = (x_i − μ) U_k Λ_k^{−1/2}, from the top ``dimensions`` principal directions of the
    maximum-likelihood covariance (one SVD of the centred rows: Σ = Vᵀ S² V / n, so U_k = V_kᵀ, λ = s²/n)."""
    x = _rows(vectors)
    k = x.shape[1] if dimensions is None else dimensions
    if not 1 <= k <= x.shape[1] or k >= len(x):
        raise ValueError(f"dimensions={k} must be between 1 and the vector size {x.shape[1]} and below the number of "
                         f"sentences {len(x)}; use gaussian_dimensions(vectors) to pick it.")
    mean, variances, directions = covariance_axes(x, method="svd")
    if variances[k - 1] <= NO_VARIANCE * variances[0]:
        raise ValueError(f"the covariance has fewer than {k} non-zero directions: pass fewer dimensions "
                         "(gaussian_dimensions(vectors) counts them).")
    kernel = whitening_kernel(variances, directions, k, floor=0.0)
    return (x - mean.numpy()) @ kernel.numpy(), variances[:k].numpy()


def distance_from_mean(vectors) -> np.ndarray:
    """‖x_i − μ‖₂, μ the mean of the rows: how far each sentence sits from the centre of the cloud."""
    x = _rows(vectors)
    return np.linalg.norm(x - x.mean(axis=0), axis=1)


def whitened_distance_from_mean(vectors, dimensions: int | None = None) -> np.ndarray:
    """‖(x_i − μ) U_k Λ_k^{−1/2}‖₂: the distance from the mean after whitening to the top ``dimensions`` directions."""
    return np.linalg.norm(_whitened(vectors, dimensions)[0], axis=1)


def _log_density(z: np.ndarray, variances: np.ndarray) -> np.ndarray:
    return -0.5 * ((z ** 2).sum(axis=1) + np.log(variances).sum() + len(variances) * np.log(2 * np.pi))


def gaussian_log_density(vectors, dimensions: int | None = None) -> np.ndarray:
    """log N(y_i; 0, Λ_k) of each sentence under a Gaussian fitted to all of them (maximum likelihood), with
    y_i = (x_i − μ) U_k its coordinates along the top ``dimensions`` principal directions (all by default):
    −½ (Σ_j y_ij²/λ_j + Σ_j log λ_j + k log 2π), where y_ij²/λ_j sums to the squared whitened distance."""
    return _log_density(*_whitened(vectors, dimensions))


def sentence_positions(vectors, dimensions: int | None = None) -> dict[str, np.ndarray]:
    """Each sentence's distance from the mean (raw and whitened) and its Gaussian log-density (see :data:`POSITIONS`)."""
    z, variances = _whitened(vectors, dimensions)
    return dict(zip(POSITIONS, (distance_from_mean(vectors), np.linalg.norm(z, axis=1), _log_density(z, variances))))


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
