"""Check a students' release as a student gets it (``./workbook release --check``; tests/test_release.py).

:func:`check_release` makes a virtual environment, installs the release's wheel into it with pip (not editable), and
from an empty folder runs 00 and an exercise notebook of the release in that environment's kernel, each notebook alone
in a folder of its own (:func:`sbert_workbook.runner.notebooks.run_notebook`). After the last cell it asks the kernel
whether any solution can be imported: the package must be the installed wheel, ``sbert_workbook.solutions`` must not
be found, and asking for an exercise's solution must say that this copy has none. Every check cell must have printed
"not attempted" (the exercises ship unsolved).

The wheel's dependencies (torch, transformers, JupyterLab, ...) are not downloaded again: the new environment reads
them from the environment that runs the check, through a ``.pth`` file, never from a checkout (a path added by a
``.pth`` file runs none of the ``.pth`` files inside it, so an editable install there stays out). What a student's pip
would fetch is README.txt's part; ``--wheelhouse`` and docs/measurements.md time that install from nothing.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

#: 00, and a lesson with exercises that runs in seconds at the suite's sizes.
NOTEBOOKS = ("00_start_here", "01_mlm_to_similarity")
#: Asked in the kernel after each notebook's last cell: which package ran, and whether any solution is within reach.
PROBE = """
import importlib.util, json, sbert_workbook
from sbert_workbook.teaching.exercises import find_solution
try:
    find_solution("ex00_1")
    said = None
except ModuleNotFoundError as error:
    said = str(error)
print(json.dumps({"package": sbert_workbook.__file__, "version": sbert_workbook.__version__,
                  "solutions_found": importlib.util.find_spec("sbert_workbook.solutions") is not None, "said": said}))
"""


def make_environment(release: Path, venv: Path) -> Path:
    """A venv at ``venv`` holding the release's wheel, installed by pip, its dependencies read from this environment;
    returns its Python."""
    (wheel,) = (release / "wheel").glob("sbert_workbook-*.whl")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "dependencies-of-the-check.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
                    "--no-index", str(wheel)], check=True)
    return python


def check_release(release: Path, work: Path | None = None, notebooks: tuple[str, ...] = NOTEBOOKS) -> list[dict]:
    """Run ``notebooks`` of the release at ``release`` as a student would (see the module's docstring); one record per
    notebook, each with ``problems`` (empty when it passed). ``work``: where the venv and runs go (a temporary folder)."""
    release = Path(release).resolve()
    with tempfile.TemporaryDirectory(prefix="sbw-release-check-") as temporary:
        work = Path(work or temporary).resolve()
        python = make_environment(release, work / "venv")
        (work / "empty").mkdir(parents=True, exist_ok=True)
        paths = [str(release / "notebooks" / f"{name}.ipynb") for name in notebooks]
        env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "SBERT_WORKBOOK_SOLUTIONS")}
        # JupyterLab's and nbconvert's data files (the HTML templates) come with the dependencies, from this environment
        jupyter_path = os.pathsep.join(filter(None, [os.path.join(sys.prefix, "share", "jupyter"), env.get("JUPYTER_PATH")]))
        done = subprocess.run([str(python), "-m", "sbert_workbook.installs.release_check", str(work), *paths],
                              cwd=work / "empty", capture_output=True, text=True, timeout=3600,
                              env={**env, "HF_HUB_OFFLINE": env.get("HF_HUB_OFFLINE", "1"), "JUPYTER_PATH": jupyter_path})
        if done.returncode != 0:
            raise RuntimeError(f"the release's notebooks could not be run:\n{done.stderr[-3000:]}")
        return json.loads(done.stdout.strip().splitlines()[-1])


def run_in_this_environment(work: Path, notebooks: list[Path]) -> list[dict]:
    """In the release's environment: run each notebook alone in an empty folder at the suite's sizes, then probe."""
    import time

    import nbformat

    from sbert_workbook.runner.notebooks import failure, run_notebook
    from sbert_workbook.lessons.manifest import manifest
    from sbert_workbook.teaching.exercises import NOT_ATTEMPTED

    records = []
    for notebook in notebooks:
        probe, started = {}, time.perf_counter()

        def after_cell(scratch, index, cell):
            if index == len(scratch.client.nb.cells) - 1:  # the last cell has run
                probe.update(json.loads(scratch.run(PROBE).strip().splitlines()[-1]))

        record = {"notebook": notebook.name, "problems": []}
        try:
            run = run_notebook(notebook, work / "build", parameters={"SIZES": manifest(notebook.stem).sizes_for("suite")},
                               after_cell=after_cell, alone_in=work / "empty", unset=("SBERT_WORKBOOK_SOLUTIONS",))
        except Exception as error:  # noqa: BLE001 - reported as this notebook's problem
            record["problems"].append(f"did not run to its end: {failure(error)}")
            records.append({**record, "seconds": round(time.perf_counter() - started, 1)})
            continue
        checks = [printed(cell) for cell in nbformat.read(run.executed, 4).cells
                  if "check" in cell.get("metadata", {}).get("tags", [])]
        record.update(seconds=round(run.seconds, 1), checks=len(checks), probe=probe)
        record["problems"] += [f"a check cell printed {text!r}" for text in checks if text != NOT_ATTEMPTED]
        if not str(probe.get("package", "")).startswith(str(Path(sys.prefix))):
            record["problems"].append(f"the kernel imported sbert_workbook from {probe.get('package')}, not the wheel")
        if probe.get("solutions_found") or not probe.get("said") or "has no solutions" not in probe["said"]:
            record["problems"].append(f"a solution is within reach: {probe}")
        records.append(record)
    return records


def printed(cell) -> str:
    """What a cell printed (its stream outputs), stripped."""
    return "".join(output.get("text", "") for output in cell.get("outputs", []) if output["output_type"] == "stream").strip()


def report(records: list[dict]) -> str:
    """The check's table: one line per notebook, then PASS or FAIL."""
    lines = []
    for record in records:
        probe = record.get("probe", {})
        lines.append(f"{record['notebook']:28} {record.get('seconds', 0):6.1f} s  {record.get('checks', 0)} check cells, "
                     f"sbert_workbook {probe.get('version', '?')} from {probe.get('package', '?')}; "
                     f"solutions importable: {probe.get('solutions_found', '?')}"
                     + "".join(f"\n    ✗ {problem}" for problem in record["problems"]))
    ok = records and not any(record["problems"] for record in records)
    return "\n".join(lines + ["PASS: the release runs from its wheel and holds no solution" if ok else "FAIL"])


if __name__ == "__main__":
    print(json.dumps(run_in_this_environment(Path(sys.argv[1]), [Path(p) for p in sys.argv[2:]])))
