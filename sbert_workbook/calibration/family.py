"""One family of fixes: SN, whitening and the flow as Gaussianisations, and what each does to frequency (``05``, §12).

SN, whitening and the flow each map an embedding ``u`` to ``z = T(u)`` and call ``z`` standard normal: SN
with a diagonal affine map (matches each dimension's mean and variance), whitening with a full affine map
(matches the mean and the whole covariance: the *linear* Gaussianisation), the flow with a learned
nonlinear bijection. Each therefore defines a density on the embeddings by the change of variables,

    log p(u) = log N(T(u); 0, I) + log |det ∂T/∂u| ,

so one number, the log-likelihood of held-out sentences, compares them (:func:`log_likelihood`).
Whitening to k < d dimensions and NATSV are projections: they define no density (:class:`NotInvertibleError`).

:func:`mean_log_frequency` and :func:`top_direction_frequency` measure how much the dominant direction of a set
of sentence vectors follows word frequency, before and after a fix.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import torch
from scipy.stats import spearmanr

from sbert_workbook.calibration.calibrators import FlowCalibrator, StandardNormalization, Whitening
from sbert_workbook.evaluation.arrays import as_tensor
from sbert_workbook.evaluation.geometry import singular_directions, singular_values


class NotInvertibleError(ValueError):
    """A calibrator that projects (whitening to k < d, NATSV) defines no density on the embeddings."""


def log_det_jacobian(calibrator) -> float:
    """log |det ∂T/∂u| of an affine calibrator (None: the identity), the same for every u."""
    if calibrator is None:
        return 0.0
    if isinstance(calibrator, StandardNormalization):
        return float(-torch.log(calibrator.std_.double()).sum())  # T(u) = (u − μ) / σ
    if isinstance(calibrator, Whitening) and calibrator.kernel_.shape[0] == calibrator.kernel_.shape[1]:
        return float(torch.linalg.slogdet(calibrator.kernel_.double()).logabsdet)  # T(u) = (u − μ) W
    raise NotInvertibleError(f"{calibrator!r} is not an invertible affine map, so it gives no density on the embeddings: "
                             "whitening to k < d dimensions and NATSV project; use SN, full whitening or the flow.")


def log_likelihood(calibrator, embeddings) -> float:
    """Mean over rows of log p(u) = log N(T(u); 0, I) + log|det ∂T/∂u|, in nats per dimension.

    ``calibrator`` is None (the raw embeddings taken as N(0, I)), a fitted SN, full whitening or flow.
    Evaluate it on sentences the calibrator was *not* fitted on: that is what makes it a test of the fit.
    """
    u = as_tensor(embeddings, torch.float64, finite=True)
    dim = u.shape[1]
    if isinstance(calibrator, FlowCalibrator):
        with torch.no_grad():
            return float(calibrator.flow_.log_prob(u.float()).double().mean()) / dim
    z = u if calibrator is None else calibrator.transform(u).double()
    gaussian = -0.5 * (z ** 2).sum(dim=1) - 0.5 * dim * math.log(2 * math.pi)
    return float(gaussian.mean() + log_det_jacobian(calibrator)) / dim


def whitening_to_each_k(fitted: Whitening, ks: Sequence[int]) -> dict[int, Whitening]:
    """Whitening to k dims for each k in ``ks``, cut from one full fit: its kernel's first k columns (one eigendecomposition)."""
    if fitted.dim_ is None or fitted.kernel_.shape[1] != fitted.dim_:
        raise ValueError("Give a fitted full whitening (Whitening() without k, then .fit(embeddings)).")
    cut = {}
    for k in ks:
        if not 1 <= k <= fitted.dim_:
            raise ValueError(f"whitening k={k} must be between 1 and the embedding size {fitted.dim_}.")
        one = Whitening(k=k)
        one.dim_, one.mean_, one.kernel_ = fitted.dim_, fitted.mean_, fitted.kernel_[:, :k]
        cut[k] = one
    return cut


def mean_log_frequency(sentences: Sequence[str]) -> np.ndarray:
    """Each sentence's mean Zipf frequency (log10 of occurrences per billion words, wordfreq's English list) over its words."""
    from wordfreq import tokenize, zipf_frequency

    means = []
    for sentence in sentences:
        words = tokenize(sentence, "en")
        if not words:
            raise ValueError(f"The sentence {sentence!r} has no words wordfreq can read; drop it before measuring.")
        means.append(np.mean([zipf_frequency(word, "en") for word in words]))
    return np.asarray(means)


def top_direction_frequency(embeddings, log_frequency: Sequence[float]) -> dict[str, float]:
    """How much the dominant direction follows frequency: its share of the energy and |Spearman| with ``log_frequency``.

    The direction is the first right singular vector v₁ of the (uncentred) rows, the one SIF and NATSV (k=1)
    remove; each sentence's coordinate on it, u·v₁, is ranked against the sentence's mean word log-frequency.
    """
    u = as_tensor(embeddings, torch.float64, finite=True)
    if len(u) != len(log_frequency):
        raise ValueError(f"{len(u)} embeddings but {len(log_frequency)} frequencies: give one frequency per sentence.")
    squared = singular_values(u, centre=False).square()
    coordinate = (u @ singular_directions(u, 1)[:, 0]).numpy()
    return {"top direction's share of energy": float(squared[0] / squared.sum()),
            "|Spearman| with mean log-frequency": float(abs(spearmanr(coordinate, log_frequency).statistic))}


def frequency_table_rows(representations: dict[str, Callable[[Sequence[str]], object]], sentences: Sequence[str],
                         log_frequency: Sequence[float] | None = None) -> dict[str, dict[str, float]]:
    """:func:`top_direction_frequency` for each named representation (a function sentences → vectors) of ``sentences``."""
    log_frequency = mean_log_frequency(sentences) if log_frequency is None else log_frequency
    return {name: top_direction_frequency(embed(sentences), log_frequency) for name, embed in representations.items()}
