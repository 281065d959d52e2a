"""Lesson 07, your model diagnosed (``07_your_model.ipynb``): its set-up and the reports of §1–§4 are in
:mod:`.measures`, §5–§8 in :mod:`.ladder_and_report`.

The set-up loads MODEL as its authors meant it (a sentence-transformers folder's own pooling, Dense and Normalize;
load_encoder says which pooling ran and why), samples the seven STS test sets and encodes their sentences once. The
notebook's cells compute IsoScore and the rogue dimensions' contributions; the calls here report every part of the
diagnosis (:mod:`sbert_workbook.diagnosis`) with its caption, its computed sentences, its figures and its verdict,
and collect the parts into the :class:`~sbert_workbook.diagnosis.run.Diagnosis` that §7 writes as a one-page report.
"""
from sbert_workbook.lessons.nb07.ladder_and_report import (climb_ladder, ladder_report, page_report, plane_report,
                                                          predict_ladder, zoo_report)
from sbert_workbook.lessons.nb07.measures import (Lesson07, begin, cone_report, frequency_report, model_report,
                                                 predict_cone, rogue_report)

__all__ = ["Lesson07", "begin", "climb_ladder", "cone_report", "frequency_report", "ladder_report", "model_report",
           "page_report", "plane_report", "predict_cone", "predict_ladder", "rogue_report", "zoo_report"]
