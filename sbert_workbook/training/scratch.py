"""Scratch folders that go away with the Python process that made them (04 and 06's checkpoints, ``fit``'s default).

A notebook's training runs write checkpoints — with bert-base-uncased about 1.3 GB each — that only the same
session can resume. Made with ``tempfile.mkdtemp`` alone they stayed behind after the kernel ended: 184 of them,
69 GB, filled this machine's disk. :func:`scratch_folder` removes its folder when the interpreter exits (a kernel
shut down or restarted from Jupyter exits this way; a killed one cannot clean up).
"""
from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path


def scratch_folder(prefix: str) -> Path:
    """A new empty folder under the system's temporary directory, removed with everything in it at exit."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder
