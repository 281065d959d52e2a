"""Environment checks a teacher can trust: ``python -m sbert_workbook doctor`` (``00_start_here.ipynb``).

Each check returns a :class:`Check` saying what was found and, when something is wrong,
the command or setting that fixes it. A failed *essential* check (Python, torch, the
model, the data) makes the command exit non-zero.
"""
from __future__ import annotations

import os
import shutil
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pandas as pd

from sbert_workbook import settings
from sbert_workbook.data.registry import REGISTRY
from sbert_workbook.evaluation.provenance import with_provenance

MIN_PYTHON = (3, 10)
LOW_DISK_GB = 2.0
SYMBOLS = {"ok": "✓", "warn": "!", "fail": "✗"}


@dataclass
class Check:
    """One finding: ``status`` is ok, warn or fail; ``fix`` says what to do when it is not ok."""

    name: str
    status: str
    detail: str
    fix: str = ""
    essential: bool = False

    def line(self) -> str:
        text = f"{SYMBOLS[self.status]} {self.name}: {self.detail}"
        return text + (f"\n    fix: {self.fix}" if self.fix and self.status != "ok" else "")


@dataclass
class DoctorReport:
    """All checks; ``ok`` is False when an essential check failed."""

    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems(essential_only=True)

    def problems(self, essential_only: bool = False) -> list[Check]:
        return [c for c in self.checks if c.status == "fail" and (c.essential or not essential_only)]

    def table(self) -> pd.DataFrame:
        """One row per check; its provenance (the table's caption) says that no model or data was scored."""
        table = pd.DataFrame([asdict(c) for c in self.checks]).set_index("name")
        return with_provenance(table, model="none (checks of this environment; the 'model' row says which model was found)",
                               pooling="n/a", aggregation="n/a (nothing scored)",
                               split="n/a (data files are checked for presence, not read for scores)")

    def __str__(self) -> str:
        verdict = "All essential checks passed." if self.ok else \
            f"{len(self.problems(True))} essential problem(s): the notebooks will not run until they are fixed."
        return "\n".join([c.line() for c in self.checks] + [verdict])


def check_python() -> Check:
    version = ".".join(map(str, sys.version_info[:3]))
    if sys.version_info < MIN_PYTHON:
        return Check("Python", "fail", f"Python {version} at {sys.executable}", "install Python >= 3.10 and recreate the "
                     "environment (PYTHON=/path/to/python3.11 ./workbook lab)", essential=True)
    return Check("Python", "ok", f"Python {version} at {sys.executable}", essential=True)


def check_torch() -> Check:
    try:
        import torch
    except ImportError as error:
        return Check("torch", "fail", f"torch cannot be imported ({error})",
                     "pip install -c constraints.txt torch (or the CUDA build from pytorch.org)", essential=True)
    build = f"CUDA {torch.version.cuda}" if torch.version.cuda else "CPU-only build"
    return Check("torch", "ok", f"torch {torch.__version__} ({build})", essential=True)


def check_onnx_backend() -> Check:
    """Whether ``load_encoder(..., backend="onnx")`` (faster CPU encoding, same vectors) can run."""
    from sbert_workbook.encoding.onnx_backend import import_onnxruntime

    try:
        onnxruntime = import_onnxruntime()
    except ImportError:
        return Check("ONNX backend", "warn", "backend='onnx' is unavailable; backend='torch' works (slower on the CPU)",
                     "pip install onnx onnxruntime")
    return Check("ONNX backend", "ok", f"onnxruntime {onnxruntime.__version__}: load_encoder(..., backend='onnx') "
                 "encodes faster on the CPU")


def check_glove() -> Check:
    """Whether the GloVe 6B 50-d vectors (the averaged-GloVe baseline of notebooks 02, 03 and 05) are installed."""
    from sbert_workbook.encoding.glove import GLOVE_INSTALL, GloveNotInstalledError, glove_root, load_glove

    try:
        glove = load_glove(glove_root())
    except (GloveNotInstalledError, FileNotFoundError, ValueError) as error:
        return Check("GloVe vectors", "warn", f"{str(error).split(' To fix:')[0]} Notebooks 02, 03 and 05 skip their "
                     "GloVe sections", GLOVE_INSTALL)
    return Check("GloVe vectors", "ok", f"{len(glove.words)} words × {glove.dim} dims from {glove.source}")


def check_device(requested: str | None = None) -> Check:
    """Which device and precision the notebooks will use; a GPU that torch cannot see is flagged."""
    from sbert_workbook.devices import pick_device, precision_name

    try:
        device = pick_device(requested)
    except RuntimeError as error:
        return Check("device", "fail", str(error), "pass DEVICE=None (or 'cpu'), or install a CUDA build of torch", essential=True)
    import torch

    detail = f"{device} with {precision_name(device)}"
    if device.type == "cuda":
        detail += f" ({torch.cuda.get_device_name(device)})"
    if device.type == "cpu" and shutil.which("nvidia-smi"):
        return Check("device", "warn", detail + "; an NVIDIA driver is present but this torch sees no GPU",
                     "install a CUDA build of torch: https://pytorch.org/get-started/locally/")
    return Check("device", "ok", detail + ("" if device.type != "cpu" else "; quick mode keeps CPU runs short"))


def check_widgets() -> Check:
    """ipywidgets importable and the JupyterLab front-end parts (widgets manager, plotly renderer) installed."""
    try:
        import ipywidgets
    except ImportError:
        return Check("widgets", "fail", "ipywidgets is not installed", "pip install 'ipywidgets>=8.1' jupyterlab_widgets")
    extensions = Path(sys.prefix) / "share" / "jupyter" / "labextensions"
    missing = [name for name, folder in (("jupyterlab_widgets", "@jupyter-widgets/jupyterlab-manager"),
                                         ("plotly", "jupyterlab-plotly")) if not (extensions / folder).is_dir()]
    detail = f"ipywidgets {ipywidgets.__version__}"
    if missing:
        return Check("widgets", "warn", f"{detail}; JupyterLab extensions missing in {extensions}: {', '.join(missing)}",
                     f"pip install {' '.join(missing)} and restart JupyterLab (on Colab the setup cell enables widgets)")
    return Check("widgets", "ok", f"{detail}; JupyterLab widget manager and plotly renderer installed")


def check_model(name: str = "auto") -> Check:
    """Which folder ``name`` resolves to, and why; the error's advice when it resolves to nothing."""
    from sbert_workbook.encoding.resolve import AUTO_PREFERRED_MODEL, ModelNotFoundError, resolve_model

    try:
        resolved = resolve_model(name)
    except ModelNotFoundError as error:
        return Check(f"model {name!r}", "fail", str(error).split(" To fix:")[0],
                     _fix_from(str(error), "pass MODEL='embedded' or a folder holding config.json"), essential=True)
    detail = f"{resolved.model_id} from the {resolved.source} ({resolved.path}); {resolved.reason}"
    if name == "auto" and resolved.source == "embedded package":
        return Check(f"model {name!r}", "warn", detail,
                     f"to run the raw-BERT baselines, fetch {AUTO_PREFERRED_MODEL} once while online: "
                     f"python -m sbert_workbook predownload --models {AUTO_PREFERRED_MODEL}", essential=True)
    return Check(f"model {name!r}", "ok", detail, essential=True)


def check_data(name: str, data_dir=None) -> Check:
    """Where registry data set ``name`` was found locally, or whether the hub can supply it."""
    from sbert_workbook.data.finding import DATA_ENV_VAR, find_local
    from sbert_workbook.data.hub import hub_copy_is_cached

    entry = REGISTRY[name]
    path = find_local(name, data_dir)
    if path is not None:
        return Check(f"data {name}", "ok", f"{entry.description}: {path}", essential=True)
    if entry.hub_id and settings.hub_is_reachable():
        return Check(f"data {name}", "ok", f"not found locally; will be downloaded from the hub ({entry.hub_id}) on first use",
                     essential=True)
    if entry.hub_id and hub_copy_is_cached(name):
        return Check(f"data {name}", "ok", f"{entry.description}: the hub copy {entry.hub_id} from the datasets cache (offline)",
                     essential=True)
    where = f"the hub copy {entry.hub_id} (offline now, not cached)" if entry.hub_id else "no hub copy exists"
    return Check(f"data {name}", "fail" if entry.essential else "warn",
                 f"{entry.description}: not found locally ('{entry.local_path}' under any data root) "
                 f"and {where}",
                 f"set {DATA_ENV_VAR} to the folder that holds '{entry.local_path}' (or pass --data-dir), "
                 "or run `python -m sbert_workbook predownload` once while online", essential=entry.essential)


def check_caches() -> Check:
    """Where Hugging Face keeps models and data sets, and whether there is room to write."""
    from huggingface_hub import constants

    datasets_cache = os.environ.get("HF_DATASETS_CACHE", str(Path(constants.HF_HOME) / "datasets"))
    offline = settings.hub_offline_flag()
    detail = (f"HF_HOME={constants.HF_HOME}; models in HF_HUB_CACHE={constants.HF_HUB_CACHE}; "
              f"data sets in HF_DATASETS_CACHE={datasets_cache}; HF_HUB_OFFLINE={'on' if offline else 'off'}")
    existing = next((p for p in (Path(constants.HF_HUB_CACHE), *Path(constants.HF_HUB_CACHE).parents) if p.exists()), Path("/"))
    free_gb = shutil.disk_usage(existing).free / 1e9
    detail += f"; {free_gb:.1f} GB free"
    if not os.access(existing, os.W_OK):
        return Check("caches", "warn", detail + f"; {existing} is not writable",
                     "set HF_HOME to a writable folder (e.g. export HF_HOME=$HOME/hf-cache)")
    if free_gb < LOW_DISK_GB:
        return Check("caches", "warn", detail, f"free at least {LOW_DISK_GB:g} GB or point HF_HOME at a larger disk "
                     "(bert-base-uncased needs 0.44 GB)")
    return Check("caches", "ok", detail)


def run_checks(model: str = "auto", data_dir=None, device: str | None = None, datasets=None) -> DoctorReport:
    """Every check, in the order a teacher reads them."""
    checks = [check_python(), check_torch(), check_device(device), check_onnx_backend(), check_glove(), check_widgets(),
              check_model(model)]
    checks += [check_data(name, data_dir) for name in (datasets or REGISTRY)]
    checks.append(check_caches())
    checks.append(check_time(model, device))
    return DoctorReport(checks)


def check_time(model: str = "auto", device: str | None = None) -> Check:
    """What the notebooks' quick mode is predicted to take on this machine with the model ``auto`` resolves to (the
    lessons' own forecast, :func:`sbert_workbook.forecast.lessons.path_forecast`)."""
    from sbert_workbook.forecast.lessons import path_forecast

    try:
        return Check("time", "ok", path_forecast(model, device))
    except Exception as error:  # noqa: BLE001 - a model that does not resolve is the model row's problem
        return Check("time", "warn", f"no prediction: {error}", "fix the model row first")


def _fix_from(message: str, default: str) -> str:
    return message.split("To fix:", 1)[1].strip() if "To fix:" in message else default


def widget_check_figure(degrees: float = 60.0):
    """Two unit vectors ``degrees`` apart and their cosine: the live plot a slider moves in ``00_start_here``.

    If moving the slider redraws this figure, ipywidgets and plotly both work in this front end.
    """
    import math

    import plotly.graph_objects as go

    theta = math.radians(degrees)
    figure = go.Figure()
    for name, (x, y) in (("u", (1.0, 0.0)), ("v", (math.cos(theta), math.sin(theta)))):
        figure.add_trace(go.Scatter(x=[0, x], y=[0, y], mode="lines+markers+text", name=name, text=["", name],
                                    textposition="top center"))
    figure.update_layout(title=f"angle {degrees:g}°, cos = {math.cos(theta):.3f}", xaxis_range=[-1.1, 1.1],
                         yaxis_range=[-1.1, 1.1], yaxis_scaleanchor="x", width=420, height=420, showlegend=False)
    return figure
