"""A process's resident memory, read from the system: now (``VmRSS``), at its peak (``VmHWM``), and the peak reset.

The one reading of ``/proc/PID/status`` (psutil where there is no ``/proc``) behind three measurements: a notebook's
set-up says what the kernel already holds before it loads a model (:mod:`sbert_workbook.environment.memory`,
``00_start_here.ipynb``), the runner samples a kernel's memory per cell
(:mod:`sbert_workbook.runner.kernel_memory`), and binder-check watches the classroom server's processes.
"""
from __future__ import annotations

import re
from pathlib import Path


def resident_bytes(pid: int) -> int:
    """Resident memory of process ``pid`` in bytes (``VmRSS`` on Linux, psutil elsewhere); 0 once it has ended."""
    return _status_bytes(pid, "VmRSS") if Path("/proc").is_dir() else _psutil_rss(pid)


def peak_resident_bytes(pid: int) -> int:
    """The most memory process ``pid`` has held resident since it started or since :func:`reset_peak` (``VmHWM``,
    Linux); 0 where the system does not keep it."""
    return _status_bytes(pid, "VmHWM")


def reset_peak(pid: int) -> bool:
    """Start ``pid``'s high-water mark again from its present size (Linux 4.0+: ``5`` into ``clear_refs``, which
    touches nothing else); False where that cannot be done (another OS, another user's process)."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def _status_bytes(pid: int, key: str) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    kilobytes = re.search(rf"^{key}:\s+(\d+) kB", status, re.M)
    return int(kilobytes.group(1)) * 1024 if kilobytes else 0


def _psutil_rss(pid: int) -> int:
    try:
        import psutil

        return psutil.Process(pid).memory_info().rss
    except Exception:  # noqa: BLE001 - no psutil, or the process has ended: nothing to read
        return 0
