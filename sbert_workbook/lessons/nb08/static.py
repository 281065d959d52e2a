"""Lesson 08 §4, a static model: model2vec's distillation of the transformer into one vector per token, against float32
and beside the earlier lessons each of its steps repeats (``08_what_an_embedding_costs.ipynb``)."""
from __future__ import annotations

import time
from dataclasses import dataclass

import pandas as pd
from IPython.display import Markdown

from sbert_workbook.cost import frontier
from sbert_workbook.cost.static_model import distil_static_model, static_vectors
from sbert_workbook.cost.storage import Float32
from sbert_workbook.diagnosis.ladder import PairVectors
from sbert_workbook.encoding.quiet_loading import transformer_folder
from sbert_workbook.evaluation.uncertainty import paired_bootstrap
from sbert_workbook.lessons.nb08.lesson import NOTEBOOK, K, Lesson08, captioned, measure, timed_encoding_ms
from sbert_workbook.lessons.report import Report, verdict


@dataclass
class StaticRun:
    """§4: the static model distilled from MODEL, its distillation time, its query encoding time and its frontier
    (float32 transformer vectors first, then the static model's)."""

    static_model: object
    distil_seconds: float
    encode_ms: float
    frontier: frontier.Frontier


class _OtherModel(Float32):
    """Float32 storage that stands for another model's vectors in a frontier (its own name)."""

    def __init__(self, name: str):
        self.name = name


def static_model(lesson: Lesson08) -> StaticRun:
    """§4: distil a static model from MODEL with model2vec, encode every sentence with it, measure it beside MODEL."""
    folder = transformer_folder(lesson.encoder.resolved)
    started = time.perf_counter()
    static = distil_static_model(folder, longest_token=lesson.sizes.STATIC_LONGEST_TOKEN)
    seconds = time.perf_counter() - started
    embed = lambda sentences: static_vectors(static, sentences)  # noqa: E731
    pairs = PairVectors(lesson.pairs.sets, lesson.pairs.corpus, embed(lesson.pairs.corpus))
    vectors = {"queries": embed(lesson.retrieval.queries), "corpus": embed(lesson.retrieval.corpus)}
    encode_ms = timed_encoding_ms(embed, lesson.retrieval.queries[:lesson.sizes.TIMED_QUERIES], 1)
    static_storage = _OtherModel(f"static model (model2vec, {pairs.vectors.shape[1]} dims)")
    own = measure(lesson, [Float32()])
    other = measure(lesson, [static_storage], pairs=pairs, queries=vectors["queries"], corpus=vectors["corpus"],
                    calibration=pairs.vectors)
    change = paired_bootstrap(lesson.pairs.gold(), pairs.cosines(), lesson.pairs.cosines(),
                              resamples=lesson.sizes.RESAMPLES, seed=lesson.seed)
    both = frontier.Frontier(pd.concat([own.table, other.table]), pd.concat([own.sts, other.sts]),
                             {static_storage.name: change})
    return StaticRun(static, seconds, encode_ms, both)


#: model2vec's steps and the earlier lesson each one is (sbert_workbook/cost/static_model.py); shown as Markdown, a
#: description rather than a measured table.
STATIC_STEPS = pd.DataFrame(
    {"model2vec does": ["passes every vocabulary token through the transformer alone, mean-pooled",
                        "centres the token vectors and keeps the top PCA directions",
                        "weights each token by a / (a + p), p from Zipf's law over the vocabulary order",
                        "a sentence: the mean of its tokens' vectors, normalised"],
     "the earlier lesson": ["02: static views (02 reads the input embeddings; this reads the output of one pass)",
                            "05: whitening-k without the rescaling; centring is SN's first step",
                            "05: SIF's frequency weighting, against 02's frequency bias",
                            "03: mean pooling, with no context between the words"]},
    index=pd.Index([1, 2, 3, 4], name="step"))


def _static_steps_markdown() -> Markdown:
    """model2vec's steps beside the earlier lessons, as a Markdown table (a description, not a measurement)."""
    rows = [f"| {step} | {row['model2vec does']} | {row['the earlier lesson']} |" for step, row in STATIC_STEPS.iterrows()]
    return Markdown("\n".join(["| step | model2vec does | the earlier lesson |", "|---|---|---|", *rows]))


def static_report(lesson: Lesson08, run: StaticRun) -> Report:
    """§4: the static model beside the transformer: encoding time per query, STS and recall, and their ratios."""
    table = run.frontier.table
    transformer, static = table.index
    rows = pd.DataFrame({"encode ms per query": [lesson.encode_ms, run.encode_ms],
                         "STS avg": table["STS avg"].tolist(), f"recall@{K}": table[f"recall@{K}"].tolist(),
                         "bytes per vector": table["bytes per vector"].tolist()}, index=[lesson.encoder.name, static])
    rows.index.name = "model"
    speed = lesson.encode_ms / run.encode_ms
    change = run.frontier.intervals[static]
    said = (f"Distilled in {run.distil_seconds:.0f} s from {lesson.encoder.name} (the distillation reads no training "
            f"data; what the static model knows, it learned from this teacher). One query encodes {speed:.0f}× faster "
            f"({run.encode_ms:.2f} ms against {lesson.encode_ms:.1f} ms); STS avg {rows['STS avg'].iloc[1]:.2f} "
            f"against the transformer's {rows['STS avg'].iloc[0]:.2f}, in Spearman × 100 points: {change.described()}; "
            f"recall@{K} {rows[f'recall@{K}'].iloc[1]:.3f} against {rows[f'recall@{K}'].iloc[0]:.3f}.")
    return Report(captioned(rows.round(3), lesson, "encode ms: one query alone, fastest over the timed queries"), said,
                  _static_steps_markdown(), verdicts=verdict(NOTEBOOK, "the static model encodes faster than the transformer",
                                                 "yes" if speed > 1 else "no"))
