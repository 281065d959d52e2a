"""Insert or refresh the "Open in Colab" badge at the top of every notebooks/NN_*.ipynb title cell, 00's map (each
notebook's badge and learning objectives), and tools/notebook_cells.py's SETUP_CELL in every notebook's (and
classroom notebook's) setup cell.

The badges and the setup cell are made from the address and version in pyproject.toml (sbert_workbook/about.py), the
objectives from each lesson's manifest. Run after changing either, or after (re)generating notebooks:
``python tools/add_colab_badges.py``. Only the title cell's badge line, 00's map table and the setup cell change; an
up-to-date notebook is left untouched (tests/test_colab_cell.py and tests/test_about.py check all three).
"""
from __future__ import annotations

import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tools.notebook_cells import SETUP_CELL, colab_badge, hidden_metadata, with_colab_badge  # noqa: E402

#: 00's map: the table in its title cell, one row per notebook, made from the lessons' manifests.
MAP_HEADER = "| notebook | after it a student can | Colab |"
MAP_NOTEBOOK = "notebooks/00_start_here.ipynb"


def add_badge(path: Path, root: Path = ROOT) -> bool:
    """Put the badge for ``path`` (relative to ``root``) first in its title cell; True when the file changed."""
    nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    title = nb.cells[0] if nb.cells else None
    if title is None or title.cell_type != "markdown":
        raise ValueError(f"{path}: the first cell should be the markdown title cell (see tools/notebook_cells.py).")
    badged = with_colab_badge(title.source, path.resolve().relative_to(root.resolve()).as_posix())
    if badged == title.source:
        return False
    title.source = badged
    nbformat.write(nb, path)
    return True


def table_cell(text: str) -> str:
    """``text`` safe inside a Markdown table cell (a ``|`` of its own would end the cell)."""
    return text.replace("|", r"\|")


def map_table() -> str:
    """00's map: every lesson in order, its objectives (from its manifest) and its badge."""
    from sbert_workbook.lessons.manifest import all_manifests

    lines = [MAP_HEADER, "|---|---|---|"]
    for lesson in all_manifests():
        objectives = table_cell("; ".join(lesson.objectives))
        lines.append(f"| `{lesson.notebook}` | {objectives} | {colab_badge(f'notebooks/{lesson.notebook}.ipynb')} |")
    return "\n".join(lines)


def map_lines(markdown: str) -> tuple[int, int]:
    """The first and last line index of 00's map table in ``markdown``."""
    lines = markdown.split("\n")
    start = next((i for i, line in enumerate(lines) if line.startswith("| notebook |")), None)
    if start is None:
        raise ValueError(f"{MAP_NOTEBOOK}: its title cell has no map table (a line starting '| notebook |').")
    end = start + 2
    while end < len(lines) and lines[end].startswith("| `"):
        end += 1
    return start, end - 1


def refresh_map(path: Path) -> bool:
    """Rewrite 00's map table (objectives from the manifests, badges from about.py); True when the file changed."""
    nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    title = nb.cells[0]
    start, end = map_lines(title.source)
    lines = title.source.split("\n")
    fresh = "\n".join(lines[:start] + [map_table()] + lines[end + 1:])
    if fresh == title.source:
        return False
    title.source = fresh
    nbformat.write(nb, path)
    return True


def refresh_setup_cell(path: Path) -> bool:
    """Make the first code cell (the one that branches on ``google.colab``) equal SETUP_CELL, hidden; True when the file
    changed."""
    nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    setup = next((cell for cell in nb.cells if cell.cell_type == "code"), None)
    if setup is None or "google.colab" not in setup.source:
        raise ValueError(f"{path}: the first code cell should be the setup cell (see tools/notebook_cells.py SETUP_CELL).")
    hidden = {**setup.metadata, **hidden_metadata(tuple(t for t in setup.metadata.get("tags", []) if t != "hide-input"))}
    if setup.source == SETUP_CELL and setup.metadata == hidden:
        return False
    setup.source, setup.metadata = SETUP_CELL, nbformat.from_dict(hidden)
    nbformat.write(nb, path)
    return True


if __name__ == "__main__":
    paths = [Path(p) for p in sys.argv[1:]] or sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    for path in paths:
        if add_badge(path):
            print(f"badge added or refreshed: {path}")
        if path.resolve() == (ROOT / MAP_NOTEBOOK).resolve() and refresh_map(path):
            print(f"map refreshed: {path}")
    for path in [Path(p) for p in sys.argv[1:]] or paths + sorted((ROOT / "classroom").glob("*.ipynb")):
        if refresh_setup_cell(path):
            print(f"setup cell refreshed: {path}")
