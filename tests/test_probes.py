"""Logistic-regression probes on pair features: a hand-made case, a separable set, and scikit-learn itself."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

from sbert_workbook.evaluation.plots import probe_vs_cosine_figure
from sbert_workbook.evaluation.probes import (PROBE_FEATURES, majority_accuracy, probe_features, probe_accuracy,
                                              probe_vs_cosine_table)


def test_pair_features_are_u_v_absolute_difference_and_product_by_hand():
    u, v = np.array([[1.0, 2.0]]), np.array([[3.0, -1.0]])
    expected = [[1, 2, 3, -1, 2, 3, 3, -2]]  # u | v | |u-v| | u*v
    assert PROBE_FEATURES == ("u", "v", "|u-v|", "u*v")
    np.testing.assert_array_equal(probe_features(u, v), expected)
    np.testing.assert_array_equal(probe_features(torch.tensor(u), torch.tensor(v)), expected)


def test_pair_features_reject_mismatched_shapes():
    with pytest.raises(ValueError, match="same shape"):
        probe_features(np.zeros((3, 2)), np.zeros((2, 2)))


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


def test_probe_vs_cosine_table_and_figure():
    train_u, train_v, train_labels = _same_or_opposite_pairs(20, seed=0)
    test_u, test_v, test_labels = _same_or_opposite_pairs(10, seed=1)
    scores = np.where(test_labels == "entailment", 5.0, 1.0) + np.linspace(0, 0.1, 10)
    table = probe_vs_cosine_table({"toy": (train_u, train_v, test_u, test_v)}, train_labels, test_labels, scores)
    assert table.loc["toy", "probe_accuracy"] == 100.0
    assert table.loc["toy", "cosine_spearman"] > 80  # cos = ±1 follows the two score levels
    figure = probe_vs_cosine_figure(table, majority=50.0)
    assert list(figure.data[0].text) == ["toy"] and figure.data[0].y[0] == 100.0
    with pytest.raises(ValueError, match="probe_vs_cosine_table"):
        probe_vs_cosine_figure(pd.DataFrame({"x": [1]}))
