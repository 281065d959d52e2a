"""``./workbook colab-check``: every notebook in quick mode against Google Colab's preinstalled versions.

``./workbook colab-check`` makes a second virtual environment (``build/colab-venv``), installs the
workbook's core there as Colab's setup cell does, with ``constraints-colab.txt`` holding Colab's
versions (``pip install -c constraints-colab.txt -e .`` plus nbclient, ipykernel and nbconvert to
run the notebooks), then runs this module in it. It checks that pip kept every pinned version
(a core floor above Colab's would make pip fail or replace Colab's package) and that the kernel
is this environment's Python, then runs each notebook with :func:`~sbert_workbook.app.runbook.run_all`.
README, "Colab", explains the check; ``00_start_here.ipynb`` shows the Colab badge it stands behind.
"""
from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

from sbert_workbook.data.finding import repo_root

CONSTRAINTS_FILE = "constraints-colab.txt"


def pinned_versions(path: Path) -> dict[str, str]:
    """``{package: version}`` from a pip constraints file's ``name==version`` lines (comments skipped)."""
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        requirement = line.split("#", 1)[0].strip()
        if requirement:
            name, separator, version = requirement.partition("==")
            if not separator:
                raise ValueError(f"{path}: {line!r} is not a 'name==version' pin; write each Colab version as one.")
            pins[name.strip()] = version.strip()
    return pins


def version_mismatches(pins: dict[str, str]) -> list[str]:
    """'name: pinned X, installed Y' for each pinned package whose installed version differs (a local +build tag is ignored)."""
    mismatches = []
    for name, wanted in pins.items():
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            installed = "not installed"
        if installed.split("+")[0] != wanted.split("+")[0]:
            mismatches.append(f"{name}: pinned {wanted}, installed {installed}")
    return mismatches


def kernel_python() -> str:
    """The Python the ``python3`` kernel will start (jupyter_client swaps a bare ``python`` for this interpreter)."""
    from jupyter_client.kernelspec import KernelSpecManager

    command = KernelSpecManager().get_kernel_spec("python3").argv[0]
    return sys.executable if command in ("python", "python3", f"python{sys.version_info[0]}.{sys.version_info[1]}") else command


#: Colab's own kernels use TCP, and with Colab's jupyter stack (ipykernel 6.17.1, jupyter_client 7.4.9) a kernel on
#: Unix sockets stopped answering in notebook 02's first long cell, twice, at the same place, while the same run
#: over TCP finished.
COLAB_TRANSPORT = "tcp"


def main(argv: list[str] | None = None) -> int:
    """Check the versions and the kernel, run the notebooks (those named in ``argv``, else all); 0 when all pass."""
    from sbert_workbook.app.runbook import run_all

    root = repo_root() or Path.cwd()
    pins = pinned_versions(root / CONSTRAINTS_FILE)
    mismatches = version_mismatches(pins)
    if mismatches:
        print("colab-check: this environment does not hold Colab's versions:\n  " + "\n  ".join(mismatches)
              + "\nRemove build/colab-venv and run ./workbook colab-check again.", file=sys.stderr)
        return 1
    if Path(kernel_python()).resolve() != Path(sys.executable).resolve():
        print(f"colab-check: the python3 kernel runs {kernel_python()}, not {sys.executable}; remove the python3 "
              "kernelspec that shadows this environment's (jupyter kernelspec list) and retry.", file=sys.stderr)
        return 1
    print(f"colab-check: Python {sys.version.split()[0]}; Colab's versions from {CONSTRAINTS_FILE}: "
          + ", ".join(f"{name} {version}" for name, version in pins.items()), flush=True)
    runs = run_all(argv or None, build_dir=root / "build" / "colab", parallel=2,  # two at a time: see run_all
                   transport=COLAB_TRANSPORT)
    print(f"colab-check: {len(runs)} notebooks ran in quick mode with Colab's versions, two at a time, "
          f"{sum(run.seconds for run in runs):.0f} s of runs in all.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
