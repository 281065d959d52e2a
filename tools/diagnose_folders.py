"""``python -m sbert_workbook diagnose`` on three folders, timed: the embedded model, a student trained as 04 trains it,
and GloVe.

Use: ``.venv/bin/python tools/diagnose_folders.py [--out build/diagnose]``. The 04 student is trained the way
``04_siamese_finetuning.ipynb`` §5 trains seed 0 in quick mode as shipped (its manifest's sizes: NLI with the softmax
objective, then STS-B train with the regression objective), saved with ``SiameseModel.save`` (sentence-transformers'
format) and diagnosed from that folder, as a student who kept it would. Each diagnosis runs as its own process; its
wall time, peak resident memory (``wait4``'s ``ru_maxrss``) and the report's files go to ``docs/diagnose_runs.json``.
A measurement script, not a test: about two minutes on 2 cores.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DEFAULT_OUT = ROOT / "docs" / "diagnose_runs.json"


def train_04_student(folder: Path) -> dict:
    """04 §5's seed-0 student in quick mode as shipped, trained on both stages and saved to ``folder``."""
    from sbert_workbook.lessons import nb04
    from sbert_workbook.lessons.nb04.stages import configs
    from sbert_workbook.training.fitting import fit

    lesson = nb04.begin(quick=True, model="auto")
    student = lesson.new_student()
    started = time.perf_counter()
    steps = {}
    for stage, data, objective in (("nli", lesson.nli, "softmax"), ("stsb", lesson.stsb_train, "regression")):
        config = replace(configs(lesson)[stage], save_checkpoints=False, eval_every=None, progress=False)
        steps[stage] = fit(student, data, objective, config, output_dir=lesson.runs / stage).steps
    student.save(folder)
    return {"student": lesson.student_name, "steps": steps, "train_seconds": round(time.perf_counter() - started, 1),
            "folder": str(folder.relative_to(ROOT)) if folder.is_relative_to(ROOT) else str(folder)}


def timed_diagnosis(model: str, out: Path) -> dict:
    """One ``python -m sbert_workbook diagnose MODEL`` in a process of its own: seconds, peak RSS, report files."""
    out.mkdir(parents=True, exist_ok=True)
    before = set(out.iterdir())
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "sbert_workbook", "diagnose", model, "--out", str(out)],
                               cwd=ROOT, env={**os.environ, "HF_HUB_OFFLINE": "1"},
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    error = process.stderr.read()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"diagnose {model} failed:\n{error[-2000:]}")
    files = {path.name: path.stat().st_size for path in sorted(set(out.iterdir()) - before)}
    return {"seconds": round(seconds, 1), "peak_rss_mb": round(usage.ru_maxrss / 1024), "report_bytes": files}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "diagnose")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    student_folder = args.work / "04-student"
    student = train_04_student(student_folder)
    print(f"04 student: {student}", flush=True)
    runs = {}
    for label, model in (("embedded", "embedded"), ("04 student", str(student_folder)), ("glove", "glove")):
        runs[label] = timed_diagnosis(model, args.work / "reports" / label.replace(" ", "-"))
        print(f"{label}: {runs[label]}", flush=True)
    load = os.getloadavg()
    args.out.write_text(json.dumps({"measured": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                                    "cpus": os.cpu_count(), "load_average_after": round(load[0], 2),
                                    "student": student, "runs": runs}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
