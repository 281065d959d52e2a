"""Measure how long each ``##`` section of a notebook runs in FULL mode, for the README's timing table.

Use: ``python tools/full_mode_times.py 03 05 [--until 04:2] [--cell-timeout 900] [--out docs/full_mode_times.json]``.
Each notebook runs once through :func:`sbert_workbook.runner.notebooks.run_notebook` with ``quick=False``
(executed copies under ``build/full_mode_times/``), and the code cells' seconds are summed per ``##``
section exactly as ``tools/section_times.py`` does for quick mode. ``--until NN:K`` stops notebook NN
before its section K (e.g. ``04:2`` runs 04's set-up and §0-§1 only: its §5 is a full NLI epoch, hours on a
CPU). A cell that runs past ``--cell-timeout`` stops the notebook; the sections done so far are kept and
the record says where it stopped. The JSON says when, on how many cores and under which load it ran.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from section_times import first_section_heading, section_title, seconds_per_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "docs" / "full_mode_times.json"


def cells_before_section(nb, section_number: str):
    """``nb`` cut just before its ``## K ·`` heading (the whole notebook when there is none)."""
    for index, cell in enumerate(nb.cells):
        heading = first_section_heading(cell)
        if heading is not None and section_title(heading).split(" ")[0].rstrip(".") == section_number:
            nb.cells = nb.cells[:index]
            break
    return nb


def measure_one(notebook: Path, until: str | None, cell_timeout: int) -> dict:
    """Run ``notebook`` in full mode (cut before section ``until`` if given) and return its record."""
    import nbformat

    from sbert_workbook.runner.notebooks import run_notebook

    build = ROOT / "build" / "full_mode_times"
    source = notebook
    if until:
        nb = cells_before_section(nbformat.read(notebook, as_version=4), until)
        source = Path(tempfile.mkdtemp(prefix="sbw-until-", dir=notebook.parent.parent / "build")) / notebook.name
        nbformat.write(nb, source)
    load_before, stopped = os.getloadavg()[0], None
    started = dt.datetime.now()
    try:
        run = run_notebook(source, build, timeout_s=cell_timeout, quick=False)
        wall = run.seconds
    except Exception as error:  # a cell past the timeout (or failing): keep what ran
        message = (str(error).strip().splitlines() or [""])[0][:200]
        stopped, wall = f"{type(error).__name__}: {message}", (dt.datetime.now() - started).total_seconds()
    executed_path = build / "executed" / notebook.name
    if not executed_path.is_file():
        return {"wall_seconds": round(wall, 1), "until_section": until, "stopped": stopped, "sections_seconds": {}}
    executed = nbformat.read(executed_path, as_version=4)
    return {"wall_seconds": round(wall, 1), "until_section": until, "stopped": stopped,
            "sections_seconds": seconds_per_section(executed),
            "load_average_before": round(load_before, 2), "load_average_after": round(os.getloadavg()[0], 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", help="notebook numbers, e.g. 03 05")
    parser.add_argument("--until", action="append", default=[], help="NN:K stops notebook NN before its section K")
    parser.add_argument("--cell-timeout", type=int, default=900, help="seconds one cell may run (default 900)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)

    from sbert_workbook.runner.notebooks import list_notebooks
    from sbert_workbook.encoding.resolve import resolve_model

    until = dict(item.split(":", 1) for item in args.until)
    record = json.loads(args.out.read_text(encoding="utf-8")) if args.out.is_file() else {"notebooks": {}}
    by_number = {notebook.name[:2]: notebook for notebook in list_notebooks()}
    for number in args.notebooks:  # in the order given
        notebook = by_number[number]
        print(f"running {notebook.name} in full mode{' until §' + until[number] if number in until else ''} ...", flush=True)
        record["notebooks"][notebook.stem] = {"measured": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                                              **measure_one(notebook, until.get(number), args.cell_timeout)}
        print(f"  {record['notebooks'][notebook.stem]}", flush=True)
        record.update(mode="full (SBERT_WORKBOOK_QUICK=0), MODEL='auto', exercises unsolved",
                      model=resolve_model("auto").describe(), nproc=os.cpu_count(), python=sys.version.split()[0])
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
