"""The standard opening cells every workbook notebook starts with, and hidden cells, for authors building notebooks.

Use: ``from tools.notebook_cells import standard_cells`` then prepend ``standard_cells(...)``; ``hidden_cell`` makes a
set-up, report or check cell that JupyterLab, Colab and the book show collapsed (docs/adding-a-lesson.md).
"""
from __future__ import annotations

import re

import nbformat

from sbert_workbook import about
from sbert_workbook.about import colab_badge

#: The repository's address and the tag of this version, both made from pyproject.toml (sbert_workbook/about.py).
REPOSITORY = about.repository()
GIT_REF = about.git_ref()

#: The first line of every hidden cell: Colab shows a cell whose metadata says ``"cellView": "form"`` as this title with
#: a "show code" button; JupyterLab collapses it through ``source_hidden``; the book puts it behind a "show code" toggle.
TITLE_PREFIX = "#@title "
#: Metadata that hides a cell's code (its outputs stay): the nbconvert/Jupyter Book tag, JupyterLab's and Colab's keys.
HIDE_INPUT_TAG = "hide-input"

SETUP_CELL = f'''{TITLE_PREFIX}Setup, the same in every notebook: on Colab only, install the workbook and enable widgets
import sys

if "google.colab" in sys.modules:
    import subprocess
    # the workbook at the version this notebook was released with ({GIT_REF}), not the repository's latest
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "{about.pip_requirement()}"], check=True)
    from google.colab import output

    output.enable_custom_widget_manager()

import sbert_workbook as sbw'''

RESOLVE_CELL = '''device = sbw.pick_device(DEVICE)
QUICK = sbw.quick_mode(QUICK, device)  # prints which mode and why; SBERT_WORKBOOK_QUICK=1 also switches it on
sbw.set_seed(SEED)
sbw.show_provenance_captions()  # each table shows as caption which model, pooling, aggregation and split made it
print(f"device: {device} ({sbw.precision_name(device)})")'''


def with_colab_badge(title_markdown: str, notebook: str) -> str:
    """``title_markdown`` with its badge line put first (an old first-line badge is replaced; other badges stay)."""
    first, _, rest = title_markdown.lstrip().partition("\n")
    kept = rest if re.fullmatch(r"\[!\[Open In Colab\]\([^)]*\)\]\([^)]*\)", first.strip()) else title_markdown
    return f"{colab_badge(notebook)}\n\n{kept.lstrip()}"


QUICK_LINE = ('QUICK = "auto"  # or True (quick: small subsets, few steps), "session" (the model\'s size, cut to fit a GPU '
              'session), False (the papers\' recipe)')
#: The exercise switch (sbert_workbook/teaching/exercises.py): True fills every exercise cell with its reference solution.
SOLUTIONS_LINE = "SOLUTIONS = False  # True (or SBERT_WORKBOOK_SOLUTIONS=1): exercise cells fill in the reference solutions\n"


SIZES_LINE = 'SIZES = {}  # change one of this lesson\'s sizes, e.g. {"STEPS": 50}; the set-up below lists them all\n'


def parameters_cell(extra: str = "") -> nbformat.NotebookNode:
    """The papermill parameters cell (``tools/notebook_times.py`` adds its measured run-time line under QUICK)."""
    source = (
        "# Parameters (papermill). QUICK = \"auto\" runs the largest mode predicted to fit the budget here (15 min; SBERT_WORKBOOK_BUDGET_MIN).\n"
        + QUICK_LINE + '\nMODEL = "auto"  # "auto", "embedded", a hub id or a model folder\nSEED = 0\n'
        "DEVICE = None  # None picks CUDA, then MPS, then CPU\n" + SOLUTIONS_LINE + SIZES_LINE + extra
    )
    return nbformat.v4.new_code_cell(source, metadata={"tags": ["parameters"]})


def hidden_cell(title: str, source: str, tags: tuple[str, ...] = ()) -> nbformat.NotebookNode:
    """A code cell whose code is hidden and whose outputs show: ``#@title`` first, tagged ``hide-input``, collapsed."""
    return nbformat.v4.new_code_cell(f"{TITLE_PREFIX}{title}\n{source}", metadata=hidden_metadata(tags))


def hidden_metadata(tags: tuple[str, ...] = ()) -> dict:
    """The metadata of a hidden cell, with its other ``tags`` (``check``, ``predict``) first."""
    return {"tags": [*tags, HIDE_INPUT_TAG], "jupyter": {"source_hidden": True}, "cellView": "form"}


def begin_cell(number: str) -> nbformat.NotebookNode:
    """The lesson's set-up call, hidden: the imports every lesson's cells use, then
    ``lesson = nbNN.begin(QUICK, MODEL, SEED, DEVICE, SIZES)``."""
    return hidden_cell("Set up the lesson: mode, device, seed and sizes, then its models and data",
                       "import numpy as np\nimport torch\n\n"
                       f"from sbert_workbook.lessons import nb{number}\n"
                       "from sbert_workbook.teaching.exercises import check, solution_or\n\n"
                       f"lesson = nb{number}.begin(QUICK, MODEL, SEED, DEVICE, SIZES)")


def standard_cells(title_markdown: str, extra_parameters: str = "", notebook: str | None = None) -> list[nbformat.NotebookNode]:
    """Title, setup cell, parameters cell, resolve cell (the classroom apps; a lesson uses :func:`lesson_cells`).

    With ``notebook`` (its path in the repository, e.g. ``"notebooks/02_anisotropy.ipynb"``)
    the title gets an "Open in Colab" badge; ``python tools/add_colab_badges.py`` adds or
    refreshes the badges of all notebooks afterwards.
    """
    return [
        nbformat.v4.new_markdown_cell(with_colab_badge(title_markdown, notebook) if notebook else title_markdown),
        nbformat.v4.new_code_cell(SETUP_CELL, metadata=hidden_metadata()),
        parameters_cell(extra_parameters),
        nbformat.v4.new_code_cell(RESOLVE_CELL),
    ]


def lesson_cells(title_markdown: str, number: str, notebook: str | None = None) -> list[nbformat.NotebookNode]:
    """Title, setup cell, parameters cell and the lesson's hidden set-up call: how every lesson notebook starts."""
    title, setup, parameters, _resolve = standard_cells(title_markdown, notebook=notebook)
    return [title, setup, parameters, begin_cell(number)]
