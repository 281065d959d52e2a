"""How much code a student reads: per notebook, code cells, cells over 20 lines, and lines of visible code.

Use: ``python tools/lesson_lines.py [--rev REV]`` (``--rev``: the notebooks as committed at a git revision, to compare
before and after a change). Visible code is every code cell not tagged ``hide-input`` (set-up, reports and checks are
hidden: collapsed in JupyterLab and Colab, behind "show code" in the book). A measurement for the closing note of a
change, not a test; tests/test_lessons.py holds the rules (no cell over 20 lines, no visible cell over 15).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def counts(cells: list[dict]) -> dict[str, int]:
    code = [cell for cell in cells if cell["cell_type"] == "code"]
    lines = lambda cell: len("".join(cell["source"]).splitlines())  # noqa: E731
    visible = [cell for cell in code if "hide-input" not in cell.get("metadata", {}).get("tags", [])]
    return {"code cells": len(code), "over 20 lines": sum(lines(cell) > 20 for cell in code),
            "visible cells": len(visible), "visible lines": sum(map(lines, visible)), "all lines": sum(map(lines, code))}


def notebooks_at(rev: str | None) -> dict[str, list[dict]]:
    if rev is None:
        return {p.stem: json.loads(p.read_text(encoding="utf-8"))["cells"] for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))}
    names = subprocess.run(["git", "ls-tree", "--name-only", rev, "notebooks/"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    return {Path(name).stem: json.loads(subprocess.run(["git", "show", f"{rev}:{name}"], cwd=ROOT, capture_output=True,
                                                       text=True, check=True).stdout)["cells"]
            for name in sorted(names) if name.endswith(".ipynb")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default=None, help="a git revision (default: the working tree)")
    args = parser.parse_args(argv)
    rows = {stem: counts(cells) for stem, cells in notebooks_at(args.rev).items()}
    columns = list(next(iter(rows.values())))
    print(f"{'notebook':<30}" + "".join(f"{c:>15}" for c in columns))
    for stem, row in rows.items():
        print(f"{stem:<30}" + "".join(f"{row[c]:>15}" for c in columns))
    print(f"{'all':<30}" + "".join(f"{sum(r[c] for r in rows.values()):>15}" for c in columns))
    return 0


if __name__ == "__main__":
    sys.exit(main())
