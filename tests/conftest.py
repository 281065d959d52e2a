"""Shared fixtures: the embedded model is loaded once per session; data comes from ../shared/data."""
from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # tests never reach for the hub
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.fail(f"The reference data is missing: expected {SHARED_DATA} (see README, 'Models and data').")
    return SHARED_DATA


@pytest.fixture(scope="session")
def encoder():
    """The embedded all-MiniLM-L6-v2 on CPU; tests must not modify it (copy.deepcopy first)."""
    from sbert_workbook import load_encoder

    return load_encoder("embedded", device="cpu")


@pytest.fixture
def shown(monkeypatch) -> list[object]:
    """Everything interactive_figure shows (figures or messages), in order, as well as writing it into its Output."""
    from sbert_workbook.teaching import widgets
    from sbert_workbook.teaching.live_output import show

    displayed: list[object] = []
    monkeypatch.setattr(widgets, "show", lambda output, shown, said="": (displayed.append(shown), show(output, shown, said)))
    return displayed


@pytest.fixture(scope="session")
def onnx_encoder(encoder):
    """A copy of the embedded model with the ONNX Runtime backend (same tokenizer and settings)."""
    import copy

    import torch

    from sbert_workbook.encoding.encoder import Encoder

    return Encoder(copy.deepcopy(encoder.model), encoder.tokenizer, encoder.resolved, torch.device("cpu"),
                   encoder.max_length, backend="onnx")


@pytest.fixture(scope="session")
def st_model(encoder):
    """sentence-transformers' own model over the same folder: the independent reference."""
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(encoder.resolved.path), device="cpu")


@pytest.fixture(scope="session")
def bert_base_standin(tmp_path_factory) -> Iterator[dict[str, str]]:
    """Environment (HF_HOME, HF_HUB_OFFLINE) with a ``bert-base-uncased``-shaped stand-in in its hub cache
    (:func:`sbert_workbook.environment.bert_base_standin.write_bert_base_standin`: random weights, real size, ~420 MB, removed
    with the session's temporary folders). Its numbers mean nothing: it exists so that the 768-dim, 12-layer,
    MLM-head branches run offline.
    """
    import shutil

    from sbert_workbook.environment.bert_base_standin import write_bert_base_standin

    hf_home = tmp_path_factory.mktemp("hf_home_bert_base")
    yield write_bert_base_standin(hf_home)
    shutil.rmtree(hf_home, ignore_errors=True)


OWN_CACHE, STANDIN = "own-cache", "bert-base-standin"  # tests/notebook_runs.VARIANTS, in its order
STANDIN_RUNS_VARIABLE = "SBERT_WORKBOOK_STANDIN_RUNS"  # the same as --standin-runs, for a command line with no test path
#: SBERT_WORKBOOK_TEST_SERIAL=1: no background runs (every notebook runs when a test first asks, on all threads).
SERIAL_ENV_VAR = "SBERT_WORKBOOK_TEST_SERIAL"
_runs = None  # the session's NotebookRuns, once made (read by the thread-count hook below)
_torch_threads = None  # torch's own thread count in this process, before the hook changed it


@pytest.fixture(scope="session")
def notebook_runs(request):
    """Each notebook executed once per variant (``own-cache``, ``bert-base-standin``), shared by every test that
    reads an executed notebook (tests/notebook_runs.py)."""
    global _runs
    from notebook_runs import NotebookRuns

    # made by colab-check --standin: read, not run. .ci/run names the folder in the environment: with no path on its
    # command line, pytest reads PYTEST_ADDOPTS before this file adds --standin-runs, and refuses it as unknown.
    standin_runs = request.config.getoption("--standin-runs") or os.environ.get(STANDIN_RUNS_VARIABLE)
    _runs = NotebookRuns(lambda: request.getfixturevalue("bert_base_standin"),
                         Path(standin_runs).resolve() if standin_runs else None)
    yield _runs
    _runs.shutdown()


def reads_notebook_runs(item) -> bool:
    return "notebook_runs" in getattr(item, "fixturenames", ())


def runs_wanted(items) -> list[tuple[Path, str]]:
    """The (notebook, variant) runs the selected tests read: a test parametrized by notebook reads that notebook's run
    in its variant (the stand-in when its name says so, else the own-cache one); any other (the book) reads them all."""
    from sbert_workbook.runner.notebooks import list_notebooks

    wanted = set()
    for item in filter(reads_notebook_runs, items):
        params = item.callspec.params if hasattr(item, "callspec") else {}
        variant = params.get("variant") or (STANDIN if "standin" in item.originalname else OWN_CACHE)
        notebooks = [params["notebook"]] if "notebook" in params else list_notebooks()
        wanted |= {(Path(notebook), variant) for notebook in notebooks}
    return sorted(wanted)


def pytest_addoption(parser):
    parser.addoption("--book", default=None, metavar="FOLDER",
                     help="a book `./workbook book` built (e.g. build/book): tests/test_shipped_book.py checks it")
    parser.addoption("--standin-runs", default=None, metavar="FOLDER",
                     help="read the stand-in variant's notebook runs from FOLDER, made by `./workbook colab-check "
                          "--standin` (build/colab-standin), instead of running them (tests/notebook_runs.py); "
                          f"${STANDIN_RUNS_VARIABLE} says the same where no test path is given (.ci/run)")


def pytest_collection_modifyitems(session, config, items):
    """The tests that read executed notebooks run last: the runs start in the background before the first test."""
    items.sort(key=reads_notebook_runs)  # stable: each group keeps its order


@pytest.fixture(scope="session", autouse=True)
def notebook_runs_in_the_background(request):
    """Start every notebook run the selected tests read, in background threads, before the first test (see
    tests/notebook_runs.py)."""
    wanted = runs_wanted(request.session.items)
    if wanted and os.environ.get(SERIAL_ENV_VAR) != "1":
        request.getfixturevalue("notebook_runs").run_in_background(wanted)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """One torch thread in this process while background notebook runs share the CPU, all of them after."""
    global _torch_threads
    if _runs is None or "torch" not in sys.modules:
        return
    import torch

    _torch_threads = _torch_threads or torch.get_num_threads()
    wanted = 1 if _runs.sharing_the_cpu else _torch_threads
    if torch.get_num_threads() != wanted:
        torch.set_num_threads(wanted)


def pytest_terminal_summary(terminalreporter):
    """Each notebook run's wall time (kernel start to HTML), beside pytest's slowest tests: a test that reads a run
    only waits for it, so its duration is not the run's."""
    if _runs is None or not _runs.finished():
        return
    terminalreporter.section("notebook runs (wall seconds; 1 CPU thread each while runs share the cores)")
    for run in _runs.finished():
        took = f"{run.run.seconds:7.1f} s" if run.run is not None else f"failed: {type(run.error).__name__}"
        took = f"read from {run.read_from}" if run.read_from is not None and run.run is not None else took
        terminalreporter.write_line(f"{took}  {run.notebook.stem} ({run.variant})")


@pytest.fixture(scope="session")
def workbook_wheel(tmp_path_factory) -> Path:
    """The wheel pip builds from a fresh copy of this checkout (tests/installed.py)."""
    from installed import build_wheel, fresh_copy

    return build_wheel(fresh_copy(tmp_path_factory.mktemp("source")), tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="session")
def installed_workbook(workbook_wheel, tmp_path_factory) -> Path:
    """That wheel installed non-editable into a folder of its own, outside the checkout: put it alone on PYTHONPATH."""
    from installed import install_into

    return install_into(workbook_wheel, tmp_path_factory.mktemp("site"))
