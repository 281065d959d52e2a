"""The geometry of an embedding space: its singular spectrum, alignment and uniformity (``02_anisotropy.ipynb``).

Pure functions on (n, dim) arrays or tensors, read wherever a lesson asks how spread out a space
is: ``02`` measures the cone with them, and a contrastive lesson compares a fine-tuned encoder
with whitening and the flow on the same three. Alignment and uniformity are Wang & Isola's (2020):
lower is better for both.
"""
from __future__ import annotations

import numpy as np
import torch

from sbert_workbook.evaluation.arrays import as_tensor


def principal_variance_ratios(embeddings, center: bool = True) -> np.ndarray:
    """σ_k² / Σ σ², the singular values σ of X (centred: PCA's explained variance ratios).

    Uncentred (``center=False``) the first ratio is the share of ‖X‖² along one common
    direction: close to 1 for a narrow cone, about 1/dim for an isotropic cloud.
    """
    x = as_tensor(embeddings, min_rows=2)
    if center:
        x = x - x.mean(dim=0)
    squared = torch.linalg.svdvals(x).square()
    return (squared / squared.sum()).numpy()


def alignment(x, y, alpha: float = 2.0) -> float:
    """ℓ_align = E ‖f(x) − f(y)‖^α over positive pairs (x_i, y_i), on unit-normalised vectors."""
    x = torch.nn.functional.normalize(as_tensor(x, min_rows=2), dim=1)
    y = torch.nn.functional.normalize(as_tensor(y, min_rows=2), dim=1)
    if x.shape != y.shape:
        raise ValueError(f"Pairs need equal shapes; got {tuple(x.shape)} and {tuple(y.shape)}.")
    return float((x - y).norm(dim=1).pow(alpha).mean())


def uniformity(embeddings, t: float = 2.0, chunk_size: int = 1024) -> float:
    """ℓ_uniform = log E_{i<j} exp(−t ‖f(x_i) − f(x_j)‖²) on unit-normalised vectors (chunked)."""
    x = torch.nn.functional.normalize(as_tensor(embeddings, min_rows=2), dim=1)
    n, total = len(x), torch.zeros((), dtype=torch.float64)
    for start in range(0, n, chunk_size):
        block = x[start:start + chunk_size]
        d2 = (2 - 2 * block @ x.T).clamp(min=0)  # ‖a − b‖² = 2 − 2 a·b for unit vectors
        later = torch.arange(n)[None, :] > torch.arange(start, start + len(block))[:, None]
        total += torch.exp(-t * d2)[later].sum()
    return float(torch.log(total / (n * (n - 1) / 2)))
