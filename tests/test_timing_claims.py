"""The run times the notebooks state are the ones measured (docs/section_times.json, docs/full_mode_times.json).

A notebook's parameters cell says how long its full mode takes on 2 CPU cores, and the sections added for the
papers' results say how long they run in quick and full mode. Re-measure with ``tools/section_times.py`` and
``tools/full_mode_times.py``; this test fails when a stated figure no longer matches the measurement it cites.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest

from sbert_workbook.app.runbook import list_notebooks

ROOT = Path(__file__).resolve().parents[1]
QUICK = json.loads((ROOT / "docs" / "section_times.json").read_text(encoding="utf-8"))["notebooks"]
FULL = json.loads((ROOT / "docs" / "full_mode_times.json").read_text(encoding="utf-8"))["notebooks"]
SECTION_LINE = re.compile(r"\*This section's run time on 2 idle CPU cores with the embedded model: (\d+) s in quick mode, "
                          r"(\d+) s in full mode")
HEADING_WORD = re.compile(r"\s*\((core|optional)\)\s*$")


def parameters_cell(nb):
    return next(cell for cell in nb.cells if "parameters" in cell.metadata.get("tags", []))


@pytest.mark.parametrize("notebook", [n for n in list_notebooks() if n.stem in FULL and not FULL[n.stem]["until_section"]
                                      and FULL[n.stem]["wall_seconds"] > 60], ids=lambda p: p.stem)
def test_the_parameters_cell_states_the_measured_full_mode_time(notebook):
    source = parameters_cell(nbformat.read(notebook, 4)).source
    wall = FULL[notebook.stem]["wall_seconds"]
    assert f"({wall:.0f} s measured" in source, (f"{notebook.name}: its parameters cell should state the measured full-mode "
                                                 f"time, {wall:.0f} s (docs/full_mode_times.json)")


def test_a_full_run_stopped_early_says_so():
    source = parameters_cell(nbformat.read(ROOT / "notebooks" / "04_siamese_finetuning.ipynb", 4)).source
    first_section = FULL["04_siamese_finetuning"]["sections_seconds"]["1 · Cross-encoder vs bi-encoder: accuracy and cost"]
    assert f"§1 took {first_section:.0f} s" in source and "not measured" in source


def stated_time_problems(nb, stem: str) -> list[str]:
    """Each section whose stated quick/full seconds differ from the measured ones."""
    problems = []
    for cell in nb.cells:
        match = SECTION_LINE.search(cell.source) if cell.cell_type == "markdown" else None
        if not match:
            continue
        title = HEADING_WORD.sub("", cell.source.splitlines()[0][3:].strip())
        quick, full = QUICK[stem]["sections_seconds"][title], FULL[stem]["sections_seconds"][title]
        if (int(match.group(1)), int(match.group(2))) != (round(quick), round(full)):
            problems.append(f"{title!r}: states {match.group(1)} s / {match.group(2)} s, measured {quick:.0f} s / {full:.0f} s")
    return problems


@pytest.mark.parametrize("notebook", list_notebooks(), ids=lambda p: p.stem)
def test_every_stated_section_time_is_the_measured_one(notebook):
    problems = stated_time_problems(nbformat.read(notebook, 4), notebook.stem)
    assert not problems, f"{notebook.name} (re-measure, then update the line):\n" + "\n".join(problems)


def test_a_wrong_section_figure_is_caught():
    nb = nbformat.read(ROOT / "notebooks" / "03_pooling_and_sts.ipynb", 4)
    stated = [cell for cell in nb.cells if cell.cell_type == "markdown" and SECTION_LINE.search(cell.source)]
    assert len(stated) >= 3, "03 states its new sections' run times"
    stated[0].source = SECTION_LINE.sub(lambda m: m.group(0).replace(f"{m.group(2)} s in full", f"{int(m.group(2)) + 9} s in full"),
                                        stated[0].source)
    assert len(stated_time_problems(nb, "03_pooling_and_sts")) == 1
