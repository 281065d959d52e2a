"""``./workbook colab-check``: every notebook as Google Colab runs it.

Colab's setup cell runs ``pip install "sbert-workbook @ git+…"``: pip builds a wheel from a clone and installs it,
not editable, into site-packages, and the notebook sits alone in ``/content``. ``./workbook colab-check`` does the
same here: it builds the wheel from a fresh copy of the working tree, installs it non-editable into a second
virtual environment (``build/colab-venv``) on Colab's Python (the one ``constraints-colab.txt`` names, found where
this machine has it; another, with the reason printed, where it has none) with ``constraints-colab.txt`` holding
Colab's versions, plus nbclient, ipykernel and nbconvert to run the notebooks, then runs this module there from
outside the checkout. It checks that pip kept every pinned version, that the kernel is this environment's Python and
that the kernel imports the installed package and finds no checkout (:func:`kernel_view`); then it runs each
notebook alone in an empty temporary folder, with data only where a Colab user has it: ``$SBERT_WORKBOOK_DATA``
(here the shared data, the stand-in for the hub) and the package itself. By default each runs in quick mode as
shipped (offline, so ``MODEL = "auto"`` is the embedded model); with ``--standin`` each runs on the branch an online
Colab user's ``auto`` takes, bert-base-uncased, as a stand-in of its shapes (:mod:`sbert_workbook.environment.bert_base_standin`)
at the manifests' ``standin`` sizes, and fails when it never loaded it: ``.ci/run`` runs that, and the test suite's
stand-in tests read those runs (``--standin-runs``). It prints a table: notebook, time, result. README, "Colab and GPU",
explains the check; ``00_start_here.ipynb`` shows the Colab badge it stands behind.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import sysconfig
import tempfile
from importlib import metadata
from pathlib import Path

from sbert_workbook.data.finding import DATA_ENV_VAR, repo_root

CONSTRAINTS_FILE = "constraints-colab.txt"
#: The newest Colab runtime image this project knows of (googlecolab/backend-info's ``pip-freeze.gpu.txt``): its date
#: and the title of the commit that brought it. When Colab moves again, record the new image here, and
#: tests/test_colab_check.py fails until ``constraints-colab.txt`` copies it.
NEWEST_COLAB_IMAGE = ("2026-08-19", "Upgrade to Python 3.13")
#: ``# colab-image: 2026-08-19 "title" (source)`` and ``# colab-python: 3.13``, the header lines of constraints-colab.txt
#: that say which image it copies (``./workbook colab-check`` reads the second to find the Python).
_IMAGE_LINE = re.compile(r'^# colab-image: (\d{4}-\d{2}-\d{2}) "([^"]+)"', re.M)
_PYTHON_LINE = re.compile(r"^# colab-python: (3\.\d+)\s*$", re.M)


def colab_image(text: str) -> tuple[str, str, str]:
    """(date, title, Python) of the Colab image a constraints-colab.txt names in its header (ValueError when it does not)."""
    image, python = _IMAGE_LINE.search(text), _PYTHON_LINE.search(text)
    if not image or not python:
        raise ValueError(f'{CONSTRAINTS_FILE} must name the image it copies in two header lines: '
                         f'\'# colab-image: YYYY-MM-DD "commit title" (source)\' and \'# colab-python: 3.N\'.')
    return image.group(1), image.group(2), python.group(1)


def image_problems(text: str, newest: tuple[str, str] = NEWEST_COLAB_IMAGE) -> list[str]:
    """Why a constraints-colab.txt does not copy Colab's newest image (empty when it does)."""
    date, title, _python = colab_image(text)
    if date < newest[0]:
        return [f"{CONSTRAINTS_FILE} copies Colab's image of {date} ({title!r}), but Colab's newest is {newest[0]} "
                f"({newest[1]!r}): copy that image's pip-freeze.gpu.txt (googlecolab/backend-info) into it, header "
                "lines included, and run ./workbook colab-check"]
    return []


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

#: Run in a kernel started in an empty folder: which sbert_workbook it imports, how it was installed, and what it finds.
KERNEL_PROBE = """\
import json, sys
from importlib import metadata
import sbert_workbook
from sbert_workbook.data.finding import data_roots, repo_root
direct_url = json.loads(metadata.distribution("sbert-workbook").read_text("direct_url.json") or "{}")
print(json.dumps({"python": sys.version.split()[0], "file": sbert_workbook.__file__, "repo_root": repo_root() and str(repo_root()),
                  "editable": direct_url.get("dir_info", {}).get("editable", False), "installed_from": direct_url.get("url"),
                  "data_roots": [f"{label}: {root}" for label, root in data_roots()]}))
"""


def kernel_view(env: dict[str, str], transport: str | None = COLAB_TRANSPORT, folder: Path | None = None) -> dict:
    """What a kernel started in an empty temporary folder (under ``folder``) imports and finds: :data:`KERNEL_PROBE`'s answer."""
    import nbformat

    from sbert_workbook.runner.notebooks import execute

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(KERNEL_PROBE)])
    with tempfile.TemporaryDirectory(prefix="sbw-colab-probe-", dir=folder) as empty:
        execute(nb, Path(empty), timeout_s=300, kernel_env={**os.environ, **env}, transport=transport)
    return json.loads(nb.cells[0].outputs[0]["text"])


def installed_package_problems(seen: dict, site_packages: Path, checkout: Path) -> list[str]:
    """What in the kernel's view (:func:`kernel_view`) is not Colab's: a package outside ``site_packages``, from the
    checkout, installed editable, or a checkout found by ``repo_root()``."""
    problems, file = [], Path(seen["file"]).resolve()
    if not file.is_relative_to(site_packages.resolve()):
        problems.append(f"the kernel imports sbert_workbook from {file}, not from {site_packages}")
    if file.is_relative_to(checkout.resolve() / "sbert_workbook"):
        problems.append(f"the kernel imports the checkout's sbert_workbook ({file}), not the installed wheel")
    if seen["editable"]:
        problems.append(f"sbert-workbook is installed editable (from {seen['installed_from']}), not from the wheel")
    if seen["repo_root"]:
        problems.append(f"repo_root() finds a checkout ({seen['repo_root']}) from the kernel's empty folder")
    return problems


def data_root(checkout: Path) -> Path | None:
    """The data a Colab user reaches through ``$SBERT_WORKBOOK_DATA``: that variable, else ``../shared/data`` beside
    the checkout (offline, the stand-in for the hub download Colab would make), else None (the hub)."""
    if os.environ.get(DATA_ENV_VAR):
        return Path(os.environ[DATA_ENV_VAR]).expanduser().resolve()
    shared = checkout.parent / "shared" / "data"
    return shared.resolve() if shared.is_dir() else None


def scratch_parent(checkout: Path) -> Path:
    """Where each notebook's empty folder is made: the system's temporary folder, which must lie outside the checkout."""
    parent = Path(tempfile.gettempdir()).resolve()
    if parent.is_relative_to(checkout.resolve()):
        raise SystemExit(f"colab-check: the temporary folder {parent} lies inside the checkout {checkout}, so a notebook "
                         "run there would find the checkout; set TMPDIR to a folder outside it.")
    return parent


def environment_problems(pins: dict[str, str], checkout: Path, env: dict[str, str],
                         scratch: Path | None = None) -> tuple[list[str], dict]:
    """Everything that makes this environment unlike Colab's, and the kernel's view (empty when it was not reached)."""
    problems = [f"pip did not keep Colab's version: {mismatch}" for mismatch in version_mismatches(pins)]
    if Path(kernel_python()).resolve() != Path(sys.executable).resolve():
        problems.append(f"the python3 kernel runs {kernel_python()}, not {sys.executable}; remove the python3 kernelspec "
                        "that shadows this environment's (jupyter kernelspec list)")
    if problems:
        return problems, {}
    seen = kernel_view(env, folder=scratch)
    return installed_package_problems(seen, Path(sysconfig.get_paths()["purelib"]), checkout), seen


def table(runs) -> str:
    """notebook | time | result, one line per run (:class:`~sbert_workbook.runner.notebooks.NotebookRun`)."""
    width = max([len("notebook"), *(len(run.notebook.name) for run in runs)])
    lines = [f"{'notebook':<{width}}  {'time':>7}  result"]
    for run in runs:
        lines.append(f"{run.notebook.name:<{width}}  {run.seconds:>5.0f} s  {'passed' if run.error is None else 'FAILED: ' + run.error}")
    return "\n".join(lines)


#: Where ``--standin`` keeps its executed copies, under the checkout; the test suite's ``--standin-runs`` reads them.
STANDIN_RUNS = Path("build") / "colab-standin"
#: What a notebook prints when ``MODEL = "auto"`` took the cached bert-base-uncased (tests/test_notebooks.py asks the same).
LOADED_BERT_BASE = "bert-base-uncased (hub cache"


def notebook_runs(args: argparse.Namespace, checkout: Path, env: dict[str, str], scratch: Path) -> list:
    """Each notebook run alone in an empty folder under ``scratch``, two at a time: in quick mode as shipped, or with
    ``args.standin`` on the bert-base-uncased stand-in at the manifests' ``standin`` sizes (a run that never loaded
    it counts as failed)."""
    from sbert_workbook.runner.notebooks import run_all, sizes_parameters

    common = dict(parallel=2, folder=checkout / "notebooks", transport=COLAB_TRANSPORT, alone_in=scratch,  # see run_all
                  raise_failures=False, timeout_s=args.cell_timeout)
    if not args.standin:
        return run_all(args.only or None, build_dir=checkout / "build" / "colab", env=env, **common)
    from sbert_workbook.environment.bert_base_standin import write_bert_base_standin

    with tempfile.TemporaryDirectory(prefix="sbw-standin-hub-", dir=scratch) as hf_home:  # ~420 MB, gone after the runs
        runs = run_all(args.only or None, build_dir=checkout / STANDIN_RUNS, env={**env, **write_bert_base_standin(Path(hf_home))},
                       parameters=lambda notebook: sizes_parameters(notebook, "standin"), **common)
    for run in runs:
        if run.error is None and LOADED_BERT_BASE not in printed_text(run.executed):
            run.error = "it never loaded bert-base-uncased from the hub cache: 'auto' took another model"
    return runs


def printed_text(executed: Path) -> str:
    """Everything an executed notebook's cells printed or displayed as text (its outputs, not its sources)."""
    cells = json.loads(executed.read_text(encoding="utf-8"))["cells"]
    return "".join("".join(output.get("text") or output.get("data", {}).get("text/plain", ""))
                   for cell in cells for output in cell.get("outputs", []))


def main(argv: list[str] | None = None) -> int:
    """Check the environment, then run the notebooks (those named, else all); 0 when every one passes."""
    parser = argparse.ArgumentParser(prog="colab-check", description=__doc__.split("\n", 1)[0])
    parser.add_argument("--checkout", type=Path, default=None, help="the workbook checkout whose notebooks/ to run")
    parser.add_argument("--cell-timeout", type=int, default=900, metavar="S",
                        help="seconds a cell may run before the check calls it stuck (Colab has no such limit; raise it "
                             "on a slow or busy machine)")
    parser.add_argument("--standin", action="store_true",
                        help="run on the bert-base-uncased stand-in at the manifests' standin sizes, the branch an online "
                             f"Colab user's MODEL = 'auto' takes (executed copies in {STANDIN_RUNS}/)")
    parser.add_argument("only", nargs="*", help="run only the notebooks whose name contains one of these (e.g. 03)")
    args = parser.parse_args(argv)
    checkout = (args.checkout or repo_root() or Path.cwd()).resolve()
    pins = pinned_versions(checkout / CONSTRAINTS_FILE)
    data = data_root(checkout)
    env = {DATA_ENV_VAR: str(data)} if data else {}
    os.environ.pop("PYTHONPATH", None)  # Colab's kernel has nothing of a checkout on its path; nor does this one
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # ipykernel 6.17's debugger on 3.12 warns at each start
    scratch = scratch_parent(checkout)
    problems, seen = environment_problems(pins, checkout, env, scratch)
    if problems:
        print("colab-check: this environment is not Colab's:\n  " + "\n  ".join(problems)
              + "\nRemove build/colab-venv and run ./workbook colab-check again.", file=sys.stderr)
        return 1
    date, title, python = colab_image((checkout / CONSTRAINTS_FILE).read_text(encoding="utf-8"))
    print(f"colab-check: Python {seen['python']} (Colab's image of {date}, {title!r}: Python {python}); sbert_workbook "
          f"from {seen['file']} (installed from {seen['installed_from']}, not editable); data roots: "
          f"{'; '.join(seen['data_roots'])}; Colab's versions from {CONSTRAINTS_FILE}: "
          + ", ".join(f"{name} {version}" for name, version in pins.items()), flush=True)
    runs = notebook_runs(args, checkout, env, scratch)
    if not runs:
        print(f"colab-check: no notebook in {checkout / 'notebooks'} matches {args.only}", file=sys.stderr)
        return 1
    how = "on the bert-base-uncased stand-in at its sizes" if args.standin else "in quick mode as shipped"
    print(f"colab-check: {len(runs)} notebooks {how}, each alone in an empty folder, two at a time, Python "
          f"{seen['python']}, {sum(run.seconds for run in runs):.0f} s of runs in all:\n{table(runs)}")
    for run in runs:
        if run.error is not None:
            print(f"colab-check: {run.notebook.name} as it stopped: {run.executed} ({run.html})")
    return 0 if all(run.error is None for run in runs) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
