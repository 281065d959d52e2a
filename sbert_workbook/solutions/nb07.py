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
    "ex07_3": "Read the two diagnoses side by side, each statement with the interval it rests on, rather than expecting "
              "particular numbers. For each model: is its mean cosine near 0 or far above it; does IsoScore sit far below "
              "the isotropic reference of the same size; does the informativity test keep the order of the pairs without "
              "the rogue dimensions; which rung, if any, the verdict names. A model trained for similarity has already "
              "arranged its directions for cosine, so a fix that equalises them (whitening, per-cluster all-but-the-top) "
              "can keep that arrangement or undo it: where such a rung's interval lies below zero, it removed something "
              "the training put there. A raw transformer's top directions carry frequency and position rather than "
              "meaning (02, 05): where a rung's interval lies above zero for it, removing them is what helped, and that "
              "is where the fixes of 05 were born.",
}
