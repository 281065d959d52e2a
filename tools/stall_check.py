"""Does a kernel run ever stall? Many consecutive headless runs, or classroom-app loads, timed one by one.

A stall is the fault of issue 21: the kernel finishes a cell and goes idle, but the client never
gets the reply and waits until its timeout (ipykernel 7: ipython/ipykernel#1554, #1529;
microsoft/vscode-jupyter#17228). Seen from outside, one run takes many times as long as the others.

    python tools/stall_check.py notebooks [--runs 100] [--notebook 00] [--cell-timeout 120]
    python tools/stall_check.py classroom [--loads 20] [--app embedding_explorer --app pair_explorer]

``notebooks`` runs a notebook (00 in quick mode by default) ``--runs`` times in a row with the
project's runner (:func:`sbert_workbook.app.runbook.run_notebook`), each with a fresh kernel; a
cell that waits longer than ``--cell-timeout`` seconds counts as stalled (the run is cut there
instead of waiting the suite's 900 s). ``classroom`` starts the Voilà app exactly as
``./workbook classroom --quick --model embedded`` does and loads each app ``--loads`` times in
headless Chromium, one page at a time, each timed from navigation to its first drawn figure.

Both print every run's seconds, the median, the slowest and how many runs took over 3 × the
median, with the versions of the kernel stack, and append the summary to
``docs/reliability.json`` (``--label`` names it; README's *Reliability* quotes it). This is a
measurement script, not a test: it takes minutes to hours and its figures depend on the machine.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import secrets
import statistics
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "docs" / "reliability.json"
SLOW_FACTOR = 3.0
STACK = ("ipykernel", "jupyter_client", "pyzmq", "tornado", "nbclient", "voila")


def stack_versions() -> dict[str, str]:
    """The installed version of each package between the client and the kernel."""
    found = {}
    for name in STACK:
        try:
            found[name] = version(name)
        except Exception:  # noqa: BLE001 - a missing package is reported as such
            found[name] = "not installed"
    return found


def summary(kind: str, target: str, seconds: list[float | None], label: str) -> dict:
    """Median, slowest and the runs over 3 × the median; a stalled run (None) counts as slow and as stalled."""
    finished = [s for s in seconds if s is not None]
    median = statistics.median(finished) if finished else float("nan")
    slow = [i for i, s in enumerate(seconds) if s is None or s > SLOW_FACTOR * median]
    return {"label": label, "kind": kind, "target": target, "runs": len(seconds),
            "median_s": round(median, 2), "slowest_s": round(max(finished), 2) if finished else None,
            "stalled": sum(s is None for s in seconds), f"over_{SLOW_FACTOR:g}x_median": len(slow),
            "slow_runs": slow, "seconds": [None if s is None else round(s, 2) for s in seconds],
            "versions": stack_versions(), "cores": os.cpu_count(),
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "measured": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")}


def report(result: dict) -> None:
    slow_key = f"over_{SLOW_FACTOR:g}x_median"
    print(f"\n{result['kind']} {result['target']}: {result['runs']} runs, median {result['median_s']} s, "
          f"slowest {result['slowest_s']} s, {result['stalled']} stalled, {result[slow_key]} over "
          f"{SLOW_FACTOR:g} × the median  ({', '.join(f'{k} {v}' for k, v in result['versions'].items())})", flush=True)
    history = json.loads(RESULTS.read_text()) if RESULTS.is_file() else []
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(history + [result], indent=1, ensure_ascii=False) + "\n")
    print(f"appended to {RESULTS.relative_to(ROOT)}", flush=True)


# ----------------------------------------------------------------------------- headless notebook runs
def find_notebook(name: str) -> Path:
    from sbert_workbook.app.runbook import list_notebooks

    matches = [path for path in list_notebooks() if path.name.startswith(name) or name in path.stem]
    if len(matches) != 1:
        raise SystemExit(f"--notebook {name!r} matches {[p.name for p in matches]}; give one notebook's number, e.g. 00")
    return matches[0]


def time_notebook_runs(notebook: Path, runs: int, cell_timeout: int) -> list[float | None]:
    """Seconds of each consecutive quick-mode run; None where a cell waited past ``cell_timeout``."""
    from sbert_workbook.app.runbook import run_notebook

    build = ROOT / "build" / "stall_check"
    seconds: list[float | None] = []
    for run in range(1, runs + 1):
        started = time.perf_counter()
        try:
            seconds.append(run_notebook(notebook, build, timeout_s=cell_timeout).seconds)
            print(f"run {run:3d}: {seconds[-1]:6.1f} s{slowest_cell(build / 'executed' / notebook.name, seconds)}", flush=True)
        except Exception as error:  # noqa: BLE001 - nbclient's CellTimeoutError, or a dead kernel: either is a stall here
            seconds.append(None)
            print(f"run {run:3d}: STALLED after {time.perf_counter() - started:.0f} s ({type(error).__name__}: "
                  f"{str(error).splitlines()[0][:120]})", flush=True)
    return seconds


def slowest_cell(executed: Path, seconds: list[float | None]) -> str:
    """For a run over 3 × the median so far: which cell's reply came late (nbclient's timings), kept for reading."""
    finished = [s for s in seconds if s is not None]
    if len(finished) < 5 or finished[-1] <= SLOW_FACTOR * statistics.median(finished):
        return ""
    import shutil

    import nbformat

    from sbert_workbook.app.runbook import cell_timing

    kept = executed.with_name(f"slow_run_{len(seconds)}_{executed.name}")
    shutil.copy(executed, kept)
    index, worked, waited = max(cell_timing(nbformat.read(executed, 4)), key=lambda timing: timing[2])
    return (f"   <- over {SLOW_FACTOR:g} × the median: around cell {index} (worked {worked:.1f} s) the client waited "
            f"{waited:.1f} s on an idle kernel ({kept.relative_to(ROOT)})")


# ----------------------------------------------------------------------------- classroom loads in Chromium
def time_app_loads(browser, url: str, loads: int, timeout_s: int) -> list[float | None]:
    """Seconds from navigation to the first drawn figure, per load (a fresh browser context each); None past ``timeout_s``."""
    from tools.classroom_pages import FIGURE_DRAWN_JS

    seconds: list[float | None] = []
    for load in range(1, loads + 1):
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        started = time.perf_counter()
        try:
            page.goto(url, wait_until="commit", timeout=timeout_s * 1000)
            page.wait_for_function(FIGURE_DRAWN_JS, timeout=timeout_s * 1000)  # tools/classroom_pages.py
            seconds.append(time.perf_counter() - started)
            print(f"load {load:3d}: {seconds[-1]:6.1f} s", flush=True)
        except Exception as error:  # noqa: BLE001 - playwright's TimeoutError: the spinner a room would see
            seconds.append(None)
            print(f"load {load:3d}: STALLED after {time.perf_counter() - started:.0f} s ({type(error).__name__})", flush=True)
        finally:
            page.close(run_before_unload=True)  # Voilà shuts the visitor's kernel down when the page goes
            context.close()
        time.sleep(2)  # let the kernel go before the next visitor comes
    return seconds


# ----------------------------------------------------------------------------- command line
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kind", choices=["notebooks", "classroom"])
    parser.add_argument("--runs", type=int, default=100, help="notebooks: consecutive runs (default 100)")
    parser.add_argument("--notebook", default="00", help="notebooks: which one (default 00_start_here)")
    parser.add_argument("--cell-timeout", type=int, default=120, help="notebooks: seconds before a cell counts as stalled")
    parser.add_argument("--loads", type=int, default=20, help="classroom: loads of each app (default 20)")
    parser.add_argument("--app", action="append", help="classroom: app name(s) (default: both)")
    parser.add_argument("--load-timeout", type=int, default=300, help="classroom: seconds before a load counts as stalled")
    parser.add_argument("--cull-after", type=int, default=10, help="classroom: seconds before a closed page's kernel goes")
    parser.add_argument("--label", default="", help="what this measurement is (e.g. 'before: ipykernel 7.4.0')")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    if args.kind == "notebooks":
        notebook = find_notebook(args.notebook)
        print(f"{args.runs} consecutive quick-mode runs of {notebook.name}, cell timeout {args.cell_timeout} s", flush=True)
        report(summary("notebooks", notebook.name, time_notebook_runs(notebook, args.runs, args.cell_timeout), args.label))
        return 0
    from playwright.sync_api import sync_playwright

    from tools.classroom_pages import CHROMIUM, CHROMIUM_ARGS, free_port, start_classroom, stop

    port, token = free_port(), secrets.token_hex(16)
    log = Path(tempfile.mkdtemp(prefix="sbw-stall-")) / "voila.log"
    server = start_classroom(port, token, log, args.cull_after)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            for app in args.app or ["embedding_explorer", "pair_explorer"]:
                url = f"http://127.0.0.1:{port}/voila/render/{app}.ipynb?token={token}"
                print(f"{args.loads} consecutive loads of {app} (Voilà, headless Chromium)", flush=True)
                report(summary("classroom", app, time_app_loads(browser, url, args.loads, args.load_timeout), args.label))
            browser.close()
    finally:
        stop(server)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
