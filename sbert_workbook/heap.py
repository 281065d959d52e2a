"""Handing memory the workbook has freed back to the operating system, so a kernel shrinks after a large pass.

glibc keeps what a program frees for its next allocations: after ``05_bert_flow.ipynb`` encodes 20,000 sentences
under five poolings, or ``04``/``06`` train a model, the kernel's resident size stays near the pass's peak although the
tensors are gone, and the next section's peak comes on top of it. :func:`return_freed_memory` asks glibc to give the
free pages back (``malloc_trim``); :class:`~sbert_workbook.encoding.encoder.Encoder` calls it after a long encoding
pass and ``fit`` after training. It frees nothing that is in use, so no result changes. Elsewhere (macOS, Windows,
musl) it does nothing. ``SBERT_WORKBOOK_MALLOC_TRIM=0`` switches it off, to measure what it saves
(``tools/notebook_memory.py``).
"""
from __future__ import annotations

import ctypes
import functools
import os
import platform

TRIM_ENV_VAR = "SBERT_WORKBOOK_MALLOC_TRIM"


def return_freed_memory() -> bool:
    """Give the pages glibc holds free back to the system; True when some were (False: nothing to give, not glibc,
    or switched off by ``SBERT_WORKBOOK_MALLOC_TRIM=0``)."""
    if os.environ.get(TRIM_ENV_VAR, "").strip() == "0":
        return False
    trim = _malloc_trim()
    return bool(trim(0)) if trim is not None else False


@functools.lru_cache(maxsize=1)
def _malloc_trim():
    """glibc's ``malloc_trim``, or None where the C library has none."""
    if platform.system() != "Linux":
        return None
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None
