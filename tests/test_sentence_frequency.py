"""Observation 2 at the sentence level (02 §5): positions of sentence vectors against scipy, scikit-learn and 05's
whitening, and the Spearman table against scipy on hand-made data."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy.stats import multivariate_normal, spearmanr
from sklearn.decomposition import PCA

from sbert_workbook.anisotropy import plots as ap
from sbert_workbook.anisotropy import sentence_frequency as sf
from sbert_workbook.calibration.calibrators import Whitening


@pytest.fixture
def cloud():
    rng = np.random.default_rng(0)
    return rng.normal(size=(200, 6)) @ rng.normal(size=(6, 6)) + rng.normal(size=6) * 3


def test_distance_from_mean_is_the_euclidean_distance_to_the_row_mean():
    x = np.array([[0.0, 0.0], [2.0, 0.0], [1.0, 3.0]])  # mean (1, 1)
    assert np.allclose(sf.distance_from_mean(x), [np.sqrt(2), np.sqrt(2), 2.0])


def test_gaussian_log_density_in_all_dimensions_is_scipys_logpdf_of_the_fitted_gaussian(cloud):
    fitted = multivariate_normal(cloud.mean(axis=0), np.cov(cloud, rowvar=False, bias=True))
    assert np.allclose(sf.gaussian_log_density(cloud), fitted.logpdf(cloud))


def test_gaussian_log_density_in_k_dimensions_is_scipys_logpdf_of_sklearns_pca_coordinates(cloud):
    coordinates = PCA(n_components=3).fit_transform(cloud)
    fitted = multivariate_normal(np.zeros(3), np.cov(coordinates, rowvar=False, bias=True))
    assert np.allclose(sf.gaussian_log_density(cloud, dimensions=3), fitted.logpdf(coordinates))


@pytest.mark.parametrize("k", [None, 4])
def test_whitened_distance_is_the_norm_of_05s_whitening_output(cloud, k):
    whitened = Whitening(k=k).fit(torch.tensor(cloud, dtype=torch.float64)).transform(torch.tensor(cloud, dtype=torch.float64))
    assert np.allclose(sf.whitened_distance_from_mean(cloud, dimensions=k), torch.linalg.norm(whitened, dim=1).numpy(),
                       rtol=1e-4)  # transform returns float32


def test_density_and_whitened_distance_rank_the_sentences_in_opposite_orders(cloud):
    positions = sf.sentence_positions(cloud, dimensions=4)
    assert list(positions) == list(sf.POSITIONS)
    rho = spearmanr(positions["Gaussian log-density"], positions["distance from the mean (whitened)"]).statistic
    assert rho == pytest.approx(-1.0)


def test_spearman_table_leaves_out_sentences_with_a_nan_and_matches_scipy():
    frequency = np.array([1.0, 2.0, np.nan, 4.0, 5.0])
    length = np.array([5.0, 3.0, 4.0, 1.0, 2.0])
    distance = np.array([0.5, 0.1, 9.0, 0.3, 0.2])
    table = sf.spearman_table({"frequency": frequency, "length": length}, {"distance": distance})
    keep = np.isfinite(frequency)
    assert table.loc["frequency", "distance"] == pytest.approx(spearmanr(frequency[keep], distance[keep]).statistic)
    assert table.loc["length", "distance"] == pytest.approx(spearmanr(length, distance).statistic)


def test_gaussian_dimensions_keeps_all_when_sentences_are_plenty_else_half_the_sentences():
    rng = np.random.default_rng(0)
    assert sf.gaussian_dimensions(rng.normal(size=(800, 384))) == 384
    assert sf.gaussian_dimensions(rng.normal(size=(300, 768))) == 150


def test_gaussian_dimensions_leaves_out_the_direction_a_layer_norm_takes_away():
    """torch's LayerNorm (float32, affine weights as a trained model has): its outputs, and any mean of them, lie in a
    hyperplane, so plenty of sentences still vary along only 383 of 384 directions; a fit on all 384 is refused."""
    import torch

    torch.manual_seed(0)
    norm = torch.nn.LayerNorm(384)
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5), norm.bias.normal_()
        tokens = norm(torch.randn(1000, 5, 384) * torch.linspace(0.1, 3, 384))
    sentences = tokens.mean(dim=1).numpy()  # mean pooling of five token vectors each
    assert sf.gaussian_dimensions(sentences) == 383
    assert np.isfinite(sf.gaussian_log_density(sentences, sf.gaussian_dimensions(sentences))).all()
    with pytest.raises(ValueError, match="non-zero directions"):
        sf.gaussian_log_density(sentences, 384)


def test_bad_input_says_what_to_do(cloud):
    with pytest.raises(ValueError, match="gaussian_dimensions"):
        sf.gaussian_log_density(cloud[:5])  # 5 sentences cannot fit a 6-dimensional Gaussian
    with pytest.raises(ValueError, match="at least 3 sentence vectors"):
        sf.distance_from_mean(np.ones(4))
    with pytest.raises(ValueError, match="one per sentence"):
        sf.spearman_table({"frequency": np.ones(3)}, {"distance": np.ones(4)})


def test_sentence_position_figure_has_one_panel_per_position_with_its_rho_in_the_title():
    values = np.array([1.0, 2.0, 3.0, 4.0])
    figure = ap.sentence_position_figure(values, {"raw": np.array([4.0, 3.0, 2.0, 1.0]),
                                                  "whitened": np.array([1.0, 2.0, 4.0, 3.0])}, "log frequency")
    titles = [annotation.text for annotation in figure.layout.annotations]
    assert titles == ["raw (ρ = -1.00)", "whitened (ρ = +0.80)"]
    assert list(figure.data[0].x) == [1, 2, 3, 4] and list(figure.data[0].y) == [4, 3, 2, 1]
