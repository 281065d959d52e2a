"""Lesson 06, contrastive learning and SimCSE: its set-up, experiments and reports (``06_contrastive_simcse.ipynb``).

The notebook's visible cells write the lesson (InfoNCE, the positive pair's distance under dropout, SimCSE §5's bound)
and make one call per experiment; everything else is a hidden call to a function here. Modules: :mod:`.setup` (the two
starts, the data, the start model's vectors), :mod:`.rows` (each embedding scored once, no weights kept), :mod:`.runs`
(training one fresh copy at a time), :mod:`.plane` (§5's moves, intervals and verdicts) and the reports.
"""
from sbert_workbook.lessons.nb06.plane import Plane, plane_rows
from sbert_workbook.lessons.nb06.reports_dropout import augmentations_report, dropout_report, supervised_recipe_report, supervised_report
from sbert_workbook.lessons.nb06.reports_plane import bound_report, frequency_report, plane_report, start_model_report
from sbert_workbook.lessons.nb06.reports_training import (mnrl_is_infonce, paths_report, predict_no_dropout, recipe_report,
                                                          starts_report)
from sbert_workbook.lessons.nb06.runs import dropout_runs, supervised_runs, unsupervised_runs
from sbert_workbook.lessons.nb06.setup import NOTEBOOK, TAU, Lesson06, begin
from sbert_workbook.lessons.nb06.transfer import cache_report, gradient_cache_demo, transfer_probe, transfer_report

__all__ = ["NOTEBOOK", "TAU", "Lesson06", "Plane", "augmentations_report", "begin", "bound_report", "cache_report",
           "dropout_report", "dropout_runs", "frequency_report", "gradient_cache_demo", "mnrl_is_infonce", "paths_report",
           "plane_report", "plane_rows", "predict_no_dropout", "recipe_report", "start_model_report", "starts_report",
           "supervised_recipe_report", "supervised_report", "supervised_runs", "transfer_probe", "transfer_report",
           "unsupervised_runs"]
