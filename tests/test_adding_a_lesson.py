"""docs/adding-a-lesson.md, made true and kept true: ``tools/new_lesson.py`` writes a lesson's skeleton into a copy of
this checkout, and there the layout, lesson, exercise, handout, map and page tests pass with it, its set-up runs, its
check grades its solution and the command line lists it; the page's checklist names exactly the files the tool writes
and edits (``00_start_here.ipynb``'s map among them)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from installed import fresh_copy

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from tools import new_lesson  # noqa: E402

PAGE = REPO / "docs" / "adding-a-lesson.md"
#: The tests that read every lesson's files, run in the copy: the whole-package ones whole, the per-notebook ones on
#: the skeleton (``{nb}``: its notebook's name).
STATIC_TESTS = (
    "tests/test_package_layout.py", "tests/test_references.py", "tests/test_names_exist.py", "tests/test_lesson_{n}.py",
    "tests/test_lessons.py::test_every_code_cell_is_short_and_hidden_cells_are_hidden_everywhere[{nb}]",
    "tests/test_lessons.py::test_the_third_code_cell_is_the_lessons_one_set_up_call[{nb}]",
    "tests/test_lessons.py::test_sizes_come_from_the_manifest_only[{nb}]",
    "tests/test_lessons.py::test_every_subsection_read_at_home_exists[{nb}]",
    "tests/test_lessons.py::test_every_notebook_has_a_manifest_and_every_manifest_a_notebook",
    "tests/test_lessons.py::test_every_lesson_has_the_one_shape", "tests/test_lessons.py::test_every_lesson_has_its_test_file",
    "tests/test_lessons.py::test_the_readme_table_lists_every_lesson_in_order",
    "tests/test_lessons.py::test_docs_notebooks_has_a_paragraph_for_every_lesson_in_order",
    "tests/test_exercises.py::test_every_exercise_has_its_check_and_its_solution[{nb}]",
    "tests/test_handouts.py::test_each_handout_holds_the_objectives_an_equation_an_unsolved_exercise_and_its_check[{nb}]",
    "tests/test_colab_cell.py::test_00s_map_shows_every_notebook_with_its_objectives_and_badge",
    "tests/test_colab_cell.py::test_every_notebook_has_its_own_colab_badge_first[{nb}]",
)


def next_number(root: Path = REPO) -> str:
    """The first lesson number no manifest has."""
    taken = {p.stem[2:] for p in (root / "sbert_workbook" / "lessons" / "manifests").glob("nb[0-9][0-9].py")}
    return next(f"{n:02d}" for n in range(100) if f"{n:02d}" not in taken)


def in_copy(copy: Path, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(copy), "HF_HUB_OFFLINE": "1", "PYTEST_ADDOPTS": ""}
    return subprocess.run([sys.executable, *args], cwd=copy, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def skeleton(tmp_path_factory) -> tuple[Path, str]:
    copy = fresh_copy(tmp_path_factory.mktemp("adding") / "repo")
    number = next_number(copy)
    made = in_copy(copy, "tools/new_lesson.py", number, "skeleton", "A skeleton", "--root", str(copy))
    assert made.returncode == 0, made.stdout + made.stderr
    subprocess.run(["git", "init", "-q"], cwd=copy, check=True)  # tests/test_references.py lists files with git
    subprocess.run(["git", "add", "-A"], cwd=copy, check=True)
    return copy, number


def test_the_skeleton_passes_the_layout_lesson_exercise_and_page_tests(skeleton):
    copy, number = skeleton
    selected = [test.format(n=number, nb=f"{number}_skeleton") for test in STATIC_TESTS]
    ran = in_copy(copy, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not notebook and not browser", *selected)
    assert ran.returncode == 0, ran.stdout[-4000:] + ran.stderr[-2000:]


def test_the_skeleton_sets_up_its_check_grades_its_solution_and_the_command_line_lists_it(skeleton):
    copy, number = skeleton
    script = (f"from sbert_workbook.lessons import nb{number}\nfrom sbert_workbook.checks import nb{number} as checks\n"
              f"from sbert_workbook.solutions import nb{number} as solutions\nimport numpy as np\n"
              f"lesson = nb{number}.begin(True, 'embedded', 0, 'cpu', {{}})\n"
              f"u, v = np.array([1.0, 2.0, 2.0]), np.array([2.0, 0.0, 1.0])\n"
              f"assert lesson.notebook == '{number}_skeleton' and lesson.mode == 'quick'\n"
              f"assert abs(checks.ex{number}_1(u, v) - solutions.ex{number}_1(u, v)) < 1e-12\n"
              f"print('set up and graded')")
    ran = in_copy(copy, "-c", script)
    assert ran.returncode == 0 and "set up and graded" in ran.stdout, ran.stdout + ran.stderr
    links = in_copy(copy, "-m", "sbert_workbook", "links")
    assert f"notebooks/{number}_skeleton.ipynb" in links.stdout, links.stdout + links.stderr


def checklist(page: str) -> list[str]:
    """The first column of the page's checklist table: the files the tool writes and edits, ``NN`` for the number."""
    table = page[page.index("| file | what to write | the test that holds it |"):]
    rows = re.findall(r"^\| `([^`]+)` \|", table[:table.index("\n\n")], re.M)
    return rows


def test_the_page_names_exactly_the_files_the_tool_writes_and_edits():
    listed = checklist(PAGE.read_text(encoding="utf-8"))
    assert sorted(listed) == sorted([*new_lesson.WRITTEN, *new_lesson.EDITED]), (
        "docs/adding-a-lesson.md's checklist and tools/new_lesson.py's WRITTEN and EDITED disagree")
    assert f"python tools/new_lesson.py" in PAGE.read_text(encoding="utf-8")


def test_the_tool_refuses_a_number_that_is_taken_and_writes_nothing(tmp_path):
    with pytest.raises(FileExistsError, match="lesson 00 exists already"):
        new_lesson.new_lesson("00", "again", "Again", REPO)
    with pytest.raises(ValueError, match="two-digit number"):
        new_lesson.new_lesson("1", "x", "X", tmp_path)
    assert not list(tmp_path.iterdir())
