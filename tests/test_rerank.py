"""Retrieve and rerank (03 §6): the retrieval set from STS pairs, reciprocal ranks by hand, and the table against
a brute-force ranking written out here."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from sbert_workbook.data.records import StsData
from sbert_workbook.evaluation.rerank import (RetrievalSet, paraphrase_retrieval_set, reciprocal_rank, rerank,
                                              retrieve_and_rerank_table)


def _sts(pairs, scores):
    first, second = zip(*pairs)
    return StsData("toy", "test", list(first), list(second), np.array(scores, dtype=float), ["toy"] * len(pairs),
                   "hand-made", (0.0, 5.0))


def test_retrieval_set_takes_high_scored_pairs_as_queries_and_every_distinct_second_sentence_as_corpus():
    data = _sts([("a", "A"), ("b", "B"), ("c", "A"), ("d", "d"), ("e", "E")], [4.5, 1.0, 4.0, 5.0, 3.9])
    retrieval = paraphrase_retrieval_set(data, min_score=4.0)
    assert retrieval.corpus == ["A", "B", "d", "E"]  # distinct, first-seen order
    assert retrieval.queries == ["a", "c"]  # ("d", "d") is left out: it would find itself
    assert retrieval.match == [0, 0]
    assert len(paraphrase_retrieval_set(data, min_score=4.0, max_queries=1)) == 1
    with pytest.raises(ValueError, match="outside toy's score range"):
        paraphrase_retrieval_set(data, min_score=9)
    with pytest.raises(ValueError, match="No pair"):
        paraphrase_retrieval_set(data, min_score=4.9)


def test_reciprocal_rank_by_hand():
    assert reciprocal_rank([7, 3, 5], 3) == 0.5
    assert reciprocal_rank([7, 3, 5], 7) == 1.0
    assert reciprocal_rank([7, 3, 5], 9) == 0.0


def test_rerank_orders_candidates_by_the_pair_scores_and_keeps_ties_in_retrieval_order():
    corpus = ["w", "x", "y", "z"]
    lengths = lambda pairs: np.array([len(b) if b != "x" else 0.0 for _, b in pairs], dtype=float)  # noqa: E731
    assert rerank("q", [3, 1, 2], corpus, lambda pairs: np.array([0.1, 0.9, 0.5])) == [1, 2, 3]
    assert rerank("q", [2, 0, 1], corpus, lengths) == [2, 0, 1]  # y and w tie at 1: their retrieval order stays
    with pytest.raises(ValueError, match="2 scores for 3 pairs"):
        rerank("q", [0, 1, 2], corpus, lambda pairs: np.zeros(2))


def test_table_against_a_brute_force_ranking():
    rng = np.random.default_rng(0)
    corpus_vectors = torch.tensor(rng.normal(size=(12, 4)), dtype=torch.float32)
    query_vectors = corpus_vectors[[0, 5, 9]] + 0.8 * torch.tensor(rng.normal(size=(3, 4)), dtype=torch.float32)
    retrieval = RetrievalSet(["q0", "q5", "q9"], [f"s{i}" for i in range(12)], [0, 5, 9], "toy")
    data_match = retrieval.match
    oracle = lambda pairs: np.array([float(q[1:] == s[1:]) for q, s in pairs])  # noqa: E731  (1 for the match only)
    table = retrieve_and_rerank_table(query_vectors, corpus_vectors, oracle, retrieval, ks=(1, 3, 12))
    cosines = (torch.nn.functional.normalize(query_vectors, dim=-1) @ torch.nn.functional.normalize(corpus_vectors, dim=-1).T).numpy()
    ranks = [int((-cosines[i]).argsort(kind="stable").tolist().index(m)) + 1 for i, m in enumerate(data_match)]
    for k in (1, 3, 12):
        assert table.loc[k, "recall@1 bi-encoder"] == pytest.approx(100 * np.mean([r == 1 for r in ranks]))
        assert table.loc[k, "MRR@k bi-encoder"] == pytest.approx(100 * np.mean([1 / r if r <= k else 0 for r in ranks]))
        assert table.loc[k, "recall@k"] == pytest.approx(100 * np.mean([r <= k for r in ranks]))
        # an oracle reranker puts the match first whenever the retriever found it
        assert table.loc[k, "recall@1 reranked"] == pytest.approx(table.loc[k, "recall@k"])
        assert table.loc[k, "MRR@k reranked"] == pytest.approx(table.loc[k, "recall@k"])
        assert table.loc[k, "cross-encoder passes per query"] == k
    with pytest.raises(ValueError, match="embed retrieval.queries and retrieval.corpus"):
        retrieve_and_rerank_table(query_vectors[:2], corpus_vectors, oracle, retrieval)
