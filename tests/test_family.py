"""SN, whitening and the flow as densities on the embeddings (calibration/family.py), against scipy's Gaussians."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy.stats import multivariate_normal, spearmanr

from sbert_workbook.calibration import calibrators as cal
from sbert_workbook.calibration import family


@pytest.fixture
def clouds():
    generator = np.random.default_rng(0)
    mixing = generator.normal(size=(5, 5))
    fit = generator.normal(size=(400, 5)) @ mixing + 3.0
    held_out = generator.normal(size=(100, 5)) @ mixing + 3.0
    return fit, held_out


def test_whitening_log_likelihood_is_the_fitted_gaussians(clouds):
    fit, held_out = clouds
    whitening = cal.Whitening().fit(fit)
    truth = multivariate_normal(fit.mean(0), np.cov(fit.T, bias=True)).logpdf(held_out).mean() / 5
    assert family.log_likelihood(whitening, held_out) == pytest.approx(truth, rel=1e-6)


def test_sn_log_likelihood_is_the_axis_aligned_gaussians(clouds):
    fit, held_out = clouds
    sn = cal.StandardNormalization().fit(fit)
    truth = multivariate_normal(fit.mean(0), np.diag(fit.var(0))).logpdf(held_out).mean() / 5
    assert family.log_likelihood(sn, held_out) == pytest.approx(truth, rel=1e-6)
    raw = multivariate_normal(np.zeros(5), np.eye(5)).logpdf(held_out).mean() / 5
    assert family.log_likelihood(None, held_out) == pytest.approx(raw, rel=1e-9)
    # the family's order on correlated data: each fit matches more of the shape
    assert family.log_likelihood(None, held_out) < family.log_likelihood(sn, held_out) < \
        family.log_likelihood(cal.Whitening().fit(fit), held_out)


def test_the_flow_log_likelihood_is_its_log_prob(clouds):
    fit, held_out = clouds
    flow = cal.FlowCalibrator(levels=1, depth=2, epochs=2, progress=False).fit(fit)
    expected = flow.flow_.log_prob(torch.as_tensor(held_out, dtype=torch.float32)).mean().item() / 5
    assert family.log_likelihood(flow, held_out) == pytest.approx(expected, rel=1e-5)


def test_projections_have_no_density(clouds):
    fit, held_out = clouds
    for projection in (cal.Whitening(k=3).fit(fit), cal.NullTopDirections(k=1).fit(fit)):
        with pytest.raises(family.NotInvertibleError, match="project"):
            family.log_likelihood(projection, held_out)


def test_whitening_cut_to_k_equals_whitening_fitted_to_k(clouds):
    fit, held_out = clouds
    cut = family.whitening_to_each_k(cal.Whitening().fit(fit), [2, 5])
    assert torch.allclose(cut[2].transform(held_out), cal.Whitening(k=2).fit(fit).transform(held_out), atol=1e-5)
    with pytest.raises(ValueError, match="between 1 and"):
        family.whitening_to_each_k(cal.Whitening().fit(fit), [6])


def test_top_direction_frequency_by_hand():
    generator = np.random.default_rng(1)
    frequency = generator.normal(size=200)
    direction = np.array([1.0, 0.0, 0.0])
    vectors = 10 * np.outer(frequency + 5, direction) + generator.normal(scale=0.1, size=(200, 3))
    measured = family.top_direction_frequency(vectors, frequency)
    truth = abs(spearmanr(vectors[:, 0], frequency).statistic)
    assert measured["|Spearman| with mean log-frequency"] == pytest.approx(truth, rel=1e-9)
    singular = np.linalg.svd(vectors, compute_uv=False)
    assert measured["top direction's share of energy"] == pytest.approx(singular[0] ** 2 / (singular ** 2).sum())
    with pytest.raises(ValueError, match="one frequency per sentence"):
        family.top_direction_frequency(vectors, frequency[:10])


def test_mean_log_frequency_ranks_common_words_above_rare_ones():
    common, rare = family.mean_log_frequency(["the cat is on the mat", "photosynthesis catalyses ribulose"])
    assert common > rare
    with pytest.raises(ValueError, match="no words"):
        family.mean_log_frequency(["..."])


def test_family_figure_draws_each_view_in_both_panels():
    import pandas as pd

    from sbert_workbook.calibration import plots

    rows = pd.DataFrame({"view": ["a", "a", "b", "b"], "map": ["raw", "SN", "raw", "SN"],
                         "held-out log-likelihood (nats/dim)": [-1.0, 0.5, -2.0, 0.1], "STS avg": [50.0, 60.0, 40.0, 45.0]})
    figure = plots.family_figure(rows)
    assert [trace.name for trace in figure.data] == ["a", "a", "b", "b"]
    assert list(figure.data[2].y) == [-2.0, 0.1] and list(figure.data[3].y) == [40.0, 45.0]
