"""Write each notebook's run time and memory into its parameters cell, from the measurements (so they cannot go stale).

Use: ``python tools/notebook_times.py`` (rewrites the lines in every notebook); ``--check`` only says whether every
notebook carries the lines its measurements give (tests/test_timing_claims.py). The lines read, e.g.,

    # On a 2-core CPU, quick mode: about 3 min and 1.2 GB with the embedded model; about 9 min and 3.1 GB with bert-base-uncased.
    # Full mode: about 13 min on a 2-core CPU with the embedded model; not yet timed on a GPU.

Quick mode comes from the package's ``sbert_workbook/environment/notebook_peaks.json`` (``tools/notebook_memory.py``: each
notebook run alone in quick mode as shipped, its kernel sampled, for the embedded model and the bert-base-uncased-shaped
stand-in, which stands for ``MODEL = "auto"`` online); full mode from ``docs/full_mode_times.json``
(``tools/full_mode_times.py``). A notebook whose full mode was not measured whole on a CPU says so; no full mode has
been timed on a GPU yet, and the line says that instead of guessing. Minutes round up, GB to one decimal.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PREFIX = "# On a 2-core CPU, quick mode: "
FULL_PREFIX = "# Full mode: "
#: The single line notebooks carried before memory was stated; rewriting removes it.
OLD_PREFIX = "# On a 2-core CPU: "
#: How each measured model is named in the line.
MODEL_NAMES = {"embedded": "the embedded model", "bert-base-uncased": "bert-base-uncased"}


def minutes(seconds: float) -> str:
    return f"about {max(1, math.ceil(seconds / 60))} min"


def quick_part(stem: str, quick: dict) -> str:
    """``about 3 min and 1.2 GB with the embedded model; …`` for each measured model, or what is not measured."""
    parts = []
    for model, name in MODEL_NAMES.items():
        entry = quick.get(model, {})
        if stem in entry.get("wall_s", {}):
            took = minutes(entry["wall_s"][stem])
            if entry.get("time_is_upper_bound", {}).get(stem):  # one torch thread beside another run: at most this
                took = took.replace("about", "at most")
            parts.append(f"{took} and {entry['peak_mb'][stem] / 1024:.1f} GB with {name}")
        else:
            parts.append(f"not yet measured with {name}")
    return "; ".join(parts)


def full_part(stem: str, full: dict) -> str:
    measured = full.get(stem)
    if measured and not measured.get("until_section") and not measured.get("stopped"):
        on_cpu = f"{minutes(measured['wall_seconds'])} on a 2-core CPU with the embedded model"
    else:
        on_cpu = "for a GPU (not measured whole on a 2-core CPU)"
    return f"{on_cpu}; not yet timed on a GPU"


def time_lines(stem: str, quick: dict, full: dict) -> list[str]:
    """The parameters cell's two lines for notebook ``stem``: quick mode (time and kernel peak per model), full mode."""
    if not any(stem in entry.get("wall_s", {}) for entry in quick.values()):
        raise KeyError(f"{stem} has no quick-mode measurement: run python tools/notebook_memory.py --only {stem[:2]}")
    return [f"{PREFIX}{quick_part(stem, quick)}.", f"{FULL_PREFIX}{full_part(stem, full)}."]


def with_time_lines(source: str, lines: list[str]) -> str:
    """``source`` (a parameters cell) with its time lines replaced by ``lines``, or added under the QUICK line."""
    kept = [existing for existing in source.splitlines() if not existing.startswith((PREFIX, FULL_PREFIX, OLD_PREFIX))]
    at = next((i + 1 for i, existing in enumerate(kept) if existing.startswith("QUICK =")), len(kept))
    return "\n".join(kept[:at] + lines + kept[at:]) + ("\n" if source.endswith("\n") else "")


def measurements() -> tuple[dict, dict]:
    """(quick mode: ``{model: {"wall_s": {...}, "peak_mb": {...}}}``, full mode: ``{notebook: {...}}``)."""
    from sbert_workbook.environment.memory import measured_peaks

    quick = measured_peaks()
    full = json.loads((ROOT / "docs" / "full_mode_times.json").read_text(encoding="utf-8"))["notebooks"]
    return quick, full


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a notebook's lines differ from its measurements")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    import nbformat

    from sbert_workbook.runner.notebooks import list_notebooks

    quick, full = measurements()
    stale = []
    for notebook in list_notebooks():
        nb = nbformat.read(notebook, as_version=4)
        cell = next(cell for cell in nb.cells if "parameters" in cell.metadata.get("tags", []))
        fresh = with_time_lines(cell.source, time_lines(notebook.stem, quick, full))
        if fresh != cell.source:
            stale.append(notebook.name)
            if not args.check:
                cell.source = fresh
                nbformat.write(nb, notebook)
    if args.check:
        print("every notebook's time lines are up to date" if not stale else f"stale: {stale}: run python tools/notebook_times.py")
        return 1 if stale else 0
    print(f"rewrote {stale or 'nothing'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
