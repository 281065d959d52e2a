"""Semantic search with a bi-encoder, and why not a cross-encoder: what reading every pair costs.

Search is introduced in ``03_pooling_and_sts.ipynb`` (section 6); the cost is taught once, in
``04_siamese_finetuning.ipynb`` (§1, "why a bi-encoder"), which 03 links to. A bi-encoder embeds
each sentence once; a query then costs one forward pass and a matrix product. A cross-encoder
reads two sentences *together* (``[CLS] a [SEP] b [SEP]``): one forward pass per pair, so one
query against n sentences costs n passes and the most similar pair among n costs n(n−1)/2.
SBERT's paper gives that cost for its example size (``published.SBERT_CLUSTERING_COST``: hours
with BERT on a V100, seconds with SBERT); here both are timed on small n and extrapolated.
The corpus to search comes from :func:`sbert_workbook.data.corpora.search_corpus`.
"""
from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import torch

from sbert_workbook.evaluation.provenance import describe_model, with_provenance
from sbert_workbook.encoding.text_input import checked_sentences
from sbert_workbook.published import SBERT_CLUSTERING_COST

#: SBERT's example: n sentences, seconds with BERT (cross-encoder) and with SBERT (bi-encoder), from ``published``.
PAPER_N = SBERT_CLUSTERING_COST["sentences"]
PAPER_CROSS_S = SBERT_CLUSTERING_COST["BERT (cross-encoder) hours"] * 3600
PAPER_BI_S = float(SBERT_CLUSTERING_COST["SBERT seconds"])


def top_k(query_embeddings: torch.Tensor, corpus_embeddings: torch.Tensor, k: int = 5) -> tuple[torch.Tensor, torch.Tensor]:
    """Cosine similarity of every query to every corpus vector; the ``k`` best (scores, indices) per query.

    s_ij = q_i·c_j / (‖q_i‖ ‖c_j‖); ties keep the lower index first.
    """
    if query_embeddings.ndim == 1:
        query_embeddings = query_embeddings[None]
    if query_embeddings.shape[-1] != corpus_embeddings.shape[-1]:
        raise ValueError(f"Query vectors have {query_embeddings.shape[-1]} dimensions but the corpus has "
                         f"{corpus_embeddings.shape[-1]}: embed both with the same model.")
    q = torch.nn.functional.normalize(query_embeddings.float(), dim=-1)
    c = torch.nn.functional.normalize(corpus_embeddings.float(), dim=-1)
    return torch.topk(q @ c.T, k=min(k, len(c)), dim=-1)


class SearchIndex:
    """A corpus embedded once by a bi-encoder; :meth:`search` answers a query with the top-k sentences."""

    def __init__(self, encoder, sentences: Sequence[str], pooling: str = "mean", batch_size: int = 64):
        self.encoder, self.pooling = encoder, pooling
        self.sentences = checked_sentences(sentences)
        started = time.perf_counter()
        self.embeddings = encoder.encode(self.sentences, pooling=pooling, batch_size=batch_size)
        self.seconds_to_build = time.perf_counter() - started

    def __len__(self) -> int:
        return len(self.sentences)

    def search(self, query: str, k: int = 5) -> pd.DataFrame:
        """The ``k`` corpus sentences most similar to ``query``: rank, cosine, sentence."""
        if not isinstance(query, str) or not query.strip():
            raise ValueError("The query is empty: type a sentence to search for.")
        scores, indices = top_k(self.encoder.encode([query], pooling=self.pooling), self.embeddings, k)
        found = pd.DataFrame({"rank": range(1, len(indices[0]) + 1), "cosine": scores[0].numpy(),
                              "sentence": [self.sentences[i] for i in indices[0].tolist()]}).set_index("rank")
        return with_provenance(found, model=describe_model(self.encoder), pooling=self.pooling,
                               aggregation="none: the top k of one query, by cosine",
                               split=f"search corpus of {len(self.sentences)} sentences")


def time_pair_passes(score_pairs: Callable[..., np.ndarray], pairs: Sequence[tuple[str, str]], batch_size: int = 32) -> float:
    """Seconds a cross-encoder takes to score ``pairs``, one joint forward pass each (``04`` §1; one query in ``03``).

    ``score_pairs(pairs, batch_size=...)`` is the cross-encoder's scoring: the
    :meth:`~sbert_workbook.training.cross_encoder.CrossEncoder.predict` of the one ``04`` §1 trains.
    It is passed in because evaluation sits below training in the package's layers.
    """
    pairs = [tuple(pair) for pair in pairs]
    if not pairs or any(len(pair) != 2 for pair in pairs):
        raise ValueError("time_pair_passes needs a non-empty list of (sentence, sentence) pairs, "
                         "e.g. list(itertools.combinations(sentences, 2)).")
    started = time.perf_counter()
    scores = score_pairs(pairs, batch_size=batch_size)
    seconds = time.perf_counter() - started
    if len(scores) != len(pairs):
        raise ValueError(f"score_pairs returned {len(scores)} scores for {len(pairs)} pairs: pass a cross-encoder's "
                         "predict, which scores every pair.")
    return seconds


def time_bi_encoder(encoder, sentences: list[str], batch_size: int = 32) -> float:
    """Seconds to encode ``sentences`` once and compute all n×n cosine similarities (``04`` §1)."""
    started = time.perf_counter()
    embeddings = torch.nn.functional.normalize(encoder.encode(sentences, batch_size=batch_size), dim=-1)
    _ = embeddings @ embeddings.T
    return time.perf_counter() - started


def cost_table(encoder, score_pairs: Callable[..., np.ndarray], sentences: list[str], sizes=(8, 16, 32)) -> pd.DataFrame:
    """Measured seconds on the first n sentences, for each n in ``sizes`` (``04`` §1).

    The bi-encoder is ``encoder`` (n encodings and one n×n product); the cross-encoder is
    ``score_pairs`` (a cross-encoder's ``predict``, see :func:`time_pair_passes`) over all n(n−1)/2 pairs.
    """
    if min(sizes) < 2 or len(sentences) < 2:
        raise ValueError(f"cost_table needs at least 2 sentences per size (a pair); got sizes {tuple(sizes)} "
                         f"and {len(sentences)} sentences.")
    rows = []
    time_bi_encoder(encoder, sentences[:2])  # warm-up: the first forward pass pays for one-off set-up
    time_pair_passes(score_pairs, [tuple(sentences[:2])])
    for n in sizes:
        chosen = list(sentences[:n])
        pairs = list(itertools.combinations(chosen, 2))
        rows.append({"n": len(chosen), "pairs": len(pairs), "bi_encoder_s": time_bi_encoder(encoder, chosen),
                     "cross_encoder_s": time_pair_passes(score_pairs, pairs)})
    return pd.DataFrame(rows).set_index("n")


def extrapolate(table: pd.DataFrame, n: int = PAPER_N) -> dict[str, float]:
    """Seconds at ``n`` sentences from the largest measured n: bi ∝ n, cross ∝ n(n−1)/2 (``04`` §1)."""
    measured_n = int(table.index.max())
    row = table.loc[measured_n]
    return {"n": n, "bi_encoder_s": row["bi_encoder_s"] * n / measured_n,
            "cross_encoder_s": row["cross_encoder_s"] * (n * (n - 1) / 2) / row["pairs"], "from_n": measured_n}


def cost_figure(table: pd.DataFrame, n: int = PAPER_N) -> go.Figure:
    """Log-log seconds against n: measured points, extrapolated lines, and the paper's two figures at its n (``04``)."""
    figure = go.Figure()
    grid = sorted({*table.index.tolist(), 100, 1000, n})
    for column, name in (("bi_encoder_s", "bi-encoder (SBERT)"), ("cross_encoder_s", "cross-encoder (BERT)")):
        figure.add_trace(go.Scatter(x=table.index, y=table[column], mode="markers", name=f"{name}, measured", marker_size=10))
        line = [extrapolate(table, size)[column] for size in grid]
        figure.add_trace(go.Scatter(x=grid, y=line, mode="lines", line_dash="dot", name=f"{name}, extrapolated"))
    figure.add_trace(go.Scatter(x=[PAPER_N, PAPER_N], y=[PAPER_BI_S, PAPER_CROSS_S], mode="markers+text", name="paper (V100)",
                                text=[f"SBERT ≈ {PAPER_BI_S:g} s", f"BERT ≈ {PAPER_CROSS_S / 3600:g} h"], textposition="middle left", marker_symbol="star", marker_size=14))
    figure.update_layout(xaxis_type="log", yaxis_type="log", xaxis_title="sentences n", yaxis_title="seconds (log)",
                         title="Most similar pair among n sentences: n encodings vs n(n−1)/2 pair passes", height=420)
    return figure


def readable_seconds(seconds: float) -> str:
    """3.2 s, 4.1 min, 2.3 h or 5.6 days (``04`` §1)."""
    for unit, size in (("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.2g} s"
