"""How much memory this process can still take: the machine's free memory, or a container's limit where it is lower.

Introduced in ``00_start_here.ipynb`` through :func:`sbert_workbook.environment.memory.check_memory`. A container sees the
host's memory in ``/proc/meminfo`` (Binder gives a user 1-2 GB while ``/proc/meminfo`` shows the host's hundreds), so
on Linux the limit of the process's control group counts too: cgroup v2 ``memory.max`` less ``memory.current``, or
cgroup v1 ``memory.limit_in_bytes`` less ``memory.usage_in_bytes``, at every level from the process's group up; page
cache the kernel can drop (``inactive_file``) counts as free, as the kernel's own out-of-memory accounting
reclaims it first. macOS: psutil, else ``vm_stat``; Windows: psutil, else ``GlobalMemoryStatusEx``.
"""
from __future__ import annotations

import platform
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

GB = 1024 ** 3
#: cgroup v1 writes "no limit" as the largest page-aligned 64-bit number; anything this large is no limit.
NO_LIMIT_BYTES = 2 ** 60


@dataclass(frozen=True)
class FreeMemory:
    """Bytes this process can still take, and where that figure comes from (said in messages)."""

    bytes: int
    source: str

    @property
    def gb(self) -> float:
        return self.bytes / GB


def free_memory(proc: Path = Path("/proc"), cgroup_root: Path = Path("/sys/fs/cgroup")) -> FreeMemory | None:
    """What this process can still take on this system (None where it cannot be read); ``proc`` and ``cgroup_root``
    are where Linux shows them (tests point them at made-up files)."""
    system = platform.system()
    if system == "Linux" or (proc / "meminfo").is_file():
        return linux_free_memory(proc, cgroup_root)
    if system == "Darwin":
        return _psutil_free() or macos_free_memory()
    return _psutil_free() or _windows_free()


def linux_free_memory(proc: Path, cgroup_root: Path) -> FreeMemory | None:
    """The lower of ``/proc/meminfo``'s MemAvailable and what every control group above this process leaves."""
    candidates = [found for found in (meminfo_available(proc / "meminfo"), cgroup_free(proc / "self" / "cgroup", cgroup_root))
                  if found is not None]
    return min(candidates, key=lambda found: found.bytes) if candidates else None


def meminfo_available(meminfo: Path) -> FreeMemory | None:
    """MemAvailable (kernels before 3.14: MemFree + Cached) from ``/proc/meminfo``."""
    try:
        fields = {name: int(value) * 1024 for name, value in re.findall(r"^(\w+):\s+(\d+) kB", meminfo.read_text(), re.M)}
    except OSError:
        return None
    if "MemAvailable" in fields:
        return FreeMemory(fields["MemAvailable"], "MemAvailable in /proc/meminfo")
    if "MemFree" in fields:
        return FreeMemory(fields["MemFree"] + fields.get("Cached", 0), "MemFree and Cached in /proc/meminfo")
    return None


def cgroup_free(self_cgroup: Path, cgroup_root: Path) -> FreeMemory | None:
    """The least any memory-limited control group above this process leaves free (None: no limit anywhere)."""
    try:
        lines = self_cgroup.read_text().splitlines()
    except OSError:
        return None
    limits = []
    for line in lines:
        hierarchy, controllers, path = line.split(":", 2)
        if hierarchy == "0" and controllers == "":  # v2; a hybrid system mounts it at unified/ beside v1's
            unified = cgroup_root if (cgroup_root / "cgroup.controllers").is_file() else cgroup_root / "unified"
            limits += _levels(unified, path, "memory.max", "memory.current", "inactive_file", "v2")
        elif "memory" in controllers.split(","):
            limits += _levels(cgroup_root / "memory", path, "memory.limit_in_bytes", "memory.usage_in_bytes",
                              "total_inactive_file", "v1")
    return min(limits, key=lambda found: found.bytes) if limits else None


def _levels(mount: Path, path: str, limit_file: str, usage_file: str, inactive_key: str, version: str) -> list[FreeMemory]:
    """What each limited group leaves, from the process's own group (or the mount itself, where a container's
    namespace hides the path) up to the mount."""
    folder = mount / path.strip("/")
    if not folder.is_dir():
        folder = mount
    found = []
    while True:
        free = _group_free(folder, limit_file, usage_file, inactive_key)
        if free is not None:
            limit, left = free
            found.append(FreeMemory(left, f"under this container's {limit / GB:.1f} GB limit, cgroup {version} "
                                          f"{limit_file}"))
        if folder == mount or mount not in folder.parents:
            return found
        folder = folder.parent


def _group_free(folder: Path, limit_file: str, usage_file: str, inactive_key: str) -> tuple[int, int] | None:
    """(limit, bytes left under it) for one group, or None when it sets no limit or cannot be read."""
    try:
        limit_text = (folder / limit_file).read_text().strip()
        usage = int((folder / usage_file).read_text().strip())
    except (OSError, ValueError):
        return None
    if limit_text == "max" or not limit_text.isdigit() or int(limit_text) >= NO_LIMIT_BYTES:
        return None
    try:
        stat = dict(line.split() for line in (folder / "memory.stat").read_text().splitlines() if line.count(" ") == 1)
        reclaimable = int(stat.get(inactive_key, 0))
    except (OSError, ValueError):
        reclaimable = 0
    return int(limit_text), max(int(limit_text) - max(usage - reclaimable, 0), 0)


def _psutil_free() -> FreeMemory | None:
    try:
        import psutil
    except ImportError:
        return None
    return FreeMemory(psutil.virtual_memory().available, "psutil's available memory")


def macos_free_memory(vm_stat: str | None = None) -> FreeMemory | None:
    """Free, inactive and speculative pages from ``vm_stat`` (the memory macOS hands out without swapping)."""
    try:
        text = vm_stat if vm_stat is not None else subprocess.run(["vm_stat"], capture_output=True, text=True,
                                                                  check=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    page = re.search(r"page size of (\d+) bytes", text)
    pages = {name: int(count) for name, count in re.findall(r"^Pages (\w+):\s+(\d+)\.", text, re.M)}
    if not page or "free" not in pages:
        return None
    free_pages = pages["free"] + pages.get("inactive", 0) + pages.get("speculative", 0)
    return FreeMemory(free_pages * int(page.group(1)), "free, inactive and speculative pages in vm_stat")


def _windows_free() -> FreeMemory | None:
    try:
        import ctypes

        class MemoryStatus(ctypes.Structure):
            _fields_ = [("length", ctypes.c_ulong), ("load", ctypes.c_ulong), ("total", ctypes.c_ulonglong),
                        ("available", ctypes.c_ulonglong), ("total_page", ctypes.c_ulonglong),
                        ("available_page", ctypes.c_ulonglong), ("total_virtual", ctypes.c_ulonglong),
                        ("available_virtual", ctypes.c_ulonglong), ("available_extended", ctypes.c_ulonglong)]

        status = MemoryStatus(length=ctypes.sizeof(MemoryStatus))
        if not ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status)):
            return None
        return FreeMemory(status.available, "GlobalMemoryStatusEx's available memory")
    except (AttributeError, OSError):
        return None
