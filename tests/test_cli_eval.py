"""`python -m sbert_workbook eval`: the table, its JSON form, and errors for people."""
from __future__ import annotations

import json

import pytest

from sbert_workbook.cli import main


def test_eval_json_reports_the_table_and_what_produced_it(capsys, shared_data):
    assert main(["eval", "--model", "embedded", "--datasets", "stsb", "sts15", "--limit", "120", "--json",
                 "--aggregation", "wmean"]) == 0
    printed = capsys.readouterr().out
    report = json.loads(printed[printed.index("{"):])
    rows = {row["dataset"]: row for row in report["rows"]}
    assert set(rows) == {"stsb", "sts15", "avg"} and rows["stsb"]["pairs"] == 120
    assert 50 < rows["stsb"]["spearman"] <= 100
    assert report["provenance"]["aggregation"].startswith("wmean")
    assert "all-MiniLM-L6-v2" in report["provenance"]["model"]


def test_eval_prints_a_readable_table(capsys, shared_data):
    assert main(["eval", "--model", "embedded", "--datasets", "sickr", "--limit", "60", "--pooling", "cls"]) == 0
    out = capsys.readouterr().out
    assert "pooling: cls" in out and "sickr" in out and "spearman" in out


def test_eval_with_an_unknown_model_exits_1_with_advice(capsys):
    assert main(["eval", "--model", "no-such-org/no-such-model", "--datasets", "stsb"]) == 1
    assert "no-such-org/no-such-model" in capsys.readouterr().err


def test_eval_rejects_an_unknown_pooling():
    with pytest.raises(SystemExit):
        main(["eval", "--pooling", "average"])


def test_eval_with_the_onnx_backend_prints_the_torch_figures(capsys, shared_data):
    figures = {}
    for backend in ("torch", "onnx"):
        assert main(["eval", "--model", "embedded", "--datasets", "stsb", "--limit", "120", "--json", "--backend", backend]) == 0
        printed = capsys.readouterr().out
        figures[backend] = json.loads(printed[printed.index("{"):])["rows"][0]["spearman"]
    assert figures["onnx"] == pytest.approx(figures["torch"], abs=0.01)
