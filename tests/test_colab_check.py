"""``./workbook colab-check`` runs what Colab installs: the wheel, not the checkout, each notebook alone in an empty folder.

The kernel probe (colab_check.kernel_view) is run for real, in a kernel started in an empty folder: once on this
test environment (the checkout installed editable, which colab-check must refuse) and once on the wheel installed
non-editable into a folder of its own (tests/installed.py), which it must accept.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sbert_workbook.app import colab_check
from sbert_workbook.app.runbook import NotebookRun

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
    monkeypatch.setattr("sbert_workbook.app.runbook.run_all",
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
    monkeypatch.setattr("sbert_workbook.app.runbook.run_all", lambda *args, **kwargs: pytest.fail("no notebook may run"))
    assert colab_check.main(["--checkout", str(REPO)]) == 1
    assert "the kernel imports the checkout's sbert_workbook" in capsys.readouterr().err


def test_a_temporary_folder_inside_the_checkout_is_refused(monkeypatch):
    monkeypatch.setattr("tempfile.gettempdir", lambda: str(REPO / "build" / "tmp"))
    with pytest.raises(SystemExit, match="lies inside the checkout"):
        colab_check.scratch_parent(REPO)
