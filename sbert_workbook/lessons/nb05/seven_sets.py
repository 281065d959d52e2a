"""Lesson 05, §7: every calibrator on every view, on the seven STS test sets, and the section's verdicts
(``05_bert_flow.ipynb``).

:func:`seven_set_tables` is the section's one experiment; the reports say which aggregation it used and why, show the
tables, and read each calibrator against the raw view with its 95 % paired-bootstrap interval (the verdicts
tools/story_check.py holds quick mode to). The published rows are in :mod:`sbert_workbook.lessons.nb05.published_rows`.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from sbert_workbook.calibration import calibrators, plots, protocol
from sbert_workbook.calibration.compare import compare_calibrators
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.provenance import table_caption, with_provenance
from sbert_workbook.lessons.nb05.lesson import NOTEBOOK, Lesson05
from sbert_workbook.lessons.report import Report, verdict

#: The views whose verdicts the section records: the two untrained ones and the (possibly trained) mean pooling.
VERDICT_VIEWS = ("static", "cls", "mean")


def core_rows(dim: int) -> list[str]:
    """The rows the verdicts read: SN, whitening (full and to d/3 dimensions) and the flow fitted on the target set."""
    return ["+SN", "+whitening", f"+whitening (to {calibrators.su_k(dim)} dims)", "+flow (target)"]


def methods_for(lesson: Lesson05, view: str) -> dict:
    """The rows of one view's table: ``{label: (make a calibrator, "target" or "nli")}``; raw is ``(None, None)``."""
    k, k_sn, dim, seed = lesson.results["natsv_k"][view], lesson.results["natsv_k_sn"][view], lesson.dim, lesson.seed
    return {
        "raw": (None, None),
        "+SN": (calibrators.StandardNormalization, "target"),
        f"+NATSV (k={k})": (lambda: calibrators.NullTopDirections(k), "target"),
        f"+SN+NATSV (k={k_sn})": (lambda: calibrators.Chain([calibrators.StandardNormalization(),
                                                             calibrators.NullTopDirections(k_sn)]), "target"),
        "+whitening": (calibrators.Whitening, "target"),
        f"+whitening (to {calibrators.su_k(dim)} dims)": (lambda: calibrators.Whitening(k=calibrators.su_k(dim)), "target"),
        "+flow (target)": (lambda: calibrators.FlowCalibrator(seed=seed, progress=False), "target"),
        "+flow (NLI)": (lambda: calibrators.FlowCalibrator(seed=seed, progress=False), "nli"),
    }


def smallest_subset(test_sets: dict) -> tuple[str, int]:
    """('set/subset', pairs) of the smallest subset over every test set."""
    sizes = {f"{name}/{subset}": int((np.asarray(data.subsets) == subset).sum())
             for name, data in test_sets.items() for subset in data.subset_names()}
    smallest = min(sizes, key=sizes.get)
    return smallest, sizes[smallest]


def seven_set_tables(lesson: Lesson05) -> dict[str, pd.DataFrame]:
    """§7: each view's table (rows: calibrators; columns: the seven sets and their average), every calibrator fitted
    on its set's own sentences (target) or on NLI's; ``wmean`` where every subset has enough pairs, else ``all``."""
    aggregation = "wmean" if all(protocol.wmean_is_defined(d) for d in lesson.test_sets.values()) else "all"
    tables, fitted = {}, {}
    with warnings.catch_warnings():
        if lesson.short:  # else the filters stay ("default" showed libraries' deprecations)
            warnings.simplefilter("ignore")  # too few sentences for a covariance: said in §1
        for view in lesson.views:
            tables[view], fitted[view] = compare_calibrators(lesson.bank, view, lesson.test_sets, lesson.fit_sentences,
                                                             methods_for(lesson, view), aggregation)
    lesson.results.update(tables=tables, fitted=fitted, aggregation=aggregation)
    return tables


def aggregation_report(lesson: Lesson05) -> Report:
    """§7: which aggregation the tables use, and why, from this run's smallest subset."""
    where, pairs = smallest_subset(lesson.test_sets)
    need = protocol.MIN_PAIRS_PER_SUBSET
    if lesson.results["aggregation"] == "wmean":
        said = (f"Aggregation: wmean, as BERT-flow and whitening report. Every subset of this run has at least {need} "
                f"pairs, the least a per-subset correlation takes (the smallest: {where}, {pairs} pairs).")
    else:
        said = (f"Aggregation: all. {where} has {pairs} pairs in this run, fewer than the {need} a per-subset "
                "correlation takes, so wmean is undefined there; raise PAIRS_PER_SET in SIZES to get wmean.")
    return Report(said)


def tables_report(lesson: Lesson05) -> Report:
    """§7: which aggregation the tables use and why, each view's seven-set table with its caption, and the static
    view's as a heatmap."""
    parts = list(aggregation_report(lesson).parts)
    for view, table in lesson.results["tables"].items():
        parts += [f"\n{view}: {table_caption(table)}", table.round(2)]
    static = lesson.results["tables"].get("static", next(iter(lesson.results["tables"].values())))
    return Report(*parts, plots.calibration_heatmap_figure(static.drop(columns="avg"), f"{lesson.described.split(' (')[0]}, "
                  f"{static.attrs['provenance']['pooling']} view: Spearman × 100 ({lesson.results['aggregation']})"))


def calibrated_minus_raw(lesson: Lesson05, view: str, label: str):
    """The seven-set mean of Spearman(calibrated) − Spearman(raw), with its 95 % paired-bootstrap interval."""
    fitted = lesson.results["fitted"][view]
    return protocol.difference_interval(lesson.embed(view), lesson.test_sets, lambda name: fitted[(label, name)],
                                        lambda _: None, lesson.results["aggregation"])


def calibration_verdicts(lesson: Lesson05) -> Report:
    """§7's conclusion: each core calibrator against the raw view, per verdict view, its interval drawn and recorded."""
    views = [view for view in VERDICT_VIEWS if view in lesson.views]
    intervals = {view: {label.lstrip("+"): calibrated_minus_raw(lesson, view, label) for label in core_rows(lesson.dim)}
                 for view in views}
    table = pd.DataFrame({view: {label: str(i) for label, i in row.items()} for view, row in intervals.items()}).T
    table = with_provenance(table, model=lesson.described, pooling="per row: the view",
                            aggregation=f"{lesson.results['aggregation']}, mean over the seven sets; each cell: calibrated "
                                        "minus raw [95 % interval]: verdict", split=lesson.split(),
                            unit="Spearman × 100 points; 95 % paired bootstrap over the test pairs, every set resampled")
    lines, recorded = [], {}
    for view, row in intervals.items():
        above = [label for label, i in row.items() if i.direction == "higher"]
        below = [label for label, i in row.items() if i.direction == "lower"]
        lines.append(f"{view}: above raw: {', '.join(above) or 'none'}; below raw: {', '.join(below) or 'none'}; "
                     "the rest tie with raw.")
        for label, interval in row.items():
            recorded.update(verdict(NOTEBOOK, f"{view}: {label} against raw", interval.direction))
    figure = interval_forest_figure({f"{view}: {label} − raw": i for view, row in intervals.items() for label, i in row.items()},
                                    title="Each calibrator minus the raw view, mean over the seven sets")
    return Report(table, *lines, figure, verdicts=recorded)
