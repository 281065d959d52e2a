"""Which learning rate 04's random-init student trains at: STS-B dev before and after each of §5's two stages.

Use: ``.venv/bin/python tools/student_lr_probe.py LAYERS HIDDEN STEPS LR [LR ...]``, alone on the machine, e.g.
``4 256 300 1e-3 3e-4 1e-4`` (full mode's student at the steps ``tools/story_check.py`` runs) or ``2 128 70 1e-3 3e-4``
(quick mode's). For each learning rate, one fresh student (seed 0) is trained as §5 trains it, through the lesson's own
functions (``nb04.begin``, ``stages.configs``, ``fit``), STEPS NLI steps with the classification objective, then STEPS
STS-B train steps with the regression objective, and scored on 500 STS-B dev pairs (Spearman × 100 of cosines, mean
pooling) before training and after each stage. The manifest's ``STUDENT_LR`` is chosen from these figures
(docs/measurements.md).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEV_PAIRS = 500


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("layers", type=int)
    parser.add_argument("hidden", type=int)
    parser.add_argument("steps", type=int, help="steps of each stage")
    parser.add_argument("learning_rates", type=float, nargs="+")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.path.insert(0, str(ROOT))
    from sbert_workbook.data import load_sts
    from sbert_workbook.lessons import nb04
    from sbert_workbook.lessons.nb04 import stages
    from sbert_workbook.training.ablations import dev_spearman
    from sbert_workbook.training.fitting import fit

    dev = load_sts("stsb", "dev", limit=DEV_PAIRS)
    for learning_rate in args.learning_rates:
        lesson = nb04.begin(False, "auto", 0, "cpu", {
            "STUDENT_LAYERS": args.layers, "STUDENT_HIDDEN": args.hidden, "STUDENT_LR": learning_rate,
            "NLI_STEPS": args.steps, "STSB_STEPS": args.steps, "FINE_TUNE_ON_CPU": False})
        student = lesson.new_student(seed=0)

        scores, started = [dev_spearman(student, dev)], time.perf_counter()
        for stage, data, objective in (("nli", lesson.nli, "softmax"), ("stsb", lesson.stsb_train, "regression")):
            config = replace(stages.configs(lesson)[stage], progress=False, eval_every=None, save_checkpoints=False)
            fit(student, data, objective, config, output_dir=lesson.runs / stage)
            scores.append(dev_spearman(student, dev))
        print(f"{args.layers} layers × {args.hidden}, {args.steps} steps per stage, learning rate {learning_rate:g}: "
              f"STS-B dev before {scores[0]:.1f}, + NLI {scores[1]:.1f}, + NLI + STS-B {scores[2]:.1f} "
              f"({time.perf_counter() - started:.0f} s of training and scoring)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
