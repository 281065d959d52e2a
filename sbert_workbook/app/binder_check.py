"""``./workbook binder-check``: the workbook as Binder builds it from ``binder/``, then notebook 00 and a classroom page.

Binder, and a JupyterHub image made by repo2docker (docs/jupyterhub.md), install the workbook from ``binder/``:
``runtime.txt`` names the Python, and repo2docker runs ``pip install --no-cache-dir -r binder/requirements.txt``
from the repository's root (torch's CPU build, ``.[lab]``, held to ``constraints.txt``). ``./workbook
binder-check`` makes ``build/binder-venv`` with that Python, runs the same pip command there (the ``workbook`` script
says what differs on a machine that reaches only PyPI), then runs this module in it: it checks the Python, the pins
and the CPU build of torch, runs ``00_start_here.ipynb`` in quick mode with :func:`~sbert_workbook.app.runbook.run_all`,
and opens ``classroom/embedding_explorer.ipynb`` in the classroom app in headless Chromium until its figure is drawn
(``tools/classroom_pages.py``, shared with the browser tests). The file checks are also fast tests (tests/test_binder.py).
"""
from __future__ import annotations

import re
import secrets
import sys
from importlib import metadata
from pathlib import Path

from sbert_workbook.data.finding import repo_root

BINDER = "binder"
CLASSROOM_APP = "embedding_explorer"
#: How long the classroom page may take to draw: kernel start and model load in a fresh environment (first imports
#: compile) on 2 busy cores took over 240 s once in CI (tests/test_browser.py, FIRST_FIGURE_TIMEOUT_MS).
PAGE_TIMEOUT_S = 420
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^]]*\])?\s*==\s*([^\s;#]+)")


def requirement_pins(text: str) -> dict[str, str]:
    """``{package: version}`` for each ``name==version`` line of a requirements file (options, paths, comments and
    unpinned names skipped; the package name lower-cased, as pip compares them)."""
    pins = {}
    for line in text.splitlines():
        match = _PIN.match(line.split("#", 1)[0].strip())
        if match:
            pins[match.group(1).lower().replace("_", "-")] = match.group(2)
    return pins


def runtime_python(text: str) -> str:
    """``"3.11"`` from a ``runtime.txt`` reading ``python-3.11``."""
    runtime = text.strip()
    if not re.fullmatch(r"python-3\.\d+", runtime):
        raise ValueError(f"binder/runtime.txt reads {runtime!r}; repo2docker expects one line such as 'python-3.11'.")
    return runtime.removeprefix("python-")


def constraint_files(text: str, folder: Path) -> list[Path]:
    """The constraints files a requirements file names (``-c PATH``), each read from ``folder`` as pip reads them."""
    return [(folder / line.split(None, 1)[1]).resolve() for line in text.splitlines()
            if line.startswith(("-c ", "--constraint ")) and len(line.split(None, 1)) == 2]


def pin_disagreements(binder_pins: dict[str, str], constraints: dict[str, str]) -> list[str]:
    """Each package pinned in both binder/requirements.txt and constraints.txt to different releases (a local build
    label such as ``+cpu`` on binder's side is allowed: it names the build of the same release, which pip accepts)."""
    return [f"{name}: constraints.txt pins {constraints[name]}, binder/requirements.txt {version}"
            for name, version in binder_pins.items()
            if name in constraints and version.split("+")[0] != constraints[name].split("+")[0]]


def installed_mismatches(pins: dict[str, str], constraints: dict[str, str]) -> list[str]:
    """'name: pinned X, installed Y' for each pin this environment does not hold: binder's pins exactly (a build label
    included), and the constraints' for the packages installed at all (a constraint installs nothing by itself)."""
    wrong = []
    for name, wanted in {**constraints, **pins}.items():
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            installed = None
        if name in pins and installed != wanted:
            wrong.append(f"{name}: pinned {wanted}, installed {installed or 'nothing'}")
        elif name not in pins and installed and installed.split("+")[0] != wanted.split("+")[0]:
            wrong.append(f"{name}: constraints.txt pins {wanted}, installed {installed}")
    return wrong


def environment_problems(root: Path) -> list[str]:
    """What in this environment differs from what binder/ asks for: the Python, the pins, the kernel's interpreter."""
    from sbert_workbook.app.colab_check import kernel_python

    problems = []
    wanted = runtime_python((root / BINDER / "runtime.txt").read_text(encoding="utf-8"))
    running = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if running != wanted:
        problems.append(f"Python {running} runs here, binder/runtime.txt asks for {wanted}")
    requirements = (root / BINDER / "requirements.txt").read_text(encoding="utf-8")
    constraints = {name: version for path in constraint_files(requirements, root / BINDER)
                   for name, version in requirement_pins(path.read_text(encoding="utf-8")).items()}
    problems += installed_mismatches(requirement_pins(requirements), constraints)
    if Path(kernel_python()).resolve() != Path(sys.executable).resolve():
        problems.append(f"the python3 kernel runs {kernel_python()}, not {sys.executable} (a python3 kernelspec shadows "
                        "this environment's: see `jupyter kernelspec list`)")
    return problems


def run_start_notebook(root: Path) -> float:
    """Run ``00_start_here.ipynb`` in quick mode as the lesson runner does; seconds it took (raises if a cell fails)."""
    from sbert_workbook.app.runbook import run_all

    return sum(run.seconds for run in run_all(["00_"], build_dir=root / "build" / "binder"))


def classroom_page(root: Path) -> tuple[float | None, float]:
    """Start the classroom app from this environment, open the embedding explorer in headless Chromium; (seconds until
    its figure was drawn, or None if it never was; the GB the page's kernel then held)."""
    sys.path.insert(0, str(root))  # tools/ ships with a checkout, not with the package
    from tools.classroom_pages import free_port, kernel_processes, open_at_once, start_classroom, stop

    port, token, log = free_port(), secrets.token_hex(16), root / "build" / "binder" / "classroom.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    server = start_classroom(port, token, log)
    try:
        load = open_at_once(f"http://127.0.0.1:{port}", token, [CLASSROOM_APP], timeout_s=PAGE_TIMEOUT_S)
        return load.loads[0].seconds, sum(resident_gb(pid) for pid in kernel_processes(server))
    finally:
        stop(server)


def resident_gb(pid: int) -> float:
    """Resident memory of process ``pid`` in GB (VmRSS, /proc); 0 if it has ended."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    kilobytes = re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)
    return int(kilobytes.group(1)) / 1024 ** 2 if kilobytes else 0.0


def browser_problem() -> str | None:
    """Why the classroom page cannot be opened here (no Chromium, no Playwright), or None."""
    from tools.classroom_pages import CHROMIUM

    if not CHROMIUM.is_file():
        return f"{CHROMIUM} is missing: run `bash .ci/install_browser.sh` as root (or set SBERT_WORKBOOK_CHROMIUM)"
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "playwright is not installed here: remove build/binder-venv and run ./workbook binder-check again"
    return None


def main(argv: list[str] | None = None) -> int:
    """Check the environment, run notebook 00, draw one classroom page; 0 when all pass."""
    root = repo_root() or Path.cwd()
    sys.path.insert(0, str(root))
    problems = environment_problems(root) + [problem for problem in [browser_problem()] if problem]
    if problems:
        print("binder-check: FAIL, this environment is not what binder/ builds:\n  " + "\n  ".join(problems)
              + "\nRemove build/binder-venv and run ./workbook binder-check again.", file=sys.stderr)
        return 1
    print(f"binder-check: Python {sys.version.split()[0]}, torch {metadata.version('torch')}, as binder/ asks", flush=True)
    try:
        seconds = run_start_notebook(root)
    except Exception as error:  # noqa: BLE001 - a failed cell, said with where to read it
        print(f"binder-check: FAIL, 00_start_here stopped: {error}\nRead build/binder/html/00_start_here.html.",
              file=sys.stderr)
        return 1
    print(f"binder-check: 00_start_here ran in quick mode in {seconds:.0f} s", flush=True)
    try:
        drawn_s, kernel_gb = classroom_page(root)
    except RuntimeError as error:  # the app did not start or answer (start_classroom says why, with its log)
        print(f"binder-check: FAIL, {error}", file=sys.stderr)
        return 1
    if drawn_s is None:
        print(f"binder-check: FAIL, the classroom page {CLASSROOM_APP} drew no figure within {PAGE_TIMEOUT_S} s; the "
              "app's log is build/binder/classroom.log", file=sys.stderr)
        return 1
    print(f"binder-check: PASS. The classroom page {CLASSROOM_APP} drew its figure {drawn_s:.0f} s after it was opened; "
          f"its kernel then held {kernel_gb:.2f} GB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
