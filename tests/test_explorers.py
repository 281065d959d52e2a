"""The explorers' numbers against independent references (scipy, sentence-transformers, hand-made data).

The browser tests (test_browser.py) prove that the figures render and respond; these prove
that what they show is right.
"""
from __future__ import annotations


import numpy as np
import pytest
import torch
from scipy.spatial.distance import pdist

from sbert_workbook.classroom import explorers
from sbert_workbook.data import StsData

SENTENCES = ["A man is playing a guitar.", "A woman slices an onion.", "The stock market fell sharply today.",
             "Two dogs run through the snow.", "A child reads a book in the library.", "It is raining in Paris."]


def test_uncentred_view_shows_a_cone_far_from_the_origin_and_centring_opens_it():
    rng = np.random.default_rng(1)
    cone = np.array([5.0, 0, 0, 0]) + rng.normal(scale=0.5, size=(40, 4))  # all near one direction
    points = explorers.uncentred_2d(cone)
    assert np.all(np.sign(points[:, 0]) == np.sign(points[0, 0])) and np.abs(points[:, 0]).min() > 0.8
    centred = explorers.uncentred_2d(cone - cone.mean(0))
    assert abs(centred[:, 0].mean()) < 0.1 and abs(centred[:, 1].mean()) < 0.1


def test_embedding_figure_shows_pair_cosines_and_the_effect_of_centring():
    rng = np.random.default_rng(2)
    layers = np.stack([np.array([3.0, 0, 0, 0, 0]) + rng.normal(size=(30, 5)), rng.normal(size=(30, 5))])
    figure = explorers.embedding_figure(layers, layer=0, model_name="hand-made")
    histogram, points, per_layer, marker = figure.data
    np.testing.assert_allclose(np.asarray(histogram.x), 1 - pdist(layers[0], "cosine"), atol=1e-6)
    means = [np.mean(1 - pdist(v, "cosine")) for v in layers]
    np.testing.assert_allclose(per_layer.y, means, atol=1e-6)
    assert list(marker.x) == [0] and marker.y[0] == pytest.approx(means[0])
    assert len(points.x) == 30 and f"{means[0]:.3f}" in figure.layout.title.text and "435 pairs" in figure.layout.title.text
    assert means[0] > 0.5  # the shifted layer is anisotropic ...
    centred = explorers.embedding_figure(layers, layer=0, centre=True)
    assert centred.data[2].y[0] < 0.05 and "mean vector removed" in centred.layout.title.text  # ... until centred


def test_layer_vectors_match_sentence_transformers_and_do_not_depend_on_batching(encoder, st_model):
    vectors = explorers.layer_sentence_vectors(encoder, SENTENCES, batch_size=4)
    assert vectors.shape == (encoder.num_hidden_states, len(SENTENCES), encoder.hidden_size)
    reference = st_model.encode(SENTENCES, convert_to_numpy=True)  # mean pooling, then unit length
    np.testing.assert_allclose(explorers.unit_rows(vectors[-1]), reference, atol=1e-5)
    np.testing.assert_allclose(explorers.layer_sentence_vectors(encoder, SENTENCES, batch_size=1), vectors, atol=1e-5)


def test_pair_figure_matches_sentence_transformers_token_embeddings(encoder, st_model):
    a, b = SENTENCES[0], "A person plays the guitar."
    (tokens_a, vectors_a), (tokens_b, vectors_b) = explorers.token_vectors(encoder, a), explorers.token_vectors(encoder, b)
    assert tokens_a[0] == "[CLS]" and tokens_a[-1] == "[SEP]" and "guitar" in tokens_b
    last = len(vectors_a) - 1
    figure = explorers.pair_figure(tokens_a, vectors_a, tokens_b, vectors_b, last, gold=4.2, model_name="m")
    heatmap, per_layer, marker = figure.data
    token_a, token_b = (st_model.encode(s, output_value="token_embeddings", convert_to_tensor=True) for s in (a, b))
    expected = torch.nn.functional.cosine_similarity(token_a[:, None], token_b[None], dim=-1).numpy()
    np.testing.assert_allclose(np.asarray(heatmap.z), expected, atol=1e-5)
    sentence_a, sentence_b = st_model.encode([a, b])
    assert per_layer.y[last] == pytest.approx(float(sentence_a @ sentence_b), abs=1e-5)
    assert marker.y[0] == per_layer.y[last] and "gold score 4.2 / 5" in figure.layout.title.text
    assert len(set(heatmap.y)) == len(heatmap.y), "repeated tokens get distinct axis labels"


def test_pair_explorer_redraws_and_explains_an_empty_box(encoder, shown):
    pairs = StsData("toy", "dev", ["A cat sleeps.", "Stocks fell."], ["A cat is sleeping.", "A dog barks."],
                    np.array([4.6, 0.2]), ["toy", "toy"])
    box = explorers.pair_explorer(encoder, pairs)
    picker, figure_box = box.children
    labels = [label for label, _ in picker.options]
    assert labels[0] == explorers.OWN_PAIR and labels[1].startswith("gold 4.6") and labels[2].startswith("gold 0.2")
    sentence_a, sentence_b, layer = figure_box.children[0].children
    assert shown and "gold" not in shown[-1].layout.title.text  # the default pair is typed, not from the data
    picker.value = 1
    assert (sentence_a.value, sentence_b.value) == ("Stocks fell.", "A dog barks.")
    assert "gold score 0.2 / 5" in shown[-1].layout.title.text
    layer.value = 0
    assert "at layer 0" in shown[-1].layout.title.text
    sentence_a.value = "   "
    assert "both boxes" in shown[-1].value  # a message widget, not a traceback


def test_embedding_explorer_needs_three_different_sentences(encoder):
    with pytest.raises(ValueError, match="at least 3 different sentences, got 2"):
        explorers.embedding_explorer(encoder, ["One.", "Two.", "One."])


def test_pair_picker_starts_on_typed_sentences_and_returns_there_when_a_box_is_typed_in(encoder, shown):
    pairs = StsData("toy", "dev", ["A cat sleeps.", "Stocks fell."], ["A cat is sleeping.", "A dog barks."],
                    np.array([4.6, 0.2]), ["toy", "toy"])
    picker, figure_box = explorers.pair_explorer(encoder, pairs).children
    sentence_a, sentence_b, _layer = figure_box.children[0].children
    assert picker.label == explorers.OWN_PAIR, "the picker names what the boxes hold, never starts blank"
    picker.value = 0
    assert picker.label.startswith("gold 4.6") and (sentence_a.value, sentence_b.value) == ("A cat sleeps.", "A cat is sleeping.")
    sentence_b.value = "A cat is awake."
    assert picker.label == explorers.OWN_PAIR and "gold" not in shown[-1].layout.title.text


def test_classroom_model_line_names_the_model_without_a_path(encoder, tmp_path):
    from dataclasses import replace

    from sbert_workbook.classroom.page_setup import model_line

    assert model_line(encoder.resolved) == "model: all-MiniLM-L6-v2, offline copy — see the teacher's notes"
    hub = replace(encoder.resolved, source="hub cache", model_id="bert-base-uncased", path=tmp_path / "snapshots" / "abc")
    assert model_line(hub) == "model: bert-base-uncased"
    folder = replace(encoder.resolved, source="local folder", model_id="my-sbert", path=tmp_path / "my-sbert")
    assert str(tmp_path) not in model_line(folder) and model_line(folder).startswith("model: my-sbert")


@pytest.fixture
def library_output_restored(monkeypatch):
    """The classroom app silences transformers' and huggingface_hub's bars and logs for good: undo it after the test."""
    from huggingface_hub.utils import are_progress_bars_disabled, enable_progress_bars
    from transformers.utils import logging as transformers_logging

    from sbert_workbook.classroom.page_setup import QUIET_LIBRARY_ENV

    for name in QUIET_LIBRARY_ENV:
        monkeypatch.delenv(name, raising=False)  # remembered, and restored after the test
    verbosity, bar, hub_bars_off = (transformers_logging.get_verbosity(), transformers_logging.is_progress_bar_enabled(),
                                    are_progress_bars_disabled())
    yield
    transformers_logging.set_verbosity(verbosity)
    if bar:
        transformers_logging.enable_progress_bar()
    if not hub_bars_off:
        enable_progress_bars()


def test_classroom_encoder_prints_only_the_model_line(capsys, monkeypatch, library_output_restored):
    from sbert_workbook.classroom import page_setup as classroom

    monkeypatch.setenv(classroom.CLASSROOM_MODEL_ENV_VAR, "embedded")
    encoder = classroom.classroom_encoder("auto", device="cpu")
    printed = capsys.readouterr()
    assert printed.out == classroom.model_line(encoder.resolved) + "\n"
    assert "Loading" not in printed.err and "it/s" not in printed.err and "%|" not in printed.err, printed.err
