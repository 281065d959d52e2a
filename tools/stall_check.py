"""Does a kernel run ever stall? Many consecutive headless runs, or classroom-app loads, timed one by one.

A stall is the fault of issue 21: the kernel finishes a cell and goes idle, but the client never
gets the reply and waits until its timeout (ipykernel 7: ipython/ipykernel#1554, #1529;
microsoft/vscode-jupyter#17228). Seen from outside, one run takes many times as long as the others.

    python tools/stall_check.py notebooks [--runs 100] [--notebook 00] [--cell-timeout 120] [--without-slices]
    python tools/stall_check.py classroom [--loads 20] [--app embedding_explorer --app pair_explorer]

``notebooks`` runs a notebook (00 in quick mode by default) ``--runs`` times in a row with the
project's runner (:func:`sbert_workbook.runner.notebooks.run_notebook`), each with a fresh kernel; a
cell that waits longer than ``--cell-timeout`` seconds counts as stalled (the run is cut there
instead of waiting the suite's 900 s). ``classroom`` starts the Voilà app exactly as
``./workbook classroom --quick --model embedded`` does and loads each app ``--loads`` times in
headless Chromium, one page at a time, each timed from navigation to its first drawn figure.

``--without-slices`` sets ``SBERT_WORKBOOK_REPLY_SLICES=0``, so this process (and the Voilà server it starts)
waits for kernel replies as plain nbclient does, without :mod:`sbert_workbook.runner.replies`' 1-s slices.
With the slices on, ``notebooks`` also counts per run the replies the slices rescued
(:data:`sbert_workbook.runner.replies.counts`; the runner runs in this process). A run also counts as
stalled when it finished but one cell's reply came only when the cell's timeout ran out (the client waited
on an idle kernel, :func:`sbert_workbook.runner.notebooks.cell_timing`), which is how plain nbclient gets a lost reply.

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


def summary(kind: str, target: str, seconds: list[float | None], label: str, details: list[dict] | None = None) -> dict:
    """Median, slowest and the runs over 3 × the median; a stalled run (None, or ``waited_out_timeout`` in its
    ``details``) counts as slow and as stalled. ``details`` (notebooks only): one dict a run, rescues included."""
    from sbert_workbook.runner import replies as kernel_replies

    finished = [s for s in seconds if s is not None]
    median = statistics.median(finished) if finished else float("nan")
    stalled = [s is None or bool(details and details[i]["waited_out_timeout"]) for i, s in enumerate(seconds)]
    slow = [i for i, s in enumerate(seconds) if stalled[i] or s > SLOW_FACTOR * median]
    extra = {} if details is None else {"rescued": sum(d["rescued"] for d in details),
                                        "rescued_per_run": [d["rescued"] for d in details], "runs_detail": details}
    return {"label": label, "kind": kind, "target": target, "runs": len(seconds),
            "slices": not kernel_replies.slices_switched_off(),
            "median_s": round(median, 2), "slowest_s": round(max(finished), 2) if finished else None,
            "stalled": sum(stalled), f"over_{SLOW_FACTOR:g}x_median": len(slow), **extra,
            "slow_runs": slow, "seconds": [None if s is None else round(s, 2) for s in seconds],
            "versions": stack_versions(), "cores": os.cpu_count(),
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "measured": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")}


def report(result: dict) -> None:
    slow_key = f"over_{SLOW_FACTOR:g}x_median"
    print(f"\n{result['kind']} {result['target']}: {result['runs']} runs, median {result['median_s']} s, "
          f"slowest {result['slowest_s']} s, {result['stalled']} stalled, {result[slow_key]} over "
          f"{SLOW_FACTOR:g} × the median, slices {'on' if result['slices'] else 'off'}"
          f"{'' if 'rescued' not in result else ', ' + str(result['rescued']) + ' rescued'}  ({', '.join(f'{k} {v}' for k, v in result['versions'].items())})", flush=True)
    history = json.loads(RESULTS.read_text()) if RESULTS.is_file() else []
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(history + [result], indent=1, ensure_ascii=False) + "\n")
    print(f"appended to {RESULTS.relative_to(ROOT)}", flush=True)


# ----------------------------------------------------------------------------- headless notebook runs
def find_notebook(name: str) -> Path:
    from sbert_workbook.runner.notebooks import list_notebooks

    matches = [path for path in list_notebooks() if path.name.startswith(name) or name in path.stem]
    if len(matches) != 1:
        raise SystemExit(f"--notebook {name!r} matches {[p.name for p in matches]}; give one notebook's number, e.g. 00")
    return matches[0]


def time_notebook_runs(notebook: Path, runs: int, cell_timeout: int) -> tuple[list[float | None], list[dict]]:
    """Seconds of each consecutive quick-mode run (None where a cell raised past ``cell_timeout``), and per run
    the replies the slices rescued and the longest wait on an idle kernel (:func:`run_details`)."""
    from sbert_workbook.runner import replies as kernel_replies
    from sbert_workbook.runner.notebooks import run_notebook

    build = ROOT / "build" / "stall_check"
    seconds: list[float | None] = []
    details: list[dict] = []
    for run in range(1, runs + 1):
        started = time.perf_counter()
        kernel_replies.counts.clear()
        try:
            seconds.append(run_notebook(notebook, build, timeout_s=cell_timeout, after_cell=kernel_version_once(run)).seconds)
            note = slowest_cell(build / "executed" / notebook.name, seconds)
        except Exception as error:  # noqa: BLE001 - nbclient's CellTimeoutError, or a dead kernel: either is a stall here
            seconds.append(None)
            note = f"STALLED after {time.perf_counter() - started:.0f} s ({type(error).__name__}: {str(error).splitlines()[0][:120]})"
        details.append(run_details(build / "executed" / notebook.name, cell_timeout, dict(kernel_replies.counts)))
        if seconds[-1] is None or details[-1]["waited_out_timeout"]:  # keep the stalled run's timings for reading
            (build / "executed" / f"stalled_run_{run}_{notebook.name}").write_bytes((build / "executed" / notebook.name).read_bytes())
        took = "" if seconds[-1] is None else f"{seconds[-1]:6.1f} s"
        print(f"run {run:3d}: {took}{note}  (rescued {details[-1]['rescued']}, longest idle wait "
              f"{details[-1]['longest_idle_wait_s']} s{', WAITED OUT THE CELL TIMEOUT' if details[-1]['waited_out_timeout'] else ''})",
              flush=True)
    return seconds, details


KERNEL_IPYKERNEL: dict[str, str] = {}


def kernel_version_once(run: int):
    """For run 1: an ``after_cell`` that asks the kernel itself for its ipykernel version once (after cell 0)."""
    def ask(scratch, index, cell):
        if run == 1 and index == 0:
            KERNEL_IPYKERNEL["version"] = scratch.run("import ipykernel; print(ipykernel.__version__)").strip()
            print(f"the kernel runs ipykernel {KERNEL_IPYKERNEL['version']}", flush=True)
    return ask


def run_details(executed: Path, cell_timeout: int, counts: dict[str, int]) -> dict:
    """One run: replies rescued (and the slices' counts), the longest wait on an idle kernel, whether a cell's reply
    came only when its timeout ran out, and cells whose reply came but not their 'idle' (nbclient gave up on output)."""
    import nbformat

    from sbert_workbook.runner.notebooks import cell_timing

    nb = nbformat.read(executed, 4)
    timings = cell_timing(nb)
    stamps = [cell.get("metadata", {}).get("execution", {}) for cell in nb.cells if cell.cell_type == "code"]
    index, _, longest = max(timings, key=lambda timing: timing[2], default=(None, 0.0, 0.0))
    return {"rescued": sum(n for key, n in counts.items() if key.endswith(" rescued")), "counts": counts,
            "longest_idle_wait_s": round(longest, 2), "longest_idle_wait_at_cell": index,
            "waited_out_timeout": any(waited >= 5 and worked + waited >= cell_timeout - 2 for _, worked, waited in timings),
            "output_cut_short": sum("shell.execute_reply" in t and "iopub.status.idle" not in t for t in stamps)}


def slowest_cell(executed: Path, seconds: list[float | None]) -> str:
    """For a run over 3 × the median so far: which cell's reply came late (nbclient's timings), kept for reading."""
    finished = [s for s in seconds if s is not None]
    if len(finished) < 5 or finished[-1] <= SLOW_FACTOR * statistics.median(finished):
        return ""
    import shutil

    import nbformat

    from sbert_workbook.runner.notebooks import cell_timing

    kept = executed.with_name(f"slow_run_{len(seconds)}_{executed.name}")
    shutil.copy(executed, kept)
    index, worked, waited = max(cell_timing(nbformat.read(executed, 4)), key=lambda timing: timing[2])
    return (f"   <- over {SLOW_FACTOR:g} × the median: around cell {index} (worked {worked:.1f} s) the client waited "
            f"{waited:.1f} s on an idle kernel ({kept.relative_to(ROOT)})")


# ----------------------------------------------------------------------------- classroom loads in Chromium
def time_app_loads(browser, url: str, loads: int, timeout_s: int) -> list[float | None]:
    """Seconds from navigation to the first drawn figure, per load (a fresh browser context each); None past ``timeout_s``."""
    from sbert_workbook.classroom.pages import FIGURE_DRAWN_JS

    seconds: list[float | None] = []
    for load in range(1, loads + 1):
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        started = time.perf_counter()
        try:
            page.goto(url, wait_until="commit", timeout=timeout_s * 1000)
            page.wait_for_function(FIGURE_DRAWN_JS, timeout=timeout_s * 1000)  # sbert_workbook/classroom/pages.py
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
    parser.add_argument("--without-slices", action="store_true",
                        help="wait as plain nbclient does: sets SBERT_WORKBOOK_REPLY_SLICES=0 (sbert_workbook.runner.replies)")
    parser.add_argument("--label", default="", help="what this measurement is (e.g. 'before: ipykernel 7.4.0')")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    if args.without_slices:
        from sbert_workbook.runner.replies import SLICES_ENV

        os.environ[SLICES_ENV] = "0"
    if args.kind == "notebooks":
        notebook = find_notebook(args.notebook)
        print(f"{args.runs} consecutive quick-mode runs of {notebook.name}, cell timeout {args.cell_timeout} s", flush=True)
        seconds, details = time_notebook_runs(notebook, args.runs, args.cell_timeout)
        report({**summary("notebooks", notebook.name, seconds, args.label, details), "kernel_ipykernel": KERNEL_IPYKERNEL.get("version")})
        return 0
    from playwright.sync_api import sync_playwright

    from sbert_workbook.classroom.pages import CHROMIUM, CHROMIUM_ARGS, free_port, start_classroom, stop

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
