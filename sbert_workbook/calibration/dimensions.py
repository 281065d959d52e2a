"""Fewer dimensions: keep the first k, or the top k principal components (``08_what_an_embedding_costs.ipynb``;
whitening-k is 05's :class:`~sbert_workbook.calibration.calibrators.Whitening`).

    first k:     u ↦ u[:k]                                   (what a Matryoshka-trained model is trained to allow)
    first k, centred: u ↦ (u − μ)[:k]                        (the same k numbers, centred as PCA-k is: like for like)
    PCA-k:       u ↦ (u − μ) V_k,  V_k the top k eigenvectors of Σ = (u − μ)ᵀ(u − μ)/n
    whitening-k: u ↦ (u − μ) V_k Λ_k^{-1/2}                  (05: PCA-k, each direction scaled to variance 1)

Each is a :class:`~sbert_workbook.calibration.calibrators.Calibrator`: fitted on calibration vectors, applied to any.
"""
from __future__ import annotations

from sbert_workbook.calibration.calibrators import Calibrator
from sbert_workbook.evaluation.geometry import covariance_axes


class FirstDimensions(Calibrator):
    """u ↦ u[:k]: nothing to learn but the size it expects."""

    name = "first k dimensions"

    def __init__(self, k: int):
        super().__init__()
        self.k = k

    def _fit(self, u):
        _check_k(self.k, u.shape[1], self.name)

    def _transform(self, u):
        return u[:, :self.k]

    def settings(self):
        return {"k": self.k}

    def tensors(self):
        return {}


class CentredFirstDimensions(FirstDimensions):
    """u ↦ (u − μ)[:k], μ the calibration mean: the first k numbers, centred as PCA-k and whitening-k centre theirs,
    so a comparison with them is of the choice of dimensions alone."""

    name = "first k dimensions, centred"

    def _fit(self, u):
        super()._fit(u)
        self.mean_ = u.mean(dim=0)

    def _transform(self, u):
        return (u - self.mean_)[:, :self.k]

    def tensors(self):
        return {"mean_": self.mean_}


class PrincipalComponents(Calibrator):
    """u ↦ (u − μ) V_k: the coordinates along the k directions of largest variance (no rescaling)."""

    name = "PCA-k"

    def __init__(self, k: int):
        super().__init__()
        self.k = k

    def _fit(self, u):
        _check_k(self.k, u.shape[1], self.name)
        self.mean_, _, eigenvectors = covariance_axes(u)
        self.components_ = eigenvectors[:, :self.k]

    def _transform(self, u):
        return (u - self.mean_) @ self.components_

    def settings(self):
        return {"k": self.k}

    def tensors(self):
        return {"mean_": self.mean_, "components_": self.components_}


def _check_k(k: int, dimensions: int, name: str) -> None:
    if not 1 <= k <= dimensions:
        raise ValueError(f"{name}: k={k} must be between 1 and the embedding size {dimensions}.")
