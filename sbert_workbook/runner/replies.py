"""Kernel replies that are never noticed: the stall of issue 21, and its fix for every nbclient in a process.

What was measured here (``tools/stall_check.py``, docs/reliability.md): now and then a headless run, or a
Voilà page load, stops after a cell. The kernel has finished: it sent its reply and its 'idle' status, and
the reply sits in the client's shell socket (``zmq.EVENTS`` reports POLLIN), but the client's asyncio poll on
that socket never wakes. jupyter_client's ``get_msg(timeout)`` then returns only when its timeout ends, when
pyzmq looks at the socket once more: the run waits the whole cell timeout (900 s in the tests; a spinner
forever for Voilà, whose server executes the notebook with nbclient too). Seen with ipykernel 7.4.0 and
6.29.5 alike, pyzmq 27.3, jupyter_client 8.10, nbclient 0.11.

The fix: every wait of an asyncio kernel channel is cut into slices of ``SLICE_S`` seconds, and each slice
ends with that fresh look, so a lost wake-up costs at most a second. The caller's overall timeout is kept.
:func:`install` applies it to ``jupyter_client``'s ``AsyncZMQSocketChannel`` in this process; the headless
runner (:mod:`sbert_workbook.runner.notebooks`) and the classroom server (:mod:`sbert_workbook.classroom.voila_server`)
call it. It can go when ``tools/stall_check.py`` shows no slow run without it.

``SBERT_WORKBOOK_REPLY_SLICES=0`` (or ``false``/``no``/``off``) in the environment makes :func:`install` leave
jupyter_client as it is, so a process waits as plain nbclient (``jupyter nbconvert --execute``, papermill) does:
``tools/stall_check.py --without-slices`` sets it to measure that. Unset, or any other value, the slices are on.

Each wait counts the replies its slices rescued in :data:`counts` (see :func:`waiting_in_slices`), which
``tools/stall_check.py`` reads after each run of the same process.
"""
from __future__ import annotations

import inspect
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from queue import Empty
from typing import Any

SLICE_S = 1.0
SLICES_ENV = "SBERT_WORKBOOK_REPLY_SLICES"
#: A message taken this close to its slice's edges was found by a look, not by a wake-up (see waiting_in_slices).
RESCUE_WITHIN_S = 0.002
#: Per channel ("shell" or "iopub"): ``rescued`` messages and the ``control`` count (see waiting_in_slices).
counts: Counter = Counter()
_MARK = "_sbert_workbook_waits_in_slices"


def waiting_in_slices(get_msg: Callable[..., Awaitable[Any]], slice_s: float = SLICE_S,
                      channel: str = "shell") -> Callable[..., Awaitable[Any]]:
    """``get_msg(timeout)`` as a series of waits of at most ``slice_s`` seconds; ``Empty`` once ``timeout`` has passed.

    Rescues are counted in ``counts[f"{channel} rescued"]``. A message is *rescued* when a slice that was not the
    caller's last (a plain ``get_msg(timeout)`` would still be waiting) hands it over without a wake-up: either the
    slice returned it at its very end (``RESCUE_WITHIN_S`` or less before ``slice_s``, or later), which is pyzmq
    looking at the socket once more when a poll's timeout fires, or the slice ended ``Empty`` and the next one
    returned it within ``RESCUE_WITHIN_S``, the message already waiting. A reply whose wake-up worked arrives at
    any moment of a slice, so a few land in those two 2-ms edges by chance: ``counts[f"{channel} control"]``
    counts the messages returned in the 10 ms before the end window, where only such arrivals fall, so two fifths
    of it estimates the chance ones among the rescues (CPU starvation can also push a real wake-up past the end).
    """

    async def get_msg_in_slices(*args, timeout: float | None = None, **kwargs):
        deadline = None if timeout is None else time.monotonic() + timeout
        after_empty = False
        while True:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            wait = slice_s if remaining is None else min(slice_s, remaining)
            started = time.monotonic()
            try:
                message = await get_msg(*args, timeout=wait, **kwargs)
            except Empty:
                if remaining is not None and remaining <= slice_s:
                    raise
                after_empty = True
                continue
            last = remaining is not None and remaining <= slice_s
            _count(channel, time.monotonic() - started, wait, after_empty, last)
            return message

    setattr(get_msg_in_slices, _MARK, True)
    return get_msg_in_slices


def _count(channel: str, took: float, wait: float, after_empty: bool, last: bool) -> None:
    """Count a message a slice of ``wait`` seconds returned after ``took`` seconds (:func:`waiting_in_slices`)."""
    if after_empty and took <= RESCUE_WITHIN_S:
        counts[f"{channel} rescued"] += 1  # it was waiting when the slice before ended
    elif not last and took >= wait - RESCUE_WITHIN_S:
        counts[f"{channel} rescued"] += 1  # taken by the look at the slice's end; unsliced, the wait would go on
    elif not last and took >= wait - 6 * RESCUE_WITHIN_S:
        counts[f"{channel} control"] += 1  # a wake-up just before that end window


def rescued() -> int:
    """Messages rescued by the slices in this process since :data:`counts` was last cleared, all channels."""
    return sum(n for key, n in counts.items() if key.endswith(" rescued"))


def slices_switched_off() -> bool:
    """True when ``SBERT_WORKBOOK_REPLY_SLICES`` is ``0``/``false``/``no``/``off``."""
    from sbert_workbook.settings import env_flag  # here: the classroom server imports this module, not torch

    return env_flag(SLICES_ENV) is False


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


def install(slice_s: float = SLICE_S) -> bool:
    """Make every asyncio kernel channel of this process wait in slices (idempotent); True when they do.

    With ``SBERT_WORKBOOK_REPLY_SLICES=0`` in the environment it changes nothing and returns False.
    """
    from jupyter_client import channels

    channel_class = async_channel_class(channels)
    if getattr(channel_class.get_msg, _MARK, False):
        return True
    if slices_switched_off():
        return False
    original = channel_class.get_msg

    async def get_msg(self, timeout: float | None = None):
        import zmq

        name = "iopub" if self.socket.type == zmq.SUB else "shell"  # control and stdin are DEALERs like shell
        return await waiting_in_slices(lambda timeout: original(self, timeout=timeout), slice_s, name)(timeout=timeout)

    setattr(get_msg, _MARK, True)
    channel_class.get_msg = get_msg
    return True
