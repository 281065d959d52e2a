"""The manifest of ``00_start_here.ipynb``: its sizes per mode, the equations it teaches and the paper results it shows.

Read by the notebook's set-up (``sbert_workbook.lessons.nb00.begin``), the tests' notebook runs, tools/story_check.py
and tools/teaching_guide.py (docs/adding-a-lesson.md).
"""
from __future__ import annotations

from sbert_workbook.forecast.work import load, measured_cpu
from sbert_workbook.lessons.manifest import Equation, Manifest


def work(sizes, plan):
    """The set-up and the first embedding: loading the model is the only work that grows with it."""
    return [load("3", "load_encoder(", plan.model),
            measured_cpu("rest", "", "the environment check, the widgets, the reports", "00 rest")]


MANIFEST = Manifest(
    notebook="00_start_here",
    objectives=(
        'run `python -m sbert_workbook doctor` and say which model `"auto"` chose and why',
        "compute the cosine of two sentence vectors by hand",
        "switch model, mode and device in a notebook's parameters cell",
    ),
    equations=(
        Equation("cosine similarity, the measure of the whole workbook", "cos(u, v) = u·v / (‖u‖ ‖v‖)",
                 "sbert_workbook.evaluation.similarity:cosine_similarity", "3"),
    ),
    work=work,
)
