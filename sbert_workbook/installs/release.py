"""A students' release without the answer key (``./workbook release``; TEACHING.md, "Appendix D").

The package ships its reference solutions (``sbert_workbook/solutions/``) for self-study: ``SOLUTIONS = True`` in a
notebook fills them in. A teacher who grades hands out this release instead: the notebooks (outputs stripped, every
exercise unsolved, no Colab badge: a badge opens the repository's notebooks, whose package has the solutions), the
classroom apps, a wheel of the package built without ``solutions/``, the constraints it was tested at, a ``binder/``
folder that installs that wheel (for Binder or a JupyterHub image built from a course repository holding the release)
and README.txt. In it every check cell still grades (checks compare with the package's own computations, not with
the solutions), and ``SOLUTIONS = True`` says that this copy has no solutions. ``--wheelhouse`` adds every package the
install needs, for a room that installs from a USB stick or a shared folder without internet.

The notebooks' setup cell installs the workbook on Colab from the repository, solutions included; in the release it
installs the release's wheel instead (:func:`released_setup_cell`): from ``--wheel-url`` where the teacher hosts it,
else from the wheel file uploaded beside the notebook. Outside Colab it installs nothing, as before: in JupyterLab the
student installs ``wheel/`` once (README.txt). :mod:`sbert_workbook.installs.release_check` runs a release's notebooks
from its wheel in an empty folder and finds no solution there.
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
#: An "Open in Colab" badge (tools/add_colab_badges.py), with the blank line after it when it opens a cell.
BADGE = re.compile(r"\[!\[Open In Colab\]\([^)]*\)\]\([^)]*\)")
#: Where torch's CPU build lives (the front door's TORCH_CPU_INDEX): PyPI's Linux torch is the CUDA build.
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
#: The extras a laptop installs, as ``./workbook lab`` does.
EXTRAS = "lab,onnx"


def write_release(out: Path | None = None, wheel_url: str | None = None, wheelhouse: bool = False) -> Path:
    """Write ``out`` (``build/release/`` by default): ``notebooks/``, ``classroom/``, ``wheel/``, ``binder/``,
    ``constraints.txt`` and ``README.txt`` (and ``wheelhouse/`` with ``wheelhouse``).

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
    for folder in ("notebooks", "classroom"):  # the notebooks only: not what a run left beside them (diagnosis/, ...)
        (out / folder).mkdir()
        for notebook in sorted((root / folder).glob("*.ipynb")):
            release_notebook(Path(shutil.copy(notebook, out / folder)), wheel.name, url)
    shutil.copy(root / "constraints.txt", out / "constraints.txt")
    write_binder(root / "binder", out / "binder", wheel.name)
    if wheelhouse:
        fill_wheelhouse(out, wheel.name)
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
    if installs[0] > 0 and lines[installs[0] - 1].lstrip().startswith("# the workbook at the version"):
        lines[installs[0] - 1] = line[: len(line) - len(line.lstrip())] + "# this release's workbook, without the solutions"
    if wheel_url:
        lines[installs[0]] = GIT_INSTALL.sub(f'"sbert-workbook @ {wheel_url}"', line)
        return "\n".join(lines)
    indent = line[: len(line) - len(line.lstrip())]
    upload = [f'WHEEL = "{wheel_name}"  # the release\'s wheel/ folder',
              "if not os.path.exists(WHEEL):",
              '    raise FileNotFoundError(f"Upload {WHEEL} from your release\'s wheel/ folder into this session\'s files "',
              '                            "(the folder icon on the left), then run this cell again.")',
              GIT_INSTALL.sub("WHEEL", line.lstrip())]
    lines[installs[0]: installs[0] + 1] = [indent + text for text in upload]
    imports = [i for i in range(installs[0]) if lines[i] == indent + "import subprocess"]
    lines.insert(imports[-1] if imports else installs[0], indent + "import os")  # beside the cell's other import
    return "\n".join(lines)


def without_colab_badges(markdown: str) -> str:
    """``markdown`` with no "Open in Colab" badge: a badge line opening a cell goes with its blank line, and a table
    whose last column is "Colab" (00's map) loses that column."""
    lines, colab_column = [], False
    for line in markdown.split("\n"):
        colab_column = line.startswith("|") and (colab_column or line.rstrip().endswith("| Colab |"))
        if colab_column:
            line = line.rstrip()[:-1]
            line = line[: line.rfind("|") + 1]  # the badge holds no "|": the last one opens the Colab cell
        lines.append(line)
    text = re.sub(r"\A\s*" + BADGE.pattern + r"\n*", "", "\n".join(lines))
    return BADGE.sub("", text)


def release_notebook(path: Path, wheel_name: str, wheel_url: str | None = None) -> None:
    """Rewrite the notebook at ``path`` so that its setup cell (the first code cell) installs the release's wheel and
    its markdown carries no Colab badge."""
    import nbformat

    nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    setup = next((cell for cell in nb.cells if cell.cell_type == "code"), None)
    if setup is None or "google.colab" not in setup.source:
        raise ValueError(f"{path.name}: the first code cell should be the setup cell (tools/notebook_cells.py SETUP_CELL).")
    setup.source = released_setup_cell(setup.source, wheel_name, wheel_url)
    for cell in nb.cells:
        if cell.cell_type == "markdown" and BADGE.search(cell.source):
            cell.source = without_colab_badges(cell.source)
    nbformat.write(nb, path)


def write_binder(source: Path, folder: Path, wheel_name: str) -> None:
    """``binder/`` of the release: the repository's, installing the release's wheel instead of the checkout (``.[lab]``),
    so that Binder or a hub image built from a repository holding the release has no solutions either."""
    shutil.copytree(source, folder)
    lines = (folder / "requirements.txt").read_text(encoding="utf-8").splitlines()
    if lines.count(".[lab]") != 1:
        raise ValueError("binder/requirements.txt should install the checkout as one line '.[lab]', which the release "
                         "replaces with its wheel.")
    first_comment = next(i for i, line in enumerate(lines) if not line.startswith("#") or line == "#")  # its end
    header = ["# What Binder (repo2docker) installs for this students' release: it runs `pip install --no-cache-dir -r",
              "# binder/requirements.txt` from the release's root, so the last line is the release's wheel: the workbook",
              "# without its solutions, with JupyterLab and Voila. The rest is the workbook's own binder/requirements.txt."]
    lines = header + [f"./wheel/{wheel_name}[lab]" if line == ".[lab]" else line for line in lines[first_comment:]]
    (folder / "requirements.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def fill_wheelhouse(out: Path, wheel_name: str, index: str | None = TORCH_CPU_INDEX) -> Path:
    """``out/wheelhouse``: every package ``wheel/`` needs with its extras, at the constraints, for this machine's
    system and Python (``pip download``); torch's CPU build where ``index`` answers. A room then installs from it with
    ``pip install --no-index --find-links wheelhouse`` (README.txt), with no network."""
    import urllib.request

    house = out / "wheelhouse"
    command = [sys.executable, "-m", "pip", "download", "--quiet", "-d", str(house), "-c", str(out / "constraints.txt"),
               f"{out / 'wheel' / wheel_name}[{EXTRAS}]"]
    try:
        if index:
            urllib.request.urlopen(index.rstrip("/") + "/torch/", timeout=10)
            command[4:4] = ["--extra-index-url", index]
    except OSError:
        print(f"wheelhouse: {index} does not answer: torch comes from the default index (on Linux the CUDA build)")
    subprocess.run(command, check=True)
    return house


def readme(wheel_name: str, wheel_url: str | None) -> str:
    """README.txt of the release: what is in it and how to install and run it on a laptop, on Colab and on a hub."""
    install = f'-c constraints.txt "wheel/{wheel_name}[{EXTRAS}]"'
    colab = (f"  Open a notebook and run its first cell: it installs the workbook from {wheel_url}.\n" if wheel_url else
             f"  Upload the notebook (File > Upload notebook) and wheel/{wheel_name} (the folder icon on the left) into\n"
             "  the session, then run the notebook's first cell: it installs that file, and says so when it is missing.\n")
    return f"""sbert-workbook, students' release: the notebooks, the classroom apps and the workbook with no solutions
(no answer key). Every exercise ships unsolved and its check cell prints ✓ or ✗; SOLUTIONS = True has nothing to
fill in here.

notebooks/        the lessons, 00_start_here first
classroom/        the classroom explorers (Voila pages)
wheel/            {wheel_name}: the workbook without its solutions
constraints.txt   the versions it was tested at (torch, ipykernel below 7, ...)
binder/           what Binder or a JupyterHub image installs: this release's wheel, not the repository
wheelhouse/       (only with ./workbook release --wheelhouse) every package, for installing without internet

On a laptop (Linux, macOS, or Windows through WSL; Python 3.10 or later), in this folder:

  python3 -m venv .venv
  .venv/bin/python -m pip install --upgrade pip
  # Linux without an NVIDIA GPU: torch's CPU build first (PyPI's Linux torch is the CUDA build, several GB more)
  .venv/bin/python -m pip install -c constraints.txt --extra-index-url {TORCH_CPU_INDEX} torch
  .venv/bin/python -m pip install {install}
  .venv/bin/python -m sbert_workbook doctor
  .venv/bin/jupyter lab notebooks/

Without internet, from wheelhouse/ (made on the same system and Python as the laptops'), instead of the pip lines:

  .venv/bin/python -m pip install --no-index --find-links wheelhouse {install}

On Colab:
{colab}
On JupyterHub or Binder: put this folder in a git repository of its own; Binder and repo2docker install binder/
(this wheel), and nbgitpuller links hand out its notebooks (the workbook's docs/jupyterhub.md).
"""
