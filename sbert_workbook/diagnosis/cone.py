"""How narrow is the space? Four measures of the cone, each beside its equation (``07_your_model.ipynb``, §2).

* the mean cosine of random pairs, E cos(x, y): 02's measure; near 0 for an isotropic cloud, near 1 in a narrow cone;
* the top direction's share of the variance, λ₁ / Σλ (centred PCA): how much one direction carries;
* the effective rank, exp H(p) with p_k = σ_k / Σσ (Roy & Vetterli 2007): how many directions are in use;
* IsoScore (Rudman, Gillman, Rayne & Eickhoff, Findings of ACL 2022, arXiv 2108.07344): how uniformly the variance is
  spread over all d directions, 1 for isotropic data, 0 for data on a line. Rudman et al. show the mean cosine is not an
  isotropy measure (shift an isotropic cloud off the origin and it rises; it ignores how the variance is spread), so
  the diagnosis reports both. The tests hold :func:`isoscore` to the authors' ``isoscore`` package.

IsoScore reads as a share of the dimensions: when k of the d principal directions carry equal variance and the rest
none, the formula gives exactly (k − 1)/(d − 1), so :func:`dimensions_used` turns a score back into that k.

IsoScore reads the sample covariance: with few vectors per dimension even isotropic data scores below 1, so
:func:`isotropic_reference` gives what an isotropic Gaussian of the same size scores, the ceiling to read it against.
The authors' later IsoScore* (in their ``IsoScore`` package) answers the same problem another way, shrinking the sample
covariance towards a reference one, C = (1 − ζ)·Ĉ + ζ·C₀; the diagnosis keeps IsoScore and shows the reference beside it.
"""
from __future__ import annotations

import numpy as np

from sbert_workbook.evaluation.geometry import principal_variance_ratios, singular_values
from sbert_workbook.evaluation.similarity import mean_cosine


def _matrix(vectors) -> np.ndarray:
    x = np.asarray(vectors, dtype=np.float64)
    if x.ndim != 2 or len(x) < 3:
        raise ValueError(f"Need at least 3 vectors as the rows of a matrix; got shape {x.shape}.")
    return x


def mean_random_pair_cosine(vectors) -> float:
    """E cos(x_i, x_j) over all pairs i ≠ j: the expected cosine of two random sentences."""
    return mean_cosine(_matrix(vectors))


def top_direction_share(vectors) -> float:
    """λ₁ / Σ_k λ_k, the largest principal direction's share of the variance (1/d for an isotropic cloud)."""
    return float(principal_variance_ratios(_matrix(vectors))[0])


def effective_rank(vectors) -> float:
    """exp(−Σ_k p_k log p_k), p_k = σ_k / Σσ over the singular values of the centred vectors (between 1 and d)."""
    singular = singular_values(_matrix(vectors)).numpy()
    p = singular[singular > 0] / singular.sum()
    return float(np.exp(-(p * np.log(p)).sum()))


def isoscore(vectors) -> float:
    """IsoScore, Rudman et al.'s Algorithm 1: λ the covariance's eigenvalues (the variances along the principal
    directions), λ̂ = √d λ / ‖λ‖, the isotropy defect δ = ‖λ̂ − 1‖ / √(2(d − √d)), and
    ι = ((d − δ²(d − √d))² − d) / (d(d − 1)), from 0 (one direction) to 1 (all d alike)."""
    x = _matrix(vectors)
    d = x.shape[1]
    variances = np.abs(np.linalg.eigvalsh(np.cov(x, rowvar=False)))
    normalised = np.sqrt(d) * variances / np.linalg.norm(variances)
    defect = np.linalg.norm(normalised - 1) / np.sqrt(2 * (d - np.sqrt(d)))
    return float(((d - defect ** 2 * (d - np.sqrt(d))) ** 2 - d) / (d * (d - 1)))


def dimensions_used(score: float, d: int) -> float:
    """k = 1 + ι(d − 1): how many of d directions, used equally (the rest unused), would score IsoScore ι."""
    return 1 + score * (d - 1)


def isotropic_reference(n: int, d: int, seed: int = 0) -> float:
    """The IsoScore of n vectors drawn from an isotropic Gaussian in d dimensions: the most a sample this size can score."""
    return isoscore(np.random.default_rng(seed).standard_normal((n, d)))


def cone_measures(vectors, seed: int = 0) -> dict[str, float]:
    """All four measures (and the isotropic reference for IsoScore) of one set of vectors, named for a table."""
    x = _matrix(vectors)
    score = isoscore(x)
    return {"mean cosine of random pairs": mean_random_pair_cosine(x), "top direction's share": top_direction_share(x),
            "effective rank": effective_rank(x), "dimensions": float(x.shape[1]), "IsoScore": score,
            "dimensions used equally, as IsoScore reads": dimensions_used(score, x.shape[1]),
            "IsoScore of isotropic data this size": isotropic_reference(*x.shape, seed=seed)}
