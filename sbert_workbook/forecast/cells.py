"""A long cell's own lines: what it is predicted to take on this machine before it starts, and what it took after.

Each :class:`~sbert_workbook.forecast.work.Step` names, in ``call``, a piece of code that appears in the cell that runs
it (``"seven_set_tables("``, ``"tiny.fit("``). A lesson's set-up installs a :class:`CellClock` on IPython's
``pre_run_cell`` and ``post_run_cell`` events: a cell whose steps are predicted at :data:`LONG_S` seconds or more
prints the prediction before it runs, and its time after (also when it ran long unpredicted). With
``SBERT_WORKBOOK_FORECAST_LOG`` set to a file, each such cell's prediction and time are appended to it as a JSON
line (``tools/forecast_check.py`` reads them). Introduced in ``00_start_here.ipynb``.
"""
from __future__ import annotations

import json
import os
import re
import time

from sbert_workbook.forecast.predict import Forecast, duration

#: A cell predicted to take at least this many seconds (or that takes them) prints its lines.
LONG_S = 10.0
LOG_ENV_VAR = "SBERT_WORKBOOK_FORECAST_LOG"


def names_call(source: str, call: str) -> bool:
    """Whether the cell ``source`` runs ``call`` ("supervised_runs(") as a name of its own, not as the end of a longer
    name ("unsupervised_runs(")."""
    return re.search(r"(?<!\w)" + re.escape(call), source) is not None


def log_line(record: dict) -> None:
    """Append ``record`` to ``SBERT_WORKBOOK_FORECAST_LOG`` as one JSON line when the variable is set."""
    path = os.environ.get(LOG_ENV_VAR)
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(json.dumps(record) + "\n")


class CellClock:
    """Prints a cell's predicted seconds before it runs and its seconds after (see the module)."""

    def __init__(self, notebook: str, forecast: Forecast):
        self.notebook, self.forecast = notebook, forecast
        self._started: float | None = None
        self._calls: list[str] = []
        self._predicted = 0.0

    def predicted_for(self, source: str) -> tuple[list[str], float]:
        """(the steps' calls found in ``source``, their predicted seconds)."""
        calls = sorted({step.call for step in self.forecast.steps if step.call and names_call(source, step.call)})
        return calls, sum(self.forecast.call_seconds(call) for call in calls)

    def before(self, info) -> None:
        self._calls, self._predicted = self.predicted_for(getattr(info, "raw_cell", "") or "")
        if self._predicted >= LONG_S:
            print(f"⏱ predicted on this machine: about {duration(self._predicted)}", flush=True)
        self._started = time.perf_counter()

    def after(self, result=None) -> None:
        if self._started is None:
            return
        took, self._started = time.perf_counter() - self._started, None
        if self._predicted >= LONG_S or took >= LONG_S:
            print(f"⏱ took {duration(took)} (predicted {duration(self._predicted)})", flush=True)
        if self._calls:
            log_line({"notebook": self.notebook, "calls": self._calls, "predicted_s": round(self._predicted, 2),
                      "took_s": round(took, 2)})


def install(clock: CellClock, setup_started: float | None = None, setup_call: str = "begin(") -> bool:
    """Register ``clock`` with the running IPython (replacing an earlier lesson's); False outside IPython.
    ``setup_started`` (a ``time.perf_counter()``): the set-up cell installing it is clocked from then."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    if shell is None:
        return False
    for event, method in (("pre_run_cell", "before"), ("post_run_cell", "after")):
        for callback in list(shell.events.callbacks[event]):
            if isinstance(getattr(callback, "__self__", None), CellClock):
                shell.events.unregister(event, callback)
        shell.events.register(event, getattr(clock, method))
    if setup_started is not None:
        clock._calls, clock._started = [setup_call], setup_started
        clock._predicted = clock.forecast.call_seconds(setup_call)
    return True
