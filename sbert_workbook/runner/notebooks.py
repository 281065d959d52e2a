"""Run notebooks headless in quick mode; save executed copies and HTML under ``build/``.

``python -m sbert_workbook notebooks`` (or ``./workbook notebooks``) runs them all; the
test suite runs each through :func:`run_notebook`. ``00_start_here.ipynb`` shows the command.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from sbert_workbook.data.finding import repo_root
from sbert_workbook.settings import QUICK_ENV_VAR


PLOTLY_MIME = "application/vnd.plotly.v1+json"


@dataclass
class NotebookRun:
    notebook: Path
    executed: Path
    html: Path
    seconds: float
    error: str | None = None  # what stopped it (``run_all(..., raise_failures=False)``); None when every cell ran


def notebooks_folder() -> Path:
    root = repo_root()
    if root is None:
        raise FileNotFoundError("Run this from a checkout of the workbook: no folder with pyproject.toml and notebooks/ was found.")
    return root / "notebooks"


def list_notebooks(folder: Path | None = None) -> list[Path]:
    """The workbook's notebooks in lesson order (``NN_topic.ipynb``)."""
    return sorted((folder or notebooks_folder()).glob("[0-9][0-9]_*.ipynb"))


def run_notebook(notebook: Path, build_dir: Path | None = None, timeout_s: int = 900, quick: bool = True,
                 env: dict[str, str] | None = None, parameters: dict | None = None,
                 after_cell: Callable[[Scratch, int, Any], None] | None = None,
                 unset: tuple[str, ...] = (), transport: str | None = None, alone_in: Path | None = None) -> NotebookRun:
    """Execute ``notebook`` top to bottom (in quick mode by default) in its own folder, or alone (``alone_in``).

    The executed copy (with the widgets' state, so a page rendered from it shows each control's value)
    goes to ``build/executed/`` and an HTML rendering to ``build/html/``, also when a cell fails (the
    error is then re-raised), so the failure can be read.
    ``env`` sets environment variables for the kernel (e.g. ``HF_HOME``, ``HF_HUB_OFFLINE``), ``unset`` removes
    some, both in the kernel's environment only (this process's is untouched, so runs can share it from threads);
    ``parameters`` overrides values of the cell tagged ``parameters`` (see :func:`with_parameters`);
    ``after_cell(scratch, index, cell)`` is called after each cell, in the same kernel: ``scratch.run(code)``
    runs more code there without adding it to the notebook (the exercise tests check each answer this way);
    ``transport``: the kernel's, as :func:`sbert_workbook.runner.transport.kernel_settings` reads it;
    ``alone_in``: a folder in which each run gets a new empty folder holding only a copy of the notebook, its working
    folder, as Colab runs a notebook alone in ``/content`` (:func:`run_folder`).
    """
    import nbformat
    from nbconvert import HTMLExporter

    notebook = Path(notebook).resolve()
    executed, html = output_paths(notebook, build_dir)
    nb = with_parameters(nbformat.read(notebook, as_version=4), parameters or {})
    kernel_env = {**os.environ, **(env or {}), QUICK_ENV_VAR: "1" if quick else "0"}
    for name in unset:
        kernel_env.pop(name, None)
    started = time.perf_counter()
    try:
        with run_folder(notebook, alone_in) as folder:
            execute(nb, folder, timeout_s, after_cell, kernel_env, transport)
    finally:
        nbformat.write(nb, executed)
        html.write_text(HTMLExporter().from_notebook_node(with_plotly_as_html(nb))[0], encoding="utf-8")
    return NotebookRun(notebook, executed, html, time.perf_counter() - started)


def output_paths(notebook: Path, build_dir: Path | None = None) -> tuple[Path, Path]:
    """Where a run of ``notebook`` writes its executed copy and its HTML (``build/executed/``, ``build/html/``)."""
    build_dir = Path(build_dir or notebook.parent.parent / "build")
    executed, html = build_dir / "executed" / notebook.name, build_dir / "html" / notebook.with_suffix(".html").name
    executed.parent.mkdir(parents=True, exist_ok=True)
    html.parent.mkdir(parents=True, exist_ok=True)
    return executed, html


@contextlib.contextmanager
def run_folder(notebook: Path, alone_in: Path | None = None):
    """The folder ``notebook`` runs in: its own, or with ``alone_in`` a new empty folder there holding only a copy of
    it (nothing else of the checkout beside it), removed when the run ends (``./workbook colab-check``)."""
    if alone_in is None:
        yield notebook.parent
        return
    with tempfile.TemporaryDirectory(prefix=f"sbw-{notebook.stem[:2]}-", dir=alone_in) as folder:
        shutil.copy(notebook, folder)
        yield Path(folder)


class Scratch:
    """Code run in a notebook's kernel between its cells, kept out of the notebook; ``run`` returns what it printed."""

    def __init__(self, client):
        self.client = client

    def run(self, source: str) -> str:
        import nbformat

        cell, cells = nbformat.v4.new_code_cell(source), self.client.nb.cells
        cells.append(cell)  # nbclient files a cell's outputs under its index, so the scratch cell needs one
        try:
            self.client.execute_cell(cell, len(cells) - 1, store_history=False)
        finally:
            cells.pop()
        return "".join(output.get("text", "") for output in cell.outputs if output["output_type"] == "stream")


def execute(nb, folder: Path, timeout_s: int = 900, after_cell: Callable[[Scratch, int, Any], None] | None = None,
            kernel_env: dict[str, str] | None = None, transport: str | None = None):
    """Run every cell of ``nb`` in order in one fresh kernel started in ``folder``, as ``NotebookClient.execute`` does,
    calling ``after_cell`` after each; the widgets' state is stored in ``nb.metadata.widgets``. The kernel's
    environment is ``kernel_env`` (this process's when None); its sockets live in a folder of its own
    (:mod:`sbert_workbook.runner.transport`)."""
    from nbclient import NotebookClient

    from sbert_workbook.runner import replies as kernel_replies
    from sbert_workbook.runner.priority import run_as_we_do
    from sbert_workbook.runner.transport import kernel_config, socket_folder_root

    kernel_replies.install()  # replies whose wake-up was lost are taken within a second
    with tempfile.TemporaryDirectory(prefix="sbw-kernel-", dir=socket_folder_root()) as sockets:
        config = kernel_config(transport, os.path.join(sockets, "kernel.json"))
        client = NotebookClient(nb, timeout=timeout_s, kernel_name="python3", config=config,
                                resources={"metadata": {"path": str(folder)}}, store_widget_state=True)
        with client.setup_kernel(env=dict(kernel_env if kernel_env is not None else os.environ)):
            run_as_we_do(client.km.provisioner.pid)  # a niced run stays niced against other sessions
            reply = client.wait_for_reply(client.kc.kernel_info())
            nb.metadata["language_info"] = reply["content"]["language_info"]
            scratch = Scratch(client)
            for index, cell in enumerate(list(nb.cells)):
                client.execute_cell(cell, index, execution_count=client.code_cells_executed + 1)
                if after_cell is not None:
                    after_cell(scratch, index, nb.cells[index])
            client.set_widgets_metadata()
    return nb


def cell_timing(executed) -> list[tuple[int, float, float]]:
    """(cell index, seconds the kernel worked on it, seconds the client waited on nothing) for each executed code cell.

    From nbclient's timestamps: the kernel works from its 'busy' to its 'idle' status; the client waits on
    nothing between the previous cell's reply and this cell's 'busy' (the request unread) and between
    'idle' and this cell's reply (the reply unsent): in a healthy run both are milliseconds.
    """
    import datetime as dt

    stamp = lambda text: dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()  # noqa: E731
    timings, previous_reply = [], None
    for index, cell in enumerate(executed.cells):
        times = cell.get("metadata", {}).get("execution", {})
        if cell.cell_type != "code" or not {"iopub.status.busy", "iopub.status.idle", "shell.execute_reply"} <= set(times):
            continue
        busy, idle, reply = (stamp(times[k]) for k in ("iopub.status.busy", "iopub.status.idle", "shell.execute_reply"))
        unread = busy - previous_reply if previous_reply is not None else 0.0
        timings.append((index, idle - busy, max(unread, 0.0) + max(reply - idle, 0.0)))
        previous_reply = reply
    return timings


def with_parameters(nb, parameters: dict):
    """``nb`` with a cell setting ``parameters`` (``NAME = repr(value)``) right after its 'parameters' cell, as papermill does."""
    import nbformat

    if not parameters:
        return nb
    tagged = [i for i, cell in enumerate(nb.cells) if "parameters" in cell.get("metadata", {}).get("tags", [])]
    if not tagged:
        raise ValueError("This notebook has no cell tagged 'parameters', so parameters cannot be set: tag the cell "
                         "that holds QUICK, MODEL, ... with 'parameters'.")
    source = "# Injected parameters\n" + "".join(f"{name} = {value!r}\n" for name, value in parameters.items())
    nb.cells.insert(tagged[0] + 1, nbformat.v4.new_code_cell(source, metadata={"tags": ["injected-parameters"]}))
    return nb


def with_plotly_as_html(nb, include_plotlyjs: bool = True):
    """A copy of ``nb`` whose plotly outputs also carry HTML, so the exported page draws them.

    nbconvert cannot show plotly's own output type. With ``include_plotlyjs`` plotly.js is embedded once (in the
    first figure), so the page works offline and without a kernel; without it the page must load plotly.js itself.
    """
    import copy

    import plotly.io as pio

    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            figure = output.get("data", {}).get(PLOTLY_MIME)
            if figure is not None:
                output["data"]["text/html"] = pio.to_html(figure, full_html=False, include_plotlyjs=include_plotlyjs,
                                                          validate=False)
                include_plotlyjs = False
    return nb


def sizes_parameters(notebook: Path, mode: str) -> dict:
    """The parameters that run ``notebook`` at its manifest's sizes for ``mode`` (``SIZES``): the test suite's runs
    (``suite``, ``standin``) and ``./workbook colab-check --standin`` use them."""
    from sbert_workbook.lessons.manifest import manifest

    return {"SIZES": manifest(Path(notebook).stem).sizes_for(mode)}


#: A kernel's threads while two notebooks run side by side (torch reads OMP_NUM_THREADS when it starts): two
#: 2-thread kernels on 2 cores ran up to 3.7 times slower than one; two 1-thread kernels took 98 s against 130 s.
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def run_all(only: list[str] | None = None, build_dir: Path | None = None, quick: bool = True,
            env: dict[str, str] | None = None, parallel: int = 1, folder: Path | None = None,
            transport: str | None = None, parameters: dict | Callable[[Path], dict] | None = None,
            alone_in: Path | None = None, raise_failures: bool = True, timeout_s: int = 900) -> list[NotebookRun]:
    """Run every notebook (or those whose name contains one of ``only``), printing timings; ``env``, ``parameters``
    (the same for every notebook, or a function of the notebook such as :func:`sizes_parameters`), ``transport``,
    ``alone_in`` and ``timeout_s`` (per cell) as in :func:`run_notebook`.

    ``parallel`` > 1 runs that many at a time (each kernel on one CPU thread), the later (longer) lessons first; the
    runs come back in lesson order, and the first failure is raised once every run has ended (with
    ``raise_failures=False`` a failed run comes back too, its ``error`` saying what stopped it). ``folder``: where the
    notebooks are (the workbook's by default).
    """
    from concurrent.futures import ThreadPoolExecutor

    notebooks = [n for n in list_notebooks(folder) if not only or any(part in n.name for part in only)]
    kernel_env = {**(env or {}), **(ONE_THREAD if parallel > 1 else {})}

    def run_one(notebook: Path) -> NotebookRun:
        print(f"running {notebook.name} ({'quick' if quick else 'full'} mode) ...", flush=True)
        started = time.perf_counter()
        try:
            run = run_notebook(notebook, build_dir, timeout_s, quick=quick, env=kernel_env, transport=transport,
                               parameters=parameters(notebook) if callable(parameters) else parameters, alone_in=alone_in)
        except Exception as error:
            if raise_failures:
                raise
            print(f"  {notebook.name} FAILED after {time.perf_counter() - started:.0f} s", flush=True)
            return NotebookRun(notebook, *output_paths(notebook, build_dir), time.perf_counter() - started, failure(error))
        print(f"  done in {run.seconds:.0f} s -> {run.executed}, {run.html}", flush=True)
        return run

    if parallel <= 1:
        return [run_one(notebook) for notebook in notebooks]
    from sbert_workbook.runner import replies as kernel_replies

    kernel_replies.install()  # once, before two threads would
    with ThreadPoolExecutor(max_workers=parallel) as pool:
        futures = {notebook: pool.submit(run_one, notebook) for notebook in reversed(notebooks)}
    return [futures[notebook].result() for notebook in notebooks]


def failure(error: Exception) -> str:
    """One line saying what stopped a run: a cell's exception and its message on one line, cut at 400 characters
    (nbclient's ``CellExecutionError`` carries them as ``ename``/``evalue``), else the error's own."""
    name, value = getattr(error, "ename", type(error).__name__), getattr(error, "evalue", str(error))
    message = " ".join(str(value).split())
    return f"{name}: {message[:400]}{' ...' if len(message) > 400 else ''}"


def run_all_solved(only: list[str] | None = None, build_dir: Path | None = None, quick: bool = True) -> list[NotebookRun]:
    """Run the notebooks solved (``./workbook solutions``, shown in ``00_start_here.ipynb``): every exercise cell
    fills in its reference solution (``SBERT_WORKBOOK_SOLUTIONS=1``); executed copies and HTML go to ``build/solutions/``."""
    from sbert_workbook.teaching.exercises import SOLUTIONS_ENV_VAR

    return run_all(only, build_dir or notebooks_folder().parent / "build" / "solutions", quick,
                   env={SOLUTIONS_ENV_VAR: "1"})
