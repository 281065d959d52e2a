"""``./workbook colab-check`` runs what Colab installs: the wheel, not the checkout, each notebook alone in an empty folder.

The kernel probe (colab_check.kernel_view) is run for real, in a kernel started in an empty folder: once on this
test environment (the checkout installed editable, which colab-check must refuse) and once on the wheel installed
non-editable into a folder of its own (tests/installed.py), which it must accept.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sbert_workbook.installs import colab_check
from sbert_workbook.runner.notebooks import NotebookRun

REPO = Path(__file__).resolve().parents[1]
SITE = REPO / ".venv" / "lib" / "python3.x" / "site-packages"


def _seen(file: str, repo_root: str | None = None, editable: bool = False) -> dict:
    return {"file": file, "repo_root": repo_root, "editable": editable, "installed_from": "file:///somewhere"}


def test_only_the_wheel_installed_in_site_packages_with_no_checkout_in_sight_passes():
    assert colab_check.installed_package_problems(_seen(f"{SITE}/sbert_workbook/__init__.py"), SITE, REPO) == []
    checkout = colab_check.installed_package_problems(_seen(f"{REPO}/sbert_workbook/__init__.py", editable=True), SITE, REPO)
    assert len(checkout) == 3 and "not from" in checkout[0] and "checkout's" in checkout[1] and "editable" in checkout[2]
    found = colab_check.installed_package_problems(_seen(f"{SITE}/sbert_workbook/__init__.py", repo_root=str(REPO)), SITE, REPO)
    assert found == [f"repo_root() finds a checkout ({REPO}) from the kernel's empty folder"]


def test_the_kernel_probe_sees_the_editable_checkout_here(tmp_path):
    """This test environment runs the checkout (``pip install -e``): colab-check must refuse it."""
    seen = colab_check.kernel_view({"PYTHONPATH": ""}, folder=tmp_path)
    assert Path(seen["file"]).is_relative_to(REPO / "sbert_workbook") and seen["editable"] is True
    problems = colab_check.installed_package_problems(seen, Path(sys.prefix) / "lib", REPO)
    assert any("checkout's sbert_workbook" in problem for problem in problems), problems
    assert seen["repo_root"] == str(REPO), "the editable package finds its checkout, wherever the kernel starts"


def test_the_kernel_probe_accepts_the_wheel_installed_elsewhere(installed_workbook, tmp_path):
    from installed import elsewhere_env

    seen = colab_check.kernel_view({"PYTHONPATH": elsewhere_env(installed_workbook)["PYTHONPATH"]}, folder=tmp_path)
    assert colab_check.installed_package_problems(seen, installed_workbook, REPO) == [], seen
    assert seen["installed_from"].endswith(".whl") and seen["data_roots"] == ["the workbook package's own files: "
                                                                             f"{installed_workbook}/sbert_workbook/data/shipped"]


def _fake_run(name: str, error: str | None = None) -> NotebookRun:
    return NotebookRun(Path(name), Path("executed") / name, Path("html") / name, 12.3, error)


@pytest.fixture
def checked_without_kernels(monkeypatch, tmp_path):
    """colab_check.main with the environment taken as Colab's and run_all recorded; returns run_all's keyword calls."""
    calls = []
    monkeypatch.setattr(colab_check, "environment_problems", lambda *args: ([], {
        "python": "3.12.1", "file": "site/sbert_workbook/__init__.py", "installed_from": "file:///w.whl", "data_roots": []}))
    monkeypatch.setenv("SBERT_WORKBOOK_DATA", str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    return calls


def test_colab_check_runs_each_notebook_alone_outside_the_checkout_with_only_colab_s_data_roots(checked_without_kernels,
                                                                                                 monkeypatch, tmp_path, capsys):
    import os

    runs = [_fake_run("00_start_here.ipynb"), _fake_run("03_pooling_and_sts.ipynb", "DataNotFoundError: Data set 'demo'")]
    monkeypatch.setattr("sbert_workbook.runner.notebooks.run_all",
                        lambda *args, **kwargs: checked_without_kernels.append(kwargs) or runs)
    assert colab_check.main(["--checkout", str(REPO)]) == 1, "a failed notebook fails the check"
    (call,) = checked_without_kernels
    assert call["alone_in"] is not None and not Path(call["alone_in"]).is_relative_to(REPO)
    assert call["env"] == {"SBERT_WORKBOOK_DATA": str(tmp_path.resolve())} and call["raise_failures"] is False
    assert call["timeout_s"] == 900, "a cell that runs 15 minutes is taken as stuck, unless --cell-timeout says otherwise"
    assert call["folder"] == REPO / "notebooks" and "PYTHONPATH" not in os.environ, "no checkout on the kernels' path"
    table = capsys.readouterr().out.split("s of runs in all:\n", 1)[1].splitlines()
    assert table[:3] == ["notebook                     time  result",
                         "00_start_here.ipynb          12 s  passed",
                         "03_pooling_and_sts.ipynb     12 s  FAILED: DataNotFoundError: Data set 'demo'"]
    runs.pop()
    assert colab_check.main(["--checkout", str(REPO), "--cell-timeout", "3600", "00"]) == 0
    assert checked_without_kernels[-1]["timeout_s"] == 3600 and checked_without_kernels[-1]["transport"] == "tcp"


def test_colab_check_stops_before_any_notebook_when_the_environment_is_not_colab_s(monkeypatch, capsys):
    monkeypatch.setattr(colab_check, "environment_problems", lambda *args: (["the kernel imports the checkout's sbert_workbook"], {}))
    monkeypatch.setattr("sbert_workbook.runner.notebooks.run_all", lambda *args, **kwargs: pytest.fail("no notebook may run"))
    assert colab_check.main(["--checkout", str(REPO)]) == 1
    assert "the kernel imports the checkout's sbert_workbook" in capsys.readouterr().err


def test_a_temporary_folder_inside_the_checkout_is_refused(monkeypatch):
    monkeypatch.setattr("tempfile.gettempdir", lambda: str(REPO / "build" / "tmp"))
    with pytest.raises(SystemExit, match="lies inside the checkout"):
        colab_check.scratch_parent(REPO)


# --- which Colab image constraints-colab.txt copies ------------------------------------------------------------------

CONSTRAINTS = (REPO / colab_check.CONSTRAINTS_FILE).read_text(encoding="utf-8")


def test_constraints_colab_copies_colab_s_newest_image():
    """Fails once NEWEST_COLAB_IMAGE records an image newer than the one constraints-colab.txt names (a refresh is due)."""
    assert colab_check.image_problems(CONSTRAINTS) == []


def test_an_older_image_or_a_missing_header_is_caught():
    older = CONSTRAINTS.replace(f"# colab-image: {colab_check.NEWEST_COLAB_IMAGE[0]}", "# colab-image: 2026-06-01")
    assert older != CONSTRAINTS, "the header's image line should carry NEWEST_COLAB_IMAGE's date"
    (problem,) = colab_check.image_problems(older)
    assert "copies Colab's image of 2026-06-01" in problem and colab_check.NEWEST_COLAB_IMAGE[0] in problem
    newer = ("2027-01-02", "A newer image")
    assert colab_check.image_problems(CONSTRAINTS, newest=newer)[0].endswith("and run ./workbook colab-check")
    with pytest.raises(ValueError, match="colab-python"):
        colab_check.colab_image("torch==2.11.0\n")


def test_the_front_door_runs_the_python_the_constraints_name_and_pyproject_allows():
    import subprocess
    import tomllib

    from packaging.specifiers import SpecifierSet

    _date, _title, python = colab_check.colab_image(CONSTRAINTS)
    found = subprocess.run(["bash", "-c", "source ./workbook && colab_python"], cwd=REPO, capture_output=True, text=True)
    assert found.stdout.strip() == python, found.stderr
    requires = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["requires-python"]
    assert f"{python}.0" in SpecifierSet(requires)


def test_every_line_of_the_constraints_is_a_pin_and_torch_is_colab_s_release():
    pins = colab_check.pinned_versions(REPO / colab_check.CONSTRAINTS_FILE)
    assert {"torch", "transformers", "sentence-transformers", "numpy", "huggingface_hub"} <= set(pins)
    assert "+" not in pins["torch"], "pin torch's release: PyPI has no +cu128 build, and the check ignores build labels"


# --- --standin: the branch an online Colab user's MODEL = "auto" takes --------------------------------------------

def test_standin_runs_each_notebook_at_its_standin_sizes_with_the_standin_in_the_hub_cache(checked_without_kernels,
                                                                                            monkeypatch, tmp_path, capsys):
    import json

    from sbert_workbook.runner.notebooks import sizes_parameters

    monkeypatch.setattr("sbert_workbook.environment.bert_base_standin.write_bert_base_standin",
                        lambda hf_home: {"HF_HOME": str(hf_home), "HF_HUB_OFFLINE": "1"})
    loaded, other = tmp_path / "loaded.ipynb", tmp_path / "other.ipynb"
    def executed(source: str, printed: str) -> str:
        return json.dumps({"cells": [{"cell_type": "code", "source": source, "outputs": [{"output_type": "stream",
                                                                                            "text": printed}]}]})

    loaded.write_text(executed("", f"model: {colab_check.LOADED_BERT_BASE} at ...)"), encoding="utf-8")
    other.write_text(executed(f"# would print {colab_check.LOADED_BERT_BASE}", "the embedded all-MiniLM-L6-v2"), encoding="utf-8")
    runs = [NotebookRun(Path("03_pooling_and_sts.ipynb"), loaded, Path("h"), 1.0),
            NotebookRun(Path("04_siamese_finetuning.ipynb"), other, Path("h"), 1.0),
            _fake_run("05_bert_flow.ipynb", "RuntimeError: boom")]
    monkeypatch.setattr("sbert_workbook.runner.notebooks.run_all",
                        lambda *args, **kwargs: checked_without_kernels.append(kwargs) or runs)
    assert colab_check.main(["--checkout", str(REPO), "--standin"]) == 1
    (call,) = checked_without_kernels
    assert call["build_dir"] == REPO / colab_check.STANDIN_RUNS and call["alone_in"] is not None
    assert call["env"]["HF_HUB_OFFLINE"] == "1" and "HF_HOME" in call["env"] and "SBERT_WORKBOOK_DATA" in call["env"]
    notebook = REPO / "notebooks" / "04_siamese_finetuning.ipynb"
    assert call["parameters"](notebook) == sizes_parameters(notebook, "standin")
    assert [run.error for run in runs] == [None, "it never loaded bert-base-uncased from the hub cache: 'auto' took "
                                           "another model", "RuntimeError: boom"]
    assert "on the bert-base-uncased stand-in at its sizes" in capsys.readouterr().out


def test_the_suite_reads_colab_check_s_standin_runs_only_when_made_from_the_notebook_as_it_is(tmp_path):
    """``--standin-runs build/colab-standin`` (.ci/run): the suite's stand-in tests read colab-check's runs, and refuse
    a copy that is missing, made from other cells or sizes, or stopped early."""
    import nbformat
    from notebook_runs import STANDIN, NotebookRuns, reused_run_problem, suite_parameters

    from sbert_workbook.runner.notebooks import sizes_parameters, with_parameters

    notebook = REPO / "notebooks" / "01_mlm_to_similarity.ipynb"  # its stand-in sizes differ from its others
    copy = tmp_path / "executed" / notebook.name
    copy.parent.mkdir()

    def write(parameters: dict, ran: bool = True) -> None:
        nb = with_parameters(nbformat.read(notebook, as_version=4), parameters)
        for count, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
            cell.execution_count = count + 1 if ran or count < 2 else None
        nbformat.write(nb, copy)

    assert "is missing: run ./workbook colab-check --standin" in reused_run_problem(notebook, tmp_path, STANDIN)
    write(sizes_parameters(notebook, "full"))
    assert "was not made from 01_mlm_to_similarity.ipynb as it is now" in reused_run_problem(notebook, tmp_path, STANDIN)
    write(suite_parameters(notebook, STANDIN), ran=False)
    assert "did not run to its end" in reused_run_problem(notebook, tmp_path, STANDIN)
    write(suite_parameters(notebook, STANDIN))
    assert reused_run_problem(notebook, tmp_path, STANDIN) is None
    runs = NotebookRuns(lambda: pytest.fail("no stand-in is written when its runs are read"), tmp_path)
    runs.run_in_background([(notebook, STANDIN)])
    assert runs.get(notebook, STANDIN).executed == copy and runs.finished()[0].read_from == tmp_path
