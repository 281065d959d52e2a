"""A notebook kernel's resident memory while it runs (each of 00-06): its peak, and which cell held it.

Used as :func:`~sbert_workbook.runner.notebooks.run_notebook`'s ``after_cell`` hook: a thread reads the kernel's resident
size (RSS) every :data:`SAMPLE_EVERY_S` seconds and files each reading under the cell running then; on Linux each
cell's peak is also the kernel's own high-water mark (``VmHWM``), read when the cell ends and reset before the next
(``/proc/PID/clear_refs``), so a peak between two readings is not missed. ``./workbook binder-check`` fails a
notebook whose peak passes Binder's memory (:mod:`sbert_workbook.installs.binder_check`); ``tools/notebook_memory.py``
measures every notebook with it, and :mod:`sbert_workbook.environment.memory` tells a notebook's set-up what it found.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from sbert_workbook.environment.resident import peak_resident_bytes, reset_peak, resident_bytes

MB = 1024 ** 2
#: Seconds between two readings of the kernel's resident size (the high-water mark covers what falls between them).
SAMPLE_EVERY_S = 0.25


@dataclass
class CellMemory:
    """One cell of a run: its index in the notebook, the seconds the kernel worked on it, the most it held resident
    while it ran and what it still held when it ended (MB), and what ``inspect`` reported then (if anything)."""

    index: int
    seconds: float
    peak_mb: float
    end_mb: float
    inspected: Any = None


@dataclass
class KernelMemory:
    """Samples a notebook kernel's memory during :func:`~sbert_workbook.runner.notebooks.run_notebook`; pass
    :meth:`after_cell` as its ``after_cell`` and use the object as a context manager around the run.

    ``inspect(scratch, index)``, if given, runs after each cell, between reading its peak and resetting the mark
    for the next (so what it allocates counts for no cell); its answer is kept in :attr:`CellMemory.inspected`.
    """

    inspect: Callable[[Any, int], Any] | None = None
    cells: list[CellMemory] = field(default_factory=list)
    pid: int | None = None
    _running: int = 0
    _sampled: dict[int, int] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def __enter__(self) -> KernelMemory:
        self._thread = threading.Thread(target=self._sample, name="kernel-memory", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        while not self._stop.wait(SAMPLE_EVERY_S):
            if self.pid is not None:
                running, rss = self._running, resident_bytes(self.pid)
                self._sampled[running] = max(self._sampled.get(running, 0), rss)

    def after_cell(self, scratch, index: int, cell) -> None:
        """Record cell ``index`` (just ended; a markdown cell runs nothing and is left out), then count what follows
        for the next cell."""
        if self.pid is None:
            self.pid = kernel_pid(scratch.client)
        if cell.cell_type != "code":
            self._sampled[index + 1] = self._sampled.pop(index, 0)
            self._running = index + 1
            return
        end = resident_bytes(self.pid)
        peak = max(self._sampled.get(index, 0), peak_resident_bytes(self.pid), end)
        inspected = self.inspect(scratch, index) if self.inspect else None
        self._running = index + 1
        reset_peak(self.pid)
        self.cells.append(CellMemory(index, cell_seconds(cell), round(peak / MB), round(end / MB), inspected))

    @property
    def peak(self) -> CellMemory:
        """The cell during which the kernel held the most (the first, at a tie)."""
        if not self.cells:
            raise RuntimeError("no cell has run yet: pass KernelMemory.after_cell to run_notebook as after_cell")
        return max(self.cells, key=lambda cell: cell.peak_mb)


def kernel_pid(client) -> int:
    """The process id of the kernel an nbclient ``client`` started (jupyter_client's local provisioner)."""
    return client.km.provisioner.pid


def cell_seconds(cell) -> float:
    """Seconds the kernel worked on ``cell`` (from its 'busy' to its 'idle', as nbclient timestamps them); 0 for a
    markdown cell."""
    import datetime as dt

    times = cell.get("metadata", {}).get("execution", {})
    if not {"iopub.status.busy", "iopub.status.idle"} <= set(times):
        return 0.0
    stamp = lambda text: dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()  # noqa: E731
    return round(stamp(times["iopub.status.idle"]) - stamp(times["iopub.status.busy"]), 2)


def run_measured(notebook: Path, build_dir: Path, env: dict[str, str] | None = None,
                 inspect: Callable[[Any, int], Any] | None = None, timeout_s: int = 1800) -> tuple[KernelMemory, float]:
    """Run ``notebook`` in quick mode as shipped (no parameters changed) with its kernel's memory sampled; (the
    samples, wall seconds). A failed cell raises, as in :func:`~sbert_workbook.runner.notebooks.run_notebook`."""
    from sbert_workbook.runner.notebooks import run_notebook

    started = time.perf_counter()
    with KernelMemory(inspect) as memory:
        run_notebook(notebook, build_dir, timeout_s=timeout_s, quick=True, env=env, after_cell=memory.after_cell)
    return memory, time.perf_counter() - started
