"""Lesson 04, Sentence-BERT's siamese fine-tuning: its set-up, experiments and reports (``04_siamese_finetuning.ipynb``).

The notebook's cells write the objectives as their equations and make each experiment's one call; the calls here set
the lesson up (:mod:`.lesson`), train and report the cross-encoder against the bi-encoder (:mod:`.cross`, §1), put
the objectives beside sentence-transformers and print the recipe (:mod:`.objectives`, §3–4), train the student in
two stages over seeds (:mod:`.stages`, §5), run the ablation and its seeds (:mod:`.ablation`, §6) and resume an
interrupted run (:mod:`.resume`, §7). Each report returns a table with its caption, the sentences its numbers make,
its figures and its verdicts.
"""
from __future__ import annotations

from sbert_workbook.lessons.nb04.ablation import (
    ablation_report, default_over_seeds, predict_lowest, seed_report, table6_report, train_ablation, uv_puzzle_report,
)
from sbert_workbook.lessons.nb04.cross import (
    afs_report, cost_report, cross_vs_bi_report, paper_cost, predict_growth, table2_report, time_both, train_cross_and_bi_encoder,
    trained_cross_encoder,
)
from sbert_workbook.lessons.nb04.lesson import (
    NOTEBOOK, Lesson04, architectures, begin, free, models_report, reference_as_siamese,
)
from sbert_workbook.lessons.nb04.objectives import (
    duplicate_batches_report, losses_beside_sentence_transformers, recipe_report, regression_beside_sentence_transformers,
    schedule_figure, st_losses,
)
from sbert_workbook.lessons.nb04.resume import resume_demo, resume_report, weights_fingerprint
from sbert_workbook.lessons.nb04.stages import before_after_report, train_in_two_stages

__all__ = [
    "NOTEBOOK", "Lesson04", "ablation_report", "afs_report", "architectures", "before_after_report", "begin",
    "cost_report", "cross_vs_bi_report", "default_over_seeds", "duplicate_batches_report", "free",
    "losses_beside_sentence_transformers", "models_report", "paper_cost", "predict_growth", "predict_lowest",
    "recipe_report", "reference_as_siamese", "regression_beside_sentence_transformers", "resume_demo", "resume_report",
    "schedule_figure", "seed_report", "st_losses", "table2_report", "table6_report", "time_both", "train_ablation",
    "train_cross_and_bi_encoder", "train_in_two_stages", "trained_cross_encoder", "uv_puzzle_report", "weights_fingerprint",
]
