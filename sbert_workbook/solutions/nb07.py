"""Reference solutions for ``07_your_model.ipynb`` (see :mod:`sbert_workbook.teaching.exercises` for the pattern)."""
from __future__ import annotations

import numpy as np

from sbert_workbook.teaching.exercises import solution


def _unit(vectors) -> np.ndarray:
    x = np.asarray(vectors, dtype=np.float64)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _contributions(unit: np.ndarray, pairs_with_itself: bool = False) -> np.ndarray:
    n = len(unit)
    if pairs_with_itself:
        return unit.sum(axis=0) ** 2 / n ** 2
    return (unit.sum(axis=0) ** 2 - (unit ** 2).sum(axis=0)) / (n * (n - 1))


@solution(wrong={
    "half: each unordered pair j < k counted once but divided by the n(n − 1) ordered pairs":
        lambda vectors: _contributions(_unit(vectors)) / 2,
    "each sentence paired with itself too (j = k kept: divided by n², not n(n − 1))": lambda vectors: _contributions(_unit(vectors), True),
    "the shares CC(i) / E cos instead of the contributions": lambda vectors: _contributions(_unit(vectors)) / _contributions(_unit(vectors)).sum(),
})
def ex07_1(vectors) -> np.ndarray:
    """CC(i) = ((Σ_j x̂_ji)² − Σ_j x̂_ji²) / (n(n − 1)) with x̂ = x / ‖x‖ row by row."""
    return _contributions(_unit(vectors))


DISCUSSION = {
    "ex07_2": "IsoScore reads the covariance of the sample. With n sentences in d dimensions the sample covariance of even "
              "a perfectly isotropic cloud has unequal eigenvalues (they spread by about (1 ± √(d/n))², the "
              "Marchenko–Pastur law), so IsoScore falls below 1 when n is not much larger than d: compare a model's "
              "IsoScore with the isotropic reference of the same size, never with 1. Doubling the sentences moves the "
              "reference up; a model whose IsoScore stays far below it is anisotropic, not undersampled.",
    "ex07_3": "A model trained for similarity (all-MiniLM-L6-v2) already spreads its sentences: its mean cosine is near "
              "0 and no rung of the ladder lifts its STS beyond its interval, while whitening and per-cluster "
              "all-but-the-top can cost points, because they equalise directions the training made unequal on purpose. "
              "Raw BERT (bert-base-uncased, mean pooling) sits in a narrow cone whose top directions carry frequency "
              "and position, not meaning: removing them (SN, all-but-the-top, whitening, the flow) is where the fixes "
              "of 05 were born.",
}
