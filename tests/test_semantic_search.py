"""Top-k search against sentence-transformers' own search; the pair loop's cost model."""
from __future__ import annotations

import copy

import pytest
import torch
from sentence_transformers import util

from sbert_workbook.evaluation.search import SearchIndex, pair_loop_scores, time_bi_vs_pair_loop, timing_table, top_k

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


def test_pair_loop_sends_every_pair_through_the_model_and_batching_changes_nothing(encoder):
    counting = copy.deepcopy(encoder)
    rows = []
    counting.model.register_forward_hook(lambda module, args, output: rows.append(output.last_hidden_state.shape[0]))
    batched = pair_loop_scores(counting, "A man is playing a guitar.", CORPUS, batch_size=4)
    assert rows == [4, 2] and batched.shape == (len(CORPUS),)
    one_by_one = pair_loop_scores(encoder, "A man is playing a guitar.", CORPUS, batch_size=1)
    assert batched == pytest.approx(one_by_one, abs=1e-4)  # padding never leaks into a score
    assert ((-1 <= batched) & (batched <= 1)).all()


def test_timing_table_extrapolates_from_the_measured_costs():
    table = timing_table(n=4, per_sentence_s=0.5, query_s=0.01, per_pair_s=2.0, measured=2).set_index(["approach", "task"])
    loop = "cross-encoder-style pair loop"
    assert table.loc[(loop, "answer one query"), "seconds"] == 8.0  # 4 pairs x 2 s
    assert table.loc[(loop, "most similar pair among 4"), "seconds"] == 12.0  # 4*3/2 = 6 pairs x 2 s
    assert table.loc[("bi-encoder", "most similar pair among 4"), "seconds"] == 2.0  # 4 sentences x 0.5 s


def test_measured_timing_covers_both_approaches(encoder):
    table = time_bi_vs_pair_loop(encoder, CORPUS, "a guitar", sample=2)
    assert set(table["approach"]) == {"bi-encoder", "cross-encoder-style pair loop"}
    assert (table["seconds"] > 0).all() and "over 2 pairs" in " ".join(table["how"])
