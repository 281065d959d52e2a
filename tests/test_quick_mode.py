"""``quick_mode``, the rule for code with no long step (the classroom explorers): QUICK = "auto" is full on a CUDA GPU,
quick on a CPU and on Apple's MPS, with one printed line saying which, why and how to switch. A lesson's set-up
chooses by its predicted time instead (tests/test_forecast.py).

The GPUs are faked by replacing torch's CUDA/MPS probes; the environment variable
SBERT_WORKBOOK_QUICK (which every test runner sets) must keep winning over the parameter.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import torch

import sbert_workbook as sbw
from sbert_workbook.settings import QUICK_ENV_VAR

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # tools/ is not part of the installed package
from tools.notebook_cells import RESOLVE_CELL  # noqa: E402

ALL_NOTEBOOKS = sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb")) + sorted((REPO / "classroom").glob("*.ipynb"))


@pytest.fixture
def cpu_only(monkeypatch):
    monkeypatch.delenv(QUICK_ENV_VAR, raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)


@pytest.fixture
def with_gpu(monkeypatch):
    monkeypatch.delenv(QUICK_ENV_VAR, raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)


@pytest.fixture
def apple_mps(cpu_only, monkeypatch):
    """An Apple-silicon laptop: no CUDA, MPS available."""
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)


def _decide(capsys, *args):
    quick = sbw.quick_mode(*args)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1, f"quick_mode should print exactly one line, printed {lines}"
    return quick, lines[0]


def test_auto_is_quick_on_a_cpu_and_says_how_to_run_the_full_version(cpu_only, capsys):
    quick, line = _decide(capsys, "auto")
    assert quick is True
    assert line.startswith("quick mode: on (no GPU found") and "set QUICK = False for the full version" in line


def test_auto_is_full_on_a_cuda_gpu_and_says_how_to_get_the_quick_version(with_gpu, capsys):
    quick, line = _decide(capsys, "auto")
    assert quick is False
    assert line == "quick mode: off (a CUDA GPU was found: full mode; set QUICK = True for the small, fast version)"


def test_auto_is_quick_on_apple_mps_and_says_why_and_how_to_run_the_full_version(apple_mps, capsys):
    """On a laptop's MPS GPU the papers' recipe (04 trains on all of AllNLI) may not finish within a class, so "auto"
    stays quick there; the line claims no timing nobody made."""
    assert sbw.pick_device().type == "mps", "the fixture should make pick_device choose MPS"
    quick, line = _decide(capsys, "auto")
    assert quick is True
    assert line == "quick mode: on (an Apple MPS GPU was found: quick mode; set QUICK = False for the full version)"
    assert "timed" not in line
    assert _decide(capsys, False)[0] is False, "QUICK = False still runs full mode on MPS"
    assert _decide(capsys, "auto", "cpu")[1].startswith("quick mode: on (no GPU found")


def test_auto_follows_the_device_the_notebook_will_use(with_gpu, capsys):
    assert _decide(capsys, "auto", "cpu")[0] is True, "DEVICE='cpu' on a GPU machine means a CPU run: quick"
    assert _decide(capsys, "auto", torch.device("cuda"))[0] is False


def test_auto_is_the_default_and_none_means_auto(cpu_only, capsys):
    assert _decide(capsys)[0] is True
    assert _decide(capsys, None)[0] is True


@pytest.mark.parametrize("value", [True, False])
def test_an_explicit_value_is_obeyed_on_any_device(value, cpu_only, monkeypatch, capsys):
    quick, line = _decide(capsys, value)
    assert quick is value and f"QUICK = {value}" in line
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert _decide(capsys, value)[0] is value


@pytest.mark.parametrize("word", ["1", "true", "YES", " on "])
def test_the_environment_variable_switches_quick_mode_on_over_any_parameter(word, with_gpu, monkeypatch, capsys):
    monkeypatch.setenv(QUICK_ENV_VAR, word)  # what the test suite's and runbook's notebook runs set
    for parameter in ("auto", False, True):
        quick, line = _decide(capsys, parameter)
        assert quick is True and f"{QUICK_ENV_VAR}=" in line, parameter


def test_the_environment_variable_set_to_0_asks_auto_for_full_mode_but_not_an_explicit_true(cpu_only, monkeypatch, capsys):
    monkeypatch.setenv(QUICK_ENV_VAR, "0")  # runbook's full mode (python -m sbert_workbook notebooks --full)
    quick, line = _decide(capsys, "auto")
    assert quick is False and f"{QUICK_ENV_VAR}=0" in line
    assert _decide(capsys, True)[0] is True


def test_announce_false_prints_nothing(cpu_only, capsys):
    assert sbw.quick_mode("auto", announce=False) is True
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("value", ["quick", "False", 1])
def test_a_value_that_is_neither_bool_nor_auto_is_refused_with_the_choices(value, cpu_only):
    with pytest.raises(ValueError, match='"auto"'):
        sbw.quick_mode(value)


def test_the_resolve_cell_prints_one_quick_mode_line_and_the_device(cpu_only, capsys):
    namespace = {"sbw": sbw, "QUICK": "auto", "SEED": 0, "DEVICE": None}
    exec(RESOLVE_CELL, namespace)
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(" (")[0] for line in lines] == ["quick mode: on", "device: cpu"], lines
    assert namespace["QUICK"] is True and namespace["device"] == torch.device("cpu")


@pytest.mark.parametrize("notebook", ALL_NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_notebook_defaults_to_auto_and_passes_its_device(notebook):
    code = ["".join(cell["source"]) for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]
            if cell["cell_type"] == "code"]
    assert any(line.split("#")[0].strip() == 'QUICK = "auto"' for line in code[1].splitlines()), f"{notebook.name}: the parameters cell should say QUICK = \"auto\""
    passes_device = "sbw.quick_mode(QUICK, " in code[2] if notebook.parent.name == "classroom" else "begin(QUICK, MODEL, SEED, DEVICE" in code[2]
    assert passes_device, f"{notebook.name}: the resolve cell (a lesson's set-up call) should pass the device to quick_mode"


@pytest.mark.parametrize(("word", "read"), [("1", True), (" YES ", True), ("On", True), ("0", False), ("off", False),
                                           ("No", False), ("", None), ("maybe", None), ("2", None)])
def test_every_switch_reads_its_words_one_way(monkeypatch, word, read):
    from sbert_workbook.runner.replies import SLICES_ENV, slices_switched_off
    from sbert_workbook.settings import QUICK_ENV_VAR, env_flag, quick_from_env

    monkeypatch.setenv("SBW_SOME_SWITCH", word)
    monkeypatch.setenv(QUICK_ENV_VAR, word)
    monkeypatch.setenv(SLICES_ENV, word)
    assert env_flag("SBW_SOME_SWITCH") is read
    assert quick_from_env() == (read, f"{QUICK_ENV_VAR}={word}")
    assert slices_switched_off() is (read is False)
    monkeypatch.delenv("SBW_SOME_SWITCH")
    assert env_flag("SBW_SOME_SWITCH") is None
