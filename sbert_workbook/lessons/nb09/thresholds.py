"""Lesson 09 §2: thresholds chosen on one split by three rules, read on another with intervals, how far they move
between datasets and models, and sentence-transformers' BinaryClassificationEvaluator on the same pairs
(``09_what_a_score_means.ipynb``)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from sbert_workbook.evaluation import thresholds as th
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.uncertainty import Interval
from sbert_workbook.lessons.nb09.lesson import EMBEDDED_NAME, NOTEBOOK, RELATED_SCORE, Lesson09, captioned
from sbert_workbook.lessons.report import Report, verdict

TARGET_PRECISION = 0.9
RULES = ("best accuracy", "best F1", f"precision ≥ {TARGET_PRECISION:g}")
DATASETS = ("STS-B", "SNLI")


@dataclass(frozen=True)
class Task:
    """One model's cosines and 0/1 labels on one dataset's choosing (dev) and testing split, and their sentences."""

    dev_scores: np.ndarray
    dev_labels: np.ndarray
    test_scores: np.ndarray
    test_labels: np.ndarray
    dev_pairs: tuple[list[str], list[str]]


@dataclass
class Thresholds:
    tasks: dict[tuple[str, str], Task]  # (model, dataset)
    chosen: dict[tuple[str, str, str], float | None]  # (model, dataset, rule): the threshold
    tested: dict[tuple[str, str, str], dict[str, th.Estimate]]
    transfers: dict[str, Interval]

    def task(self, dataset: str = "STS-B", model: str = EMBEDDED_NAME) -> Task:
        """The cosines and labels of ``model`` (the embedded one unless named) on ``dataset``."""
        if (model, dataset) not in self.tasks:
            raise KeyError(f"No task {dataset!r} for {model!r}: there are {sorted(self.tasks)}.")
        return self.tasks[(model, dataset)]


def tasks_of(lesson: Lesson09) -> dict[tuple[str, str], Task]:
    """Each model's STS-B task (related: scored 4 or more) and SNLI task (entailment against contradiction)."""
    tasks = {}
    for m in lesson.models.values():
        dev, test = lesson.stsb["dev"], lesson.stsb["test"]
        tasks[(m.name, "STS-B")] = Task(m.cosines(dev.sentences1, dev.sentences2), (dev.scores >= RELATED_SCORE).astype(int),
                                        m.cosines(test.sentences1, test.sentences2),
                                        (test.scores >= RELATED_SCORE).astype(int), (dev.sentences1, dev.sentences2))
        (d1, d2, dl), (t1, t2, tl) = lesson.snli["dev"].binary(), lesson.snli["test"].binary()
        tasks[(m.name, "SNLI")] = Task(m.cosines(d1, d2), dl, m.cosines(t1, t2), tl, (d1, d2))
    return tasks


def rule_threshold(rule: str, scores, labels) -> float | None:
    if rule == RULES[0]:
        return float(th.best_accuracy(scores, labels)[1])
    if rule == RULES[1]:
        return float(th.best_f1(scores, labels)[3])
    return th.precision_target(scores, labels, TARGET_PRECISION)


def choose_thresholds(lesson: Lesson09) -> Thresholds:
    """§2: every rule's threshold on each model's dev split of each dataset, its metrics on the test split with their
    intervals, and how the F1 threshold travels: STS-B's on SNLI, and the embedded model's on another model's scores."""
    s, tasks = lesson.sizes, tasks_of(lesson)
    chosen = {(m, d, r): rule_threshold(r, t.dev_scores, t.dev_labels) for (m, d), t in tasks.items() for r in RULES}
    tested = {key: th.metric_interval(tasks[key[:2]].test_scores, tasks[key[:2]].test_labels, t, s.RESAMPLES, lesson.seed)
              for key, t in chosen.items() if t is not None}
    transfers, f1 = {}, RULES[1]
    for m in lesson.models:
        snli = tasks[(m, "SNLI")]
        transfers[f"{m}: SNLI test F1, STS-B's threshold − SNLI's own"] = th.paired_metric_change(
            snli.test_scores, chosen[(m, "STS-B", f1)], snli.test_scores, chosen[(m, "SNLI", f1)], snli.test_labels,
            resamples=s.RESAMPLES, seed=lesson.seed)
        if m != EMBEDDED_NAME:
            own = tasks[(m, "STS-B")]
            transfers[f"{m}: STS-B test F1, the embedded model's threshold − its own"] = th.paired_metric_change(
                own.test_scores, chosen[(EMBEDDED_NAME, "STS-B", f1)], own.test_scores, chosen[(m, "STS-B", f1)],
                own.test_labels, resamples=s.RESAMPLES, seed=lesson.seed)
    return Thresholds(tasks, chosen, tested, transfers)


class _GivenVectors:
    """Stands for a SentenceTransformer whose ``encode`` returns vectors given beforehand (the evaluator's one call)."""

    def __init__(self, table: dict[str, np.ndarray]):
        self.table = table

    def encode(self, sentences, **_):
        return np.stack([self.table[s] for s in sentences])


def evaluator_metrics(first: np.ndarray, second: np.ndarray, labels) -> dict[str, float]:
    """sentence-transformers' BinaryClassificationEvaluator (cosine) on pairs whose two sides have the vectors
    ``first`` and ``second``: its accuracy, F1, their thresholds, precision, recall and average precision."""
    from sentence_transformers.sentence_transformer.evaluation import BinaryClassificationEvaluator

    left, right = [f"a{i}" for i in range(len(first))], [f"b{i}" for i in range(len(second))]
    evaluator = BinaryClassificationEvaluator(left, right, [int(x) for x in labels], similarity_fn_names=["cosine"],
                                              write_csv=False)
    table = {**dict(zip(left, first)), **dict(zip(right, second))}
    return {key: float(value) for key, value in evaluator.compute_metrics(_GivenVectors(table))["cosine"].items()}


def evaluator_differences(lesson: Lesson09, run: Thresholds, best_f1_threshold=None) -> pd.DataFrame:
    """Per model and dataset (dev split): the largest difference between the evaluator's figures and this lesson's,
    and between its F1 threshold and ``best_f1_threshold`` (the notebook's) when given."""
    rows = {}
    for (model, dataset), task in run.tasks.items():
        m = lesson.models[model]
        first, second = (m.vectors[[m.row[s] for s in side]] for side in task.dev_pairs)
        theirs = evaluator_metrics(first, second, task.dev_labels)
        accuracy, accuracy_t = th.best_accuracy(task.dev_scores, task.dev_labels)
        f1, precision, recall, f1_t = th.best_f1(task.dev_scores, task.dev_labels)
        ours = {"accuracy": accuracy, "accuracy_threshold": accuracy_t, "f1": f1, "f1_threshold": f1_t,
                "precision": precision, "recall": recall, "ap": th.average_precision(task.dev_scores, task.dev_labels)}
        row = {"largest difference": max(abs(float(ours[k]) - theirs[k]) for k in ours)}
        if best_f1_threshold is not None:
            row["yours: F1 threshold difference"] = abs(float(best_f1_threshold(task.dev_scores, task.dev_labels)) - theirs["f1_threshold"])
        rows[f"{model}, {dataset} dev"] = row
    return pd.DataFrame(rows).T


def thresholds_report(lesson: Lesson09, run: Thresholds, best_f1_threshold=None) -> Report:
    """§2: every threshold with its test figures and intervals; the evaluator's figures beside ours and the notebook's
    F1 threshold; how far each threshold moves between datasets and models, drawn; the verdicts."""
    rows, verdicts, said = [], {}, []
    for (model, dataset, rule), t in run.chosen.items():
        task, tested = run.task(dataset, model), run.tested.get((model, dataset, rule))
        metric = {"best accuracy": "accuracy", "best F1": "F1"}.get(rule, "precision")
        row = {"model": model, "dataset": dataset, "rule": rule, "threshold": np.nan if t is None else t,
               "dev: the rule's metric": np.nan if t is None else th.metrics_at(task.dev_scores, task.dev_labels, t)[metric]}
        row |= {f"test {name}": "no threshold reaches it" if tested is None else str(tested[name]) for name in th.METRICS}
        rows.append(row)
        if rule == RULES[2] and tested is not None:
            p = tested["precision"]
            against = Interval(p.value - TARGET_PRECISION, p.low - TARGET_PRECISION, p.high - TARGET_PRECISION, p.method)
            said.append(f"{model}, {dataset}: precision on test at dev's precision-{TARGET_PRECISION:g} threshold "
                        f"{p.described()}: against {TARGET_PRECISION:g}, {against.direction}")
    table = captioned(pd.DataFrame(rows).set_index(["model", "dataset", "rule"]).round(4), lesson,
                      "threshold chosen on dev; test figures at it, each with its 95 % bootstrap interval over the test "
                      "pairs (the threshold fixed)", lesson.split)
    matched = evaluator_differences(lesson, run, best_f1_threshold)
    matched = captioned(matched, lesson, "largest absolute difference, over accuracy, F1, their thresholds, precision, "
                        "recall and average precision, between BinaryClassificationEvaluator and this lesson",
                        "the dev splits")
    same = bool((matched.to_numpy() <= 1e-6).all())
    said.append(f"BinaryClassificationEvaluator on the same vectors: {'the same' if same else 'NOT the same'} to 1e-6.")
    aps = {f"{m}, {d}": th.average_precision(t.test_scores, t.test_labels) for (m, d), t in run.tasks.items()}
    said.append("average precision on test (no threshold): " + "; ".join(f"{k} {v:.3f}" for k, v in aps.items()))
    said.append("F1 thresholds: " + "; ".join(f"{m}: STS-B {run.chosen[(m, 'STS-B', RULES[1])]:.3f}, SNLI "
                                              f"{run.chosen[(m, 'SNLI', RULES[1])]:.3f}" for m in lesson.models))
    for name, interval in run.transfers.items():
        said.append(f"{name}, F1 × 100: {interval.described()}")
        verdicts |= verdict(NOTEBOOK, name.replace(" − ", " against "), interval.direction)
    return Report(table, matched, *said, interval_forest_figure(run.transfers, "A threshold carried elsewhere",
                                                                unit="F1 × 100"), verdicts=verdicts)
