"""The cost–quality plane: every storage's bytes per vector and search time beside its STS and retrieval quality,
measured in one run against float32 (``08_what_an_embedding_costs``).

Quality is read twice: STS (the seven sets' pairs, each scored as a float query against its stored partner; the mean
Spearman × 100 and its change against float32 with the paired bootstrap interval over the test pairs, as 07's ladder)
and retrieval (a :class:`~sbert_workbook.evaluation.rerank.RetrievalSet`: recall@k, the share of queries whose one
known match is in the top k, and MRR@k). Cost is read twice too: bytes per stored vector, and milliseconds per query
of the search alone, the best of a few repeats of searching every query at once, with its ratio to float32's
measured in the same run.
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sbert_workbook.cost.storage import Storage
from sbert_workbook.diagnosis.ladder import PairVectors, spearman_table
from sbert_workbook.evaluation.uncertainty import Interval, paired_bootstrap, paired_mean_interval


def recall_at_k(found: np.ndarray, match: Sequence[int]) -> float:
    """The share of queries whose match is among their found rows (each row of ``found`` is one query's top k)."""
    return float(np.mean([m in row for row, m in zip(np.asarray(found).tolist(), match)]))


def mrr_at_k(found: np.ndarray, match: Sequence[int]) -> float:
    """Mean over queries of 1 / (the match's rank among the found rows), 0 when it is not among them."""
    return float(np.mean([1 / (row.index(m) + 1) if m in row else 0.0 for row, m in zip(np.asarray(found).tolist(), match)]))


def best_seconds(run, repeats: int) -> float:
    """The fastest of ``repeats`` runs of ``run()`` (the others were slowed by something else on the machine)."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times)


@dataclass
class Frontier:
    """One row per storage (dimensions kept, bytes, ms per query, its ratio to float32, STS mean, recall@k, MRR@k) and each storage's
    STS change against float32 with its interval."""

    table: pd.DataFrame
    sts: pd.DataFrame  # Spearman × 100 per set and their mean, one row per storage
    intervals: dict[str, Interval]
    #: Each storage's similarity of every STS pair, per set, and the gold scores: what any two storages' paired
    #: bootstrap reads (e.g. the two best at one k).
    similarities: dict[str, dict[str, np.ndarray]] = field(default_factory=dict, repr=False)
    gold: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    #: Each storage's 1 or 0 per query: its match among the top k or not (what a paired interval of recall reads).
    hits: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    def change(self, storage: str, against: str, resamples: int = 2000, seed: int = 0) -> Interval:
        """STS of ``storage`` minus that of ``against`` on the same pairs, with its 95 % paired-bootstrap interval."""
        return paired_bootstrap(self.gold, self.similarities[storage], self.similarities[against], resamples=resamples,
                                seed=seed)

    def recall_change(self, storage: str, against: str, resamples: int = 2000, seed: int = 0) -> Interval:
        """recall@k of ``storage`` minus that of ``against`` on the same queries, with its 95 % paired bootstrap over them."""
        return paired_mean_interval(self.hits[storage], self.hits[against], resamples, seed, unit="queries")


def measure(storages: Sequence[Storage], calibration: np.ndarray, pairs: PairVectors, queries: np.ndarray,
            corpus: np.ndarray, match: Sequence[int], k: int = 10, repeats: int = 3, resamples: int = 2000,
            seed: int = 0) -> Frontier:
    """Fit each storage on ``calibration``, store the pairs' sentences and the retrieval ``corpus``, and measure it.

    The first storage is the reference (float32): its search time is every ratio's denominator and its STS scores
    every interval's other side."""
    gold, rows, table, hits = pairs.gold(), {}, {}, {}
    for storage in storages:
        storage.fit(calibration)
        rows[storage.name] = {name: storage.similarity(pairs.of(data.sentences1), storage.store(pairs.of(data.sentences2)))
                              for name, data in pairs.sets.items()}
        stored = storage.store(corpus)
        found = storage.search(queries, stored, k)
        seconds = best_seconds(lambda: storage.search(queries, stored, k), repeats)
        hits[storage.name] = np.array([m in row for row, m in zip(np.asarray(found).tolist(), match)], dtype=float)
        table[storage.name] = {"dimensions": storage.dimensions, "bytes per vector": storage.bytes_per_vector, "ms per query": 1000 * seconds / len(queries),
                               f"recall@{k}": recall_at_k(found, match), f"MRR@{k}": mrr_at_k(found, match)}
    reference = storages[0].name
    sts = spearman_table(rows, gold)
    frame = pd.DataFrame(table).T.astype({"dimensions": int, "bytes per vector": int})
    frame.insert(3, "time vs float32", frame["ms per query"] / frame.loc[reference, "ms per query"])
    frame.insert(4, "STS avg", sts["avg"])
    frame.index.name = "storage"
    frontier = Frontier(frame, sts, {}, rows, gold, hits)
    frontier.intervals = {name: frontier.change(name, reference, resamples, seed) for name in rows if name != reference}
    return frontier
