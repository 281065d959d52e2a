"""A lesson's set-up in one call: device, quick or full mode, seed, table captions, and the lesson's sizes.

Every notebook's set-up cell is one hidden call, ``lesson = nbNN.begin(QUICK, MODEL, SEED, DEVICE, SIZES)``, and each
``sbert_workbook/lessons/nbNN`` module's ``begin`` starts with :func:`begin` here, then loads what its lesson needs.
It prints what a student should know before the first result: what each mode is predicted to take on this machine
with this model (:mod:`sbert_workbook.forecast.lessons`), which mode runs and why, whether the lesson fits in this
machine's memory (or stops, saying what to change), the device, the sizes this run
uses (from the lesson's manifest, with the parameters cell's ``SIZES`` applied) and how to change them.
Introduced in ``00_start_here.ipynb``.
"""
from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch

from sbert_workbook.environment.memory import check_memory
from sbert_workbook.devices import pick_device, precision_name
from sbert_workbook.encoding.resolve import ModelNotFoundError
from sbert_workbook.evaluation.provenance import show_provenance_captions
from sbert_workbook.forecast.cells import CellClock, install, log_line
from sbert_workbook.forecast.predict import Forecast
from sbert_workbook.forecast.lessons import lesson_forecasts, lesson_mode
from sbert_workbook.lessons.manifest import Manifest, manifest
from sbert_workbook.settings import set_seed


class Sizes(Mapping):
    """The sizes a run uses, read as attributes (``lesson.sizes.STEPS``) or as a mapping; each knows what it counts."""

    def __init__(self, values: dict[str, Any], described: dict[str, str]):
        self._values, self._described = dict(values), dict(described)

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["_values"][name]
        except KeyError:
            raise AttributeError(f"This lesson has no size {name!r}; its sizes: {', '.join(self._values)}.") from None

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def lines(self) -> list[str]:
        """``NAME = value   what it counts`` for every size, aligned."""
        width = max((len(f"{name} = {value!r}") for name, value in self._values.items()), default=0)
        return [f"  {f'{name} = {value!r}':<{width}}   {self._described[name]}" for name, value in self._values.items()]


@dataclass
class Lesson:
    """What every lesson's set-up returns; each lesson module adds its own models and data in a subclass."""

    notebook: str
    quick: bool
    device: torch.device
    seed: int
    model: str  # MODEL as the parameters cell gave it ("auto", "embedded", a hub id or a folder)
    sizes: Sizes
    manifest: Manifest = field(repr=False)
    mode: str  # "quick", "session" or "full"
    #: This run's predicted seconds, step by step (None for a lesson with no long step); forecast.timed reads it.
    forecast: Forecast | None = field(repr=False)


def begin(notebook: str, quick: bool | str = "auto", model: str = "auto", seed: int = 0, device=None,
          sizes: dict[str, Any] | None = None, announce: bool = True) -> Lesson:
    """Resolve the device, predict each mode's time here and pick the mode (:mod:`sbert_workbook.forecast.lessons`),
    say whether the lesson fits in this machine's memory (before anything is loaded:
    :func:`sbert_workbook.environment.memory.check_memory`), seed everything, turn on table captions and fix the sizes; print
    them."""
    started = time.perf_counter()
    device = pick_device(device)
    lesson_manifest = manifest(notebook)
    try:
        forecasts, no_forecast = lesson_forecasts(lesson_manifest, sizes, model, device, with_probe=True), ""
    except ModelNotFoundError:  # the lesson's own load of MODEL raises it again, saying what to do
        forecasts, no_forecast = {}, f"no forecast: MODEL = {model!r} was not found"
    model_name = next(iter(forecasts.values())).rates.models.get("lesson", model) if forecasts else model
    mode = lesson_mode(lesson_manifest, quick, device, forecasts, model_name, announce=announce, sizes=sizes,
                       no_forecast=no_forecast)
    if announce:
        check_memory(notebook, model, mode == "quick")
    set_seed(seed)
    show_provenance_captions()
    chosen = Sizes(lesson_manifest.sizes_for(mode, sizes),
                   {name: size.what for name, size in lesson_manifest.sizes.items()})
    if announce:
        print(f"device: {device} ({precision_name(device)}); seed {seed}")
        if chosen:
            changed = [name for name in chosen if chosen[name] != lesson_manifest.sizes[name].value(mode)]
            print(f"sizes ({mode} mode{'; changed by SIZES: ' + ', '.join(changed) if changed else ''}; "
                  "change one with SIZES = {\"NAME\": value} in the parameters cell):")
            print("\n".join(chosen.lines()))
    forecast = forecasts.get(mode)
    if forecast is not None:
        log_line({"notebook": lesson_manifest.notebook, "mode": mode, "where": forecast.rates.where,
                  "model": forecast.rates.models.get("lesson"), "predicted_s": round(forecast.total_s, 1),
                  "sections": {k: round(v, 2) for k, v in forecast.section_seconds().items()}})
        install(CellClock(lesson_manifest.notebook, forecast), setup_started=started)
    return Lesson(lesson_manifest.notebook, mode == "quick", device, seed, model, chosen, lesson_manifest, mode, forecast)
