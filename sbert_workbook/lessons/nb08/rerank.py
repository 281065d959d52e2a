"""Lesson 08 §6, retrieve, then rerank: a cross-encoder trained on STS-B reorders each query's top candidates, MRR@10
before and after with its interval (``08_what_an_embedding_costs.ipynb``)."""
from __future__ import annotations

import gc
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.heap import return_freed_memory
from sbert_workbook.lessons.nb08.lesson import NOTEBOOK, K, Lesson08, captioned
from sbert_workbook.lessons.report import Report, verdict


@dataclass
class RerankRun:
    """§6: what the cross-encoder is, and each k's per-query outcomes before and after reranking (03 §6's)."""

    trained: str
    outcomes: list
    queries: int
    steps: int = 0  # the cross-encoder's training steps


def reranked(lesson: Lesson08) -> RerankRun:
    """§6: a cross-encoder over RERANK_START's weights (None: MODEL's) trained RERANK_STEPS on STS-B train (04 §1's
    architecture, 03 §6's recipe), reranking float32 search's top k for RERANK_QUERIES queries, each k timed on its
    own. A reranker need not share the bi-encoder's weights: it reads the candidates' text, not their vectors."""
    from sbert_workbook.data.loaders import load_sts
    from sbert_workbook.evaluation.rerank import RetrievalSet, rerank_outcomes
    from sbert_workbook.training.cross_encoder import CrossEncoder
    from sbert_workbook.training.examples import sts_pairs
    from sbert_workbook.training.fitting import TrainingConfig, fit

    s = lesson.sizes
    return_freed_memory()  # §5's encoders and indexes leave freed pages a training run would otherwise add to
    start = lesson.encoder.resolved if s.RERANK_START is None else s.RERANK_START
    pair_model = CrossEncoder.from_pretrained(start, device=lesson.device, seed=lesson.seed)
    config = TrainingConfig(learning_rate=s.RERANK_LEARNING_RATE, max_steps=s.RERANK_STEPS, seed=lesson.seed,
                            device=str(lesson.device), save_checkpoints=False, progress=False)
    run = fit(pair_model, sts_pairs(load_sts("stsb", "train")), "cross_regression", config)
    n = min(s.RERANK_QUERIES or len(lesson.retrieval), len(lesson.retrieval))
    some = RetrievalSet(lesson.retrieval.queries[:n], lesson.retrieval.corpus, lesson.retrieval.match[:n],
                        f"the first {n} queries of §1's retrieval set")
    outcomes = rerank_outcomes(lesson.query_vectors[:n], lesson.corpus_vectors, pair_model.predict, some, s.RERANK_KS)
    trained = (f"{pair_model.name}, trained {run.steps} steps on STS-B train (batch {config.batch_size}, learning rate "
               f"{config.learning_rate:g}, {run.seconds:.0f} s)")
    steps = run.steps
    del pair_model, run
    gc.collect()
    return_freed_memory()  # the cross-encoder's weights, gradients and optimiser state go back before §7
    return RerankRun(trained, outcomes, n, steps)


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
        raised = changes[f"MRR@{K} reranked − search, top {o.k}"].direction == "higher"
        verdicts |= verdict(NOTEBOOK, f"reranking the top {o.k} surely raises MRR@{K} over search alone",
                            "yes" if raised else "no")
    return Report(f"Cross-encoder: {run.trained}; {run.queries} queries.",
                  captioned(table.round(4), lesson, "reciprocal rank 0 beyond the top 10; rerank ms: the cross-encoder's passes"),
                  *said, interval_forest_figure(changes, f"{lesson.encoder.name}: reranking's change of MRR@{K}",
                                                unit="MRR × 100"), verdicts=verdicts)
