"""References of notebook 03's checks that would give the answer away if typed into the check cell
(``03_pooling_and_sts.ipynb``)."""
from __future__ import annotations

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sbert_workbook.evaluation.sts import aggregate, evaluate_sts_data


def ex03_1(demo_cosines, demo):
    """Kendall's τ-b of the cosines and of their 9th power against gold, by brute force over all pairs of pairs: the
    signs of every pairwise difference; ties count in neither order."""
    gold = np.asarray(demo.scores, dtype=float)

    def tau_b(x, y):
        dx, dy = np.sign(np.subtract.outer(x, x)), np.sign(np.subtract.outer(y, y))
        return (dx * dy).sum() / np.sqrt((dx * dx).sum() * (dy * dy).sum())

    return [tau_b(np.asarray(c, dtype=float), gold) for c in (demo_cosines, np.asarray(demo_cosines) ** 9)]


def ex03_3(encoder, stsb_sample):
    """Spearman × 100 of max-pooled cosines on the STS-B sample: the package's STS evaluation of the same pairs."""
    return evaluate_sts_data(lambda sentences: encoder.encode(sentences, pooling="max"), stsb_sample)["spearman_cosine"]


def ex03_4(sts12, sts12_cosines):
    """STS12's size-weighted mean of per-subset Spearman × 100: the package's ``wmean`` aggregation of the same cosines."""
    return aggregate(sts12_cosines, sts12, "wmean")["spearman"]


def ex03_8(probe_views, sick_train, sick_test):
    """SICK-E test accuracy × 100 of scikit-learn's StandardScaler → LogisticRegression fitted on the training pairs'
    |u − v| and u ∗ v blocks of the mean view, built here from the vectors themselves."""
    train_u, train_v, test_u, test_v = (np.asarray(x, dtype=np.float64) for x in probe_views["mean"])
    train = np.hstack([np.abs(train_u - train_v), train_u * train_v])
    test = np.hstack([np.abs(test_u - test_v), test_u * test_v])
    probe = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)).fit(train, sick_train.labels)
    return 100 * probe.score(test, sick_test.labels)
