"""A students' release without the answer key (``./workbook release``; TEACHING.md, "Model answers").

The package ships its reference solutions (``sbert_workbook/solutions/``) for self-study: ``SOLUTIONS = True`` in a
notebook fills them in. A teacher who grades hands out this release instead: the notebooks (outputs stripped, every
exercise unsolved), the classroom apps, and a wheel of the package built without ``solutions/``. In it every check
cell still grades (checks compare with the package's own computations, not with the solutions), and
``SOLUTIONS = True`` says that this copy has no solutions.

The notebooks' setup cell installs the workbook on Colab from the repository, solutions included; in the release it
installs the release's wheel instead (:func:`released_setup_cell`): from ``--wheel-url`` where the teacher hosts it,
else from the wheel file uploaded beside the notebook. Outside Colab it installs nothing, as before: in JupyterLab the
student installs ``wheel/`` once (README.txt).
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from sbert_workbook.data.finding import repo_root

#: What the wheel is built from: the package and the files its build reads.
PACKAGE_FILES = ("pyproject.toml", "README.md", "LICENSE")
#: The setup cell's install of the whole package from git (tools/notebook_cells.py SETUP_CELL), to be replaced.
GIT_INSTALL = re.compile(r'"sbert-workbook @ git\+[^"]*"')


def write_release(out: Path | None = None, wheel_url: str | None = None) -> Path:
    """Write ``out`` (``build/release/`` by default): ``notebooks/``, ``classroom/``, ``wheel/`` and ``README.txt``.

    ``wheel_url``: where the teacher will host the wheel for Colab (its address, or its folder's ending in ``/``);
    without it the released notebooks install the wheel from the Colab session's files, where the student uploads it.
    """
    root = repo_root()
    if root is None:
        raise FileNotFoundError("The release is built from a checkout of the workbook: no pyproject.toml and notebooks/ "
                                "were found. Run `./workbook release` in the cloned repository.")
    out = Path(out or root / "build" / "release")
    with tempfile.TemporaryDirectory(prefix="sbw-release-wheel-") as built:
        wheel = build_wheel_without_solutions(root, Path(built))
        url = wheel_address(wheel_url, wheel.name) if wheel_url else None  # a wrong address stops here, out untouched
        if out.exists():
            shutil.rmtree(out)
        (out / "wheel").mkdir(parents=True)
        wheel = Path(shutil.move(str(wheel), str(out / "wheel" / wheel.name)))
    for folder in ("notebooks", "classroom"):
        shutil.copytree(root / folder, out / folder, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        for notebook in sorted((out / folder).glob("*.ipynb")):
            release_notebook(notebook, wheel.name, url)
    (out / "README.txt").write_text(readme(wheel.name, url), encoding="utf-8")
    return out


def build_wheel_without_solutions(root: Path, folder: Path) -> Path:
    """The package's wheel, built from a copy of it without ``solutions/``, written into ``folder``."""
    with tempfile.TemporaryDirectory(prefix="sbw-release-") as source:
        source = Path(source)
        for name in PACKAGE_FILES:
            shutil.copy(root / name, source / name)
        shutil.copytree(root / "sbert_workbook", source / "sbert_workbook",
                        ignore=shutil.ignore_patterns("solutions", "__pycache__", "*.egg-info"))
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                        "-w", str(folder), str(source)], check=True)
    (wheel,) = folder.glob("sbert_workbook-*.whl")
    return wheel


def wheel_address(wheel_url: str, wheel_name: str) -> str:
    """``wheel_url`` as the wheel's own address: a folder's (ending in ``/``) gets the file name appended."""
    if not re.match(r"https?://", wheel_url):
        raise ValueError(f"--wheel-url {wheel_url!r} is not a web address: give the http(s) address where Colab can "
                         f"download {wheel_name}, e.g. https://example.org/course/{wheel_name}")
    address = wheel_url + wheel_name if wheel_url.endswith("/") else wheel_url
    if not address.endswith("/" + wheel_name):
        raise ValueError(f"--wheel-url {wheel_url!r} does not end in the wheel's file name {wheel_name!r}, which pip "
                         "needs to install it: give the file's address, or its folder's ending in '/'.")
    return address


def released_setup_cell(source: str, wheel_name: str, wheel_url: str | None = None) -> str:
    """The setup cell ``source`` installing this release's wheel on Colab instead of the repository (with the solutions):
    from ``wheel_url``, or else from ``wheel_name`` uploaded into the session's files (stopping with what to do
    until it is there). Outside Colab the cell installs nothing, as before."""
    lines = source.splitlines()
    installs = [i for i, line in enumerate(lines) if GIT_INSTALL.search(line)]
    if len(installs) != 1:
        raise ValueError("The setup cell does not install 'sbert-workbook @ git+…' exactly once, so the release cannot "
                         "make it install the release's wheel: refresh it from tools/notebook_cells.py SETUP_CELL "
                         f"(python tools/add_colab_badges.py). The cell:\n{source}")
    line = lines[installs[0]]
    if wheel_url:
        lines[installs[0]] = GIT_INSTALL.sub(f'"sbert-workbook @ {wheel_url}"', line)
        return "\n".join(lines)
    indent = line[: len(line) - len(line.lstrip())]
    upload = [f'WHEEL = "{wheel_name}"  # this release\'s workbook, without the solutions (the release\'s wheel/ folder)',
              "if not os.path.exists(WHEEL):",
              '    raise FileNotFoundError(f"Upload {WHEEL} from your release\'s wheel/ folder into this session\'s files "',
              '                            "(the folder icon on the left), then run this cell again.")',
              GIT_INSTALL.sub("WHEEL", line.lstrip())]
    lines[installs[0]: installs[0] + 1] = [indent + text for text in upload]
    imports = [i for i in range(installs[0]) if lines[i] == indent + "import subprocess"]
    lines.insert(imports[-1] if imports else installs[0], indent + "import os")  # beside the cell's other import
    return "\n".join(lines)


def release_notebook(path: Path, wheel_name: str, wheel_url: str | None = None) -> None:
    """Rewrite the notebook at ``path`` so that its setup cell (the first code cell) installs the release's wheel."""
    import nbformat

    nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    setup = next((cell for cell in nb.cells if cell.cell_type == "code"), None)
    if setup is None or "google.colab" not in setup.source:
        raise ValueError(f"{path.name}: the first code cell should be the setup cell (tools/notebook_cells.py SETUP_CELL).")
    setup.source = released_setup_cell(setup.source, wheel_name, wheel_url)
    nbformat.write(nb, path)


def readme(wheel_name: str, wheel_url: str | None) -> str:
    """README.txt of the release: what is in it and how to run it in JupyterLab and on Colab."""
    colab = (f"Colab: open a notebook and run its first cell: it installs the workbook from {wheel_url}.\n" if wheel_url else
             f"Colab: upload wheel/{wheel_name} into the session's files (the folder icon on the left), then run the\n"
             "notebook's first cell: it installs that file, and says so when it is missing.\n")
    return ("sbert-workbook, students' release: the notebooks and classroom apps, and the package with no solutions\n"
            "(no answer key).\n"
            f"JupyterLab: pip install wheel/{wheel_name} jupyterlab, then: jupyter lab notebooks/\n" + colab
            + "Every exercise ships unsolved and its check cell prints ✓ or ✗; SOLUTIONS = True has nothing to fill in here.\n")
