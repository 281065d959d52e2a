"""Insert or refresh the "Open in Colab" badge at the top of every notebooks/NN_*.ipynb title cell,
and put tools/notebook_cells.py's SETUP_CELL into every notebook's (and classroom notebook's) setup cell.

Run after (re)generating notebooks or changing ``REPOSITORY``: ``python tools/add_colab_badges.py``.
Only the first cell's badge line and the setup cell change; an up-to-date notebook is left untouched.
"""
from __future__ import annotations

import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tools.notebook_cells import SETUP_CELL, hidden_metadata, with_colab_badge  # noqa: E402


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
    for path in [Path(p) for p in sys.argv[1:]] or paths + sorted((ROOT / "classroom").glob("*.ipynb")):
        if refresh_setup_cell(path):
            print(f"setup cell refreshed: {path}")
