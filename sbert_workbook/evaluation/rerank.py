"""Retrieve and rerank: the bi-encoder's top k, reordered by a cross-encoder (``03_pooling_and_sts.ipynb`` §6).

A bi-encoder ranks a whole corpus with one query encoding and one matrix product; a cross-encoder
reads each (query, candidate) pair together, one forward pass per pair (``04`` §1 trains one and times
it). Retrieve-and-rerank uses each where it is cheap: the bi-encoder retrieves ``k`` candidates, the
cross-encoder reorders only those, ``k`` passes per query. Reranking never brings in a sentence the
retriever missed, so recall@k stays; what can change is the order inside the top ``k``.

The test bed (:func:`paraphrase_retrieval_set`) is built from STS pairs: each pair the annotators
scored as near-paraphrase gives a query (its first sentence) and one known match (its second
sentence) hidden among every second sentence of the set. Quality is read from the rank of that
match: recall@1 and the reciprocal rank (MRR@k, 0 when the match is outside the top ``k``).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from sbert_workbook.data.records import StsData


@dataclass(frozen=True)
class RetrievalSet:
    """Queries, a corpus and, for each query, the corpus index of its one known match."""

    queries: list[str]
    corpus: list[str]
    match: list[int]
    description: str

    def __len__(self) -> int:
        return len(self.queries)


def paraphrase_retrieval_set(data: StsData, min_score: float = 4.0, max_queries: int | None = None,
                             seed: int = 0) -> RetrievalSet:
    """A retrieval set from STS pairs (``03`` §6): queries are the first sentences of pairs scored ≥ ``min_score``.

    The corpus is every distinct second sentence of ``data``; a query's match is its own pair's second
    sentence. Pairs whose two sentences are identical are left out (the query would find itself).
    ``max_queries`` keeps a random subset of the queries (drawn with ``seed``); the corpus stays whole.
    """
    low, high = data.score_range
    if not low <= min_score <= high:
        raise ValueError(f"min_score={min_score} lies outside {data.name}'s score range {data.score_range}: "
                         f"pick a score in it (4.0 on STS-B's 0-5 means 'mostly equivalent').")
    corpus = list(dict.fromkeys(data.sentences2))
    position = {sentence: i for i, sentence in enumerate(corpus)}
    chosen = [i for i, (a, b, score) in enumerate(zip(data.sentences1, data.sentences2, data.scores))
              if score >= min_score and a != b]
    if not chosen:
        raise ValueError(f"No pair of {data.name} {data.split} scores {min_score} or more: lower min_score or "
                         "use more pairs.")
    if max_queries is not None and max_queries < len(chosen):
        chosen = sorted(np.random.default_rng(seed).choice(chosen, size=max_queries, replace=False).tolist())
    queries = [data.sentences1[i] for i in chosen]
    match = [position[data.sentences2[i]] for i in chosen]
    description = (f"{len(queries)} queries (first sentences of {data.name} {data.split} pairs scored ≥ {min_score:g}) "
                   f"against {len(corpus)} distinct second sentences; one known match each")
    return RetrievalSet(queries, corpus, match, description)


def reciprocal_rank(ranked: Sequence[int], match: int) -> float:
    """1 / (position of ``match`` in ``ranked``, counted from 1), or 0 when ``match`` is not in ``ranked``."""
    ranked = list(ranked)
    return 1.0 / (ranked.index(match) + 1) if match in ranked else 0.0


def rerank(query: str, candidates: Sequence[int], corpus: Sequence[str],
           score_pairs: Callable[..., np.ndarray]) -> list[int]:
    """``candidates`` (corpus indices) reordered by the cross-encoder's score of (query, candidate), best first."""
    candidates = list(candidates)
    scores = np.asarray(score_pairs([(query, corpus[i]) for i in candidates]))
    if len(scores) != len(candidates):
        raise ValueError(f"score_pairs returned {len(scores)} scores for {len(candidates)} pairs: pass a "
                         "cross-encoder's predict, which scores every pair.")
    order = np.argsort(-scores, kind="stable")  # ties keep the bi-encoder's order
    return [candidates[i] for i in order]


@dataclass(frozen=True)
class RerankOutcome:
    """One ``k``: each query's reciprocal rank (0 outside the top ``k``) before and after reranking, and the time taken."""

    k: int
    before: np.ndarray  # reciprocal rank per query, bi-encoder order
    after: np.ndarray  # reciprocal rank per query, reranked
    found: np.ndarray  # whether the match is in the top k (recall@k per query)
    seconds: float


def rerank_outcomes(query_vectors: torch.Tensor, corpus_vectors: torch.Tensor, score_pairs: Callable[..., np.ndarray],
                    retrieval: RetrievalSet, ks: Sequence[int] = (5, 10, 20)) -> list[RerankOutcome]:
    """Per ``k``, each query's outcome before and after reranking the bi-encoder's top ``k`` (``03`` §6): what
    :func:`retrieve_and_rerank_table` averages, kept per query so that a gain can be given its interval.

    ``query_vectors`` and ``corpus_vectors`` are the bi-encoder's embeddings of ``retrieval.queries`` and
    ``retrieval.corpus``; ``score_pairs`` is a cross-encoder's ``predict``. Each ``k`` is reranked and timed on its own.
    """
    if len(query_vectors) != len(retrieval.queries) or len(corpus_vectors) != len(retrieval.corpus):
        raise ValueError(f"{len(query_vectors)} query vectors for {len(retrieval.queries)} queries and "
                         f"{len(corpus_vectors)} corpus vectors for {len(retrieval.corpus)} sentences: embed "
                         "retrieval.queries and retrieval.corpus with the same bi-encoder.")
    if not ks or min(ks) < 1:
        raise ValueError(f"ks must be positive candidate counts, e.g. (5, 10, 20); got {tuple(ks)}.")
    q = torch.nn.functional.normalize(torch.as_tensor(query_vectors).float(), dim=-1)
    c = torch.nn.functional.normalize(torch.as_tensor(corpus_vectors).float(), dim=-1)
    retrieved = torch.topk(q @ c.T, k=min(max(ks), len(retrieval.corpus)), dim=-1).indices.tolist()
    outcomes = []
    for k in ks:
        k = min(k, len(retrieval.corpus))
        started = time.perf_counter()
        reranked = [rerank(query, ranked[:k], retrieval.corpus, score_pairs) for query, ranked in zip(retrieval.queries, retrieved)]
        seconds = time.perf_counter() - started
        before = [ranked[:k] for ranked in retrieved]
        outcomes.append(RerankOutcome(
            k, np.array([reciprocal_rank(r, m) for r, m in zip(before, retrieval.match)]),
            np.array([reciprocal_rank(r, m) for r, m in zip(reranked, retrieval.match)]),
            np.array([m in r for r, m in zip(before, retrieval.match)]), seconds))
    return outcomes


def retrieve_and_rerank_table(query_vectors: torch.Tensor, corpus_vectors: torch.Tensor,
                              score_pairs: Callable[..., np.ndarray], retrieval: RetrievalSet,
                              ks: Sequence[int] = (5, 10, 20)) -> pd.DataFrame:
    """Per ``k``: recall@1 and MRR@k (× 100) of the bi-encoder alone and reranked, and the cross-encoder's cost.

    Introduced in ``03_pooling_and_sts.ipynb``. ``query_vectors`` and ``corpus_vectors`` are the
    bi-encoder's embeddings of ``retrieval.queries`` and ``retrieval.corpus``; ``score_pairs`` is a
    cross-encoder's ``predict``. Each ``k`` is reranked and timed on its own (no scores shared between
    ``k``), so ``rerank_ms_per_query`` is what that ``k`` costs.
    """
    return outcomes_table(rerank_outcomes(query_vectors, corpus_vectors, score_pairs, retrieval, ks))


def outcomes_table(outcomes: Sequence[RerankOutcome]) -> pd.DataFrame:
    """:func:`rerank_outcomes` averaged over the queries: one row per ``k`` (``03`` §6)."""
    rows = [{"k": o.k, "recall@1 bi-encoder": 100 * np.mean(o.before == 1), "recall@1 reranked": 100 * np.mean(o.after == 1),
             "MRR@k bi-encoder": 100 * o.before.mean(), "MRR@k reranked": 100 * o.after.mean(), "recall@k": 100 * o.found.mean(),
             "cross-encoder passes per query": o.k, "rerank ms per query": 1000 * o.seconds / len(o.before)}
            for o in outcomes]
    return pd.DataFrame(rows).set_index("k")
