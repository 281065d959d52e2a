"""From a similarity score to a probability, and how to tell whether a probability means what it says
(``09_what_a_score_means.ipynb`` §3).

A cosine is not a probability: nothing makes 0.8 mean "related four times in five". Two maps fitted on labelled
pairs of one split make it one, both increasing in the score: **isotonic regression** (the non-decreasing step function
closest to the labels in squared error, found by pooling adjacent violators; scikit-learn's ``IsotonicRegression``
with ``out_of_bounds="clip"``) and a **logistic fit** p = σ(a·s + b) (Platt scaling, by maximum likelihood, without
Platt's smoothed targets; scikit-learn's unpenalised ``LogisticRegression``). A probability is read on another split
by its **reliability**: pairs binned by their probability, each bin's share of related pairs against its mean
probability (scikit-learn's ``calibration_curve`` with ``strategy="uniform"``), and by the **expected calibration
error**, ECE = Σ_b (n_b / n) |acc_b − conf_b|, with a percentile interval over resampled pairs. tests/test_lesson_09.py
holds each to scikit-learn's.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit

from sbert_workbook.evaluation.thresholds import Estimate, labelled
from sbert_workbook.evaluation.uncertainty import CONFIDENCE, RESAMPLES, Interval, bootstrap_picks, percentile_interval

BINS = 10


def pool_adjacent_violators(values, weights) -> np.ndarray:
    """The non-decreasing sequence closest to ``values`` in weighted squared error: neighbours that break the order
    are merged into their weighted mean until none does."""
    blocks: list[list[float]] = []  # [mean, weight, how many values]
    for value, weight in zip(np.asarray(values, dtype=float), np.asarray(weights, dtype=float)):
        blocks.append([value, weight, 1])
        while len(blocks) > 1 and blocks[-2][0] >= blocks[-1][0]:
            (m2, w2, n2), (m1, w1, n1) = blocks.pop(), blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, n1 + n2])
    return np.concatenate([np.full(n, mean) for mean, _, n in blocks])


@dataclass(frozen=True)
class Isotonic:
    """Isotonic regression of the labels on the score: fitted values at each distinct score, interpolated between
    them and held at the ends."""

    scores: np.ndarray
    fitted: np.ndarray
    name: str = "isotonic"

    @classmethod
    def fit(cls, scores, labels) -> Isotonic:
        scores, labels = labelled(scores, labels)
        distinct, where, counts = np.unique(scores.astype(float), return_inverse=True, return_counts=True)
        means = np.bincount(where, weights=labels) / counts  # tied scores first share one mean, as scikit-learn does
        return cls(distinct, pool_adjacent_violators(means, counts))

    def __call__(self, scores) -> np.ndarray:
        return np.interp(np.asarray(scores, dtype=float), self.scores, self.fitted)


@dataclass(frozen=True)
class Logistic:
    """p = σ(a·s + b), a and b by maximum likelihood (Newton's method on the log loss)."""

    a: float
    b: float
    name: str = "logistic (Platt)"

    @classmethod
    def fit(cls, scores, labels, steps: int = 100) -> Logistic:
        scores, labels = labelled(scores, labels)
        if labels.min() == labels.max():
            raise ValueError("A logistic fit needs related and unrelated pairs; these labels are all one kind.")
        x = np.column_stack([np.asarray(scores, dtype=float), np.ones(len(scores))])
        w = np.zeros(2)
        for _ in range(steps):  # separable labels have no finite optimum: stop where the steps stop being finite
            p = expit(x @ w)
            gradient, hessian = x.T @ (p - labels), (x * (p * (1 - p))[:, None]).T @ x
            step = np.linalg.lstsq(hessian, gradient, rcond=None)[0]
            if not np.all(np.isfinite(w - step)):
                break
            w -= step
            if np.abs(step).max() < 1e-12:
                break
        return cls(float(w[0]), float(w[1]))

    def __call__(self, scores) -> np.ndarray:
        return expit(self.a * np.asarray(scores, dtype=float) + self.b)


def cosine_as_probability(scores) -> np.ndarray:
    """The raw cosine read as a probability: clipped to [0, 1]."""
    return np.clip(np.asarray(scores, dtype=float), 0.0, 1.0)


def bin_of(probabilities, bins: int = BINS) -> np.ndarray:
    """Each probability's bin of ``bins`` equal-width bins of [0, 1]: (lo, hi], the first [0, hi] (calibration_curve's)."""
    probabilities = np.asarray(probabilities, dtype=float)
    if probabilities.size and (probabilities.min() < 0 or probabilities.max() > 1):
        raise ValueError("Probabilities must lie in [0, 1]; read a cosine as one with cosine_as_probability first.")
    return np.searchsorted(np.linspace(0, 1, bins + 1)[1:-1], probabilities)


def reliability(probabilities, labels, bins: int = BINS) -> pd.DataFrame:
    """One row per non-empty bin: its pairs, their mean probability and their share of related pairs."""
    probabilities, labels = np.asarray(probabilities, dtype=float), labelled(probabilities, labels)[1]
    which = bin_of(probabilities, bins)
    rows = [{"bin": f"({b / bins:.1f}, {(b + 1) / bins:.1f}]" if b else f"[0.0, {1 / bins:.1f}]",
             "pairs": int((which == b).sum()), "mean probability": probabilities[which == b].mean(),
             "share related": labels[which == b].mean()} for b in np.unique(which)]
    return pd.DataFrame(rows).set_index("bin")


def _ece_rows(probabilities: np.ndarray, labels: np.ndarray, which: np.ndarray, picks: np.ndarray, bins: int) -> np.ndarray:
    """ECE of each row of ``picks`` (resamples × pairs), counted per bin with one bincount."""
    rows = picks.shape[0]
    slot = (which[picks] + bins * np.arange(rows)[:, None]).ravel()
    count, confidence, related = (np.bincount(slot, weights=w, minlength=rows * bins).reshape(rows, bins)
                                  for w in (None, probabilities[picks].ravel(), labels[picks].ravel().astype(float)))
    return np.abs(related - confidence).sum(axis=1) / picks.shape[1]


def expected_calibration_error(probabilities, labels, bins: int = BINS) -> float:
    """ECE = Σ_b (n_b / n) |share related in b − mean probability in b| over equal-width bins."""
    probabilities, labels = np.asarray(probabilities, dtype=float), labelled(probabilities, labels)[1]
    picks = np.arange(len(labels))[None, :]
    return float(_ece_rows(probabilities, labels, bin_of(probabilities, bins), picks, bins)[0])


def ece_interval(probabilities, labels, bins: int = BINS, resamples: int = RESAMPLES, seed: int = 0,
                 confidence: float = CONFIDENCE) -> Estimate:
    """ECE with its percentile interval over the pairs resampled with replacement."""
    probabilities, labels = np.asarray(probabilities, dtype=float), labelled(probabilities, labels)[1]
    resampled = _ece_rows(probabilities, labels, bin_of(probabilities, bins), bootstrap_picks(len(labels), resamples, seed),
                          bins)
    return Estimate(expected_calibration_error(probabilities, labels, bins), *percentile_interval(resampled, confidence),
                    f"bootstrap over {len(labels)} test pairs, {resamples} resamples")


def ece_change(probabilities_a, probabilities_b, labels, bins: int = BINS, resamples: int = RESAMPLES, seed: int = 0,
               confidence: float = CONFIDENCE) -> Interval:
    """Interval of ECE(a) − ECE(b) (× 100) on the same pairs, resampled together."""
    a, b = np.asarray(probabilities_a, dtype=float), np.asarray(probabilities_b, dtype=float)
    labels = labelled(a, labels)[1]
    picks = bootstrap_picks(len(labels), resamples, seed)
    difference = 100 * (_ece_rows(a, labels, bin_of(a, bins), picks, bins) - _ece_rows(b, labels, bin_of(b, bins), picks, bins))
    observed = 100 * (expected_calibration_error(a, labels, bins) - expected_calibration_error(b, labels, bins))
    return Interval(float(observed), *percentile_interval(difference, confidence),
                    f"paired bootstrap over {len(labels)} test pairs, {resamples} resamples")
