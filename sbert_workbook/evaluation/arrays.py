"""Embeddings as one array type: a float64 numpy array or a 2-D CPU tensor (``00_start_here.ipynb`` onwards).

Encoders return tensors, files and sklearn give numpy arrays; every helper that computes on
embeddings first passes them through :func:`as_array` or :func:`as_tensor`, so they accept both.
"""
from __future__ import annotations

import numpy as np
import torch


def as_array(embeddings) -> np.ndarray:
    """A float64 numpy array from a tensor (detached, moved to the CPU), an array or nested lists."""
    if isinstance(embeddings, torch.Tensor):
        embeddings = embeddings.detach().to("cpu", torch.float64).numpy()  # float64 kept: no rounding to float32 first
    return np.asarray(embeddings, dtype=np.float64)


def as_tensor(embeddings, dtype: torch.dtype = torch.float64, min_rows: int = 1, finite: bool = False) -> torch.Tensor:
    """A detached 2-D CPU tensor of ``dtype`` with at least ``min_rows`` rows; ``finite`` also rejects NaN and infinity.

    Introduced with the anisotropy measures of ``02_anisotropy.ipynb``; the calibrators and the
    flow of ``05_bert_flow.ipynb`` use it too.
    """
    x = embeddings.detach().cpu() if isinstance(embeddings, torch.Tensor) else torch.as_tensor(np.asarray(embeddings))
    if x.ndim != 2 or x.shape[0] < min_rows:
        vectors = "vector" if min_rows == 1 else "vectors"
        raise ValueError(f"Expected a matrix of at least {min_rows} {vectors}, shape (n, dim); got shape {tuple(x.shape)}.")
    x = x.to(dtype)
    if finite and not torch.isfinite(x).all():
        raise ValueError("The embeddings contain NaN or infinite values; check how they were computed.")
    return x
