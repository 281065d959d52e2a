"""Lesson 07's calls (``07_your_model.ipynb``) on hand-made inputs: the set-up hands the diagnosis the manifest's sizes,
§8 names a model without loading it and writes an undefined share as such, and 07's check reference is the
definition of CC(i) (the rogue dimensions' contributions) that the solution computes in closed form.

The diagnosis itself (every measure, the ladder, the page) is tested in tests/test_diagnosis.py."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import torch

from sbert_workbook.checks import nb07 as checks
from sbert_workbook.diagnosis import run
from sbert_workbook.lessons.manifests.nb07 import MANIFEST
from sbert_workbook.lessons.nb07 import lesson as set_up
from sbert_workbook.lessons.nb07 import zoo
from sbert_workbook.lessons.setup import Lesson, Sizes
from sbert_workbook.solutions import nb07 as solutions


@pytest.mark.parametrize("mode", ["quick", "full", "suite", "standin"])
def test_begin_hands_the_diagnosis_the_manifests_sizes_for_its_mode(monkeypatch, mode):
    sizes = Sizes(MANIFEST.sizes_for(mode), {})
    fake = Lesson("07_your_model", mode == "quick", torch.device("cpu"), 0, "embedded", sizes, MANIFEST, mode, None)
    monkeypatch.setattr(set_up, "begin_lesson", lambda *args: fake)
    handed = {}

    def start(model, seed, device, **given):
        handed.update(given)
        sample = SimpleNamespace(subject=SimpleNamespace(name="fake"), sentences=["a"], vectors=np.zeros((1, 2)))
        return SimpleNamespace(), sample

    monkeypatch.setattr(run, "start", start)
    set_up.begin(mode == "quick", "embedded", 0, "cpu")
    assert handed == run.default_sizes(mode)


def test_the_zoo_names_glove_and_the_tiny_mlm_without_loading_them(monkeypatch):
    from sbert_workbook.encoding.glove import GLOVE_NAME

    monkeypatch.setattr("sbert_workbook.encoding.resolve.resolve_model", lambda name: pytest.fail("nothing is resolved"))
    assert zoo.identity_of("glove", 3) == GLOVE_NAME
    assert zoo.identity_of("tiny-mlm", 40) == "tiny MLM (40 steps)"


def found_with_share(share):
    headline = {"IsoScore": 0.123456, "their share of E cos": share, "order without them (Spearman)": 0.98765,
                "verdict": "needs no fix"}
    return SimpleNamespace(headline=lambda: headline, kind="a fake", cone={
        "IsoScore of isotropic data this size": 0.9, "mean cosine of random pairs": 0.25})


def test_a_zoo_row_writes_an_undefined_share_as_undefined_and_rounds_the_rest():
    row = zoo.headline_row(found_with_share(None), "yes")
    assert row["top-3 rogue share"] == "undefined (E cos near 0)"
    assert row["IsoScore"] == 0.123 and row["order without them (Spearman)"] == 0.988
    assert zoo.headline_row(found_with_share(0.456), "yes")["top-3 rogue share"] == 0.46


def test_a_table_is_captioned_with_the_model_its_pooling_and_the_sentences_read():
    subject = SimpleNamespace(name="org/model", pooling="pooling: mean")
    lesson = SimpleNamespace(subject=subject, split="12 sentences")
    table = set_up.captioned(pd.DataFrame({"a": [1]}), lesson, "one value")
    assert table.attrs["provenance"] == {"model": "org/model", "pooling": "mean", "aggregation": "one value",
                                         "split": "12 sentences"}


def test_why_not_names_the_model_that_reads_no_english():
    assert set_up.why_not(SimpleNamespace(subject=SimpleNamespace(name="tiny MLM (5 steps)"))).startswith("tiny MLM (5 steps)")


@pytest.mark.parametrize("seed", [0, 1])
def test_the_check_reference_is_the_definition_the_solution_computes_in_closed_form(seed):
    vectors = np.random.default_rng(seed).normal(size=(300, 6)) + np.array([3.0, 0, 0, 0, 0, 1.0])
    expected = np.asarray(solutions.ex07_1(vectors))
    assert checks.ex07_1(vectors) == pytest.approx(expected, abs=1e-9)
    assert checks.ex07_1(vectors).sum() == pytest.approx(np.mean([
        u @ v for i, u in enumerate(vectors / np.linalg.norm(vectors, axis=1, keepdims=True))
        for j, v in enumerate(vectors / np.linalg.norm(vectors, axis=1, keepdims=True)) if i != j]))
