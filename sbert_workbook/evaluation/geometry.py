"""The geometry of an embedding space: its axes, singular spectrum, alignment and uniformity (``02_anisotropy.ipynb``).

Pure functions on (n, dim) arrays or tensors, read wherever a lesson asks how spread out a space
is: ``02`` measures the cone with them, and a contrastive lesson compares a fine-tuned encoder
with whitening and the flow on the same three. Alignment and uniformity are Wang & Isola's (2020):
lower is better for both.

The linear algebra every fix shares lives here once, below the lessons that use it: :func:`covariance_axes` (a
Gaussian fit: mean, variances, axes; whitening, PCA-k and all-but-the-top of ``05``/``07``/``08``, and ``02``'s
sentence densities), :func:`singular_directions` (directions of largest energy, centred or not: NATSV, SIF and the
pictures' projections), :func:`singular_values`, :func:`whitening_kernel` and :func:`supported_dimensions`.
"""
from __future__ import annotations

import numpy as np
import torch

from sbert_workbook.evaluation.arrays import as_array, as_tensor

#: A principal direction whose variance is below this fraction of the largest counts as none (float rounding).
NO_VARIANCE = 1e-12


def covariance_axes(embeddings, method: str = "eigh", chunk: int | None = None
                    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(μ, Λ, U) of Σ = (u − μ)ᵀ(u − μ)/n = U Λ Uᵀ as float64 tensors, the largest variance first (U's columns).

    ``method="eigh"``: torch's eigh of Σ (symmetric: 2.1× svd's speed at 384 dims, 4.5× at 768), all dim axes.
    ``method="svd"``: NumPy's SVD of the centred rows, Λ = s²/n and U = Vᵀ, min(n, dim) axes (``02``'s route).
    ``chunk``: with eigh, Σ's scatter is summed ``chunk`` rows at a time in float64, so a memory-mapped array
    (``05``'s 400K GloVe words) is read in pieces and never copied whole.
    """
    if method == "svd" and chunk is None:
        x = as_array(embeddings)
        mean = x.mean(axis=0)
        _, singular, vh = np.linalg.svd(x - mean, full_matrices=False)
        return torch.from_numpy(mean), torch.from_numpy(singular ** 2 / len(x)), torch.from_numpy(vh.T.copy())
    if method != "eigh":
        raise ValueError(f"method={method!r}: choose 'eigh' or 'svd' (and chunk only with 'eigh').")
    if chunk is None:
        u = as_tensor(embeddings, min_rows=2)
        mean = u.mean(dim=0)
        centred = u - mean
        covariance = centred.T @ centred / len(u)
    else:
        mean, scatter, n = _chunked_scatter(embeddings, chunk)
        covariance = scatter / n
    eigenvalues, eigenvectors = torch.linalg.eigh(covariance)  # ascending
    return mean, eigenvalues.flip(0), eigenvectors.flip(1)


def _chunked_scatter(embeddings, chunk: int) -> tuple[torch.Tensor, torch.Tensor, int]:
    """(μ, Σ (v − μ)(v − μ)ᵀ, n), each piece of ``chunk`` rows turned into float64 alone."""
    vectors = embeddings if isinstance(embeddings, np.ndarray) else as_array(embeddings)
    if vectors.ndim != 2 or len(vectors) < 2:
        raise ValueError(f"Expected a matrix of at least 2 vectors, shape (n, dim); got shape {vectors.shape}.")
    starts = range(0, len(vectors), chunk)
    mean = sum(vectors[i:i + chunk].sum(axis=0, dtype=np.float64) for i in starts) / len(vectors)
    scatter = np.zeros((vectors.shape[1], vectors.shape[1]))
    for i in starts:
        centred = vectors[i:i + chunk].astype(np.float64) - mean
        scatter += centred.T @ centred
    return torch.from_numpy(mean), torch.from_numpy(scatter), len(vectors)


def whitening_kernel(eigenvalues: torch.Tensor, eigenvectors: torch.Tensor, k: int, floor: float = 1e-12) -> torch.Tensor:
    """W = U_k Λ_k^{−1/2} (dim, k), so that (u − μ) W has identity covariance (Su et al., 2021; ``05_bert_flow``).

    A variance below ``floor`` is raised to it (a direction with none would divide by 0)."""
    if not 1 <= k <= eigenvectors.shape[1]:
        raise ValueError(f"whitening k={k} must be between 1 and the number of axes {eigenvectors.shape[1]}.")
    return (eigenvectors / torch.sqrt(eigenvalues.clamp(min=floor)))[:, :k]


def singular_directions(embeddings, k: int, centre: bool = False) -> torch.Tensor:
    """V_k, the top-k right singular vectors of X (of X − μ with ``centre``), as the columns of a (dim, k) tensor."""
    x = as_tensor(embeddings)
    if centre:
        x = x - x.mean(dim=0)
    return torch.linalg.svd(x, full_matrices=False).Vh[:k].T


def singular_values(embeddings, centre: bool = True) -> torch.Tensor:
    """σ_1 ≥ σ_2 ≥ … of X − μ (of X itself without ``centre``), float64."""
    x = as_tensor(embeddings, min_rows=2)
    if centre:
        x = x - x.mean(dim=0)
    return torch.linalg.svdvals(x)


def supported_dimensions(embeddings) -> int:
    """How many principal directions a Gaussian fit of these n vectors can use (``02_anisotropy``, §5): those along
    which they vary at all (above :data:`NO_VARIANCE`), and at most n/2 when n is below twice the dimension (a
    covariance of n vectors has rank below n)."""
    x = as_tensor(embeddings, min_rows=2)
    n, dimension = x.shape
    singular = singular_values(x)
    at_most = dimension if n >= 2 * dimension else max(1, n // 2)
    varying = int((singular ** 2 > NO_VARIANCE * singular[0] ** 2).sum())
    return max(1, min(at_most, varying))


def principal_variance_ratios(embeddings, center: bool = True) -> np.ndarray:
    """σ_k² / Σ σ², the singular values σ of X (centred: PCA's explained variance ratios).

    Uncentred (``center=False``) the first ratio is the share of ‖X‖² along one common
    direction: close to 1 for a narrow cone, about 1/dim for an isotropic cloud.
    """
    squared = singular_values(embeddings, centre=center).square()
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
