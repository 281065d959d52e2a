"""Insert or refresh the "Open in Colab" badge at the top of every notebooks/NN_*.ipynb title cell.

Run after (re)generating notebooks: ``python tools/add_colab_badges.py``. Only the first
cell's badge line changes; an up-to-date notebook is left untouched.
"""
from __future__ import annotations

import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tools.notebook_cells import with_colab_badge  # noqa: E402


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


if __name__ == "__main__":
    paths = [Path(p) for p in sys.argv[1:]] or sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    for path in paths:
        if add_badge(path):
            print(f"badge added or refreshed: {path}")
