"""Lesson 06, contrastive learning and SimCSE: its set-up, experiments and reports (``06_contrastive_simcse.ipynb``).

The notebook's visible cells write the lesson (InfoNCE, the positive pair's distance under dropout, SimCSE §5's bound)
and make one call per experiment; everything else is a hidden call to a function here, one module per part of the
lesson: :mod:`.lesson` (the set-up: the two starts, the data, the start model's vectors), :mod:`.rows` (each embedding
scored once, no weights kept) and :mod:`.runs` (training one fresh copy at a time), which every section reads;
:mod:`.starts` (§0-§2: two starts, InfoNCE, the recipe, the paths), :mod:`.dropout` (§3), :mod:`.supervised` (§4),
:mod:`.plane` (§5, the core: the plane, its moves and verdicts), :mod:`.plane_readings` (§5's bound, §5.1 from the
start model, §5.2 frequency), :mod:`.transfer` (§6) and :mod:`.gradient_cache` (§7).
"""
from sbert_workbook.lessons.nb06.dropout import augmentations_report, dropout_report, predict_no_dropout
from sbert_workbook.lessons.nb06.gradient_cache import cache_report, gradient_cache_demo
from sbert_workbook.lessons.nb06.lesson import NOTEBOOK, TAU, Lesson06, begin
from sbert_workbook.lessons.nb06.plane import Plane, plane_report, plane_rows
from sbert_workbook.lessons.nb06.plane_readings import bound_report, frequency_report, start_model_report
from sbert_workbook.lessons.nb06.runs import dropout_runs, supervised_runs, unsupervised_runs
from sbert_workbook.lessons.nb06.starts import mnrl_is_infonce, paths_report, recipe_report, starts_report
from sbert_workbook.lessons.nb06.supervised import supervised_recipe_report, supervised_report
from sbert_workbook.lessons.nb06.transfer import transfer_probe, transfer_report

__all__ = ["NOTEBOOK", "TAU", "Lesson06", "Plane", "augmentations_report", "begin", "bound_report", "cache_report",
           "dropout_report", "dropout_runs", "frequency_report", "gradient_cache_demo", "mnrl_is_infonce", "paths_report",
           "plane_report", "plane_rows", "predict_no_dropout", "recipe_report", "start_model_report", "starts_report",
           "supervised_recipe_report", "supervised_report", "supervised_runs", "transfer_probe", "transfer_report",
           "unsupervised_runs"]
