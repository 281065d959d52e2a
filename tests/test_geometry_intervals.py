"""Intervals for changes in alignment and uniformity (evaluation/geometry_intervals.py), against the package's own
measures and a brute-force bootstrap that resamples the whole kernel matrix."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from sbert_workbook.evaluation import geometry_intervals as gi
from sbert_workbook.evaluation.geometry import alignment, uniformity
from sbert_workbook.evaluation.uncertainty import paired_mean_interval


def cloud(n: int, spread: float, seed: int) -> torch.Tensor:
    """n vectors around one direction: a narrow cone for small ``spread``, nearly isotropic for a large one."""
    generator = torch.Generator().manual_seed(seed)
    return torch.tensor([1.0, 0, 0, 0, 0, 0]) + spread * torch.randn(n, 6, generator=generator)


def test_the_observed_differences_are_the_packages_measures():
    x, y = cloud(40, 0.3, 0), cloud(40, 0.3, 1)
    x2, y2 = cloud(40, 1.0, 2), cloud(40, 1.0, 3)
    aligned = gi.alignment_difference((x2, y2), (x, y))
    assert aligned.difference == pytest.approx(alignment(x2, y2) - alignment(x, y), abs=1e-5)
    spread = gi.uniformity_difference(x2, x)
    assert spread.difference == pytest.approx(uniformity(x2) - uniformity(x), abs=1e-4)


def test_one_embedding_against_itself_is_a_tie_of_width_zero():
    x = cloud(30, 0.5, 0)
    for interval in (gi.uniformity_difference(x, x), gi.alignment_difference((x, x.flip(0)), (x, x.flip(0)))):
        assert interval.difference == 0 and interval.low == interval.high == 0 and interval.verdict == "tie"


def test_a_wider_cloud_of_the_same_sentences_is_apart_on_uniformity():
    narrow = cloud(200, 0.2, 0)
    wider = narrow + 1.5 * cloud(200, 1.0, 5)
    interval = gi.uniformity_difference(wider, narrow)
    assert interval.direction == "lower" and "Hájek" in interval.method


def brute_force_uniformity_spread(a: np.ndarray, b: np.ndarray, resamples: int, seed: int) -> float:
    """Standard deviation of ℓ_uniform(a) − ℓ_uniform(b) over resampled sentences, recomputed from the whole resampled
    kernel matrix (pairs of two copies of one sentence left out)."""
    kernels = [np.exp(-2 * np.clip(2 - 2 * u @ u.T, 0, None)) for u in (a, b)]
    rng, values = np.random.default_rng(seed), []
    for _ in range(resamples):
        picks = rng.integers(0, len(a), size=len(a))
        different = picks[:, None] != picks[None, :]
        values.append(np.log(kernels[0][np.ix_(picks, picks)][different].mean())
                      - np.log(kernels[1][np.ix_(picks, picks)][different].mean()))
    return float(np.std(values))


def test_the_uniformity_interval_is_as_wide_as_the_full_bootstrap():
    narrow = cloud(120, 0.4, 0)
    other = narrow + 0.8 * cloud(120, 1.0, 9)
    a, b = (torch.nn.functional.normalize(v.double(), dim=1).numpy() for v in (other, narrow))
    interval = gi.uniformity_difference(other, narrow, resamples=4000)
    width_sd = (interval.high - interval.low) / (2 * 1.96)
    assert width_sd == pytest.approx(brute_force_uniformity_spread(a, b, 400, 1), rel=0.25)


def test_rows_of_different_sentences_are_refused():
    with pytest.raises(ValueError, match="same sentences"):
        gi.uniformity_difference(cloud(10, 1, 0), cloud(11, 1, 0))
    with pytest.raises(ValueError, match="same positive pairs"):
        gi.alignment_difference((cloud(10, 1, 0), cloud(10, 1, 1)), (cloud(9, 1, 0), cloud(9, 1, 1)))


def test_a_mean_difference_of_zero_one_outcomes_matches_scipys_paired_bootstrap():
    from scipy.stats import bootstrap

    rng = np.random.default_rng(3)
    right_a, right_b = rng.random(300) < 0.7, rng.random(300) < 0.6
    interval = paired_mean_interval(right_a, right_b, resamples=5000, unit="test pairs")
    scipys = bootstrap((right_a.astype(float), right_b.astype(float)), lambda a, b: a.mean() - b.mean(), paired=True,
                       method="percentile", n_resamples=5000, random_state=0).confidence_interval
    assert interval.difference == pytest.approx(right_a.mean() - right_b.mean())
    assert (interval.low, interval.high) == pytest.approx((scipys.low, scipys.high), abs=0.01)
