"""KernelMemory files a notebook kernel's resident memory under the cell that ran: a short-lived 400 MB array is
found in its own cell by the high-water mark, a held one also by the sampling thread alone, and the next cell does
not inherit it (the mark is reset between cells)."""
from __future__ import annotations

import nbformat
import pytest

from sbert_workbook.runner import kernel_memory
from sbert_workbook.runner.kernel_memory import KernelMemory, cell_seconds, run_measured

ALLOCATE = "import numpy as np\nblock = np.ones(400 * 2 ** 20 // 8)\n"


def notebook(tmp_path, cells: list[str]):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# a lesson"),
                                         *(nbformat.v4.new_code_cell(source) for source in cells)])
    path = tmp_path / "90_memory.ipynb"
    nbformat.write(nb, path)
    return path


@pytest.mark.skipif(not kernel_memory.reset_peak(__import__("os").getpid()), reason="needs Linux's clear_refs")
def test_a_brief_peak_is_filed_under_its_cell_and_not_the_next(tmp_path):
    path = notebook(tmp_path, ["x = 1", ALLOCATE + "del block", "import time\ntime.sleep(0.6)"])
    memory, _ = run_measured(path, tmp_path / "build")
    by_index = {cell.index: cell for cell in memory.cells}
    assert sorted(by_index) == [1, 2, 3], "the markdown cell is not a cell that ran"
    assert memory.peak.index == 2
    assert by_index[2].peak_mb - by_index[1].end_mb > 380, "the 400 MB array was freed before any sample: the mark saw it"
    assert by_index[3].peak_mb < by_index[2].peak_mb - 300, "the mark was reset before the next cell"


def test_the_sampler_alone_finds_a_held_peak(tmp_path, monkeypatch):
    monkeypatch.setattr(kernel_memory, "peak_resident_bytes", lambda pid: 0)  # as on a system without VmHWM
    path = notebook(tmp_path, ["x = 1", ALLOCATE + "import time\ntime.sleep(1.5)\ndel block", "y = 2"])
    memory, wall = run_measured(path, tmp_path / "build")
    assert memory.peak.index == 2 and memory.peak.peak_mb - memory.cells[0].end_mb > 380
    assert memory.peak.seconds >= 1.5 and wall > memory.peak.seconds


def test_cell_seconds_reads_nbclient_s_timestamps():
    cell = {"metadata": {"execution": {"iopub.status.busy": "2026-01-01T00:00:01.250Z",
                                       "iopub.status.idle": "2026-01-01T00:00:03.500Z"}}}
    assert cell_seconds(cell) == 2.25 and cell_seconds({"metadata": {}}) == 0.0


def test_no_cell_run_yet_is_an_error_that_says_how():
    with pytest.raises(RuntimeError, match="after_cell"):
        KernelMemory().peak
