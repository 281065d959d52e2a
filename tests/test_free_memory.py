"""free_memory reads what a process can still take: /proc/meminfo, or a container's cgroup limit where it is lower
(cgroup v2 and v1, nested groups, a namespace that hides the path), vm_stat on macOS, psutil elsewhere.

Each case builds the files Linux would show in a temporary folder; the expected bytes are worked out by hand.
"""
from __future__ import annotations

import sys
import types

import pytest

from sbert_workbook.environment import free_memory as fm

GB, MB = 1024 ** 3, 1024 ** 2


def proc_with(tmp_path, meminfo_kb: dict[str, int], cgroup_lines: str):
    proc = tmp_path / "proc"
    (proc / "self").mkdir(parents=True)
    (proc / "meminfo").write_text("".join(f"{name}: {kb} kB\n" for name, kb in meminfo_kb.items()))
    (proc / "self" / "cgroup").write_text(cgroup_lines)
    return proc


def group(folder, files: dict[str, str | int]):
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(f"{text}\n")


HOST = {"MemTotal": 256 * 1024 ** 2, "MemFree": 100 * 1024 ** 2, "MemAvailable": 200 * 1024 ** 2}  # kB: 200 GB free


def test_without_a_limit_the_machine_s_available_memory_counts(tmp_path):
    proc = proc_with(tmp_path, HOST, "0::/\n")
    root = tmp_path / "cgroup"
    group(root, {"cgroup.controllers": "memory"})  # the root group has no memory.max
    found = fm.linux_free_memory(proc, root)
    assert found.bytes == 200 * GB and "/proc/meminfo" in found.source


def test_a_cgroup_v2_limit_below_the_host_s_memory_wins_and_drops_reclaimable_cache(tmp_path):
    proc = proc_with(tmp_path, HOST, "0::/user.slice/binder\n")
    root = tmp_path / "cgroup"
    group(root, {"cgroup.controllers": "memory"})
    group(root / "user.slice" / "binder", {"memory.max": 2 * GB, "memory.current": 3 * GB // 2,
                                           "memory.stat": f"anon {GB}\ninactive_file {GB // 4}\nactive_file 0"})
    found = fm.linux_free_memory(proc, root)
    assert found.bytes == 2 * GB - (3 * GB // 2 - GB // 4)  # 0.75 GB: limit less what cannot be reclaimed
    assert found.source == "under this container's 2.0 GB limit, cgroup v2 memory.max"


def test_a_v2_limit_of_max_is_no_limit(tmp_path):
    proc = proc_with(tmp_path, HOST, "0::/a\n")
    root = tmp_path / "cgroup"
    group(root, {"cgroup.controllers": "memory"})
    group(root / "a", {"memory.max": "max", "memory.current": 5 * GB})
    assert fm.linux_free_memory(proc, root).bytes == 200 * GB


def test_a_parent_group_s_tighter_limit_counts(tmp_path):
    proc = proc_with(tmp_path, HOST, "0::/pod/container\n")
    root = tmp_path / "cgroup"
    group(root, {"cgroup.controllers": "memory"})
    group(root / "pod", {"memory.max": 4 * GB, "memory.current": 3 * GB})
    group(root / "pod" / "container", {"memory.max": 8 * GB, "memory.current": 1 * GB})
    assert fm.linux_free_memory(proc, root).bytes == 1 * GB  # the pod leaves 1 GB although the container's own leaves 7


def test_a_container_namespace_shows_its_own_group_as_the_root(tmp_path):
    proc = proc_with(tmp_path, HOST, "0::/\n")
    root = tmp_path / "cgroup"
    group(root, {"cgroup.controllers": "memory", "memory.max": GB, "memory.current": GB // 4})
    assert fm.linux_free_memory(proc, root).bytes == GB - GB // 4


def test_a_cgroup_v1_limit_counts_and_its_path_may_be_hidden(tmp_path):
    proc = proc_with(tmp_path, HOST, "5:cpu,cpuacct:/docker/abc\n4:memory:/docker/abc\n0::/\n")
    root = tmp_path / "cgroup"
    group(root / "memory", {"memory.limit_in_bytes": GB, "memory.usage_in_bytes": GB // 2,
                            "memory.stat": f"cache {GB // 4}\ntotal_inactive_file {GB // 8}"})
    found = fm.linux_free_memory(proc, root)  # /docker/abc is not under the mount: the namespace's root is read
    assert found.bytes == GB - (GB // 2 - GB // 8) and "cgroup v1" in found.source


def test_cgroup_v1_s_no_limit_number_is_no_limit(tmp_path):
    proc = proc_with(tmp_path, HOST, "4:memory:/\n")
    root = tmp_path / "cgroup"
    group(root / "memory", {"memory.limit_in_bytes": 9223372036854771712, "memory.usage_in_bytes": GB})
    assert fm.linux_free_memory(proc, root).bytes == 200 * GB


def test_an_old_kernel_without_memavailable_counts_free_and_cached(tmp_path):
    proc = proc_with(tmp_path, {"MemTotal": 8 * 1024 ** 2, "MemFree": 1024 ** 2, "Cached": 2 * 1024 ** 2}, "")
    assert fm.linux_free_memory(proc, tmp_path / "none").bytes == 3 * GB


def test_nothing_readable_is_none(tmp_path):
    assert fm.linux_free_memory(tmp_path / "no-proc", tmp_path / "no-cgroup") is None


VM_STAT = """Mach Virtual Memory Statistics: (page size of 16384 bytes)
Pages free:                               12000.
Pages active:                            300000.
Pages inactive:                          250000.
Pages speculative:                         3000.
Pages throttled:                              0.
Pages wired down:                        150000.
"""


def test_macos_counts_free_inactive_and_speculative_pages():
    found = fm.macos_free_memory(VM_STAT)
    assert found.bytes == (12000 + 250000 + 3000) * 16384 and "vm_stat" in found.source
    assert fm.macos_free_memory("no such output") is None


@pytest.mark.parametrize("system", ["Darwin", "Windows"])
def test_other_systems_ask_psutil_first(system, tmp_path, monkeypatch):
    fake = types.SimpleNamespace(virtual_memory=lambda: types.SimpleNamespace(available=3 * GB))
    monkeypatch.setitem(sys.modules, "psutil", fake)
    monkeypatch.setattr(fm.platform, "system", lambda: system)
    found = fm.free_memory(proc=tmp_path / "no-proc")
    assert found.bytes == 3 * GB and "psutil" in found.source


def test_macos_without_psutil_reads_vm_stat(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "psutil", None)  # import psutil raises ImportError
    monkeypatch.setattr(fm.platform, "system", lambda: "Darwin")
    monkeypatch.setattr(fm.subprocess, "run", lambda *a, **k: types.SimpleNamespace(stdout=VM_STAT))
    assert fm.free_memory(proc=tmp_path / "no-proc").bytes == 265000 * 16384


def test_this_machine_gives_an_answer():
    found = fm.free_memory()
    assert found is not None and 0 < found.bytes < 64 * 1024 * GB
