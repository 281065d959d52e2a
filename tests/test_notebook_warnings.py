"""No library warning reaches a student: the suite's executed notebooks (tests/notebook_runs.py, both variants) show
no warning from torch, transformers or any other library, and the workbook's own warnings (each says what to do)
come once, not again in a later cell. A lesson that means to show a warning tags that cell ``shows-warning``.

A warning in an executed notebook is a stderr output in Python's format ``path:line: SomethingWarning: message``
(Jupyter draws it as a red box), or a logged ``WARNING`` line. Its path does not say whose it is (torch reports its
own at the workbook line that called it), so the workbook's own are told by their text: what the package's
``warnings.warn`` calls say (:func:`own_warning_texts`); every other warning is a library's.
"""
from __future__ import annotations

import ast
import functools
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from notebook_runs import VARIANTS
from sbert_workbook.runner.notebooks import list_notebooks

NOTEBOOKS = list_notebooks()
MEANT = "shows-warning"  # a cell tag: this cell shows a warning on purpose
PYTHON_WARNING = re.compile(r"(?m)^(?P<path>\S[^\n]*?):(?P<line>\d+): (?P<category>\w*Warning): (?P<message>[^\n]*)$")
LOGGED_WARNING = re.compile(r"(?m)^(?:WARNING|Warning)[:\s][^\n]*$")


@functools.lru_cache(maxsize=1)
def own_warning_texts() -> tuple[str, ...]:
    """The longest literal piece of each message the package warns with (``warnings.warn(f"{n} of {m} sentences are
    longer than max_length=…")`` gives " sentences are longer than max_length=")."""
    import sbert_workbook

    pieces = []
    for path in Path(sbert_workbook.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "warn"
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "warnings" and node.args):
                message = node.args[0]
                parts = [message] if isinstance(message, ast.Constant) else getattr(message, "values", [])
                literal = [part.value for part in parts if isinstance(part, ast.Constant) and isinstance(part.value, str)]
                if literal:
                    pieces.append(max(literal, key=len))
    return tuple(piece for piece in pieces if len(piece) >= 15)


@dataclass(frozen=True)
class Shown:
    cell: int
    text: str
    ours: bool


def shown_warnings(nb) -> list[Shown]:
    """Every warning the executed notebook ``nb`` shows, outside cells tagged ``shows-warning``."""
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or MEANT in cell.metadata.get("tags", []):
            continue
        for output in cell.get("outputs", []):
            if output.get("output_type") != "stream" or output.get("name") != "stderr":
                continue
            text = output.get("text", "")
            for match in PYTHON_WARNING.finditer(text):
                ours = any(piece in match["message"] for piece in own_warning_texts())
                found.append(Shown(index, f"{match['category']}: {match['message']} ({match['path']}:{match['line']})", ours))
            found += [Shown(index, match.group(0), False) for match in LOGGED_WARNING.finditer(text)]
    return found


def said_again(shown: list[Shown]) -> list[str]:
    """The workbook's own warnings shown in more than one cell (the lesson should say it once)."""
    cells: dict[str, set[int]] = {}
    for warning in shown:
        if warning.ours:
            cells.setdefault(warning.text.split(" (", 1)[0], set()).add(warning.cell)
    return [f"cells {sorted(where)}: {text}" for text, where in cells.items() if len(where) > 1]


@pytest.mark.notebook
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_library_warning_reaches_the_student(notebook, variant, notebook_runs):
    shown = shown_warnings(nbformat.read(notebook_runs.get(notebook, variant).executed, 4))
    library = [f"cell {w.cell}: {w.text}" for w in shown if not w.ours]
    assert not library, (f"{notebook.name} ({variant}) shows a library's warning the lesson did not mean to show; "
                         f"fix its cause, or tag the cell '{MEANT}' if the lesson shows it on purpose:\n" + "\n".join(library))


@pytest.mark.notebook
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_workbooks_own_warnings_are_said_once(notebook, notebook_runs):
    again = said_again(shown_warnings(nbformat.read(notebook_runs.get(notebook, "own-cache").executed, 4)))
    assert not again, f"{notebook.name} repeats a warning in later cells; say it once (06's runs do):\n" + "\n".join(again)


def _executed(*cells):
    nb = nbformat.v4.new_notebook()
    for tags, stderr in cells:
        cell = nbformat.v4.new_code_cell("x", metadata={"tags": list(tags)})
        cell.outputs = [nbformat.v4.new_output("stream", name="stderr", text=stderr)]
        nb.cells.append(cell)
    return nb


def test_the_check_finds_a_library_warning_a_repeated_own_one_and_leaves_a_meant_one():
    torch_warning = ("/work/sbert_workbook/training/bag_of_words.py:76: UserWarning: Sparse invariant checks are "
                     "implicitly disabled. (Triggered internally at Context.cpp:816.)\n  mean = torch.sparse_coo_tensor(...)\n")
    ours = ("/work/sbert_workbook/training/siamese.py:97: UserWarning: 22 of 498 sentences are longer than max_length=32 "
            "tokens and were truncated.\n  embed = ...\n")
    nb = _executed(((), torch_warning), ((), ours), ((), ours), ((MEANT,), torch_warning),
                   ((), "Some progress 10/10\n"), ((), "WARNING: the hub is not reachable\n"))
    shown = shown_warnings(nb)
    assert [(w.cell, w.ours) for w in shown] == [(0, False), (1, True), (2, True), (5, False)]
    assert said_again(shown) == ["cells [1, 2]: UserWarning: 22 of 498 sentences are longer than max_length=32 tokens "
                                 "and were truncated."]
    assert len(own_warning_texts()) >= 3 and any("Whitening was fitted" in piece for piece in own_warning_texts())


def test_06s_bag_of_words_raises_no_warning(encoder):
    """06 read the cone through torch's sparse tensors, whose invariant-check warning reached the lesson."""
    import copy

    from sbert_workbook.training.bag_of_words import TokenIds, bag_of_words_of, bag_of_words_row
    from sbert_workbook.training.siamese import SiameseModel

    model = SiameseModel(copy.deepcopy(encoder.model), encoder.tokenizer, encoder.resolved, "mean", 32)
    cone = bag_of_words_of(model)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vectors = bag_of_words_row(cone, TokenIds(cone.tokenizer))(["A man plays a guitar.", "Two dogs run."])
    assert vectors.shape[0] == 2


def test_06s_runs_say_once_that_dev_is_cut_at_the_recipes_length(capsys):
    from types import SimpleNamespace

    from sbert_workbook.lessons.nb06.runs import dev_cut_said_once

    lesson = SimpleNamespace(said_dev_is_cut=False)
    for _ in range(3):
        with dev_cut_said_once(lesson):
            warnings.warn("22 of 498 sentences are longer than max_length=32 tokens and were truncated. Pass a larger "
                          "max_length (up to this model's limit of 512) to keep more of them.", UserWarning)
    printed = capsys.readouterr().out
    assert printed.count("STS-B dev is scored at the recipe's 32 tokens") == 1 and "22 of its 498" in printed
    with pytest.warns(UserWarning, match="something else"), dev_cut_said_once(lesson):
        warnings.warn("something else", UserWarning)
