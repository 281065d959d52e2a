"""Scripts and notebooks keep LF in every checkout (.gitattributes): a clone made by Git for Windows converts text to
CRLF (core.autocrlf=true), and a ./workbook with CRLF fails in WSL with "/usr/bin/env: 'bash\\r'"."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: What must run or parse with LF: the front door, the CI scripts, Binder's start script, every notebook.
LF_FILES = ["workbook", ".ci/run", ".ci/install_browser.sh", "binder/start", "pyproject.toml", "constraints.txt",
            *sorted(p.relative_to(REPO).as_posix() for p in (REPO / "notebooks").glob("*.ipynb")),
            *sorted(p.relative_to(REPO).as_posix() for p in (REPO / "classroom").glob("*.ipynb"))]


def git(*args: str, cwd: Path = REPO) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def test_gitattributes_asks_lf_for_the_scripts_and_notebooks():
    said = git("check-attr", "eol", "--", *LF_FILES, "sbert_workbook/about.py", "tools/add_colab_badges.py")
    eol = dict(line.rsplit(": eol: ", 1) for line in said.splitlines())
    assert {path: value for path, value in eol.items() if value != "lf"} == {}


def test_the_fixtures_keep_their_own_bytes():
    said = git("check-attr", "text", "--", "tests/fixtures/sick/bom_crlf.txt")
    assert said.strip().endswith("text: unset"), "tests/fixtures/.gitattributes keeps their CRLF and BOM"


def test_the_checked_out_scripts_and_notebooks_have_no_carriage_return():
    with_cr = [name for name in LF_FILES if b"\r" in (REPO / name).read_bytes()]
    assert with_cr == []


def test_a_clone_made_with_autocrlf_keeps_lf_in_the_scripts_and_notebooks(tmp_path):
    """As Git for Windows clones (core.autocrlf=true): the committed .gitattributes decides, so this reads HEAD."""
    if not git("ls-files", ".gitattributes").strip():
        pytest.skip(".gitattributes is not committed yet, and a clone reads the committed one")
    clone = tmp_path / "clone"
    subprocess.run(["git", "-c", "core.autocrlf=true", "clone", "--quiet", "--no-hardlinks", str(REPO), str(clone)],
                   check=True, capture_output=True)
    committed = [name for name in LF_FILES if (clone / name).exists()]
    assert "workbook" in committed and any(name.endswith(".ipynb") for name in committed)
    assert [name for name in committed if b"\r" in (clone / name).read_bytes()] == []
    readme = (clone / "README.md").read_bytes()
    assert b"\r\n" not in readme, "text files keep LF too (eol=lf for everything git reads as text)"
