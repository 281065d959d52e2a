"""Exercises that students solve and checks that can fail (introduced in ``00_start_here.ipynb`` and ``01_mlm_to_similarity.ipynb``).

Recipe for an exercise in notebook ``NN`` (exercise ``K`` is ``exNN_K``; see notebook 01 for five of them):

1. **The exercise cell** (cell-metadata tag ``exercise``) ships unsolved: the answer is the placeholder
   ``...`` with a one-line hint, and its *last line* hands the answer to :func:`solution_or`::

       my_conditional = ...  # hint: T[cat, x] * T[x, fish] for every x, then divide by the sum
       my_conditional = solution_or("ex01_3", my_conditional)

   With the switch off (the default) that line returns the student's value unchanged. With the notebook's
   ``SOLUTIONS = True`` (parameters cell) or ``SBERT_WORKBOOK_SOLUTIONS=1`` it returns the reference solution.
2. **The check cell** (tag ``check``) comes next and makes one :func:`check` call, which prints exactly one
   line: ``✓ …``, ``✗ … (what differs) hint``, or ``not attempted yet: fill in the cell above``. The truth it
   compares with must be *independent* of the exercise: a hand-computed value, scipy/sklearn, the package
   function the exercise re-derives, or a property (shape, range, invariance); never the same expression
   re-typed. Worked examples the notebook solves itself carry neither tag.
3. **The solution** is a function ``exNN_K`` in ``sbert_workbook/solutions/nbNN.py`` whose parameters are named
   after the notebook variables it needs (:func:`solution_or` fills them from the notebook). Decorate it with
   :func:`solution` listing at least one plausible *wrong* answer (wrong axis, missing normalisation,
   off-by-one, wrong sign), each a function of the same notebook variables::

       @solution(wrong={"not normalised": lambda language: language.transition[6] * language.transition[:, 11]})
       def ex01_3(language): ...

   Open-ended questions go into the module's ``DISCUSSION`` dict as model answers, not into a check.
4. **The tests** (``tests/test_exercises.py``) find exercise and check cells by their tags, read ``exNN_K`` from
   the ``solution_or``/``check`` calls, run the notebook once in quick mode and, right after each check cell, run
   it again with the reference solution (must print ✓), the placeholder (``not attempted``) and every wrong
   answer (✗). An exercise without a check, a check without a solution, or a solution without wrong answers
   fails. Use variable names no later cell overwrites, so the exercise can be re-run where it stands.
"""
from __future__ import annotations

import importlib
import os
import sys
from typing import Any, Callable

SOLUTIONS_ENV_VAR = "SBERT_WORKBOOK_SOLUTIONS"
NOT_ATTEMPTED = "not attempted yet: fill in the cell above"


def is_placeholder(answer: Any) -> bool:
    """True for ``...`` (the unsolved exercise), also inside a tuple, list or dict of answers (``01_mlm_to_similarity``)."""
    if answer is Ellipsis:
        return True
    if isinstance(answer, (tuple, list)):
        return any(is_placeholder(part) for part in answer)
    if isinstance(answer, dict):
        return any(is_placeholder(part) for part in answer.values())
    return False


def solution(wrong: dict[str, Callable[..., Any]]) -> Callable:
    """Decorator for a reference solution in ``sbert_workbook/solutions/``: ``wrong`` maps a description of a
    plausible mistake to a function of the same notebook variables that makes it (``01_mlm_to_similarity``)."""
    if not wrong:
        raise ValueError("list at least one plausible wrong answer, so the tests can prove the check fails on it")

    def attach(function: Callable) -> Callable:
        function.wrong_answers = dict(wrong)
        return function

    return attach


def find_solution(name: str) -> Callable:
    """The reference solution ``exNN_K`` from ``sbert_workbook.solutions.nbNN`` (``01_mlm_to_similarity``).

    Looked up by name when asked for, so this bottom-layer module never imports the solutions (which may use
    any lesson) until a teacher or a test switches them on.
    """
    if not (name.startswith("ex") and name[2:4].isdigit() and name[4:5] == "_"):
        raise ValueError(f"exercise names read exNN_K (notebook NN, exercise K), e.g. 'ex01_3'; got {name!r}")
    try:
        module = importlib.import_module(f"sbert_workbook.solutions.nb{name[2:4]}")
    except ModuleNotFoundError as error:
        if error.name not in ("sbert_workbook.solutions", f"sbert_workbook.solutions.nb{name[2:4]}"):
            raise
        raise ModuleNotFoundError(f"This copy of the workbook has no solutions (a students' release, made by "
                                  f"`./workbook release`), so {name} cannot be filled in: set SOLUTIONS = False and "
                                  "solve it, or ask your teacher.", name=error.name) from None
    found = getattr(module, name, None)
    if found is None:
        raise KeyError(f"{module.__name__} has no solution {name}(); add it there (see sbert_workbook/teaching/exercises.py)")
    return found


def find_reference(name: str) -> Callable:
    """The reference ``exNN_K`` a check computes out of sight, from ``sbert_workbook.checks.nbNN`` (``05_bert_flow``)."""
    module = importlib.import_module(f"sbert_workbook.checks.nb{name[2:4]}")
    found = getattr(module, name, None)
    if found is None:
        raise KeyError(f"check({name!r}, ...) gave no expected value and {module.__name__} has no reference {name}(): "
                       "pass expected=, or add the reference there")
    return found


def call_with(function: Callable, namespace: dict[str, Any]) -> Any:
    """Call ``function`` with each of its parameters taken from ``namespace`` by name (the notebook's variables)."""
    import inspect

    names = list(inspect.signature(function).parameters)
    missing = [name for name in names if name not in namespace]
    if missing:
        raise NameError(f"{function.__name__} needs the notebook variables {missing}; run the cells above first")
    return function(*(namespace[name] for name in names))


def solutions_on(namespace: dict[str, Any] | None = None) -> bool:
    """True when ``SBERT_WORKBOOK_SOLUTIONS=1`` is set or the notebook's ``SOLUTIONS`` parameter is True."""
    from_env = os.environ.get(SOLUTIONS_ENV_VAR, "").strip().lower() in {"1", "true", "yes", "on"}
    return from_env or (namespace or {}).get("SOLUTIONS") is True


def solution_or(name: str, answer: Any, namespace: dict[str, Any] | None = None) -> Any:
    """The last line of an exercise cell: ``answer`` unchanged, or the reference solution when switched on.

    ``namespace`` defaults to the calling cell's globals (a notebook's variables), where the ``SOLUTIONS``
    parameter and the solution's inputs are read (``01_mlm_to_similarity``).
    """
    namespace = sys._getframe(1).f_globals if namespace is None else namespace
    if not solutions_on(namespace):
        return answer
    return call_with(find_solution(name), namespace)


def check(name: str, answer: Any, expected: Any = None, hint: str = "", *, measure: Callable | None = None,
          predicate: Callable[[Any], bool] | None = None, atol: float = 1e-6, rtol: float = 1e-6) -> None:
    """Print one line: ``✓``, ``✗`` with what differs and ``hint``, or "not attempted yet" (``01_mlm_to_similarity``).

    The answer (or ``measure(answer)``, e.g. the PMI of the context the student chose) is compared with
    ``expected`` within ``atol``/``rtol`` (strings and other values exactly); with ``predicate`` instead, the
    answer passes when ``predicate(answer)`` is true. With neither, the reference is ``exNN_K`` of
    ``sbert_workbook/checks/nbNN.py``, computed from the calling notebook's variables, out of the cell's sight.
    An answer that cannot be compared fails, without a traceback.
    """
    label = f"exercise {name[2:4]}.{name[5:]}" if name.startswith("ex") else name
    if is_placeholder(answer):
        print(NOT_ATTEMPTED)
        return
    if expected is None and predicate is None:
        expected = call_with(find_reference(name), sys._getframe(1).f_globals)
    try:
        problem = _problem(measure(answer) if measure else answer, expected, predicate, atol, rtol)
    except Exception as error:  # a wrong type or shape is a wrong answer, not a crash
        problem = f"could not use your answer ({type(error).__name__}: {error})"
    print(f"✓ {label}: right" if problem is None else f"✗ {label}: {problem}. {hint}".rstrip())


def _problem(value: Any, expected: Any, predicate: Callable | None, atol: float, rtol: float) -> str | None:
    """None when ``value`` is right, else a short description of what differs."""
    if predicate is not None:
        return None if predicate(value) else "it does not have the property asked for"
    if isinstance(expected, str) or isinstance(value, str):
        return None if value == expected else f"got {value!r}, expected something else"
    import numpy as np

    got, want = _as_array(value), _as_array(expected)
    if got.shape != want.shape:
        return f"shape {got.shape}, expected {want.shape}"
    if not np.all(np.isfinite(got)):
        return "it holds NaN or infinite values"
    if np.allclose(got, want, atol=atol, rtol=rtol):
        return None
    if got.size == 1:
        return f"got {got.item():.6g}, which is too {'high' if got.item() > want.item() else 'low'}"
    return f"largest difference {np.abs(got - want).max():.3g} (at index {np.unravel_index(np.abs(got - want).argmax(), got.shape)})"


def _as_array(value: Any):
    """A float numpy array from a number, a sequence, a numpy array or a (CPU or GPU) torch tensor."""
    import numpy as np

    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    return np.asarray(value, dtype=float)
