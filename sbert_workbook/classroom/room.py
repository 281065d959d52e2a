"""The classroom app's server: Voilà serving ``classroom/`` to a room (``./workbook classroom``).

Each visitor gets a kernel of their own, talking over sockets of its own (:mod:`sbert_workbook.runner.transport`)
and working on one CPU thread (the room shares the cores). A kernel whose page has closed goes once it has been
idle a while (:func:`kernel_culling_options`). For a room that arrives at once, ``--room N`` starts N kernels of
one explorer before anyone comes, each with the notebook already run (Voilà's preheated kernels), so the pages
draw at once; and the app never starts more kernels than the machine's memory holds (:func:`room_capacity`):
a visitor past that gets "the room is full, try again in a minute" (:class:`RoomKernelManager`) instead of a
page that never draws. ``tools/classroom_load.py`` measures both (docs/classroom_load.md).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from sbert_workbook.classroom.page_setup import CLASSROOM_MODEL_ENV_VAR, QUIET_LIBRARY_ENV
from sbert_workbook.environment.free_memory import free_memory
from sbert_workbook.runner.transport import kernel_options

#: Free memory one visitor's kernel needs with the embedded model once its explorer has drawn: 30 kernels (with their
#: 30 browser pages on the same machine) took 16.6-17.0 GB more than before they started (docs/classroom_load.md),
#: about 0.56 GB each; rounded up. It counts for any name that resolves to that model ("auto" offline does).
KERNEL_GB = {"embedded": 0.7}
#: For any other model (bert-base-uncased's weights are 0.44 GB against the embedded model's 0.09 GB): an estimate.
OTHER_MODEL_KERNEL_GB = 1.1
#: Memory kept free for the server, the system and the teacher's own browser.
RESERVE_GB = 1.5
ROOM_APPS = ("embedding_explorer", "pair_explorer")
#: Seconds after a visitor takes a preheated kernel before Voilà starts its replacement (Voilà's default: 1). Ten
#: visitors at once on 2 cores drew in 27 s with the refills a minute later, 93 s with them at once (the ten
#: replacements ran their notebook while the pages loaded): the rush passes first.
REFILL_AFTER_S = 60
#: What a visitor past the machine's capacity sees (the HTTP reason of a 503; classroom_pages looks for it).
ROOM_FULL_TITLE = "The room is full: try again in a minute"
#: Each kernel on one CPU thread: with several kernels on 2 cores, torch's default of one thread per core only
#: adds contention.
ONE_THREAD_PER_KERNEL = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}
GB = 1024 ** 3


def classroom_command(port: int = 8866, ip: str = "127.0.0.1", token: str = "", model: str = "auto",
                      quick: bool = False, open_browser: bool = True,
                      cull_after_s: int = 120, room: int = 0, room_app: str = ROOM_APPS[0],
                      max_kernels: int | None = None, transport: str | None = None) -> tuple[list[str], dict[str, str]]:
    """The Voilà command (argv, environment) that serves ``classroom/`` as a stand-alone app.

    Used by ``python -m sbert_workbook classroom`` (``./workbook classroom``). Voilà shows
    only the explorers' outputs, never the code; each visitor gets their own kernel, with the
    Hugging Face libraries' progress bars and logs off (``classroom.QUIET_LIBRARY_ENV``).
    Voilà starts a kernel on every page load and keeps it when the page closes; a kernel whose page
    is gone is shut down once it has been idle ``cull_after_s`` seconds (kernels with an open page
    are never culled), so a room reloading all lesson long does not fill memory. ``room``: kernels of
    ``room_app`` started and run before anyone comes (:func:`preheat_options`). ``max_kernels``: the most kernels
    at once (None: what this machine's free memory holds, :func:`room_capacity`). ``transport``: the kernels'
    (:func:`sbert_workbook.runner.transport.kernel_settings`).
    """
    from sbert_workbook.data.finding import repo_root
    from sbert_workbook.settings import QUICK_ENV_VAR

    root = repo_root()
    if root is None or not (root / "classroom").is_dir():
        raise FileNotFoundError("The classroom app needs a checkout of the workbook: no classroom/ folder was found "
                                "beside pyproject.toml. Clone the repository and run `./workbook classroom` there.")
    argv = [sys.executable, "-m", "sbert_workbook.classroom.voila_server", str(root / "classroom"), f"--port={port}", f"--Voila.ip={ip}",
            f"--Voila.token={token}", f"--Voila.open_browser={open_browser}", "--VoilaConfiguration.show_tracebacks=True",
            *kernel_options(transport), *kernel_culling_options(cull_after_s)]
    capacity = room_capacity(model) if max_kernels is None else max_kernels
    argv += capacity_options(capacity) + preheat_options(min(room, capacity), room_app)
    env = {**os.environ, **QUIET_LIBRARY_ENV, **ONE_THREAD_PER_KERNEL, CLASSROOM_MODEL_ENV_VAR: model,
           "HF_HUB_DISABLE_TELEMETRY": "1"}
    if quick:
        env[QUICK_ENV_VAR] = "1"
    return argv, env


def kernel_culling_options(cull_after_s: int) -> list[str]:
    """jupyter_server's culler, for kernels with no open page only (``cull_connected`` stays False)."""
    if cull_after_s <= 0:
        raise ValueError(f"cull_after_s must be a positive number of seconds, got {cull_after_s}.")
    return [f"--MappingKernelManager.cull_idle_timeout={cull_after_s}",
            f"--MappingKernelManager.cull_interval={max(1, min(30, cull_after_s // 2))}",
            "--MappingKernelManager.cull_connected=False"]


def available_memory_bytes() -> int:
    """Memory the room's kernels can still take now: :func:`~sbert_workbook.environment.free_memory.free_memory`, the
    lower of ``MemAvailable`` and every control group's limit (so a JupyterHub or Binder pod counts its own limit, not
    the host's memory); psutil's reading where neither can be read."""
    found = free_memory()
    if found is not None:
        return found.bytes
    import psutil

    return psutil.virtual_memory().available


def kernel_gb(model: str = "embedded") -> float:
    """Free memory (GB) one visitor's kernel needs with the model ``model`` resolves to, as the kernels will resolve it
    (:func:`~sbert_workbook.encoding.resolve.resolve_model`): ``"auto"`` offline is the embedded model. A name that
    resolves to nothing raises its ``ModelNotFoundError`` (with the fix) before any kernel starts; online, resolving
    fetches a model the hub cache lacks once, before the kernels that would each fetch it."""
    from sbert_workbook.encoding.resolve import EMBEDDED_MODEL_ID, resolve_model

    return KERNEL_GB["embedded"] if resolve_model(model).model_id == EMBEDDED_MODEL_ID else OTHER_MODEL_KERNEL_GB


def room_capacity(model: str = "embedded", available_bytes: int | None = None) -> int:
    """How many visitors' kernels of ``model`` (:func:`kernel_gb`) fit in the memory free now, keeping
    :data:`RESERVE_GB` free (at least one)."""
    available = available_memory_bytes() if available_bytes is None else available_bytes
    return max(1, int((available - RESERVE_GB * GB) // (kernel_gb(model) * GB)))


def room_summary(room: int, room_app: str, capacity: int, from_memory: bool) -> str:
    """What ``./workbook classroom`` tells the teacher about the room it can hold."""
    held = (f"at most {capacity} visitors' kernels at once ("
            + (f"what {available_memory_bytes() / GB:.1f} GB of free memory holds" if from_memory else "--max-kernels")
            + "); later visitors are asked to come back in a minute")
    if room == 0:
        return f"Room: {held}. Each page starts its kernel when it opens (--room N starts them ahead)."
    ready = min(room, capacity)
    return (f"Room: {ready} kernels of {room_app} start now and each runs the explorer; the app prints \"let the room in\" "
            f"when all {ready} are ready, and keeps {ready} ready for as long as it runs (a taken kernel is replaced "
            f"{REFILL_AFTER_S} s later), so {ready} visitors arriving at once see it without waiting; {held}.")


def capacity_options(max_kernels: int) -> list[str]:
    """Voilà options for a kernel manager that starts at most ``max_kernels`` kernels (:class:`RoomKernelManager`)."""
    if max_kernels < 1:
        raise ValueError(f"max_kernels must be at least 1, got {max_kernels}.")
    return [f"--VoilaConfiguration.multi_kernel_manager_class={__name__}.RoomKernelManager",
            f"--RoomKernelManager.max_kernels={max_kernels}"]


def preheat_options(room: int, room_app: str = ROOM_APPS[0]) -> list[str]:
    """Voilà options that keep ``room`` kernels of ``room_app`` started and run ahead of visitors (none for 0).

    Voilà refills the pool :data:`REFILL_AFTER_S` seconds after a visitor takes a kernel; the other explorer starts
    its kernels on demand.
    """
    if room < 0:
        raise ValueError(f"room must be 0 (no preheated kernels) or a number of visitors, got {room}.")
    if room_app not in ROOM_APPS:
        raise ValueError(f"Unknown classroom app {room_app!r}: use one of {ROOM_APPS}.")
    if room == 0:
        return []
    return ["--VoilaConfiguration.preheat_kernel=True", "--VoilaConfiguration.default_pool_size=0",
            f"--VoilaKernelManager.fill_delay={REFILL_AFTER_S}",
            f"--Voila.config_file_paths={write_pool_config(room, room_app)}"]


def write_pool_config(room: int, room_app: str, folder: Path | None = None) -> Path:
    """``folder/voila.json`` sizing each explorer's pool (Voilà reads this nested setting only from a file);
    ``build/classroom_room/`` of the checkout by default. Returns the folder."""
    import json

    from sbert_workbook.data.finding import repo_root

    folder = Path(folder or (repo_root() or Path.cwd()) / "build" / "classroom_room")
    folder.mkdir(parents=True, exist_ok=True)
    pools = {f"{app}.ipynb": {"pool_size": room if app == room_app else 0} for app in ROOM_APPS}
    config = {"VoilaKernelManager": {"kernel_pools_config": {"default": {"pool_size": 0}, **pools}}}
    (folder / "voila.json").write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")
    return folder


def _room_kernel_manager_class():
    import time

    from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
    from tornado.web import HTTPError
    from traitlets import Int

    from sbert_workbook.classroom.room_pool import UNCLAIMED_GRACE_S

    class RoomKernelManager(AsyncMappingKernelManager):
        """Voilà's kernel manager that starts at most ``max_kernels`` kernels; past that a visitor gets a 503 page
        saying the room is full (and a preheated pool waits for a free place, :mod:`sbert_workbook.classroom.room_pool`).

        The idle culler takes only kernels a visitor has left: never one waiting in the preheated pool, and one handed
        to a page that has not connected yet only after ``unclaimed_grace_s`` (the page is gone, not slow)."""

        max_kernels = Int(0, config=True, help="The most kernels at once (0: no limit).")
        unclaimed_grace_s = Int(UNCLAIMED_GRACE_S, config=True,
                                help="Seconds a kernel no page has connected to is kept from the culler.")

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self._starting: set[str] = set()
            self._connected_once: set[str] = set()
            self._unclaimed_since: dict[str, float] = {}

        def kernels_held(self) -> int:
            """Kernels running or starting: what counts against ``max_kernels``."""
            return len(set(self._kernels) | self._starting)

        def room_is_full(self) -> bool:
            return bool(self.max_kernels) and self.kernels_held() >= self.max_kernels

        async def start_kernel(self, *args, kernel_id: str | None = None, **kwargs):
            if kernel_id is not None and kernel_id in self:
                return await super().start_kernel(*args, kernel_id=kernel_id, **kwargs)
            if self.room_is_full():
                raise HTTPError(503, log_message=f"{self.kernels_held()} kernels run, the most this machine holds "
                                f"(--max-kernels {self.max_kernels}); a visitor was asked to come back.",
                                reason=ROOM_FULL_TITLE)
            kernel_id = kernel_id or self.new_kernel_id()
            self._starting.add(kernel_id)
            try:
                return await super().start_kernel(*args, kernel_id=kernel_id, **kwargs)
            finally:
                self._starting.discard(kernel_id)

        def notify_connect(self, kernel_id):
            self._connected_once.add(kernel_id)
            return super().notify_connect(kernel_id)

        def waits_in_pool(self, kernel_id: str) -> bool:
            """Whether ``kernel_id`` is a preheated kernel no visitor has been handed yet."""
            for pool in getattr(self, "_pools", {}).values():
                for task in pool:
                    if task.done() and not task.cancelled() and task.exception() is None \
                            and task.result().get("kernel_id") == kernel_id:
                        return True
            return False

        async def cull_kernel_if_idle(self, kernel_id):
            if self.waits_in_pool(kernel_id):
                return None
            if kernel_id not in self._connected_once:
                since = self._unclaimed_since.setdefault(kernel_id, time.monotonic())
                if time.monotonic() - since < self.unclaimed_grace_s:
                    return None
            return await super().cull_kernel_if_idle(kernel_id)

        async def shutdown_kernel(self, kernel_id, *args, **kwargs):
            self._connected_once.discard(kernel_id)
            self._unclaimed_since.pop(kernel_id, None)
            return await super().shutdown_kernel(kernel_id, *args, **kwargs)

    return RoomKernelManager


def __getattr__(name: str):
    """``RoomKernelManager`` is built on first use, so that importing this module needs no Jupyter server."""
    if name == "RoomKernelManager":
        cls = _room_kernel_manager_class()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
