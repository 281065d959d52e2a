"""Logistic-regression probes on frozen sentence embeddings, beside cosine (``03_pooling_and_sts.ipynb``).

Cosine similarity weighs every dimension of u and v equally. SentEval (Conneau & Kiela, 2018),
the toolkit behind SBERT's Table 5, instead fits a logistic regression on *frozen* embeddings,
so it can weigh, ignore and combine dimensions. For a sentence pair the classifier reads
InferSent's pair features (u, v, |u−v|, u∗v), the same concatenation SBERT's classification
objective uses (``04_siamese_finetuning.ipynb``). Here the features are standardised on the
training pairs before the fit (a scikit-learn ``StandardScaler``), so the regularisation treats
every feature alike; SentEval tunes its L2 penalty by cross-validation instead.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.stats import spearmanr
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sbert_workbook.evaluation.arrays import as_array
from sbert_workbook.evaluation.similarity import cosine_similarity

#: The pair features, in the order :func:`probe_features` concatenates them.
PROBE_FEATURES = ("u", "v", "|u-v|", "u*v")


def probe_features(u, v) -> np.ndarray:
    """(n, 4·dim) float64 rows [u, v, |u−v|, u∗v] for n pairs of (n, dim) embeddings (``03_pooling_and_sts.ipynb``)."""
    u, v = as_array(u), as_array(v)
    if u.ndim != 2 or u.shape != v.shape:
        raise ValueError(f"u and v must be (n, dim) matrices of the same shape, one row per pair; "
                         f"got {u.shape} and {v.shape}.")
    return np.hstack([u, v, np.abs(u - v), u * v])


def fit_probe(features, labels: Sequence, C: float = 1.0, max_iter: int = 2000):
    """A scikit-learn pipeline (StandardScaler → LogisticRegression with inverse L2 strength ``C``) fitted on ``features``.

    Introduced in ``03_pooling_and_sts.ipynb``. ``labels`` may be strings or integers;
    the fit is deterministic (lbfgs, no random state involved).
    """
    features, labels = as_array(features), np.asarray(labels)
    if len(features) != len(labels):
        raise ValueError(f"{len(features)} feature rows but {len(labels)} labels: give one label per pair.")
    if len(set(labels.tolist())) < 2:
        raise ValueError("A probe needs at least two different labels among the training pairs; take more pairs.")
    return make_pipeline(StandardScaler(), LogisticRegression(C=C, max_iter=max_iter)).fit(features, labels)


def probe_accuracy(train_u, train_v, train_labels: Sequence, test_u, test_v, test_labels: Sequence,
                   C: float = 1.0) -> float:
    """Accuracy in [0, 1] on the test pairs of a probe fitted on the training pairs' :func:`probe_features`.

    Introduced in ``03_pooling_and_sts.ipynb`` (SICK entailment, frozen embeddings of each pooling).
    """
    probe = fit_probe(probe_features(train_u, train_v), train_labels, C=C)
    test_features, test_labels = probe_features(test_u, test_v), np.asarray(test_labels)
    if len(test_features) != len(test_labels):
        raise ValueError(f"{len(test_features)} test pairs but {len(test_labels)} test labels: give one label per pair.")
    return float((probe.predict(test_features) == test_labels).mean())


def majority_accuracy(train_labels: Sequence, test_labels: Sequence) -> float:
    """Accuracy of always answering the most frequent training label: the floor a probe must beat (``03_pooling_and_sts.ipynb``)."""
    if len(train_labels) == 0 or len(test_labels) == 0:
        raise ValueError("majority_accuracy needs at least one training and one test label.")
    majority = Counter(np.asarray(train_labels).tolist()).most_common(1)[0][0]
    return float((np.asarray(test_labels) == majority).mean())


def probe_vs_cosine_table(views: Mapping[str, tuple], train_labels: Sequence, test_labels: Sequence,
                          test_scores: Sequence[float], C: float = 1.0) -> pd.DataFrame:
    """Per view, probe accuracy × 100 and cosine Spearman × 100 against ``test_scores`` on the same test pairs.

    Introduced in ``03_pooling_and_sts.ipynb``. ``views`` maps a name to
    ``(train_u, train_v, test_u, test_v)``; the index is the view, in the order given.
    """
    rows = {}
    for name, (train_u, train_v, test_u, test_v) in views.items():
        if len(test_u) != len(test_scores):
            raise ValueError(f"View {name!r}: {len(test_u)} test pairs but {len(test_scores)} gold scores.")
        accuracy = probe_accuracy(train_u, train_v, train_labels, test_u, test_v, test_labels, C=C)
        rho = spearmanr(cosine_similarity(test_u, test_v), np.asarray(test_scores)).statistic
        rows[name] = {"probe_accuracy": 100 * accuracy, "cosine_spearman": 100 * float(rho)}
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "view"
    return table
