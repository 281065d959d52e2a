"""References of notebook 07's checks that would give the answer away if typed into the check cell (``07_your_model``)."""
from __future__ import annotations

import numpy as np


def ex07_1(vectors):
    """CC(i) for every dimension: the mean of x̂_ji x̂_ki over all ordered pairs j ≠ k, summed pair by pair in blocks
    (the definition, not the closed form the exercise leads to)."""
    unit = np.asarray(vectors, dtype=np.float64)
    unit = unit / np.linalg.norm(unit, axis=1, keepdims=True)
    n, total = len(unit), np.zeros(unit.shape[1])
    for start in range(0, n, 256):
        block = unit[start:start + 256]
        total += np.einsum("jd,kd->d", block, unit) - (block * block).sum(axis=0)  # every k, minus k = j
    return total / (n * (n - 1))
