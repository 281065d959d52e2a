"""A room that opens the classroom app at once: N pages at the same moment, each timed to its first figure.

    python tools/classroom_load.py --pages 10 [--pages 20 ...] [--room 30] [--label after] [--app pair_explorer]
                                   [--arrive ready|start|SECONDS]

Starts the app as ``./workbook classroom --quick --model embedded --no-browser [--room N]`` does, waits until its
preheated kernels are ready (with ``--room``: the app's "let the room in" line; ``--arrive start``: no wait, the
room comes the moment the app answers; ``--arrive 600``: ten minutes after it is ready, as a teacher who opens the
app early has it), then opens ``--pages`` pages in headless Chromium at one moment
(the two explorers in turn, or ``--app`` only), each in a browser context of its own. Every page is timed from
that moment to its first drawn figure, or to the app's "the room is full" page; the machine's memory in use is
sampled every half second; the server's log is searched for kernels culled, kernels started, "Kernel does not
exist" and "Uncaught exception". ``--voila-arg`` passes an option to Voilà after the app's own, e.g.
``--voila-arg=--KernelManager.ip=/tmp/room/kernel`` for the shared socket path the app once used.

Each row (pages, drawn, turned away, median, slowest, memory) is appended to ``docs/classroom_load.json``
with ``--label``; ``--markdown`` prints every stored row as the table docs/measurements.md shows.
This is a measurement script, not a test: it takes minutes, and its figures depend on the machine.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "docs" / "classroom_load.json"
GB = 1024 ** 3


def wait_for_room(log: Path, timeout_s: float) -> float:
    """Seconds until the app's log says the room is ready ("let the room in")."""
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        if "let the room in" in log.read_text(errors="replace"):
            return time.monotonic() - started
        time.sleep(0.5)
    raise RuntimeError(f"the app did not say 'let the room in' within {timeout_s:.0f} s; see {log}")


def log_counts(text: str) -> dict:
    """What the server's log says about the room's kernels."""
    import re

    return {"kernels_started": len(re.findall(r"Kernel started: ", text)),
            "kernels_culled": len(re.findall(r"Culling '\\w+' kernel", text)),
            "kernel_does_not_exist": text.count("Kernel does not exist"),
            "uncaught_exceptions": text.count("Uncaught exception"),
            "turned_away": len(re.findall(r"^503 GET .*ms$", text, flags=re.MULTILINE))}


def measure(pages: int, apps: tuple[str, ...], room: int, voila_args: tuple[str, ...], timeout_s: float,
            label: str, transport: str | None = None, max_kernels: int | None = None, arrive: str = "ready") -> dict:
    from sbert_workbook.classroom import pages as pages_

    from sbert_workbook.classroom.room import room_capacity

    port, token = pages_.free_port(), secrets.token_hex(16)
    max_kernels = room_capacity("embedded") if max_kernels is None else max_kernels  # as the app would read it
    log = Path(tempfile.mkdtemp(prefix="sbw-load-")) / "voila.log"
    before = pages_.used_memory_bytes()
    sampler = pages_.MemorySampler()
    server = pages_.start_classroom(port, token, log, room=room, room_app=apps[0], max_kernels=max_kernels,
                                    extra_args=voila_args, transport=transport)
    try:
        warm_s = None
        if room and arrive != "start":
            warm_s = wait_for_room(log, timeout_s)
            if arrive != "ready":
                time.sleep(float(arrive))
        ready = pages_.used_memory_bytes()
        load = pages_.open_at_once(f"http://127.0.0.1:{port}", token, pages_.room_of(pages, apps), timeout_s,
                                   server=server)
    finally:
        peak = sampler.stop()
        pages_.stop(server)
    text = log.read_text(errors="replace")
    from sbert_workbook.runner.transport import default_transport

    row = {"label": label, "pages": pages, "apps": list(apps), "room": room, "voila_args": list(voila_args),
           "arrive": arrive, **log_counts(text),
           "max_kernels": max_kernels,
           "transport": transport or default_transport(),
           **load.summary(), "seconds": [None if p.seconds is None else round(p.seconds, 1) for p in load.loads],
           "warm_up_s": None if warm_s is None else round(warm_s, 1),
           "memory_before_gb": round(before / GB, 2), "memory_ready_gb": round(ready / GB, 2),
           "memory_peak_gb": round(peak / GB, 2), "machine_memory_gb": round(_total_memory() / GB, 1),
           "invalid_signature_lines": text.count("Invalid Signature"), "cores": os.cpu_count(),
           "load_average_after": [round(x, 2) for x in os.getloadavg()],
           "measured": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")}
    return row


def _total_memory() -> int:
    with open("/proc/meminfo") as meminfo:
        return int(meminfo.readline().split()[1]) * 1024


def _cpu(row: dict) -> str:
    cpu = row.get("cpu_s") or {}
    return " / ".join(f"{cpu[role]:g}" for role in ("kernels", "server", "browser")) if cpu else "–"


def markdown(rows: list[dict]) -> str:
    lines = ["| label | transport | room | arrives | max kernels | pages | drawn | room full | median s | slowest s | slowest / median | warm-up s | "
             "memory peak GB (before) | CPU s while loading: kernels / server / browser | Invalid Signature lines | "
             "log: kernels started / culled / 'does not exist' / uncaught | measured |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        arrives = r.get("arrive", "ready" if r["room"] else "–")
        arrives = {"ready": "when ready", "start": "at start"}.get(arrives, f"{arrives} s after ready")
        logged = ("–" if "kernels_started" not in r else
                  f"{r['kernels_started']} / {r['kernels_culled']} / {r['kernel_does_not_exist']} / {r['uncaught_exceptions']}")
        lines.append(f"| {r['label']} | {r.get('transport', 'ipc')} | {r['room'] or '–'} | {arrives if r['room'] else '–'} | "
                     f"{r.get('max_kernels', '–')} | {r['pages']} | {r['drawn']} | {r['room_full']} | "
                     f"{r['median_s']} | {r['slowest_s']} | {r['slowest_over_median']} | {'–' if r['warm_up_s'] is None else r['warm_up_s']} | "
                     f"{r['memory_peak_gb']} ({r['memory_before_gb']}) | {_cpu(r)} | {r['invalid_signature_lines']} | "
                     f"{logged} | {r['measured'][:10]} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, action="append", help="visitors at once (repeat for several rooms)")
    parser.add_argument("--app", action="append", help="explorer(s) the visitors open (default: both, in turn)")
    parser.add_argument("--room", type=int, default=0, help="the app's --room (preheated kernels; 0: none)")
    parser.add_argument("--arrive", default="ready", help="when the room comes: 'ready' (when the app says so), 'start' "
                        "(the moment it answers) or seconds after it is ready (default: ready)")
    parser.add_argument("--max-kernels", type=int, default=None, help="the app's --max-kernels (default: from memory)")
    parser.add_argument("--transport", choices=["ipc", "tcp"], help="the kernels' transport (default: the app's)")
    parser.add_argument("--voila-arg", action="append", default=[], help="an option for Voilà after the app's own")
    parser.add_argument("--timeout", type=float, default=600, help="seconds a page may take to draw (default 600)")
    parser.add_argument("--pause", type=float, default=20, help="seconds between rooms, for the machine to settle")
    parser.add_argument("--label", default="", help="what this measurement is (e.g. 'before: one socket path')")
    parser.add_argument("--markdown", action="store_true", help="print the stored rows as a table and stop")
    args = parser.parse_args(argv)
    history = json.loads(RESULTS.read_text()) if RESULTS.is_file() else []
    if args.markdown:
        print(markdown(history))
        return 0
    from sbert_workbook.classroom.pages import APPS

    for pages in args.pages or [10]:
        row = measure(pages, tuple(args.app or APPS), args.room, tuple(args.voila_arg), args.timeout, args.label,
                      args.transport, args.max_kernels, args.arrive)
        print(json.dumps({k: v for k, v in row.items() if k != "seconds"}), flush=True)
        history.append(row)
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(history, indent=1, ensure_ascii=False) + "\n")
        time.sleep(args.pause)
    print(markdown(history))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
