"""Rogue dimensions: the few coordinates that decide cosine similarity (``07_your_model.ipynb``, §3).

Timkey & van Schijndel (EMNLP 2021, arXiv 2109.04404, "All Bark and No Bite") split the cosine into one term per
dimension, cos(u, v) = Σ_i u_i v_i / (‖u‖ ‖v‖), so the expected cosine of random pairs is the sum of each dimension's
expected contribution CC(i) = E[u_i v_i / (‖u‖ ‖v‖)]. In BERT-like models one to three dimensions carry most of it.
Their remedy is to standardise every dimension with the corpus mean and standard deviation (z-scoring) before taking
cosines; what the diagnosis compares is STS with and without it, on the same pairs. Here the expectation is exact
over all pairs i ≠ j of the sample, so the shares sum to :func:`~sbert_workbook.diagnosis.cone.mean_random_pair_cosine`.
"""
from __future__ import annotations

import numpy as np
import pandas as pd


def cosine_contributions(vectors) -> np.ndarray:
    """CC(i) = E_{j≠k}[x̂_ji x̂_ki] for every dimension i, x̂ = x/‖x‖: ((Σ_j x̂_ji)² − Σ_j x̂_ji²) / (n(n − 1))."""
    x = np.asarray(vectors, dtype=np.float64)
    if x.ndim != 2 or len(x) < 2:
        raise ValueError(f"Need at least 2 vectors as the rows of a matrix; got shape {np.shape(vectors)}.")
    unit = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
    n = len(unit)
    return (unit.sum(axis=0) ** 2 - (unit ** 2).sum(axis=0)) / (n * (n - 1))


def rogue_dimensions(vectors, top: int = 3) -> pd.DataFrame:
    """The ``top`` dimensions by |CC(i)|: each one's contribution and its share of the expected cosine, largest first."""
    contributions = cosine_contributions(vectors)
    expected = contributions.sum()
    order = np.argsort(-np.abs(contributions))[:top]
    table = pd.DataFrame({"dimension": order, "CC(i)": contributions[order],
                          "share of E cos": contributions[order] / expected if expected else np.nan})
    return table.set_index("dimension")


def top_share(vectors, top: int = 3) -> float:
    """Σ CC(i) over the ``top`` dimensions by |CC(i)|, over E cos = Σ_i CC(i): how much of the cone they make."""
    return float(rogue_dimensions(vectors, top)["CC(i)"].sum() / cosine_contributions(vectors).sum())


def standardised(vectors, mean=None, std=None) -> np.ndarray:
    """z_i = (x_i − μ_i) / σ_i per dimension, with the corpus mean and standard deviation (those of ``vectors`` unless
    given): Timkey & van Schijndel's standardisation, BERT-flow's SN."""
    x = np.asarray(vectors, dtype=np.float64)
    mean = x.mean(axis=0) if mean is None else mean
    std = x.std(axis=0) if std is None else std
    return (x - mean) / np.maximum(std, 1e-12)
