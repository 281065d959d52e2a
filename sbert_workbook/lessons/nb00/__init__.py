"""Lesson 00, start here (``00_start_here.ipynb``): its set-up, predict questions and reports, all in :mod:`.lesson`
(one module: the lesson is short).
"""
from sbert_workbook.lessons.nb00.lesson import (NOTEBOOK, SENTENCES, begin, embedded_model_report, essentials_report,
                                                predict_nearest, predict_right_angle, predownload_report, registry_report)

__all__ = ["NOTEBOOK", "SENTENCES", "begin", "embedded_model_report", "essentials_report", "predict_nearest",
           "predict_right_angle", "predownload_report", "registry_report"]
