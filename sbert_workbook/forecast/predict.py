"""The prediction: each step's seconds from the rates, per section and per mode, and the mode that fits a budget.

``QUICK = "auto"`` runs the largest mode whose predicted time fits the budget (:data:`DEFAULT_BUDGET_MIN` minutes a
notebook, or ``SBERT_WORKBOOK_BUDGET_MIN``): the papers' recipe (``full``), then ``session`` (the model's own size,
runs sized to fit one session on a T4), then ``quick`` (the smallest sizes at which every result holds). Where not
even quick mode fits, :class:`NotEnoughTimeError` says so before anything long starts, and what would fit.
Introduced in ``00_start_here.ipynb``.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from sbert_workbook.forecast.probe import Rates
from sbert_workbook.forecast.work import Step

#: The modes ``QUICK = "auto"`` chooses among, largest first.
MODES_LARGEST_FIRST = ("full", "session", "quick")
DEFAULT_BUDGET_MIN = 15
BUDGET_ENV_VAR = "SBERT_WORKBOOK_BUDGET_MIN"


class NotEnoughTimeError(RuntimeError):
    """Not even quick mode is predicted to finish within the budget on this machine; the message says what would."""


@dataclass(frozen=True)
class Forecast:
    """One mode's predicted seconds, step by step, on one device."""

    mode: str
    rates: Rates
    steps: tuple[Step, ...]
    seconds: tuple[float, ...]

    @property
    def total_s(self) -> float:
        return sum(self.seconds)

    def call_seconds(self, call: str) -> float:
        """Predicted seconds of every step the lesson function ``call`` runs."""
        return sum(s for step, s in zip(self.steps, self.seconds) if step.call == call)

    def section_seconds(self) -> dict[str, float]:
        """Predicted seconds per section, in the order the steps come."""
        sections: dict[str, float] = {}
        for step, seconds in zip(self.steps, self.seconds):
            sections[step.section] = sections.get(step.section, 0.0) + seconds
        return sections


def predict(steps: list[Step], rates: Rates, mode: str) -> Forecast:
    """Each step's seconds: its units times the rate of its kind (and model) on this device."""
    return Forecast(mode, rates, tuple(steps), tuple(rates.seconds(s.kind, s.units, s.model) for s in steps))


def budget_s(minutes: float | None = None) -> float:
    """The budget in seconds: ``minutes``, else ``SBERT_WORKBOOK_BUDGET_MIN``, else :data:`DEFAULT_BUDGET_MIN`."""
    if minutes is None:
        text = os.environ.get(BUDGET_ENV_VAR, "").strip()
        try:
            minutes = float(text) if text else DEFAULT_BUDGET_MIN
        except ValueError:
            raise ValueError(f"{BUDGET_ENV_VAR}={text!r} is not a number of minutes: set it to e.g. 15, or unset it.")
    if not minutes > 0:
        raise ValueError(f"The budget must be a positive number of minutes, got {minutes!r}.")
    return float(minutes) * 60


def duration(seconds: float) -> str:
    """'40 s', '4 min', '2.1 h': as a student reads a prediction."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def choose_mode(forecasts: dict[str, Forecast], budget: float) -> str:
    """The largest of :data:`MODES_LARGEST_FIRST` whose forecast fits ``budget`` seconds (a mode the lesson does not
    have is skipped); raises :class:`NotEnoughTimeError` when quick mode does not fit either."""
    for mode in MODES_LARGEST_FIRST:
        if mode in forecasts and forecasts[mode].total_s <= budget:
            return mode
    raise NotEnoughTimeError(f"quick mode is predicted to take {duration(forecasts['quick'].total_s)} here, "
                             f"beyond the budget of {duration(budget)}")


def forecast_line(forecasts: dict[str, Forecast], model_name: str) -> str:
    """'time on this machine (CPU, 2 cores; all-MiniLM-L6-v2): quick ≈ 4 min · session ≈ 2.1 h · full ≈ 31 h'."""
    rates = next(iter(forecasts.values())).rates
    modes = [m for m in reversed(MODES_LARGEST_FIRST) if m in forecasts]
    told = " · ".join(f"{m} ≈ {duration(forecasts[m].total_s)}" for m in modes)
    return f"time on this machine ({rates.where}; {model_name}): {told} ({rates.source})"
