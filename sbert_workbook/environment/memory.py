"""Will this notebook fit? Its measured peak beside the memory this machine has, said before anything is loaded.

A notebook's set-up calls :func:`check_memory` (``00_start_here.ipynb`` shows it): it reads the kernel peak measured
for that notebook in quick mode (``notebook_peaks.json``, shipped in the package and written by
``tools/notebook_memory.py``) for the model ``MODEL`` stands for (the embedded all-MiniLM-L6-v2, bert-base-uncased,
or another model scaled by its parameter count), compares it with :func:`available_gb` (a container's limit
included, :mod:`sbert_workbook.environment.free_memory`), prints one line when it fits, and otherwise raises
:class:`NotEnoughMemoryError` saying what to change, before a kernel dies half-way through a lesson.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from sbert_workbook.environment.free_memory import GB, FreeMemory, free_memory
from sbert_workbook.environment.resident import resident_bytes
from sbert_workbook.forecast.work import ModelShape

PEAKS_FILE = Path(__file__).with_name("notebook_peaks.json")
EMBEDDED, BERT_BASE = "embedded", "bert-base-uncased"
#: ``warn``: a notebook that does not fit prints the message instead of stopping (``off``: no check at all).
CHECK_ENV_VAR = "SBERT_WORKBOOK_MEMORY_CHECK"


class NotEnoughMemoryError(MemoryError):
    """A notebook's measured peak is more than this machine has free; the message says what to change."""


@dataclass(frozen=True)
class Peak:
    """A notebook's kernel peak in GB for a model, and how it was found (measured, or scaled from measured ones)."""

    gb: float
    model: str
    how: str


def available_gb() -> float | None:
    """GB this process can still take (a container's limit counted; None where the system does not say)."""
    found = free_memory()
    return None if found is None else round(found.gb, 2)


def write_peaks(path: Path, peaks_mb: dict[str, dict[str, float]], wall_s: dict[str, dict[str, float]],
                time_is_upper_bound: dict[str, dict[str, bool]] | None = None) -> None:
    """Store each notebook's quick-mode peak (MB) and seconds per model kind, with each kind's parameter count;
    ``time_is_upper_bound`` marks the seconds of a run slowed on purpose (one torch thread beside another run)."""
    stored = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {"models": {}}
    for model, notebooks in peaks_mb.items():
        entry = stored["models"].setdefault(model, {"parameters_m": PARAMETERS_M[model], "peak_mb": {}, "wall_s": {}})
        entry["peak_mb"].update(notebooks)
        entry["wall_s"].update(wall_s.get(model, {}))
        entry.setdefault("time_is_upper_bound", {}).update((time_is_upper_bound or {}).get(model, {}))
    path.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n", encoding="utf-8")


#: Parameters (millions) of the two measured models (BertModel: all-MiniLM-L6-v2 22.7, bert-base-uncased 109.5).
PARAMETERS_M = {EMBEDDED: 22.7, BERT_BASE: 109.5}


def measured_peaks(path: Path = PEAKS_FILE) -> dict:
    """``{model kind: {"parameters_m", "peak_mb": {notebook: MB}, "wall_s": ...}}`` as shipped (``{}`` before any
    notebook was measured)."""
    return json.loads(path.read_text(encoding="utf-8"))["models"] if path.is_file() else {}


def notebook_key(notebook: str, peaks: dict) -> str | None:
    """The stored name of ``notebook`` (``"06"``, ``"06_contrastive_simcse"`` or its file name), or None."""
    prefix = Path(str(notebook)).name[:2]
    names = {name for kind in peaks.values() for name in kind["peak_mb"]}
    return next((name for name in sorted(names) if name[:2] == prefix), None)


def model_kind(model) -> tuple[str, float | None]:
    """(``"embedded"``, ``"bert-base-uncased"`` or the model's name, its parameters in millions where known) for a
    ``MODEL`` value or a resolved model; ``"auto"`` is what it stands for here, found without downloading."""
    from sbert_workbook.encoding.resolve import EMBEDDED_ALIASES, EMBEDDED_MODEL_ID, auto_model_name

    name, folder = (model.model_id, model.path) if hasattr(model, "model_id") else (str(model).strip(), None)
    if name == "auto":
        name = auto_model_name()
    if name.lower() in EMBEDDED_ALIASES or name == EMBEDDED_MODEL_ID:
        return EMBEDDED, PARAMETERS_M[EMBEDDED]
    if name == BERT_BASE:
        return BERT_BASE, PARAMETERS_M[BERT_BASE]
    try:
        folder = Path(folder or _local_folder(name))
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        shape = ModelShape.of_folder(folder, name)
    except (TypeError, OSError, ValueError):  # no folder, no config.json, or one that does not parse
        return name, None
    if not {"hidden_size", "dim"} & set(config):  # an architecture whose width is not read here: unknown, not guessed
        return name, None
    return name, round(shape.parameters_with_embeddings / 1e6, 1)


def _local_folder(name: str) -> Path | None:
    if Path(name).expanduser().is_dir():
        return Path(name).expanduser()
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(name, allow_patterns=["config.json"], local_files_only=True))
    except Exception:  # noqa: BLE001 - not cached (or not a hub id): its size is unknown until it is fetched
        return None


def notebook_peak(notebook: str, model, peaks: dict | None = None) -> Peak | None:
    """The kernel peak of ``notebook`` in quick mode with ``model``: measured for the embedded model and
    bert-base-uncased, scaled by parameter count between them for another model, None when neither can be said."""
    peaks = peaks if peaks is not None else measured_peaks()
    key, (kind, parameters) = notebook_key(notebook, peaks), model_kind(model)
    if key is None:
        return None
    if kind in peaks and key in peaks[kind]["peak_mb"]:
        return Peak(peaks[kind]["peak_mb"][key] / 1024, kind, "measured")
    small, large = peaks.get(EMBEDDED, {}), peaks.get(BERT_BASE, {})
    if parameters is None or key not in small.get("peak_mb", {}) or key not in large.get("peak_mb", {}):
        return None
    slope = (large["peak_mb"][key] - small["peak_mb"][key]) / (large["parameters_m"] - small["parameters_m"])
    estimate = small["peak_mb"][key] + slope * max(parameters - small["parameters_m"], 0)
    return Peak(estimate / 1024, kind, f"estimated from its {parameters:.0f} M parameters")


def check_memory(notebook: str, model="auto", quick: bool = True, free: FreeMemory | None = None,
                 peaks: dict | None = None) -> str:
    """Say whether ``notebook`` (``"06"`` or its name) fits in the memory this machine has with ``model`` (the
    ``MODEL`` parameter or a resolved model): the line printed when it does; :class:`NotEnoughMemoryError` when its
    peak is more than what is free (``SBERT_WORKBOOK_MEMORY_CHECK=warn`` prints that instead, ``=off`` skips it)."""
    mode = os.environ.get(CHECK_ENV_VAR, "").strip().lower()
    if mode == "off":
        return ""
    line, fits = memory_verdict(notebook, model, quick, free if free is not None else free_memory(), peaks)
    if not fits and mode != "warn":
        raise NotEnoughMemoryError(line)
    print(line)
    return line


def memory_verdict(notebook: str, model, quick: bool, free: FreeMemory | None, peaks: dict | None) -> tuple[str, bool]:
    """(the line to show, whether it fits) for :func:`check_memory`."""
    peaks = peaks if peaks is not None else measured_peaks()
    peak = notebook_peak(notebook, model, peaks)
    name = Path(str(notebook)).name[:2]
    if peak is None:
        return f"memory: {name} has not been measured with {model_kind(model)[0]}; watch the kernel's memory.", True
    if free is None:
        return f"memory: {name} peaked at {peak.gb:.1f} GB with {peak.model} in quick mode ({peak.how}); this " \
               "system does not say how much is free.", True
    needed = peak.gb - resident_bytes(os.getpid()) / GB  # this kernel already holds part of its peak
    said = (f"{name} peaked at {peak.gb:.1f} GB with {peak.model} in quick mode ({peak.how}); {free.gb:.1f} GB is "
            f"free here ({free.source})")
    if not quick:
        return f"memory: {said}. Full mode was not measured and needs more: watch the kernel's memory.", True
    if needed <= free.gb:
        return f"memory: {said}: it fits.", True
    return f"memory: {said}: it does not fit. {advice(name, peak, peaks)}", False


def advice(name: str, peak: Peak, peaks: dict) -> str:
    """What to change when a notebook does not fit: a smaller model where one was measured, else free memory."""
    embedded = peaks.get(EMBEDDED, {}).get("peak_mb", {}).get(notebook_key(name, peaks))
    close = "close other programs and shut down other notebooks' kernels (Kernel > Shut Down All Kernels)"
    run_anyway = f"; or set {CHECK_ENV_VAR}=warn to run it anyway"
    if peak.model != EMBEDDED and embedded is not None:
        return f'Set MODEL = "embedded" (peak {embedded / 1024:.1f} GB) or {close}{run_anyway}.'
    return f"{close[0].upper()}{close[1:]}, or run it on a machine with more memory{run_anyway}."
