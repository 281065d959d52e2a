"""Lesson-first notebooks: the cell a student reads is the lesson, plumbing is one hidden call, sizes live once.

Rules (issue 40; docs/adding-a-lesson.md): no code cell over 20 lines; a visible code cell at most 15; a hidden cell
is hidden the same way everywhere (the ``hide-input`` tag for the book, ``source_hidden`` for JupyterLab,
``cellView: form`` with a ``#@title`` line for Colab) and short (one call, its imports and its title); the third code
cell is the lesson's set-up call; every size comes from the lesson's manifest (the notebook assigns none).
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from sbert_workbook.runner.notebooks import list_notebooks
from sbert_workbook.lessons.manifest import Size, all_manifests, manifest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from tools.notebook_cells import HIDE_INPUT_TAG, TITLE_PREFIX, begin_cell, hidden_cell  # noqa: E402

NOTEBOOKS = list_notebooks()
MAX_LINES, MAX_VISIBLE_LINES, MAX_HIDDEN_LINES = 20, 15, 12


def code_cells(cells: list[dict]) -> list[tuple[int, dict]]:
    return [(index, cell) for index, cell in enumerate(cells) if cell["cell_type"] == "code"]


def source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def is_hidden(cell: dict) -> bool:
    return HIDE_INPUT_TAG in cell.get("metadata", {}).get("tags", [])


def cell_rule_breaks(cells: list[dict]) -> list[str]:
    """'cell N: what is wrong' for every code cell breaking a rule of the module docstring."""
    broken = []
    for index, cell in code_cells(cells):
        lines, text, metadata = len(source(cell).splitlines()), source(cell), cell.get("metadata", {})
        limit = MAX_HIDDEN_LINES if is_hidden(cell) else MAX_VISIBLE_LINES
        if lines > min(limit, MAX_LINES) and "parameters" not in metadata.get("tags", []):
            broken.append(f"cell {index}: {lines} lines ({'hidden' if is_hidden(cell) else 'visible'} cells: at most {limit})")
        hidden_marks = {"tag": is_hidden(cell), "source_hidden": metadata.get("jupyter", {}).get("source_hidden") is True,
                        "cellView": metadata.get("cellView") == "form", "title": text.startswith(TITLE_PREFIX)}
        if len(set(hidden_marks.values())) > 1:
            broken.append(f"cell {index}: hidden only half-way ({', '.join(k for k, v in hidden_marks.items() if v)} "
                          f"but not {', '.join(k for k, v in hidden_marks.items() if not v)}); use tools/notebook_cells.hidden_cell")
    return broken


def sizes_assigned(cells: list[dict], names: set[str]) -> list[str]:
    """'cell N: NAME' for every assignment of a manifest size in the notebook's code (the manifest is its one home)."""
    found = []
    for index, cell in code_cells(cells):
        for name in re.findall(r"^\s*([A-Z][A-Z0-9_]*)\s*=(?!=)", source(cell), re.M):
            if name in names:
                found.append(f"cell {index}: {name}")
    return found


def read_cells(notebook: Path) -> list[dict]:
    return json.loads(notebook.read_text(encoding="utf-8"))["cells"]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_code_cell_is_short_and_hidden_cells_are_hidden_everywhere(notebook):
    broken = cell_rule_breaks(read_cells(notebook))
    assert not broken, f"{notebook.name}:\n" + "\n".join(broken)


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_third_code_cell_is_the_lessons_one_set_up_call(notebook):
    third = source(code_cells(read_cells(notebook))[2][1])
    assert third == begin_cell(notebook.name[:2]).source, (
        f"{notebook.name}: the third code cell should be tools/notebook_cells.begin_cell({notebook.name[:2]!r}):\n"
        f"{begin_cell(notebook.name[:2]).source}")


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_sizes_come_from_the_manifest_only(notebook):
    cells = read_cells(notebook)
    parameters = next(source(cell) for cell in cells if "parameters" in cell.get("metadata", {}).get("tags", []))
    assert re.search(r"^SIZES = \{\}", parameters, re.M), f"{notebook.name}: the parameters cell should hold SIZES = {{}}"
    assigned = sizes_assigned(cells, set(manifest(notebook.stem).sizes))
    assert not assigned, f"{notebook.name} assigns sizes its manifest holds (set them with SIZES instead): {assigned}"


def test_every_notebook_has_a_manifest_and_every_manifest_a_notebook():
    assert [m.notebook for m in all_manifests()] == [n.stem for n in NOTEBOOKS]


@pytest.mark.parametrize("lesson", all_manifests(), ids=lambda m: m.notebook)
def test_every_subsection_read_at_home_exists(lesson):
    text = "\n".join(source(cell) for cell in read_cells(REPO / "notebooks" / f"{lesson.notebook}.ipynb")
                     if cell["cell_type"] == "markdown")
    missing = [s for s in lesson.read_at_home if not re.search(rf"^#+ {re.escape(s)} ·", text, re.M)]
    assert not missing, f"{lesson.notebook}: read_at_home names subsections the notebook does not have: {missing}"


# ----------------------------------------------------------------------------- the checks catch what they should
def test_the_cell_rules_catch_a_long_cell_and_a_half_hidden_one():
    long_visible = {"cell_type": "code", "metadata": {}, "source": "x = 1\n" * 16}
    half_hidden = {"cell_type": "code", "metadata": {"tags": [HIDE_INPUT_TAG]}, "source": "report()"}
    long_hidden = dict(hidden_cell("a report", "report()\n" * 12))
    fine = [dict(hidden_cell("a report", "report(lesson)")), {"cell_type": "code", "metadata": {}, "source": "x = 1\n" * 15}]
    assert cell_rule_breaks(fine) == []
    broken = cell_rule_breaks([long_visible, half_hidden, long_hidden])
    assert [line.split(":")[0] for line in broken] == ["cell 0", "cell 1", "cell 2"], broken
    assert "hidden only half-way" in broken[1]


def test_the_size_check_catches_a_size_assigned_in_a_cell():
    cells = [{"cell_type": "code", "metadata": {}, "source": "STEPS = 8\nif STEPS == 8:\n    BATCH = 2"}]
    assert sizes_assigned(cells, {"STEPS", "BATCH"}) == ["cell 0: STEPS", "cell 0: BATCH"]
    assert sizes_assigned(cells, {"OTHER"}) == []


def test_a_size_falls_back_from_standin_to_suite_to_quick_and_from_full_on_cpu_to_full():
    size = Size("steps", quick=8, full=None, suite=4)
    assert [size.value(mode) for mode in ("quick", "full", "suite", "standin", "full_on_cpu")] == [8, None, 4, 4, None]
    with pytest.raises(ValueError, match="Unknown mode"):
        size.value("fast")


def test_an_unknown_size_in_sizes_is_refused_with_the_names_there_are():
    lesson = all_manifests()[0]
    with pytest.raises(KeyError, match="does not have"):
        lesson.sizes_for("quick", {"NO_SUCH_SIZE": 1})


def test_begin_resolves_the_mode_seeds_turns_captions_on_and_prints_the_sizes(capsys, monkeypatch):
    import torch

    from sbert_workbook.lessons import setup
    from sbert_workbook.settings import QUICK_ENV_VAR

    captions = []
    monkeypatch.setattr(setup, "show_provenance_captions", lambda: captions.append(True))
    monkeypatch.setenv(QUICK_ENV_VAR, "1")
    lesson = setup.begin("01", "auto", "embedded", seed=3, device="cpu", sizes={"TRAIN_STEPS": 7})
    printed = capsys.readouterr().out
    assert lesson.quick and lesson.mode == "quick" and lesson.device == torch.device("cpu")
    assert lesson.sizes.TRAIN_STEPS == 7 and lesson.sizes["HIDDEN_SIZE"] == manifest("01").sizes["HIDDEN_SIZE"].quick
    assert "quick mode: on" in printed and "TRAIN_STEPS = 7" in printed and "changed by SIZES: TRAIN_STEPS" in printed
    assert torch.initial_seed() == 3
    assert captions == [True], "begin turns the tables' provenance captions on"
    with pytest.raises(AttributeError, match="has no size"):
        lesson.sizes.NO_SUCH_SIZE
