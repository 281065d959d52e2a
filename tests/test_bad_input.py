"""Issue 9: what students type. Every bad input gets a clear error (what was wrong, what
was expected, what to do); odd but valid input is embedded the way sentence-transformers does.
"""
from __future__ import annotations

import logging
import time
import unicodedata
import warnings

import numpy as np
import plotly.graph_objects as go
import pytest
import torch

from sbert_workbook import Encoder, ModelNotFoundError, load_encoder, resolve_model

WORDS = "the quick brown fox jumps over the lazy dog "  # 9 word-piece tokens


def embed(encoder, sentences, **kwargs) -> torch.Tensor:
    return encoder.encode(sentences, progress=False, **kwargs)


# ----------------------------------------------------------------------------- the list of sentences
@pytest.mark.parametrize("sentences, error, words", [
    ([], ValueError, "The list of sentences is empty: pass at least one sentence."),
    (None, TypeError, "sentences is None: pass a list of strings"),
    (["A cat.", None], TypeError, "Sentence 1 is a missing value (None)"),
    (["A cat.", float("nan")], TypeError, "Drop the rows with missing text first"),
    (["A cat.", 42], TypeError, "Sentence 1 is 42 (int), not a string"),
    ([["A cat.", "A dog."]], TypeError, "Sentence 0 is ['A cat.', 'A dog.'] (list)"),
    (b"A cat.", TypeError, "sentences is bytes, not text: decode it first"),
    (42, TypeError, "sentences must be a string or a list of strings, not int"),
])
def test_bad_sentence_lists_are_refused_with_advice(encoder, sentences, error, words):
    with pytest.raises(error) as caught:
        embed(encoder, sentences)
    assert words in str(caught.value)
    with pytest.raises(error):
        encoder.hidden_states(sentences)


def test_a_long_non_string_is_shown_shortened(encoder):
    with pytest.raises(TypeError) as caught:
        embed(encoder, ["ok", {"text": "x" * 500}])
    assert len(str(caught.value)) < 200 and "..." in str(caught.value)


def test_a_single_string_is_a_list_of_one(encoder):
    one = embed(encoder, "A man is playing a guitar.")
    assert one.shape == (1, encoder.hidden_size)
    assert torch.equal(one, embed(encoder, ["A man is playing a guitar."]))


def test_tuples_generators_and_numpy_arrays_are_accepted(encoder):
    sentences = ["A man is playing a guitar.", "A dog runs."]
    expected = embed(encoder, sentences)
    for given in (tuple(sentences), (s for s in sentences), np.array(sentences)):
        assert torch.equal(embed(encoder, given), expected)


def test_empty_and_whitespace_sentences_embed_as_cls_sep_like_sentence_transformers(encoder, st_model):
    """Decision (text_input.checked_sentences): embed, don't reject; all of them get one vector."""
    blanks = ["", "   ", "\t\n", "\u200b"]
    assert [encoder.tokenizer(s)["input_ids"] for s in blanks] == [[encoder.tokenizer.cls_token_id,
                                                                    encoder.tokenizer.sep_token_id]] * 4
    ours = embed(encoder, blanks + ["A real sentence."], normalize=True)
    reference = torch.from_numpy(st_model.encode(blanks + ["A real sentence."], convert_to_numpy=True))
    torch.testing.assert_close(ours, reference, atol=1e-5, rtol=0)
    assert torch.isfinite(ours).all() and (ours[1:4] - ours[0]).abs().max() < 1e-6


@pytest.mark.parametrize("keyword, value, words", [
    ("batch_size", 0, "batch_size must be a whole number of at least 1, got 0"),
    ("batch_size", 2.5, "got 2.5"),
    ("max_length", 1000, "up to the model's limit of 512 tokens"),
    ("max_length", 1, "from 2 ([CLS] and [SEP])"),
    ("max_length", 0, "max_length=0 is not possible"),
])
def test_impossible_batch_size_and_max_length(encoder, keyword, value, words):
    with pytest.raises(ValueError) as caught:
        embed(encoder, ["A cat sleeps."], **{keyword: value})
    assert words in str(caught.value)
    if keyword == "max_length":
        with pytest.raises(ValueError, match="is not possible"):
            encoder.hidden_states(["A cat sleeps."], max_length=value)


# ----------------------------------------------------------------------------- too long
def fresh_encoder(encoder) -> Encoder:
    """The session model with a newly loaded tokenizer, so one-time tokenizer messages are not used up."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(encoder.resolved.path)
    return Encoder(encoder.model, tokenizer, encoder.resolved, encoder.device, encoder.max_length)


class Captured(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def test_truncation_warns_once_per_call_with_the_count(encoder):
    sentences = [WORDS * 30, "Short.", WORDS * 29, WORDS * 5]  # 272, 4, 263, 47 tokens
    quiet = fresh_encoder(encoder)
    logs = Captured()
    logging.getLogger("transformers").addHandler(logs)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            embed(quiet, sentences, batch_size=1)  # four batches, still one warning
            embed(quiet, sentences[:2])
            quiet.hidden_states(sentences)
    finally:
        logging.getLogger("transformers").removeHandler(logs)
    messages = [str(w.message) for w in caught]
    assert messages[0].startswith("2 of 4 sentences are longer than max_length=256 tokens and were truncated.")
    assert messages[1].startswith("1 of 2 sentences") and messages[2].startswith("2 of 4 sentences")
    assert len(messages) == 3 and "up to this model's limit of 512" in messages[0]
    assert all(w.filename == __file__ for w in caught)  # the warning points at the caller's line
    assert not [m for m in logs.messages if "indexing errors" in m]  # the tokenizer's wrong alarm stays quiet


def test_truncation_at_the_model_limit_says_to_split(encoder):
    with pytest.warns(UserWarning, match="That is this model's limit: split longer texts"):
        embed(encoder, [WORDS * 70], max_length=512)


def test_short_sentences_do_not_warn(encoder):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        embed(encoder, ["A cat sleeps.", WORDS * 20])


# ----------------------------------------------------------------------------- Unicode
UNICODE = {
    "cjk": "我喜欢自然语言处理。",
    "japanese": "猫が好きです。",
    "emoji": "I love pizza 🍕🔥👍🏽",
    "combining marks": "cafe\u0301 nai\u0308ve",
    "rtl hebrew": "שלום עולם",
    "rtl arabic": "مرحبا بالعالم",
    "bidi override": "abc \u202eevil\u202c def",
    "zero-width": "hello\u200b world\u200d\u200c\ufeff",
    "only an emoji": "🍕",
}


def test_unicode_embeds_like_sentence_transformers_and_stably(encoder, st_model):
    sentences = list(UNICODE.values())
    first, second = embed(encoder, sentences, normalize=True), embed(encoder, sentences, normalize=True)
    assert torch.isfinite(first).all() and torch.equal(first, second)
    alone = torch.cat([embed(encoder, [s], normalize=True) for s in sentences])
    torch.testing.assert_close(alone, first, atol=1e-5, rtol=0)  # batching with padding changes nothing
    reference = torch.from_numpy(st_model.encode(sentences, convert_to_numpy=True))
    torch.testing.assert_close(first, reference, atol=1e-5, rtol=0)


def test_invisible_differences_give_the_same_vector(encoder):
    """The uncased tokenizer strips accents and drops zero-width characters (true of bert-base-uncased too)."""
    composed = unicodedata.normalize("NFC", "café naïve")
    decomposed = unicodedata.normalize("NFD", "café naïve")
    assert composed != decomposed
    vectors = embed(encoder, [composed, decomposed, "hello world", UNICODE["zero-width"]])
    torch.testing.assert_close(vectors[0], vectors[1], atol=1e-6, rtol=0)
    torch.testing.assert_close(vectors[2], vectors[3], atol=1e-6, rtol=0)
    assert (vectors[0] - vectors[2]).abs().max() > 0.01  # and different text still differs


# ----------------------------------------------------------------------------- models
NO_SUCH_MODEL = "sbert-workbook-tests/no-such-model"


@pytest.mark.parametrize("name, words", [
    (NO_SUCH_MODEL, "is not in the Hugging Face cache and HF_HUB_OFFLINE=1 forbids downloads"),
    ("bert base uncased", "is neither an existing folder nor a valid hub id"),
    ("./no/such/folder", "Model folder './no/such/folder' does not exist"),
    ("", "is empty: pass 'auto', 'embedded', a hub id or a folder"),
    (None, "(NoneType) is not text"),
    (3, "(int) is not text"),
])
def test_unknown_model_names_answer_fast_with_advice(monkeypatch, name, words):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    start = time.monotonic()
    with pytest.raises(ModelNotFoundError) as caught:
        resolve_model(name)
    assert time.monotonic() - start < 5, "resolving a missing model must not wait on the network"
    assert words in str(caught.value)


def test_unreachable_hub_answers_within_five_seconds(monkeypatch):
    """Not offline by flag, but the hub does not answer: a bound on the failure path, not a benchmark."""
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "http://10.255.255.1")  # a non-routable address
    start = time.monotonic()
    with pytest.raises(ModelNotFoundError, match="the hub is unreachable, so it cannot be downloaded"):
        resolve_model(NO_SUCH_MODEL)
    auto = resolve_model("auto")
    assert time.monotonic() - start < 5
    assert auto.source in {"embedded package", "hub cache"}


def test_folder_that_is_not_a_model(tests_fixtures):
    with pytest.raises(ModelNotFoundError, match="is not a Hugging Face model: it has no config.json"):
        load_encoder(str(tests_fixtures / "not_a_model"))


@pytest.mark.parametrize("folder, words", [
    ("broken_model", "is not a valid JSON file"),
    ("weightless_model", "model.safetensors"),
])
def test_folder_with_a_broken_model_says_what_is_missing(tests_fixtures, folder, words):
    with pytest.raises(RuntimeError) as caught:
        load_encoder(str(tests_fixtures / folder), device="cpu")
    assert "looked like a model but could not be loaded" in str(caught.value) and words in str(caught.value)


@pytest.fixture
def tests_fixtures():
    from pathlib import Path

    return Path(__file__).resolve().parent / "fixtures"


def test_calibrator_fitted_on_another_hidden_size_is_refused(tmp_path):
    calibration = pytest.importorskip("sbert_workbook.calibration.calibrators")
    generator = torch.Generator().manual_seed(0)
    small, large = torch.randn(400, 384, generator=generator), torch.randn(5, 768, generator=generator)
    for calibrator in (calibration.StandardNormalization(), calibration.Whitening()):
        calibrator.fit(small)
        loaded = calibration.load_calibrator(calibration.save_calibrator(calibrator, tmp_path / calibrator.name))
        for fitted in (calibrator, loaded):
            with pytest.raises(ValueError) as caught:
                fitted.transform(large)
            assert "fitted on 384-dimensional embeddings but got 768-dimensional" in str(caught.value)


# ----------------------------------------------------------------------------- widgets
def similarity_box(encoder):
    """A classroom cell: type sentences (one per line) and see their cosine similarities."""
    import ipywidgets

    from sbert_workbook.teaching.widgets import interactive_figure

    def make_figure(text: str, digits: int) -> go.Figure:
        sentences = [line for line in text.splitlines() if line.strip()]
        vectors = embed(encoder, sentences, normalize=True)
        cosines = (vectors @ vectors.T).numpy().round(digits)
        return go.Figure(go.Heatmap(z=cosines, x=sentences, y=sentences, zmin=-1, zmax=1))

    text = ipywidgets.Textarea(value="A man plays a guitar.\nA man plays music.")
    digits = ipywidgets.IntSlider(value=2, min=0, max=6)
    return interactive_figure(make_figure, text=text, digits=digits), text, digits


def test_widget_empty_box_shows_a_message_not_a_traceback(encoder, shown):
    _box, text, _digits = similarity_box(encoder)
    assert isinstance(shown[-1], go.Figure)
    text.value = "   \n\n"
    assert "Nothing to show yet:" in shown[-1].value and "The list of sentences is empty" in shown[-1].value
    text.value = "A cat <b>sleeps</b>."
    assert isinstance(shown[-1], go.Figure)


def test_widget_same_sentence_twice_and_slider_extremes(encoder, shown):
    _box, text, digits = similarity_box(encoder)
    text.value = "A cat sleeps.\nA cat sleeps."
    z = np.asarray(shown[-1].data[0].z)
    assert z.shape == (2, 2) and np.allclose(z, 1.0, atol=1e-2)
    for extreme in (digits.min, digits.max):
        digits.value = extreme
        assert isinstance(shown[-1], go.Figure)
    assert np.allclose(np.asarray(shown[-1].data[0].z), 1.0, atol=1e-5)


def test_widget_error_message_is_escaped_html(shown):
    import ipywidgets

    from sbert_workbook.teaching.widgets import interactive_figure

    def make_figure(name: str):
        raise KeyError(f"no data set called <{name}>")

    interactive_figure(make_figure, name=ipywidgets.Text(value="script"))
    assert "&lt;script&gt;" in shown[-1].value and "<script>" not in shown[-1].value


def test_pair_explorer_survives_empty_boxes_twins_and_slider_extremes(encoder, shown):
    explorers = pytest.importorskip("sbert_workbook.classroom.explorers")
    box = explorers.pair_explorer(encoder)
    controls = box.children[0].children
    sentence_a, sentence_b, layer = controls
    for a, b in [("", ""), ("", "A dog runs."), ("A dog runs.", "A dog runs."), ("   ", "\u200b")]:
        sentence_a.value, sentence_b.value = a, b
        assert isinstance(shown[-1], go.Figure) or "Nothing to show yet" in shown[-1].value
    sentence_a.value, sentence_b.value = "A man plays a guitar.", "Someone plays music."
    for extreme in (layer.min, layer.max):
        layer.value = extreme
        assert isinstance(shown[-1], go.Figure)
