"""Lesson 07, your model diagnosed (``07_your_model.ipynb``): the set-up and §1 in :mod:`.lesson`; how the space is
shaped, the cone, rogue dimensions and frequency (§2-§4), in :mod:`.measures`; what to do about it, the fix ladder,
the plane and the one-page report (§5-§7), in :mod:`.ladder`; other models beside it (§8) in :mod:`.zoo`.

The calls here report every part of the diagnosis (:mod:`sbert_workbook.diagnosis`) with its caption, its computed
sentences, its figures and its verdict, and collect the parts into the
:class:`~sbert_workbook.diagnosis.run.Diagnosis` that §7 writes as a one-page report.
"""
from sbert_workbook.lessons.nb07.ladder import climb_ladder, ladder_report, page_report, plane_report, predict_ladder
from sbert_workbook.lessons.nb07.lesson import NOTEBOOK, Lesson07, begin, captioned, model_report, why_not
from sbert_workbook.lessons.nb07.measures import cone_report, frequency_report, predict_cone, rogue_report
from sbert_workbook.lessons.nb07.zoo import ZOO, zoo_report

__all__ = ["Lesson07", "NOTEBOOK", "ZOO", "begin", "captioned", "climb_ladder", "cone_report", "frequency_report",
           "ladder_report", "model_report", "page_report", "plane_report", "predict_cone", "predict_ladder",
           "rogue_report", "why_not", "zoo_report"]
