"""``python -m sbert_workbook diagnose MODEL``: the one-page report without Jupyter, and a clear error for a folder that is
not a model (issue 41, item 1). GloVe and 01's tiny MLM are diagnosed end to end (the embedded model runs in 07's
notebook tests); the report's HTML is one standalone page and its JSON holds the same figures."""
from __future__ import annotations

import json

import pytest

from sbert_workbook.cli import main
from sbert_workbook.diagnosis.page import as_html, write_report
from sbert_workbook.diagnosis.run import diagnose

SMALL = dict(pairs_per_set=12, queries_per_bucket=20, uniformity_sentences=100, resamples=200)


def test_a_folder_that_is_not_a_model_is_refused_with_what_to_pass(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("not a model")
    assert main(["diagnose", str(tmp_path), "--out", str(tmp_path / "out")]) == 1
    error = capsys.readouterr().err
    assert "is not a Hugging Face model: it has no config.json" in error and "Pass the folder" in error
    assert not (tmp_path / "out").exists()


def test_diagnose_glove_from_the_command_line_writes_html_and_json(shared_data, tmp_path, capsys):
    assert main(["diagnose", "glove", "--out", str(tmp_path), "--pairs-per-set", "12"]) == 0
    printed = capsys.readouterr().out
    page, data = tmp_path / "diagnosis-GloVe-6B-50d.html", tmp_path / "diagnosis-GloVe-6B-50d.json"
    assert page.is_file() and data.is_file() and f"wrote {page}" in printed
    report = json.loads(data.read_text())
    assert set(report["headline"]) == {"model", "IsoScore", "rogue dimensions", "their share of E cos",
                                       "order without them (Spearman)", "best fix", "its change", "verdict"}
    assert -1 <= report["order without the rogue dimensions (Spearman)"]["value"] <= 1
    assert set(report["plane moves (fixed - model)"]) == set(report["fix intervals"])
    assert report["headline"]["verdict"] in {"needs no fix", *(f"needs {name}" for name in report["fix intervals"])}
    assert len(report["fix ladder (Spearman x 100)"]) == 7 and len(report["cosine contribution per dimension"]) == 50
    text = page.read_text()
    assert "<script" not in text and "<svg" in text and "Verdict: this model" in text


@pytest.fixture(scope="module")
def tiny_mlm_diagnosis():
    return diagnose("tiny-mlm", progress=False, tiny_steps=20, **SMALL)


def test_the_tiny_mlm_is_diagnosed_on_its_own_language_and_says_what_it_skipped(tiny_mlm_diagnosis, tmp_path):
    found = tiny_mlm_diagnosis
    assert found.kind == "toy MLM" and found.ladder is None and found.plane is None
    assert "reads only its toy language" in found.skipped["fix ladder"]
    assert found.verdict().startswith("not measured: ")
    assert list(found.frequency.columns) == ["[0, 6)", "[6, 11)", "[11, 16)", "[16, …)"]  # 22 words, four buckets
    assert 0 <= found.cone["IsoScore"] <= 1 and found.contributions.shape == (64,)
    assert found.informativity is not None and "random pairs" not in found.informativity.method  # pairs, counted
    assert found.plane_moves is None
    assert "Skipped" in as_html(found)
    page, data = write_report(found, tmp_path)
    assert json.loads(data.read_text())["fix intervals"] is None and page.stat().st_size < 50_000


def test_the_commands_default_sizes_are_07s_quick_mode_from_its_manifest(monkeypatch, tmp_path):
    """No copy of 07's sizes in the command line: without --pairs-per-set, diagnose() runs the manifest's."""
    from sbert_workbook.diagnosis import run
    from sbert_workbook.lessons.manifests.nb07 import MANIFEST

    seen = {}

    def fake_start(model, seed, device, data_dir, **sizes):
        seen.update(run.default_sizes(), **sizes)
        raise RuntimeError("stop here: the sizes are what this test reads")

    monkeypatch.setattr(run, "start", fake_start)
    assert main(["diagnose", "embedded", "--out", str(tmp_path)]) != 0  # the command line reports the stop as an error
    assert seen["pairs_per_set"] == MANIFEST.sizes["PAIRS_PER_SET"].quick
