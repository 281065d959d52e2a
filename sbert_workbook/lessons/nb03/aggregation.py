"""Lesson 03 §4: `all` against `wmean`, the same cosines aggregated two ways, with each gap's interval drawn
(``03_pooling_and_sts.ipynb``).

Each of STS12-16 is made of subsets; quick mode takes a few random pairs from every subset (so each has its own
correlation). The interval of ``wmean − all`` resamples each set's pairs within their subsets, so the subset sizes,
hence the ``wmean`` weights, stay as they are (:func:`sbert_workbook.evaluation.uncertainty.aggregation_gap_interval`).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sbert_workbook.data.loaders import load_sts
from sbert_workbook.evaluation import uncertainty
from sbert_workbook.evaluation.baselines import per_subset_sample
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.evaluation.sts import aggregate, score_pairs
from sbert_workbook.lessons.nb03.lesson import Lesson03
from sbert_workbook.lessons.report import Report

SETS_WITH_SUBSETS = ("sts12", "sts13", "sts14", "sts15", "sts16")


@dataclass
class Aggregations:
    """The sets (with their subsets), the cosine of each pair, and the table of both aggregations."""

    sets: dict
    cosines: dict[str, np.ndarray]
    table: pd.DataFrame
    split: str


def all_and_wmean(lesson: Lesson03) -> Aggregations:
    """§4's experiment: one embedding pass per set, Spearman × 100 aggregated as `all` and as `wmean`."""
    per_subset = lesson.sizes.PAIRS_PER_SUBSET
    sets = {name: per_subset_sample(load_sts(name), per_subset, seed=lesson.seed) for name in SETS_WITH_SUBSETS}
    cosines = {name: np.asarray(score_pairs(lambda s: lesson.views.encode(s, lesson.pooling), data)) for name, data in sets.items()}
    table = pd.DataFrame({name: {aggregation: aggregate(cosines[name], data, aggregation)["spearman"]
                                 for aggregation in ("all", "wmean")} for name, data in sets.items()})
    table.loc["wmean - all"] = table.loc["wmean"] - table.loc["all"]
    split = "test" + (f", {per_subset} random pairs per subset (quick mode)" if per_subset else ", all pairs")
    return Aggregations(sets, cosines, table, split)


def aggregation_report(lesson: Lesson03, run: Aggregations) -> Report:
    """§4: both aggregations per set, and each set's `wmean − all` with its interval, drawn."""
    gaps = {}
    for name, data in run.sets.items():
        with warnings.catch_warnings():  # a resample that draws one pair of a subset many times has no correlation there
            warnings.simplefilter("ignore", RuntimeWarning)
            interval = uncertainty.aggregation_gap_interval({name: data.scores}, {name: run.cosines[name]},
                                                            {name: data.subsets}, seed=lesson.seed)
        gaps[name] = uncertainty.Interval(-interval.difference, -interval.high, -interval.low, interval.method)  # wmean − all
    table = run.table.round(2).astype(object)
    table.loc["95 % interval"] = [f"[{gaps[name].low:+.2f}, {gaps[name].high:+.2f}]" for name in table.columns]
    table.loc["verdict"] = [gaps[name].verdict for name in table.columns]
    table = with_provenance(table, model=lesson.encoder,
                            pooling=lesson.pooling, similarity="cosine",
                            aggregation="per row: all (pairs pooled), wmean (subset correlations weighted by size), their "
                                        "difference and its 95 % bootstrap interval (pairs resampled within each subset)",
                            split=run.split)
    apart = [name for name, gap in gaps.items() if gap.apart]
    said = f"wmean and all are apart on {len(apart)} of {len(gaps)} sets" + (f" ({', '.join(apart)})" if apart else "")
    if len(apart) < len(gaps):
        said += f"; on {'the others' if apart else 'every set'} this sample of pairs cannot tell the two aggregations apart"
    return Report(f"{lesson.short_name}, {lesson.pooling} pooling, cosine, Spearman x 100, {run.split}:", table, said + ".",
                  interval_forest_figure(gaps, "wmean − all, per set (the same cosines aggregated two ways)"))
