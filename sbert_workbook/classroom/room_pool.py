"""A room's preheated kernels that wait for their visitors (``./workbook classroom --room N``).

Voilà keeps a pool of kernels per notebook, each started and run before anyone comes, and hands one to each
visitor. Left as it is, a room the teacher opens early loses them (issue 54): the idle culler shuts down kernels
that a visitor has been handed but whose page has not connected yet (their last activity was the notebook's run,
minutes ago), the visitor then sees "Kernel does not exist"; refills start past ``--max-kernels`` and fail, and a
failed refill stays in the pool for the next visitor to be handed; visitors who arrive before the first kernel
has started get kernels of their own instead of the pool's; a visitor handed a refill that is still waiting
its turn waits with it, and is only then told the room is full.

:class:`RoomPool`, put in front of Voilà's pool manager by :func:`room_pool_factory`, keeps a room:

- a kernel waiting in the pool, or handed to a page that has not connected yet, is never culled (the latter for
  :data:`UNCLAIMED_GRACE_S`, after which its page is taken as gone); the culler applies to kernels a visitor has
  left (``sbert_workbook.classroom.room.RoomKernelManager.cull_kernel_if_idle``);
- a refill waits for a free place under the cap instead of failing, and a waiting or delayed refill is never
  handed to a visitor: with no ready kernel a visitor gets a kernel of their own, or at once the room-is-full page;
- visitors who arrive with the teacher, before the first kernel has started, are handed the pool's kernels
  (Voilà would start kernels of their own until the room is full);
- every :data:`KEEP_ROOM_EVERY_S` seconds failed kernels leave the pool and the pool is topped up to its size, for as
  long as the app runs, and the teacher is told when the whole pool is ready ("30 kernels ready: let the room in").
"""
from __future__ import annotations

import asyncio
import weakref

#: Seconds a kernel handed to a page may wait for that page to connect before the culler may take it: 30 pages that
#: loaded at once on a 2-core machine connected within 137 s (docs/classroom_load.md), so ten minutes means the page
#: is gone, not slow.
UNCLAIMED_GRACE_S = 600
#: How often the room checks its pool: failed kernels out, the pool topped up, readiness told.
KEEP_ROOM_EVERY_S = 5
#: How often a refill that found the room full looks again for a free place.
PARKED_POLL_S = 2


def room_ready_line(ready: int, app: str) -> str:
    """What the teacher reads once every preheated kernel has run its notebook."""
    return f"Room: {ready} kernels of {app} ready: let the room in."


def pool_item_state(task: asyncio.Task, filling, parked) -> str:
    """Where one pool entry stands: ``failed``, ``ready`` (its kernel ran the notebook), ``running`` (its kernel is
    started, the notebook runs), ``starting`` (a kernel is starting for it), ``parked`` (a refill waiting for a free
    place under the cap) or ``delayed`` (a refill waiting out Voilà's ``fill_delay``)."""
    if task.done():
        if task.cancelled() or task.exception() is not None:
            return "failed"
        return "ready" if task.result()["task"].done() else "running"
    if task in parked:
        return "parked"
    return "starting" if task in filling else "delayed"


#: Pool entries a visitor may be handed, best first: a kernel that is ready, then one running its notebook, then one
#: starting (at the app's start every entry is starting, and the first visitors wait for theirs).
HANDED_IN_ORDER = ("ready", "running", "starting")


class RoomPool:
    """Mixed in front of Voilà's ``VoilaKernelManager`` (whose base is ``RoomKernelManager``): see the module."""

    def __init__(self, **kwargs):
        self._filling: weakref.WeakSet = weakref.WeakSet()  # pool tasks past their delay, starting their kernel
        self._parked: weakref.WeakSet = weakref.WeakSet()  # pool tasks waiting for a free place under the cap
        self._room_told = False
        super().__init__(**kwargs)
        self._keeper = asyncio.get_event_loop().create_task(self._keep_room())

    def _pool_states(self, notebook_name: str) -> list[tuple[asyncio.Task, str]]:
        return [(task, pool_item_state(task, self._filling, self._parked)) for task in self._pools.get(notebook_name, [])]

    def get_pool_size(self, notebook_name: str) -> int:
        """Pool entries a visitor may be handed now (Voilà counts delayed and waiting refills too, then hands one out)."""
        return sum(state in HANDED_IN_ORDER for _, state in self._pool_states(notebook_name))

    async def get_rendered_notebook(self, notebook_name: str, *args, **kwargs):
        """Voilà's hand-out (it takes the pool's first entry), with the best entry moved first."""
        pool = self._pools.get(notebook_name, [])
        ranked = sorted((HANDED_IN_ORDER.index(state), i, task) for i, (task, state) in enumerate(self._pool_states(notebook_name))
                        if state in HANDED_IN_ORDER)
        if ranked:
            best = ranked[0][2]
            pool.remove(best)
            pool.insert(0, best)
        return await super().get_rendered_notebook(notebook_name, *args, **kwargs)

    async def _initialize(self, notebook_path: str, kernel_id: str | None = None, **kwargs):
        """A refill (no ``kernel_id``) waits for a free place under the cap, then starts its kernel as Voilà does."""
        from tornado.web import HTTPError

        if kernel_id is not None:  # a restart of a kernel the pool already holds
            return await super()._initialize(notebook_path, kernel_id, **kwargs)
        await self._announce_notebook(notebook_path)
        task = asyncio.current_task()
        while True:
            while self.room_is_full():
                self._parked.add(task)
                await asyncio.sleep(PARKED_POLL_S)
            self._parked.discard(task)
            self._filling.add(task)
            try:
                return await super()._initialize(notebook_path, None, **kwargs)
            except HTTPError as refused:  # a visitor's own kernel took the last place first
                if refused.status_code != 503:
                    raise
                self._filling.discard(task)

    async def _announce_notebook(self, notebook_path: str) -> None:
        """Voilà hands out pool kernels only for a notebook its ``notebook_data`` knows, which it learns once a pool
        kernel has started: a room arriving with the teacher would all get kernels of their own, past the cap. The
        room's notebooks are made known before their first kernel starts, as Voilà would record them."""
        if notebook_path in self.notebook_data:
            return
        renderer = self._notebook_renderer_factory(notebook_path)
        await renderer.initialize()
        self.notebook_data.setdefault(renderer.notebook_path, {
            "notebook": renderer.notebook, "template": renderer.template_name, "theme": renderer.theme,
            "kernel_name": renderer.notebook.metadata.kernelspec.name, "kernel_ids": set()})

    def _pool_size_wanted(self, notebook_name: str) -> int:
        default = self.kernel_pools_config.get("default", {})
        return int(self.kernel_pools_config.get(notebook_name, default).get("pool_size", default.get("pool_size", 0)))

    def keep_room_once(self) -> None:
        """One look at every pool: failed kernels out (logged), the pool topped up to its size, readiness told."""
        wanted = ready = 0
        for name in list(self._pools):
            pool = self._pools[name]
            for task, state in self._pool_states(name):
                if state == "failed":
                    pool.remove(task)
                    reason = "cancelled" if task.cancelled() else repr(task.exception())
                    self.log.warning("Room: a preheated kernel of %s failed (%s); starting another", name, reason)
            size = self._pool_size_wanted(name)
            if len(pool) < size:
                self.fill_if_needed(delay=self.fill_delay, notebook_name=name)
            wanted += size
            ready += sum(state == "ready" for _, state in self._pool_states(name))
        if wanted and ready >= wanted and not self._room_told:
            apps = ", ".join(name.removesuffix(".ipynb") for name in self._pools if self._pool_size_wanted(name))
            line = room_ready_line(ready, apps)
            self.log.info(line)
            print(line, flush=True)
        self._room_told = self._room_told or (wanted > 0 and ready >= wanted)

    async def _keep_room(self) -> None:
        while True:
            await asyncio.sleep(KEEP_ROOM_EVERY_S)
            try:
                self.keep_room_once()
            except Exception:  # noqa: BLE001 - the room goes on; the log says what went wrong
                self.log.exception("Room: checking the preheated kernels failed")

    async def shutdown_all(self, *args, **kwargs):
        self._keeper.cancel()
        return await super().shutdown_all(*args, **kwargs)


def room_pool_factory(voila_factory):
    """Voilà's ``voila_kernel_manager_factory`` with :class:`RoomPool` in front of its preheating manager (installed by
    :mod:`sbert_workbook.classroom.voila_server`); without preheated kernels Voilà's class is returned unchanged."""

    def factory(base_class, preheat_kernel: bool, default_pool_size: int, page_config_hook=None):
        voila_class = voila_factory(base_class, preheat_kernel, default_pool_size, page_config_hook)
        if not preheat_kernel:
            return voila_class

        class RoomPoolKernelManager(RoomPool, voila_class):
            async def cull_kernel_if_idle(self, kernel_id: str):
                # Past Voilà's own pool check (it drops entries from the list it walks and stops at a cancelled one):
                # the room's kernel manager below it skips kernels waiting in the pool.
                return await super(voila_class, self).cull_kernel_if_idle(kernel_id)

        return RoomPoolKernelManager

    return factory
