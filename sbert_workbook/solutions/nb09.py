"""Reference solutions for ``09_what_a_score_means.ipynb`` (see :mod:`sbert_workbook.teaching.exercises` for the
pattern)."""
from __future__ import annotations

import numpy as np

from sbert_workbook.evaluation import thresholds as th
from sbert_workbook.evaluation.minimal_pairs import fooled
from sbert_workbook.teaching.exercises import solution


def _recall(scores, labels, threshold):
    return th.metrics_at(scores, labels, threshold)["recall"]


def _highest_reaching(scores, labels, target=0.9):
    """The highest score whose pairs at or above it reach the target: the first met coming down from the top."""
    for threshold in np.sort(np.unique(scores))[::-1]:
        if th.metrics_at(scores, labels, threshold)["precision"] >= target:
            return threshold
    return np.nan


@solution(wrong={
    "recall on dev, where the threshold was chosen": lambda sts_task: np.array([
        ex09_1(sts_task)[0], _recall(sts_task.dev_scores, sts_task.dev_labels, ex09_1(sts_task)[0])]),
    "precision on test instead of recall": lambda sts_task: np.array([
        ex09_1(sts_task)[0], th.metrics_at(sts_task.test_scores, sts_task.test_labels, ex09_1(sts_task)[0])["precision"]]),
    "the highest threshold that reaches 0.9, not the lowest": lambda sts_task: np.array([
        _highest_reaching(sts_task.dev_scores, sts_task.dev_labels),
        _recall(sts_task.test_scores, sts_task.test_labels, _highest_reaching(sts_task.dev_scores, sts_task.dev_labels))]),
    "the threshold chosen on test": lambda sts_task: np.array([
        th.precision_target(sts_task.test_scores, sts_task.test_labels, 0.9),
        _recall(sts_task.test_scores, sts_task.test_labels, th.precision_target(sts_task.test_scores, sts_task.test_labels, 0.9))]),
})
def ex09_1(sts_task) -> np.ndarray:
    """The lowest dev score whose pairs scoring it or more are at least 90 % related, and the recall on test there."""
    threshold = th.precision_target(sts_task.dev_scores, sts_task.dev_labels, 0.9)
    return np.array([threshold, _recall(sts_task.test_scores, sts_task.test_labels, threshold)])


def _bins(p):
    return np.minimum((np.asarray(p) * 10).astype(int), 9)


def _gaps(raw_probabilities, test_labels):
    which, y = _bins(raw_probabilities), np.asarray(test_labels, dtype=float)
    kept = [b for b in range(10) if (which == b).any()]
    return (np.array([(which == b).mean() for b in kept]),
            np.array([y[which == b].mean() - raw_probabilities[which == b].mean() for b in kept]))


@solution(wrong={
    "the bins' gaps averaged, not weighted by their pairs": lambda raw_probabilities, test_labels: float(
        np.mean(np.abs(_gaps(raw_probabilities, test_labels)[1]))),
    "signed gaps, which cancel": lambda raw_probabilities, test_labels: float(
        abs(np.sum(np.prod(_gaps(raw_probabilities, test_labels), axis=0)))),
    "the largest gap (the maximum calibration error)": lambda raw_probabilities, test_labels: float(
        np.max(np.abs(_gaps(raw_probabilities, test_labels)[1]))),
})
def ex09_2(raw_probabilities, test_labels) -> float:
    """Σ_b (n_b / n) |share related in b − mean probability in b| over ten equal bins of [0, 1]."""
    weights, gaps = _gaps(raw_probabilities, test_labels)
    return float(np.sum(weights * np.abs(gaps)))


def _ranked(lesson):
    """Each perturbation's share of minimal pairs the embedded model scores above the paraphrase, and the names by it."""
    model = lesson.embedded
    shares = {name: float(fooled(model.cosines([p.sentence for p in pairs], [p.perturbed for p in pairs]),
                                 model.cosines([p.sentence for p in pairs], [p.paraphrase for p in pairs])).mean())
              for name, pairs in lesson.minimal.items()}
    return shares, sorted(shares, key=lambda name: -shares[name])


@solution(wrong={
    "the perturbation that fools it least": lambda lesson: _ranked(lesson)[1][-1],
    "the runner-up": lambda lesson: next((name for name in _ranked(lesson)[1]
                                          if _ranked(lesson)[0][name] < _ranked(lesson)[0][_ranked(lesson)[1][0]]),
                                         _ranked(lesson)[1][-1]),
})
def ex09_3(lesson) -> str:
    """The perturbation whose changed sentence most often scores above the paraphrase under the embedded model."""
    return _ranked(lesson)[1][0]


DISCUSSION = {
    "ex09_4": "A cosine is a position on the model's own scale, not a probability, and the scale is each model's "
              "own (§1 draws where each model puts related and unrelated pairs; 02's cone puts a raw transformer's all "
              "high) and each data set's (§2 carries a threshold from STS-B to SNLI and reads what it loses). So choose the "
              "threshold on labelled pairs like the ones the application will see, state the precision or recall it "
              "was chosen for, and report it on other pairs with an interval; if a probability is wanted, fit an "
              "isotonic or logistic map on such pairs and read its calibration error on others (§3). Ranking needs "
              "none of this: any increasing map keeps it. And test what the score cannot see before trusting it: "
              "§4's minimal pairs show which changes of meaning leave the cosine almost where it was.",
}
