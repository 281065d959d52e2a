"""The run times and memory the notebooks state are the ones measured (the package's notebook_peaks.json,
docs/full_mode_times.json).

Each notebook's parameters cell carries two generated lines, "On a 2-core CPU, quick mode: about N min and X GB with
the embedded model; …" and "Full mode: …" (``tools/notebook_times.py``); no other cell states a run time. Re-measure
with ``tools/notebook_memory.py`` and ``tools/full_mode_times.py``, then run ``tools/notebook_times.py``.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
import pytest

from sbert_workbook.runner.notebooks import list_notebooks

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tools.notebook_times import FULL_PREFIX, PREFIX, measurements, time_lines, with_time_lines  # noqa: E402

QUICK, FULL = measurements()
#: A run time stated anywhere else, by hand: "… s in quick mode", "… min on 2 … cores", "measured …".
STATED_BY_HAND = re.compile(r"\d+ s in (quick|full) mode|run time on 2|\d+ (s|min) measured|CPU cores: about", re.I)


def parameters_cell(nb):
    return next(cell for cell in nb.cells if "parameters" in cell.metadata.get("tags", []))


@pytest.mark.parametrize("notebook", list_notebooks(), ids=lambda p: p.stem)
def test_the_parameters_cell_states_the_measured_times_and_memory(notebook):
    source = parameters_cell(nbformat.read(notebook, 4)).source
    for expected in time_lines(notebook.stem, QUICK, FULL):
        assert expected in source.splitlines(), f"{notebook.name}: expected {expected!r}; run python tools/notebook_times.py"


@pytest.mark.parametrize("notebook", list_notebooks(), ids=lambda p: p.stem)
def test_no_other_cell_states_a_run_time_by_hand(notebook):
    nb = nbformat.read(notebook, 4)
    stated = [line for cell in nb.cells for line in cell.source.splitlines()
              if STATED_BY_HAND.search(line) and not line.startswith((PREFIX, FULL_PREFIX))]
    assert not stated, f"{notebook.name} states run times by hand (let tools/notebook_times.py say it): {stated}"


def test_stale_lines_are_caught_and_rewritten():
    lines = time_lines("05_bert_flow", QUICK, FULL)
    stale = f"QUICK = True\n{PREFIX}about 1 min and 0.1 GB with the embedded model.\n{FULL_PREFIX}about 1 min.\nSEED = 0\n"
    assert not set(lines) & set(stale.splitlines())
    assert with_time_lines(stale, lines).splitlines() == ["QUICK = True", *lines, "SEED = 0"]


def test_minutes_round_up_memory_is_per_model_and_full_mode_never_guesses_a_gpu():
    quick = {"embedded": {"wall_s": {"x": 61}, "peak_mb": {"x": 1229}},
             "bert-base-uncased": {"wall_s": {"x": 539}, "peak_mb": {"x": 3174}}}
    assert time_lines("x", quick, {"x": {"wall_seconds": 719, "until_section": None}}) == [
        f"{PREFIX}about 2 min and 1.2 GB with the embedded model; about 9 min and 3.1 GB with bert-base-uncased.",
        f"{FULL_PREFIX}about 12 min on a 2-core CPU with the embedded model; not yet timed on a GPU."]
    partial = time_lines("x", quick, {"x": {"wall_seconds": 408, "until_section": "2"}})[1]
    assert partial == f"{FULL_PREFIX}for a GPU (not measured whole on a 2-core CPU); not yet timed on a GPU."
    assert time_lines("x", quick, {})[1] == partial
    assert "not yet measured with bert-base-uncased" in time_lines("x", {"embedded": quick["embedded"]}, {})[0]
    slowed = {**quick, "bert-base-uncased": {**quick["bert-base-uncased"], "time_is_upper_bound": {"x": True}}}
    assert "at most 9 min and 3.1 GB with bert-base-uncased" in time_lines("x", slowed, {})[0]
    with pytest.raises(KeyError, match="notebook_memory.py --only y"):
        time_lines("y", quick, {})
