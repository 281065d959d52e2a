"""A notebook's kernel runs at the priority of the process that started it, also against other sessions.

``nice -n 19 ./workbook binder-check --runs-only`` should run its notebooks only on cores nothing else wants (.ci/run
runs them beside the test suite). nice alone does not do that: jupyter_client starts every kernel in a session of its
own, and Linux's autogroup scheduler first shares the CPU between sessions, so a niced kernel got as much as the
suite's kernels (measured in .ci/run: each of the four kernels about 38 % of the two cores). :func:`run_as_we_do` gives
the kernel's session this process's nice value too, by writing it to ``/proc/<pid>/autogroup`` (raising a nice value
needs no privilege). Nothing changes for a process at nice 0, the usual case (a learner running 00 to 09).
"""
from __future__ import annotations

import os
from pathlib import Path


def run_as_we_do(pid: int) -> int:
    """Give process ``pid`` and its session's autogroup this process's nice value when it is above 0; the value given
    (0: nothing to do). Where there is no autogroup (not Linux, or switched off) the process's nice value is enough."""
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    if ours <= 0:
        return 0
    os.setpriority(os.PRIO_PROCESS, pid, max(ours, os.getpriority(os.PRIO_PROCESS, pid)))
    try:
        Path(f"/proc/{pid}/autogroup").write_text(str(ours), encoding="ascii")
    except OSError:  # no autogroup here, or the process has ended
        pass
    return ours
