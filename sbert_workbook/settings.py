"""Workbook-wide settings: quick mode, the one seed helper and the Hugging Face hub's offline switch.

Introduced in ``00_start_here.ipynb``; every notebook's first cells call these. Models
(``encoding``), data (``data``) and the doctor and predownload commands (``environment``) all read
``HF_HUB_OFFLINE`` through :func:`hub_offline_flag`, so they agree with huggingface_hub.
"""
from __future__ import annotations

import contextlib
import os
import random
import socket
from collections.abc import Iterator
from urllib.parse import urlparse

import numpy as np
import torch

from sbert_workbook.devices import pick_device

QUICK_ENV_VAR = "SBERT_WORKBOOK_QUICK"
QUICK_AUTO = "auto"
#: The words our switches read as on and as off (lower-cased): ``SBERT_WORKBOOK_QUICK``, ``SBERT_WORKBOOK_REPLY_SLICES``.
TRUE_WORDS, FALSE_WORDS = frozenset({"1", "true", "yes", "on"}), frozenset({"0", "false", "no", "off"})
#: What huggingface_hub reads as true (``huggingface_hub.constants.ENV_VARS_TRUE_VALUES``), compared upper-cased.
_HUB_TRUE_WORDS = {"1", "ON", "YES", "TRUE"}


def env_flag(name: str) -> bool | None:
    """True or False when the environment variable ``name`` holds one of :data:`TRUE_WORDS` or :data:`FALSE_WORDS`
    (any case, spaces ignored); None when it is unset or holds anything else."""
    word = os.environ.get(name, "").strip().lower()
    return True if word in TRUE_WORDS else False if word in FALSE_WORDS else None


def quick_from_env() -> tuple[bool | None, str]:
    """(what ``SBERT_WORKBOOK_QUICK`` asks for: True quick, False full, None nothing; the variable as set, for a
    message)."""
    return env_flag(QUICK_ENV_VAR), f"{QUICK_ENV_VAR}={os.environ.get(QUICK_ENV_VAR, '')}"


def quick_mode(parameter: bool | str | None = QUICK_AUTO, device: str | torch.device | None = None,
               announce: bool = True) -> bool:
    """Return True when a notebook should run its small, fast variant; print one line saying which and why.

    The notebooks' ``QUICK`` parameter (``00_start_here.ipynb``) decides, in this order:
    ``SBERT_WORKBOOK_QUICK=1``/``true``/``yes``/``on`` in the environment switches quick mode on
    whatever ``QUICK`` says (so nbclient, papermill or nbmake runs need no parameters);
    ``QUICK = True``/``False`` is obeyed; with ``QUICK = "auto"`` (or None),
    ``SBERT_WORKBOOK_QUICK=0``/``false``/``no``/``off`` asks for full mode, and otherwise the
    device decides: full on a CUDA GPU, quick on a CPU and on Apple's MPS. A lesson's set-up chooses by
    its predicted time on this machine instead (:mod:`sbert_workbook.forecast.lessons`); this rule
    serves code with no long step (the classroom explorers). ``device`` is the one the notebook will use
    (None: :func:`~sbert_workbook.devices.pick_device`'s choice).
    """
    quick, reason = _quick_choice(parameter, device)
    if announce:
        print(f"quick mode: {'on' if quick else 'off'} ({reason})")
    return quick


def _quick_choice(parameter, device) -> tuple[bool, str]:
    """(quick?, why, and how to switch) for :func:`quick_mode`."""
    from_env, as_set = quick_from_env()
    if from_env is True:
        return True, f"{as_set} is set; unset it and set QUICK = False for the full version"
    if isinstance(parameter, bool):
        switch = "QUICK = False for the full version" if parameter else "QUICK = True for the small, fast version"
        return parameter, f"QUICK = {parameter}; set {switch}, or QUICK = \"auto\" to choose by the device"
    if parameter not in (None, QUICK_AUTO):
        raise ValueError(f"QUICK = {parameter!r} is not understood: use True (small and fast), False (full) "
                         f"or \"auto\" (the largest mode predicted to fit the budget on this machine).")
    if from_env is False:
        return False, f"{as_set} asks for full mode; set QUICK = True for the small, fast version"
    kind = pick_device(device).type
    if kind == "cuda":
        return False, "a CUDA GPU was found: full mode; set QUICK = True for the small, fast version"
    if kind == "mps":
        return True, "an Apple MPS GPU was found: quick mode; set QUICK = False for the full version"
    return True, f"no GPU found: quick mode on this {os.cpu_count() or 1}-core CPU; set QUICK = False for the full version"


def set_seed(seed: int = 0) -> int:
    """Seed Python, NumPy and torch (CPU and every GPU) with one number; return it.

    The single seeding helper of the workbook (``00_start_here.ipynb``). On CPU, runs
    with the same seed give the same numbers.
    """
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
    return seed


@contextlib.contextmanager
def torch_threads(threads: int | None) -> Iterator[None]:
    """Run a block with ``threads`` torch CPU threads (None: unchanged), restoring the setting afterwards.

    Tiny models (the toy MLM in ``01``, the flows in ``05``) run fastest on one thread: handing
    small matrices between threads costs more than the arithmetic.
    """
    previous = torch.get_num_threads()
    if threads:
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


def hub_offline_flag() -> bool:
    """Whether the environment switches the Hugging Face hub off, read exactly as huggingface_hub reads it.

    ``HF_HUB_OFFLINE`` (or, when that is unset or empty, ``TRANSFORMERS_OFFLINE``) counts when it
    is ``1``/``ON``/``YES``/``TRUE`` in any case; ``0``, ``false``, an empty value or anything else
    means online. huggingface_hub reads the variable once at import; this reads it now
    (``00_start_here.ipynb``).
    """
    value = os.environ.get("HF_HUB_OFFLINE") or os.environ.get("TRANSFORMERS_OFFLINE")
    return value is not None and value.upper() in _HUB_TRUE_WORDS


def hub_is_reachable(timeout_s: float = 2.0) -> bool:
    """False when :func:`hub_offline_flag` is on or the hub host does not answer within ``timeout_s``.

    Models and data sets ask this before downloading (``00_start_here.ipynb``); it never
    waits longer than ``timeout_s``.
    """
    if hub_offline_flag():
        return False
    endpoint = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co"))
    port = endpoint.port or (443 if endpoint.scheme == "https" else 80)
    try:
        with socket.create_connection((endpoint.hostname, port), timeout=timeout_s):
            return True
    except OSError:
        return False
