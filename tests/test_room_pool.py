"""A room opened early keeps its kernels (issue 54): the preheated pool, the culler and the cap, with real kernels.

The pool's own bookkeeping (:mod:`sbert_workbook.classroom.room_pool`) is checked on asyncio tasks shaped like Voilà's pool
entries; the culler's rules on real kernels of ``RoomKernelManager``; the whole room on the real app
(:func:`test_a_room_opened_early_keeps_its_kernels_and_turns_the_next_visitor_away_at_once`).
"""
from __future__ import annotations

import asyncio
import logging
import secrets
import time
import urllib.error
import urllib.request
import weakref
from datetime import timedelta

import pytest
from traitlets.config import Config

from sbert_workbook.classroom import room
from sbert_workbook.classroom.room_pool import HANDED_IN_ORDER, RoomPool, pool_item_state, room_ready_line


async def _finished(value):
    return value


async def _failing():
    raise RuntimeError("the kernel died")


def test_each_pool_entry_says_where_it_stands():
    async def scenario():
        render_done = asyncio.ensure_future(_finished(None))
        render_running = asyncio.get_running_loop().create_future()
        ready = asyncio.ensure_future(_finished({"task": render_done, "kernel_id": "a"}))
        running = asyncio.ensure_future(_finished({"task": render_running, "kernel_id": "b"}))
        failed = asyncio.ensure_future(_failing())
        cancelled = asyncio.ensure_future(asyncio.sleep(60))
        waiting = [asyncio.ensure_future(asyncio.sleep(60)) for _ in range(3)]
        await asyncio.sleep(0.01)
        cancelled.cancel()
        await asyncio.sleep(0.01)
        filling, parked = weakref.WeakSet([waiting[0]]), weakref.WeakSet([waiting[1]])
        states = [pool_item_state(t, filling, parked) for t in (ready, running, failed, cancelled, *waiting)]
        for task in waiting:
            task.cancel()
        render_running.cancel()
        return states

    assert asyncio.run(scenario()) == ["ready", "running", "failed", "failed", "starting", "parked", "delayed"]
    assert HANDED_IN_ORDER == ("ready", "running", "starting"), "a visitor is never handed a refill still waiting"


class FakeVoilaPool:
    """Voilà's ``VoilaKernelManager`` as far as the room relies on it (voila/voila_kernel_manager.py, 0.5): pools of
    tasks per notebook, ``fill_if_needed`` appending ``pool_size - len(pool)`` tasks that wait ``delay`` and then run
    ``self._initialize``, ``get_rendered_notebook`` popping the pool's first entry and refilling after
    ``fill_delay``; kernels are names in ``self._kernels``, and the cap is ``RoomKernelManager``'s."""

    def __init__(self, pool_size: int = 2, max_kernels: int = 2, fill_delay: float = 0.05):
        self.kernel_pools_config = {"default": {"pool_size": 0}, "app.ipynb": {"pool_size": pool_size}}
        self.max_kernels, self.fill_delay, self.log = max_kernels, fill_delay, logging.getLogger("fake-voila")
        self._kernels: dict[str, None] = {}
        self._pools: dict[str, list] = {}
        self.notebook_data: dict[str, dict] = {}
        self.fill_if_needed(delay=0, notebook_name="app.ipynb")

    def room_is_full(self) -> bool:
        return len(self._kernels) >= self.max_kernels

    def _notebook_renderer_factory(self, notebook_path):
        from types import SimpleNamespace

        async def initialize():
            return None

        notebook = SimpleNamespace(metadata=SimpleNamespace(kernelspec=SimpleNamespace(name="python3")))
        return SimpleNamespace(initialize=initialize, notebook_path=notebook_path, notebook=notebook,
                               template_name="lab", theme="light")

    def fill_if_needed(self, delay=None, notebook_name=None, **kwargs):
        async def wait_before(seconds, coroutine):
            await asyncio.sleep(seconds)
            return await coroutine

        pool = self._pools.setdefault(notebook_name, [])
        size = self.kernel_pools_config[notebook_name]["pool_size"]
        for _ in range(size - len(pool)):
            pool.append(asyncio.ensure_future(wait_before(self.fill_delay if delay is None else delay,
                                                          self._initialize(notebook_name))))

    async def _initialize(self, notebook_path, kernel_id=None, **kwargs):
        if self.room_is_full():
            from tornado.web import HTTPError

            raise HTTPError(503, reason=room.ROOM_FULL_TITLE)
        kernel_id = f"k{len(self._kernels) + len(getattr(self, 'gone', []))}"
        self._kernels[kernel_id] = None
        return {"task": asyncio.ensure_future(_finished(None)), "kernel_id": kernel_id}

    def get_pool_size(self, notebook_name):
        return len(self._pools.get(notebook_name, []))

    async def get_rendered_notebook(self, notebook_name, **kwargs):
        content = await self._pools[notebook_name].pop(0)
        self.fill_if_needed(delay=None, notebook_name=notebook_name)
        return content["kernel_id"]

    async def shutdown_all(self):
        for pool in self._pools.values():
            for task in pool:
                task.cancel()


class FakeRoom(RoomPool, FakeVoilaPool):
    """The room's pool in front of the fake."""


def test_a_full_room_parks_its_refills_and_hands_out_only_kernels_that_will_run(monkeypatch):
    from sbert_workbook.classroom import room_pool

    monkeypatch.setattr(room_pool, "PARKED_POLL_S", 0.01)

    async def scenario():
        pool = FakeRoom(pool_size=2, max_kernels=2)
        seen = {}
        await asyncio.sleep(0.01)
        seen["known"] = pool.notebook_data.get("app.ipynb", {})
        await asyncio.sleep(0.1)
        seen["ready at start"] = pool.get_pool_size("app.ipynb")
        first = await pool.get_rendered_notebook("app.ipynb")
        second = await pool.get_rendered_notebook("app.ipynb")
        await asyncio.sleep(0.2)  # past the refill delay: both refills find the room full
        seen["states when full"] = sorted(state for _, state in pool._pool_states("app.ipynb"))
        seen["handed when full"] = pool.get_pool_size("app.ipynb")
        seen["kernels when full"] = sorted(pool._kernels)
        pool.gone = [first]
        del pool._kernels[first]  # the first visitor left and the culler took their kernel
        await asyncio.sleep(0.1)
        seen["kernels after one left"] = len(pool._kernels)
        seen["handed after one left"] = pool.get_pool_size("app.ipynb")
        pool._keeper.cancel()
        await pool.shutdown_all()
        return first, second, seen

    first, second, seen = asyncio.run(scenario())
    assert seen["known"]["template"] == "lab", "Voila hands out pool kernels only of notebooks it knows"
    assert seen["ready at start"] == 2 and {first, second} == {"k0", "k1"}
    assert seen["states when full"] == ["parked", "parked"], "refills wait for a place instead of failing"
    assert seen["handed when full"] == 0, "a visitor past the cap is not handed a waiting refill (the room-full page)"
    assert seen["kernels when full"] == ["k0", "k1"], "no kernel started past the cap"
    assert seen["kernels after one left"] == 2 and seen["handed after one left"] == 1, "a freed place goes to a refill"


def test_the_best_entry_is_handed_out_and_failed_ones_are_replaced():
    async def scenario():
        pool = FakeRoom(pool_size=2, max_kernels=5, fill_delay=30)
        await asyncio.sleep(0.1)
        entries = pool._pools["app.ipynb"]
        entries.insert(0, asyncio.ensure_future(_failing()))  # a kernel that died while it waited
        entries.insert(0, asyncio.ensure_future(asyncio.sleep(60)))  # a refill still waiting out its delay
        await asyncio.sleep(0.01)
        handed = await pool.get_rendered_notebook("app.ipynb")
        before = sorted(state for _, state in pool._pool_states("app.ipynb"))
        pool.keep_room_once()
        after = sorted(state for _, state in pool._pool_states("app.ipynb"))
        pool._keeper.cancel()
        await pool.shutdown_all()
        return handed, before, after

    handed, before, after = asyncio.run(scenario())
    assert handed in {"k0", "k1"}, "a ready kernel is handed out before a delayed refill at the head of the pool"
    assert "failed" in before and "failed" not in after


def test_the_teacher_is_told_once_when_the_room_is_ready(capsys):
    async def scenario():
        pool = FakeRoom(pool_size=2, max_kernels=2)
        await asyncio.sleep(0.1)
        pool.keep_room_once()
        pool.keep_room_once()
        pool._keeper.cancel()
        await pool.shutdown_all()

    asyncio.run(scenario())
    assert capsys.readouterr().out.count(room_ready_line(2, "app")) == 1
    assert room_ready_line(30, "embedding_explorer") == "Room: 30 kernels of embedding_explorer ready: let the room in."


def test_the_culler_takes_only_kernels_a_visitor_has_left():
    """Real kernels, every one idle past the timeout: one never connected (handed to a page still loading) is kept
    until its grace runs out; one a page connected to and left is culled; one waiting in the pool is kept."""
    import shutil
    import tempfile

    from sbert_workbook.runner.transport import kernel_settings, socket_folder_root

    folder = tempfile.mkdtemp(prefix="sbw-cull-test-", dir=socket_folder_root())

    async def scenario():
        manager = room.RoomKernelManager(config=Config({"KernelManager": kernel_settings()}), max_kernels=3,
                                         connection_dir=folder, root_dir=folder, cull_idle_timeout=1)
        unclaimed, left, pooled = [await manager.start_kernel(kernel_name="python3") for _ in range(3)]
        try:
            pool_entry = asyncio.ensure_future(_finished({"task": None, "kernel_id": pooled}))
            await pool_entry
            manager._pools = {"app.ipynb": [pool_entry]}
            manager.notify_connect(left)
            manager.notify_disconnect(left)
            for kernel_id in (unclaimed, left, pooled):
                manager.get_kernel(kernel_id).last_activity -= timedelta(seconds=60)
            await manager.cull_kernels()
            first_pass = sorted(manager.list_kernel_ids())
            manager.unclaimed_grace_s = 0
            for kernel_id in manager.list_kernel_ids():  # a kernel that finished starting since was just active
                manager.get_kernel(kernel_id).last_activity -= timedelta(seconds=60)
            await manager.cull_kernels()
            return first_pass, sorted(manager.list_kernel_ids()), (unclaimed, left, pooled)
        finally:
            await manager.shutdown_all()

    first_pass, second_pass, (unclaimed, left, pooled) = asyncio.run(scenario())
    shutil.rmtree(folder, ignore_errors=True)
    assert first_pass == sorted([unclaimed, pooled]), "the left kernel goes; the unclaimed one waits for its page"
    assert second_pass == [pooled], "past its grace an unclaimed kernel goes; a pooled one never does"


def test_error_pages_render_without_the_servers_static_path():
    from sbert_workbook.classroom.voila_server import error_page

    page = error_page(404, "Kernel <gone>")
    assert "<title>404: Kernel &lt;gone&gt;</title>" in page


def _get(url: str):
    started = time.monotonic()
    try:
        with urllib.request.urlopen(url, timeout=120) as reply:
            reply.read()
            return reply.status, dict(reply.headers), time.monotonic() - started
    except urllib.error.HTTPError as refused:
        return refused.code, dict(refused.headers), time.monotonic() - started


def test_a_room_opened_early_keeps_its_kernels_and_turns_the_next_visitor_away_at_once(tmp_path):
    """The app as `./workbook classroom --room 2 --max-kernels 2` starts it, with a 2-second culler: the room waits
    past the culler's time, two visitors take the preheated kernels and their pages do not connect for 8 s (a slow
    laptop), a third is turned away at once with a page that reloads itself; nothing is culled, and the server's log
    has no 'Kernel does not exist' and no 'Uncaught exception'."""
    from sbert_workbook.classroom import pages

    port, token, log = pages.free_port(), secrets.token_hex(8), tmp_path / "voila.log"
    server = pages.start_classroom(port, token, log, cull_after_s=2, room=2, max_kernels=2)
    url = f"http://127.0.0.1:{port}/voila/render/embedding_explorer.ipynb?token={token}"
    try:
        pages.wait_until_kernels_idle(server, 2, timeout_s=300)
        time.sleep(6)  # the room waits, idle, three times the culler's time
        waited = len(pages.kernel_processes(server))
        visitors = [_get(url) for _ in range(3)]
        time.sleep(8)  # the two pages handed a kernel have not connected yet
        kept = len(pages.kernel_processes(server))
    finally:
        pages.stop(server)
    text = log.read_text(errors="replace")
    assert waited == 2, "preheated kernels are not culled while they wait for the room"
    assert [status for status, _, _ in visitors] == [200, 200, 503]
    status, headers, seconds = visitors[2]
    assert seconds < 5 and headers.get("Refresh") == "60", "the visitor past the cap is told at once, and retried"
    assert kept == 2, "a kernel handed to a page that has not connected yet is not culled"
    assert "let the room in" in text
    assert "Kernel does not exist" not in text and "Uncaught exception" not in text


def test_visitors_who_arrive_with_the_teacher_are_handed_the_rooms_kernels(tmp_path):
    """The app as `./workbook classroom --room 1 --max-kernels 1` starts it, a visitor arriving the moment it answers:
    they are handed the kernel that is starting for the room (their page waits for it and draws), not a kernel of
    their own; the next visitor is turned away at once."""
    from sbert_workbook.classroom import pages

    port, token, log = pages.free_port(), secrets.token_hex(8), tmp_path / "voila.log"
    server = pages.start_classroom(port, token, log, room=1, max_kernels=1)
    url = f"http://127.0.0.1:{port}/voila/render/embedding_explorer.ipynb?token={token}"
    try:
        visitors = [_get(url) for _ in range(2)]
    finally:
        pages.stop(server)
    text = log.read_text(errors="replace")
    assert [status for status, _, _ in visitors] == [200, 503]
    assert "Using pre-heated kernel" in text and text.count("Kernel started") == 1
