"""The package as a user installs it: a wheel built from a fresh copy of the checkout, unpacked by pip into a folder of
its own, and Python run from an unrelated folder with only that folder on its path (no checkout anywhere near).

Used by tests/test_packaging.py, tests/test_colab_check.py and tests/test_release.py (fixtures in conftest.py).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def fresh_copy(destination: Path, root: Path = REPO) -> Path:
    """The files git has (or would add) of ``root``, copied to ``destination``: no build/, .venv or stale egg-info,
    as a clone has (setuptools builds in the source folder and packs what an older build left in build/lib)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (root / name).is_file():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / name, destination / name)
    return destination


def build_wheel(source: Path, out: Path) -> Path:
    """The wheel pip builds from ``source`` (this environment's setuptools, no download)."""
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out),
                           str(source)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    (wheel,) = out.glob("sbert_workbook-*.whl")
    return wheel


def install_into(wheel: Path, target: Path) -> Path:
    """``wheel`` installed by pip, not editable, into the folder ``target`` (its dependencies are this environment's)."""
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target", str(target),
                           str(wheel)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return target


def elsewhere_env(target: Path) -> dict[str, str]:
    """This environment with ``target`` alone on PYTHONPATH (ahead of the checkout's editable install) and no data
    root set: what a notebook beside an installed package has."""
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "SBERT_WORKBOOK_DATA")}
    return {**env, "PYTHONPATH": str(target)}


#: Run first in every script of :func:`run_elsewhere`: this test environment's editable install of the checkout
#: (setuptools' finder, after the path's own) would answer for any module the installed copy lacks (a release's
#: ``sbert_workbook.solutions``); a user's machine has no such install.
WITHOUT_THE_CHECKOUT = """\
import sys
sys.meta_path[:] = [finder for finder in sys.meta_path if not getattr(finder, "__module__", "").startswith("__editable__")]
"""


def run_elsewhere(script: str, target: Path, cwd: Path) -> dict:
    """Run ``script`` (which prints one JSON object last) from ``cwd`` with only ``target`` on the path; its JSON."""
    done = subprocess.run([sys.executable, "-c", WITHOUT_THE_CHECKOUT + script], cwd=cwd, env=elsewhere_env(target),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
