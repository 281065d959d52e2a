"""A students' release: the notebooks unsolved and a wheel without the answer key, whose checks still grade."""
from __future__ import annotations

import subprocess
import sys
import zipfile

import pytest

from sbert_workbook.app.release import write_release


def test_the_release_holds_the_notebooks_and_a_wheel_without_solutions(tmp_path):
    out = write_release(tmp_path / "release")
    assert sorted(p.name for p in (out / "notebooks").glob("*.ipynb"))[0] == "00_start_here.ipynb"
    assert (out / "classroom" / "pair_explorer.ipynb").is_file() and "no solutions" in (out / "README.txt").read_text()
    (wheel,) = (out / "wheel").glob("sbert_workbook-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "sbert_workbook/teaching/exercises.py" in names and "sbert_workbook/calibration/flow.py" in names
    assert not [name for name in names if "/solutions/" in name], "the students' wheel must not carry the answer key"


def test_asking_a_release_for_a_solution_says_there_is_none():
    script = ("import sys\nsys.modules['sbert_workbook.solutions'] = None\n"
              "from sbert_workbook.teaching.exercises import find_solution\n"
              "try:\n    find_solution('ex05_sif')\nexcept ModuleNotFoundError as error:\n    print(error)\n")
    said = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert "has no solutions" in said and "SOLUTIONS = False" in said


def test_a_check_grades_without_the_solutions(capsys):
    from sbert_workbook.teaching.exercises import check

    check("ex05_sif", [0.5, 0.25], [0.5, 0.25])
    check("ex05_sif", [0.5, 0.2], [0.5, 0.25], "a / (a + p)")
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("✓") and printed[1].startswith("✗")


@pytest.mark.parametrize("name, telltale", [("ex05_snmean", "StandardNormalization()"), ("ex05_edit", "edit_distance("),
                                            ("ex05_sif", "sif_weights("), ("ex06_alignment", "alignment("),
                                            ("ex06_infonce", "normalize(")])
def test_these_check_cells_compute_their_reference_out_of_sight(name, telltale):
    """The call that would give the answer away lives in sbert_workbook/checks/, not in the check cell."""
    import re
    from pathlib import Path

    import nbformat

    notebook = next((Path(__file__).resolve().parents[1] / "notebooks").glob(f"{name[2:4]}_*.ipynb"))
    cells = [cell for cell in nbformat.read(notebook, 4).cells if re.search(rf'check\(\s*"{name}"', cell.source)]
    assert len(cells) == 1 and telltale not in cells[0].source.split("\n", 1)[1], cells[0].source


def test_a_check_without_an_expected_value_reads_its_reference_from_the_notebook(capsys):
    from sbert_workbook.teaching.exercises import check

    namespace = {"sif_probabilities": [0.05, 1e-5], "check": check}
    exec("check('ex05_sif', [1e-4 / (1e-4 + 0.05), 1e-4 / (1e-4 + 1e-5)])\ncheck('ex05_sif', [0.5, 0.5])", namespace)
    first, second = capsys.readouterr().out.splitlines()
    assert first.startswith("✓") and second.startswith("✗")
