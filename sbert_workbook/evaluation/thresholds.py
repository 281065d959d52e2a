"""A threshold on a similarity score: chosen on one split, read on another with its interval
(``09_what_a_score_means.ipynb`` §2).

A pair is called *related* when its score is at least a threshold ``t``. Where ``t`` goes is a choice made on labelled
pairs of one split, by one of three rules: the best accuracy, the best F1, or the lowest ``t`` whose precision reaches
a target (the most recall that precision allows). sentence-transformers' ``BinaryClassificationEvaluator`` chooses the
first two the same way: pairs sorted by score, a cut after each group of tied scores, the cut's threshold the midpoint
of the scores on either side; :func:`best_accuracy` and :func:`best_f1` return what it returns (tests/test_lesson_09.py
holds them to it to 1e-6 on the same pairs). The threshold is then read on another split, where each figure gets a
95 % percentile interval from resampling that split's pairs (:func:`metric_interval`: the threshold stays as chosen).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sbert_workbook.evaluation.uncertainty import CONFIDENCE, RESAMPLES, Interval, bootstrap_picks, percentile_interval

METRICS = ("accuracy", "precision", "recall", "F1")


@dataclass(frozen=True)
class Estimate:
    """One figure with its 95 % interval (not a difference: it is read against a level, such as a target precision)."""

    value: float
    low: float
    high: float
    method: str

    def __str__(self) -> str:
        return f"{self.value:.3f} [{self.low:.3f}, {self.high:.3f}]"

    def described(self) -> str:
        return f"{self} ({CONFIDENCE:.0%} {self.method})".replace("%", " %", 1)


def labelled(scores, labels) -> tuple[np.ndarray, np.ndarray]:
    scores, labels = np.asarray(scores), np.asarray(labels)
    if scores.ndim != 1 or scores.shape != labels.shape or len(scores) == 0:
        raise ValueError(f"Give one score and one label per pair, as two 1-d arrays of the same length; got shapes "
                         f"{scores.shape} and {labels.shape}.")
    if not np.isin(labels, (0, 1)).all():
        raise ValueError("Labels must be 0 (unrelated) or 1 (related): binarise graded scores first, e.g. gold >= 4.")
    return scores, labels.astype(int)


def _cuts(scores: np.ndarray, labels: np.ndarray):
    """Pairs sorted by score, highest first: where each group of tied scores ends, the related pairs up to there, the
    score there and the next lower score (itself after the last group)."""
    order = np.argsort(-scores, kind="stable")
    ranked, related = scores[order], np.cumsum(labels[order])
    ends = np.flatnonzero(np.append(ranked[1:] != ranked[:-1], True))
    following = np.append(ranked[ends[:-1] + 1], ranked[ends[-1]])
    return ends, related[ends], ranked[ends], following


def _midpoints(here: np.ndarray, following: np.ndarray, last: np.ndarray) -> np.ndarray:
    """The threshold between a group's score and the next lower one (the score itself after the last group, or where
    the rounded midpoint would fall on the next score)."""
    middle = (here + following) / 2
    return np.where(last | (middle == following), here, middle)


def best_accuracy(scores, labels) -> tuple[float, float]:
    """(accuracy, threshold) of the cut with the best accuracy; before any cut every pair is called unrelated."""
    scores, labels = labelled(scores, labels)
    ends, related, here, following = _cuts(scores, labels)
    negatives = len(labels) - labels.sum()
    accuracy = (related + negatives - (ends + 1 - related)) / len(labels)
    dtype = np.result_type(scores.dtype, np.float16)
    none_related = np.nextafter(scores.max().astype(dtype), dtype.type(np.inf), dtype=dtype)
    candidates = np.append(negatives / len(labels), accuracy)
    best = int(np.argmax(candidates))  # the first best, as a loop keeping only strict improvements finds it
    if best == 0:
        return float(candidates[0]), none_related
    i = best - 1
    return float(accuracy[i]), _midpoints(here, following, np.arange(len(ends)) == len(ends) - 1)[i]


def best_f1(scores, labels) -> tuple[float, float, float, float]:
    """(F1, precision, recall, threshold) of the cut with the best F1 (threshold 0 when no cut finds a related pair)."""
    scores, labels = labelled(scores, labels)
    ends, related, here, following = _cuts(scores, labels)
    precision, recall = related / (ends + 1), related / max(labels.sum(), 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(related > 0, 2 * precision * recall / (precision + recall), 0.0)
    i = int(np.argmax(f1))
    if f1[i] <= 0:
        return 0.0, 0.0, 0.0, 0
    return (float(f1[i]), float(precision[i]), float(recall[i]),
            _midpoints(here, following, np.arange(len(ends)) == len(ends) - 1)[i])


def precision_target(scores, labels, target: float) -> float | None:
    """The lowest score ``t`` (one of the scores) at which the pairs scoring ``t`` or more reach ``target`` precision:
    the most recall that precision allows. None when no threshold reaches it."""
    scores, labels = labelled(scores, labels)
    if not 0 < target <= 1:
        raise ValueError(f"A target precision is a share between 0 and 1, e.g. 0.9; got {target}.")
    ends, related, here, _ = _cuts(scores, labels)
    reaching = np.flatnonzero(related / (ends + 1) >= target)
    return None if len(reaching) == 0 else float(here[reaching[-1]])


def average_precision(scores, labels) -> float:
    """Σ_k (R_k − R_{k−1}) P_k over the cuts, highest score first (scikit-learn's ``average_precision_score``)."""
    scores, labels = labelled(scores, labels)
    ends, related, _, _ = _cuts(scores, labels)
    precision, recall = related / (ends + 1), related / max(labels.sum(), 1)
    return float(np.sum(np.diff(np.append(0.0, recall)) * precision))


def confusion(predicted: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """(true positives, false positives, false negatives, true negatives) of 0/1 predictions, along the last axis."""
    predicted, labels = np.asarray(predicted, dtype=bool), np.asarray(labels, dtype=bool)
    return np.stack([(predicted & labels).sum(-1), (predicted & ~labels).sum(-1), (~predicted & labels).sum(-1),
                     (~predicted & ~labels).sum(-1)], axis=-1)


def metrics_of(counts: np.ndarray) -> dict[str, np.ndarray]:
    """Accuracy, precision, recall and F1 from :func:`confusion`'s counts (NaN where a ratio has nothing to divide)."""
    tp, fp, fn, tn = (counts[..., i].astype(float) for i in range(4))
    with np.errstate(invalid="ignore", divide="ignore"):
        return {"accuracy": (tp + tn) / (tp + fp + fn + tn), "precision": tp / (tp + fp), "recall": tp / (tp + fn),
                "F1": 2 * tp / (2 * tp + fp + fn)}


def metrics_at(scores, labels, threshold: float) -> dict[str, float]:
    """Every metric of :data:`METRICS` when pairs scoring ``threshold`` or more are called related."""
    scores, labels = labelled(scores, labels)
    return {name: float(value) for name, value in metrics_of(confusion(scores >= threshold, labels)).items()}


def metric_interval(scores, labels, threshold: float, resamples: int = RESAMPLES, seed: int = 0,
                    confidence: float = CONFIDENCE) -> dict[str, Estimate]:
    """Each metric at ``threshold`` with its percentile interval over the pairs resampled with replacement (the
    threshold stays as chosen on the other split)."""
    scores, labels = labelled(scores, labels)
    predicted = scores >= threshold
    picks = bootstrap_picks(len(labels), resamples, seed)
    resampled = metrics_of(confusion(predicted[picks], labels[picks].astype(bool)))
    observed = metrics_at(scores, labels, threshold)
    method = f"bootstrap over {len(labels)} test pairs, the threshold fixed, {resamples} resamples"
    return {name: Estimate(observed[name], *percentile_interval(resampled[name], confidence), method) for name in METRICS}


def paired_metric_change(scores_a, threshold_a: float, scores_b, threshold_b: float, labels, metric: str = "F1",
                         resamples: int = RESAMPLES, seed: int = 0, confidence: float = CONFIDENCE) -> Interval:
    """Interval of metric(a at its threshold) − metric(b at its threshold) on the same labelled pairs, resampled
    together (two thresholds on one score, or two models' scores); the metric × 100."""
    labels = labelled(scores_a, labels)[1]
    labelled(scores_b, labels)
    a, b = np.asarray(scores_a) >= threshold_a, np.asarray(scores_b) >= threshold_b
    picks = bootstrap_picks(len(labels), resamples, seed)
    truth = labels.astype(bool)
    difference = 100 * (metrics_of(confusion(a[picks], truth[picks]))[metric]
                        - metrics_of(confusion(b[picks], truth[picks]))[metric])
    observed = 100 * (metrics_of(confusion(a, truth))[metric] - metrics_of(confusion(b, truth))[metric])
    low, high = percentile_interval(difference, confidence)
    return Interval(float(observed), low, high,
                    f"paired bootstrap over {len(labels)} test pairs, {resamples} resamples")
