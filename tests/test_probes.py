"""Probes and regressors on pair features: hand-made cases, a separable set, scikit-learn and closed-form ridge."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

from scipy.stats import spearmanr

from sbert_workbook.evaluation.plots import relatedness_two_ways_figure
from sbert_workbook.evaluation.probes import (PROBE_FEATURES, SENTEVAL_PROBE_FEATURES, fit_regressor, majority_accuracy,
                                              probe_features, probe_accuracy, regressor_spearman,
                                              relatedness_two_ways_table)


def test_pair_features_are_u_v_absolute_difference_and_product_by_hand():
    u, v = np.array([[1.0, 2.0]]), np.array([[3.0, -1.0]])
    expected = [[1, 2, 3, -1, 2, 3, 3, -2]]  # u | v | |u-v| | u*v
    assert PROBE_FEATURES == ("u", "v", "|u-v|", "u*v")
    np.testing.assert_array_equal(probe_features(u, v), expected)
    np.testing.assert_array_equal(probe_features(torch.tensor(u), torch.tensor(v)), expected)


def test_pair_features_pick_blocks_in_the_order_asked():
    u, v = np.array([[1.0, 2.0]]), np.array([[3.0, -1.0]])
    assert SENTEVAL_PROBE_FEATURES == ("|u-v|", "u*v")  # senteval/sick.py: np.c_[np.abs(A - B), A * B]
    np.testing.assert_array_equal(probe_features(u, v, SENTEVAL_PROBE_FEATURES), [[2, 3, 3, -2]])
    np.testing.assert_array_equal(probe_features(u, v, ("u", "v", "|u-v|")), [[1, 2, 3, -1, 2, 3]])  # SBERT's head


def test_pair_features_reject_mismatched_shapes_and_unknown_blocks():
    with pytest.raises(ValueError, match="same shape"):
        probe_features(np.zeros((3, 2)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="Unknown pair features.*u\\+v"):
        probe_features(np.zeros((3, 2)), np.zeros((3, 2)), ("u+v",))


def _same_or_opposite_pairs(n: int, seed: int):
    """v = u ("entailment") or v = −u ("contradiction"): u∗v separates them linearly."""
    rng = np.random.default_rng(seed)
    u = rng.normal(size=(n, 5)) + 0.5
    opposite = np.arange(n) % 2 == 1
    v = np.where(opposite[:, None], -u, u)
    return u, v, np.where(opposite, "contradiction", "entailment")


def test_probe_is_perfect_on_a_tiny_separable_set():
    train_u, train_v, train_labels = _same_or_opposite_pairs(20, seed=0)
    test_u, test_v, test_labels = _same_or_opposite_pairs(10, seed=1)
    assert probe_accuracy(train_u, train_v, train_labels, test_u, test_v, test_labels) == 1.0


def test_probe_accuracy_equals_scikit_learn_fitted_directly():
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import accuracy_score
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(0)
    u, v = rng.normal(size=(120, 6)), rng.normal(size=(120, 6))
    label_ids = (u[:, 0] * v[:, 0] + 0.3 * rng.normal(size=120) > 0).astype(int) + (u[:, 1] > 1).astype(int)
    labels = np.array(["entailment", "neutral", "contradiction"])[label_ids]
    features = np.concatenate([u, v, np.abs(u - v), u * v], axis=1)
    scaler = StandardScaler().fit(features[:80])
    model = LogisticRegression(max_iter=2000).fit(scaler.transform(features[:80]), labels[:80])
    expected = accuracy_score(labels[80:], model.predict(scaler.transform(features[80:])))
    assert probe_accuracy(u[:80], v[:80], labels[:80], u[80:], v[80:], labels[80:]) == pytest.approx(expected)


def test_majority_accuracy_by_hand():
    assert majority_accuracy(["a", "b", "b"], ["b", "a", "b", "b"]) == 0.75


def _closed_form_ridge(train_x, train_y, test_x, alpha):
    """Ridge on standardised features by its normal equations: w = (XᵀX + αI)⁻¹ Xᵀ(y − ȳ), intercept ȳ."""
    mean, scale = train_x.mean(axis=0), train_x.std(axis=0)
    x = (train_x - mean) / scale
    w = np.linalg.solve(x.T @ x + alpha * np.eye(x.shape[1]), x.T @ (train_y - train_y.mean()))
    return (test_x - mean) / scale @ w + train_y.mean()


def test_regressor_equals_closed_form_ridge_on_standardised_features():
    rng = np.random.default_rng(0)
    u, v = rng.normal(size=(60, 3)), rng.normal(size=(60, 3))
    scores = np.abs(u - v)[:, 0] + 0.1 * rng.normal(size=60)
    features = probe_features(u, v, SENTEVAL_PROBE_FEATURES)
    expected = _closed_form_ridge(features[:40], scores[:40], features[40:], alpha=2.0)
    np.testing.assert_allclose(fit_regressor(features[:40], scores[:40], alpha=2.0).predict(features[40:]), expected,
                               rtol=1e-8, atol=1e-10)
    assert regressor_spearman(u[:40], v[:40], scores[:40], u[40:], v[40:], scores[40:], alpha=2.0) == pytest.approx(
        spearmanr(expected, scores[40:]).statistic)
    with pytest.raises(ValueError, match="one gold score per pair"):
        fit_regressor(features, scores[:10])


def _one_loud_dimension(n: int, seed: int):
    """Dimension 0 is large and shared (it swamps cosine); the score is how far apart u and v are in dimension 1."""
    rng = np.random.default_rng(seed)
    u = np.c_[np.full(n, 20.0), rng.normal(size=n), 0.1 * rng.normal(size=n)]
    gap = rng.uniform(0, 2, size=n)
    v = u + np.c_[0.1 * rng.normal(size=n), gap, np.zeros(n)]
    return u, v, 5 - 2 * gap


def test_relatedness_two_ways_reads_one_task_by_cosine_and_by_regressor():
    train_u, train_v, train_scores = _one_loud_dimension(80, seed=0)
    test_u, test_v, test_scores = _one_loud_dimension(40, seed=1)
    table = relatedness_two_ways_table({"toy": (train_u, train_v, test_u, test_v)}, train_scores, test_scores)
    cosines = (test_u * test_v).sum(1) / np.linalg.norm(test_u, axis=1) / np.linalg.norm(test_v, axis=1)
    assert table.loc["toy", "cosine_spearman"] == pytest.approx(100 * spearmanr(cosines, test_scores).statistic)
    assert table.loc["toy", "regressor_spearman"] == pytest.approx(
        100 * regressor_spearman(train_u, train_v, train_scores, test_u, test_v, test_scores))
    assert table.loc["toy", "regressor_spearman"] > 90  # |u−v| in dimension 1 is the score, up to its sign
    assert table.loc["toy", "regressor - cosine"] == pytest.approx(
        table.loc["toy", "regressor_spearman"] - table.loc["toy", "cosine_spearman"])
    drawn = table.attrs["intervals"]["toy"]  # what 03 §9's forest plot draws: the same difference and interval
    assert drawn.difference == table.loc["toy", "regressor - cosine"] and table.loc["toy", "verdict"] == drawn.verdict
    assert table.loc["toy", "95 % interval"] == f"[{drawn.low:+.2f}, {drawn.high:+.2f}]"
    figure = relatedness_two_ways_figure(table)
    assert [list(bar.x) for bar in figure.data] == [["toy"], ["toy"]]
    assert figure.data[1].y[0] == table.loc["toy", "regressor_spearman"]
    with pytest.raises(ValueError, match="relatedness_two_ways_table"):
        relatedness_two_ways_figure(pd.DataFrame({"x": [1]}))
    with pytest.raises(ValueError, match="test scores"):
        relatedness_two_ways_table({"toy": (train_u, train_v, test_u, test_v)}, train_scores, test_scores[:5])
