"""Lesson-first notebooks: the cell a student reads is the lesson, plumbing is one hidden call, sizes live once.

Rules (issue 40; docs/adding-a-lesson.md): no code cell over 20 lines; a visible code cell at most 15; a hidden cell
is hidden the same way everywhere (the ``hide-input`` tag for the book, ``source_hidden`` for JupyterLab,
``cellView: form`` with a ``#@title`` line for Colab) and short (one call, its imports and its title); the third code
cell is the lesson's set-up call; every size comes from the lesson's manifest (the notebook assigns none).
"""
from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

import pytest

from sbert_workbook.runner.notebooks import list_notebooks
from sbert_workbook.lessons.manifest import Size, all_manifests, manifest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from tools.notebook_cells import HIDE_INPUT_TAG, TITLE_PREFIX, begin_cell, hidden_cell  # noqa: E402

NOTEBOOKS = list_notebooks()
MAX_LINES, MAX_VISIBLE_LINES, MAX_HIDDEN_LINES = 20, 15, 12


def code_cells(cells: list[dict]) -> list[tuple[int, dict]]:
    return [(index, cell) for index, cell in enumerate(cells) if cell["cell_type"] == "code"]


def source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def is_hidden(cell: dict) -> bool:
    return HIDE_INPUT_TAG in cell.get("metadata", {}).get("tags", [])


def cell_rule_breaks(cells: list[dict]) -> list[str]:
    """'cell N: what is wrong' for every code cell breaking a rule of the module docstring."""
    broken = []
    for index, cell in code_cells(cells):
        lines, text, metadata = len(source(cell).splitlines()), source(cell), cell.get("metadata", {})
        limit = MAX_HIDDEN_LINES if is_hidden(cell) else MAX_VISIBLE_LINES
        if lines > min(limit, MAX_LINES) and "parameters" not in metadata.get("tags", []):
            broken.append(f"cell {index}: {lines} lines ({'hidden' if is_hidden(cell) else 'visible'} cells: at most {limit})")
        hidden_marks = {"tag": is_hidden(cell), "source_hidden": metadata.get("jupyter", {}).get("source_hidden") is True,
                        "cellView": metadata.get("cellView") == "form", "title": text.startswith(TITLE_PREFIX)}
        if len(set(hidden_marks.values())) > 1:
            broken.append(f"cell {index}: hidden only half-way ({', '.join(k for k, v in hidden_marks.items() if v)} "
                          f"but not {', '.join(k for k, v in hidden_marks.items() if not v)}); use tools/notebook_cells.hidden_cell")
    return broken


def sizes_assigned(cells: list[dict], names: set[str]) -> list[str]:
    """'cell N: NAME' for every assignment of a manifest size in the notebook's code (the manifest is its one home)."""
    found = []
    for index, cell in code_cells(cells):
        for name in re.findall(r"^\s*([A-Z][A-Z0-9_]*)\s*=(?!=)", source(cell), re.M):
            if name in names:
                found.append(f"cell {index}: {name}")
    return found


def read_cells(notebook: Path) -> list[dict]:
    return json.loads(notebook.read_text(encoding="utf-8"))["cells"]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_code_cell_is_short_and_hidden_cells_are_hidden_everywhere(notebook):
    broken = cell_rule_breaks(read_cells(notebook))
    assert not broken, f"{notebook.name}:\n" + "\n".join(broken)


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_third_code_cell_is_the_lessons_one_set_up_call(notebook):
    third = source(code_cells(read_cells(notebook))[2][1])
    assert third == begin_cell(notebook.name[:2]).source, (
        f"{notebook.name}: the third code cell should be tools/notebook_cells.begin_cell({notebook.name[:2]!r}):\n"
        f"{begin_cell(notebook.name[:2]).source}")


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_sizes_come_from_the_manifest_only(notebook):
    cells = read_cells(notebook)
    parameters = next(source(cell) for cell in cells if "parameters" in cell.get("metadata", {}).get("tags", []))
    assert re.search(r"^SIZES = \{\}", parameters, re.M), f"{notebook.name}: the parameters cell should hold SIZES = {{}}"
    assigned = sizes_assigned(cells, set(manifest(notebook.stem).sizes))
    assert not assigned, f"{notebook.name} assigns sizes its manifest holds (set them with SIZES instead): {assigned}"


def test_every_notebook_has_a_manifest_and_every_manifest_a_notebook():
    assert [m.notebook for m in all_manifests()] == [n.stem for n in NOTEBOOKS]


@pytest.mark.parametrize("lesson", all_manifests(), ids=lambda m: m.notebook)
def test_every_subsection_read_at_home_exists(lesson):
    text = "\n".join(source(cell) for cell in read_cells(REPO / "notebooks" / f"{lesson.notebook}.ipynb")
                     if cell["cell_type"] == "markdown")
    missing = [s for s in lesson.read_at_home if not re.search(rf"^#+ {re.escape(s)} ·", text, re.M)]
    assert not missing, f"{lesson.notebook}: read_at_home names subsections the notebook does not have: {missing}"


# ----------------------------------------------------------------------------- the checks catch what they should
def test_the_cell_rules_catch_a_long_cell_and_a_half_hidden_one():
    long_visible = {"cell_type": "code", "metadata": {}, "source": "x = 1\n" * 16}
    half_hidden = {"cell_type": "code", "metadata": {"tags": [HIDE_INPUT_TAG]}, "source": "report()"}
    long_hidden = dict(hidden_cell("a report", "report()\n" * 12))
    fine = [dict(hidden_cell("a report", "report(lesson)")), {"cell_type": "code", "metadata": {}, "source": "x = 1\n" * 15}]
    assert cell_rule_breaks(fine) == []
    broken = cell_rule_breaks([long_visible, half_hidden, long_hidden])
    assert [line.split(":")[0] for line in broken] == ["cell 0", "cell 1", "cell 2"], broken
    assert "hidden only half-way" in broken[1]


def test_the_size_check_catches_a_size_assigned_in_a_cell():
    cells = [{"cell_type": "code", "metadata": {}, "source": "STEPS = 8\nif STEPS == 8:\n    BATCH = 2"}]
    assert sizes_assigned(cells, {"STEPS", "BATCH"}) == ["cell 0: STEPS", "cell 0: BATCH"]
    assert sizes_assigned(cells, {"OTHER"}) == []


def test_a_size_falls_back_from_standin_to_suite_to_quick_and_from_full_on_cpu_to_full():
    size = Size("steps", quick=8, full=None, suite=4)
    assert [size.value(mode) for mode in ("quick", "full", "suite", "standin", "full_on_cpu")] == [8, None, 4, 4, None]
    with pytest.raises(ValueError, match="Unknown mode"):
        size.value("fast")


def test_an_unknown_size_in_sizes_is_refused_with_the_names_there_are():
    lesson = all_manifests()[0]
    with pytest.raises(KeyError, match="does not have"):
        lesson.sizes_for("quick", {"NO_SUCH_SIZE": 1})


def test_begin_resolves_the_mode_seeds_turns_captions_on_and_prints_the_sizes(capsys, monkeypatch):
    import torch

    from sbert_workbook.lessons import setup
    from sbert_workbook.settings import QUICK_ENV_VAR

    captions = []
    monkeypatch.setattr(setup, "show_provenance_captions", lambda: captions.append(True))
    monkeypatch.setenv(QUICK_ENV_VAR, "1")
    lesson = setup.begin("01", "auto", "embedded", seed=3, device="cpu", sizes={"TRAIN_STEPS": 7})
    printed = capsys.readouterr().out
    assert lesson.quick and lesson.mode == "quick" and lesson.device == torch.device("cpu")
    assert lesson.sizes.TRAIN_STEPS == 7 and lesson.sizes["HIDDEN_SIZE"] == manifest("01").sizes["HIDDEN_SIZE"].quick
    assert "quick mode: on" in printed and "TRAIN_STEPS = 7" in printed and "changed by SIZES: TRAIN_STEPS" in printed
    assert torch.initial_seed() == 3
    assert captions == [True], "begin turns the tables' provenance captions on"
    with pytest.raises(AttributeError, match="has no size"):
        lesson.sizes.NO_SUCH_SIZE


# ----------------------------------------------------------------------------- one shape for every lesson
LESSONS_ROOT = REPO / "sbert_workbook" / "lessons"


def top_level_names(path: Path) -> set[str]:
    """The names a module defines or assigns at its top level."""
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(target.id for target in targets if isinstance(target, ast.Name))
    return names


def lesson_shape_problems(lessons_root: Path, numbers: list[str]) -> list[str]:
    """What keeps each lesson ``nbNN`` from the one shape: a package whose ``lesson.py`` holds ``NOTEBOOK`` and
    ``begin``, and whose ``__init__.py`` only re-exports (``begin`` from ``.lesson`` among them)."""
    problems = []
    for number in numbers:
        package = lessons_root / f"nb{number}"
        if not (package / "__init__.py").is_file():
            problems.append(f"nb{number}: not a package (lessons/nb{number}/__init__.py)")
            continue
        defined = top_level_names(package / "lesson.py") if (package / "lesson.py").is_file() else set()
        problems += [f"nb{number}: lesson.py defines no {name}" for name in ("NOTEBOOK", "begin") if name not in defined]
        init = ast.parse((package / "__init__.py").read_text(encoding="utf-8"))
        problems += [f"nb{number}: __init__.py defines {node.name} (re-exports only)" for node in init.body
                     if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        from_lesson = {alias.name for node in init.body if isinstance(node, ast.ImportFrom)
                       and (node.module or "").split(".")[-1] == "lesson" for alias in node.names}
        if "begin" not in from_lesson:
            problems.append(f"nb{number}: __init__.py does not re-export begin from .lesson")
    return problems


def lesson_test_problems(tests_root: Path, numbers: list[str]) -> list[str]:
    """Each lesson's tests in ``tests/test_lesson_NN.py``, and no test file named another way."""
    problems = [f"missing tests/test_lesson_{number}.py" for number in numbers if not (tests_root / f"test_lesson_{number}.py").is_file()]
    problems += [f"tests/{path.name}: name it test_lesson_{path.stem[len('test_lesson'):]}.py"
                 for path in sorted(tests_root.glob("test_lesson[0-9]*.py"))]
    return problems


def lesson_numbers() -> list[str]:
    return [lesson.notebook[:2] for lesson in all_manifests()]


def test_every_lesson_has_the_one_shape():
    problems = lesson_shape_problems(LESSONS_ROOT, lesson_numbers())
    assert not problems, "lessons out of shape (docs/adding-a-lesson.md):\n" + "\n".join(problems)


def test_every_lesson_has_its_test_file():
    problems = lesson_test_problems(REPO / "tests", lesson_numbers())
    assert not problems, "\n".join(problems)



def test_the_shape_check_catches_begin_elsewhere_a_def_in_init_and_a_misnamed_test(tmp_path):
    (tmp_path / "nb10").mkdir()
    (tmp_path / "nb10" / "__init__.py").write_text('"""10."""\nfrom .setup import begin\n\ndef report():\n    pass\n')
    (tmp_path / "nb10" / "setup.py").write_text('NOTEBOOK = "10_x"\n\ndef begin():\n    pass\n')
    (tmp_path / "nb11.py").write_text('def begin():\n    pass\n')
    assert sorted(lesson_shape_problems(tmp_path, ["10", "11"])) == [
        "nb10: __init__.py defines report (re-exports only)", "nb10: __init__.py does not re-export begin from .lesson",
        "nb10: lesson.py defines no NOTEBOOK", "nb10: lesson.py defines no begin", "nb11: not a package (lessons/nb11/__init__.py)"]
    (tmp_path / "test_lesson10.py").write_text("")
    assert lesson_test_problems(tmp_path, ["10"]) == ["missing tests/test_lesson_10.py", "tests/test_lesson10.py: name it test_lesson_10.py"]


# ----------------------------------------------------------------------------- every lesson on the reader's pages
def test_the_readme_table_lists_every_lesson_in_order():
    rows = re.findall(r"^\| `(\d\d_\w+)` \|", (REPO / "README.md").read_text(encoding="utf-8"), re.M)
    assert rows == [lesson.notebook for lesson in all_manifests()], "README.md's notebook table: one row per lesson, in order"


def test_docs_notebooks_has_a_paragraph_for_every_lesson_in_order():
    numbers = re.findall(r"^- \*\*(\d\d) · ", (REPO / "docs" / "notebooks.md").read_text(encoding="utf-8"), re.M)
    assert numbers == lesson_numbers(), "docs/notebooks.md: one '- **NN · Title** — …' paragraph per lesson, in order"
