"""Anisotropy measures against synthetic data with known answers, brute force and reference code; its figures carry the data they are given."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
import torch
from scipy.spatial.distance import cdist
from sklearn.decomposition import PCA

from sbert_workbook.anisotropy import metrics as an
from sbert_workbook.anisotropy import plots as ap
from sbert_workbook.evaluation import geometry
from sbert_workbook.anisotropy import word_frequency as wf
from sbert_workbook.encoding.views import layer_vectors
from sbert_workbook.evaluation.similarity import mean_cosine


# ----------------------------------------------------------------------------- the cone
def test_isotropic_gaussian_has_mean_cosine_near_zero_and_a_flat_spectrum():
    x = np.random.default_rng(1).normal(size=(6000, 20))
    assert abs(mean_cosine(x)) < 0.01
    ratios = geometry.principal_variance_ratios(x)
    assert ratios.sum() == pytest.approx(1.0)
    assert ratios.max() < 1.3 / 20 and ratios.min() > 0.7 / 20


def test_shifted_cone_has_high_mean_cosine_and_one_dominant_uncentred_direction():
    x = np.random.default_rng(2).normal(size=(2000, 20)) + 4.0  # common direction (1, …, 1)
    assert mean_cosine(x) > 0.9
    ratios = geometry.principal_variance_ratios(x, center=False)
    assert ratios[0] > 0.9
    # centring removes the shared direction: what is left is isotropic again
    assert geometry.principal_variance_ratios(x)[0] < 1.3 / 20


def test_principal_variance_ratios_match_sklearn_pca():
    x = np.random.default_rng(3).normal(size=(300, 8)) @ np.diag([5, 4, 3, 2, 1, 1, 0.5, 0.1])
    expected = PCA().fit(x).explained_variance_ratio_
    assert np.allclose(geometry.principal_variance_ratios(x), expected, atol=1e-10)


def test_random_pair_cosines_never_pair_a_vector_with_itself():
    # rows of the identity are orthogonal: every distinct pair has cosine 0, a self-pair would give 1
    cosines = an.random_pair_cosines(np.eye(5), n_pairs=500, seed=0)
    assert cosines.shape == (500,) and np.allclose(cosines, 0)


def test_a_resampled_mean_cosine_leaves_out_pairs_of_one_sentence_drawn_twice():
    x = np.random.default_rng(2).normal(size=(6, 4)) + 1.0
    assert an.resampled_mean_cosine(x, np.ones(6))[0] == pytest.approx(mean_cosine(x))
    weights = np.array([2, 0, 1, 3, 0, 0])
    drawn = np.repeat(np.arange(6), weights)  # the resample: sentence 0 twice, 2 once, 3 three times
    unit = x / np.linalg.norm(x, axis=1, keepdims=True)
    by_hand = [unit[i] @ unit[j] for a, i in enumerate(drawn) for b, j in enumerate(drawn) if a != b and i != j]
    assert an.resampled_mean_cosine(x, weights)[0] == pytest.approx(np.mean(by_hand))


def test_mean_cosine_intervals_part_a_cone_from_a_ball_and_tie_two_balls():
    rng = np.random.default_rng(4)
    ball = rng.normal(size=(300, 8))
    views = {"cone": ball + 3.0, "ball": ball, "another ball": rng.normal(size=(300, 8))}
    intervals = an.mean_cosine_intervals(views, [("cone", "ball"), ("ball", "another ball")], resamples=300)
    cone = intervals["cone − ball"]
    assert cone.verdict == "apart" and cone.difference == pytest.approx(mean_cosine(views["cone"]) - mean_cosine(ball))
    assert cone.low < cone.difference < cone.high and "300 sentences" in cone.method
    assert intervals["ball − another ball"].verdict == "tie"
    with pytest.raises(ValueError, match="same sentences"):
        an.mean_cosine_intervals({"a": ball, "b": ball[:10]}, [("a", "b")])


def test_matrix_of_one_vector_is_rejected_with_a_clear_message():
    with pytest.raises(ValueError, match="at least 2 vectors"):
        geometry.principal_variance_ratios(np.ones((1, 3)))


# ----------------------------------------------------------------------------- k nearest neighbours
@pytest.mark.parametrize("chunk_size", [1, 7, 1000])
def test_knn_matches_brute_force_whatever_the_chunk_size(chunk_size):
    x = np.random.default_rng(4).normal(size=(50, 5)).astype(np.float32)
    queries = np.array([0, 3, 17, 49])
    distances, indices = an.knn(x, k=4, queries=queries, chunk_size=chunk_size)
    full = cdist(x[queries], x)
    full[np.arange(len(queries)), queries] = np.inf
    expected = np.argsort(full, axis=1)[:, :4]
    assert np.array_equal(indices, expected)
    assert np.allclose(distances, np.take_along_axis(full, expected, axis=1), atol=1e-4)


def test_knn_rejects_k_as_large_as_the_set():
    with pytest.raises(ValueError, match="k=3"):
        an.knn(np.eye(3), k=3)


# ----------------------------------------------------------------------------- the BERT-flow table
def test_bucket_labels_read_like_the_paper():
    assert [an.bucket_label(b) for b in an.BERT_FLOW_BUCKETS] == ["[0, 100)", "[100, 500)", "[500, 5K)", "[5K, …)"]
    assert an.bucket_of(np.array([0, 99, 100, 4999, 5000, 10 ** 6, -1])).tolist() == [0, 0, 1, 2, 3, 3, -1]


def test_frequency_bucket_table_equals_a_hand_computation():
    # five tokens on a line; the unranked one at 1.5 would be everyone's neighbour if it took part
    x = np.array([[1.0, 0], [2, 0], [4, 0], [7, 0], [1.5, 0]])
    ranks = np.array([0, 1, 2, 3, -1])
    table = an.frequency_bucket_table(x, ranks, buckets=((0, 2), (2, None)), k_values=(1, 2))
    a, b = "[0, 2)", "[2, …)"
    # norms: (1+2)/2 and (4+7)/2
    assert table.loc["mean L2 norm", a] == pytest.approx(1.5) and table.loc["mean L2 norm", b] == pytest.approx(5.5)
    # 1-NN: 0→1 (1), 1→0 (1) | 2→1 (2), 3→2 (3)
    assert table.loc["mean k-NN L2 distance (k=1)"].tolist() == pytest.approx([1.0, 2.5])
    # 2-NN: 0→{1,2} (1,3), 1→{0,2} (1,2) | 2→{1,3} (2,3), 3→{2,1} (3,5)
    assert table.loc["mean k-NN L2 distance (k=2)"].tolist() == pytest.approx([1.75, 3.25])
    # dot products with the same neighbours: (2, 2) | (8, 28); then (2,4),(2,8) | (8,28),(28,14)
    assert table.loc["mean k-NN dot product (k=1)"].tolist() == pytest.approx([2.0, 18.0])
    assert table.loc["mean k-NN dot product (k=2)"].tolist() == pytest.approx([4.0, 19.5])
    assert table.loc["tokens"].tolist() == [2, 2]


def test_frequency_bucket_table_with_sampled_queries_stays_close_to_the_full_table():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(600, 8))
    ranks = rng.permutation(600)
    buckets = ((0, 100), (100, None))
    full = an.frequency_bucket_table(x, ranks, buckets=buckets, k_values=(3,))
    sampled = an.frequency_bucket_table(x, ranks, buckets=buckets, k_values=(3,), queries_per_bucket=80, seed=1)
    assert np.allclose(full.loc["mean L2 norm"], sampled.loc["mean L2 norm"])  # norms always use every token
    assert np.allclose(full.loc["mean k-NN L2 distance (k=3)"], sampled.loc["mean k-NN L2 distance (k=3)"], rtol=0.05)
    assert "80 random tokens" in sampled.attrs["provenance"]["queries"]


def test_empty_bucket_and_wrong_rank_count_are_explained():
    with pytest.raises(ValueError, match="No ranked token falls in bucket"):
        an.frequency_bucket_table(np.eye(4), np.arange(4), buckets=((0, 2), (10, None)), k_values=(1,))
    with pytest.raises(ValueError, match="one rank per row"):
        an.frequency_bucket_table(np.eye(4), np.arange(3))


def test_reference_beside_pairs_each_metric_with_the_published_row():
    table = an.frequency_bucket_table(np.random.default_rng(6).normal(size=(6000, 4)), np.arange(6000), k_values=(3,),
                                      queries_per_bucket=20)
    beside = an.reference_beside(table)
    assert list(beside.columns) == list(table.columns)
    for metric, published in an.BERT_FLOW_REFERENCE.items():
        assert beside.loc[f"{metric} — yours"].tolist() == pytest.approx(table.loc[metric].tolist())
        assert beside.loc[f"{metric} — bert-base-uncased, published"].tolist() == list(published)


# ----------------------------------------------------------------------------- alignment and uniformity
def test_alignment_by_hand_and_scale_invariant():
    x, y = np.array([[3.0, 0], [0, 2]]), np.array([[0, 5.0], [0, 1]])
    # pair 1: unit vectors (1,0),(0,1): ‖·‖² = 2; pair 2: identical directions: 0
    assert geometry.alignment(x, y) == pytest.approx(1.0)
    assert geometry.alignment(x, y, alpha=1) == pytest.approx(np.sqrt(2) / 2)


def test_uniformity_matches_wang_and_isola_reference_code():
    x = torch.randn(300, 16, generator=torch.Generator().manual_seed(7))
    unit = torch.nn.functional.normalize(x.double(), dim=1)
    reference = torch.pdist(unit, p=2).pow(2).mul(-2).exp().mean().log()  # Wang & Isola (2020), Appendix
    assert geometry.uniformity(x, chunk_size=37) == pytest.approx(float(reference), abs=1e-9)


def test_collapsed_embeddings_are_maximally_non_uniform():
    assert geometry.uniformity(np.ones((10, 3))) == pytest.approx(0.0)


# ----------------------------------------------------------------------------- layer views on the real model
def test_layer_views_agree_with_the_encoders_poolings(encoder):
    sentences = ["A man is playing a guitar.", "Dogs run.", "The weather today is sunny and warm in the city centre."]
    views = an.layer_views(encoder, sentences, batch_size=2)
    assert [len(views[name]) for name in ("mean", "cls", "tokens")] == [encoder.num_hidden_states] * 3
    assert np.allclose(views["mean"][-1], encoder.encode(sentences, pooling="mean").numpy(), atol=1e-5)
    assert np.allclose(views["mean"][0], encoder.encode(sentences, pooling="static").numpy(), atol=1e-5)
    assert np.allclose(views["cls"][-1], encoder.encode(sentences, pooling="cls").numpy(), atol=1e-5)
    real_tokens = sum(len(ids) for ids in encoder.tokenizer(sentences, add_special_tokens=False)["input_ids"])
    assert views["tokens"][0].shape == (real_tokens, encoder.hidden_size)
    table = an.layerwise_anisotropy(views)
    assert table.shape == (encoder.num_hidden_states, 3)
    assert table.loc[2, "tokens"] == pytest.approx(mean_cosine(views["tokens"][2]))


def test_layer_views_draw_the_same_tokens_as_indexing_every_token(encoder):
    """The token sample is drawn from all the sentences' tokens at once, in input order (a repeated sentence included);
    the pass keeps only the drawn ones."""
    sentences = ["A man is playing a guitar.", "Dogs run.", "Dogs run.", "The weather is sunny and warm in the city.",
                 "A woman slices an onion.", "Two kids play football in the park."]
    every_token = torch.cat(layer_vectors(encoder, sentences, ("tokens",), batch_size=4)["tokens"], dim=1)
    drawn = np.sort(np.random.default_rng(3).permutation(every_token.shape[1])[:9])
    views = an.layer_views(encoder, sentences, batch_size=2, max_tokens=9, seed=3)
    assert np.allclose(np.stack(views["tokens"]), every_token[:, drawn].numpy(), atol=1e-5)
    assert np.allclose(views["mean"][-1], encoder.encode(sentences, pooling="mean").numpy(), atol=1e-5)
    assert np.allclose(views["cls"][0], layer_vectors(encoder, sentences, ("cls",))["cls"][0].numpy(), atol=1e-5)


# ----------------------------------------------------------------------------- word frequency
def test_frequency_ranks_by_hand():
    freqs = np.array([0.1, 0.0, 0.5, 0.1, 0.3])
    assert wf.frequency_ranks(freqs).tolist() == [2, -1, 0, 3, 1]  # tie 0.1/0.1 keeps id order
    eligible = np.array([True, True, True, True, False])
    assert wf.frequency_ranks(freqs, eligible).tolist() == [1, -1, 0, 2, -1]


def test_corpus_counts_rank_tokens_and_skip_special_ones(encoder):
    tok = encoder.tokenizer
    freqs = wf.corpus_token_frequencies(tok, ["the cat and the dog", "the [SEP] cat"], "two toy sentences")
    the, cat = tok.convert_tokens_to_ids(["the", "cat"])
    assert freqs.ranks[the] == 0 and freqs.ranks[cat] == 1
    assert freqs.frequencies[the] == pytest.approx(3 / 7)  # the×3, cat×2, and, dog
    assert freqs.ranks[tok.sep_token_id] == -1 and freqs.ranks[tok.convert_tokens_to_ids("[unused0]")] == -1
    assert "two toy sentences" in freqs.describe()
    assert [freqs.tokens[i] for i in freqs.ranked_ids()[:2]] == ["the", "cat"]
    log_freq = wf.sentence_log_frequency(tok, ["the dog", "zebra"], freqs)
    assert log_freq[0] == pytest.approx((np.log10(3 / 7) + np.log10(1 / 7)) / 2) and np.isnan(log_freq[1])


def test_wordfreq_frequencies_follow_the_wordfreq_list(encoder):
    import wordfreq

    freqs = wf.wordfreq_token_frequencies(encoder.tokenizer, n_words=1000)
    the, of = encoder.tokenizer.convert_tokens_to_ids(["the", "of"])
    assert freqs.ranks[the] == 0
    expected = wordfreq.word_frequency("the", "en") / wordfreq.word_frequency("of", "en")
    assert freqs.frequencies[the] / freqs.frequencies[of] == pytest.approx(expected, rel=0.05)
    assert "wordfreq" in freqs.corpus and "1000 words" in freqs.corpus


# ----------------------------------------------------------------------------- the figures (checked on the figure, not on pixels)
def test_cosine_histogram_has_one_trace_per_view_named_with_its_mean():
    cosines = {"static": np.array([0.5, 0.7, 0.9]), "mean": np.array([-0.1, 0.1])}
    figure = ap.cosine_histogram_figure(cosines)
    assert isinstance(figure, go.Figure) and len(figure.data) == 2
    assert list(figure.data[0].x) == [0.5, 0.7, 0.9] and "mean 0.70" in figure.data[0].name
    assert "mean 0.00" in figure.data[1].name


def test_variance_spectrum_plots_the_leading_ratios_and_the_isotropic_level():
    ratios = {"a": np.array([0.5, 0.3, 0.1, 0.1]), "b": np.full(4, 0.25)}
    figure = ap.variance_spectrum_figure(ratios, top=3)
    assert list(figure.data[0].y) == [0.5, 0.3, 0.1] and list(figure.data[0].x) == [1, 2, 3]
    assert figure.layout.shapes[0].y0 == pytest.approx(0.25)


def test_cloud_with_numeric_colour_is_one_coloured_trace_plus_the_origin():
    points = np.arange(12, dtype=float).reshape(4, 3)
    figure = ap.embedding_cloud_3d_figure(points, [1.0, 2.0, 3.0, 4.0], "log frequency", hover=list("abcd"))
    assert len(figure.data) == 2 and figure.data[1].name == "origin"
    assert list(figure.data[0].marker.color) == [1.0, 2.0, 3.0, 4.0] and list(figure.data[0].z) == [2, 5, 8, 11]


def test_cloud_with_labels_has_one_trace_per_label_holding_its_points():
    points = np.arange(15, dtype=float).reshape(5, 3)
    figure = ap.embedding_cloud_3d_figure(points, ["stsb", "sick", "stsb", "snli", "sick"], "dataset", show_origin=False)
    assert [t.name for t in figure.data] == ["stsb", "sick", "snli"]
    assert list(figure.data[0].x) == [0, 6] and list(figure.data[1].x) == [3, 12]


def test_cloud_rejects_points_that_are_not_3d():
    with pytest.raises(ValueError, match=r"\(n, 3\)"):
        ap.embedding_cloud_3d_figure(np.zeros((4, 2)), [1, 2, 3, 4], "x")


def test_binned_means_by_hand():
    centres, means = ap.binned_means(np.array([0.0, 0.1, 0.9, 1.0]), np.array([1.0, 3.0, 10.0, 20.0]), bins=2)
    assert centres.tolist() == pytest.approx([0.25, 0.75]) and means.tolist() == pytest.approx([2.0, 15.0])


def test_norm_vs_log_frequency_puts_log10_frequency_on_x():
    figure = ap.norm_vs_log_frequency_figure(np.array([1.0, 2.0]), np.array([0.01, 0.0001]), ["the", "zebra"])
    assert list(figure.data[0].x) == pytest.approx([-2, -4]) and list(figure.data[0].y) == [1.0, 2.0]
    assert list(figure.data[0].text) == ["the", "zebra"] and figure.data[1].name == "mean per bin"


def test_knn_distance_by_rank_uses_a_log_rank_axis():
    figure = ap.knn_distance_by_rank_figure(np.array([0, 9, 99]), np.array([0.5, 0.8, 1.2]), ["a", "b", "c"], k=3)
    assert list(figure.data[0].x) == [1, 10, 100] and figure.layout.xaxis.type == "log"
    assert "3 nearest" in figure.layout.title.text


def test_word_map_groups_tokens_by_bucket():
    figure = ap.word_map_2d_figure(np.array([[0, 0], [1, 1], [2, 2]]), ["[0, 100)", "[5K, …)", "[0, 100)"],
                                   ["the", "zyx", "of"])
    assert [t.name for t in figure.data] == ["[0, 100)", "[5K, …)"] and list(figure.data[0].text) == ["the", "of"]


def test_bucket_bars_show_yours_and_published_for_every_bucket():
    table = an.frequency_bucket_table(np.random.default_rng(0).normal(size=(6000, 4)), np.arange(6000), k_values=(3,),
                                      queries_per_bucket=10)
    beside = an.reference_beside(table)
    figure = ap.bucket_figure(beside)
    assert len(figure.data) == len(beside) == 4
    published = [t for t in figure.data if "published" in t.name]
    assert list(published[0].y) == list(an.BERT_FLOW_REFERENCE["mean L2 norm"])
    assert list(figure.data[0].x) == list(table.columns)


def test_layerwise_figure_has_a_line_per_view():
    table = pd.DataFrame({"mean": [0.9, 0.5, 0.2], "tokens": [0.3, 0.4, 0.6]})
    figure = ap.layerwise_anisotropy_figure(table)
    assert [t.name for t in figure.data] == ["mean", "tokens"] and list(figure.data[1].y) == [0.3, 0.4, 0.6]


def test_alignment_uniformity_figure_needs_both_columns():
    table = pd.DataFrame({"alignment": [0.4, 1.1], "uniformity": [-3.5, -1.0]}, index=["mean", "cls"])
    figure = ap.alignment_uniformity_figure(table)
    assert list(figure.data[0].x) == [-3.5, -1.0] and list(figure.data[0].text) == ["mean", "cls"]
    with pytest.raises(KeyError, match="uniformity"):
        ap.alignment_uniformity_figure(table[["alignment"]])
