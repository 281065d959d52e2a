"""Top-k search against sentence-transformers' own search; the cross-encoder's pair passes and their cost model."""
from __future__ import annotations

import copy

import pandas as pd
import pytest
import torch
from sentence_transformers import util

from sbert_workbook.evaluation.search import (
    SearchIndex, cost_figure, cost_table, extrapolate, pair_passes, readable_seconds, top_k,
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


def test_pair_passes_send_every_pair_through_the_model_and_batching_changes_nothing(encoder):
    counting = copy.deepcopy(encoder)
    rows = []
    counting.model.register_forward_hook(lambda module, args, output: rows.append(output.last_hidden_state.shape[0]))
    one_query = [("A man is playing a guitar.", candidate) for candidate in CORPUS]
    batched = pair_passes(counting, one_query, batch_size=4)
    assert rows == [4, 2] and batched.shape == (len(CORPUS),)  # one query against n sentences: n passes
    one_by_one = pair_passes(encoder, one_query, batch_size=1)
    assert batched == pytest.approx(one_by_one, abs=1e-4)  # padding never leaks into a score
    assert ((-1 <= batched) & (batched <= 1)).all()
    with pytest.raises(ValueError, match="pairs"):
        pair_passes(encoder, [])


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
    table = cost_table(encoder, CORPUS, sizes=(2, 4))
    assert table.index.tolist() == [2, 4] and table["pairs"].tolist() == [1, 6]
    assert (table[["bi_encoder_s", "cross_encoder_s"]] > 0).all().all()
    with pytest.raises(ValueError, match="at least 2"):
        cost_table(encoder, CORPUS, sizes=(1,))


def test_cost_figure_puts_the_papers_two_figures_at_its_n():
    table = pd.DataFrame({"n": [8], "pairs": [28], "bi_encoder_s": [0.1], "cross_encoder_s": [1.0]}).set_index("n")
    paper = cost_figure(table).data[-1]
    assert list(paper.x) == [SBERT_CLUSTERING_COST["sentences"]] * 2
    assert list(paper.y) == [SBERT_CLUSTERING_COST["SBERT seconds"], SBERT_CLUSTERING_COST["BERT (cross-encoder) hours"] * 3600]
