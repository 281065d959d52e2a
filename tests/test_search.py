"""Top-k search against sentence-transformers' own search; the timing of a cross-encoder's pair passes and its cost model."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
import torch
from sentence_transformers import util

from sbert_workbook.evaluation.search import (
    SearchIndex, cost_figure, cost_table, extrapolate, readable_seconds, time_pair_passes, top_k,
)
from sbert_workbook.published import SBERT_CLUSTERING_COST

CORPUS = ["A man is playing a guitar.", "A woman is slicing an onion.", "Two dogs run along the beach.",
          "The stock market fell sharply today.", "A man plays the guitar on stage.", "Kids are playing in the park."]


def test_top_k_agrees_with_sentence_transformers_semantic_search():
    generator = torch.Generator().manual_seed(0)
    queries, corpus = torch.randn(3, 16, generator=generator), torch.randn(50, 16, generator=generator)
    scores, indices = top_k(queries, corpus, k=4)
    reference = util.semantic_search(queries, corpus, top_k=4)
    for i, hits in enumerate(reference):
        assert indices[i].tolist() == [hit["corpus_id"] for hit in hits]
        assert scores[i].tolist() == pytest.approx([hit["score"] for hit in hits], abs=1e-5)


def test_top_k_refuses_vectors_of_another_size():
    with pytest.raises(ValueError, match="same model"):
        top_k(torch.ones(2, 8), torch.ones(5, 16))


def test_search_finds_the_paraphrase_and_matches_sentence_transformers(encoder, st_model):
    index = SearchIndex(encoder, CORPUS)
    result = index.search("Someone is playing the guitar.", k=3)
    reference = util.semantic_search(st_model.encode(["Someone is playing the guitar."], convert_to_tensor=True),
                                     st_model.encode(CORPUS, convert_to_tensor=True), top_k=3)[0]
    assert result["sentence"].tolist() == [CORPUS[hit["corpus_id"]] for hit in reference]
    assert result["cosine"].tolist() == pytest.approx([hit["score"] for hit in reference], abs=1e-4)
    assert set(result["sentence"].iloc[:2]) == {CORPUS[0], CORPUS[4]}
    with pytest.raises(ValueError, match="empty"):
        index.search("   ")


class CountingScorer:
    """Stands in for a cross-encoder's predict: records the pairs it was asked to score."""

    def __init__(self):
        self.calls = []

    def __call__(self, pairs, batch_size=32):
        self.calls.append(list(pairs))
        return np.zeros(len(pairs))


def test_time_pair_passes_hands_every_pair_to_the_cross_encoder_once():
    scorer = CountingScorer()
    one_query = [("A man is playing a guitar.", candidate) for candidate in CORPUS]
    assert time_pair_passes(scorer, one_query) >= 0
    assert scorer.calls == [one_query]  # one query against n sentences: n pairs, each scored
    with pytest.raises(ValueError, match="pairs"):
        time_pair_passes(scorer, [])
    with pytest.raises(ValueError, match="every pair"):
        time_pair_passes(lambda pairs, batch_size: np.zeros(1), one_query)


def test_extrapolation_is_linear_for_the_bi_encoder_and_quadratic_for_the_cross_encoder():
    table = pd.DataFrame({"n": [10], "pairs": [45], "bi_encoder_s": [0.5], "cross_encoder_s": [9.0]}).set_index("n")
    at_10k = extrapolate(table, 10_000)
    assert at_10k["bi_encoder_s"] == pytest.approx(500.0)  # 0.05 s per sentence
    assert at_10k["cross_encoder_s"] == pytest.approx(0.2 * 49_995_000)  # 0.2 s per pair, n(n-1)/2 pairs
    small = pd.DataFrame({"n": [2], "pairs": [1], "bi_encoder_s": [1.0], "cross_encoder_s": [2.0]}).set_index("n")
    at_4 = extrapolate(small, 4)
    assert (at_4["bi_encoder_s"], at_4["cross_encoder_s"], at_4["from_n"]) == (2.0, 12.0, 2)  # 4 x 0.5 s; 4*3/2 = 6 pairs x 2 s
    assert readable_seconds(65 * 3600) == "2.7 days" and readable_seconds(90) == "1.5 min"


def test_measured_costs_cover_both_approaches_and_every_pair(encoder):
    scorer = CountingScorer()
    table = cost_table(encoder, scorer, CORPUS, sizes=(2, 4))
    assert table.index.tolist() == [2, 4] and table["pairs"].tolist() == [1, 6]
    assert scorer.calls[1:] == [list(itertools.combinations(CORPUS[:n], 2)) for n in (2, 4)]  # after one warm-up pair
    assert (table[["bi_encoder_s", "cross_encoder_s"]] > 0).all().all()
    with pytest.raises(ValueError, match="at least 2"):
        cost_table(encoder, scorer, CORPUS, sizes=(1,))


def test_cost_figure_puts_the_papers_two_figures_at_its_n():
    table = pd.DataFrame({"n": [8], "pairs": [28], "bi_encoder_s": [0.1], "cross_encoder_s": [1.0]}).set_index("n")
    paper = cost_figure(table).data[-1]
    assert list(paper.x) == [SBERT_CLUSTERING_COST["sentences"]] * 2
    assert list(paper.y) == [SBERT_CLUSTERING_COST["SBERT seconds"], SBERT_CLUSTERING_COST["BERT (cross-encoder) hours"] * 3600]
