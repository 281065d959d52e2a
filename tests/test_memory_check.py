"""check_memory says before a notebook starts whether its measured peak fits in what this machine has free.

The peaks here are made up (so each branch is exercised whatever the shipped figures are); the last tests read the
shipped ones: every notebook is there for both models, and a wheel installed elsewhere carries them.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sbert_workbook.environment import memory
from sbert_workbook.environment.free_memory import GB, FreeMemory

ROOT = Path(__file__).resolve().parents[1]
PEAKS = {"embedded": {"parameters_m": 22.7, "peak_mb": {"06_contrastive_simcse": 1740, "05_bert_flow": 1500}},
         "bert-base-uncased": {"parameters_m": 109.5, "peak_mb": {"06_contrastive_simcse": 9420, "05_bert_flow": 3000}}}


@pytest.fixture(autouse=True)
def nothing_held_yet(monkeypatch):
    """The check subtracts what this kernel already holds; here it holds nothing, so the sums are exact."""
    monkeypatch.setattr(memory, "resident_bytes", lambda pid: 0)
    monkeypatch.delenv(memory.CHECK_ENV_VAR, raising=False)
    monkeypatch.delenv("SBERT_WORKBOOK_MODEL", raising=False)


def free(gb: float) -> FreeMemory:
    return FreeMemory(int(gb * GB), "MemAvailable in /proc/meminfo")


def test_a_notebook_that_fits_prints_one_line(capsys):
    line = memory.check_memory("06", "embedded", free=free(8), peaks=PEAKS)
    assert capsys.readouterr().out == line + "\n"
    assert line == ("memory: 06 peaked at 1.7 GB with embedded in quick mode (measured); 8.0 GB is free here "
                    "(MemAvailable in /proc/meminfo): it fits.")


def test_bert_base_that_does_not_fit_stops_with_what_to_change():
    with pytest.raises(memory.NotEnoughMemoryError) as raised:
        memory.check_memory("06_contrastive_simcse.ipynb", "bert-base-uncased", free=free(3.1), peaks=PEAKS)
    message = str(raised.value)
    assert message.startswith("memory: 06 peaked at 9.2 GB with bert-base-uncased in quick mode (measured); 3.1 GB is "
                              "free here")
    assert 'it does not fit. Set MODEL = "embedded" (peak 1.7 GB) or close other programs' in message
    assert "SBERT_WORKBOOK_MEMORY_CHECK=warn" in message


def test_the_embedded_model_that_does_not_fit_is_told_to_free_memory():
    with pytest.raises(memory.NotEnoughMemoryError, match=r"does not fit\. Close other programs") as raised:
        memory.check_memory("06", "embedded", free=free(1.0), peaks=PEAKS)
    assert "MODEL" not in str(raised.value)


def test_what_this_kernel_already_holds_is_part_of_the_peak(monkeypatch):
    monkeypatch.setattr(memory, "resident_bytes", lambda pid: int(0.5 * GB))
    assert memory.check_memory("06", "embedded", free=free(1.3), peaks=PEAKS).endswith("it fits.")  # 1.7 - 0.5 <= 1.3
    with pytest.raises(memory.NotEnoughMemoryError):
        memory.check_memory("06", "embedded", free=free(1.1), peaks=PEAKS)


def test_warn_prints_instead_of_stopping_and_off_skips(monkeypatch, capsys):
    monkeypatch.setenv(memory.CHECK_ENV_VAR, "warn")
    line = memory.check_memory("06", "bert-base-uncased", free=free(1), peaks=PEAKS)
    assert "does not fit" in line and line in capsys.readouterr().out
    monkeypatch.setenv(memory.CHECK_ENV_VAR, "off")
    assert memory.check_memory("06", "bert-base-uncased", free=free(1), peaks=PEAKS) == ""


def test_another_model_is_scaled_by_its_parameters(tmp_path):
    """A 6-layer, 768-wide BERT: (30522 + 512) × 768 + 6 × (4 × 768² + 2 × 768 × 3072) = 66.3 M parameters; 05's
    peak then lies on the line through (22.7 M, 1500 MB) and (109.5 M, 3000 MB)."""
    (tmp_path / "config.json").write_text(json.dumps({"hidden_size": 768, "num_hidden_layers": 6, "vocab_size": 30522,
                                                      "intermediate_size": 3072, "max_position_embeddings": 512}))
    peak = memory.notebook_peak("05", str(tmp_path), PEAKS)
    expected_mb = 1500 + (3000 - 1500) / (109.5 - 22.7) * (66.3 - 22.7)
    assert peak.gb == pytest.approx(expected_mb / 1024, abs=1e-3)
    assert peak.how == "estimated from its 66 M parameters" and peak.model == str(tmp_path)


def test_a_model_of_unknown_size_or_an_unmeasured_notebook_is_said_so(tmp_path):
    line = memory.check_memory("05", str(tmp_path), free=free(1), peaks=PEAKS)  # a folder without config.json
    assert line == f"memory: 05 has not been measured with {tmp_path}; watch the kernel's memory."
    assert "07 has not been measured" in memory.check_memory("07", "embedded", free=free(1), peaks=PEAKS)


def test_full_mode_and_an_unknown_free_memory_are_not_refused():
    assert "Full mode was not measured" in memory.check_memory("06", "bert-base-uncased", quick=False, free=free(1),
                                                               peaks=PEAKS)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(memory, "free_memory", lambda: None)
        assert "does not say how much is free" in memory.check_memory("06", "bert-base-uncased", peaks=PEAKS)


def test_auto_is_what_it_stands_for_here(monkeypatch, tmp_path):
    from huggingface_hub import constants

    monkeypatch.setenv("SBERT_WORKBOOK_MODEL", "embedded")  # binder/start's pin
    assert memory.model_kind("auto") == ("embedded", 22.7)
    monkeypatch.delenv("SBERT_WORKBOOK_MODEL")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))  # no bert-base-uncased cached, no hub
    assert memory.model_kind("auto")[0] == "embedded"
    assert memory.model_kind("bert-base-uncased") == ("bert-base-uncased", 109.5)


def test_the_parameter_count_agrees_with_the_models_own(encoder, tmp_path):
    from transformers import BertConfig, BertModel

    own = sum(p.numel() for p in encoder.model.parameters()) / 1e6
    assert memory.model_kind(encoder.resolved.path)[1] == pytest.approx(own, rel=0.01)  # its folder: read from config
    BertConfig().save_pretrained(tmp_path)
    bert_base = sum(p.numel() for p in BertModel(BertConfig()).parameters()) / 1e6
    assert memory.model_kind(str(tmp_path))[1] == pytest.approx(bert_base, rel=0.01)
    assert memory.model_kind(str(tmp_path / "nowhere"))[1] is None
    other = tmp_path / "other"
    other.mkdir()
    (other / "config.json").write_text('{"model_type": "gpt2", "n_embd": 768, "n_layer": 12}')
    assert memory.model_kind(str(other))[1] is None  # a width it cannot read: unknown, not guessed as bert-base
    assert memory.PARAMETERS_M == {"embedded": round(own, 1), "bert-base-uncased": round(bert_base, 1)}
