"""Every notebook (00-06) in quick mode as shipped, each kernel's peak memory held against a limit (binder-check's).

:func:`run_within_memory` runs the notebooks two at a time (each kernel on one CPU thread, later lessons first, as
``./workbook book`` does) with :class:`~sbert_workbook.runner.kernel_memory.KernelMemory` sampling each kernel, and
keeps what the book is made of: the executed copies in ``build/binder/book-executed/executed/`` and the verdicts the
runs recorded (:mod:`sbert_workbook.teaching.story`) beside them, so ``./workbook book --executed build/binder/book-executed``
needs no second run. :func:`over_the_limit` says which notebook failed or went past the limit, at which cell.
"""
from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from sbert_workbook.book.build import RUNS_FOLDER, VERDICTS_FILE
from sbert_workbook.runner.kernel_memory import KernelMemory
from sbert_workbook.runner.notebooks import ONE_THREAD, list_notebooks, run_notebook


@dataclass
class NotebookMemory:
    """One notebook's run: its kernel's peak (GB) and the cell that held it (index and first line), its wall seconds,
    and the error that stopped it (None when every cell ran)."""

    notebook: str
    peak_gb: float
    peak_cell: int | None
    peak_line: str
    seconds: float
    error: str | None = None


#: A cell's timeout: every run's 900 s; four times that in a niced run (.ci/run's beside the test suite), whose kernels
#: wait while other work has the cores (:mod:`sbert_workbook.runner.priority`), so a cell's wall time says little.
CELL_TIMEOUT_S, NICED_CELL_TIMEOUT_S = 900, 3600


def cell_timeout_s() -> int:
    """The per-cell timeout for this process's runs: :data:`NICED_CELL_TIMEOUT_S` when it runs niced, else
    :data:`CELL_TIMEOUT_S`."""
    import os

    return NICED_CELL_TIMEOUT_S if os.getpriority(os.PRIO_PROCESS, 0) > 0 else CELL_TIMEOUT_S


def measured_run(notebook: Path, runs_dir: Path, env: dict[str, str]) -> NotebookMemory:
    """Run ``notebook`` in quick mode as shipped with its kernel's memory sampled; a failed cell is recorded, not raised."""
    import time

    print(f"running {notebook.name} ...", flush=True)
    started, error = time.perf_counter(), None
    with KernelMemory() as memory:
        try:
            run = run_notebook(notebook, runs_dir, quick=True, env=env, after_cell=memory.after_cell,
                               timeout_s=cell_timeout_s())
        except Exception as failure:  # noqa: BLE001 - a failed cell: said with where to read it
            error = f"{type(failure).__name__}: {str(failure).strip().splitlines()[-1] if str(failure).strip() else ''}"
            run = None
    seconds = run.seconds if run else time.perf_counter() - started
    if not memory.cells:
        return NotebookMemory(notebook.stem, 0.0, None, "", round(seconds), error or "no cell ran")
    peak = memory.peak
    source = memory_source(runs_dir / "executed" / notebook.name, peak.index)
    print(f"  {notebook.stem}: {seconds:.0f} s, kernel peak {peak.peak_mb / 1024:.2f} GB in cell {peak.index}"
          + (f"; FAILED: {error}" if error else ""), flush=True)
    return NotebookMemory(notebook.stem, round(peak.peak_mb / 1024, 2), peak.index, source, round(seconds), error)


def memory_source(executed: Path, index: int) -> str:
    """The first line of cell ``index`` of an executed copy (empty if it cannot be read)."""
    try:
        lines = json.loads(executed.read_text(encoding="utf-8"))["cells"][index]["source"]
    except (OSError, ValueError, IndexError, KeyError):
        return ""
    text = "".join(lines) if isinstance(lines, list) else lines
    return text.strip().splitlines()[0][:100] if text.strip() else ""


def run_within_memory(root: Path, env: dict[str, str], parallel: int = 2) -> list[NotebookMemory]:
    """Every notebook of ``root/notebooks`` with ``env`` added to its kernel's, ``parallel`` at a time; the results in
    lesson order, also written to ``build/binder/notebook_memory.json``."""
    from sbert_workbook.teaching.story import STORY_ENV_VAR

    runs_dir = root / "build" / "binder" / RUNS_FOLDER
    runs_dir.mkdir(parents=True, exist_ok=True)
    verdicts = runs_dir / VERDICTS_FILE
    verdicts.write_text("", encoding="utf-8")
    kernel_env = {**env, STORY_ENV_VAR: str(verdicts), **(ONE_THREAD if parallel > 1 else {})}
    notebooks = list_notebooks(root / "notebooks")
    with ThreadPoolExecutor(max_workers=parallel) as pool:
        futures = {notebook: pool.submit(measured_run, notebook, runs_dir, kernel_env) for notebook in reversed(notebooks)}
    results = [futures[notebook].result() for notebook in notebooks]
    (root / "build" / "binder" / "notebook_memory.json").write_text(
        json.dumps([asdict(result) for result in results], indent=1) + "\n", encoding="utf-8")
    return results


def measured_before(root: Path) -> list[NotebookMemory]:
    """The results :func:`run_within_memory` wrote to ``build/binder/notebook_memory.json`` (``binder-check --runs-only``
    makes them, ``--page-only`` reads them); FileNotFoundError saying what to run when there are none."""
    measured = root / "build" / "binder" / "notebook_memory.json"
    if not measured.is_file():
        raise FileNotFoundError(f"{measured} is missing: run `./workbook binder-check --runs-only` (or the whole "
                                "`./workbook binder-check`) first")
    return [NotebookMemory(**row) for row in json.loads(measured.read_text(encoding="utf-8"))]


def over_the_limit(results: list[NotebookMemory], limit_gb: float) -> list[str]:
    """One line per notebook that failed or whose kernel peaked above ``limit_gb``."""
    lines = []
    for result in results:
        if result.error:
            lines.append(f"{result.notebook} stopped: {result.error} (read build/binder/{RUNS_FOLDER}/executed/"
                         f"{result.notebook}.ipynb)")
        elif result.peak_gb > limit_gb:
            lines.append(f"{result.notebook}'s kernel peaked at {result.peak_gb:.2f} GB, above Binder's {limit_gb} GB, "
                         f"in cell {result.peak_cell} ({result.peak_line!r}): free what that cell keeps or needs")
    return lines
