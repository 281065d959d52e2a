"""Lesson 08 §5 and §5.1, searching many vectors: an approximate index (HNSW) against exact search, and a corpus that
grows, each search timed and read against exact search's top 10 (``08_what_an_embedding_costs.ipynb``)."""
from __future__ import annotations

import gc
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from sbert_workbook.cost import frontier, sweep
from sbert_workbook.cost.storage import ApproximateIndex, Float32
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.heap import return_freed_memory
from sbert_workbook.lessons.nb08.lesson import NOTEBOOK, K, Lesson08, captioned, measure
from sbert_workbook.lessons.nb08.quantization import RESCORE_MULTIPLIER
from sbert_workbook.lessons.report import Report, verdict


@dataclass
class IndexRun:
    """§5: exact search against the HNSW graph, and the share of exact search's top K the graph finds."""

    frontier: frontier.Frontier
    overlap: float


def approximate_index(lesson: Lesson08) -> IndexRun:
    """§5: exact float32 search against usearch's HNSW graph over the same vectors."""
    graph = ApproximateIndex(connectivity=16, expansion=64)
    return IndexRun(measure(lesson, [Float32(), graph]), exact_overlap(lesson, graph))


def exact_overlap(lesson: Lesson08, storage) -> float:
    """The share of exact float32 search's top K that ``storage`` finds too, over all queries."""
    exact = Float32().fit(lesson.calibration)
    truth = exact.search(lesson.query_vectors, exact.store(lesson.corpus_vectors), K)
    storage.fit(lesson.calibration)
    found = storage.search(lesson.query_vectors, storage.store(lesson.corpus_vectors), K)
    return float(np.mean([len(set(a) & set(b)) / K for a, b in zip(truth.tolist(), found.tolist())]))


def index_report(lesson: Lesson08, run: IndexRun) -> Report:
    """§5: exact search against the HNSW graph: time, recall, and how much of exact search's top k it finds."""
    table = captioned(run.frontier.table.round(4), lesson, "the same float32 vectors, searched two ways")
    hnsw = run.frontier.table.index[1]
    ratio = run.frontier.table.loc[hnsw, "time vs float32"]
    said = (f"The graph finds {100 * run.overlap:.1f} % of exact search's top {K} and answers in {ratio:.2f}× its time, on "
            f"{len(lesson.retrieval.corpus):,} sentences: exact search reads every vector, so its time grows with the "
            "corpus while the graph's walk grows with its logarithm.")
    return Report(table, said)


#: Where §5.1 takes sentences from after the NLI ones: every split of these STS sets (test pairs too: a corpus to search).
#: The share of exact search's top K a storage must find for §5.1's verdict that it finds them.
FOUND = 0.95
MORE_SENTENCES = (("stsb", ("train", "dev", "test")), ("sickr", ("train", "trial", "test")),
                  *((f"sts{year}", ("test",)) for year in (12, 13, 14, 15, 16)))


def sweep_sentences(count: int, exclude: set[str]) -> list[str]:
    """``count`` distinct sentences of the shipped data in none of ``exclude``: SNLI and MultiNLI dev, then
    :data:`MORE_SENTENCES`; fewer if the data holds fewer."""
    from sbert_workbook.data.corpora import nli_sentences
    from sbert_workbook.data.loaders import load_sts

    pool = dict.fromkeys(nli_sentences())
    for name, splits in MORE_SENTENCES:
        for split in splits:
            data = load_sts(name, split)
            pool.update(dict.fromkeys(data.sentences1 + data.sentences2))
    return [s for s in pool if s not in exclude][:count]


@dataclass
class SweepRun:
    """§5.1: the sweep table, where each storage crosses exact search, and the rescoring multipliers at the largest size."""

    table: pd.DataFrame
    crossings: dict
    rescoring: pd.DataFrame
    queries: int
    largest: int


def grown_corpus(lesson: Lesson08, size: int) -> np.ndarray:
    """§1's corpus vectors, then those of further shipped sentences (encoded here), ``size`` rows at most."""
    if size <= len(lesson.corpus_vectors):
        return lesson.corpus_vectors[:size]
    exclude = set(lesson.retrieval.corpus) | set(lesson.retrieval.queries)
    more = sweep_sentences(size - len(lesson.corpus_vectors), exclude)
    encoded = lesson.encoder.encode(more, batch_size=64).float().numpy()
    return np.vstack([lesson.corpus_vectors, encoded])


def corpus_growth(lesson: Lesson08) -> SweepRun:
    """§5.1: exact float32, int8, rescored binary and HNSW at every corpus size of SWEEP_SIZES, and the rescoring
    multipliers of RESCORE_MULTIPLIERS at the largest size."""
    s = lesson.sizes
    corpus = grown_corpus(lesson, max(s.SWEEP_SIZES))
    queries = lesson.query_vectors[:s.SWEEP_QUERIES]
    table = sweep.corpus_sweep(queries, corpus, lesson.calibration, s.SWEEP_SIZES, K, s.SWEEP_REPEATS, RESCORE_MULTIPLIER)
    largest = int(table["corpus"].max())
    rescoring = sweep.rescoring_sweep(queries, corpus[:largest], lesson.calibration, s.RESCORE_MULTIPLIERS, K, s.SWEEP_REPEATS)
    del corpus  # the grown corpus and every size's index: only the tables are kept
    gc.collect()
    return_freed_memory()
    return SweepRun(table, sweep.crossings(table), rescoring, len(queries), largest)


def sweep_report(lesson: Lesson08, run: SweepRun) -> Report:
    """§5.1: ms per query and recall against exact search at every size, drawn; where each storage crosses exact search;
    recall and time against the rescoring multiplier."""
    wide = run.table.pivot(index="corpus", columns="storage", values=["ms per query", f"recall@{K} vs exact"])
    caption = dict(model=lesson.encoder, pooling=lesson.encoder.modules.describe().removeprefix("pooling: "),
                   split=f"{run.queries} of §1's queries against §1's corpus grown with further shipped sentences")
    table = with_provenance(wide.round(4), aggregation="ms per query: all queries searched at once, the fastest of "
                            f"{lesson.sizes.SWEEP_REPEATS}, divided by the queries; recall@{K} vs exact: the share of "
                            f"exact float32 search's top {K} found, mean over queries", **caption)
    figure = go.Figure()
    for name, rows in run.table.groupby("storage", sort=False):
        figure.add_trace(go.Scatter(x=rows["corpus"], y=rows["ms per query"], mode="lines+markers", name=name))
    figure.update_layout(title=f"{lesson.encoder.name}: ms per query as the corpus grows", xaxis_title="sentences (log)",
                         yaxis_title="ms per query (log)", xaxis_type="log", yaxis_type="log", height=380)
    said = "; ".join(f"{name}: faster than exact search from {n:,} sentences on" if n else
                     f"{name}: not faster than exact search at any size measured (up to {run.largest:,})"
                     for name, n in run.crossings.items())
    rescoring = with_provenance(run.rescoring.round(4), aggregation=f"at {run.largest:,} sentences; recall against exact "
                                "float32 search; ms as above", **caption)
    verdicts = {}  # recall, not time: where the curves cross depends on the machine; what each search finds does not
    at_largest = run.table[run.table["corpus"] == run.largest].set_index("storage")[f"recall@{K} vs exact"]
    for name in at_largest.index.drop(sweep.EXACT):
        claim = f"{name.split(' (')[0]} finds {100 * FOUND:.0f} % or more of exact search's top {K} at the largest corpus"
        verdicts |= verdict(NOTEBOOK, claim, "yes" if at_largest[name] >= FOUND else "no")
    return Report(table, figure, f"Where each crosses exact search: {said}.", rescoring, verdicts=verdicts)
