"""SIF and all-but-the-top against hand computations on tiny arrays, and on the 12-word GloVe fixture."""
from __future__ import annotations

import numpy as np
import pytest
from wordfreq import word_frequency

from sbert_workbook.calibration import word_vectors as wv
from sbert_workbook.calibration.all_but_the_top import AllButTheTop
from sbert_workbook.encoding import glove as gl

from test_glove import FIXTURE, FIXTURE_VECTORS


def test_sif_weights_are_a_over_a_plus_p():
    np.testing.assert_allclose(wv.sif_weights([0.0, 1e-3, 9e-3], a=1e-3), [1.0, 0.5, 0.1])


def test_word_probabilities_take_wordfreq_else_zipf_on_the_rank():
    p = wv.word_probabilities(["the", ","], np.array([0, 1]), scale=0.1)
    assert p[0] == word_frequency("the", "en") and p[1] == pytest.approx(0.1 / 2)  # wordfreq lists no ','
    scale = wv.zipf_scale(["the", ",", "of"], np.array([0, 1, 3]))  # the median of p(the)·1 and p(of)·4
    assert scale == pytest.approx((word_frequency("the", "en") + 4 * word_frequency("of", "en")) / 2)


def test_without_first_component_removes_the_top_singular_direction_as_natsv_does():
    from sbert_workbook.calibration.calibrators import NullTopDirections

    x = np.array([[2.0, 1.0], [2.0, -1.0]])  # XᵀX = diag(8, 2): the top direction is e1
    np.testing.assert_allclose(wv.without_first_component(x).numpy(), [[0.0, 1.0], [0.0, -1.0]], atol=1e-12)
    rng = np.random.default_rng(0)
    cloud = rng.normal(size=(40, 6)) + 3.0  # one common direction, like a cone
    np.testing.assert_allclose(wv.without_first_component(cloud).numpy(),
                               NullTopDirections(1).fit_transform(cloud).numpy(), atol=1e-5)


def test_all_but_the_top_centres_then_nulls_the_top_direction():
    vectors = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 1.0], [4.0, 1.0]])  # mean (2, .5); centred scatter diag(16, 1)
    fix = wv.vocabulary_all_but_the_top(vectors, 1)
    np.testing.assert_allclose(fix.mean_, [2.0, 0.5])
    np.testing.assert_allclose(fix.directions_.abs(), [[1.0], [0.0]], atol=1e-12)
    processed = wv.all_but_the_top_words(fix, vectors)
    assert processed.dtype == np.float64  # word vectors stay float64 (AllButTheTop.transform gives float32)
    np.testing.assert_allclose(processed, [[0.0, -0.5], [0.0, -0.5], [0.0, 0.5], [0.0, 0.5]], atol=1e-12)
    centring = AllButTheTop.of_axes(fix.mean_, fix.directions_[:, :0])  # D = 0: centring only
    np.testing.assert_allclose(wv.all_but_the_top_words(centring, vectors), vectors - [2.0, 0.5])
    with pytest.raises(ValueError, match=r"directions of shape \(dim, D\)"):
        AllButTheTop.of_axes(fix.mean_, fix.directions_.T)  # rows instead of columns


def test_the_vocabulary_fit_sums_the_scatter_chunk_by_chunk_and_is_the_calibrators_fit(monkeypatch):
    """05 §11 reads GloVe's 400K vectors in chunks; the directions are PCA's, computed here by an SVD of the whole."""
    vectors = (np.random.default_rng(3).normal(size=(1001, 5)) * [5.0, 3.0, 2.0, 1.0, 0.5] + 4.0).astype(np.float32)
    monkeypatch.setattr(wv, "SCATTER_CHUNK", 100)  # ten full chunks and a last row alone
    fix = wv.vocabulary_all_but_the_top(vectors, 2)
    whole = vectors.astype(np.float64)
    np.testing.assert_allclose(fix.mean_, whole.mean(axis=0), rtol=1e-12)
    top = np.linalg.svd(whole - whole.mean(axis=0), full_matrices=False)[2][:2]
    np.testing.assert_allclose(np.abs((fix.directions_.numpy().T * top).sum(axis=1)), [1.0, 1.0], atol=1e-10)
    fitted = AllButTheTop(2).fit(vectors)  # the same calibrator fitted on the rows at once, in float32 at the end
    np.testing.assert_allclose(fix.transform(vectors).numpy(), fitted.transform(vectors).numpy(), atol=1e-5)
    np.testing.assert_allclose(wv.all_but_the_top_words(fix, whole), (whole - whole.mean(axis=0)) @ (np.eye(5) - top.T @ top),
                               atol=1e-10)


def test_all_but_the_top_encoder_averages_processed_word_vectors():
    glove = gl.load_glove(FIXTURE)
    mean = FIXTURE_VECTORS.mean(axis=0)
    centred = FIXTURE_VECTORS - mean
    top = np.linalg.svd(centred, full_matrices=False)[2][:2]  # PCA's top 2 directions, computed another way
    processed = centred - centred @ top.T @ top
    got = wv.all_but_the_top_encoder(glove, 2).encode(["the man"])[0]
    np.testing.assert_allclose(got, (processed[0] + processed[4]) / 2, atol=1e-9)


def test_sif_embed_weights_then_removes_the_first_component():
    glove = gl.load_glove(FIXTURE)
    scale = wv.zipf_scale(glove.words, np.arange(len(glove.words)))
    p = wv.word_probabilities(list(glove.words), np.arange(len(glove.words)), scale)
    w = 1e-3 / (1e-3 + p)
    v = FIXTURE_VECTORS
    sentences = ["the man is playing", "a guitar .", "do n't"]
    averaged = np.array([(w[0] * v[0] + w[4] * v[4] + w[5] * v[5] + w[6] * v[6]) / 4,
                         (w[3] * v[3] + w[7] * v[7] + w[2] * v[2]) / 3, (w[8] * v[8] + w[9] * v[9]) / 2])
    np.testing.assert_allclose(wv.sif_encoder(glove).encode(sentences), averaged)
    top = np.linalg.svd(averaged)[2][0]
    np.testing.assert_allclose(wv.sif_embed(glove)(sentences), averaged - np.outer(averaged @ top, top), atol=1e-12)


def test_the_fixes_table_starts_from_the_table1_glove_row(shared_data):
    if not gl.glove_available():
        pytest.skip(f"GloVe is not installed: {gl.GLOVE_INSTALL}")
    from sbert_workbook.evaluation.baselines import glove_row

    table = wv.word_vector_fixes_table(gl.load_glove(), ("stsb", "sickr"), limit=30, d_values=(1,), data_dir=shared_data)
    assert list(table.index) == ["avg GloVe", wv.STOP_WORDS_ROW, "SIF weights only", "remove 1st PC only", "SIF (weights + remove 1st PC)",
                                 "all-but-the-top (D=1)"]
    np.testing.assert_allclose(table.loc["avg GloVe"], glove_row(("stsb", "sickr"), limit=30, data_dir=shared_data))
    assert "stsb 30" in table.attrs["provenance"]["pairs"]
    from sbert_workbook.evaluation.sts import evaluate_sts

    dropped = evaluate_sts(gl.GloveEncoder(gl.load_glove(), drop_stop_words=True), ("stsb", "sickr"), limit=30,
                           data_dir=shared_data)["spearman"]
    np.testing.assert_allclose(table.loc[wv.STOP_WORDS_ROW], dropped)
