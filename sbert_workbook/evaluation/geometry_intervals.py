"""How sure is a change in alignment or uniformity? Paired bootstrap intervals for two embeddings of the same sentences
(``06_contrastive_simcse.ipynb``).

Two rows of a table (raw vectors and the same sentences after whitening, or after training) measured on the *same*
sentences differ by a number; what varies, for a frozen map, is the sample of sentences. So, as
:func:`sbert_workbook.evaluation.uncertainty.paired_bootstrap` does for STS pairs:

* **alignment** ℓ_align = mean over positive pairs of ‖x̂ − ŷ‖² is a mean of one number per pair: resample the pairs
  (each keeping both rows' distances) and read the percentile interval of the difference of the two means;
* **uniformity** ℓ_uniform = log of the mean over sentence pairs i < j of e^{−t‖x̂_i − x̂_j‖²} is a U-statistic: every
  sentence takes part in many pairs, so resampling pairs would pretend they are independent. Its first-order (Hájek)
  projection is: U − θ ≈ (2/n) Σ_i (a_i − θ), with a_i the mean kernel of sentence i with every other one, so a
  resample of sentences moves U by 2·(mean a* − mean a). Resampling sentences, each keeping its a_i under both rows,
  gives the interval of the difference of the two logs (checked against the full resampled-matrix bootstrap in
  tests/test_geometry_intervals.py).

Both return an :class:`~sbert_workbook.evaluation.uncertainty.Interval`: **apart** when it excludes 0, else a **tie**.
"""
from __future__ import annotations

import numpy as np

from sbert_workbook.evaluation.arrays import as_tensor
from sbert_workbook.evaluation.similarity import unit_rows
from sbert_workbook.evaluation.uncertainty import (CONFIDENCE, RESAMPLES, Interval, bootstrap_picks, paired_mean_interval,
                                                   percentile_interval)


def pair_distances(x, y) -> np.ndarray:
    """‖x̂_i − ŷ_i‖² for each positive pair (x_i, y_i), on unit vectors: alignment's one number per pair."""
    x, y = (unit_rows(as_tensor(rows, min_rows=2), np.float64) for rows in (x, y))
    if x.shape != y.shape:
        raise ValueError(f"Pairs need equal shapes; got {x.shape} and {y.shape}.")
    return ((x - y) ** 2).sum(axis=1)


def mean_kernels(vectors, t: float = 2.0) -> np.ndarray:
    """a_i = mean over j ≠ i of e^{−t‖x̂_i − x̂_j‖²}: each sentence's share of uniformity (mean a_i is the U-statistic)."""
    unit = unit_rows(as_tensor(vectors, min_rows=2), np.float64)
    kernel = np.exp(-t * np.clip(2 - 2 * unit @ unit.T, 0, None))
    np.fill_diagonal(kernel, 0.0)
    return kernel.sum(axis=1) / (len(unit) - 1)


def alignment_difference(pairs_a: tuple, pairs_b: tuple, resamples: int = RESAMPLES, seed: int = 0,
                         confidence: float = CONFIDENCE) -> Interval:
    """Interval of ℓ_align(a) − ℓ_align(b): ``pairs_a`` and ``pairs_b`` are each ``(x, y)``, the same positive pairs
    under two embeddings; the pairs are resampled with replacement, each keeping its two distances."""
    return paired_mean_interval(pair_distances(*pairs_a), pair_distances(*pairs_b), resamples, seed, confidence,
                                unit="positive pairs")


def uniformity_difference(vectors_a, vectors_b, t: float = 2.0, resamples: int = RESAMPLES, seed: int = 0,
                          confidence: float = CONFIDENCE) -> Interval:
    """Interval of ℓ_uniform(a) − ℓ_uniform(b) for the same sentences under two embeddings: sentences resampled with
    replacement, each keeping its mean kernel a_i under both rows, U moved by its Hájek projection 2·(mean a* − mean a)."""
    a, b = mean_kernels(vectors_a, t), mean_kernels(vectors_b, t)
    if a.shape != b.shape:
        raise ValueError(f"Both rows must embed the same sentences; got {len(a)} and {len(b)}.")
    picks = bootstrap_picks(len(a), resamples, seed)
    moved = [np.clip(k.mean() + 2 * (k[picks].mean(axis=1) - k.mean()), 1e-300, None) for k in (a, b)]
    return Interval(float(np.log(a.mean()) - np.log(b.mean())),
                    *percentile_interval(np.log(moved[0]) - np.log(moved[1]), confidence),
                    f"paired bootstrap over {len(a)} sentences (Hájek projection of the U-statistic), {resamples} resamples")
