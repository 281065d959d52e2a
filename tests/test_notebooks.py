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


#: Hub caches a quick-mode run sees: this machine's own (offline, 'auto' then means the embedded model), or one
#: holding only the bert-base-uncased stand-in (tests/conftest.py), so that 'auto' takes the 768-dim, 12-layer,
#: MLM-head branches. The stand-in's weights are random: its numbers mean nothing and nothing reads them.
HUB_CACHES = ["own-cache", "bert-base-standin"]
#: Smaller samples than quick mode's for the stand-in, whose 768 × 12 forward passes cost ~5 times MiniLM's: the
#: branches are what is tested, not the numbers, and the whole stand-in variant must stay within ~5 minutes.
STANDIN_PARAMETERS = {
    "02_anisotropy": {"N_PER_DATASET": 40, "STSB_PAIRS": 100},
    "03_pooling_and_sts": {"QUICK_PAIRS": 16},
    "05_bert_flow": {"PAIRS_PER_SET": 16, "NLI_PAIRS": 40},
    "04_siamese_finetuning": {"NLI_STEPS": 4, "STSB_STEPS": 4, "ABLATION_STEPS": 2, "CROSS_STEPS": 2, "STS_LIMIT": 16,
                              "DEV_PAIRS": 16},
}
#: Notebooks whose quick mode never uses MODEL's weights, so the stand-in run would repeat the own-cache one.
STANDIN_NOT_NEEDED: dict[str, str] = {}
#: What a notebook prints only on its bert-base branch, so the stand-in run proves that branch ran.
STANDIN_BRANCH_TEXT = {"04_siamese_finetuning": "pre-trained weights, the paper's setting with quick mode's few steps"}


@pytest.mark.notebook
@pytest.mark.parametrize("hub_cache", HUB_CACHES)
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_in_quick_mode(notebook, hub_cache, request):
    standin = hub_cache == "bert-base-standin"
    if standin and notebook.stem in STANDIN_NOT_NEEDED:
        pytest.skip(f"{notebook.stem} with the bert-base stand-in: {STANDIN_NOT_NEEDED[notebook.stem]}")
    env = request.getfixturevalue("bert_base_standin") if standin else None
    build_dir = notebook.parent.parent / "build" / hub_cache if standin else None
    parameters = STANDIN_PARAMETERS.get(notebook.stem) if standin else None
    run = run_notebook(notebook, build_dir, env=env, parameters=parameters)
    assert run.executed.is_file() and run.html.is_file()
    offenders = tables_without_provenance(run.executed)
    assert not offenders, (f"{notebook.name}: these tables do not say which model, pooling, aggregation and split made "
                           "them; give each its provenance (sbw.with_provenance) before displaying it:\n" + "\n".join(offenders))
    claimed = checks_claiming_success(run.executed)
    assert not claimed, (f"{notebook.name}: exercises ship unsolved, yet these check cells printed ✓ (a check that "
                         "passes on the placeholder compares nothing; see sbert_workbook/exercises.py):\n" + "\n".join(claimed))
    if standin:
        text = all_output_text(run.executed)
        assert "bert-base-uncased (hub cache" in text, f"{notebook.name}: 'auto' did not pick the cached bert-base-uncased"
        assert "LOAD REPORT" not in text, f"{notebook.name}: transformers' load report was printed; load through load_encoder"
        branch = STANDIN_BRANCH_TEXT.get(notebook.stem)
        assert branch is None or branch in text, f"{notebook.name}: the bert-base branch did not run (no {branch!r})"


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
