"""Lesson 09, what a score means (``09_what_a_score_means.ipynb``): its set-up, the labelled pairs and every model's
vectors (:mod:`.lesson`); where the scores fall and what a monotone map changes (:mod:`.where`, §1); thresholds chosen
and tested (:mod:`.thresholds`, §2); a cosine made a probability (:mod:`.probabilities`, §3); the minimal pairs a
cosine gets wrong (:mod:`.stress`, §4).
"""
from sbert_workbook.lessons.nb09.probabilities import calibrate, calibration_report
from sbert_workbook.lessons.nb09.lesson import NOTEBOOK, Lesson09, begin, data_report
from sbert_workbook.lessons.nb09.stress import embedded_shares, examples_report, stress_report, stress_test
from sbert_workbook.lessons.nb09.thresholds import choose_thresholds, thresholds_report
from sbert_workbook.lessons.nb09.where import monotone_report, where_report, where_scores_fall

__all__ = ["Lesson09", "NOTEBOOK", "begin", "calibrate", "calibration_report", "choose_thresholds", "data_report",
           "embedded_shares", "examples_report", "monotone_report", "stress_report", "stress_test", "thresholds_report",
           "where_report", "where_scores_fall"]
