"""Rogue dimensions: the few coordinates that decide cosine similarity (``07_your_model.ipynb``, §3).

Timkey & van Schijndel (EMNLP 2021, arXiv 2109.04404, "All Bark and No Bite") split the cosine into one term per
dimension, cos(u, v) = Σ_i u_i v_i / (‖u‖ ‖v‖), so the expected cosine of random pairs is the sum of each dimension's
expected contribution CC(i) = E[u_i v_i / (‖u‖ ‖v‖)]. In BERT-like models one to three dimensions carry most of it.
Here the expectation is exact over all pairs i ≠ j of the sample, so the contributions sum to
:func:`~sbert_workbook.diagnosis.cone.mean_random_pair_cosine`.

A share says where the *level* of cosine comes from, not which pairs it ranks above which: a dimension whose
contribution is large but about the same for every pair adds a constant to every cosine and reorders nothing. So the
share is read beside Timkey & van Schijndel's *informativity* test (:func:`informativity`): the Spearman correlation
between the cosines with all dimensions and without the top few, over the same pairs; near 1, the rogue dimensions
decide the level and not the order, which is all STS reads. A share is a ratio to E cos, so it is left undefined
(:func:`share_is_defined`) when E cos is near 0, as for a model trained for similarity: there it can exceed 1 or turn
negative, and the contributions themselves are what to read.

Their remedy, standardising every dimension with the corpus mean and standard deviation before taking cosines, is
05's SN (:class:`~sbert_workbook.calibration.calibrators.StandardNormalization`); 07 compares STS with and without it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from sbert_workbook.evaluation.similarity import cosine_similarity, unit_rows
from sbert_workbook.evaluation.uncertainty import CONFIDENCE, RESAMPLES, bootstrap_picks, percentile_interval, spearman_rows

#: |E cos| below this leaves a share of it undefined: a ratio to a number near 0.
MIN_EXPECTED_COSINE = 0.05
#: A Spearman correlation of at least this between the cosines with and without the rogue dimensions reads as the
#: order kept (the rest of the dimensions rank the pairs as all of them do).
ORDER_KEPT = 0.9


def cosine_contributions(vectors) -> np.ndarray:
    """CC(i) = E_{j≠k}[x̂_ji x̂_ki] for every dimension i, x̂ = x/‖x‖: ((Σ_j x̂_ji)² − Σ_j x̂_ji²) / (n(n − 1))."""
    x = np.asarray(vectors, dtype=np.float64)
    if x.ndim != 2 or len(x) < 2:
        raise ValueError(f"Need at least 2 vectors as the rows of a matrix; got shape {np.shape(vectors)}.")
    unit = unit_rows(x, np.float64)
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


def share_is_defined(contributions) -> bool:
    """Whether a share of E cos = Σ_i CC(i) means anything: |E cos| ≥ :data:`MIN_EXPECTED_COSINE` and every share of the
    top three between 0 and 1. Near E cos = 0 (a model trained for similarity) a share can exceed 1 or be negative."""
    contributions = np.asarray(contributions, dtype=np.float64)
    expected = contributions.sum()
    if abs(expected) < MIN_EXPECTED_COSINE:
        return False
    shares = contributions[np.argsort(-np.abs(contributions))[:3]] / expected
    return bool(np.all((shares >= 0) & (shares <= 1)))


@dataclass(frozen=True)
class Correlation:
    """A correlation with its interval (not a difference: its interval is read against a threshold, not against 0)."""

    value: float
    low: float
    high: float
    method: str

    def described(self) -> str:
        return f"ρ = {self.value:.3f} [{self.low:.3f}, {self.high:.3f}] ({CONFIDENCE:.0%} {self.method})".replace("%", " %", 1)


def informativity(first, second, dimensions, resamples: int = RESAMPLES, seed: int = 0,
                  confidence: float = CONFIDENCE) -> Correlation:
    """Timkey & van Schijndel's informativity test on pairs (first_i, second_i): the Spearman correlation between
    cos(u, v) with every dimension and cos(u, v) without ``dimensions``, with its percentile bootstrap interval over
    the pairs (resampled with replacement, each keeping both its cosines). 1: the dropped dimensions reorder no pair."""
    first, second = (np.asarray(x, dtype=np.float64) for x in (first, second))
    if first.shape != second.shape or first.ndim != 2 or len(first) < 3:
        raise ValueError(f"informativity needs two equally shaped (pairs, d) matrices with at least 3 pairs; got "
                         f"{first.shape} and {second.shape}.")
    kept = np.setdiff1d(np.arange(first.shape[1]), np.asarray(dimensions, dtype=int))
    whole, without = cosine_similarity(first, second), cosine_similarity(first[:, kept], second[:, kept])
    whole, without = np.asarray(whole, dtype=np.float64), np.asarray(without, dtype=np.float64)
    picks = bootstrap_picks(len(whole), resamples, seed)
    low, high = percentile_interval(spearman_rows(whole[picks], without[picks]) / 100, confidence)
    return Correlation(float(spearman_rows(whole, without) / 100), low, high,
                       f"percentile bootstrap over {len(whole)} pairs, {resamples} resamples")


def order_verdict(interval: Correlation) -> str:
    """'keeps the order' when the whole interval lies at or above :data:`ORDER_KEPT`, 'reorders the pairs' when it
    lies below it, else 'unclear'."""
    if interval.low >= ORDER_KEPT:
        return "keeps the order"
    return "reorders the pairs" if interval.high < ORDER_KEPT else "unclear"
