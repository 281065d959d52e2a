"""A students' release: the notebooks unsolved and a wheel without the answer key, whose checks still grade."""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from sbert_workbook.installs.release import write_release


REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    return write_release(tmp_path_factory.mktemp("out") / "release")


@pytest.fixture(scope="module")
def release_wheel(release) -> Path:
    (wheel,) = (release / "wheel").glob("sbert_workbook-*.whl")
    return wheel


def test_the_release_holds_the_notebooks_and_a_wheel_without_solutions(release, release_wheel):
    assert sorted(p.name for p in (release / "notebooks").glob("*.ipynb"))[0] == "00_start_here.ipynb"
    assert (release / "classroom" / "pair_explorer.ipynb").is_file() and "no solutions" in (release / "README.txt").read_text()
    names = zipfile.ZipFile(release_wheel).namelist()
    assert "sbert_workbook/teaching/exercises.py" in names and "sbert_workbook/calibration/flow.py" in names
    assert "sbert_workbook/data/shipped/demo_sts_pairs.tsv" in names, "the data the notebooks read ships in it too"
    assert not [name for name in names if "/solutions/" in name], "the students' wheel must not carry the answer key"
    assert release_wheel.name in (release / "README.txt").read_text()


def test_the_release_carries_no_badge_or_address_that_leads_to_the_solutions(release):
    """A badge opens the repository's notebook, whose setup cell installs the package with the solutions."""
    for notebook in sorted((release / "notebooks").glob("*.ipynb")) + sorted((release / "classroom").glob("*.ipynb")):
        text = notebook.read_text(encoding="utf-8")
        assert "Open In Colab" not in text and "git+" not in text and "colab.research.google.com/github" not in text, notebook.name
    import nbformat

    title = nbformat.read(release / "notebooks" / "00_start_here.ipynb", 4).cells[0].source
    assert title.startswith("# 00 · Start here") and "| notebook | after it a student can |\n|---|---|\n" in title
    assert all(row.count(" | ") == 1 for row in title.splitlines() if row.startswith("| `")), "the map keeps 2 columns"
    assert sorted(p.name for p in (release / "notebooks").iterdir()) == sorted(
        p.name for p in (REPO / "notebooks").glob("*.ipynb")), "the notebooks only, not what a run left beside them"


def test_the_readme_installs_lab_at_the_constraints_with_the_cpu_torch_as_the_front_door_does(release, release_wheel):
    readme = (release / "README.txt").read_text(encoding="utf-8")
    workbook = (REPO / "workbook").read_text(encoding="utf-8")
    cpu_index = workbook.split('TORCH_CPU_INDEX="${SBERT_WORKBOOK_TORCH_CPU_INDEX:-', 1)[1].split("}", 1)[0]
    assert f"pip install -c constraints.txt --extra-index-url {cpu_index} torch" in readme
    assert f'pip install -c constraints.txt "wheel/{release_wheel.name}[lab,onnx]"' in readme
    assert '-e ".[$extras]"' in workbook and "extras=lab,onnx" in workbook, "the front door installs [lab,onnx] too"
    assert f'--no-index --find-links wheelhouse -c constraints.txt "wheel/{release_wheel.name}[lab,onnx]"' in readme
    assert (release / "constraints.txt").read_text() == (REPO / "constraints.txt").read_text()


def test_the_releases_binder_folder_installs_its_wheel_not_the_repository(release, release_wheel):
    ours = [line for line in (REPO / "binder" / "requirements.txt").read_text().splitlines() if not line.startswith("#")]
    theirs = [line for line in (release / "binder" / "requirements.txt").read_text().splitlines() if not line.startswith("#")]
    assert theirs == [f"./wheel/{release_wheel.name}[lab]" if line == ".[lab]" else line for line in ours]
    assert "-c ../constraints.txt" in theirs and (release / "binder" / ".." / "constraints.txt").is_file()
    for name in ("runtime.txt", "apt.txt", "start"):
        assert (release / "binder" / name).read_bytes() == (REPO / "binder" / name).read_bytes()


def test_the_wheelhouse_downloads_the_wheel_with_its_extras_at_the_constraints(tmp_path, monkeypatch):
    import urllib.request

    from sbert_workbook.installs import release as release_module

    ran = []
    monkeypatch.setattr(release_module.subprocess, "run", lambda command, **kwargs: ran.append(command))
    monkeypatch.setattr(urllib.request, "urlopen", lambda *args, **kwargs: None)
    house = release_module.fill_wheelhouse(tmp_path, "sbert_workbook-0.1.0-py3-none-any.whl")
    (command,) = ran
    assert command[1:4] == ["-m", "pip", "download"] and command[command.index("-d") + 1] == str(house)
    assert command[command.index("--extra-index-url") + 1] == release_module.TORCH_CPU_INDEX
    assert command[command.index("-c") + 1] == str(tmp_path / "constraints.txt")
    assert command[-1] == f"{tmp_path / 'wheel' / 'sbert_workbook-0.1.0-py3-none-any.whl'}[lab,onnx]"


@pytest.mark.notebook
def test_00_and_an_exercise_notebook_run_from_the_releases_wheel_and_find_no_solution(release, tmp_path):
    """The check a teacher runs with ./workbook release --check: the wheel pip-installed into a new venv, 00 and 01 run
    alone in empty folders in its kernel, every check cell 'not attempted', and no solution importable there."""
    from sbert_workbook.installs.release_check import check_release, report

    records = check_release(release, tmp_path / "check")
    said = report(records)
    print(said)
    assert [record["notebook"] for record in records] == ["00_start_here.ipynb", "01_mlm_to_similarity.ipynb"]
    assert said.endswith("PASS: the release runs from its wheel and holds no solution"), said
    for record in records:
        assert record["checks"] >= 1 and record["probe"]["solutions_found"] is False
        assert Path(record["probe"]["package"]).is_relative_to(tmp_path / "check" / "venv")


def _setup_cell(notebook: Path) -> str:
    import nbformat

    return next(cell.source for cell in nbformat.read(notebook, 4).cells if cell.cell_type == "code")


def test_every_released_notebook_installs_the_release_wheel_on_colab_not_the_repository(release, release_wheel):
    released = sorted((release / "notebooks").glob("*.ipynb")) + sorted((release / "classroom").glob("*.ipynb"))
    assert len(released) == len(list((REPO / "notebooks").glob("*.ipynb")) + list((REPO / "classroom").glob("*.ipynb")))
    for notebook in released:
        cell = _setup_cell(notebook)
        assert "git+" not in cell and f'WHEEL = "{release_wheel.name}"' in cell, f"{notebook.name}:\n{cell}"
        assert '"pip", "install", "-q", WHEEL]' in cell and "Setup, the same in every notebook" in cell.splitlines()[0]


def _run_on_colab(cell: str, monkeypatch, tmp_path) -> list[list[str]]:
    """``cell`` executed as Colab would (a fake google.colab; subprocess.run recorded, nothing installed), in tmp_path."""
    import subprocess
    import sys
    import types

    calls, colab, output = [], types.ModuleType("google.colab"), types.ModuleType("google.colab.output")
    output.enable_custom_widget_manager = lambda: None
    colab.output = output
    monkeypatch.setitem(sys.modules, "google", sys.modules.get("google") or types.ModuleType("google"))
    monkeypatch.setitem(sys.modules, "google.colab", colab)
    monkeypatch.setitem(sys.modules, "google.colab.output", output)
    monkeypatch.setattr(subprocess, "run", lambda command, **kwargs: calls.append(command))
    monkeypatch.chdir(tmp_path)
    exec(cell, {})
    return calls


def test_on_colab_the_released_cell_installs_the_uploaded_wheel_and_says_so_when_it_is_missing(release, release_wheel,
                                                                                                monkeypatch, tmp_path):
    cell = _setup_cell(release / "notebooks" / "03_pooling_and_sts.ipynb")
    with pytest.raises(FileNotFoundError, match=f"Upload {release_wheel.name} from your release's wheel/ folder"):
        _run_on_colab(cell, monkeypatch, tmp_path)
    (tmp_path / release_wheel.name).write_bytes(release_wheel.read_bytes())
    (command,) = _run_on_colab(cell, monkeypatch, tmp_path)
    assert command[-2:] == ["-q", release_wheel.name] and command[2:4] == ["pip", "install"]


def test_with_a_wheel_url_the_released_cell_installs_from_there(tmp_path, monkeypatch):
    from sbert_workbook.installs.release import released_setup_cell, wheel_address

    monkeypatch.syspath_prepend(str(REPO))  # tools/ ships with a checkout, not with the package
    from tools.notebook_cells import SETUP_CELL

    name = "sbert_workbook-0.1.0-py3-none-any.whl"
    url = wheel_address("https://example.org/course/", name)
    (command,) = _run_on_colab(released_setup_cell(SETUP_CELL, name, url), monkeypatch, tmp_path)
    assert command[-1] == f"sbert-workbook @ https://example.org/course/{name}"
    with pytest.raises(ValueError, match="does not end in the wheel's file name"):
        wheel_address("https://drive.example/d/123", name)
    with pytest.raises(ValueError, match="is not a web address"):
        wheel_address("example.org/" + name, name)


def test_a_wrong_wheel_url_stops_the_release_before_it_replaces_the_last_one(tmp_path):
    out = tmp_path / "release"
    out.mkdir()
    (out / "handed-out.txt").write_text("last term's release")
    with pytest.raises(ValueError, match="does not end in the wheel's file name"):
        write_release(out, "https://drive.example/d/123")
    assert [p.name for p in out.iterdir()] == ["handed-out.txt"]


def test_outside_colab_the_released_cell_installs_nothing(release, monkeypatch, tmp_path):
    import subprocess
    import sys

    calls = []
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    monkeypatch.setattr(subprocess, "run", lambda *args, **kwargs: calls.append(args))
    monkeypatch.chdir(tmp_path)
    exec(_setup_cell(release / "notebooks" / "00_start_here.ipynb"), {})
    assert calls == []


#: Notebook 00's exercise 1 run as the notebook runs it: SOLUTIONS = True in the parameters cell, ``vectors`` from the
#: cells above (three 2-d vectors: cos(0, 2) = 1/sqrt(2)), then the exercise cell and its check cell, verbatim.
SOLVE_EXERCISE_1 = """
import json, numpy as np, torch
import sbert_workbook
from sbert_workbook.teaching.exercises import check, solution_or
SOLUTIONS = True
vectors = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
exercise, check_cell = {cells!r}
try:
    exec(exercise)
    said = None
except ModuleNotFoundError as error:
    said = str(error)
import contextlib, io
printed = io.StringIO()
with contextlib.redirect_stdout(printed):
    exec(check_cell)
print(json.dumps({{"package": sbert_workbook.__file__, "said": said, "placeholder": my_cosine is Ellipsis,
                  "answer": None if my_cosine is Ellipsis else my_cosine, "check": printed.getvalue().strip()}}))
"""


def _exercise_1(notebook: Path) -> tuple[str, str]:
    import nbformat

    cells = nbformat.read(notebook, 4).cells
    index = next(i for i, cell in enumerate(cells) if "exercise" in cell.metadata.get("tags", []) and '"ex00_1"' in cell.source)
    assert "check" in cells[index + 1].metadata.get("tags", [])
    return cells[index].source, cells[index + 1].source


def test_a_released_notebook_cannot_fill_in_a_solution(release, release_wheel, installed_workbook, tmp_path):
    """The release's wheel installed by pip (not the checkout), run from an empty folder: SOLUTIONS = True says this
    copy has none and the placeholder stays; the same cells with the full package fill the answer in (the control)."""
    from installed import install_into, run_elsewhere

    cells = _exercise_1(release / "notebooks" / "00_start_here.ipynb")
    script = SOLVE_EXERCISE_1.format(cells=cells)
    released = install_into(release_wheel, tmp_path / "site")
    (tmp_path / "empty").mkdir()
    seen = run_elsewhere(script, released, tmp_path / "empty")
    assert Path(seen["package"]).is_relative_to(released), seen["package"]
    assert seen["said"] is not None and "This copy of the workbook has no solutions" in seen["said"]
    assert "SOLUTIONS = False" in seen["said"]
    assert seen["placeholder"] is True and seen["check"] == "not attempted yet: fill in the cell above"
    assert not (released / "sbert_workbook" / "solutions").exists()
    full = run_elsewhere(script, installed_workbook, tmp_path / "empty")
    assert full["said"] is None and abs(full["answer"] - 2 ** -0.5) < 1e-6 and full["check"].startswith("✓"), full


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
