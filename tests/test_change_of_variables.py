"""Why invertible, why a Gaussian: the 1-D change of variables, the 2-D toy flow, and what a projection loses."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy.integrate import quad
from scipy.stats import kstest, norm

from sbert_workbook.calibration import toy_flow as tf
from sbert_workbook.calibration.calibrators import NullTopDirections
from sbert_workbook.calibration.change_of_variables import (change_of_variables_1d, cubic_map, nulled_share,
                                                            round_trip_error, scrambled_flow)
from sbert_workbook.calibration.plots import change_of_variables_figure, circle_angles_figure, toy_flow_figure


# ----------------------------------------------------------------------------- 1-D
def test_pushed_forward_density_integrates_to_one():
    pieces = change_of_variables_1d()
    assert pieces.total_mass() == pytest.approx(1.0, abs=1e-6)
    # independent quadrature of N(f(u)) f'(u), f(u) = u³ + 0.3u + 0.4
    mass, _ = quad(lambda u: norm.pdf(u ** 3 + 0.3 * u + 0.4) * (3 * u ** 2 + 0.3), -np.inf, np.inf)
    assert mass == pytest.approx(1.0, abs=1e-8)


def test_density_is_latent_density_at_f_times_numerical_derivative():
    pieces = change_of_variables_1d(np.linspace(-2.5, 2.5, 5001))
    numerical_slope = np.gradient(pieces.u ** 3 + 0.3 * pieces.u + 0.4, pieces.u)
    expected = norm.pdf(pieces.z) * np.abs(numerical_slope)
    np.testing.assert_allclose(pieces.density, expected, rtol=1e-4, atol=1e-9)
    np.testing.assert_allclose(pieces.density, pieces.latent_density * pieces.stretch)


def test_density_matches_a_histogram_of_inverted_gaussian_samples():
    z = np.random.default_rng(0).normal(size=20_000)
    u = np.array([np.roots([1, 0, 0.3, 0.4 - zi]) for zi in z])  # the one real root of u³ + 0.3u + 0.4 = z
    u = u[np.abs(u.imag) < 1e-9].real
    counts, edges = np.histogram(u, bins=40, range=(-2, 1.5), density=False)
    centres = (edges[:-1] + edges[1:]) / 2
    predicted = change_of_variables_1d(centres).density * (edges[1] - edges[0]) * len(u)
    assert np.abs(counts - predicted).max() < 5 * np.sqrt(predicted.max())


def test_non_monotone_maps_are_refused():
    with pytest.raises(ValueError, match="monotone"):
        change_of_variables_1d(transform=lambda u: (u ** 2, 2 * u))
    with pytest.raises(ValueError, match="slope"):
        cubic_map(0.0, slope=0)


def test_change_of_variables_figure_holds_the_density():
    pieces = change_of_variables_1d()
    figure = change_of_variables_figure(pieces)
    np.testing.assert_allclose(figure.data[-1].y, pieces.density)
    assert any("Jacobian" in trace.name for trace in figure.data)


# ----------------------------------------------------------------------------- 2-D
@pytest.fixture(scope="module")
def fitted_toy():
    train, held_out = tf.banana_cloud(400, seed=0), tf.banana_cloud(400, seed=1)
    flow = tf.toy_flow(seed=0)
    before = tf.negative_log_likelihood(flow, held_out)
    tf.fit_toy_flow(flow, train)
    return flow, train, held_out, before


def test_fitting_lowers_the_held_out_negative_log_likelihood(fitted_toy):
    flow, train, held_out, before = fitted_toy
    after = tf.negative_log_likelihood(flow, held_out)
    # the untrained flow is the identity: N(0, I) on the raw points, computed independently
    assert before == pytest.approx(-norm.logpdf(held_out).sum(axis=1).mean(), rel=1e-5)
    assert after < tf.diagonal_gaussian_nll(train, held_out) - 0.5 < before


def test_latent_is_roughly_standard_and_samples_look_like_the_data(fitted_toy):
    flow, train, held_out, _ = fitted_toy
    latent = tf.to_latent(flow, held_out)
    np.testing.assert_allclose(latent.mean(0), 0, atol=0.3)  # seeds 0-4 give |mean| ≤ 0.2, std 0.88-0.99
    np.testing.assert_allclose(latent.std(0), 1, atol=0.25)
    samples = tf.flow_samples(flow, 2000, seed=3)
    np.testing.assert_allclose(samples.mean(0), held_out.mean(0), atol=0.4)  # the cloud's spread in y is ~1.3


def test_toy_flow_is_reproducible_from_its_seed():
    torch.manual_seed(123)
    first = tf.toy_flow(seed=5)
    torch.manual_seed(456)
    second = tf.toy_flow(seed=5)
    for a, b in zip(first.parameters(), second.parameters()):
        torch.testing.assert_close(a, b)


def test_the_mean_of_the_banana_is_a_hole_and_the_gaussian_has_none(fitted_toy):
    flow, train, _, _ = fitted_toy
    x, y = np.linspace(-4, 4, 81), np.linspace(0, 7, 71)
    assert tf.density_at_mean(flow, train, x, y) < 0.1
    r = np.linspace(-3, 3, 61)
    assert tf.density_at_mean(None, np.array([[1.0, 1.0], [-1.0, -1.0]]), r, r) == pytest.approx(1.0, abs=1e-5)


def test_normalised_gaussian_samples_are_uniform_on_the_circle_and_the_data_are_not(fitted_toy):
    gaussian = np.random.default_rng(0).normal(size=(2000, 2))
    uniform = lambda a: (a + np.pi) / (2 * np.pi)  # noqa: E731  the CDF of U(−π, π)
    assert kstest(tf.circle_angles(gaussian), uniform).pvalue > 0.01
    assert kstest(tf.circle_angles(fitted_toy[1]), uniform).pvalue < 1e-6
    np.testing.assert_allclose(tf.circle_angles([[1, 0], [0, 2], [-3, 0]]), [0, np.pi / 2, np.pi])


def test_toy_figures_carry_their_points(fitted_toy):
    flow, train, _, _ = fitted_toy
    samples = tf.flow_samples(flow, 50)
    figure = toy_flow_figure(flow, train, samples, grid=20)
    scatter = [trace for trace in figure.data if trace.type == "scatter"]
    np.testing.assert_allclose(scatter[0].x, train[:, 0])
    np.testing.assert_allclose(scatter[3].y, samples[:, 1])
    angles = circle_angles_figure({"data": tf.circle_angles(train)}, bins=12)
    assert len(angles.data[0].y) == 12 and sum(angles.data[0].y) * 2 * np.pi / 12 == pytest.approx(1.0)


# ----------------------------------------------------------------------------- information
def test_a_scrambled_flow_is_not_the_identity_yet_inverts():
    u = torch.as_tensor(np.random.default_rng(0).normal(size=(64, 10)) * 3 + 5, dtype=torch.float32)
    report = round_trip_error(scrambled_flow(u, scale=0.3), u)
    assert report["largest ‖f(u) − u‖ (how far the flow moved u)"] > 1
    assert report["largest |f⁻¹(f(u)) − u|"] < 1e-4


def test_nulled_share_is_the_norm_of_the_removed_projection():
    generator = np.random.default_rng(0)
    u = torch.as_tensor(generator.normal(size=(50, 6)) + 4, dtype=torch.float64)
    natsv = NullTopDirections(2).fit(u)
    top = torch.linalg.svd(u, full_matrices=False).Vh[:2]  # independent: the projection on the top-2 directions
    expected = ((u @ top.T).norm(dim=1) / u.norm(dim=1)).numpy()
    np.testing.assert_allclose(nulled_share(natsv, u), expected, rtol=1e-5)
    # and two different embeddings land on the same point: the removed part cannot be recovered
    moved = u + 3.0 * top[0]
    torch.testing.assert_close(natsv.transform(moved), natsv.transform(u), atol=1e-4, rtol=0)
