"""return_freed_memory hands pages glibc keeps after a free back to the system (the resident size falls), and does
nothing when switched off. Run in a child process, whose heap holds nothing else."""
from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import pytest

from sbert_workbook import heap

#: 4,000 blocks of 64 KiB (under glibc's mmap threshold, so they come from the heap), every other one freed: the
#: holes cannot be returned by shrinking the heap's top, only by malloc_trim. heap.py is loaded alone (no torch).
CHILD = """
import importlib.util, json, re, sys
spec = importlib.util.spec_from_file_location("heap", sys.argv[1])
heap = importlib.util.module_from_spec(spec)
spec.loader.exec_module(heap)
return_freed_memory = heap.return_freed_memory
def rss_mb():
    return int(re.search(r"VmRSS:\\s+(\\d+)", open("/proc/self/status").read()).group(1)) / 1024
blocks = [bytearray(b"x" * 65536) for _ in range(4_000)]
held = blocks[1::2]
del blocks
before = rss_mb()
returned = return_freed_memory()
print(json.dumps({"before": before, "after": rss_mb(), "returned": returned, "held": len(held)}))
"""


def run_child(env_extra: dict[str, str]) -> dict:
    env = {**os.environ, **env_extra}
    done = subprocess.run([sys.executable, "-c", CHILD, heap.__file__], capture_output=True, text=True, env=env, timeout=120, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(heap._malloc_trim() is None, reason="glibc's malloc_trim is only on Linux with glibc")
def test_freed_pages_go_back_to_the_system():
    trimmed = run_child({heap.TRIM_ENV_VAR: ""})
    assert trimmed["returned"] and trimmed["before"] - trimmed["after"] > 100  # 125 MB was freed into holes
    kept = run_child({heap.TRIM_ENV_VAR: "0"})
    assert not kept["returned"] and abs(kept["before"] - kept["after"]) < 5


def test_elsewhere_it_does_nothing(monkeypatch):
    heap._malloc_trim.cache_clear()
    monkeypatch.setattr(platform, "system", lambda: "Darwin")
    try:
        assert heap._malloc_trim() is None and heap.return_freed_memory() is False
    finally:
        heap._malloc_trim.cache_clear()
