"""Every notebook runs top to bottom in quick mode; committed notebooks carry no outputs."""
from __future__ import annotations

import json

import pytest

from sbert_workbook.runbook import list_notebooks, run_notebook

NOTEBOOKS = list_notebooks()


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ holds no NN_topic.ipynb files"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_outputs_are_stripped(notebook):
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    dirty = [i for i, cell in enumerate(cells) if cell["cell_type"] == "code" and (cell.get("outputs") or cell.get("execution_count"))]
    assert not dirty, f"{notebook.name}: cells {dirty} still carry outputs; run `python tools/strip_notebooks.py`"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_has_standard_first_cells(notebook):
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    code = [cell for cell in cells if cell["cell_type"] == "code"]
    assert "google.colab" in "".join(code[0]["source"]), "the first code cell is the standard setup cell"
    assert "parameters" in code[1].get("metadata", {}).get("tags", []), "the second code cell is tagged 'parameters'"
    assert "QUICK" in "".join(code[1]["source"])


@pytest.mark.notebook
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_in_quick_mode(notebook, tmp_path_factory):
    run = run_notebook(notebook)
    assert run.executed.is_file() and run.html.is_file()
