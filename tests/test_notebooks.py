"""Every notebook runs top to bottom in quick mode; committed notebooks carry no outputs."""
from __future__ import annotations

import json
import re

import pytest

from sbert_workbook.evaluation.provenance import PROVENANCE_FIELDS
from sbert_workbook.app.runbook import list_notebooks, run_notebook

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


CLASSROOM = sorted((NOTEBOOKS[0].parent.parent / "classroom").glob("*.ipynb")) if NOTEBOOKS else []


@pytest.mark.parametrize("notebook", NOTEBOOKS + CLASSROOM, ids=lambda p: p.stem)
def test_resolve_cell_turns_on_table_captions(notebook):
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    resolve = "".join([cell for cell in cells if cell["cell_type"] == "code"][2]["source"])
    assert "sbw.show_provenance_captions()" in resolve, (
        f"{notebook.name}: the third code cell (the standard resolve cell) should call sbw.show_provenance_captions(), "
        "as RESOLVE_CELL in tools/notebook_cells.py does, so that every table shows what produced it")


@pytest.mark.notebook
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_in_quick_mode(notebook, tmp_path_factory):
    run = run_notebook(notebook)
    assert run.executed.is_file() and run.html.is_file()
    offenders = tables_without_provenance(run.executed)
    assert not offenders, (f"{notebook.name}: these tables do not say which model, pooling, aggregation and split made "
                           "them; give each its provenance (sbw.with_provenance) before displaying it:\n" + "\n".join(offenders))
    claimed = checks_claiming_success(run.executed)
    assert not claimed, (f"{notebook.name}: exercises ship unsolved, yet these check cells printed ✓ (a check that "
                         "passes on the placeholder compares nothing; see sbert_workbook/exercises.py):\n" + "\n".join(claimed))


def checks_claiming_success(executed) -> list[str]:
    """'cell N: its output' for every cell tagged 'check' whose output holds a ✓ (none may, as shipped)."""
    cells = json.loads(executed.read_text(encoding="utf-8"))["cells"]
    claimed = []
    for index, cell in enumerate(cells):
        text = "".join("".join(o.get("text", "")) for o in cell.get("outputs", []) if o.get("output_type") == "stream")
        if "check" in cell.get("metadata", {}).get("tags", []) and "✓" in text:
            claimed.append(f"cell {index}: {text.strip()}")
    return claimed


def tables_without_provenance(executed) -> list[str]:
    """'cell N: last source line' for every displayed table (DataFrame or Styler HTML) whose caption lacks a field."""
    cells = [cell for cell in json.loads(executed.read_text(encoding="utf-8"))["cells"] if cell["cell_type"] == "code"]
    offenders = []
    for index, cell in enumerate(cells):
        for output in cell.get("outputs", []):
            page = output.get("data", {}).get("text/html", "")
            page = "".join(page) if isinstance(page, list) else page
            if 'class="dataframe"' not in page and '<table id="T_' not in page:
                continue
            captions = " ".join(re.findall(r"<caption>(.*?)</caption>", page, re.S))
            missing = [field for field in PROVENANCE_FIELDS if f"{field}:" not in captions]
            if missing:
                last_line = "".join(cell["source"]).strip().splitlines()[-1]
                offenders.append(f"code cell {index} (missing {', '.join(missing)}): {last_line}")
    return offenders
