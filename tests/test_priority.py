"""A niced run's kernels stay niced against other sessions (sbert_workbook/runner/priority.py): a child in a session
of its own, as jupyter_client starts a kernel, gets the parent's nice value and so does its session's autogroup."""
from __future__ import annotations

import json
import subprocess
import sys

from sbert_workbook.runner import priority

CHILD = """
import json, os, subprocess, sys
from pathlib import Path
from sbert_workbook.runner.priority import run_as_we_do

os.setpriority(os.PRIO_PROCESS, 0, max(7, os.getpriority(os.PRIO_PROCESS, 0)))
kernel = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
group = Path(f"/proc/{kernel.pid}/autogroup")
before = group.read_text() if group.exists() else None
given = run_as_we_do(kernel.pid)
print(json.dumps({"ours": os.getpriority(os.PRIO_PROCESS, 0), "given": given, "before": before,
                  "nice": os.getpriority(os.PRIO_PROCESS, kernel.pid), "after": group.read_text() if group.exists() else None}))
kernel.kill()
"""


def test_a_kernel_in_its_own_session_gets_our_nice_value_and_so_does_its_session():
    seen = json.loads(subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, check=True,
                                     timeout=60).stdout)
    assert seen["ours"] >= 7 and seen["given"] == seen["ours"] and seen["nice"] == seen["ours"]
    if seen["after"] is not None:  # Linux with autogroup: the new session's group started at nice 0
        assert seen["before"].strip().endswith("nice 0") and seen["after"].strip().endswith(f"nice {seen['ours']}")


def test_at_nice_zero_nothing_is_touched(monkeypatch):
    monkeypatch.setattr(priority.os, "getpriority", lambda which, who: 0)
    monkeypatch.setattr(priority.os, "setpriority", lambda *args: (_ for _ in ()).throw(AssertionError("touched")))
    assert priority.run_as_we_do(12345) == 0
