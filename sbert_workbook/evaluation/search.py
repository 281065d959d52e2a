"""Semantic search with a bi-encoder, and what the cross-encoder alternative would cost.

Introduced in ``03_pooling_and_sts.ipynb``. A bi-encoder embeds the corpus once; a query
then costs one forward pass and a matrix product. A cross-encoder reads the query and each
candidate *together*: one forward pass per pair, for every query. SBERT's abstract puts the
difference at ~65 hours against ~5 seconds for the most similar pair among 10,000 sentences.
The corpus to search comes from :func:`sbert_workbook.data.corpora.search_corpus`.
"""
from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import torch

from sbert_workbook.evaluation.provenance import describe_model, with_provenance
from sbert_workbook.encoding.text_input import checked_sentences


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


def pair_loop_scores(encoder, query: str, candidates: Sequence[str], batch_size: int = 16) -> np.ndarray:
    """A cross-encoder's cost: every ``[CLS] query [SEP] candidate [SEP]`` pair goes through the model.

    Pairs are batched like a real cross-encoder would batch them. A trained cross-encoder
    reads a score from a classification head; no such weights ship offline, so the score
    here is the cosine between the mean vectors of the query's and the candidate's tokens
    inside the joint pass: the *time* is the lesson, not the score.
    """
    candidates = checked_sentences(candidates)
    scores = []
    for start in range(0, len(candidates), batch_size):
        chunk = candidates[start:start + batch_size]
        batch = encoder.tokenizer([query] * len(chunk), chunk, padding=True, truncation=True,
                                  max_length=encoder.max_length, return_tensors="pt")
        segments = torch.tensor([[-1 if s is None else s for s in batch.sequence_ids(i)] for i in range(len(chunk))])
        with torch.inference_mode():
            tokens = encoder.model(**{k: v.to(encoder.device) for k, v in batch.items()}).last_hidden_state.float().cpu()
        for row, segment in zip(tokens, segments):
            u, v = (row[segment == part].mean(dim=0) for part in (0, 1))
            scores.append(torch.nn.functional.cosine_similarity(u, v, dim=0).item())
    return np.array(scores)


def time_bi_vs_pair_loop(encoder, corpus: Sequence[str], query: str, sample: int = 32, pooling: str = "mean") -> pd.DataFrame:
    """Measured seconds on ``sample`` corpus sentences for both approaches, extrapolated to the whole corpus.

    The bi-encoder embeds the sample (batched) and answers one query against the sample; the
    pair loop scores the query against the same sample. Both are extrapolated linearly to
    ``len(corpus)`` sentences, and to SBERT's "most similar pair among n sentences" task.
    """
    chosen = checked_sentences(corpus)[:max(1, sample)]
    started = time.perf_counter()
    embeddings = encoder.encode(chosen, pooling=pooling, batch_size=16)  # the pair loop batches 16 too
    per_sentence_s = (time.perf_counter() - started) / len(chosen)
    started = time.perf_counter()
    top_k(encoder.encode([query], pooling=pooling), embeddings, 5)
    query_s = time.perf_counter() - started
    started = time.perf_counter()
    pair_loop_scores(encoder, query, chosen)
    per_pair_s = (time.perf_counter() - started) / len(chosen)
    return timing_table(len(corpus), per_sentence_s, query_s, per_pair_s, len(chosen))


def timing_table(n: int, per_sentence_s: float, query_s: float, per_pair_s: float, measured: int) -> pd.DataFrame:
    """Seconds per task for both approaches from the measured unit costs; extrapolations say so."""
    all_pairs = n * (n - 1) / 2
    rows = [
        ("bi-encoder", "embed one sentence", per_sentence_s, f"measured over {measured} sentences, batched"),
        ("bi-encoder", "answer one query", query_s, "measured: 1 forward pass + a matrix product"),
        ("bi-encoder", f"most similar pair among {n:,}", per_sentence_s * n,
         f"extrapolated: embed {n:,} sentences once (+ one n x n product, not counted)"),
        ("cross-encoder-style pair loop", "score one pair", per_pair_s, f"measured over {measured} pairs, batched"),
        ("cross-encoder-style pair loop", "answer one query", per_pair_s * n, f"extrapolated: {n:,} pairs"),
        ("cross-encoder-style pair loop", f"most similar pair among {n:,}", per_pair_s * all_pairs,
         f"extrapolated: n(n-1)/2 = {all_pairs:,.0f} pairs"),
    ]
    return pd.DataFrame(rows, columns=["approach", "task", "seconds", "how"])


def timing_figure(table: pd.DataFrame) -> go.Figure:
    """Log-scale bars of :func:`timing_table`: one colour per approach, tasks on the x axis."""
    figure = go.Figure()
    for approach, rows in table.groupby("approach", sort=False):
        figure.add_trace(go.Bar(x=rows["task"], y=rows["seconds"], name=approach, text=[f"{s:.3g} s" for s in rows["seconds"]],
                                hovertext=rows["how"], hovertemplate="%{x}: %{y:.3g} s<br>%{hovertext}<extra></extra>"))
    figure.update_layout(barmode="group", yaxis_type="log", yaxis_title="seconds (log scale)", height=420,
                         title="Bi-encoder vs cross-encoder-style pair loop")
    return figure
