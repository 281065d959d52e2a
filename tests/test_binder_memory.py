"""binder-check's memory limit: every notebook runs with binder/start's environment, each kernel's peak is held
against Binder's 2 GB, and the runs it keeps can make the book without a second run (and only when they match).

Two tiny notebooks stand in for the lessons (one holds a 400 MB array for a moment), so the run takes seconds.
"""
from __future__ import annotations

import nbformat
import pytest

from sbert_workbook.book import build as book
from sbert_workbook.installs.binder_check import BINDER_MEMORY_LIMIT_GB, main, start_script_env
from sbert_workbook.installs.binder_memory import NotebookMemory, measured_before, over_the_limit, run_within_memory
from sbert_workbook.runner.notebooks import list_notebooks

SAYS_QUICK = "print('quick mode: on (a test)')"
ALLOCATE = "import numpy as np, time\nblock = np.ones(400 * 2 ** 20 // 8)\ntime.sleep(0.6)\ndel block"


def test_the_limit_is_binder_s_two_gigabytes():
    assert BINDER_MEMORY_LIMIT_GB == 2.0


def test_the_shipped_start_script_pins_auto_to_the_embedded_model(monkeypatch):
    from pathlib import Path

    monkeypatch.delenv("SBERT_WORKBOOK_MODEL", raising=False)
    start = Path(__file__).resolve().parents[1] / "binder" / "start"
    assert start_script_env(start) == {"SBERT_WORKBOOK_MODEL": "embedded"}
    monkeypatch.setenv("SBERT_WORKBOOK_MODEL", "bert-base-uncased")  # a hub with more memory sets its own
    assert start_script_env(start) == {}


def test_a_start_script_s_exports_are_read_and_one_that_runs_nothing_is_refused(tmp_path):
    start = tmp_path / "start"
    start.write_text('#!/bin/bash\nexport SBW_TEST_A=1 SBW_TEST_B="two words"\nexec "$@"\n')
    assert start_script_env(start) == {"SBW_TEST_A": "1", "SBW_TEST_B": "two words"}
    assert start_script_env(tmp_path / "none") == {}
    start.write_text("#!/bin/bash\nexport SBW_TEST_A=1\n")
    with pytest.raises(RuntimeError, match='exec "\\$@"'):
        start_script_env(start)


def test_over_the_limit_names_the_notebook_and_the_cell():
    results = [NotebookMemory("00_start_here", 0.9, 13, "encoder = sbw.load_encoder(MODEL)", 20),
               NotebookMemory("06_contrastive_simcse", 2.31, 30, "runs = train_all()", 300),
               NotebookMemory("03_pooling_and_sts", 0.5, 5, "x", 10, error="CellExecutionError: boom")]
    assert over_the_limit(results, 2.0) == [
        "06_contrastive_simcse's kernel peaked at 2.31 GB, above Binder's 2.0 GB, in cell 30 ('runs = train_all()'): "
        "free what that cell keeps or needs",
        "03_pooling_and_sts stopped: CellExecutionError: boom (read build/binder/book-executed/executed/"
        "03_pooling_and_sts.ipynb)"]


@pytest.fixture(scope="module")
def lessons(tmp_path_factory):
    root = tmp_path_factory.mktemp("checkout")
    (root / "notebooks").mkdir()
    for name, cells in {"00_small": [SAYS_QUICK, "x = 1"], "01_heavy": [SAYS_QUICK, ALLOCATE, "y = 2"]}.items():
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# a lesson"),
                                             *(nbformat.v4.new_code_cell(source) for source in cells)])
        nbformat.write(nb, root / "notebooks" / f"{name}.ipynb")
    return root, run_within_memory(root, {"SBW_TEST_VARIABLE": "seen"})


def test_every_notebook_is_measured_and_the_heavy_cell_is_found(lessons):
    root, results = lessons
    small, heavy = results
    assert [r.notebook for r in results] == ["00_small", "01_heavy"] and not small.error and not heavy.error
    assert heavy.peak_gb - small.peak_gb > 0.35 and heavy.peak_cell == 2 and heavy.peak_line.startswith("import numpy")
    limit = round(small.peak_gb + 0.2, 2)
    assert [line.split("'")[0] for line in over_the_limit(results, limit)] == ["01_heavy"]
    assert measured_before(root) == results  # what `--page-only` reads back is what `--runs-only` measured


def test_the_page_alone_needs_the_runs_first_and_says_so(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"binder-check --runs-only"):
        measured_before(tmp_path)


@pytest.mark.parametrize("argv", [["--page"], ["--runs-only", "--page-only"], ["--install-only"]])
def test_a_part_it_does_not_know_is_refused_with_the_parts_it_knows(argv, capsys):
    assert main(argv) == 2
    said = capsys.readouterr().err
    assert "--runs-only" in said and "--page-only" in said and " ".join(argv) in said


def test_the_kept_runs_make_the_book_until_a_notebook_changes(lessons, monkeypatch):
    root, _ = lessons
    runs = root / "build" / "binder" / book.RUNS_FOLDER
    notebooks = list_notebooks(root / "notebooks")
    assert book.reuse_problems(runs, notebooks) == []
    nb = nbformat.read(notebooks[0], as_version=4)
    nb.cells[-1].source = "x = 3"
    nbformat.write(nb, notebooks[0])
    assert book.reuse_problems(runs, notebooks) == ["00_small.ipynb changed since it was executed there"]
    (runs / book.VERDICTS_FILE).unlink()
    assert book.reuse_problems(runs, notebooks[1:]) == ["no story.jsonl"]


def test_an_unfinished_or_unquick_run_cannot_make_the_book(tmp_path):
    source = tmp_path / "notebooks" / "05_x.ipynb"
    source.parent.mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print('quick mode: off')"), nbformat.v4.new_code_cell("y = 1")])
    nbformat.write(nb, source)
    (tmp_path / "runs" / "executed").mkdir(parents=True)
    (tmp_path / "runs" / book.VERDICTS_FILE).write_text("")
    nb.cells[0].execution_count, nb.cells[0].outputs = 1, [nbformat.v4.new_output("stream", text="quick mode: off\n")]
    nbformat.write(nb, tmp_path / "runs" / "executed" / source.name)
    assert book.reuse_problems(tmp_path / "runs", [source]) == ["05_x.ipynb did not run to its end there"]
    nb.cells[1].execution_count = 2
    nbformat.write(nb, tmp_path / "runs" / "executed" / source.name)
    assert book.reuse_problems(tmp_path / "runs", [source]) == [
        "05_x.ipynb did not run in quick mode on the embedded model there"]


def test_a_niced_run_waits_longer_for_a_cell_than_a_run_on_cores_of_its_own(monkeypatch):
    from sbert_workbook.installs import binder_memory

    monkeypatch.setattr("os.getpriority", lambda which, who: 0)
    assert binder_memory.cell_timeout_s() == binder_memory.CELL_TIMEOUT_S == 900
    monkeypatch.setattr("os.getpriority", lambda which, who: 19)
    assert binder_memory.cell_timeout_s() == binder_memory.NICED_CELL_TIMEOUT_S > binder_memory.CELL_TIMEOUT_S
