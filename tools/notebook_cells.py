"""The standard opening cells every workbook notebook starts with, for authors building notebooks.

Use: ``from tools.notebook_cells import standard_cells`` then prepend ``standard_cells(...)``.
"""
from __future__ import annotations

import re

import nbformat

REPOSITORY = "https://github.com/sbert-workbook/sbert-workbook"
BRANCH = "main"
COLAB_BADGE_IMAGE = "https://colab.research.google.com/assets/colab-badge.svg"

SETUP_CELL = f'''# Setup, the same in every notebook. On Colab only: install the workbook and enable widgets.
import sys

if "google.colab" in sys.modules:
    import subprocess

    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "sbert-workbook @ git+{REPOSITORY}"], check=True)
    from google.colab import output

    output.enable_custom_widget_manager()

import sbert_workbook as sbw'''

RESOLVE_CELL = '''device = sbw.pick_device(DEVICE)
QUICK = sbw.quick_mode(QUICK, device)  # prints which mode and why; SBERT_WORKBOOK_QUICK=1 also switches it on
sbw.set_seed(SEED)
sbw.show_provenance_captions()  # each table shows as caption which model, pooling, aggregation and split made it
print(f"device: {device} ({sbw.precision_name(device)})")'''


def colab_badge(notebook: str) -> str:
    """Markdown for an "Open in Colab" badge of ``notebook`` (a path in the repository, e.g. notebooks/00_x.ipynb)."""
    github = REPOSITORY.removeprefix("https://github.com/")
    return f"[![Open In Colab]({COLAB_BADGE_IMAGE})](https://colab.research.google.com/github/{github}/blob/{BRANCH}/{notebook})"


def with_colab_badge(title_markdown: str, notebook: str) -> str:
    """``title_markdown`` with its badge line put first (an old first-line badge is replaced; other badges stay)."""
    first, _, rest = title_markdown.lstrip().partition("\n")
    kept = rest if re.fullmatch(r"\[!\[Open In Colab\]\([^)]*\)\]\([^)]*\)", first.strip()) else title_markdown
    return f"{colab_badge(notebook)}\n\n{kept.lstrip()}"


QUICK_LINE = 'QUICK = "auto"  # "auto": full on a GPU, quick (small subsets, few steps) on a CPU; True or False force it'
#: The exercise switch (sbert_workbook/teaching/exercises.py): True fills every exercise cell with its reference solution.
SOLUTIONS_LINE = "SOLUTIONS = False  # True (or SBERT_WORKBOOK_SOLUTIONS=1): exercise cells fill in the reference solutions\n"


def parameters_cell(extra: str = "") -> nbformat.NotebookNode:
    """The papermill parameters cell (``tools/notebook_times.py`` adds its measured run-time line under QUICK)."""
    source = (
        "# Parameters (papermill). QUICK: the sizes a 2-core laptop runs in minutes; full mode is the papers' recipe, for a GPU.\n"
        + QUICK_LINE + '\nMODEL = "auto"  # "auto", "embedded", a hub id or a model folder\nSEED = 0\n'
        "DEVICE = None  # None picks CUDA, then MPS, then CPU\n" + SOLUTIONS_LINE + extra
    )
    return nbformat.v4.new_code_cell(source, metadata={"tags": ["parameters"]})


def standard_cells(title_markdown: str, extra_parameters: str = "", notebook: str | None = None) -> list[nbformat.NotebookNode]:
    """Title, setup cell, parameters cell, resolve cell.

    With ``notebook`` (its path in the repository, e.g. ``"notebooks/02_anisotropy.ipynb"``)
    the title gets an "Open in Colab" badge; ``python tools/add_colab_badges.py`` adds or
    refreshes the badges of all notebooks afterwards.
    """
    return [
        nbformat.v4.new_markdown_cell(with_colab_badge(title_markdown, notebook) if notebook else title_markdown),
        nbformat.v4.new_code_cell(SETUP_CELL),
        parameters_cell(extra_parameters),
        nbformat.v4.new_code_cell(RESOLVE_CELL),
    ]
