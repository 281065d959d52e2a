"""Lesson 09 §1: where the cosines of related and unrelated pairs fall for each model, raw and whitened, and what a
monotone map of the score changes (``09_what_a_score_means.ipynb``)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots
from scipy import stats

from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.uncertainty import Interval, paired_bootstrap, paired_mean_interval
from sbert_workbook.lessons.nb09.lesson import NOTEBOOK, RELATED_SCORE, UNRELATED_SCORE, Lesson09, captioned
from sbert_workbook.lessons.report import Report, verdict

GROUPS = (f"STS-B ≥ {RELATED_SCORE:g}", f"STS-B < {UNRELATED_SCORE:g}", "SNLI entailment", "SNLI contradiction",
          "random pairs")
VIEWS = ("raw", "whitened")


def _mean(values: np.ndarray) -> float:
    return float(np.mean(values)) if len(values) else float("nan")  # a small sample may hold no pair of a group


def _median(values: np.ndarray) -> float:
    return float(np.median(values)) if len(values) else float("nan")


@dataclass
class Distributions:
    """The cosines of every group of test pairs for each (model, view), and each comparison's interval."""

    cosines: dict[tuple[str, str], dict[str, np.ndarray]]
    intervals: dict[str, Interval]


def test_groups(lesson: Lesson09) -> dict[str, tuple[list[str], list[str]]]:
    """{group: (first sentences, second sentences)} of the test splits; random pairs are SNLI test premises, each
    with the entailed hypothesis of the next premise."""
    test, snli = lesson.stsb["test"], lesson.snli["test"]
    pick = lambda keep: ([a for a, k in zip(test.sentences1, keep) if k], [b for b, k in zip(test.sentences2, keep) if k])  # noqa: E731
    return {GROUPS[0]: pick(test.scores >= RELATED_SCORE), GROUPS[1]: pick(test.scores < UNRELATED_SCORE),
            GROUPS[2]: (snli.premises, snli.entailments), GROUPS[3]: (snli.premises, snli.contradictions),
            GROUPS[4]: (snli.premises, snli.entailments[1:] + snli.entailments[:1])}


def where_scores_fall(lesson: Lesson09) -> Distributions:
    """Every group's cosines for every model, raw and whitened; per model, contradiction against entailment and against
    random pairs (same premises), and whitening against raw on random pairs, each with its paired interval."""
    groups, s = test_groups(lesson), lesson.sizes
    cosines = {(m.name, view): {g: m.cosines(*pairs, whitened=view == "whitened") for g, pairs in groups.items()}
               for m in lesson.models.values() for view in VIEWS}
    intervals = {}
    for m in lesson.models.values():
        raw, white = cosines[(m.name, "raw")], cosines[(m.name, "whitened")]
        for label, a, b in (("SNLI contradiction − entailment", raw[GROUPS[3]], raw[GROUPS[2]]),
                            ("SNLI contradiction − random pairs", raw[GROUPS[3]], raw[GROUPS[4]]),
                            ("random pairs, whitened − raw", white[GROUPS[4]], raw[GROUPS[4]])):
            intervals[f"{m.name}: {label}"] = paired_mean_interval(a, b, s.RESAMPLES, lesson.seed, unit="premises")
    return Distributions(cosines, intervals)


def where_report(lesson: Lesson09, run: Distributions) -> Report:
    """§1: every group's mean and median cosine per model and view, drawn; the contrasts with their intervals; verdicts."""
    rows = {f"{model}, {view}": {g: _mean(v) for g, v in groups.items()} for (model, view), groups in run.cosines.items()}
    table = captioned(pd.DataFrame(rows).T[list(GROUPS)].round(3), lesson, "mean cosine of each group of test pairs "
                      "(medians: the boxes); random pairs: an SNLI test premise with the next premise's entailed hypothesis",
                      lesson.split)
    counts = ", ".join(f"{g} {len(v)}" for g, v in next(iter(run.cosines.values())).items())
    figure = make_subplots(rows=1, cols=len(run.cosines), shared_yaxes=True,
                           subplot_titles=[f"{model}, {view}" for model, view in run.cosines])
    for column, groups in enumerate(run.cosines.values(), start=1):
        for i, (group, values) in enumerate(groups.items()):
            figure.add_trace(go.Box(y=values, name=group, marker_color=f"hsl({i * 70}, 60%, 45%)", showlegend=column == 1,
                                    boxpoints=False), row=1, col=column)
    figure.update_layout(title="Where the cosines fall: related and unrelated test pairs", yaxis_title="cosine",
                         height=420)
    figure.update_xaxes(showticklabels=False)
    said, verdicts = [f"pairs in each group: {counts}."], {}
    for m in lesson.models:
        groups = run.cosines[(m, "raw")]
        said.append(f"{m}: the unrelated STS-B pairs' median cosine is {_median(groups[GROUPS[1]]):.2f}, the related "
                    f"pairs' {_median(groups[GROUPS[0]]):.2f}; a random SNLI pair's {_median(groups[GROUPS[4]]):.2f}.")
        for label in ("SNLI contradiction − entailment", "SNLI contradiction − random pairs", "random pairs, whitened − raw"):
            interval = run.intervals[f"{m}: {label}"]
            said.append(f"{m}, {label} (mean cosine): {interval.described()}")
            verdicts |= verdict(NOTEBOOK, f"{m}: {label.replace(' − ', ' against ')}, mean cosine", interval.direction)
    return Report(table, figure, *said, interval_forest_figure(run.intervals, "Cosine differences, same premises",
                                                               unit="cosine"), verdicts=verdicts)


def monotone_report(lesson: Lesson09, rescale) -> Report:
    """§1: STS-B test Spearman of each model's cosine, of ``rescale`` of it and of the whitened cosine; what a threshold
    of 0.5 calls related before and after ``rescale``; whether the map kept the order of the scores it was given."""
    test, s = lesson.stsb["test"], lesson.sizes
    rows, said, verdicts = {}, [], {}
    for m in lesson.models.values():
        raw = m.cosines(test.sentences1, test.sentences2).astype(np.float64)
        mapped = np.asarray(rescale(raw), dtype=np.float64)
        white = m.cosines(test.sentences1, test.sentences2, whitened=True).astype(np.float64)
        spearman = {name: 100 * stats.spearmanr(values, test.scores).statistic
                    for name, values in (("cosine", raw), ("your map of it", mapped), ("whitened cosine", white))}
        rows[m.name] = {**spearman, "share ≥ 0.5, cosine": float(np.mean(raw >= 0.5)),
                        "share ≥ 0.5, your map": float(np.mean(mapped >= 0.5))}
        order = np.argsort(raw, kind="stable")
        kept = bool(np.all(np.diff(mapped[order]) >= 0))
        moved = spearman["your map of it"] - spearman["cosine"]
        whitening = paired_bootstrap(test.scores, white, raw, s.RESAMPLES, lesson.seed)
        said.append(f"{m.name}: your map {'keeps' if kept else 'does not keep'} the order of the {len(raw)} cosines and "
                    f"moves STS-B Spearman by {moved:+.6f} points; at 0.5 the cosine calls {np.mean(raw >= 0.5):.0%} of "
                    f"the pairs related, your map {np.mean(mapped >= 0.5):.0%}. Whitening, which moves the vectors, not "
                    f"the score: {whitening.described()}.")
        verdicts |= verdict(NOTEBOOK, f"{m.name}: a monotone map of the cosine, STS-B Spearman",
                            "unchanged" if abs(moved) < 1e-9 else "changed")
        verdicts |= verdict(NOTEBOOK, f"{m.name}: whitened against raw cosine, STS-B Spearman", whitening.direction)
    table = captioned(pd.DataFrame(rows).T.round(3), lesson, "Spearman × 100 with the gold scores; share: of the test "
                      "pairs at or above 0.5", f"STS-B test, {len(test)} pairs")
    return Report(table, *said, verdicts=verdicts)
