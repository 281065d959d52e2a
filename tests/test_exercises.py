"""Exercises ship unsolved, every check can fail, and every check passes on its reference solution.

The recipe is in ``sbert_workbook/exercises.py``. The kernel test runs each notebook that has exercises once in
quick mode, up to its last check cell; right after each check cell it runs that check again with the reference
solution (through the SOLUTIONS switch), with the placeholder and with every listed wrong answer.
"""
from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass

import nbformat
import numpy as np
import pytest
import torch

from sbert_workbook.app.runbook import _unix_socket_kernels, list_notebooks
from sbert_workbook.exercises import (NOT_ATTEMPTED, SOLUTIONS_ENV_VAR, call_with, check, find_solution, is_placeholder,
                                      solution, solution_or)
from sbert_workbook.settings import QUICK_ENV_VAR

NOTEBOOKS = list_notebooks()
SOLUTION_LINE = re.compile(r'^(\w+) = solution_or\("(ex\d\d_\w+)", \1\)$')
CHECK_CALL = re.compile(r'\bcheck\(\s*"(ex\d\d_\w+)"')
PLACEHOLDER = re.compile(r"^(\w+) = \.\.\.(\s*#.*)?$", re.M)


@dataclass
class Exercise:
    name: str  # exNN_K
    variable: str  # what the student assigns
    exercise_cell: int  # index in nb.cells
    check_cell: int


def tags(cell) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def find_exercises(nb, notebook_number: str) -> tuple[list[Exercise], list[str]]:
    """The notebook's exercise/check pairs, and what is wrong with the way they are laid out."""
    code = [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code"]
    found, problems = [], []
    for position, index in enumerate(code):
        cell, following = nb.cells[index], code[position + 1] if position + 1 < len(code) else None
        if "check" in tags(cell) and (position == 0 or "exercise" not in tags(nb.cells[code[position - 1]])):
            problems.append(f"cell {index}: a check cell that does not follow an exercise cell")
        if "exercise" not in tags(cell):
            continue
        last = SOLUTION_LINE.match(cell.source.strip().splitlines()[-1])
        if not last:
            problems.append(f'cell {index}: an exercise cell must end with `name = solution_or("exNN_K", name)`')
            continue
        variable, name = last.groups()
        if not name.startswith(f"ex{notebook_number}_"):
            problems.append(f"cell {index}: {name} should be named ex{notebook_number}_K in notebook {notebook_number}")
        if not any(m.group(1) == variable for m in PLACEHOLDER.finditer(cell.source)):
            problems.append(f"cell {index}: {name} does not ship unsolved: assign `{variable} = ...  # hint` first")
        check_names = CHECK_CALL.findall(nb.cells[following].source) if following is not None else []
        if following is None or "check" not in tags(nb.cells[following]) or check_names != [name]:
            problems.append(f'cell {index}: exercise {name} has no check cell right after it calling check("{name}", ...)')
            continue
        try:
            if not getattr(find_solution(name), "wrong_answers", None):
                problems.append(f"{name}: its solution lists no wrong answers (use @solution(wrong=...))")
        except (ImportError, KeyError) as error:
            problems.append(f"{name}: no reference solution ({error})")
        found.append(Exercise(name, variable, index, following))
    return found, problems


def notebook_number(notebook) -> str:
    return notebook.name[:2]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_exercise_has_its_check_and_its_solution(notebook):
    _, problems = find_exercises(nbformat.read(notebook, 4), notebook_number(notebook))
    assert not problems, f"{notebook.name}:\n" + "\n".join(problems)


def test_the_layout_check_catches_a_missing_check_and_a_missing_solution():
    exercise = lambda source: nbformat.v4.new_code_cell(source, metadata={"tags": ["exercise"]})  # noqa: E731
    nb = nbformat.v4.new_notebook(cells=[
        exercise('a = ...  # hint\na = solution_or("ex01_1", a)'),  # no check after it
        nbformat.v4.new_code_cell("print(a)"),
        exercise('b = ...\nb = solution_or("ex01_99", b)'),  # no such solution
        nbformat.v4.new_code_cell('check("ex01_99", b, 1)', metadata={"tags": ["check"]}),
        exercise('c = solution_or("ex01_1", 3)'),  # not a placeholder, not the pattern
        nbformat.v4.new_code_cell('check("ex01_2", c, 1)', metadata={"tags": ["check"]}),
    ])
    _, problems = find_exercises(nb, "01")
    text = "\n".join(problems)
    assert "ex01_1 has no check cell" in text and "ex01_99: no reference solution" in text
    assert "must end with" in text and "cell 5: a check cell that does not follow" not in text


# --- the helpers, on hand-made answers -------------------------------------------------------------------------------

def printed(capsys, *args, **kwargs) -> str:
    check(*args, **kwargs)
    return capsys.readouterr().out.strip()


def test_check_prints_one_of_three_lines(capsys):
    assert printed(capsys, "ex01_3", ..., [1.0, 2.0]) == NOT_ATTEMPTED
    assert printed(capsys, "ex01_3", [1.0, 2.0], np.array([1.0, 2.0])) == "✓ exercise 01.3: right"
    wrong = printed(capsys, "ex01_3", [1.0, 2.5], np.array([1.0, 2.0]), "divide by the sum")
    assert wrong.startswith("✗ exercise 01.3:") and "0.5" in wrong and wrong.endswith("divide by the sum")
    assert "shape (3,)" in printed(capsys, "ex01_3", [1, 2, 3], [1, 2])
    assert "too low" in printed(capsys, "ex01_5", 0.5, 0.7)
    assert printed(capsys, "ex01_1", torch.tensor(2.0, requires_grad=True), 2.0).startswith("✓")
    assert "NaN" in printed(capsys, "ex01_1", float("nan"), 1.0)


def test_check_with_a_measure_a_predicate_and_an_unusable_answer(capsys):
    assert printed(capsys, "ex01_2", "abc", 3, measure=len).startswith("✓")
    assert printed(capsys, "ex01_2", "ab", 3, measure=len).startswith("✗")
    assert printed(capsys, "ex00_1", 0.3, predicate=lambda x: -1 <= x <= 1).startswith("✓")
    assert printed(capsys, "ex00_1", 3.0, predicate=lambda x: -1 <= x <= 1).startswith("✗")
    broken = printed(capsys, "ex01_2", 3, 3, measure=lambda x: x.index("["))
    assert broken.startswith("✗") and "could not use your answer (AttributeError" in broken
    assert printed(capsys, "ex01_2", "a [MASK] b", "a [MASK] c").startswith("✗")
    assert printed(capsys, "ex01_2", (1, ...), (1, 2)) == NOT_ATTEMPTED


def test_placeholders():
    assert is_placeholder(...) and is_placeholder([1, ...]) and is_placeholder({"a": ...})
    assert not is_placeholder(0) and not is_placeholder(None) and not is_placeholder(np.zeros(3))


def test_solution_or_obeys_the_switch(monkeypatch):
    monkeypatch.delenv(SOLUTIONS_ENV_VAR, raising=False)
    class FakeLanguage:  # ex01_4 needs nothing; ex01_3 reads the transition matrix
        transition = np.array([[0.5, 0.5], [0.2, 0.8]])
        index = staticmethod({"cat": 0, "fish": 1}.get)
    assert solution_or("ex01_4", ..., {"SOLUTIONS": False}) is Ellipsis
    assert solution_or("ex01_4", ..., {"SOLUTIONS": True}) == pytest.approx(0.12)
    assert np.allclose(solution_or("ex01_3", ..., {"SOLUTIONS": True, "language": FakeLanguage}),
                       np.array([0.5 * 0.5, 0.5 * 0.8]) / (0.25 + 0.4))  # by hand
    monkeypatch.setenv(SOLUTIONS_ENV_VAR, "1")
    assert solution_or("ex01_4", ..., {"SOLUTIONS": False}) == pytest.approx(0.12)
    with pytest.raises(NameError, match="language"):
        call_with(find_solution("ex01_3"), {})
    with pytest.raises(ValueError, match="exNN_K"):
        find_solution("exercise3")
    with pytest.raises(ValueError, match="wrong answer"):
        solution(wrong={})


# --- the notebooks, in a kernel ----------------------------------------------------------------------------------------

def cell_text(cell) -> str:
    return "".join(output.get("text", "") for output in cell.get("outputs", []) if output["output_type"] == "stream")


class Kernel:
    """One kernel running a notebook's cells; ``run(source)`` executes extra code and returns what it printed."""

    def __init__(self, client, nb):
        self.client, self.scratch = client, len(nb.cells) - 1

    def run(self, source: str) -> str:
        cell = nbformat.v4.new_code_cell(source)
        return cell_text(self.client.execute_cell(cell, self.scratch))


def trials(kernel: Kernel, nb, exercise: Exercise) -> list[str]:
    """Run one check with the reference solution, the placeholder and each wrong answer; say what went wrong."""
    exercise_source, check_source = nb.cells[exercise.exercise_cell].source, nb.cells[exercise.check_cell].source
    failures = []
    solved = kernel.run(f"SOLUTIONS = True\n{exercise_source}\n{check_source}").strip()
    if not solved.startswith("✓") or "\n" in solved:
        failures.append(f"{exercise.name} with its reference solution printed {solved!r}, not one ✓ line")
    wrong_answers = find_solution(exercise.name).wrong_answers
    for description in wrong_answers:
        said = kernel.run(
            "from sbert_workbook.exercises import call_with as _call_with, find_solution as _find_solution\n"
            f"{exercise.variable} = _call_with(_find_solution({exercise.name!r}).wrong_answers[{description!r}], globals())\n"
            f"{check_source}").strip()
        if not said.startswith("✗") or "\n" in said:
            failures.append(f"{exercise.name} with the wrong answer '{description}' printed {said!r}, not one ✗ line")
    unsolved = kernel.run(f"SOLUTIONS = False\n{exercise_source}\n{check_source}").strip()
    if unsolved != NOT_ATTEMPTED:
        failures.append(f"{exercise.name} with the placeholder printed {unsolved!r}, not {NOT_ATTEMPTED!r}")
    return failures


WITH_EXERCISES = [nb for nb in NOTEBOOKS if find_exercises(nbformat.read(nb, 4), notebook_number(nb))[0]]


@pytest.mark.notebook
@pytest.mark.parametrize("notebook", WITH_EXERCISES, ids=lambda p: p.stem)
def test_each_check_passes_on_its_solution_and_fails_on_each_wrong_answer(notebook, monkeypatch):
    from nbclient import NotebookClient

    nb = nbformat.read(notebook, 4)
    exercises, problems = find_exercises(nb, notebook_number(notebook))
    assert not problems, problems
    after_check = {exercise.check_cell: exercise for exercise in exercises}
    nb.cells = nb.cells[: max(after_check) + 1] + [nbformat.v4.new_code_cell("")]  # only what the checks need
    monkeypatch.setenv(QUICK_ENV_VAR, "1")
    monkeypatch.delenv(SOLUTIONS_ENV_VAR, raising=False)
    failures = []
    with tempfile.TemporaryDirectory(prefix="sbw-kernel-") as sockets:
        client = NotebookClient(nb, timeout=900, kernel_name="python3", config=_unix_socket_kernels(sockets),
                                resources={"metadata": {"path": str(notebook.parent)}})
        with client.setup_kernel():
            kernel = Kernel(client, nb)
            for index in range(len(nb.cells) - 1):
                source = nb.cells[index].source
                shipped = cell_text(client.execute_cell(nb.cells[index], index)).strip()
                if index in after_check:
                    exercise = after_check[index]
                    if shipped != NOT_ATTEMPTED:
                        failures.append(f"{exercise.name} as shipped printed {shipped!r}, not {NOT_ATTEMPTED!r}")
                    failures += trials(kernel, nb, exercise)
                assert nb.cells[index].source == source
    assert not failures, f"{notebook.name}:\n" + "\n".join(failures)
    assert os.environ.get(SOLUTIONS_ENV_VAR) is None
