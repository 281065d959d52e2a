"""The classroom app as a room meets it: start it, open its pages in headless Chromium, time each to its first figure.

Shared by ``tools/classroom_load.py`` (a room at once), ``tools/stall_check.py`` (one visitor after another),
``tests/test_browser.py`` (six at once) and ``./workbook binder-check`` (one page in Binder's environment; it lives
in the package so that the check needs nothing from a checkout's ``tools/``). Pages are opened with Playwright's asyncio API, so N visitors
navigate at the same moment from one browser, each in a context of its own (its own cookies, as N laptops).
"""
from __future__ import annotations

import asyncio
import os
import signal
import socket
import statistics
import subprocess
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

CHROMIUM = Path(os.environ.get("SBERT_WORKBOOK_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: A plotly figure with data and a size on the page, every trace drawn.
FIGURE_DRAWN_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot'))
    .some(g => g.data && g.data.length && g._fullLayout && g.getBoundingClientRect().width > 0
               && g.querySelectorAll('g.trace').length + g.querySelectorAll('g.hm').length > 0)"""
#: What the app answers when it holds no more kernels (sbert_workbook.classroom.room.ROOM_FULL_TITLE), in the page's text.
ROOM_FULL_JS = "() => document.body && document.body.innerText.includes('The room is full')"
APPS = ("embedding_explorer", "pair_explorer")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_classroom(port: int, token: str, log: Path, cull_after_s: int = 120, room: int = 0, room_app: str = APPS[0],
                    max_kernels: int | None = None, extra_args: tuple[str, ...] = (), env: dict[str, str] | None = None, transport: str | None = None,
                    answer_within_s: float = 120) -> subprocess.Popen:
    """The Voilà app as ``./workbook classroom --quick --model embedded --no-browser [--room N ...]`` starts it, answering
    on ``port``; ``extra_args`` go to Voilà after the app's own (a later option wins: how the load script tries
    the shared socket path the app once used). ``env`` adds to the app's environment. Raises ``RuntimeError`` if it does not answer."""
    from sbert_workbook.classroom.room import classroom_command

    argv, app_env = classroom_command(port, "127.0.0.1", token, "embedded", quick=True, open_browser=False,
                                      cull_after_s=cull_after_s, room=room, room_app=room_app,
                                      max_kernels=max_kernels, transport=transport)
    app_env = {**app_env, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false", **(env or {})}
    server = subprocess.Popen([*argv, *extra_args], env=app_env, stdout=log.open("w"), stderr=subprocess.STDOUT,
                              start_new_session=True)
    deadline = time.monotonic() + answer_within_s
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the classroom app exited with code {server.returncode}:\n{log.read_text()[-3000:]}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/?token={token}", timeout=5)
            return server
        except OSError:
            time.sleep(0.5)
    stop(server)
    raise RuntimeError(f"the classroom app did not answer within {answer_within_s:.0f} s:\n{log.read_text()[-3000:]}")


def stop(server: subprocess.Popen) -> None:
    """Stop the app's process group (server and kernels)."""
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(10)


def cpu_seconds_by_role(server: subprocess.Popen) -> dict[str, float]:
    """CPU seconds used so far by the app's kernels, by its server process, and by every Chromium process."""
    ticks = os.sysconf("SC_CLK_TCK")
    roles = {"kernels": 0.0, "server": 0.0, "browser": 0.0}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            name, rest = stat.read_text().rsplit(")", 1)
            fields, command = rest.split(), (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        seconds = (int(fields[11]) + int(fields[12])) / ticks
        if int(stat.parent.name) == server.pid:
            roles["server"] += seconds
        elif int(fields[1]) == server.pid and b"ipykernel" in command:
            roles["kernels"] += seconds
        elif b"chromium" in command.split(b"\0", 1)[0] or "chrom" in name:
            roles["browser"] += seconds
    return roles


def kernel_processes(server: subprocess.Popen | int) -> dict[int, float]:
    """``{pid: CPU seconds so far}`` of the kernels ``server`` (a process, or its pid) started (its children running
    ipykernel), from /proc."""
    parent = server if isinstance(server, int) else server.pid
    ticks = os.sysconf("SC_CLK_TCK")
    kernels = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes()
        except OSError:  # the process ended while we looked
            continue
        if int(fields[1]) == parent and b"ipykernel" in command:
            kernels[int(stat.parent.name)] = (int(fields[11]) + int(fields[12])) / ticks
    return kernels


def wait_until_kernels_idle(server: subprocess.Popen, kernels: int, timeout_s: float, quiet_s: float = 5) -> float:
    """Seconds until ``server`` runs ``kernels`` kernels and none of them has worked for ``quiet_s`` seconds
    (preheated kernels have run their notebook: the room is ready)."""
    started = time.monotonic()
    before, quiet_since = kernel_processes(server), time.monotonic()
    while time.monotonic() - started < timeout_s:
        time.sleep(1)
        now = kernel_processes(server)
        worked = len(now) != len(before) or sum(now.values()) - sum(before.values()) > 0.05 * len(now)
        before, quiet_since = now, time.monotonic() if worked or len(now) < kernels else quiet_since
        if time.monotonic() - quiet_since >= quiet_s:
            return time.monotonic() - started - quiet_s
    raise RuntimeError(f"the app's {kernels} kernels were not idle within {timeout_s:.0f} s")


def used_memory_bytes() -> int:
    """Memory in use on this machine (MemTotal − MemAvailable, /proc/meminfo)."""
    fields = {}
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            name, value = line.split(":", 1)
            fields[name] = int(value.split()[0]) * 1024
    return fields["MemTotal"] - fields["MemAvailable"]


class MemorySampler:
    """The machine's memory in use, sampled every ``every_s`` seconds in a thread; ``peak`` after ``stop``."""

    def __init__(self, every_s: float = 0.5):
        self.every_s, self.samples = every_s, [used_memory_bytes()]
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._done.wait(self.every_s):
            self.samples.append(used_memory_bytes())

    def stop(self) -> int:
        self._done.set()
        self._thread.join()
        return max(self.samples)


@dataclass
class PageLoad:
    app: str
    seconds: float | None  # to the first drawn figure; None if it never drew
    room_full: bool = False  # the app answered "the room is full" instead


@dataclass
class RoomLoad:
    loads: list[PageLoad] = field(default_factory=list)
    cpu_s: dict[str, float] = field(default_factory=dict)  # CPU seconds by role while the pages loaded

    @property
    def drawn(self) -> list[float]:
        return sorted(load.seconds for load in self.loads if load.seconds is not None)

    def summary(self) -> dict:
        drawn = self.drawn
        median = statistics.median(drawn) if drawn else None
        return {"pages": len(self.loads), "drawn": len(drawn), "room_full": sum(load.room_full for load in self.loads),
                "never_drawn": sum(load.seconds is None and not load.room_full for load in self.loads),
                "median_s": None if median is None else round(median, 1),
                "slowest_s": round(drawn[-1], 1) if drawn else None,
                "slowest_over_median": round(drawn[-1] / median, 2) if drawn else None, "cpu_s": self.cpu_s}


async def _load(context, url: str, app: str, timeout_s: float, started: float) -> PageLoad:
    page = await context.new_page()
    try:
        await page.goto(url, wait_until="commit", timeout=timeout_s * 1000)
        remaining_ms = max(1.0, timeout_s - (time.monotonic() - started)) * 1000
        await page.wait_for_function(f"() => ({FIGURE_DRAWN_JS})() || ({ROOM_FULL_JS})()", timeout=remaining_ms)
        if await page.evaluate(ROOM_FULL_JS):
            return PageLoad(app, None, room_full=True)
        return PageLoad(app, time.monotonic() - started)
    except Exception:  # noqa: BLE001 - playwright's TimeoutError: the spinner a visitor would see
        return PageLoad(app, None)


async def _open_at_once(base_url: str, token: str, apps: list[str], timeout_s: float, keep_open_s: float,
                        server: subprocess.Popen | None) -> RoomLoad:
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        contexts = [await browser.new_context(viewport={"width": 1400, "height": 1000}) for _ in apps]
        cpu_before = cpu_seconds_by_role(server) if server else {}
        started = time.monotonic()
        loads = await asyncio.gather(*(_load(context, f"{base_url}/voila/render/{app}.ipynb?token={token}", app,
                                             timeout_s, started) for context, app in zip(contexts, apps)))
        cpu_after = cpu_seconds_by_role(server) if server else {}
        await asyncio.sleep(keep_open_s)
        await browser.close()
    return RoomLoad(list(loads), {role: round(cpu_after[role] - cpu_before[role], 1) for role in cpu_after})


def open_at_once(base_url: str, token: str, apps: list[str], timeout_s: float = 600, keep_open_s: float = 0,
                 server: subprocess.Popen | None = None) -> RoomLoad:
    """Open one page per entry of ``apps`` (app names, e.g. ``["pair_explorer"] * 10``) at the same moment, each in a
    browser context of its own, and time each from that moment to its first drawn figure (or its "room is full").
    ``keep_open_s``: how long the pages stay open after the last one finished; with ``server`` (the app's process),
    the CPU seconds its kernels, its server and the browser used until the last page finished."""
    return asyncio.run(_open_at_once(base_url, token, apps, timeout_s, keep_open_s, server))


def room_of(pages: int, apps: tuple[str, ...] = APPS) -> list[str]:
    """``pages`` visitors spread over ``apps`` in turn: 10 → five of each explorer."""
    return [apps[i % len(apps)] for i in range(pages)]
