"""Every notebook runs top to bottom in quick mode (once per variant: tests/notebook_runs.py); committed notebooks carry no outputs."""
from __future__ import annotations

import json
import re

import nbformat
import pytest

from notebook_runs import VARIANTS
from sbert_workbook.runner.notebooks import PLOTLY_MIME, list_notebooks
from sbert_workbook.evaluation.provenance import PROVENANCE_FIELDS

NOTEBOOKS = list_notebooks()


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ holds no NN_topic.ipynb files"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_outputs_are_stripped(notebook):
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    dirty = [i for i, cell in enumerate(cells) if cell["cell_type"] == "code" and (cell.get("outputs") or cell.get("execution_count"))]
    assert not dirty, (f"{notebook.name}: cells {dirty} still carry outputs; run `pre-commit run nbstripout --all-files` "
                       "(`pre-commit install` strips them at every commit)")


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_has_standard_first_cells(notebook):
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    code = [cell for cell in cells if cell["cell_type"] == "code"]
    assert "google.colab" in "".join(code[0]["source"]), "the first code cell is the standard setup cell"
    assert "parameters" in code[1].get("metadata", {}).get("tags", []), "the second code cell is tagged 'parameters'"
    assert "QUICK" in "".join(code[1]["source"])


CLASSROOM = sorted((NOTEBOOKS[0].parent.parent / "classroom").glob("*.ipynb")) if NOTEBOOKS else []


@pytest.mark.parametrize("notebook", CLASSROOM, ids=lambda p: p.stem)
def test_resolve_cell_turns_on_table_captions(notebook):
    """The classroom apps' resolve cell; a lesson's set-up call turns the captions on (tests/test_lessons.py)."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    resolve = "".join([cell for cell in cells if cell["cell_type"] == "code"][2]["source"])
    assert "sbw.show_provenance_captions()" in resolve, (
        f"{notebook.name}: the third code cell (the standard resolve cell) should call sbw.show_provenance_captions(), "
        "as RESOLVE_CELL in tools/notebook_cells.py does, so that every table shows what produced it")


#: What a notebook prints only on its bert-base branch, so the stand-in run proves that branch ran.
STANDIN_BRANCH_TEXT = {"03_pooling_and_sts": "a raw transformer (no similarity training): its rows are the paper's baselines",
                       "04_siamese_finetuning": "pre-trained weights, the paper's setting with quick mode's few steps"}


@pytest.mark.notebook
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_in_quick_mode(notebook, variant, notebook_runs):
    """The one run of this notebook in this variant (tests/notebook_runs.py) reached the end and wrote its HTML."""
    run = notebook_runs.get(notebook, variant)
    assert run.executed.is_file() and run.run.html.is_file()


@pytest.mark.notebook
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_displayed_table_says_what_made_it(notebook, variant, notebook_runs):
    offenders = tables_without_provenance(notebook_runs.get(notebook, variant).executed)
    assert not offenders, (f"{notebook.name}: these tables do not say which model, pooling, aggregation and split made "
                           "them; give each its provenance (sbw.with_provenance) before displaying it:\n" + "\n".join(offenders))


@pytest.mark.notebook
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_check_claims_success_as_shipped(notebook, notebook_runs):
    claimed = checks_claiming_success(notebook_runs.get(notebook, "own-cache").executed)
    assert not claimed, (f"{notebook.name}: exercises ship unsolved, yet these check cells printed ✓ (a check that "
                         "passes on the placeholder compares nothing; see sbert_workbook/teaching/exercises.py):\n" + "\n".join(claimed))


@pytest.mark.notebook
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_standin_run_took_the_bert_base_branches(notebook, notebook_runs):
    text = all_output_text(notebook_runs.get(notebook, "bert-base-standin").executed)
    assert "bert-base-uncased (hub cache" in text, f"{notebook.name}: 'auto' did not pick the cached bert-base-uncased"
    assert "LOAD REPORT" not in text, f"{notebook.name}: transformers' load report was printed; load through load_encoder"
    branch = STANDIN_BRANCH_TEXT.get(notebook.stem)
    assert branch is None or branch in text, f"{notebook.name}: the bert-base branch did not run (no {branch!r})"


@pytest.mark.notebook
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_html_shows_every_figure(notebook, notebook_runs):
    """Every plotly figure of the executed notebook is drawn in its HTML page, plotly.js embedded once (offline)."""
    run = notebook_runs.get(notebook, "own-cache")
    figures = sum(PLOTLY_MIME in output.get("data", {}) for cell in nbformat.read(run.executed, 4).cells
                  for output in cell.get("outputs", []))
    page = run.run.html.read_text(encoding="utf-8")
    assert page.count("Plotly.newPlot(") >= figures, f"{notebook.name}: {figures} figures, {page.count('Plotly.newPlot(')} drawn"
    assert '<script src="https://cdn.plot.ly' not in page, "the page must carry plotly.js itself, not fetch it"


def all_output_text(executed) -> str:
    """Every stream, plain-text and HTML output of an executed notebook, joined."""
    pieces = []
    for cell in json.loads(executed.read_text(encoding="utf-8"))["cells"]:
        for output in cell.get("outputs", []):
            for text in [output.get("text", "")] + [output.get("data", {}).get(kind, "") for kind in ("text/plain", "text/html", "text/markdown")]:
                pieces.append("".join(text) if isinstance(text, list) else text)
    return "\n".join(pieces)


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
