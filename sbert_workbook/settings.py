"""Workbook-wide settings: quick mode and the one seed helper.

Introduced in ``00_start_here.ipynb``; every notebook's first cells call these.
"""
from __future__ import annotations

import contextlib
import os
import random
from collections.abc import Iterator

import numpy as np
import torch

QUICK_ENV_VAR = "SBERT_WORKBOOK_QUICK"
_TRUE_WORDS = {"1", "true", "yes", "on"}


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
