"""Measure how long each ``##`` section of every notebook runs in quick mode, for TEACHING.md's 90-minute path.

Use: ``python tools/section_times.py [--only 03] [--out docs/section_times.json]``. Each notebook runs once
through :func:`sbert_workbook.runner.notebooks.run_notebook` (executed copies under ``build/section_times/``);
nbclient records each cell's start and end in its metadata, and the code cells' seconds are summed per
``##`` heading that precedes them. The JSON also says when, on how many cores, under which load and with
which model it was measured; ``tools/teaching_guide.py`` turns it into TEACHING.md's tables.

``--executed build/notebook_memory/embedded/executed`` reads the copies ``tools/notebook_memory.py`` executed (the same
quick-mode run on the embedded model, one notebook at a time) instead of running every notebook again; a notebook's
time is then the sum of its cells' seconds.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "docs" / "section_times.json"
MEMORY_RUNS = ROOT / "docs" / "notebook_memory.json"
#: The visible word each ``##`` heading carries (tests/test_teaching.py); stripped so times survive retagging.
SECTION_WORD = re.compile(r"\s*\((core|optional)\)\s*$")
BEFORE_FIRST_SECTION = "(title, setup and parameters)"


def section_title(line: str) -> str:
    """``'## 3 · Poolings (core)'`` → ``'3 · Poolings'``: the heading without ``##`` and without its core/optional word."""
    return SECTION_WORD.sub("", line[3:].strip())


def first_section_heading(cell) -> str | None:
    """The first ``## `` line of a markdown cell, or None."""
    if cell.cell_type != "markdown":
        return None
    return next((line for line in cell.source.splitlines() if line.startswith("## ")), None)


def cell_seconds(cell) -> float:
    """Seconds nbclient recorded for a code cell (from the request reaching the kernel to its reply)."""
    timing = cell.get("metadata", {}).get("execution", {})
    start = timing.get("iopub.execute_input") or timing.get("iopub.status.busy")
    end = timing.get("shell.execute_reply") or timing.get("iopub.status.idle")
    if not (start and end):
        return 0.0
    parse = lambda stamp: dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))  # noqa: E731
    return (parse(end) - parse(start)).total_seconds()


def seconds_per_section(executed) -> dict[str, float]:
    """Code cells' seconds summed per ``##`` section, in notebook order (cells before the first ``##`` kept apart)."""
    sections, current = {BEFORE_FIRST_SECTION: 0.0}, BEFORE_FIRST_SECTION
    for cell in executed.cells:
        heading = first_section_heading(cell)
        if heading is not None:
            current = section_title(heading)
            sections.setdefault(current, 0.0)
        elif cell.cell_type == "code":
            sections[current] += cell_seconds(cell)
    return {title: round(seconds, 1) for title, seconds in sections.items()}


def measure(only: list[str] | None = None) -> dict:
    """Run the notebooks in quick mode once and return the JSON record (see the module docstring)."""
    import nbformat

    from sbert_workbook.runner.notebooks import list_notebooks, run_notebook
    from sbert_workbook.encoding.resolve import resolve_model

    load_before = os.getloadavg()
    notebooks = {}
    for notebook in list_notebooks():
        if only and not any(part in notebook.name for part in only):
            continue
        print(f"running {notebook.name} in quick mode ...", flush=True)
        run = run_notebook(notebook, ROOT / "build" / "section_times", quick=True)
        sections = seconds_per_section(nbformat.read(run.executed, as_version=4))
        notebooks[notebook.stem] = {"wall_seconds": round(run.seconds, 1), "sections_seconds": sections,
                                    "load_average_after": round(os.getloadavg()[0], 2)}
        print(f"  {run.seconds:.0f} s wall, load average {os.getloadavg()[0]:.2f}", flush=True)
    return {
        "measured": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "mode": "quick (SBERT_WORKBOOK_QUICK=1), MODEL='auto', exercises unsolved",
        "model": resolve_model("auto").describe(),
        "nproc": os.cpu_count(),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "python": sys.version.split()[0],
        "notebooks": notebooks,
    }


def from_executed(folder: Path, only: list[str] | None = None, label: str = "after") -> dict:
    """The JSON record from notebooks executed already (each cell's start and end in its metadata); the load averages
    come from ``docs/notebook_memory.json``'s run ``label``, the run that executed them."""
    import nbformat

    from sbert_workbook.encoding.resolve import resolve_model

    notebooks = {}
    for executed in sorted(folder.glob("[0-9][0-9]_*.ipynb")):
        if only and not any(part in executed.name for part in only):
            continue
        sections = seconds_per_section(nbformat.read(executed, as_version=4))
        notebooks[executed.stem] = {"wall_seconds": round(sum(sections.values()), 1), "sections_seconds": sections}
    if not notebooks:
        raise FileNotFoundError(f"{folder} holds no executed notebooks: run tools/notebook_memory.py first")
    runs = json.loads(MEMORY_RUNS.read_text(encoding="utf-8")).get("runs", {}).get(label, {}).get("embedded", {}) \
        if MEMORY_RUNS.is_file() else {}
    ran = [runs[stem] for stem in notebooks if stem in runs]
    return {
        "load_average_before": [ran[0]["load_average_before"]] if ran else [None],
        "load_average_after": [ran[-1]["load_average_after"]] if ran else [None],
        "measured": dt.datetime.fromtimestamp(max(p.stat().st_mtime for p in folder.glob("*.ipynb")),
                                              dt.timezone.utc).isoformat(timespec="seconds"),
        "mode": f"quick (SBERT_WORKBOOK_QUICK=1), MODEL='auto', exercises unsolved; cells' seconds from {folder.name}/ "
                "of tools/notebook_memory.py's run",
        "model": resolve_model("auto").describe(),
        "nproc": os.cpu_count(),
        "python": sys.version.split()[0],
        "notebooks": notebooks,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="run only notebooks whose name contains one of these")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--executed", type=Path, help="read notebooks executed already (tools/notebook_memory.py's "
                        "build/notebook_memory/embedded/executed) instead of running them")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    record = from_executed(args.executed, args.only) if args.executed else measure(args.only)
    if args.only and args.out.is_file():  # keep the other notebooks' earlier measurements
        earlier = json.loads(args.out.read_text(encoding="utf-8"))
        record["notebooks"] = {**earlier.get("notebooks", {}), **record["notebooks"]}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
