"""Measure 08 §3.1 (plain against Matryoshka training) at the size its cell offers a student on a CPU.

Use: ``.venv/bin/python tools/matryoshka_run.py [--steps N] [--out sbert_workbook/lessons/nb08/matryoshka_cpu.json]``, alone on the
machine (two runs sharing two cores slow each other several times over).

Quick mode leaves §3.1 out (``MATRYOSHKA_STEPS`` is None) and its cell says how to run it here:
``SIZES = {"MATRYOSHKA_STEPS": CPU_RUN_STEPS}`` (``nb08/dimensions.py``, the default of ``--steps``). This runs
exactly that, quick mode's set-up with that one size changed, through the lesson's own functions (``nb08.begin``,
``nb08.matryoshka``), and stores what a student would see: the table of
STS avg of the first k dimensions (start model, plain, Matryoshka; means over seeds), each k's Matryoshka − plain
change with its t interval over seeds, the seconds it took and the process's peak memory, with where it ran. The
file ships in the package: §3.1's cell reads it to tell a student what that run costs before they start it.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "sbert_workbook" / "lessons" / "nb08" / "matryoshka_cpu.json"  # shipped: the cell reads it


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.path.insert(0, str(ROOT))
    from sbert_workbook.lessons import nb08
    from sbert_workbook.lessons.nb08.dimensions import CPU_RUN_STEPS

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=CPU_RUN_STEPS,
                        help=f"MATRYOSHKA_STEPS (the notebook's suggestion: {CPU_RUN_STEPS})")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)

    lesson = nb08.begin(True, "auto", 0, None, {"MATRYOSHKA_STEPS": args.steps})
    started = time.perf_counter()
    run = nb08.matryoshka(lesson)
    seconds = time.perf_counter() - started
    table = {int(k): {"start model": float(run.start[k]), "trained, plain": float(run.plain.loc[k].mean()),
                      "trained, Matryoshka": float(run.matryoshka.loc[k].mean()),
                      "Matryoshka − plain": run.changes[k].described(), "apart": run.changes[k].apart}
             for k in run.plain.index}
    record = {"what": run.trained, "model_name": lesson.encoder.name, "model": lesson.encoder.describe(), "steps": args.steps,
              "seeds": lesson.sizes.MATRYOSHKA_SEEDS, "batch": lesson.sizes.MATRYOSHKA_BATCH,
              "sts": lesson.split.split("; retrieval")[0], "seconds": round(seconds),
              "peak_rss_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2),
              "first_k": table, "measured": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
              "nproc": os.cpu_count()}
    args.out.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(record, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
