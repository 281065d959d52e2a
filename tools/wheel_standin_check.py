"""Run notebooks from the installed wheel on the bert-base-uncased-shaped stand-in, as an online Colab user's run goes.

Use, after ``./workbook colab-check`` has built its environment (the wheel installed non-editable, Python 3.12, Colab's
versions)::

    build/colab-venv/bin/python tools/wheel_standin_check.py 04 08

Each named notebook (all when none is named) runs alone in an empty folder, with ``HF_HUB_OFFLINE=1`` and a hub cache
holding only the stand-in (:mod:`sbert_workbook.environment.bert_base_standin`: bert-base-uncased's shapes, random weights), so
``MODEL = "auto"`` takes bert-base-uncased's branch, at the suite's ``standin`` sizes. The suite runs the same branch
from the checkout; this runs it from what Colab installs. Numbers are meaningless; a cell that fails, or a run that
never loaded bert-base-uncased, fails the check.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
LOADED_BERT_BASE = "bert-base-uncased (hub cache"  # what 'auto' prints when it picks the cached model (as tests/test_notebooks.py)


def printed_text(executed: Path) -> str:
    """Everything the executed notebook's cells printed or displayed as text."""
    outputs = [output for cell in json.loads(executed.read_text(encoding="utf-8"))["cells"]
               for output in cell.get("outputs", [])]
    return "".join("".join(output.get("text") or output.get("data", {}).get("text/plain", "")) for output in outputs)


def main(argv: list[str]) -> int:
    import sbert_workbook
    from sbert_workbook.environment.bert_base_standin import write_bert_base_standin

    if Path(sbert_workbook.__file__).resolve().is_relative_to(CHECKOUT / "sbert_workbook"):
        print(f"wheel-standin-check: this Python imports the checkout ({sbert_workbook.__file__}); run it with "
              "build/colab-venv/bin/python after ./workbook colab-check", file=sys.stderr)
        return 1
    os.environ.pop("PYTHONPATH", None)
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    print(f"wheel-standin-check: sbert_workbook from {sbert_workbook.__file__}", flush=True)
    (CHECKOUT / "build").mkdir(exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="wheel-standin-", dir=CHECKOUT / "build"))  # the executed notebooks stay
    with tempfile.TemporaryDirectory(prefix="standin-hub-") as hf_home:  # the stand-in's ~420 MB goes after the runs
        data = os.environ.get("SBERT_WORKBOOK_DATA", str(CHECKOUT.parent / "shared" / "data"))
        env = {**write_bert_base_standin(Path(hf_home)), "SBERT_WORKBOOK_DATA": data}
        return run_each(argv, scratch, env)


def run_each(argv: list[str], scratch: Path, env: dict[str, str]) -> int:
    """Run the notebooks named in ``argv`` (all when none) alone in ``scratch``; 1 when any fails."""
    from sbert_workbook.installs.colab_check import COLAB_TRANSPORT
    from sbert_workbook.runner.notebooks import run_notebook
    from sbert_workbook.lessons.manifest import manifest

    notebooks = sorted(p for p in (CHECKOUT / "notebooks").glob("[0-9][0-9]_*.ipynb")
                       if not argv or any(p.name.startswith(name) for name in argv))
    print(f"wheel-standin-check: {len(notebooks)} notebooks; executed copies in {scratch / 'build'}", flush=True)
    failed = 0
    for notebook in notebooks:
        started = time.perf_counter()
        try:
            run = run_notebook(notebook, scratch / "build", env=env, alone_in=scratch, transport=COLAB_TRANSPORT,
                               parameters={"SIZES": manifest(notebook.stem).sizes_for("standin")}, timeout_s=1800)
            result = ("passed" if LOADED_BERT_BASE in printed_text(run.executed)
                      else "FAILED: it never loaded bert-base-uncased from the hub cache")
        except Exception as error:  # noqa: BLE001 - reported, and the check fails
            result = f"FAILED: {str(error)[:1500]}"
        failed += result != "passed"
        print(f"{notebook.name}: {result} in {time.perf_counter() - started:.0f} s", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
