"""Committed notebooks carry no outputs: ``.pre-commit-config.yaml``'s nbstripout hook strips them at each commit
(``pre-commit install`` once per clone, or ``pre-commit run nbstripout --all-files``), and these tests run that hook,
as a commit would, on copies of the committed notebooks in a scratch git repository, never on the working tree.
The first run builds the hook's environment from PyPI (about 20 s); pre-commit keeps it in ``~/.cache/pre-commit``.
"""
from __future__ import annotations

import copy
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
PRE_COMMIT = Path(sys.executable).with_name("pre-commit")
COMMITTED = subprocess.run(["git", "ls-files", "*.ipynb"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()


def run_hook(repo: Path, notebooks: dict[str, str]) -> subprocess.CompletedProcess:
    """``pre-commit run nbstripout --all-files`` in ``repo``, a new git repository holding the project's
    pre-commit config and ``notebooks`` (``{path in the repository: text}``)."""
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    shutil.copy(ROOT / ".pre-commit-config.yaml", repo)
    for name, text in notebooks.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text, encoding="utf-8")
    subprocess.run(["git", "add", "."], cwd=repo, check=True)
    return subprocess.run([str(PRE_COMMIT), "run", "nbstripout", "--all-files"], cwd=repo, capture_output=True,
                          text=True, timeout=600)


def test_the_hook_would_change_no_committed_notebook(tmp_path):
    assert COMMITTED, "git ls-files found no notebooks"
    originals = {name: (ROOT / name).read_text(encoding="utf-8") for name in COMMITTED}
    result = run_hook(tmp_path / "repo", originals)
    changed = [name for name, text in originals.items() if (tmp_path / "repo" / name).read_text(encoding="utf-8") != text]
    assert result.returncode == 0 and not changed, (
        f"nbstripout would change {changed}: run `pre-commit run nbstripout --all-files` and commit the result "
        f"(`pre-commit install` does it at every commit).\n{result.stdout}{result.stderr}")


def test_the_hook_strips_a_planted_output_and_keeps_tags_and_hidden_source(tmp_path):
    name = "notebooks/00_start_here.ipynb"
    clean = nbformat.reads((ROOT / name).read_text(encoding="utf-8"), as_version=4)
    tagged = next(i for i, cell in enumerate(clean.cells) if cell.cell_type == "code" and cell.metadata.get("tags"))
    clean.cells[tagged].metadata["jupyter"] = {"source_hidden": True}
    dirty = copy.deepcopy(clean)
    dirty.cells[tagged].execution_count = 3
    dirty.cells[tagged].outputs = [nbformat.v4.new_output("stream", name="stdout", text="a planted output\n")]

    result = run_hook(tmp_path / "repo", {name: nbformat.writes(dirty)})
    assert result.returncode == 1 and "files were modified by this hook" in result.stdout, result.stdout + result.stderr
    stripped = nbformat.reads((tmp_path / "repo" / name).read_text(encoding="utf-8"), as_version=4)
    assert stripped == clean, "the hook should remove the output and the count, and nothing else"
