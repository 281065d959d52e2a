"""A corpus that grows: every search's time and its recall against exact search, corpus size by corpus size
(``08_what_an_embedding_costs``, §5.1).

At a few thousand sentences every search is fast and exact search is hard to beat: a matrix product of all queries
against every stored vector. What the cheaper storages and the HNSW graph buy shows only as the corpus grows, since
exact search reads every vector for every query (time linear in the corpus) while a graph walk visits a few hundred.
:func:`corpus_sweep` measures, at each size, exact float32 search (the truth), int8, binary with rescoring and
usearch's HNSW: milliseconds per query (the fastest of a few repeats of searching every query at once) and recall@k
*against exact search*, the share of exact search's top k each one finds (no labels needed).
:func:`crossings` reads where each storage's time first drops below exact search's, and :func:`rescoring_sweep` how
recall and time move with the rescoring multiplier.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from sbert_workbook.cost.frontier import best_seconds
from sbert_workbook.cost.storage import ApproximateIndex, Float32, Int8, RescoredBinary, Storage

EXACT = "float32, exact"


def overlap_at_k(found: np.ndarray, truth: np.ndarray) -> float:
    """Mean over queries of |found ∩ truth| / k: recall@k against exact search's top k (1 when it finds them all)."""
    found, truth = np.asarray(found), np.asarray(truth)
    if found.shape != truth.shape:
        raise ValueError(f"found {found.shape} and exact {truth.shape} must both be (queries, k).")
    return float(np.mean([len(set(a) & set(b)) / truth.shape[1] for a, b in zip(found.tolist(), truth.tolist())]))


def _timed(storage: Storage, calibration, queries, corpus, k: int, repeats: int):
    storage.fit(calibration)
    stored = storage.store(corpus)
    found = storage.search(queries, stored, k)
    return found, 1000 * best_seconds(lambda: storage.search(queries, stored, k), repeats) / len(queries)


def sweep_storages(multiplier: int = 4) -> dict[str, Storage]:
    """The storages the sweep compares with exact float32 search."""
    return {"int8": Int8(), f"binary, rescored ×{multiplier}": RescoredBinary(multiplier),
            "HNSW (M = 16, ef = 64)": ApproximateIndex(connectivity=16, expansion=64)}


def corpus_sweep(queries: np.ndarray, corpus: np.ndarray, calibration: np.ndarray, sizes: Sequence[int], k: int = 10,
                 repeats: int = 2, multiplier: int = 4) -> pd.DataFrame:
    """One row per (corpus size, storage): ms per query and recall@k against exact search on the first ``size`` rows."""
    sizes = sorted({int(n) for n in sizes if k <= n <= len(corpus)})
    if not sizes:
        raise ValueError(f"No corpus size between k={k} and the {len(corpus)} vectors given; give sizes within them.")
    rows = []
    for n in sizes:
        part = corpus[:n]
        truth, exact_ms = _timed(Float32(), calibration, queries, part, k, repeats)
        rows.append({"corpus": n, "storage": EXACT, "ms per query": exact_ms, f"recall@{k} vs exact": 1.0})
        for name, storage in sweep_storages(multiplier).items():
            found, ms = _timed(storage, calibration, queries, part, k, repeats)
            rows.append({"corpus": n, "storage": name, "ms per query": ms, f"recall@{k} vs exact": overlap_at_k(found, truth)})
    table = pd.DataFrame(rows)
    exact = table[table["storage"] == EXACT].set_index("corpus")["ms per query"]
    table["time vs exact"] = table["ms per query"] / table["corpus"].map(exact)
    return table


def crossings(table: pd.DataFrame) -> dict[str, int | None]:
    """For each storage, the smallest corpus size from which on its ms per query stays below exact search's (None:
    not within the sizes measured)."""
    found = {}
    for name, rows in table[table["storage"] != EXACT].groupby("storage", sort=False):
        faster = rows.sort_values("corpus")["time vs exact"].to_numpy() < 1
        corpus = rows.sort_values("corpus")["corpus"].to_numpy()
        stays = [i for i in range(len(faster)) if faster[i:].all()]
        found[name] = int(corpus[stays[0]]) if stays else None
    return found


def rescoring_sweep(queries: np.ndarray, corpus: np.ndarray, calibration: np.ndarray, multipliers: Sequence[int],
                    k: int = 10, repeats: int = 2) -> pd.DataFrame:
    """Recall@k against exact search and ms per query of binary search rescored with the float query, per multiplier
    (1: the k binary candidates reordered, so binary's own recall)."""
    truth, _ = _timed(Float32(), calibration, queries, corpus, k, 1)
    rows = {}
    for m in multipliers:
        found, ms = _timed(RescoredBinary(m), calibration, queries, corpus, k, repeats)
        rows[m] = {"candidates read": m * k, f"recall@{k} vs exact": overlap_at_k(found, truth), "ms per query": ms}
    return pd.DataFrame(rows).T.rename_axis("rescoring multiplier")
