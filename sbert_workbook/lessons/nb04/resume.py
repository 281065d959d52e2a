"""Lesson 04 §7: a run stopped mid-way resumes from its checkpoint, to the very weights an uninterrupted run reaches
(``04_siamese_finetuning.ipynb``)."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from sbert_workbook.data.loaders import load_nli
from sbert_workbook.lessons.nb04.lesson import Lesson04, free
from sbert_workbook.lessons.report import Report
from sbert_workbook.training import examples
from sbert_workbook.training.fitting import TrainingConfig, TrainingResult, fit

#: The demo run: a few steps of a few SNLI pairs, a checkpoint every other step.
DEMO_STEPS, DEMO_CHECKPOINT_EVERY, DEMO_PAIRS = 5, 2, 80


@dataclass
class ResumeDemo:
    """What the §7 cell trains on and where its checkpoints go."""

    data: examples.Examples
    config: TrainingConfig
    folder: Path


def resume_demo(lesson: Lesson04) -> ResumeDemo:
    """§7: the demo's data, settings and checkpoint folder."""
    config = TrainingConfig(batch_size=lesson.sizes.BATCH_SIZE, learning_rate=lesson.student_lr, max_steps=DEMO_STEPS,
                            checkpoint_every=DEMO_CHECKPOINT_EVERY, seed=lesson.seed, device=str(lesson.device), progress=False)
    return ResumeDemo(examples.nli_pairs(load_nli("snli").first(DEMO_PAIRS)), config, lesson.runs / "resume-demo")


def weights_fingerprint(model) -> str:
    """A SHA-256 of every weight's bytes, in order: equal only for weights equal bit for bit."""
    digest = hashlib.sha256()
    for name, tensor in model.state_dict().items():
        digest.update(name.encode())
        digest.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return digest.hexdigest()


def resume_report(lesson: Lesson04, demo: ResumeDemo, resumed: TrainingResult, resumed_weights: str) -> Report:
    """§7: train the same run again without a stop, in a fresh folder, and compare its weights with the resumed run's."""
    student = lesson.new_student()
    fit(student, demo.data, "softmax", demo.config, output_dir=demo.folder.with_name("uninterrupted-demo"))
    uninterrupted = weights_fingerprint(student)
    del student
    free()
    same = uninterrupted == resumed_weights
    return Report(f"The second call resumed from step {resumed.resumed_from} and finished all {resumed.steps} steps.",
                  f"The same run without a stop, in a fresh folder: its weights are {'the same, bit for bit,' if same else 'NOT the same'} "
                  f"as the resumed run's (SHA-256 of every weight: {uninterrupted[:12]}… and {resumed_weights[:12]}…).")
