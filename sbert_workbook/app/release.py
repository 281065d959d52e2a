"""A students' release without the answer key (``./workbook release``; TEACHING.md, "Model answers").

The package ships its reference solutions (``sbert_workbook/solutions/``) for self-study: ``SOLUTIONS = True`` in a
notebook fills them in. A teacher who grades hands out this release instead: the notebooks (outputs stripped, every
exercise unsolved), the classroom apps, and a wheel of the package built without ``solutions/``. In it every check
cell still grades (checks compare with the package's own computations, not with the solutions), and
``SOLUTIONS = True`` says that this copy has no solutions.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from sbert_workbook.data.finding import repo_root

#: What the wheel is built from: the package and the files its build reads.
PACKAGE_FILES = ("pyproject.toml", "README.md", "LICENSE")


def write_release(out: Path | None = None) -> Path:
    """Write ``out`` (``build/release/`` by default): ``notebooks/``, ``classroom/``, ``wheel/`` and ``README.txt``."""
    root = repo_root()
    if root is None:
        raise FileNotFoundError("The release is built from a checkout of the workbook: no pyproject.toml and notebooks/ "
                                "were found. Run `./workbook release` in the cloned repository.")
    out = Path(out or root / "build" / "release")
    if out.exists():
        shutil.rmtree(out)
    for folder in ("notebooks", "classroom"):
        shutil.copytree(root / folder, out / folder, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    with tempfile.TemporaryDirectory(prefix="sbw-release-") as source:
        source = Path(source)
        for name in PACKAGE_FILES:
            shutil.copy(root / name, source / name)
        shutil.copytree(root / "sbert_workbook", source / "sbert_workbook",
                        ignore=shutil.ignore_patterns("solutions", "__pycache__", "*.egg-info"))
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                        "-w", str(out / "wheel"), str(source)], check=True)
    (out / "README.txt").write_text(
        "sbert-workbook, students' release: the notebooks and classroom apps, and the package with no solutions\n"
        "(no answer key).\n"
        "Install: pip install wheel/*.whl (plus jupyterlab), then open notebooks/ in JupyterLab.\n"
        "Every exercise ships unsolved and its check cell prints ✓ or ✗; SOLUTIONS = True has nothing to fill in here.\n",
        encoding="utf-8")
    return out
