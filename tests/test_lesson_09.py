"""Lesson 09's pieces against the references they teach: thresholds against sentence-transformers'
BinaryClassificationEvaluator, isotonic regression, the logistic fit and the reliability bins against scikit-learn, ECE
against calibration_curve, the minimal-pair rules on hand-made sentences, and the exercise checks on wrong answers."""
from __future__ import annotations

import numpy as np
import pytest

from sbert_workbook.evaluation import minimal_pairs as mp
from sbert_workbook.evaluation import probabilities as pr
from sbert_workbook.evaluation import thresholds as th


def scored_pairs(n=300, seed=0, ties=False):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, n)
    scores = (0.5 * labels + rng.normal(0, 0.4, n)).astype(np.float32)
    if ties:
        scores = np.round(scores, 1).astype(np.float32)
    return scores, labels


# ----------------------------------------------------------------------------- thresholds
@pytest.mark.parametrize("ties", [False, True])
def test_thresholds_are_the_binary_classification_evaluators(ties):
    from sentence_transformers.sentence_transformer.evaluation import BinaryClassificationEvaluator as Evaluator

    scores, labels = scored_pairs(ties=ties)
    accuracy, threshold = th.best_accuracy(scores, labels)
    theirs = Evaluator.find_best_acc_and_threshold(scores, labels, True)
    assert accuracy == pytest.approx(theirs[0], abs=1e-12) and threshold == pytest.approx(theirs[1], abs=1e-6)
    ours_f1 = th.best_f1(scores, labels)
    assert ours_f1 == pytest.approx(Evaluator.find_best_f1_and_threshold(scores, labels, True), abs=1e-6)
    from sklearn.metrics import average_precision_score

    assert th.average_precision(scores, labels) == pytest.approx(average_precision_score(labels, scores), abs=1e-12)


def test_the_evaluator_on_the_same_vectors_chooses_the_same_thresholds():
    """The whole evaluator (its own cosine, AP and all) handed the vectors a model would give: same figures to 1e-6."""
    from sbert_workbook.lessons.nb09.thresholds import evaluator_metrics

    rng = np.random.default_rng(1)
    first, second = rng.normal(size=(120, 16)), rng.normal(size=(120, 16))
    second[:60] += 1.5 * first[:60]
    labels = np.r_[np.ones(60, int), np.zeros(60, int)]
    cosines = (first * second).sum(1) / np.linalg.norm(first, axis=1) / np.linalg.norm(second, axis=1)
    theirs = evaluator_metrics(first.astype(np.float32), second.astype(np.float32), labels)
    ours_accuracy, ours_threshold = th.best_accuracy(cosines.astype(np.float32), labels)
    assert theirs["accuracy_threshold"] == pytest.approx(ours_threshold, abs=1e-6)
    assert theirs["f1_threshold"] == pytest.approx(th.best_f1(cosines.astype(np.float32), labels)[3], abs=1e-6)
    assert theirs["ap"] == pytest.approx(th.average_precision(cosines, labels), abs=1e-6)


def test_a_precision_target_takes_the_lowest_threshold_that_reaches_it():
    scores = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4])
    labels = np.array([1, 1, 0, 1, 1, 0])  # precision from the top: 1, 1, 2/3, 3/4, 4/5, 4/6
    assert th.precision_target(scores, labels, 0.8) == 0.5  # 4/5 reaches it, below the dip at 0.7
    assert th.precision_target(scores, labels, 1.0) == 0.8
    assert th.precision_target(scores, np.zeros(6, int), 0.5) is None
    with pytest.raises(ValueError, match="between 0 and 1"):
        th.precision_target(scores, labels, 90)


def test_metrics_at_a_threshold_by_hand_and_their_interval_holds_them():
    scores, labels = np.array([0.9, 0.8, 0.7, 0.6]), np.array([1, 0, 1, 0])
    assert th.metrics_at(scores, labels, 0.75) == pytest.approx({"accuracy": 0.5, "precision": 0.5, "recall": 0.5, "F1": 0.5})
    big_scores, big_labels = scored_pairs(500)
    estimates = th.metric_interval(big_scores, big_labels, 0.25, resamples=300)
    assert all(e.low <= e.value <= e.high for e in estimates.values())
    change = th.paired_metric_change(big_scores, 0.25, big_scores, 0.25, big_labels, resamples=50)
    assert change.difference == 0 and change.low == 0 == change.high
    with pytest.raises(ValueError, match="0 \\(unrelated\\) or 1"):
        th.best_f1(scores, [0, 1, 2, 1])


# ----------------------------------------------------------------------------- probabilities
def test_isotonic_regression_is_scikit_learns():
    from sklearn.isotonic import IsotonicRegression

    scores, labels = scored_pairs(400, ties=True)
    ours = pr.Isotonic.fit(scores, labels)
    theirs = IsotonicRegression(out_of_bounds="clip").fit(scores.astype(float), labels)
    probe = np.linspace(-2, 2, 101)
    assert ours(probe) == pytest.approx(theirs.predict(probe), abs=1e-12)
    assert np.all(np.diff(ours(np.sort(probe))) >= 0)


def test_the_logistic_fit_is_scikit_learns_unpenalised_logistic_regression():
    from sklearn.linear_model import LogisticRegression

    scores, labels = scored_pairs(400)
    ours = pr.Logistic.fit(scores, labels)
    theirs = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(scores[:, None].astype(float), labels)
    assert (ours.a, ours.b) == pytest.approx((theirs.coef_[0, 0], theirs.intercept_[0]), abs=1e-5)
    assert ours(scores) == pytest.approx(theirs.predict_proba(scores[:, None].astype(float))[:, 1], abs=1e-6)
    with pytest.raises(ValueError, match="all one kind"):
        pr.Logistic.fit(scores, np.ones(len(scores), int))


def test_reliability_bins_and_ece_are_calibration_curves():
    from sklearn.calibration import calibration_curve

    rng = np.random.default_rng(3)
    probabilities = np.r_[rng.uniform(size=500), [0.0, 0.1, 0.2, 1.0]]  # edges land in the bins below them
    labels = (rng.uniform(size=len(probabilities)) < probabilities ** 2).astype(int)
    table = pr.reliability(probabilities, labels)
    share, mean = calibration_curve(labels, probabilities, n_bins=10, strategy="uniform")
    assert table["share related"].to_numpy() == pytest.approx(share) and table["mean probability"].to_numpy() == pytest.approx(mean)
    by_hand = sum(row["pairs"] / len(labels) * abs(row["share related"] - row["mean probability"]) for _, row in table.iterrows())
    assert pr.expected_calibration_error(probabilities, labels) == pytest.approx(by_hand, abs=1e-12)
    estimate = pr.ece_interval(probabilities, labels, resamples=300)
    assert estimate.low <= estimate.value <= estimate.high
    assert pr.ece_change(probabilities, probabilities, labels, resamples=20).difference == 0
    with pytest.raises(ValueError, match="cosine_as_probability"):
        pr.reliability(np.array([-0.2, 0.5]), np.array([0, 1]))


# ----------------------------------------------------------------------------- minimal pairs
@pytest.mark.parametrize("rule, sentence, expected", [
    ("negation", "A man is playing a guitar.", "A man is not playing a guitar."),
    ("negation", "A man is not playing a guitar.", None),
    ("negation", "Dogs run.", None),
    ("swap", "A man is feeding a dog.", "A dog is feeding a man."),
    ("swap", "The cat is chasing the cat.", None),
    ("swap", "Two men are playing guitars.", None),
    ("number", "Two dogs are running.", "Three dogs are running."),
    ("number", "Ten kids play.", "Nine kids play."),
    ("number", "It rose 8 points in 2013.", "It rose 9 points in 2013."),
    ("number", "A dog runs.", None),
    ("antonym", "A young child is riding a horse.", "An old child is riding a horse."),
    ("antonym", "The water is cold.", "The water is hot."),
    ("antonym", "A dog runs.", None),
])
def test_each_perturbation_on_hand_made_sentences(rule, sentence, expected):
    assert mp.PERTURBATIONS[rule](sentence) == expected


def test_minimal_pairs_take_either_sentence_each_once_and_a_seeded_sample():
    pairs = [("A dog runs.", "A man is playing a guitar.", "x"), ("A man is playing a guitar.", "A man plays guitar.", "y"),
             ("A cat is here.", "There is a cat.", "z")]
    found = mp.minimal_pairs(pairs, "negation")
    assert [(p.sentence, p.paraphrase, p.source) for p in found] == [
        ("A man is playing a guitar.", "A dog runs.", "x"), ("A cat is here.", "There is a cat.", "z")]
    assert mp.minimal_pairs(pairs, "negation", limit=1, seed=0) in ([found[0]], [found[1]])
    assert mp.fooled([0.9, 0.5], [0.8, 0.6]).tolist() == [1.0, 0.0]
    with pytest.raises(KeyError, match="negation"):
        mp.minimal_pairs(pairs, "passive")


# ----------------------------------------------------------------------------- the exercises' checks
def test_exercise_1_and_2_checks_agree_with_the_solutions_and_reject_every_wrong_answer():
    from sbert_workbook.checks import nb09 as checks
    from sbert_workbook.lessons.nb09.thresholds import Task
    from sbert_workbook.solutions import nb09 as solutions

    dev_scores, dev_labels = scored_pairs(400, seed=4)
    test_scores, test_labels = scored_pairs(400, seed=5)
    task = Task(dev_scores, dev_labels, test_scores, test_labels, ([], []))
    truth = checks.ex09_1(task)
    assert solutions.ex09_1(task) == pytest.approx(truth, abs=1e-9)
    assert th.metrics_at(dev_scores, dev_labels, truth[0])["precision"] >= 0.9
    assert all(th.metrics_at(dev_scores, dev_labels, lower)["precision"] < 0.9 for lower in dev_scores[dev_scores < truth[0]])
    for wrong in solutions.ex09_1.wrong_answers.values():
        assert not np.allclose(wrong(task), truth, atol=1e-6)

    rng = np.random.default_rng(6)
    probabilities = np.clip(rng.normal(0.6, 0.3, 500), 0, 1)
    labels = (rng.uniform(size=500) < 0.3).astype(int)
    truth = checks.ex09_2(probabilities, labels)
    assert truth == pytest.approx(pr.expected_calibration_error(probabilities, labels), abs=1e-12)
    assert solutions.ex09_2(probabilities, labels) == pytest.approx(truth, abs=1e-12)
    for wrong in solutions.ex09_2.wrong_answers.values():
        assert wrong(probabilities, labels) != pytest.approx(truth, abs=1e-6)


def test_exercise_3_check_reads_the_model_and_accepts_a_tie():
    from types import SimpleNamespace

    from sbert_workbook.checks import nb09 as checks
    from sbert_workbook.lessons.nb09.lesson import ModelVectors
    from sbert_workbook.solutions import nb09 as solutions

    sentences = ["s", "p", "neg", "swap", "num", "ant"]
    vectors = np.array([[1, 0], [1, 0.5], [1, 0.1], [1, 0.1], [1, 0.9], [1, 0.1]], dtype=float)
    model = ModelVectors("m", "", "", "mean", {s: i for i, s in enumerate(sentences)}, vectors, vectors, "")
    minimal = {name: [mp.MinimalPair("s", "p", changed, "x")] for name, changed in
               (("negation", "neg"), ("swap", "swap"), ("number", "num"), ("antonym", "ant"))}
    lesson = SimpleNamespace(embedded=model, minimal=minimal)  # negation, swap, antonym beat the paraphrase; number not
    assert checks.ex09_3(lesson, "swap") == "swap" and checks.ex09_3(lesson, "number") == "negation"
    assert solutions.ex09_3(lesson) == "negation"
    assert [wrong(lesson) for wrong in solutions.ex09_3.wrong_answers.values()] == ["number", "number"]


def test_undefined_figures_give_undefined_intervals_and_separable_labels_no_warning():
    import warnings

    scores, labels = np.array([0.1, 0.2, 0.3, 0.4]), np.array([0, 0, 1, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        estimates = th.metric_interval(scores, labels, threshold=0.9, resamples=50)  # no pair is called related
        assert np.isnan(estimates["precision"].value) and np.isnan(estimates["precision"].low)
        assert estimates["recall"].value == 0
        fitted = pr.Logistic.fit(scores, labels)  # separable: no finite optimum, and no overflow
        assert np.all(np.isfinite(fitted(np.array([-5.0, 0.25, 5.0]))))
