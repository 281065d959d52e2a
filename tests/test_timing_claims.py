"""The run times the notebooks state are the ones measured (docs/section_times.json, docs/full_mode_times.json).

Each notebook's parameters cell carries one generated line, "On a 2-core CPU: about N min in quick mode, …"
(``tools/notebook_times.py``); no other cell states a run time. Re-measure with ``tools/section_times.py`` and
``tools/full_mode_times.py``, then run ``tools/notebook_times.py``.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
import pytest

from sbert_workbook.app.runbook import list_notebooks

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tools.notebook_times import PREFIX, measurements, time_line, with_time_line  # noqa: E402

QUICK, FULL = measurements()
#: A run time stated anywhere else, by hand: "… s in quick mode", "… min on 2 … cores", "measured …".
STATED_BY_HAND = re.compile(r"\d+ s in (quick|full) mode|run time on 2|\d+ (s|min) measured|CPU cores: about", re.I)


def parameters_cell(nb):
    return next(cell for cell in nb.cells if "parameters" in cell.metadata.get("tags", []))


@pytest.mark.parametrize("notebook", list_notebooks(), ids=lambda p: p.stem)
def test_the_parameters_cell_states_the_measured_times(notebook):
    source = parameters_cell(nbformat.read(notebook, 4)).source
    expected = time_line(notebook.stem, QUICK, FULL)
    assert expected in source.splitlines(), f"{notebook.name}: expected {expected!r}; run python tools/notebook_times.py"


@pytest.mark.parametrize("notebook", list_notebooks(), ids=lambda p: p.stem)
def test_no_other_cell_states_a_run_time_by_hand(notebook):
    nb = nbformat.read(notebook, 4)
    stated = [line for cell in nb.cells for line in cell.source.splitlines()
              if STATED_BY_HAND.search(line) and not line.startswith(PREFIX)]
    assert not stated, f"{notebook.name} states run times by hand (let tools/notebook_times.py say it): {stated}"


def test_a_stale_line_is_caught_and_rewritten():
    line = time_line("05_bert_flow", QUICK, FULL)
    stale = "QUICK = True\n# On a 2-core CPU: about 1 min in quick mode, about 1 min in full mode.\nSEED = 0\n"
    assert line not in stale.splitlines()
    fresh = with_time_line(stale, line)
    assert fresh.splitlines() == ["QUICK = True", line, "SEED = 0"]


def test_minutes_round_up_and_a_partial_full_run_points_to_a_gpu():
    quick = {"x": {"wall_seconds": 61}}
    assert time_line("x", quick, {"x": {"wall_seconds": 719, "until_section": None}}) == \
        f"{PREFIX}about 2 min in quick mode, about 12 min in full mode."
    assert time_line("x", quick, {"x": {"wall_seconds": 408, "until_section": "2"}}).endswith("full mode is for a GPU (not measured whole on a CPU).")
    assert time_line("x", quick, {}).endswith("full mode is for a GPU (not measured whole on a CPU).")
