"""Quantization and compressed search (sbert_workbook.cost) against sentence-transformers' own quantize_embeddings,
scipy's Hamming distance and brute-force rankings, plus hand-computed cases."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sentence_transformers.util.quantization import quantize_embeddings

from sbert_workbook.cost.compressed_search import binary_top_k, hamming_distances, rescored_top_k
from sbert_workbook.cost.quantization import binary_vectors, bytes_per_vector, int8_ranges, int8_vectors

RNG = np.random.default_rng(0)
CALIBRATION = RNG.normal(size=(300, 13)).astype(np.float32)
VECTORS = RNG.normal(size=(40, 13)).astype(np.float32) * 1.2  # some values beyond the calibration's range


def test_int8_is_sentence_transformers_int8_with_calibration_vectors():
    ours = int8_vectors(VECTORS, int8_ranges(CALIBRATION))
    theirs = quantize_embeddings(VECTORS, "int8", calibration_embeddings=CALIBRATION)
    assert ours.dtype == np.int8 and np.array_equal(ours, theirs)


def test_int8_by_hand():
    ranges = np.array([[0.0, -1.0], [255.0, -1.0]])  # step 1 in the first dimension; the second never varies
    got = int8_vectors(np.array([[10.5, 3.0], [-7.0, -1.0], [300.0, 0.0]]), ranges)
    assert got.tolist() == [[10 - 128, 4 - 128], [0 - 128, 0 - 128], [255 - 128, 1 - 128]]


def test_binary_is_sentence_transformers_ubinary_for_a_dimension_not_a_multiple_of_8():
    ours = binary_vectors(VECTORS)
    assert ours.shape == (40, 2) and np.array_equal(ours, quantize_embeddings(VECTORS, "ubinary"))


@pytest.mark.parametrize("precision, dimensions, expected", [("float32", 384, 1536), ("int8", 384, 384),
                                                             ("binary", 384, 48), ("binary", 13, 2)])
def test_bytes_per_vector_by_hand(precision, dimensions, expected):
    assert bytes_per_vector(precision, dimensions) == expected


def test_hamming_distances_are_scipys_on_the_unpacked_bits():
    bits = binary_vectors(VECTORS)
    expected = cdist(VECTORS[:7] > 0, VECTORS > 0, "hamming") * VECTORS.shape[1]
    assert np.array_equal(hamming_distances(bits[:7], bits, chunk=3), expected.round().astype(int))


def test_binary_top_k_is_the_brute_force_ranking():
    bits = binary_vectors(VECTORS)
    expected = np.argsort(cdist(VECTORS[:5] > 0, VECTORS > 0, "hamming"), axis=1, kind="stable")[:, :6]
    assert np.array_equal(binary_top_k(bits[:5], bits, 6), expected)


def test_rescoring_reorders_the_binary_candidates_by_the_float_query():
    queries, bits, k, multiplier = VECTORS[:5], binary_vectors(VECTORS), 3, 4
    got = rescored_top_k(queries, bits, k, multiplier)
    for query, row in zip(queries, got):
        candidates = np.argsort(cdist(query[None] > 0, VECTORS > 0, "hamming")[0], kind="stable")[:k * multiplier]
        scores = [(query * (VECTORS[c] > 0)).sum() for c in candidates]
        assert row.tolist() == [candidates[i] for i in np.argsort(scores)[::-1][:k]]  # float scores: no ties


def test_rescoring_every_candidate_with_int8_is_the_exact_int8_ranking():
    stored = int8_vectors(VECTORS, int8_ranges(CALIBRATION))
    got = rescored_top_k(VECTORS[:5], binary_vectors(VECTORS), 4, multiplier=len(VECTORS), corpus_int8=stored)
    exact = np.argsort(-(VECTORS[:5] @ stored.astype(np.float32).T), axis=1, kind="stable")[:, :4]
    assert np.array_equal(got, exact)


@pytest.mark.parametrize("call, words", [
    (lambda: binary_vectors(np.zeros((3, 8), dtype=np.int8)), "already quantized"),
    (lambda: int8_vectors(VECTORS, int8_ranges(CALIBRATION[:, :5])), r"ranges must be \(2, 13\)"),
    (lambda: int8_ranges(CALIBRATION[:1]), "at least two calibration vectors"),
    (lambda: hamming_distances(binary_vectors(VECTORS), binary_vectors(CALIBRATION[:, :8])), "same model and dimension"),
    (lambda: binary_top_k(binary_vectors(VECTORS), binary_vectors(VECTORS), 41), "between 1 and the corpus size 40"),
    (lambda: bytes_per_vector("float16", 8), "choose from float32, int8, binary"),
    (lambda: binary_vectors(np.zeros((0, 8))), "non-empty"),
])
def test_bad_input_says_what_to_do(call, words):
    with pytest.raises(ValueError, match=words):
        call()


# ----------------------------------------------------------------------------- fewer dimensions
def test_pca_k_is_sklearns_pca_up_to_each_components_sign():
    from sklearn.decomposition import PCA

    from sbert_workbook.calibration.dimensions import PrincipalComponents

    ours = PrincipalComponents(4).fit(CALIBRATION).transform(VECTORS).numpy()
    theirs = PCA(4, svd_solver="full").fit(CALIBRATION).transform(VECTORS)
    signs = np.sign((ours * theirs).sum(axis=0))
    assert np.allclose(ours, theirs * signs, atol=1e-4)


def test_whitening_k_is_pca_k_with_each_direction_scaled_to_variance_one():
    from sbert_workbook.calibration.calibrators import Whitening
    from sbert_workbook.calibration.dimensions import PrincipalComponents

    pca = PrincipalComponents(5).fit(CALIBRATION).transform(CALIBRATION).numpy()
    white = Whitening(5).fit(CALIBRATION).transform(CALIBRATION).numpy()
    signs = np.sign((pca * white).sum(axis=0))
    assert np.allclose(white * signs, pca / pca.std(axis=0), atol=1e-3)


def test_first_k_keeps_the_first_columns_and_refuses_a_k_beyond_the_size():
    from sbert_workbook.calibration.dimensions import FirstDimensions

    assert np.array_equal(FirstDimensions(3).fit(CALIBRATION).transform(VECTORS).numpy(), VECTORS[:, :3])
    with pytest.raises(ValueError, match="k=14 must be between 1 and the embedding size 13"):
        FirstDimensions(14).fit(CALIBRATION)


# ----------------------------------------------------------------------------- storages and the frontier
def _cosines(a, b):
    return 1 - np.diag(cdist(a, b, "cosine"))


def test_float32_and_int8_storages_compare_by_the_cosine_of_what_they_keep():
    from sbert_workbook.cost.storage import Float32, Int8

    queries, documents = VECTORS[:20], VECTORS[20:]
    float32 = Float32().fit(CALIBRATION)
    assert float32.bytes_per_vector == 52
    assert np.allclose(float32.similarity(queries, float32.store(documents)), _cosines(queries, documents), atol=1e-6)
    int8 = Int8().fit(CALIBRATION)
    as_int8 = lambda x: quantize_embeddings(x, "int8", calibration_embeddings=CALIBRATION).astype(float)  # noqa: E731
    assert int8.bytes_per_vector == 13
    assert np.allclose(int8.similarity(queries, int8.store(documents)), _cosines(as_int8(queries), as_int8(documents)),
                       atol=1e-6)
    expected = np.argsort(-(1 - cdist(as_int8(queries), as_int8(VECTORS), "cosine")), axis=1, kind="stable")[:, :5]
    assert np.array_equal(int8.search(queries, int8.store(VECTORS), 5), expected)


def test_binary_similarity_is_the_dot_product_of_the_signs():
    from sbert_workbook.cost.storage import Binary

    binary = Binary().fit(CALIBRATION)
    signs = lambda x: np.where(x > 0, 1, -1)  # noqa: E731
    expected = (signs(VECTORS[:20]) * signs(VECTORS[20:])).sum(axis=1)
    assert binary.bytes_per_vector == 2
    assert np.array_equal(binary.similarity(VECTORS[:20], binary.store(VECTORS[20:])), expected)


def test_rescored_binary_scores_a_pair_as_the_float_querys_cosine_with_the_kept_signs_or_int8_values():
    from sbert_workbook.cost.storage import RescoredBinary

    on_bits = RescoredBinary(multiplier=2).fit(CALIBRATION)
    assert on_bits.bytes_per_vector == 2
    signs = np.where(VECTORS[20:] > 0, 1.0, -1.0)  # the kept bits as ±1: no per-query offset Σq/2 between pairs
    assert np.allclose(on_bits.similarity(VECTORS[:20], on_bits.store(VECTORS[20:])), _cosines(VECTORS[:20], signs),
                       atol=1e-5)
    on_int8 = RescoredBinary(multiplier=2, with_int8=True).fit(CALIBRATION)
    assert on_int8.bytes_per_vector == 2 + 13
    stored = quantize_embeddings(VECTORS[20:], "int8", calibration_embeddings=CALIBRATION).astype(float)
    assert np.allclose(on_int8.similarity(VECTORS[:20], on_int8.store(VECTORS[20:])), _cosines(VECTORS[:20], stored),
                       atol=1e-4)


def test_a_reduced_storage_compares_the_cosine_of_the_pca_coordinates():
    from sklearn.decomposition import PCA

    from sbert_workbook.cost.storage import Reduced
    from sbert_workbook.calibration.dimensions import PrincipalComponents

    reduced = Reduced(PrincipalComponents(4)).fit(CALIBRATION)
    pca = PCA(4, svd_solver="full").fit(CALIBRATION)
    assert reduced.bytes_per_vector == 16 and reduced.name == "PCA-k (k = 4)"
    assert np.allclose(reduced.similarity(VECTORS[:20], reduced.store(VECTORS[20:])),
                       _cosines(pca.transform(VECTORS[:20]), pca.transform(VECTORS[20:])), atol=1e-4)


def test_recall_and_mrr_by_hand():
    from sbert_workbook.cost.frontier import mrr_at_k, recall_at_k

    found = np.array([[3, 1, 2], [0, 5, 4], [7, 8, 9]])
    assert recall_at_k(found, [1, 4, 0]) == pytest.approx(2 / 3)
    assert mrr_at_k(found, [1, 4, 0]) == pytest.approx((1 / 2 + 1 / 3 + 0) / 3)


def test_the_frontier_measures_every_storage_against_float32_in_one_run():
    from sbert_workbook.cost.frontier import measure
    from sbert_workbook.cost.storage import Binary, Float32, Int8
    from sbert_workbook.data.records import StsData
    from sbert_workbook.diagnosis.ladder import PairVectors

    rng = np.random.default_rng(1)
    corpus_vectors = rng.normal(size=(60, 13)).astype(np.float32)
    sentences = [f"s{i}" for i in range(60)]
    gold = rng.uniform(0, 5, size=30)
    sts = StsData("toy", "test", sentences[:30], sentences[30:], gold, ["toy"] * 30, "toy", (0.0, 5.0))
    pairs = PairVectors({"toy": sts}, sentences, corpus_vectors)
    queries = corpus_vectors[:10] + 0.05 * rng.normal(size=(10, 13)).astype(np.float32)
    frontier = measure([Float32(), Int8(), Binary()], CALIBRATION, pairs, queries, corpus_vectors, list(range(10)),
                       k=5, repeats=2, resamples=100)
    table = frontier.table
    assert list(table.index) == ["float32", "int8", "binary"]
    assert table["bytes per vector"].tolist() == [52, 13, 2] and table["dimensions"].tolist() == [13, 13, 13]
    assert frontier.intervals["binary"] == frontier.change("binary", "float32", resamples=100)
    assert table.loc["float32", "time vs float32"] == 1.0 and table.loc["float32", "recall@5"] == 1.0
    from scipy.stats import spearmanr
    expected = 100 * spearmanr(_cosines(corpus_vectors[:30], corpus_vectors[30:]), gold).statistic
    assert table.loc["float32", "STS avg"] == pytest.approx(expected, abs=1e-6)
    assert set(frontier.intervals) == {"int8", "binary"}
    assert frontier.intervals["int8"].difference == pytest.approx(table.loc["int8", "STS avg"] - expected, abs=1e-6)
    between = frontier.change("binary", "int8", resamples=100)  # any two storages, on the same pairs
    assert between.difference == pytest.approx(table.loc["binary", "STS avg"] - table.loc["int8", "STS avg"], abs=1e-6)
    assert frontier.change("int8", "float32", resamples=100).difference == pytest.approx(
        frontier.intervals["int8"].difference, abs=1e-9)


# ----------------------------------------------------------------------------- the static model
def test_the_static_model_is_the_recipe_its_module_states(tmp_path):
    """Re-derive model2vec's table from the three steps sbert_workbook.cost.static_model names (each token passed
    alone, mean-pooled; PCA; Zipf-SIF weights by vocabulary rank) on a tiny random BERT, and compare."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertModel

    from sbert_workbook.cost.static_model import distil_static_model, static_vectors
    from sbert_workbook.encoding.resolve import resolve_model

    tokenizer = AutoTokenizer.from_pretrained(resolve_model("embedded").path)
    torch.manual_seed(0)
    model = BertModel(BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=1,
                                 num_attention_heads=2, intermediate_size=64), add_pooling_layer=False).eval()
    model.save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    static = distil_static_model(tmp_path, pca_dims=8)
    ids = [tokenizer.convert_tokens_to_ids(token) for token in static.tokens]
    with torch.no_grad():
        passes = torch.tensor([[tokenizer.cls_token_id, i, tokenizer.sep_token_id] for i in ids])
        alone = model(input_ids=passes, token_type_ids=torch.zeros_like(passes)).last_hidden_state.mean(dim=1).double().numpy()
    centred = alone - alone.mean(axis=0)
    _, vectors = np.linalg.eigh(centred.T @ centred / (len(alone) - 1))
    projected = centred @ vectors[:, ::-1][:, :8]
    zipf = 1 / np.arange(2, len(alone) + 2)
    expected = projected * (1e-4 / (1e-4 + zipf / zipf.sum()))[:, None]
    table = np.asarray(static.embedding, dtype=np.float64)
    signs = np.sign((table * expected).sum(axis=0))
    assert np.allclose(table, expected * signs, atol=2e-3 * np.abs(expected).max())
    sentence = static_vectors(static, ["a man plays"])[0]
    rows = [static.tokens.index(token) for token in tokenizer.tokenize("a man plays")]
    mean = table[rows].mean(axis=0)
    assert np.allclose(sentence, mean / np.linalg.norm(mean), atol=1e-3)


def test_a_folder_that_is_not_a_model_is_refused_before_distilling(tmp_path):
    from sbert_workbook.cost.static_model import distil_static_model

    with pytest.raises(ValueError, match="not a model folder"):
        distil_static_model(tmp_path)


def test_the_hnsw_index_finds_the_exact_neighbours_when_it_may_visit_every_vector():
    from sbert_workbook.cost.storage import ApproximateIndex, Float32

    exact = Float32().fit(CALIBRATION)
    index = ApproximateIndex(connectivity=16, expansion=64).fit(CALIBRATION)
    assert index.bytes_per_vector == 52 + 128
    found = index.search(VECTORS[:10], index.store(VECTORS), 5)  # 40 vectors, ef 64: the walk sees them all
    assert np.array_equal(found, exact.search(VECTORS[:10], exact.store(VECTORS), 5))


def test_popcount_counts_the_bits_of_every_byte_either_way(monkeypatch):
    from sbert_workbook.cost import compressed_search

    every_byte = np.arange(256, dtype=np.uint8)
    by_hand = np.array([bin(b).count("1") for b in range(256)])
    assert np.array_equal(compressed_search.popcount(every_byte), by_hand)
    monkeypatch.delattr(np, "bitwise_count", raising=False)  # NumPy before 2.0
    assert np.array_equal(compressed_search.popcount(every_byte), by_hand)


# ----------------------------------------------------------------------------- §3's centred first k, recall's paired change
def test_the_centred_first_k_is_the_first_k_of_the_vectors_minus_the_calibration_mean():
    from sbert_workbook.calibration.dimensions import CentredFirstDimensions

    got = CentredFirstDimensions(4).fit(CALIBRATION).transform(VECTORS).double().numpy()
    assert np.allclose(got, (VECTORS - CALIBRATION.mean(axis=0))[:, :4], atol=1e-6)


def test_recall_change_is_the_paired_difference_of_hits_over_the_same_queries():
    from sbert_workbook.cost.frontier import Frontier

    hits = {"a": np.array([1.0, 1, 0, 1, 1, 0]), "b": np.array([1.0, 0, 0, 0, 1, 0])}
    frontier = Frontier(None, None, {}, hits=hits)
    change = frontier.recall_change("a", "b", resamples=500)
    assert change.difference == pytest.approx(4 / 6 - 2 / 6) and change.low <= change.difference <= change.high
    assert "6 queries" in change.method


# ----------------------------------------------------------------------------- §5.1: the growing corpus
def test_overlap_with_exact_search_by_hand():
    from sbert_workbook.cost.sweep import overlap_at_k

    assert overlap_at_k(np.array([[1, 2], [3, 4]]), np.array([[2, 9], [4, 3]])) == pytest.approx((1 / 2 + 2 / 2) / 2)
    with pytest.raises(ValueError, match="must both be"):
        overlap_at_k(np.array([[1, 2]]), np.array([[1, 2, 3]]))


def test_the_sweep_reads_each_storage_against_exact_search_at_every_size():
    from sbert_workbook.cost.sweep import EXACT, corpus_sweep, overlap_at_k

    corpus = RNG.normal(size=(60, 13)).astype(np.float32)
    queries = corpus[:8] + 0.1 * RNG.normal(size=(8, 13)).astype(np.float32)
    table = corpus_sweep(queries, corpus, CALIBRATION, sizes=(20, 60, 999), k=5, repeats=1)
    assert sorted(set(table["corpus"])) == [20, 60]  # a size beyond the corpus is left out
    assert (table[table["storage"] == EXACT]["recall@5 vs exact"] == 1.0).all()
    assert (table[table["storage"] == EXACT]["time vs exact"] == 1.0).all()
    exact = np.argsort(-(1 - cdist(queries, corpus[:60], "cosine")), axis=1)[:, :5]  # scipy's cosine, by brute force
    as_int8 = lambda x: quantize_embeddings(x, "int8", calibration_embeddings=CALIBRATION).astype(float)  # noqa: E731
    int8_found = np.argsort(-(1 - cdist(as_int8(queries), as_int8(corpus[:60]), "cosine")), axis=1, kind="stable")[:, :5]
    row = table[(table["corpus"] == 60) & (table["storage"] == "int8")].iloc[0]
    assert row["recall@5 vs exact"] == pytest.approx(overlap_at_k(int8_found, exact))
    hnsw = table[(table["corpus"] == 60) & table["storage"].str.startswith("HNSW")].iloc[0]
    assert hnsw["recall@5 vs exact"] == 1.0  # 60 vectors, ef 64: the walk sees them all


def test_a_crossing_is_the_size_from_which_a_storage_stays_faster_than_exact_search():
    import pandas as pd

    from sbert_workbook.cost.sweep import EXACT, crossings

    rows = [(n, EXACT, 1.0) for n in (1, 2, 3, 4)] + [(1, "graph", 0.5), (2, "graph", 1.5), (3, "graph", 0.9),
                                                      (4, "graph", 0.2)] + [(n, "slow", 2.0) for n in (1, 2, 3, 4)]
    table = pd.DataFrame(rows, columns=["corpus", "storage", "time vs exact"])
    assert crossings(table) == {"graph": 3, "slow": None}  # faster at 1, slower at 2: it crosses for good at 3


def test_rescoring_with_a_multiplier_of_one_reorders_binarys_own_top_k():
    from sbert_workbook.cost.sweep import overlap_at_k, rescoring_sweep

    corpus = RNG.normal(size=(80, 16)).astype(np.float32)
    queries = corpus[:6] + 0.1 * RNG.normal(size=(6, 16)).astype(np.float32)
    bits = lambda x: np.unpackbits(quantize_embeddings(x, "ubinary"), axis=1)  # noqa: E731 - sentence-transformers' bits
    hamming = (bits(queries)[:, None, :] != bits(corpus)[None, :, :]).sum(axis=2)
    binary_found = np.argsort(hamming, axis=1, kind="stable")[:, :5]
    exact = np.argsort(-(1 - cdist(queries, corpus, "cosine")), axis=1)[:, :5]
    table = rescoring_sweep(queries, corpus, CALIBRATION[:, :13].repeat(2, axis=1)[:, :16], (1, 16), k=5, repeats=1)
    assert table.loc[1, "recall@5 vs exact"] == pytest.approx(overlap_at_k(binary_found, exact))
    assert table.loc[16, "candidates read"] == 80
