"""Scratch folders (04 and 06's checkpoints, fit's default output) are gone once the process that made them ends."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat

from sbert_workbook.training.scratch import scratch_folder

MAKE_AND_FILL = ("from sbert_workbook.training.scratch import scratch_folder\n"
                 "folder = scratch_folder('sbw-test-')\n"
                 "(folder / 'checkpoint' ).mkdir(); (folder / 'checkpoint' / 'weights.bin').write_bytes(b'0' * 1000)\n"
                 "print(folder)")


def test_a_scratch_folder_exists_while_the_process_runs():
    folder = scratch_folder("sbw-test-")
    assert folder.is_dir() and not any(folder.iterdir())


def test_a_scratch_folder_is_removed_with_its_contents_when_python_exits():
    done = subprocess.run([sys.executable, "-c", MAKE_AND_FILL], capture_output=True, text=True, check=True)
    folder = Path(done.stdout.strip().splitlines()[-1])
    assert folder.name.startswith("sbw-test-") and not folder.exists()


def test_a_notebook_kernel_removes_its_scratch_folder_when_it_shuts_down(tmp_path):
    from sbert_workbook.runner.notebooks import run_notebook

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(MAKE_AND_FILL + "\nassert folder.is_dir()")]
    source = tmp_path / "notebooks" / "99_scratch.ipynb"
    source.parent.mkdir()
    nbformat.write(nb, source)
    run = run_notebook(source, build_dir=tmp_path / "build")
    printed = nbformat.read(run.executed, as_version=4).cells[0].outputs[0]["text"]
    folder = Path(printed.strip().splitlines()[-1])
    assert folder.name.startswith("sbw-test-") and not folder.exists(), "the kernel's scratch folder outlived it"
