"""Lesson 00's calls (``00_start_here.ipynb``) on hand-made inputs: the predict questions' computed answers, the
doctor's one line, the data registry, what predownload fetches and the embedded model's line."""
from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch
from scipy.spatial.distance import cosine

from sbert_workbook.lessons import nb00
from sbert_workbook.teaching.predict import RIGHT


def answer_of(box) -> str:
    """The option a predict question marks right (each option chosen in turn, as a student would)."""
    for option in box.buttons.options:
        box.buttons.value = option
        if box.feedback.value.startswith(f"<b>{RIGHT}"):
            return option
    raise AssertionError("no option is marked right")


class FakeEncoder:
    """Three hand-made vectors for 00's three sentences."""

    def __init__(self, vectors, name="sentence-transformers/fake-model"):
        self.vectors, self.name = torch.tensor(vectors, dtype=torch.float32), name

    def encode(self, sentences, pooling="mean"):
        assert list(sentences) == nb00.SENTENCES and pooling == "mean"
        return self.vectors


@pytest.mark.parametrize("vectors", [
    [[1.0, 0.0, 0.0], [0.9, 0.1, 0.0], [0.0, 1.0, 0.0]],  # the paraphrase close, the other topic far
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.9, 0.1, 0.0]],  # the other topic close (a model can get it wrong)
    [[1.0, 0.0, 0.0], [0.7, 0.7, 0.0], [0.7, 0.0, 0.7]],  # both at the same angle: within 0.05
])
def test_the_nearest_sentence_is_the_one_scipys_cosine_finds(vectors):
    box = nb00.predict_nearest(FakeEncoder(vectors))
    to_paraphrase, to_other = (1 - cosine(vectors[0], vectors[i]) for i in (1, 2))
    options = list(box.buttons.options)
    expected = options[2] if abs(to_paraphrase - to_other) < 0.05 else options[0] if to_paraphrase > to_other else options[1]
    assert answer_of(box) == expected


def test_the_explanation_says_whether_the_model_was_trained_for_sentences():
    trained = nb00.predict_nearest(FakeEncoder([[1.0, 0.0], [1.0, 0.1], [0.0, 1.0]]))
    raw = nb00.predict_nearest(FakeEncoder([[1.0, 0.0], [1.0, 0.1], [0.0, 1.0]], name="bert-base-uncased"))
    trained.buttons.value = raw.buttons.value = trained.buttons.options[0]
    assert "trained on sentence pairs" in trained.feedback.value and "raw pre-trained model" in raw.feedback.value


def test_two_arrows_at_a_right_angle_have_cosine_0():
    assert answer_of(nb00.predict_right_angle()) == "0"


def test_the_doctors_line_is_a_tick_or_every_essential_problem_with_its_fix():
    problem = SimpleNamespace(line=lambda: "✗ model: not found\n    fix: set MODEL")
    assert nb00.essentials_report(SimpleNamespace(ok=True)).startswith("✓")
    failed = nb00.essentials_report(SimpleNamespace(ok=False, problems=lambda essential_only: [problem, problem]))
    assert failed.startswith("✗ fix these first") and failed.count("fix: set MODEL") == 2


def test_the_registry_report_names_every_data_set_and_where_it_was_found():
    from sbert_workbook.data import REGISTRY

    table = nb00.registry_report().table
    assert list(table.index) == list(REGISTRY)
    assert all(found == "not found locally" or "/" in found for found in table["found at"])


def test_predownload_report_names_every_default_model_and_hub_data_set():
    from sbert_workbook.environment import predownload

    text = nb00.predownload_report().text
    assert all(model in text for model in predownload.DEFAULT_MODELS)
    assert all(entry.hub_id in text for entry in predownload.hub_data_sources())


def test_the_embedded_model_resolves_offline_and_is_named(monkeypatch):
    from sbert_workbook.encoding.resolve import EMBEDDED_MODEL_ID

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    said = nb00.embedded_model_report()
    assert EMBEDDED_MODEL_ID.split("/")[-1] in said and said.endswith("✓ the embedded model resolves")
