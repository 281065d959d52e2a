"""Kernel replies that are never noticed: the stall of issue 21, and its fix for every nbclient in a process.

What was measured here (``tools/stall_check.py``, README "Reliability"): now and then a headless run, or a
Voilà page load, stops after a cell. The kernel has finished: it sent its reply and its 'idle' status, and
the reply sits in the client's shell socket (``zmq.EVENTS`` reports POLLIN), but the client's asyncio poll on
that socket never wakes. jupyter_client's ``get_msg(timeout)`` then returns only when its timeout ends, when
pyzmq looks at the socket once more: the run waits the whole cell timeout (900 s in the tests; a spinner
forever for Voilà, whose server executes the notebook with nbclient too). Seen with ipykernel 7.4.0 and
6.29.5 alike, pyzmq 27.3, jupyter_client 8.10, nbclient 0.11.

The fix: every wait of an asyncio kernel channel is cut into slices of ``SLICE_S`` seconds, and each slice
ends with that fresh look, so a lost wake-up costs at most a second. The caller's overall timeout is kept.
:func:`install` applies it to ``jupyter_client``'s ``AsyncZMQSocketChannel`` in this process; the headless
runner (:mod:`sbert_workbook.app.runbook`) and the classroom server (:mod:`sbert_workbook.app.voila_server`)
call it. It can go when ``tools/stall_check.py`` shows no slow run without it.
"""
from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable
from queue import Empty
from typing import Any

SLICE_S = 1.0
_MARK = "_sbert_workbook_waits_in_slices"


def waiting_in_slices(get_msg: Callable[..., Awaitable[Any]], slice_s: float = SLICE_S) -> Callable[..., Awaitable[Any]]:
    """``get_msg(timeout)`` as a series of waits of at most ``slice_s`` seconds; ``Empty`` once ``timeout`` has passed."""

    async def get_msg_in_slices(*args, timeout: float | None = None, **kwargs):
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                return await get_msg(*args, timeout=slice_s if remaining is None else min(slice_s, remaining), **kwargs)
            except Empty:
                if remaining is not None and remaining <= slice_s:
                    raise

    setattr(get_msg_in_slices, _MARK, True)
    return get_msg_in_slices


def async_channel_class(channels):
    """The asyncio kernel channel class of a ``jupyter_client.channels`` module, whichever its version.

    jupyter_client 8 names it ``AsyncZMQSocketChannel`` (its ``ZMQSocketChannel`` is the blocking one); 7.x,
    Colab's 7.4.9 included, has only ``ZMQSocketChannel``, whose ``get_msg`` is already a coroutine.
    """
    for name in ("AsyncZMQSocketChannel", "ZMQSocketChannel"):
        channel_class = getattr(channels, name, None)
        if channel_class is not None and inspect.iscoroutinefunction(channel_class.get_msg):
            return channel_class
    raise RuntimeError(f"{channels.__name__} has no asyncio kernel channel (AsyncZMQSocketChannel or an async "
                       "ZMQSocketChannel.get_msg): this jupyter_client is not one the workbook knows; install "
                       "jupyter_client 7.x or 8.x (constraints.txt pins the tested one).")


def install(slice_s: float = SLICE_S) -> None:
    """Make every asyncio kernel channel of this process wait in slices (idempotent)."""
    from jupyter_client import channels

    channel_class = async_channel_class(channels)
    if getattr(channel_class.get_msg, _MARK, False):
        return
    original = channel_class.get_msg

    async def get_msg(self, timeout: float | None = None):
        return await waiting_in_slices(lambda timeout: original(self, timeout=timeout), slice_s)(timeout=timeout)

    setattr(get_msg, _MARK, True)
    channel_class.get_msg = get_msg
