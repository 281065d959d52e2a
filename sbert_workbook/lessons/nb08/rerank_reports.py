"""Lesson 08 §6's report: recall and MRR before and after reranking, what reranking the top k can and cannot change,
and what the briefly trained cross-encoder can show (``08_what_an_embedding_costs.ipynb``)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.lessons.nb08.points import K, RerankRun
from sbert_workbook.lessons.nb08.setup import NOTEBOOK, Lesson08, captioned
from sbert_workbook.lessons.report import Report, verdict


def rerank_table(lesson: Lesson08, run: RerankRun) -> pd.DataFrame:
    """Per k: recall@K and MRR@K of float32 search alone and reranked, and the cross-encoder's ms per query."""
    rows = {}
    for o in run.outcomes:
        rows[f"float32, top {o.k} reranked"] = {f"recall@{K} search": np.mean(o.before >= 1 / K),
                                                 f"recall@{K} reranked": np.mean(o.after >= 1 / K),
                                                 f"MRR@{K} search": np.mean(np.where(o.before >= 1 / K, o.before, 0)),
                                                 f"MRR@{K} reranked": np.mean(np.where(o.after >= 1 / K, o.after, 0)),
                                                 "rerank ms per query": 1000 * o.seconds / len(o.before)}
    return pd.DataFrame(rows).T.rename_axis("retrieve, then rerank")


def rerank_report(lesson: Lesson08, run: RerankRun) -> Report:
    """§6: recall and MRR before and after reranking each k, the cross-encoder's cost, and each MRR change drawn."""
    from sbert_workbook.evaluation.uncertainty import paired_mean_interval

    table = rerank_table(lesson, run)
    changes = {f"MRR@{K} reranked − search, top {o.k}": paired_mean_interval(
        100 * np.where(o.after >= 1 / K, o.after, 0), 100 * np.where(o.before >= 1 / K, o.before, 0), seed=lesson.seed)
        for o in run.outcomes}
    said = [f"{name}: {interval.described()}" for name, interval in changes.items()]
    for o in run.outcomes:
        before, after = np.mean(o.before >= 1 / K), np.mean(o.after >= 1 / K)
        if o.k <= K:  # the same o.k candidates, reordered: which of them are in the top K cannot change
            said.append(f"top {o.k} reranked: recall@{K} {before:.3f} before and {after:.3f} after, as it must be: "
                        f"reordering the top {o.k} changes no query's set of {K}, so only MRR can move and the plane "
                        "shows this row as time spent.")
    said.append(f"What this run can show: {run.queries} queries, each with one labelled match (a near-paraphrase "
                f"ranked above it counts as a miss), reranked by a cross-encoder trained {run.steps} steps of STS-B "
                "regression from a bi-encoder checkpoint with a new, randomly started head: a trained reranker reads "
                "far more (query, passage) pairs with a retrieval objective.")
    verdicts = {}
    for o in run.outcomes:
        verdicts |= verdict(NOTEBOOK, f"reranking the top {o.k} against search alone, MRR@{K}",
                            changes[f"MRR@{K} reranked − search, top {o.k}"].direction)
    return Report(f"Cross-encoder: {run.trained}; {run.queries} queries.",
                  captioned(table.round(4), lesson, "reciprocal rank 0 beyond the top 10; rerank ms: the cross-encoder's passes"),
                  *said, interval_forest_figure(changes, f"{lesson.encoder.name}: reranking's change of MRR@{K}",
                                                unit="MRR × 100"), verdicts=verdicts)
