"""Each notebook's kernel memory and time in quick mode as shipped, for the embedded model and for bert-base-uncased.

Use: ``.venv/bin/python tools/notebook_memory.py --label before [--models embedded bert-base-uncased] [--only 05 06]
[--inventory]``, from the environment ``./workbook lab`` made. Each notebook runs as committed (its parameters cell
untouched, ``SBERT_WORKBOOK_QUICK=1``, hub offline), one at a time, with
:class:`sbert_workbook.runner.kernel_memory.KernelMemory` filing the kernel's resident memory under the cell running:

- ``embedded``: this machine's hub cache, where ``MODEL = "auto"`` finds no bert-base-uncased and takes the embedded
  all-MiniLM-L6-v2 (as a laptop offline, and Binder);
- ``bert-base-uncased``: a hub cache holding only the bert-base-uncased-shaped stand-in
  (:mod:`sbert_workbook.environment.bert_base_standin`: the real sizes, random weights), so ``auto`` takes it as it takes
  bert-base-uncased online.

``--inventory`` also asks the kernel after every code cell what it holds (``INVENTORY``: the models alive, the
tensors' and arrays' bytes, the largest names); it adds seconds per cell and is kept out of the peaks (it runs
between a cell's reading and the next cell's). The figures go to ``docs/notebook_memory.json`` under ``--label``
(with every cell's peak and seconds), and each notebook's peak per model to the package's
``sbert_workbook/environment/notebook_peaks.json``, which :func:`sbert_workbook.environment.memory.check_memory` reads.
A measurement script, not a test: on 2 cores the embedded runs take ~10 minutes, the stand-in's ~45.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DEFAULT_OUT = ROOT / "docs" / "notebook_memory.json"
MODELS = ("embedded", "bert-base-uncased")
#: Run in the kernel after a cell (``--inventory``): what it holds, as one JSON line. Tensors and arrays are counted
#: once per storage; ``names`` are the user's variables by the bytes reachable from each (shared storage counts in
#: each name that reaches it); ``models`` every transformers model alive (a copy counts again).
INVENTORY = r'''
def _sbw_inventory():
    import gc, json, sys, warnings
    warnings.simplefilter("ignore")
    import numpy as np, torch
    try:
        from transformers import PreTrainedModel
    except ImportError:
        PreTrainedModel = ()
    def storage(t):
        try:
            s = t.untyped_storage()
            return s.data_ptr(), s.nbytes()
        except Exception:
            return id(t), 0
    def array(a):
        while isinstance(a.base, np.ndarray):
            a = a.base
        return id(a), a.nbytes
    def reach(obj, seen, depth=0):
        if depth > 6 or id(obj) in seen[1]:
            return 0
        seen[1].add(id(obj))
        if isinstance(obj, torch.Tensor):
            key, size = storage(obj)
            grad = reach(obj.grad, seen, depth + 1) if obj.grad is not None else 0
            return grad + (0 if key in seen[0] or seen[0].add(key) else size)
        if isinstance(obj, np.ndarray):
            key, size = array(obj)
            return 0 if key in seen[0] or seen[0].add(key) else size
        if isinstance(obj, torch.nn.Module):
            return sum(reach(t, seen, depth + 1) for t in [*obj.parameters(), *obj.buffers()]) + sum(
                reach(v, seen, depth + 1) for k, v in vars(obj).items() if not k.startswith("_"))
        if isinstance(obj, torch.optim.Optimizer):
            return sum(reach(v, seen, depth + 1) for state in obj.state.values() for v in state.values())
        if isinstance(obj, dict):
            return sum(reach(v, seen, depth + 1) for v in list(obj.values())[:10000])
        if isinstance(obj, (list, tuple, set, frozenset)):
            return sum(reach(v, seen, depth + 1) for v in list(obj)[:10000])
        if hasattr(obj, "__dict__") and not isinstance(obj, type) and type(obj).__module__ != "builtins":
            return sum(reach(v, seen, depth + 1) for v in list(vars(obj).values()))
        return 0
    user = get_ipython().user_ns
    hidden = set(get_ipython().user_ns_hidden)
    names = {}
    for name, value in list(user.items()):
        if name.startswith("_") or name in hidden or isinstance(value, type(sys)) or callable(value) and not isinstance(value, torch.nn.Module):
            continue
        size = reach(value, (set(), set()))
        if size >= 2 ** 20:
            names[name] = round(size / 2 ** 20)
    out_history = reach(user.get("Out", {}), (set(), set()))
    storages, arrays, models = {}, {}, []
    for obj in gc.get_objects():
        if isinstance(obj, torch.Tensor) and obj.device.type == "cpu":
            key, size = storage(obj)
            storages[key] = size
        elif isinstance(obj, np.ndarray):
            key, size = array(obj)
            arrays[key] = size
        elif PreTrainedModel and isinstance(obj, PreTrainedModel):
            models.append([type(obj).__name__, round(sum(p.numel() for p in obj.parameters()) / 1e6, 1), obj.training,
                           any(p.grad is not None for p in obj.parameters())])
    top = sorted(names.items(), key=lambda item: -item[1])[:8]
    print(json.dumps({"tensors_mb": round(sum(storages.values()) / 2 ** 20), "arrays_mb": round(sum(arrays.values()) / 2 ** 20),
                      "out_history_mb": round(out_history / 2 ** 20), "models": models, "names": top}))
_sbw_inventory()
del _sbw_inventory
'''


def inventory(scratch, index: int):
    """What the kernel holds after cell ``index`` (a code cell), as :data:`INVENTORY` reports it."""
    if scratch.client.nb.cells[index].cell_type != "code":
        return None
    printed = scratch.run(INVENTORY).strip().splitlines()
    try:
        return json.loads(next(line for line in reversed(printed) if line.startswith("{")))
    except (StopIteration, ValueError):  # the cell printed something else (an error's text is not a stream)
        return {"unread": printed[-3:]}


def model_env(model: str, build: Path) -> dict[str, str]:
    """The kernel's environment for ``model``: the stand-in's own hub cache, or this machine's (hub offline)."""
    from sbert_workbook.environment.bert_base_standin import write_bert_base_standin

    if model == "bert-base-uncased":
        return write_bert_base_standin(build / "hf_home_bert_base")
    return {"HF_HUB_OFFLINE": "1"}


def measure(notebook: Path, model: str, build: Path, with_inventory: bool, kernel_env: dict[str, str]) -> tuple[dict, dict]:
    """One notebook with one model: (its peak, the cell that held it, wall and cell seconds, every cell's figures;
    the kernel's holdings after each code cell, when ``with_inventory``)."""
    from sbert_workbook.runner.kernel_memory import run_measured

    env = {**model_env(model, build), "TOKENIZERS_PARALLELISM": "false", **kernel_env}
    memory, wall = run_measured(notebook, build / model, env=env, inspect=inventory if with_inventory else None)
    executed = json.loads((build / model / "executed" / notebook.name).read_text(encoding="utf-8"))
    peak = memory.peak
    source = "".join(executed["cells"][peak.index]["source"]).strip().splitlines()
    return {"peak_mb": peak.peak_mb, "wall_s": round(wall), "cells_s": round(sum(c.seconds for c in memory.cells)),
            "peak_cell": peak.index, "peak_cell_first_line": source[0][:120] if source else "",
            "peak_cell_seconds": peak.seconds, "at_peak": peak.inspected,
            "cells": [[c.index, c.seconds, c.peak_mb, c.end_mb] for c in memory.cells if c.seconds or c.index == 0]}, {
            c.index: c.inspected for c in memory.cells if c.inspected}


def kernel_settings(source: Path | None, threads: int | None) -> dict[str, str]:
    """The kernels' environment for ``--source`` (its package first on the path, the data where this checkout finds
    it) and ``--threads``."""
    settings = {"OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)} if threads else {}
    if source is not None:
        from sbert_workbook.data.finding import DATA_ENV_VAR, data_roots

        found = [root for _, root in data_roots() if (root / "sts").is_dir()]
        settings.update(PYTHONPATH=str(source.resolve()), **({DATA_ENV_VAR: str(found[0])} if found else {}))
    return settings


def machine() -> dict:
    return {"measured": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "system": f"{platform.system()} {platform.machine()}, Python {platform.python_version()}",
            "nproc": os.cpu_count()}


def ship_peaks(stored: dict, label: str, path: Path) -> None:
    """Write each notebook's peak per model from run ``label`` into the package data ``check_memory`` reads."""
    from sbert_workbook.environment.memory import write_peaks

    runs = stored["runs"][label]
    write_peaks(path, {model: {nb: figures["peak_mb"] for nb, figures in notebooks.items()}
                       for model, notebooks in runs.items()},
                {model: {nb: figures["wall_s"] for nb, figures in notebooks.items()} for model, notebooks in runs.items()},
                {model: {nb: figures.get("kernel_threads") == 1 or bool(figures.get("beside_another_run"))
                         for nb, figures in notebooks.items()} for model, notebooks in runs.items()})


def rises(cells: list[list], top: int = 3) -> list[tuple[int, int, int]]:
    """The ``top`` cells that added most to the kernel's memory: (cell, MB above the previous cell's end, peak MB)."""
    found, before = [], 0
    for index, _, peak, end in cells:
        found.append((index, peak - before, peak))
        before = end
    return sorted(found, key=lambda row: -row[1])[:top]


def report(stored: dict, labels: list[str]) -> str:
    """A markdown table per label: each notebook and model's peak, time, peak cell and the cells that added most."""
    lines = []
    for label in labels:
        lines += [f"### {label}", "", "| notebook | model | peak GB | wall s | peak cell | largest rises (cell: +MB) |",
                  "|---|---|---|---|---|---|"]
        for model, notebooks in stored["runs"][label].items():
            for name, figures in sorted(notebooks.items()):
                grown = ", ".join(f"{cell}: +{mb}" for cell, mb, _ in rises(figures["cells"]))
                lines.append(f"| {name[:2]} | {model} | {figures['peak_mb'] / 1024:.2f} | {figures['wall_s']} | "
                             f"{figures['peak_cell']} `{figures['peak_cell_first_line'][:50]}` | {grown} |")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--label", default="after", help="the name the figures are stored under (before, after, ...)")
    parser.add_argument("--models", nargs="*", default=list(MODELS), choices=MODELS)
    parser.add_argument("--only", nargs="*", help="notebooks whose name contains one of these")
    parser.add_argument("--inventory", action="store_true", help="also record what the kernel holds after each cell")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--beside-another-run", action="store_true", help="another run shares the cores: the times "
                        "are stored and shipped as upper bounds (the peaks are the kernel's own either way)")
    parser.add_argument("--no-ship", action="store_true", help="do not write the package's notebook_peaks.json")
    parser.add_argument("--source", type=Path, help="a checkout whose notebooks and package the kernels run (e.g. "
                        "`git archive` of an earlier commit, for figures before a change); default: this one")
    parser.add_argument("--threads", type=int, help="torch threads per kernel (OMP/MKL_NUM_THREADS); on a shared "
                        "machine 1 wastes less time on two threads waiting for each other; default: torch's choice")
    parser.add_argument("--report", nargs="*", metavar="LABEL", help="print the stored figures of these labels as "
                        "markdown tables, and run nothing")
    args = parser.parse_args(argv)
    if args.report is not None:
        print(report(json.loads(args.out.read_text(encoding="utf-8")), args.report or ["before", "after"]))
        return 0
    from sbert_workbook.environment.memory import PEAKS_FILE
    from sbert_workbook.runner.notebooks import list_notebooks

    build = ROOT / "build" / "notebook_memory"
    stored = json.loads(args.out.read_text(encoding="utf-8")) if args.out.is_file() else {}
    kernel_env = kernel_settings(args.source, args.threads)
    for model in args.models:
        for notebook in list_notebooks(args.source / "notebooks" if args.source else None):
            if args.only and not any(part in notebook.name for part in args.only):
                continue
            print(f"{notebook.stem} with {model} ...", flush=True)
            load_before = round(os.getloadavg()[0], 2)
            figures, holdings = measure(notebook, model, build, args.inventory, kernel_env)
            figures.update(machine(), load_average_before=load_before, load_average_after=round(os.getloadavg()[0], 2),
                           kernel_threads=args.threads or "torch's default", inventory=args.inventory,
                           beside_another_run=args.beside_another_run,
                           source=str(args.source or "this checkout"))
            if holdings:
                (build / f"inventory-{args.label}-{model}-{notebook.stem}.json").write_text(json.dumps(holdings, indent=1))
            stored.setdefault("runs", {}).setdefault(args.label, {}).setdefault(model, {})[notebook.stem] = figures
            print(f"  peak {figures['peak_mb']} MB in cell {figures['peak_cell']} ({figures['peak_cell_first_line']}),"
                  f" {figures['wall_s']} s", flush=True)
            args.out.write_text(json.dumps(stored, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if not args.no_ship:
        ship_peaks(stored, args.label, PEAKS_FILE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
