"""References of notebook 09's checks, each computed by another route than the exercise asks for
(``09_what_a_score_means.ipynb``): the threshold from scikit-learn's precision–recall curve, the calibration error from
its calibration_curve and NumPy's histogram, the perturbation that fools the model from its vectors read anew.
"""
from __future__ import annotations

import numpy as np

#: Exercise 1's target precision on dev, exercise 2's bins.
TARGET_PRECISION, BINS = 0.9, 10


def ex09_1(sts_task):
    """(the lowest dev threshold whose precision reaches 0.9, the recall on test at it), from precision_recall_curve."""
    from sklearn.metrics import precision_recall_curve, recall_score

    precision, _, thresholds = precision_recall_curve(sts_task.dev_labels, sts_task.dev_scores)
    reaching = thresholds[precision[:-1] >= TARGET_PRECISION]
    if len(reaching) == 0:
        return np.array([np.nan, np.nan])
    threshold = reaching.min()
    return np.array([threshold, recall_score(sts_task.test_labels, sts_task.test_scores >= threshold)])


def ex09_2(raw_probabilities, test_labels):
    """ECE over ten equal bins: calibration_curve's per-bin shares and means, weighted by NumPy's histogram counts."""
    from sklearn.calibration import calibration_curve

    share, mean = calibration_curve(test_labels, raw_probabilities, n_bins=BINS, strategy="uniform")
    counts = np.histogram(raw_probabilities, bins=np.linspace(0, 1, BINS + 1))[0]
    counts = counts[counts > 0]
    return float(np.sum(counts / len(test_labels) * np.abs(share - mean)))


def ex09_3(lesson, my_guess=None):
    """The perturbation whose changed sentence most often outscores the paraphrase under the embedded model, its
    cosines computed anew from its vectors (a guess tied with the most is right too)."""
    model = lesson.embedded
    unit = model.vectors / np.linalg.norm(model.vectors, axis=1, keepdims=True)

    def cosine(a, b):
        return np.array([unit[model.row[x]] @ unit[model.row[y]] for x, y in zip(a, b)])

    shares = {name: np.mean(cosine([p.sentence for p in pairs], [p.perturbed for p in pairs])
                            > cosine([p.sentence for p in pairs], [p.paraphrase for p in pairs]))
              for name, pairs in lesson.minimal.items()}
    best = max(shares, key=shares.get)
    return my_guess if my_guess in shares and np.isclose(shares[my_guess], shares[best]) else best
