"""Write each notebook's run-time line into its parameters cell, from the measurements (so it cannot go stale).

Use: ``python tools/notebook_times.py`` (rewrites the line in every notebook); ``--check`` only says whether every
notebook carries the line its measurements give (tests/test_timing_claims.py). The line reads, e.g.,

    # On a 2-core CPU: about 3 min in quick mode, about 13 min in full mode.

Quick mode comes from ``docs/section_times.json`` (``tools/section_times.py``), full mode from
``docs/full_mode_times.json`` (``tools/full_mode_times.py``); a notebook whose full mode was not measured whole says
that full mode is for a GPU. Minutes are rounded up.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PREFIX = "# On a 2-core CPU: "


def minutes(seconds: float) -> str:
    return f"about {max(1, math.ceil(seconds / 60))} min"


def time_line(stem: str, quick: dict, full: dict) -> str:
    """The parameters cell's line for notebook ``stem`` from the two measurement files' ``notebooks`` entries."""
    if stem not in quick:
        raise KeyError(f"{stem} has no quick-mode measurement: run python tools/section_times.py --only {stem[:2]}")
    measured = full.get(stem)
    if measured and not measured.get("until_section") and not measured.get("stopped"):
        full_part = f"{minutes(measured['wall_seconds'])} in full mode"
    else:
        full_part = "full mode is for a GPU (not measured whole on a CPU)"
    return f"{PREFIX}{minutes(quick[stem]['wall_seconds'])} in quick mode, {full_part}."


def with_time_line(source: str, line: str) -> str:
    """``source`` (a parameters cell) with its time line replaced by ``line``, or added under the QUICK line."""
    lines = [existing for existing in source.splitlines() if not existing.startswith(PREFIX)]
    at = next((i + 1 for i, existing in enumerate(lines) if existing.startswith("QUICK =")), len(lines))
    return "\n".join(lines[:at] + [line] + lines[at:]) + ("\n" if source.endswith("\n") else "")


def measurements() -> tuple[dict, dict]:
    read = lambda name: json.loads((ROOT / "docs" / name).read_text(encoding="utf-8"))["notebooks"]  # noqa: E731
    return read("section_times.json"), read("full_mode_times.json")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a notebook's line differs from its measurements")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    import nbformat

    from sbert_workbook.app.runbook import list_notebooks

    quick, full = measurements()
    stale = []
    for notebook in list_notebooks():
        nb = nbformat.read(notebook, as_version=4)
        cell = next(cell for cell in nb.cells if "parameters" in cell.metadata.get("tags", []))
        fresh = with_time_line(cell.source, time_line(notebook.stem, quick, full))
        if fresh != cell.source:
            stale.append(notebook.name)
            if not args.check:
                cell.source = fresh
                nbformat.write(nb, notebook)
    if args.check:
        print("every notebook's run-time line is up to date" if not stale else f"stale: {stale}: run python tools/notebook_times.py")
        return 1 if stale else 0
    print(f"rewrote {stale or 'nothing'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
