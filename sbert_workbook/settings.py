"""Workbook-wide settings: quick mode, the one seed helper and the Hugging Face hub's offline switch.

Introduced in ``00_start_here.ipynb``; every notebook's first cells call these. Models
(``encoding``), data (``data``) and the doctor and predownload commands (``app``) all read
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

QUICK_ENV_VAR = "SBERT_WORKBOOK_QUICK"
_TRUE_WORDS = {"1", "true", "yes", "on"}
#: What huggingface_hub reads as true (``huggingface_hub.constants.ENV_VARS_TRUE_VALUES``), compared upper-cased.
_HUB_TRUE_WORDS = {"1", "ON", "YES", "TRUE"}


def quick_mode(parameter: bool | None = None) -> bool:
    """Return True when a notebook should run its small, fast variant.

    Quick mode is on when the notebook's papermill ``QUICK`` parameter is true *or* the
    environment variable ``SBERT_WORKBOOK_QUICK`` is ``1``/``true``/``yes``/``on``, so any
    runner (nbclient, nbconvert, papermill, nbmake) can switch it on without parameters.
    """
    from_env = os.environ.get(QUICK_ENV_VAR, "").strip().lower() in _TRUE_WORDS
    return bool(parameter) or from_env


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
