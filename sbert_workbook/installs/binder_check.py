"""``./workbook binder-check``: the workbook as Binder builds it from ``binder/``: every notebook within Binder's
memory, then a classroom page.

Binder, and a JupyterHub image made by repo2docker (docs/jupyterhub.md), install the workbook from ``binder/``:
``runtime.txt`` names the Python, and repo2docker runs ``pip install --no-cache-dir -r binder/requirements.txt``
from the repository's root (torch's CPU build, ``.[lab]``, held to ``constraints.txt``); ``binder/start`` sets the
environment every kernel starts with (``SBERT_WORKBOOK_MODEL=embedded``). ``./workbook binder-check`` makes
``build/binder-venv`` with that Python, runs the same pip command there (the ``workbook`` script says what differs on
a machine that reaches only PyPI), then runs this module in it: it checks the Python, the pins and the CPU build of
torch; runs every notebook in quick mode as shipped with ``binder/start``'s environment, each kernel's memory
sampled (:mod:`sbert_workbook.runner.kernel_memory`), and fails when one peaks above :data:`BINDER_MEMORY_LIMIT_GB`;
then opens ``classroom/embedding_explorer.ipynb`` in the classroom app in headless Chromium until its figure is
drawn (:mod:`sbert_workbook.classroom.pages`, shared with the browser tests). The runs' executed copies and
verdicts are kept where ``./workbook book --executed build/binder/book-executed`` makes the book from them instead of
running every notebook again. ``--runs-only`` and ``--page-only`` do one part each (.ci/run runs the notebooks
beside the test suite). The file checks are also fast tests (tests/test_binder.py, tests/test_binder_memory.py).
"""
from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from sbert_workbook.data.finding import repo_root

BINDER = "binder"
CLASSROOM_APP = "embedding_explorer"
#: Binder's memory: mybinder.org guarantees a user 1 GB and stops a user's pod above 2 GB (its user guide, "How
#: much memory am I given"); a kernel past it is killed mid-lesson, which looks like a bug in the lesson.
BINDER_MEMORY_LIMIT_GB = 2.0
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
    from sbert_workbook.installs.colab_check import kernel_python

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


def start_script_env(start: Path) -> dict[str, str]:
    """The variables ``binder/start`` sets for every process of the image (repo2docker runs it before the server
    and each command: ``start COMMAND`` ends in ``exec "$@"``), read by running a Python that prints its environment
    through it and through a bare ``bash`` (what bash sets by itself drops out); ``{}`` when there is no start script."""
    if not start.is_file():
        return {}
    probe = [sys.executable, "-c", "import json, os; print(json.dumps(dict(os.environ)))"]
    through_start, bare = (subprocess.run(["bash", *script, *probe], capture_output=True, text=True, timeout=60)
                           for script in ([str(start)], ["-c", 'exec "$@"', "bash"]))
    printed = through_start.stdout.strip().splitlines()
    if through_start.returncode != 0 or not printed:
        raise RuntimeError(f"{start} ran no command (exit {through_start.returncode}: {through_start.stderr[-500:]}); "
                           'end it with exec "$@" (repo2docker starts everything through it)')
    after, before = json.loads(printed[-1]), json.loads(bare.stdout.strip().splitlines()[-1])
    return {name: value for name, value in after.items() if before.get(name) != value and name != "_"}


def classroom_page(root: Path, env: dict[str, str]) -> tuple[float | None, float]:
    """Start the classroom app from this environment (with ``env`` added), open the embedding explorer in headless
    Chromium; (seconds until its figure was drawn, or None if it never was; the GB the page's kernel then held)."""
    from sbert_workbook.classroom.pages import free_port, kernel_processes, open_at_once, start_classroom, stop
    from sbert_workbook.environment.resident import resident_bytes

    port, token, log = free_port(), secrets.token_hex(16), root / "build" / "binder" / "classroom.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    server = start_classroom(port, token, log, env=env)
    try:
        load = open_at_once(f"http://127.0.0.1:{port}", token, [CLASSROOM_APP], timeout_s=PAGE_TIMEOUT_S)
        return load.loads[0].seconds, sum(resident_bytes(pid) for pid in kernel_processes(server)) / 1024 ** 3
    finally:
        stop(server)


def browser_problem() -> str | None:
    """Why the classroom page cannot be opened here (no Chromium, no Playwright), or None."""
    from sbert_workbook.classroom.pages import CHROMIUM

    if not CHROMIUM.is_file():
        return f"{CHROMIUM} is missing: run `bash .ci/install_browser.sh` as root (or set SBERT_WORKBOOK_CHROMIUM)"
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "playwright is not installed here: remove build/binder-venv and run ./workbook binder-check again"
    return None


#: ``--runs-only`` stops after the notebooks (and fails on memory); ``--page-only`` reads their results and opens the
#: page. .ci/run runs the notebooks beside the test suite, at low priority, and the page after it (a page timed out
#: while the suite held the cores would say nothing about Binder).
PARTS = {"--runs-only": "runs", "--page-only": "page"}


def notebook_results(root: Path, start_env: dict[str, str], part: str) -> list:
    """Every notebook's run within memory: made now, or (``part == "page"``) read from ``--runs-only``'s."""
    from sbert_workbook.installs.binder_memory import measured_before, run_within_memory

    if part == "page":
        return measured_before(root)
    print(f"binder-check: binder/start sets {start_env or 'nothing'}; every notebook in quick mode as shipped ...",
          flush=True)
    return run_within_memory(root, start_env)


def page_failures(root: Path, start_env: dict[str, str]) -> tuple[list[str], str]:
    """Open the classroom page: (what failed, the sentence saying how it went)."""
    try:
        drawn_s, kernel_gb = classroom_page(root, start_env)
    except RuntimeError as error:  # the app did not start or answer (start_classroom says why, with its log)
        return [f"the classroom app: {error}"], ""
    if drawn_s is None:
        return [f"the classroom page {CLASSROOM_APP} drew no figure within {PAGE_TIMEOUT_S} s; the app's log is "
                "build/binder/classroom.log"], ""
    return [], (f"the classroom page {CLASSROOM_APP} drew its figure {drawn_s:.0f} s after it was opened, its kernel "
                f"then held {kernel_gb:.2f} GB")


def main(argv: list[str] | None = None) -> int:
    """Check the environment, run every notebook within Binder's memory, draw one classroom page; 0 when all pass.
    ``argv`` may hold one of :data:`PARTS` to do only that part."""
    from sbert_workbook.installs.binder_memory import over_the_limit

    argv = argv or []
    if len(argv) > 1 or any(arg not in PARTS for arg in argv):
        print(f"binder-check: cannot read {' '.join(argv)!r}; give no option (the whole check) or one of "
              f"{', '.join(PARTS)}", file=sys.stderr)
        return 2
    part, root = PARTS[argv[0]] if argv else "all", repo_root() or Path.cwd()
    problems = environment_problems(root) + [problem for problem in [browser_problem()] if problem and part != "runs"]
    if problems:
        print("binder-check: FAIL, this environment is not what binder/ builds:\n  " + "\n  ".join(problems)
              + "\nRemove build/binder-venv and run ./workbook binder-check again.", file=sys.stderr)
        return 1
    print(f"binder-check: Python {sys.version.split()[0]}, torch {metadata.version('torch')}, as binder/ asks", flush=True)
    start_env = start_script_env(root / BINDER / "start")
    try:
        results = notebook_results(root, start_env, part)
    except FileNotFoundError as missing:
        print(f"binder-check: FAIL, {missing}", file=sys.stderr)
        return 1
    print("binder-check: kernel peaks " + " · ".join(f"{r.notebook[:2]} {r.peak_gb:.2f} GB" for r in results)
          + f" (limit {BINDER_MEMORY_LIMIT_GB} GB)", flush=True)
    failures = over_the_limit(results, BINDER_MEMORY_LIMIT_GB)
    more, page = page_failures(root, start_env) if part != "runs" else ([], "`--page-only` opens the classroom page")
    if failures + more:
        print("binder-check: FAIL\n  " + "\n  ".join(failures + more), file=sys.stderr)
        return 1
    print(f"binder-check: PASS. Every notebook stayed within {BINDER_MEMORY_LIMIT_GB} GB; {page}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
