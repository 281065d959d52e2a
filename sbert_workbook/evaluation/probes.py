"""Probes and regressors on frozen sentence embeddings, beside cosine (``03_pooling_and_sts.ipynb`` §9).

Cosine similarity weighs every dimension of u and v equally. SentEval (Conneau & Kiela, 2018), the
toolkit behind SBERT's Table 5, instead fits a classifier (or, for SICK-R, a regressor) on *frozen*
embeddings, so it can weigh, ignore and combine dimensions. Which pair features it reads matters, and
the papers differ:

- SentEval's SICK-E and SICK-R tasks feed (|u−v|, u∗v) (``senteval/sick.py``);
- InferSent (Conneau et al., 2017) feeds (u, v, |u−v|, u∗v) to its NLI classifier;
- SBERT's classification objective (``04_siamese_finetuning.ipynb``) feeds (u, v, |u−v|), and SBERT §6
  reports that adding u∗v *decreased* performance (``published.SBERT_TABLE6``);
- SBERT Table 5's SentEval tasks are mostly single-sentence tasks (the probe reads u alone); only MRPC
  is a pair task.

:func:`probe_features` builds any of these blocks. The features are standardised on the training pairs
before the fit (a scikit-learn ``StandardScaler``), so the L2 penalty treats every feature alike;
SentEval selects its models on SICK's trial split instead, and for SICK-R fits a 5-class logistic
regression on Tai et al.'s encoding of the score where :func:`fit_regressor` fits a ridge regression to it.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.stats import spearmanr
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sbert_workbook.evaluation.arrays import as_array
from sbert_workbook.evaluation.similarity import cosine_similarity

#: Every pair feature, in InferSent's order (u, v, |u−v|, u∗v): :func:`probe_features`' default.
PROBE_FEATURES = ("u", "v", "|u-v|", "u*v")
#: What SentEval's SICK-E and SICK-R tasks feed their classifier and regressor.
SENTEVAL_PROBE_FEATURES = ("|u-v|", "u*v")


def probe_features(u, v, parts=PROBE_FEATURES) -> np.ndarray:
    """(n, len(parts)·dim) float64 rows, the blocks of ``parts`` side by side (``03_pooling_and_sts.ipynb``).

    The default is InferSent's [u, v, |u−v|, u∗v]; ``parts=SENTEVAL_PROBE_FEATURES`` gives SentEval's SICK input.
    """
    u, v = as_array(u), as_array(v)
    if u.ndim != 2 or u.shape != v.shape:
        raise ValueError(f"u and v must be (n, dim) matrices of the same shape, one row per pair; "
                         f"got {u.shape} and {v.shape}.")
    blocks = {"u": u, "v": v, "|u-v|": np.abs(u - v), "u*v": u * v}
    unknown = [part for part in parts if part not in blocks]
    if unknown or not parts:
        raise ValueError(f"Unknown pair features {unknown or list(parts)}; choose from {PROBE_FEATURES}.")
    return np.hstack([blocks[part] for part in parts])


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
                   C: float = 1.0, parts=PROBE_FEATURES) -> float:
    """Accuracy in [0, 1] on the test pairs of a probe fitted on the training pairs' :func:`probe_features` ``parts``.

    Introduced in ``03_pooling_and_sts.ipynb`` (SICK entailment, frozen embeddings of each pooling).
    """
    probe = fit_probe(probe_features(train_u, train_v, parts), train_labels, C=C)
    test_features, test_labels = probe_features(test_u, test_v, parts), np.asarray(test_labels)
    if len(test_features) != len(test_labels):
        raise ValueError(f"{len(test_features)} test pairs but {len(test_labels)} test labels: give one label per pair.")
    return float((probe.predict(test_features) == test_labels).mean())


def majority_accuracy(train_labels: Sequence, test_labels: Sequence) -> float:
    """Accuracy of always answering the most frequent training label: the floor a probe must beat (``03_pooling_and_sts.ipynb``)."""
    if len(train_labels) == 0 or len(test_labels) == 0:
        raise ValueError("majority_accuracy needs at least one training and one test label.")
    majority = Counter(np.asarray(train_labels).tolist()).most_common(1)[0][0]
    return float((np.asarray(test_labels) == majority).mean())


def fit_regressor(features, scores: Sequence[float], alpha: float = 1.0):
    """A scikit-learn pipeline (StandardScaler → Ridge with L2 strength ``alpha``) fitted to predict ``scores``.

    Introduced in ``03_pooling_and_sts.ipynb`` §9 (SICK-R read by a regressor on frozen features).
    """
    features, scores = as_array(features), np.asarray(scores, dtype=float)
    if len(features) != len(scores):
        raise ValueError(f"{len(features)} feature rows but {len(scores)} scores: give one gold score per pair.")
    if len(scores) < 2:
        raise ValueError("A regressor needs at least two training pairs; take more pairs.")
    return make_pipeline(StandardScaler(), Ridge(alpha=alpha)).fit(features, scores)


def regressor_predictions(train_u, train_v, train_scores: Sequence[float], test_u, test_v,
                          parts=SENTEVAL_PROBE_FEATURES, alpha: float = 1.0) -> np.ndarray:
    """The test pairs' scores predicted by a ridge regressor fitted on the training pairs' ``parts`` (``03`` §9)."""
    regressor = fit_regressor(probe_features(train_u, train_v, parts), train_scores, alpha=alpha)
    return regressor.predict(probe_features(test_u, test_v, parts))


def regressor_spearman(train_u, train_v, train_scores: Sequence[float], test_u, test_v, test_scores: Sequence[float],
                       parts=SENTEVAL_PROBE_FEATURES, alpha: float = 1.0) -> float:
    """Spearman ρ on the test pairs of a ridge regressor fitted on the training pairs' ``parts`` (``03`` §9)."""
    predicted = regressor_predictions(train_u, train_v, train_scores, test_u, test_v, parts, alpha)
    if len(predicted) != len(test_scores):
        raise ValueError(f"{len(predicted)} test pairs but {len(test_scores)} test scores: give one score per pair.")
    return float(spearmanr(predicted, np.asarray(test_scores)).statistic)


def relatedness_two_ways_table(views: Mapping[str, tuple], train_scores: Sequence[float], test_scores: Sequence[float],
                               parts=SENTEVAL_PROBE_FEATURES, alpha: float = 1.0) -> pd.DataFrame:
    """One task read two ways, per view: Spearman × 100 of cosine and of a regressor on ``parts``, same test pairs.

    Introduced in ``03_pooling_and_sts.ipynb`` §9 (SICK-R: SentEval's protocol reads it with a regressor on
    (|u−v|, u∗v)). ``views`` maps a name to ``(train_u, train_v, test_u, test_v)``; ``train_scores`` are the
    gold scores of the training pairs (the cosine column never sees them). The index is the view, in order.
    The regressor − cosine difference comes with its 95 % paired-bootstrap interval over the test pairs
    (:func:`sbert_workbook.evaluation.uncertainty.paired_bootstrap`; the regressor is deterministic, so only the
    test sample varies) and the verdict it gives; ``attrs['interval']`` names the interval, ``attrs['intervals']``
    holds each view's :class:`~sbert_workbook.evaluation.uncertainty.Interval` (to draw them).
    """
    from sbert_workbook.evaluation.uncertainty import paired_bootstrap

    rows, method, intervals = {}, "", {}
    for name, (train_u, train_v, test_u, test_v) in views.items():
        if len(test_u) != len(test_scores) or len(train_u) != len(train_scores):
            raise ValueError(f"View {name!r}: {len(train_u)} training and {len(test_u)} test pairs, but "
                             f"{len(train_scores)} training and {len(test_scores)} test scores.")
        cosines = cosine_similarity(test_u, test_v)
        predicted = regressor_predictions(train_u, train_v, train_scores, test_u, test_v, parts, alpha)
        interval = intervals[name] = paired_bootstrap(test_scores, predicted, cosines)
        method = interval.method
        rows[name] = {"cosine_spearman": 100 * float(spearmanr(cosines, np.asarray(test_scores)).statistic),
                      "regressor_spearman": 100 * float(spearmanr(predicted, np.asarray(test_scores)).statistic),
                      "regressor - cosine": interval.difference, "95 % interval": f"[{interval.low:+.2f}, {interval.high:+.2f}]",
                      "verdict": interval.verdict}
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "view"
    table.attrs["interval"] = f"95 % {method}"
    table.attrs["intervals"] = intervals
    return table
