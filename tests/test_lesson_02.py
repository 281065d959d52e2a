"""Lesson 02's set-up: each view reads the vectors it names, and the lesson's own choices come from the notebook."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from sbert_workbook.lessons.nb02 import lesson as nb02_lesson
from sbert_workbook.lessons.nb02.lesson import ModelRun


def fake_run(name: str = "org/fake", layers: int = 3, sentences: int = 5, dim: int = 4) -> ModelRun:
    rng = np.random.default_rng(0)
    per_layer = lambda: [rng.normal(size=(sentences, dim)) for _ in range(layers)]  # noqa: E731
    return ModelRun(name, f"{name} (test)", tokenizer=None, word_embeddings=torch.zeros(10, dim), frequencies=None,
                    layers={"mean": per_layer(), "cls": per_layer(), "tokens": per_layer()},
                    word_means=rng.normal(size=(sentences, dim)))


def test_a_view_reads_static_as_layer_0_and_word_embeddings_as_the_lookup():
    run = fake_run()
    rows = np.array([3, 1])
    assert np.array_equal(run.vectors("static"), run.layers["mean"][0])
    assert np.array_equal(run.vectors("static", layer=2), run.layers["mean"][0]), "static is layer 0 whatever the layer"
    assert np.array_equal(run.vectors("mean"), run.layers["mean"][-1])
    assert np.array_equal(run.vectors("cls", layer=1, rows=rows), run.layers["cls"][1][rows])
    assert np.array_equal(run.vectors("word_embeddings", rows=rows), run.word_means[rows])
    assert run.short == "fake" and run.n_layers == 3


def test_begin_reads_compare_model_and_use_umap_from_the_notebook(monkeypatch):
    """The set-up call is the same in every lesson; 02's own choices come from the parameters cell by name."""
    asked = []

    def read_model(name, lesson, sentences, read):
        asked.append(name)
        return None if name in ("", "no/such") else fake_run(name)

    monkeypatch.setattr(nb02_lesson, "_read_model", read_model)
    monkeypatch.setattr(nb02_lesson, "_sentences", lambda sizes: (None, ["a", "b"], np.array([0]), np.array(["X"]),
                                                                  (np.array([0]), np.array([1]))))
    notebook = {"nb02": nb02_lesson, "COMPARE_MODEL": "org/second", "USE_UMAP": True}
    exec('lesson = nb02.begin(True, "org/first", 0, "cpu", {})', notebook)
    assert asked == ["org/first", "org/second"] and list(notebook["lesson"].runs) == ["org/first", "org/second"]
    assert notebook["lesson"].main == "org/first" and notebook["lesson"].use_umap is True

    asked.clear()
    notebook = {"nb02": nb02_lesson, "COMPARE_MODEL": ""}
    exec('lesson = nb02.begin(True, "org/first", 0, "cpu", {})', notebook)
    assert asked == ["org/first"], "COMPARE_MODEL = '' loads no second model"
    assert notebook["lesson"].use_umap is False, "USE_UMAP = None: no UMAP in quick mode"
    lesson = nb02_lesson.begin(False, "org/first", 0, "cpu", {}, compare_model="", use_umap=None)
    assert lesson.use_umap is True and lesson.only_embedded is False


def test_a_second_model_that_cannot_load_is_left_out_and_the_first_is_an_error(monkeypatch, capsys):
    from sbert_workbook.encoding import encoder, resolve

    def fails(name, *args, **kwargs):
        raise resolve.ModelNotFoundError(f"{name} is nowhere")

    monkeypatch.setattr(encoder, "load_encoder", fails)
    monkeypatch.setattr(resolve, "resolve_model", fails)
    lesson = nb02_lesson.begin_lesson("02", True, "x", 0, "cpu", {}, announce=False)
    assert nb02_lesson._read_model("no/such", lesson, ["a"], read={"org/first"}) is None
    assert "COMPARE_MODEL='no/such' could not be loaded: no/such is nowhere" in capsys.readouterr().out
    with pytest.raises(resolve.ModelNotFoundError, match="nowhere"):
        nb02_lesson._read_model("no/such", lesson, ["a"], read=set())
