"""References of notebook 06's checks that would give the answer away if typed into the check cell
(``06_contrastive_simcse.ipynb``)."""
from __future__ import annotations

import numpy as np
import torch

from sbert_workbook.evaluation.geometry import alignment
from sbert_workbook.published import SIMCSE_TEMPERATURE

#: Exercise 1 is tried on these: 6 anchors and 6 positives of 5 dimensions, not unit length (a forgotten normalisation shows).
INFONCE_SHAPE, INFONCE_SEED = (6, 5), 6


def infonce_inputs() -> tuple[torch.Tensor, torch.Tensor, float]:
    """The anchors, positives and temperature exercise 1's function is called with."""
    generator = torch.Generator().manual_seed(INFONCE_SEED)
    anchors, positives = (3 * torch.randn(*INFONCE_SHAPE, generator=generator) for _ in range(2))
    return anchors, positives, SIMCSE_TEMPERATURE


def infonce_trial(student_function):
    """What the check compares: the student's function on :func:`infonce_inputs`."""
    return student_function(*infonce_inputs())


def ex06_infonce():
    """InfoNCE by its definition, in float64 numpy: row i's −log of e^{cos(a_i, p_i)/τ} over Σ_j e^{cos(a_i, p_j)/τ}."""
    anchors, positives, tau = (x.double().numpy() if hasattr(x, "numpy") else x for x in infonce_inputs())
    a = anchors / np.linalg.norm(anchors, axis=1, keepdims=True)
    p = positives / np.linalg.norm(positives, axis=1, keepdims=True)
    losses = [-(a[i] @ p[i] / tau - np.log(sum(np.exp(a[i] @ p[j] / tau) for j in range(len(p))))) for i in range(len(a))]
    return float(np.mean(losses))


def ex06_alignment(align_u, align_v):
    """Wang & Isola's alignment of the pairs, as 02 §7 and section 5's table compute it."""
    return float(alignment(align_u, align_v))
