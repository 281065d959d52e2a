"""Lesson 08's set-up and §1: the model, the STS pairs, the retrieval set and the calibration sentences, all encoded
once, what one query's encoding costs, what float32 vectors cost, and how every later section measures a way of keeping
the vectors against float32 (:func:`measure`, :func:`changes_said`, :func:`forest`) (``08_what_an_embedding_costs.ipynb``).

The retrieval set is 03 §6's: each STS-B test pair scored 4 or more gives a query (its first sentence) and one known
match (its second), hidden among every second sentence of STS-B test and, to make the search a search, SNLI and
MultiNLI sentences up to CORPUS_SIZE. The calibration sentences (int8's ranges, PCA-k, whitening-k) are further NLI
sentences that are in neither: an index is calibrated before it holds its documents.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from sbert_workbook.cost import frontier
from sbert_workbook.cost.frontier import Frontier
from sbert_workbook.cost.quantization import bytes_per_vector
from sbert_workbook.data.corpora import nli_sentences
from sbert_workbook.data.loaders import load_sts
from sbert_workbook.diagnosis.ladder import PairVectors, corpus_of, effect, sts_sample
from sbert_workbook.encoding.encoder import Encoder, load_encoder
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.rerank import RetrievalSet, paraphrase_retrieval_set
from sbert_workbook.lessons.report import Report
from sbert_workbook.lessons.setup import Lesson
from sbert_workbook.lessons.setup import begin as begin_lesson

NOTEBOOK = "08_what_an_embedding_costs"
#: Every search keeps the top K: recall@K and MRR@K.
K = 10
#: STS-B's "mostly equivalent": the pairs whose first sentence becomes a query (03 §6).
MATCH_SCORE = 4.0
MILLION = 1_000_000


@dataclass
class Lesson08(Lesson):
    encoder: Encoder | None = None
    pairs: PairVectors | None = None  # the STS samples' sentences and their float32 vectors
    retrieval: RetrievalSet | None = None
    query_vectors: np.ndarray | None = None
    corpus_vectors: np.ndarray | None = None
    calibration: np.ndarray | None = None  # vectors of sentences in neither the corpus nor the STS samples
    encode_ms: float = 0.0  # one query encoded alone, milliseconds (the fastest of TIMED_QUERIES)

    @property
    def dimensions(self) -> int:
        return self.corpus_vectors.shape[1]

    @property
    def split(self) -> str:
        sets = ", ".join(f"{name} {len(data)}" for name, data in self.pairs.sets.items())
        return (f"STS test pairs sampled (seed {self.seed}): {sets}; retrieval: {len(self.retrieval)} queries against "
                f"{len(self.retrieval.corpus)} sentences")


def retrieval_set(corpus_size: int, queries: int | None, seed: int) -> RetrievalSet:
    """03 §6's paraphrase queries from STS-B test, their corpus filled up to ``corpus_size`` with NLI sentences."""
    stsb = load_sts("stsb", "test")
    if corpus_size < len(set(stsb.sentences2)):
        stsb = stsb.sample(corpus_size // 2, seed=seed)
    found = paraphrase_retrieval_set(stsb, MATCH_SCORE, max_queries=queries, seed=seed)
    taken = set(found.corpus) | set(found.queries)
    distractors = [s for s in nli_sentences(first=corpus_size) if s not in taken][:max(0, corpus_size - len(found.corpus))]
    description = (f"{len(found)} queries (first sentences of STS-B test pairs scored ≥ {MATCH_SCORE:g}), each with one "
                   f"known match among {len(found.corpus) + len(distractors)} sentences (STS-B test's second sentences, "
                   f"then {len(distractors)} SNLI/MultiNLI sentences)")
    return RetrievalSet(found.queries, found.corpus + distractors, found.match, description)


def calibration_sentences(count: int, exclude: set[str]) -> list[str]:
    """``count`` NLI sentences in none of ``exclude``, read after those the corpus may have taken."""
    pool = [s for s in nli_sentences() if s not in exclude]
    if len(pool) < min(count, 100):
        raise ValueError(f"Only {len(pool)} NLI sentences are left outside the corpus and the STS samples, too few to fit "
                         f"int8's ranges, PCA-k and whitening-k (CALIBRATION_SENTENCES = {count}): lower CORPUS_SIZE in "
                         f"SIZES (the SNLI and MultiNLI dev sets hold about 27,000 sentences in all).")
    return pool[-count:] if count < len(pool) else pool


def timed_encoding_ms(encode, sentences: list[str], repeats: int) -> float:
    """Milliseconds one sentence takes to encode alone (batch of one), the fastest over ``sentences`` × ``repeats``."""
    encode(sentences[:1])  # warm-up: the first call pays for allocation
    fastest = float("inf")
    for _ in range(repeats):
        for sentence in sentences:
            started = time.perf_counter()
            encode([sentence])
            fastest = min(fastest, time.perf_counter() - started)
    return 1000 * fastest


def begin(quick="auto", model="auto", seed=0, device=None, sizes=None) -> Lesson08:
    """Set the lesson up: load MODEL, build the STS sample, the retrieval set and the calibration sentences, encode
    each sentence once, and time one query's encoding."""
    lesson = begin_lesson(NOTEBOOK, quick, model, seed, device, sizes)
    s = lesson.sizes
    encoder = load_encoder(model, device=lesson.device)
    sets = sts_sample(s.PAIRS_PER_SET, seed)
    sts_sentences = corpus_of(sets)
    retrieval = retrieval_set(s.CORPUS_SIZE, s.QUERIES, seed)
    calibration = calibration_sentences(s.CALIBRATION_SENTENCES, set(retrieval.corpus) | set(retrieval.queries) | set(sts_sentences))
    encode = lambda sentences: encoder.encode(sentences, batch_size=64).float().numpy()  # noqa: E731
    started = time.perf_counter()
    sts_vectors, queries, corpus, calibrated = (encode(part) for part in (sts_sentences, retrieval.queries,
                                                                           retrieval.corpus, calibration))
    total = len(sts_sentences) + len(retrieval.queries) + len(retrieval.corpus) + len(calibration)
    print(f"{encoder.name}: {total} sentences encoded in {time.perf_counter() - started:.0f} s ({queries.shape[1]} dimensions)")
    encode_ms = timed_encoding_ms(encode, retrieval.queries[:s.TIMED_QUERIES], 1)
    return Lesson08(**vars(lesson), encoder=encoder, pairs=PairVectors(sets, sts_sentences, sts_vectors),
                    retrieval=retrieval, query_vectors=queries, corpus_vectors=corpus, calibration=calibrated,
                    encode_ms=encode_ms)


def data_report(lesson: Lesson08) -> Report:
    """§0: which model ran, what each part of the lesson reads, and what one query's encoding costs."""
    return Report(f"model: {lesson.encoder.name} ({lesson.dimensions} dimensions; {lesson.encoder.modules.describe()})",
                  f"STS: {lesson.split.split('; retrieval')[0]}",
                  f"retrieval: {lesson.retrieval.description}",
                  f"calibration: {len(lesson.calibration)} NLI sentences in neither",
                  f"one query encoded alone: {lesson.encode_ms:.1f} ms on {lesson.device.type} (the fastest of "
                  f"{lesson.sizes.TIMED_QUERIES} queries)")


def captioned(table: pd.DataFrame, lesson, what: str) -> pd.DataFrame:
    """``table`` with the caption every 08 table carries: the model, its pooling, how each column aggregates, the split."""
    from sbert_workbook.evaluation.provenance import with_provenance

    return with_provenance(table, model=lesson.encoder, pooling=lesson.encoder.modules.describe().removeprefix("pooling: "),
                           aggregation=f"STS avg: mean Spearman × 100 over the seven sets; recall@{K} and MRR@{K} over "
                                       "the queries; ms per query: the search alone, fastest of the repeats; " + what,
                           split=lesson.split)


def measure(lesson: Lesson08, storages, pairs: PairVectors | None = None, queries=None, corpus=None,
            calibration=None) -> frontier.Frontier:
    """The storages (float32 first) on the lesson's pairs and retrieval set, or on another model's vectors of them."""
    return frontier.measure(storages, lesson.calibration if calibration is None else calibration,
                            lesson.pairs if pairs is None else pairs,
                            lesson.query_vectors if queries is None else queries,
                            lesson.corpus_vectors if corpus is None else corpus, lesson.retrieval.match, k=K,
                            repeats=lesson.sizes.REPEATS, resamples=lesson.sizes.RESAMPLES, seed=lesson.seed)


def changes_said(frontier: Frontier) -> list[str]:
    """One sentence per storage: bytes saved, STS change with its interval and what it means, recall beside float32's."""
    table, reference = frontier.table, frontier.table.index[0]
    base = table.loc[reference]
    said = []
    for name, interval in frontier.intervals.items():
        row = table.loc[name]
        said.append(f"{name}: {base['bytes per vector'] / row['bytes per vector']:.1f}× fewer bytes than {reference}, "
                    f"STS {interval.described()} ({effect(interval)}), recall@{K} {row[f'recall@{K}']:.3f} against "
                    f"{base[f'recall@{K}']:.3f}, search {row['time vs float32']:.2f}× {reference}'s time")
    return said


def forest(frontier: Frontier, title: str) -> go.Figure:
    """Each storage's STS change against the first (float32) with its interval, drawn as a forest plot."""
    reference = frontier.table.index[0]
    return interval_forest_figure({f"{name} − {reference}": interval for name, interval in frontier.intervals.items()},
                                  title)


def cost_of_float32(lesson: Lesson08) -> Report:
    """§1: what float32 vectors of this model cost, per vector and per million sentences."""
    per_vector = bytes_per_vector("float32", lesson.dimensions)
    return Report(f"{lesson.encoder.name}: {lesson.dimensions} float32 numbers a sentence = {per_vector:,} bytes; a million "
                  f"sentences take {per_vector * MILLION / 2**30:.2f} GiB before any index, and searching them exactly "
                  f"reads all of it for every query.")
