"""Lesson 09 §3: each model's cosine made a probability by isotonic regression and a logistic (Platt) fit on STS-B
dev, read on STS-B test with reliability diagrams and the expected calibration error, the raw cosine beside them,
and scikit-learn on the same pairs (``09_what_a_score_means.ipynb``)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from sbert_workbook.evaluation import probabilities as pr
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.thresholds import Estimate
from sbert_workbook.evaluation.uncertainty import Interval
from sbert_workbook.lessons.nb09.lesson import EMBEDDED_NAME, NOTEBOOK, RELATED_SCORE, Lesson09, captioned
from sbert_workbook.lessons.report import Report, verdict

METHODS = ("raw cosine", "isotonic", "logistic (Platt)")


@dataclass
class Calibrated:
    """Per model: the fitted maps, the test probabilities of each method, their ECE with intervals and each change."""

    maps: dict[str, tuple[pr.Isotonic, pr.Logistic]]
    dev: dict[str, tuple[np.ndarray, np.ndarray]]  # model: (dev cosines, dev labels)
    probabilities: dict[tuple[str, str], np.ndarray]  # (model, method): on the test pairs
    test_labels: np.ndarray
    ece: dict[tuple[str, str], Estimate]
    changes: dict[str, Interval]

    def test_probabilities(self, method: str = "raw cosine", model: str = EMBEDDED_NAME) -> np.ndarray:
        """The STS-B test probabilities ``method`` gives ``model``'s cosines (the embedded model unless named)."""
        if (model, method) not in self.probabilities:
            raise KeyError(f"No {method!r} for {model!r}; methods: {', '.join(METHODS)}; models: {', '.join(self.maps)}.")
        return self.probabilities[(model, method)]


def calibrate(lesson: Lesson09) -> Calibrated:
    """§3: fit isotonic regression and the logistic map on each model's STS-B dev cosines (related: scored 4 or more),
    apply them to the test cosines, and read every method's ECE on test with its interval."""
    s, dev, test = lesson.sizes, lesson.stsb["dev"], lesson.stsb["test"]
    dev_labels, labels = (dev.scores >= RELATED_SCORE).astype(int), (test.scores >= RELATED_SCORE).astype(int)
    maps, dev_scores, probabilities, ece, changes = {}, {}, {}, {}, {}
    for m in lesson.models.values():
        scores = m.cosines(dev.sentences1, dev.sentences2).astype(float)
        maps[m.name] = (pr.Isotonic.fit(scores, dev_labels), pr.Logistic.fit(scores, dev_labels))
        dev_scores[m.name] = (scores, dev_labels)
        cosines = m.cosines(test.sentences1, test.sentences2).astype(float)
        for method, p in zip(METHODS, (pr.cosine_as_probability(cosines), *(f(cosines) for f in maps[m.name]))):
            probabilities[(m.name, method)] = p
            ece[(m.name, method)] = pr.ece_interval(p, labels, resamples=s.RESAMPLES, seed=lesson.seed)
        for a, b in ((METHODS[1], METHODS[0]), (METHODS[2], METHODS[0]), (METHODS[2], METHODS[1])):
            changes[f"{m.name}: {a} − {b}"] = pr.ece_change(probabilities[(m.name, a)], probabilities[(m.name, b)], labels,
                                                            resamples=s.RESAMPLES, seed=lesson.seed)
    return Calibrated(maps, dev_scores, probabilities, labels, ece, changes)


def against_scikit_learn(run: Calibrated) -> pd.DataFrame:
    """Per model: the largest difference of our isotonic map, logistic map and reliability bins from scikit-learn's
    IsotonicRegression, unpenalised LogisticRegression and calibration_curve on the same pairs."""
    from sklearn.calibration import calibration_curve
    from sklearn.isotonic import IsotonicRegression
    from sklearn.linear_model import LogisticRegression

    rows = {}
    for model, (isotonic, logistic) in run.maps.items():
        scores, labels = run.dev[model]
        test = run.probabilities[(model, METHODS[0])]  # any probe points will do; the test cosines clipped
        theirs = IsotonicRegression(out_of_bounds="clip").fit(scores, labels)
        fitted = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(scores[:, None], labels)
        bins = pr.reliability(run.probabilities[(model, METHODS[1])], run.test_labels)
        share, mean = calibration_curve(run.test_labels, run.probabilities[(model, METHODS[1])], n_bins=pr.BINS)
        rows[model] = {"isotonic vs IsotonicRegression": np.abs(isotonic(test) - theirs.predict(test)).max(),
                       "logistic vs LogisticRegression": np.abs(logistic(test) - fitted.predict_proba(test[:, None])[:, 1]).max(),
                       "bins vs calibration_curve": max(np.abs(bins["share related"].to_numpy() - share).max(),
                                                        np.abs(bins["mean probability"].to_numpy() - mean).max())}
    return pd.DataFrame(rows).T


def calibration_report(lesson: Lesson09, run: Calibrated) -> Report:
    """§3: the reliability diagrams, every method's ECE with its interval, the changes drawn, scikit-learn beside ours,
    and the verdicts."""
    table = pd.DataFrame({f"{model}, {method}": {"ECE": e.value, "95 % interval": f"[{e.low:.3f}, {e.high:.3f}]",
                                                  "mean probability": float(np.mean(run.probabilities[(model, method)]))}
                          for (model, method), e in run.ece.items()}).T
    test = lesson.stsb["test"]
    table = captioned(table.round(4), lesson, f"ECE over {pr.BINS} equal bins of [0, 1], interval: bootstrap over the "
                      f"test pairs; related = scored {RELATED_SCORE:g} or more, {run.test_labels.mean():.0%} of them",
                      f"maps fitted on STS-B dev ({len(lesson.stsb['dev'])} pairs), read on STS-B test ({len(test)})")
    figure = make_subplots(rows=1, cols=len(run.maps), subplot_titles=list(run.maps), shared_yaxes=True)
    for column, model in enumerate(run.maps, start=1):
        figure.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", line={"dash": "dot", "color": "grey"},
                                    name="perfectly calibrated", showlegend=column == 1), row=1, col=column)
        for i, method in enumerate(METHODS):
            bins = pr.reliability(run.probabilities[(model, method)], run.test_labels)
            figure.add_trace(go.Scatter(x=bins["mean probability"], y=bins["share related"], mode="lines+markers",
                                        name=method, marker={"color": f"hsl({i * 120}, 60%, 45%)"},
                                        showlegend=column == 1, hovertext=[f"{n} pairs" for n in bins["pairs"]]),
                             row=1, col=column)
    figure.update_layout(title="Reliability on STS-B test: each bin's share of related pairs against its mean probability",
                         height=420)
    figure.update_xaxes(title_text="mean probability in the bin", range=[0, 1])
    figure.update_yaxes(title_text="share related", range=[0, 1], col=1)
    matched = captioned(against_scikit_learn(run), lesson, "largest absolute difference from scikit-learn on the same "
                        "pairs (maps fitted on dev, compared on the test cosines; bins of the isotonic probabilities)",
                        "STS-B dev and test")
    said, verdicts = [], {}
    for name, interval in run.changes.items():
        said.append(f"ECE × 100, {name}: {interval.described()}")
        verdicts |= verdict(NOTEBOOK, f"{name.replace(' − ', ' against ')}, ECE", interval.direction)
    return Report(table, figure, *said, interval_forest_figure(run.changes, "ECE changes on STS-B test", unit="ECE × 100"),
                  matched, verdicts=verdicts)
