"""A lesson's forecast at its set-up: probe this device with the model that will run, predict every mode, pick one.

:func:`lesson_forecasts` turns the manifest's ``work`` into a :class:`~sbert_workbook.forecast.predict.Forecast` per
mode the lesson has; :func:`lesson_mode` decides the mode (``QUICK`` and ``SBERT_WORKBOOK_QUICK`` first, then the
largest mode that fits the budget) and prints the prediction and why, or stops before anything long starts when
not even quick mode fits, naming what would. Used by :func:`sbert_workbook.lessons.setup.begin`, ``doctor`` and ``classroom``; introduced in ``00_start_here.ipynb``.
"""
from __future__ import annotations

import os
from typing import Any

import torch

from sbert_workbook.forecast.predict import (BUDGET_ENV_VAR, Forecast, NotEnoughTimeError, budget_s, choose_mode,
                                             duration, forecast_line, predict)
from sbert_workbook.forecast.probe import Rates, probe_rates, stated_gpu_rates
from sbert_workbook.encoding.resolve import AUTO_PREFERRED_MODEL, EMBEDDED_MODEL_ID
from sbert_workbook.forecast.work import BERT_BASE, EMBEDDED, ModelShape, Plan, Step
from sbert_workbook.lessons.manifest import Manifest
from sbert_workbook.settings import QUICK_AUTO, quick_from_env

#: What ``QUICK`` may say besides True, False and "auto": the session tier by name.
SESSION = "session"
#: In-process cache of probed rates: {(device, folders): Rates}, so a kernel that runs several set-ups probes once.
_PROBED: dict[tuple, Rates] = {}


def transformer_folder(model: str) -> tuple[str, Any]:
    """(the model's id, its transformer's folder) for a MODEL name, as the encoder would load it; nothing is loaded."""
    from sbert_workbook.encoding import quiet_loading
    from sbert_workbook.encoding.resolve import resolve_model

    resolved = resolve_model(model)
    return resolved.model_id, quiet_loading.transformer_folder(resolved)


def model_folders(model: str) -> dict[str, tuple[str, Any]]:
    """``{"lesson": (id, folder), "embedded": (id, folder)}``: MODEL and the embedded model some sections use."""
    return {"lesson": transformer_folder(model), "embedded": transformer_folder("embedded")}


def rates_for(folders: dict[str, tuple[str, Any]], device: torch.device) -> Rates:
    """This device's rates for these models, probed once per kernel (``SBERT_WORKBOOK_STATED_GPU=T4`` prices a GPU
    by its stated throughput instead: how the tests stand in for one)."""
    stated = os.environ.get("SBERT_WORKBOOK_STATED_GPU", "").strip()
    if stated:
        return stated_gpu_rates(stated, {role: ModelShape.of_folder(folder, name) for role, (name, folder) in folders.items()})
    key = (str(device), tuple(sorted((role, str(folder)) for role, (_, folder) in folders.items())))
    if key not in _PROBED:
        _PROBED[key] = probe_rates(folders, device)
    return _PROBED[key]


def lesson_modes(lesson_manifest: Manifest) -> tuple[str, ...]:
    return ("quick", SESSION, "full") if lesson_manifest.has_session_mode else ("quick", "full")


def lesson_forecasts(lesson_manifest: Manifest, sizes: dict[str, Any] | None, model: str, device: torch.device,
                     rates: Rates | None = None, with_probe: bool = False) -> dict[str, Forecast]:
    """The forecast of every mode the lesson has, on ``device`` with MODEL (``{}`` for a lesson with no long step).
    ``with_probe``: the set-up's own forecast, which counts the probe that priced it (seconds already spent in the
    notebook; a second forecast in the same kernel reuses the probe and would count it twice)."""
    if lesson_manifest.work is None:
        return {}
    folders = model_folders(model)
    rates = rates or rates_for(folders, device)
    name, folder = folders["lesson"]
    shape = ModelShape.of_folder(folder, name)
    embedded = str(folder) == str(folders["embedded"][1])
    probe = [Step("setup", "begin(", "the probe that priced this forecast", "cpu", rates.probe_s / rates.cpu_factor)]
    return {mode: predict(lesson_manifest.work(lesson_manifest.sizes_for(mode, sizes), Plan(mode, shape, device.type, embedded, str(model)))
                          + (probe if with_probe and rates.probe_s else []), rates, mode)
            for mode in lesson_modes(lesson_manifest)}


def embedded_quick_s(lesson_manifest: Manifest, sizes: dict[str, Any] | None, device: torch.device, rates: Rates) -> float:
    """Quick mode's predicted seconds here had MODEL been the embedded model: what a student can switch to."""
    embedded_rates = Rates(rates.where, {"lesson": rates.encode_s_per_token["embedded"], "embedded": rates.encode_s_per_token["embedded"]},
                           {"lesson": rates.train_s_per_token["embedded"], "embedded": rates.train_s_per_token["embedded"]},
                           rates.cpu_factor, rates.source, rates.probe_s, {"lesson": EMBEDDED.name, "embedded": EMBEDDED.name})
    plan = Plan("quick", EMBEDDED, device.type, True, "embedded")
    return predict(lesson_manifest.work(lesson_manifest.sizes_for("quick", sizes), plan), embedded_rates, "quick").total_s


def reference_forecast(lesson_manifest: Manifest, shape: ModelShape, mode: str = "quick",
                       sizes: dict[str, Any] | None = None) -> Forecast:
    """``mode``'s forecast on the reference 2 cores with ``shape`` (the embedded model or bert-base), at the rates
    ``tools/forecast_check.py --calibrate`` measured there (``cpu_seconds.json``'s reference rates), nothing probed:
    what TEACHING's table for a room on bert-base and ``tools/forecast_check.py --refit`` read."""
    from sbert_workbook.forecast.reference import calibration, lesson_encode_factor

    measured = calibration()["reference rates"]
    lesson_id = REFERENCE_IDS.get(shape.name)
    if lesson_id is None:
        raise KeyError(f"No reference rates for {shape.name}: the calibration measured {', '.join(REFERENCE_IDS)}.")
    factor = {"encode_s_per_token": lesson_encode_factor(), "train_s_per_token": 1.0}
    per_token = {kind: {"lesson": measured[lesson_id][kind] * factor[kind],
                        "embedded": measured[REFERENCE_IDS[EMBEDDED.name]][kind] * factor[kind]}
                 for kind in ("encode_s_per_token", "train_s_per_token")}
    rates = Rates("the reference 2 cores", per_token["encode_s_per_token"], per_token["train_s_per_token"], 1.0,
                  "the calibration's reference rates")
    plan = Plan(mode, shape, "cpu", shape.name == EMBEDDED.name)
    return predict(lesson_manifest.work(lesson_manifest.sizes_for(mode, sizes), plan), rates, mode)


#: The model ids the calibration's reference rates are stored under, by ModelShape name.
REFERENCE_IDS = {EMBEDDED.name: EMBEDDED_MODEL_ID, BERT_BASE.name: AUTO_PREFERRED_MODEL}


def asked_mode(parameter, device: torch.device) -> tuple[str | None, str]:
    """(the mode QUICK or the environment asks for, or None for "choose by the forecast"; why)."""
    from_env, as_set = quick_from_env()
    if from_env is True:
        return "quick", f"{as_set} is set; unset it to choose by the forecast"
    if isinstance(parameter, bool):
        return ("quick" if parameter else "full"), (f"QUICK = {parameter}; QUICK = \"auto\" runs the largest mode "
                                                    "predicted to fit the budget")
    if parameter == SESSION:
        return SESSION, "QUICK = \"session\"; QUICK = \"auto\" runs the largest mode predicted to fit the budget"
    if parameter not in (None, QUICK_AUTO):
        raise ValueError(f"QUICK = {parameter!r} is not understood: use True (quick), \"session\" (the model's own size, "
                         "cut to fit a session on a GPU), False (the papers' recipe) or \"auto\" (the largest that fits "
                         "the budget on this machine).")
    if from_env is False:
        return "full", f"{as_set} asks for full mode"
    return None, ""


def lesson_mode(lesson_manifest: Manifest, parameter, device: torch.device, forecasts: dict[str, Forecast],
                model_name: str, announce: bool = True, sizes: dict[str, Any] | None = None, no_forecast: str = "") -> str:
    """The mode this run takes (see the module); prints the forecast line and one line saying which mode and why.
    ``no_forecast`` says why a lesson with long steps has no forecast (then ``auto`` runs quick mode)."""
    mode, why = asked_mode(parameter, device)
    if mode == SESSION and SESSION not in lesson_modes(lesson_manifest):
        mode, why = "full", why + f" (lesson {lesson_manifest.number} has no session sizes: its full mode is short)"
    if mode is None and not forecasts:
        mode, why = "quick", no_forecast or "no long step in this lesson"
    elif mode is None:
        budget = budget_s()
        try:
            mode = choose_mode(forecasts, budget)
        except NotEnoughTimeError as short:
            embedded_s = embedded_quick_s(lesson_manifest, sizes, device, forecasts["quick"].rates)
            raise NotEnoughTimeError(not_enough_time_message(lesson_manifest, forecasts, budget, str(short),
                                                             embedded_s)) from None
        why = (f"QUICK = \"auto\": the largest mode predicted to fit the budget of {duration(budget)} a notebook "
               f"({BUDGET_ENV_VAR} changes it); QUICK = True, \"session\" or False runs one mode")
    if announce:
        if forecasts:
            print(forecast_line(forecasts, model_name))
        print(f"quick mode: {'on' if mode == 'quick' else 'off'} ({mode} mode; {why})")
        if forecasts and mode in forecasts and forecasts[mode].total_s > budget_s():
            print(f"  note: {mode} mode is predicted to take {duration(forecasts[mode].total_s)} here, beyond the "
                  f"budget of {duration(budget_s())}.")
    return mode


def not_enough_time_message(lesson_manifest: Manifest, forecasts: dict[str, Forecast], budget: float, short: str,
                             embedded_s: float) -> str:
    """What a student reads when not even quick mode fits: the prediction, and what would fit instead."""
    quick = forecasts["quick"]
    slowest = sorted(quick.section_seconds().items(), key=lambda item: -item[1])[:2]
    sections = ", ".join(f"§{section} ≈ {duration(seconds)}" for section, seconds in slowest if section != "rest")
    model = quick.rates.models.get("lesson", "MODEL")
    embedded = (f"MODEL = \"embedded\" (the small model the workbook ships: quick mode ≈ {duration(embedded_s)} here)"
                if model != EMBEDDED.name else "")
    others = "; ".join(part for part in (embedded, "a GPU runtime (on Colab: Runtime > Change runtime type)",
                                         f"a larger budget ({BUDGET_ENV_VAR}=60)") if part)
    return (f"Notebook {lesson_manifest.notebook}: {short} on {quick.rates.where} with {model}"
            + (f" (most of it {sections})" if sections else "") + f". Nothing long has started. What would fit: {others}; "
            "or QUICK = True runs quick mode anyway.")


def path_forecast(model: str = "auto", device: torch.device | None = None) -> str:
    """One line for ``doctor`` and ``classroom``: each notebook's quick mode predicted here with the model ``model``
    resolves to, and their sum (a probe of a few seconds)."""
    from sbert_workbook.devices import pick_device
    from sbert_workbook.lessons.manifest import all_manifests

    device = pick_device(device)
    parts, total, rates = [], 0.0, None
    for lesson_manifest in all_manifests():
        forecasts = lesson_forecasts(lesson_manifest, None, model, device)
        if not forecasts:
            continue
        quick = forecasts["quick"]
        rates = quick.rates
        total += quick.total_s
        parts.append(f"{lesson_manifest.number} {duration(quick.total_s)}")
    if rates is None:
        return "no lesson declares its work"
    return (f"every notebook in quick mode on {rates.where} with {rates.models.get('lesson', model)}: about "
            f"{duration(total)} ({', '.join(parts)}; {rates.source})")
