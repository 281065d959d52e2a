"""Calibrate the forecast on the reference machine, and hold its predictions to measured runs.

    python tools/forecast_check.py --calibrate                  # rates for the CPU work, from micro-benchmarks and
                                                               # quick runs with the embedded model
    python tools/forecast_check.py --validate [--variant standin] [--mode full | full_on_cpu] [--only 05 ...]
    python tools/forecast_check.py --refit [--only 05 ...]      # the lessons' encode factor, own rates and rests again
                                                               # from the last embedded quick runs (no run)
    python tools/forecast_check.py --umap                       # only UMAP's rate (a micro-benchmark of --calibrate)
    python tools/forecast_check.py --markdown                   # the stored rows as docs/measurements.md's table
    python tools/forecast_check.py --reference-table --auto-picks  # the last runs at the reference rates; auto's picks

``--calibrate`` measures, alone on the reference machine: the CPU workload the probe compares with
(``cpu workload s``), how far an encode and a training step run from the probe's per-token rates (``efficiency``,
from benchmarks of the encoder and a training run), and the seconds per unit of each kind of CPU work the manifests'
``work`` functions name: shared kinds (bootstraps, flow steps, model loads, 04's random-init students) from
micro-benchmarks; then it runs every notebook in quick mode with the embedded model and does what ``--refit`` does
with those runs. It writes ``sbert_workbook/forecast/cpu_seconds.json``.

``--refit`` fits, from the last quick runs with the embedded model (their executed copies, at the reference rates):
the lessons' encode factor (how much longer the cells that mostly encode take than the encode rate predicts: a
lesson tokenizes, pads, keeps every layer's states, pools; the bert-base stand-in's runs check it), then each
lesson's own rates (a cell's time less its other predicted work, over the rate's units) and its ``rest`` (its time
outside the cells the forecast names).

``--validate`` runs each notebook (quick mode, full mode as shipped, or full mode at its ``full_on_cpu`` sizes) with
the embedded model or the bert-base-shaped stand-in, reads the set-up's prediction from ``SBERT_WORKBOOK_FORECAST_LOG``
and the cells' times from the executed copy, and appends a row per notebook to ``docs/forecast_check.json``: predicted and measured
seconds in total and per section, and their ratio. A measurement script, not a test: it takes as long as the runs.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from sbert_workbook.forecast.cells import CellClock, names_call  # noqa: E402  (the tool runs from a checkout)

RATES_FILE = ROOT / "sbert_workbook" / "forecast" / "cpu_seconds.json"
RESULTS = ROOT / "docs" / "forecast_check.json"
BUILD = ROOT / "build" / "forecast_check"


def _seconds(call, repeats: int = 3) -> float:
    """The fastest of ``repeats`` timings of ``call()``."""
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - started)
    return best


def micro_benchmarks(standin_folder: Path) -> dict:
    """Efficiencies and the shared kinds of CPU work, each timed alone (see the module)."""
    import numpy as np
    import torch

    from sbert_workbook.calibration.calibrators import FlowCalibrator
    from sbert_workbook.data import load_nli, load_sts
    from sbert_workbook.encoding.encoder import load_encoder
    from sbert_workbook.evaluation.uncertainty import paired_bootstrap
    from sbert_workbook.forecast.probe import cpu_workload, time_model
    from sbert_workbook.forecast.lessons import transformer_folder
    from sbert_workbook.training import examples
    from sbert_workbook.training.siamese import SiameseModel

    rates: dict[str, dict] = {}
    workload = min(cpu_workload() for _ in range(5))
    sentences = load_sts("stsb", "test").sentences1[:800]
    nli = examples.nli_pairs(load_nli("snli"))
    efficiency: dict[str, list[float]] = {"encode": [], "train": []}
    for name, folder in (("embedded", transformer_folder("embedded")[1]), ("bert-base stand-in", standin_folder)):
        encode_s, train_s = time_model(folder, torch.device("cpu"))
        encoder = load_encoder(str(folder) if name != "embedded" else "embedded")
        tokens = sum(len(ids) for ids in encoder.tokenizer(list(sentences))["input_ids"])
        real_encode = _seconds(lambda: encoder.encode(list(sentences), batch_size=64), 2) / tokens

        def new_model():
            model = SiameseModel.from_pretrained(encoder.resolved, announce=False)
            model.add_classifier(3)
            return model

        real_train = fit_step_seconds(new_model, nli) / (16 * 106.8)
        efficiency["encode"].append(real_encode / encode_s)
        efficiency["train"].append(real_train / train_s)
        print(f"  {name}: encode {real_encode:.2e} s/token real, {encode_s:.2e} probed; train {real_train:.2e} real, "
              f"{train_s:.2e} probed", flush=True)
        if name == "embedded":
            weights = sum(p.numel() for p in encoder.model.parameters()) / 1e6
            load_s = _seconds(lambda: load_encoder("embedded"), 3)
            rates["load per Mweight"] = {"seconds": load_s / weights, "unit": "a million weights loaded"}
            rates["fit call"] = {"seconds": fit_call_seconds(new_model, nli),
                                 "unit": "a training run's start and end, beside its steps"}
    rng = np.random.default_rng(0)
    gold, a, b = rng.random(7000), rng.random(7000), rng.random(7000)
    rates["bootstrap pair"] = {"seconds": _seconds(lambda: paired_bootstrap(gold, a, b), 2) / 7000,
                               "unit": "a test pair in a paired bootstrap of 2,000 resamples"}
    vectors = torch.randn(3200, 384)
    flow_s = _seconds(lambda: FlowCalibrator(epochs=1.0).fit(vectors), 2) / (3200 / 32)
    rates["flow step per 384 dims"] = {"seconds": flow_s, "unit": "an Adam step of BERT-flow's Glow on 32 vectors of 384 dims"}
    for shape, (layers, hidden) in {"quick": (2, 128), "full": (4, 256)}.items():
        def new_student():
            student = SiameseModel.from_scratch("embedded", num_hidden_layers=layers, hidden_size=hidden,
                                                num_attention_heads=max(1, hidden // 64), intermediate_size=4 * hidden)
            student.add_classifier(3)
            return student

        rates[f"random-init student step ({shape} shape)"] = {"seconds": fit_step_seconds(new_student, nli, 1e-3),
                                                     "unit": f"a softmax step of 16 NLI pairs, {layers} layers × {hidden}"}
        student = new_student()
        per_sentence = _seconds(lambda: student.encoder().encode(list(sentences), batch_size=64), 2) / len(sentences)
        rates[f"random-init student sentence ({shape} shape)"] = {"seconds": per_sentence, "unit": "a sentence encoded by it"}
    rates.update(umap_rate())
    return {"cpu workload s": workload, "efficiency": {k: float(np.median(v)) for k, v in efficiency.items()},
            "rates": rates}


def umap_rate(points: int = 2400, dims: int = 384) -> dict:
    """UMAP's seconds per point, in a fresh process as a notebook's kernel meets it (numba compiles on the first call,
    so the rate holds at full mode's size, 02's 3 × 800 sentences; quick mode skips UMAP)."""
    import subprocess

    code = ("import time, torch; from sbert_workbook.evaluation.projection import project; "
            f"x = torch.randn({points}, {dims}); t = time.perf_counter(); project(x, 'umap', 3); "
            "print(time.perf_counter() - t)")
    seconds = float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                   cwd=ROOT).stdout.split()[-1])
    return {"umap point": {"seconds": seconds / points,
                           "unit": f"a point of a {dims}-dim cloud in UMAP's 3-D view, its first call's compile "
                                   f"included (timed at {points} points)"}}


def _fit_seconds(new_model, examples, steps: int, learning_rate: float) -> float:
    from sbert_workbook.training.fitting import TrainingConfig, fit

    model = new_model()
    started = time.perf_counter()
    fit(model, examples, "softmax", TrainingConfig(max_steps=steps, save_checkpoints=False, progress=False, device="cpu",
                                                    learning_rate=learning_rate))
    return time.perf_counter() - started


def fit_step_seconds(new_model, examples, learning_rate: float = 2e-5, short: int = 2, long: int = 12) -> float:
    """Seconds per softmax step of 16 NLI pairs: the difference of a long and a short run over their steps (each run's
    own start and end cancel)."""
    _fit_seconds(new_model, examples, short, learning_rate)  # warm-up
    return (_fit_seconds(new_model, examples, long, learning_rate)
            - _fit_seconds(new_model, examples, short, learning_rate)) / (long - short)


def fit_call_seconds(new_model, examples) -> float:
    """Seconds a training run takes beside its steps: a 2-step run less two steps."""
    step = fit_step_seconds(new_model, examples)
    return max(0.0, _fit_seconds(new_model, examples, 2, 2e-5) - 2 * step)


def reference_rates(standin_folder: Path, efficiency: dict[str, float]) -> dict:
    """The probe's rates here (scaled by the efficiencies just measured) for the embedded model and bert-base's shape:
    what TEACHING.md's path for a room on bert-base-uncased is predicted with (tools/teaching_guide.py)."""
    import torch

    from sbert_workbook.forecast.probe import time_model
    from sbert_workbook.forecast.lessons import transformer_folder

    rates = {}
    for name, folder in (("sentence-transformers/all-MiniLM-L6-v2", transformer_folder("embedded")[1]),
                         ("bert-base-uncased", standin_folder)):
        encode_s, train_s = time_model(folder, torch.device("cpu"))
        rates[name] = {"encode_s_per_token": encode_s * efficiency["encode"], "train_s_per_token": train_s * efficiency["train"]}
    return rates


def executed_sections(executed: Path) -> tuple[dict[str, float], float]:
    """({section number or 'setup': seconds of its code cells}, every code cell's seconds) of an executed notebook."""
    import nbformat

    from sbert_workbook.runner.notebooks import cell_timing

    nb = nbformat.read(executed, as_version=4)
    seconds = {index: worked for index, worked, _waited in cell_timing(nb)}
    sections, current = {}, "setup"
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            heading = re.search(r"^## (\d+)", cell.source, re.MULTILINE)
            if heading:
                current = heading.group(1)
            continue
        sections[current] = sections.get(current, 0.0) + seconds.get(index, 0.0)
    return sections, sum(seconds.values())


def run_logged(notebook: Path, variant: str, mode: str, extra_env: dict[str, str]) -> tuple[list[dict], Path, float, float]:
    """Run ``notebook`` with the forecast log on and its kernel's memory sampled; (the log's records, the executed
    copy, the run's wall seconds, the kernel's peak in GB)."""
    from sbert_workbook.lessons.manifest import manifest
    from sbert_workbook.runner.kernel_memory import KernelMemory
    from sbert_workbook.runner.notebooks import run_notebook

    log = Path(tempfile.mkstemp(prefix="sbw-forecast-", suffix=".jsonl")[1])
    env = {"SBERT_WORKBOOK_FORECAST_LOG": str(log), **extra_env}
    parameters = {"SIZES": manifest(notebook.stem).sizes_for("full_on_cpu")} if mode == "full_on_cpu" else None
    build = BUILD / variant / mode
    with KernelMemory() as memory:
        run = run_notebook(notebook, build, timeout_s=4 * 3600, quick=mode == "quick", env=env, parameters=parameters,
                           after_cell=memory.after_cell)
    records = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    log.unlink()
    return records, run.executed, run.seconds, round(memory.peak.peak_mb / 1024, 2) if memory.cells else 0.0


def variant_env(variant: str) -> dict[str, str]:
    if variant == "standin":
        from sbert_workbook.environment.bert_base_standin import write_bert_base_standin

        return write_bert_base_standin(BUILD / "hf_home_bert_base")
    return {"HF_HUB_OFFLINE": "1"}


def notebooks(only: list[str] | None) -> list[Path]:
    from sbert_workbook.runner.notebooks import list_notebooks

    return [nb for nb in list_notebooks() if not only or nb.name[:2] in only]


def calibrate(only: list[str] | None) -> dict:
    """Micro-benchmarks, then every notebook in quick mode with the embedded model (its own rates unpriced meanwhile),
    then :func:`refit` from those runs; writes the rates file."""
    from sbert_workbook.forecast import reference
    from sbert_workbook.lessons.manifest import manifest

    standin = Path(variant_env("standin")["HF_HOME"]) / "hub" / "models--bert-base-uncased" / "snapshots" / ("0" * 40)
    stored = json.loads(RATES_FILE.read_text()) if RATES_FILE.is_file() else {"rates": {}}
    stored.update(micro_benchmarks(standin))
    stored["reference rates"] = reference_rates(standin, stored["efficiency"])
    stored["measured"] = f"{dt.date.today().isoformat()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}"
    stored["provisional"] = False
    _write_rates(stored)
    for notebook in notebooks(only):
        lesson = manifest(notebook.stem)
        if lesson.work is None:
            continue
        for key in [k for k in stored["rates"] if k.startswith(f"{lesson.number} ")]:
            del stored["rates"][key]
        _write_rates(stored)
        _, _, wall, _ = run_logged(notebook, "embedded", "quick", {"HF_HUB_OFFLINE": "1", reference.CALIBRATING_ENV_VAR: "1"})
        print(f"{notebook.name}: {wall:.0f} s", flush=True)
    return refit(only)


def _write_rates(stored: dict) -> None:
    from sbert_workbook.forecast.reference import calibration

    RATES_FILE.write_text(json.dumps(stored, indent=1, ensure_ascii=False) + "\n")
    calibration.cache_clear()


def fit_lesson_rates(number: str, forecast, records: list[dict]) -> dict[str, dict]:
    """The lesson's own CPU rates from one quick run. A logged cell whose steps name one rate not yet measured fits it:
    the cell's time less its other predicted work, over that rate's units (summed over every cell naming it). The
    notebook's ``NN rest`` is :func:`refit_rest`'s."""
    known = json.loads(RATES_FILE.read_text())["rates"]
    remainders: dict[str, list[float]] = {}
    what: dict[str, str] = {}
    for record in records:
        if "calls" not in record:
            continue
        steps = [(s, sec) for s, sec in zip(forecast.steps, forecast.seconds) if s.call in record["calls"]]
        unknown = {s.per[0] for s, _ in steps if s.per and s.per[0].startswith(f"{number} ") and s.per[0] not in known}
        if len(unknown) > 1:
            raise ValueError(f"{record['calls']} name {sorted(unknown)}: one cell can fit one rate; split the steps")
        if not unknown:
            continue
        key = unknown.pop()
        units = sum(s.per[1] for s, _ in steps if s.per and s.per[0] == key)
        remainder = record["took_s"] - sum(sec for s, sec in steps if not (s.per and s.per[0] == key))
        totals = remainders.setdefault(key, [0.0, 0.0])
        totals[0], totals[1] = totals[0] + remainder, totals[1] + units
        what[key] = next(s.what for s, _ in steps if s.per and s.per[0] == key)
    return {key: {"seconds": max(seconds, 0.0) / max(units, 1e-9), "unit": what[key]}
            for key, (seconds, units) in remainders.items()}


def timed_cells(executed: Path) -> list[tuple[str, float]]:
    """(source, seconds) of an executed run's code cells, the set-up's probe taken out of the set-up cell: the
    reference forecast, which the fits compare with, has no probe."""
    probe = probe_seconds(executed)
    return [(source, took - probe if names_call(source, "begin(") else took) for source, took in executed_cells(executed)]


def records_of(cells: list[tuple[str, float]], forecast) -> list[dict]:
    """The cell clock's log of a run, rebuilt from its cells: each code cell naming a step, with the calls it names
    and its seconds."""
    clock = CellClock("", forecast)
    records = []
    for source, took in cells:
        calls, _ = clock.predicted_for(source)
        if calls:
            records.append({"calls": calls, "took_s": took})
    return records


def encode_cells(forecast, cells: list[tuple[str, float]], least_s: float = 5.0, share: float = 0.8) -> tuple[float, float]:
    """(measured, predicted seconds) summed over a run's cells whose predicted time is at least ``least_s`` and at
    least ``share`` of it encoding, and which name no lesson's own rate (``NN …``, fitted after this factor; each step
    counted in the first cell naming it): how far the lessons' encodes run from the encode rate."""
    placed: set[int] = set()
    measured = predicted = 0.0
    for source, took in cells:
        named = [(i, step, sec) for i, (step, sec) in enumerate(zip(forecast.steps, forecast.seconds))
                 if i not in placed and step.call and names_call(source, step.call)]
        placed.update(i for i, _, _ in named)
        total = sum(sec for _, _, sec in named)
        encoding = sum(sec for _, step, sec in named if step.kind == "encode")
        own_rate = any(step.per and re.match(r"\d\d ", step.per[0]) for _, step, _ in named)
        if total >= least_s and encoding >= share * total and not own_rate:
            measured, predicted = measured + took, predicted + total
    return measured, predicted


def fit_encode_factor() -> dict:
    """The lessons' encode factor (``reference.lesson_encode_factor``) from every notebook's last quick run with the
    embedded model: measured over predicted seconds of the cells that mostly encode, predicted at the factor 1. The
    lessons' own rates may be absent (``--calibrate`` removes them before its runs) or fitted already: the cells
    counted name none, so the factor does not depend on them."""
    from sbert_workbook.forecast.lessons import reference_forecast
    from sbert_workbook.forecast.reference import CALIBRATING_ENV_VAR
    from sbert_workbook.forecast.work import EMBEDDED
    from sbert_workbook.lessons.manifest import manifest

    stored = json.loads(RATES_FILE.read_text())
    stored.pop("lesson encode factor", None)
    _write_rates(stored)
    calibrating = os.environ.get(CALIBRATING_ENV_VAR)
    os.environ[CALIBRATING_ENV_VAR] = "1"
    measured = predicted = 0.0
    try:
        for notebook in notebooks(None):
            lesson, executed = manifest(notebook.stem), BUILD / "embedded" / "quick" / "executed" / notebook.name
            if lesson.work is None or not executed.is_file():
                continue
            took, priced = encode_cells(reference_forecast(lesson, EMBEDDED), timed_cells(executed))
            measured, predicted = measured + took, predicted + priced
    finally:
        if calibrating is None:
            os.environ.pop(CALIBRATING_ENV_VAR)
    if not predicted:
        raise FileNotFoundError(f"No embedded quick run in {BUILD / 'embedded' / 'quick' / 'executed'} encodes: run "
                                "--calibrate (or --validate) first.")
    stored["lesson encode factor"] = {"factor": measured / predicted, "measured s": round(measured, 1),
                                      "predicted s": round(predicted, 1),
                                      "from": "the cells that mostly encode, every notebook's quick run with the embedded model"}
    _write_rates(stored)
    print(f"lesson encode factor {measured / predicted:.3f} ({measured:.0f} s measured / {predicted:.0f} s predicted)")
    return stored


def refit(only: list[str] | None) -> dict:
    """The lessons' encode factor, then each notebook's own rates and rest, from the last quick runs with the embedded
    model (their executed copies; no run), priced at the calibration's reference rates: what ``--calibrate`` does
    after its runs."""
    from sbert_workbook.forecast.lessons import reference_forecast
    from sbert_workbook.forecast.reference import CALIBRATING_ENV_VAR
    from sbert_workbook.forecast.work import EMBEDDED
    from sbert_workbook.lessons.manifest import manifest

    stored = fit_encode_factor()
    os.environ[CALIBRATING_ENV_VAR] = "1"
    try:
        for notebook in notebooks(only):
            lesson, executed = manifest(notebook.stem), BUILD / "embedded" / "quick" / "executed" / notebook.name
            if lesson.work is None or not executed.is_file():
                continue
            for key in [k for k in stored["rates"] if k.startswith(f"{lesson.number} ")]:
                del stored["rates"][key]
            _write_rates(stored)
            forecast = reference_forecast(lesson, EMBEDDED)
            fitted = fit_lesson_rates(lesson.number, forecast, records_of(timed_cells(executed), forecast))
            stored["rates"].update(fitted)
            _write_rates(stored)
            print(f"{notebook.name}: " + ", ".join(f"{k} = {v['seconds']:.3g} s" for k, v in fitted.items()), flush=True)
            stored = refit_rest([lesson.number])
    finally:
        os.environ.pop(CALIBRATING_ENV_VAR, None)
    return stored


def refit_rest(only: list[str] | None) -> dict:
    """Each notebook's ``NN rest`` from the last calibration's executed copies, the other rates kept: its code cells'
    seconds (the probe's taken out) less the reference-rate prediction of every step whose call is in one of its
    cells. ``--refit`` fits each rest this way after the notebook's own rates."""
    from sbert_workbook.forecast.lessons import reference_forecast
    from sbert_workbook.forecast.work import EMBEDDED
    from sbert_workbook.lessons.manifest import manifest

    stored = json.loads(RATES_FILE.read_text())
    for notebook in notebooks(only):
        lesson, executed = manifest(notebook.stem), BUILD / "embedded" / "quick" / "executed" / notebook.name
        key = f"{lesson.number} rest"
        if lesson.work is None or not any(s.per and s.per[0] == key for s in lesson.work(lesson.sizes_for("quick"),
                                                                                           _embedded_plan())):
            continue
        stored["rates"][key] = {"seconds": 0.0, "unit": "the notebook outside what its steps account for"}
        _write_rates(stored)
        forecast = reference_forecast(lesson, EMBEDDED)
        cells = timed_cells(executed)
        sources = "\n".join(source for source, _ in cells)
        named = sum(sec for step, sec in zip(forecast.steps, forecast.seconds) if step.call and names_call(sources, step.call))
        cells_s = sum(took for _, took in cells)
        stored["rates"][key]["seconds"] = max(cells_s - named, 0.0)
        _write_rates(stored)
        print(f"{notebook.name}: cells {cells_s:.0f} s, named steps {named:.0f} s, rest {max(cells_s - named, 0):.0f} s")
    return stored


def _embedded_plan():
    from sbert_workbook.forecast.work import EMBEDDED, Plan

    return Plan("quick", EMBEDDED, "cpu", True, "embedded")


def validate(only: list[str] | None, variant: str, mode: str) -> list[dict]:
    """Run each notebook and store predicted against measured seconds (see the module)."""
    rows = []
    history = json.loads(RESULTS.read_text()) if RESULTS.is_file() else []
    for notebook in notebooks(only):
        records, executed, wall, peak_gb = run_logged(notebook, variant, mode, variant_env(variant))
        setup = next((r for r in records if "sections" in r), None)
        if setup is None:
            continue
        measured, cells_s = executed_sections(executed)
        predicted = {}
        for section, seconds in setup["sections"].items():
            major = section.split(".")[0]
            predicted[major] = predicted.get(major, 0.0) + seconds
        row = {"notebook": notebook.stem, "variant": variant, "mode": mode, "model": setup["model"],
               "where": setup["where"], "predicted_s": setup["predicted_s"], "measured_s": round(cells_s, 1),
               "ratio": round(setup["predicted_s"] / cells_s, 2) if cells_s else None, "wall_s": round(wall, 1),
               "kernel_peak_gb": peak_gb,
               "predicted_sections": {k: round(v, 1) for k, v in predicted.items()},
               "measured_sections": {k: round(v, 1) for k, v in measured.items()},
               "measured": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
               "load_average_after": round(os.getloadavg()[0], 2)}
        print(json.dumps({k: row[k] for k in ("notebook", "variant", "mode", "predicted_s", "measured_s", "ratio",
                                              "kernel_peak_gb")}),
              flush=True)
        rows.append(row)
        history.append(row)
        RESULTS.write_text(json.dumps(history, indent=1, ensure_ascii=False) + "\n")
    return rows


def executed_cells(executed: Path) -> list[tuple[str, float]]:
    """(source, seconds) of every code cell of an executed notebook, in order."""
    import nbformat

    from sbert_workbook.runner.notebooks import cell_timing

    nb = nbformat.read(executed, as_version=4)
    seconds = {index: worked for index, worked, _waited in cell_timing(nb)}
    return [(cell.source, seconds.get(index, 0.0)) for index, cell in enumerate(nb.cells) if cell.cell_type == "code"]


def probe_seconds(executed: Path) -> float:
    """The seconds the set-up's probe took in an executed notebook ("probed here in 6.7 s"), 0 if it printed none."""
    found = re.search(r"probed here in ([0-9.]+) s", executed.read_text(encoding="utf-8"))
    return float(found.group(1)) if found else 0.0


def reference_table() -> str:
    """Each notebook's last quick run with the embedded model and on the stand-in (the executed copies) against the
    forecast at the calibration's reference rates, nothing probed: the embedded runs are what ``--refit`` fitted (1.00
    by construction), the stand-in's were not fitted on."""
    from sbert_workbook.forecast.lessons import reference_forecast
    from sbert_workbook.forecast.work import BERT_BASE, EMBEDDED
    from sbert_workbook.lessons.manifest import manifest

    lines = ["| notebook | embedded: predicted / measured s | bert-base (stand-in): predicted / measured s (ratio) |",
             "|---|---|---|"]
    for notebook in notebooks(None):
        lesson, cells = manifest(notebook.stem), []
        if lesson.work is None:
            continue
        for variant, shape in (("embedded", EMBEDDED), ("standin", BERT_BASE)):
            executed = BUILD / variant / "quick" / "executed" / notebook.name
            measured = sum(took for _, took in timed_cells(executed)) if executed.is_file() else 0.0
            predicted = reference_forecast(lesson, shape).total_s
            cells.append(f"{predicted:.0f} / {measured:.0f} ({predicted / measured:.2f})" if measured else "not run")
        lines.append(f"| {lesson.number} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines)


def auto_picks(budget_min: float = 15) -> str:
    """What ``QUICK = "auto"`` picks per notebook within ``budget_min`` minutes, and that mode's predicted time: on the
    reference 2 cores at the calibration's rates (the embedded model and bert-base) and on a CUDA device priced by the
    stated T4 and A100 throughputs (bert-base)."""
    from sbert_workbook.forecast.lessons import lesson_modes, reference_forecast
    from sbert_workbook.forecast.predict import NotEnoughTimeError, choose_mode, duration, predict
    from sbert_workbook.forecast.probe import stated_gpu_rates
    from sbert_workbook.forecast.work import BERT_BASE, EMBEDDED, Plan
    from sbert_workbook.lessons.manifest import manifest

    def pick(forecasts) -> str:
        try:
            mode = choose_mode(forecasts, budget_min * 60)
        except NotEnoughTimeError:
            return f"stops at set-up (quick {duration(forecasts['quick'].total_s)})"
        return f"{mode} ({duration(forecasts[mode].total_s)})"

    lines = ["| notebook | reference CPU, embedded | reference CPU, bert-base | T4 (stated), bert-base | "
             "A100 (stated), bert-base |", "|---|---|---|---|---|"]
    for notebook in notebooks(None):
        lesson = manifest(notebook.stem)
        if lesson.work is None:
            continue
        modes = lesson_modes(lesson)
        row = [pick({m: reference_forecast(lesson, shape, m) for m in modes}) for shape in (EMBEDDED, BERT_BASE)]
        for gpu in ("T4", "A100"):
            rates = stated_gpu_rates(gpu, {"lesson": BERT_BASE, "embedded": EMBEDDED})
            row.append(pick({m: predict(lesson.work(lesson.sizes_for(m), Plan(m, BERT_BASE, "cuda", False)), rates, m)
                             for m in modes}))
        lines.append(f"| {lesson.number} | " + " | ".join(row) + " |")
    return "\n".join(lines)


def markdown(rows: list[dict]) -> str:
    """The newest row of each notebook, model and mode as a table (docs/forecast_check.json keeps every row)."""
    lines = ["| notebook | model | mode | predicted | measured | predicted / measured | largest sections: predicted / measured s |",
             "|---|---|---|---|---|---|---|"]
    latest = {(r["notebook"], r["variant"], r["mode"]): r for r in rows}  # each run's newest row, the others kept
    for r in sorted(latest.values(), key=lambda r: (r["variant"], r["mode"], r["notebook"])):
        top = sorted(r["measured_sections"], key=lambda k: -r["measured_sections"][k])[:3]
        sections = "; ".join(f"§{k} {r['predicted_sections'].get(k, 0):.0f} / {r['measured_sections'][k]:.0f}" for k in top)
        lines.append(f"| {r['notebook'][:2]} | {'embedded' if r['variant'] == 'embedded' else 'bert-base (stand-in)'} | "
                     f"{r['mode']} | {r['predicted_s']:.0f} s | {r['measured_s']:.0f} s | {r['ratio']} | {sections} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calibrate", action="store_true")
    parser.add_argument("--validate", action="store_true")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--refit-rest", action="store_true", help="each notebook's rest again from the last "
                        "calibration's executed copies")
    parser.add_argument("--refit", action="store_true", help="the lessons' encode factor, each notebook's own rates and "
                        "its rest again from the last embedded quick runs' executed copies (no run)")
    parser.add_argument("--reference-table", action="store_true", help="the last embedded and stand-in quick runs "
                        "against the forecast at the reference rates, as a table")
    parser.add_argument("--auto-picks", action="store_true", help="what QUICK = \"auto\" picks per notebook on the "
                        "reference CPU and the stated T4 and A100, as a table")
    parser.add_argument("--umap", action="store_true", help="time UMAP alone (a micro-benchmark of --calibrate)")
    parser.add_argument("--variant", choices=["embedded", "standin"], default="embedded")
    parser.add_argument("--mode", choices=["quick", "full", "full_on_cpu"], default="quick")
    parser.add_argument("--only", nargs="*", help="notebook numbers, e.g. 03 05")
    args = parser.parse_args(argv)
    if args.umap:
        stored = json.loads(RATES_FILE.read_text())
        stored["rates"].update(umap_rate())
        _write_rates(stored)
    if args.calibrate:
        calibrate(args.only)
    if args.refit:
        refit(args.only)
    if args.refit_rest:
        refit_rest(args.only)
    if args.validate:
        validate(args.only, args.variant, args.mode)
    if args.reference_table:
        print(reference_table())
    if args.auto_picks:
        print(auto_picks())
    if args.markdown:
        print(markdown(json.loads(RESULTS.read_text())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
