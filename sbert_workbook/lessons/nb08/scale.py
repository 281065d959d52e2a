"""Lesson 08 §5.1 and §5.2: a corpus that grows, and the encoder's own cost (``08_what_an_embedding_costs.ipynb``).

§5.1 grows §1's retrieval corpus with further sentences of the shipped data (SNLI and MultiNLI, then the STS and SICK
sentences), encodes them once, and runs :func:`sbert_workbook.cost.sweep.corpus_sweep` at every size of SWEEP_SIZES;
§5.2 prices the encoder itself in each precision against sentence-transformers' ``encode``
(:func:`sbert_workbook.cost.encoder_cost.encoder_rows`). Each has its report here, with its computed sentences and verdicts.
"""
from __future__ import annotations

import gc
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from sbert_workbook.cost import encoder_cost, sweep
from sbert_workbook.diagnosis.ladder import effect
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.heap import return_freed_memory
from sbert_workbook.lessons.nb08.points import K, RESCORE_MULTIPLIER
from sbert_workbook.lessons.nb08.setup import NOTEBOOK, Lesson08
from sbert_workbook.lessons.report import Report, verdict

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


@dataclass
class EncoderRun:
    """§5.2: one row per precision and each one's STS change against float32."""

    table: pd.DataFrame
    intervals: dict


def encoder_precisions(lesson: Lesson08) -> EncoderRun:
    """§5.2: the workbook's encode in float32, int8 (CPU) and bfloat16 (where the CPU has it), each timed against
    sentence-transformers' encode in one run, each scored on the STS pairs."""
    import contextlib
    import io

    from sbert_workbook.encoding.encoder import load_encoder

    def load(precision):
        if precision == "float32":
            return lesson.encoder  # the lesson's own, as loaded
        with contextlib.redirect_stdout(io.StringIO()):  # the same model again: its load report was printed at set-up
            return load_encoder(str(lesson.encoder.resolved.path), device=lesson.device, precision=precision)

    s = lesson.sizes
    table, intervals = encoder_cost.encoder_rows(load, lesson.pairs, lesson.pairs.corpus[:s.ENCODER_TIMED_SENTENCES],
                                                 encoder_cost.available_precisions(lesson.device.type), s.ENCODER_REPEATS,
                                                 resamples=s.RESAMPLES, seed=lesson.seed)
    gc.collect()  # the int8 and bfloat16 copies and sentence-transformers' model are gone: hand their pages back
    return_freed_memory()
    return EncoderRun(table, intervals)


def encoder_report(lesson: Lesson08, run: EncoderRun) -> Report:
    """§5.2: each precision's speed against sentence-transformers and its STS change, drawn, and their verdicts."""
    table = with_provenance(run.table.round(3), model=lesson.encoder,
                            pooling=lesson.encoder.modules.describe().removeprefix("pooling: "),
                            aggregation=f"ms: the workbook's encode and sentence-transformers' (float32) on the same "
                                        f"{run.table.attrs['timed']}; STS avg: mean Spearman × 100 over the seven sets",
                            split=lesson.split.split("; retrieval")[0])
    said, verdicts = [], {}
    for precision, interval in run.intervals.items():
        ratio = run.table.loc[precision, "× sentence-transformers' speed"]
        said.append(f"{precision}: {ratio:.2f}× sentence-transformers' speed; STS change against float32 "
                    f"{interval.described()} ({effect(interval)})")
        verdicts |= verdict(NOTEBOOK, f"the encoder in {precision} against float32, STS", effect(interval))
    figure = interval_forest_figure({f"{p} − float32": i for p, i in run.intervals.items()},
                                    f"{lesson.encoder.name}: STS change of the encoder's precision")
    return Report(table, *said, figure, verdicts=verdicts)
