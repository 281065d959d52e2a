"""Exercises ship unsolved, every check can fail, and every check passes on its reference solution.

The recipe is in ``sbert_workbook/teaching/exercises.py``. The kernel test reads each notebook's one quick-mode run on the
embedded model (tests/notebook_runs.py), which, right after each check cell, ran that check again in the same kernel
with the reference solution (through the SOLUTIONS switch), with every listed wrong answer and with the placeholder.
"""
from __future__ import annotations

import os

import nbformat
import numpy as np
import pytest
import torch

from notebook_runs import find_exercises, notebook_number
from sbert_workbook.runner.notebooks import list_notebooks
from sbert_workbook.teaching.exercises import (NOT_ATTEMPTED, SOLUTIONS_ENV_VAR, call_with, check, find_solution, is_placeholder,
                                      solution, solution_or)

NOTEBOOKS = list_notebooks()


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

WITH_EXERCISES = [nb for nb in NOTEBOOKS if find_exercises(nbformat.read(nb, 4), notebook_number(nb))[0]]


@pytest.mark.notebook
@pytest.mark.parametrize("notebook", WITH_EXERCISES, ids=lambda p: p.stem)
def test_each_check_passes_on_its_solution_and_fails_on_each_wrong_answer(notebook, notebook_runs):
    """Read from the notebook's one own-cache run, which tried every exercise right after its check cell."""
    exercises, problems = find_exercises(nbformat.read(notebook, 4), notebook_number(notebook))
    assert not problems, problems
    run = notebook_runs.get(notebook, "own-cache")
    assert run.exercises_tried == [exercise.name for exercise in exercises], (
        f"{notebook.name}: tried {run.exercises_tried} of {[e.name for e in exercises]}; the run stopped early? {run.error}")
    assert not run.exercise_failures, f"{notebook.name}:\n" + "\n".join(run.exercise_failures)
    assert os.environ.get(SOLUTIONS_ENV_VAR) is None
