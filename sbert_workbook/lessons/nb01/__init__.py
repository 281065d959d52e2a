"""Lesson 01, from masked language modelling to similarity (``01_mlm_to_similarity.ipynb``): its set-up, the toy
language's exact tables (§3), the tiny MLM's training and fit (§4-§6) and a real model's MLM head (§7), all in
:mod:`.lesson` (one module: the lesson's code fits one). ``toy_language``, ``FIRST_WORD_ID`` and ``MASK_ID`` are
re-exported for the notebook's own cells.
"""
from sbert_workbook.lessons.nb01.lesson import (
    FIRST_WORD_ID, MASK_ID, NOTEBOOK, Lesson01, begin, bias_report, claims_report, context_similarity_report,
    exact_report, fit_report, fox_pmi_in, geometry_report, masking_report, predict_fit, predict_top_word,
    real_head_or_none, top_k_explorer, toy_language, training_report, unigram_report,
)

__all__ = ["FIRST_WORD_ID", "MASK_ID", "NOTEBOOK", "Lesson01", "begin", "bias_report", "claims_report",
           "context_similarity_report", "exact_report", "fit_report", "fox_pmi_in", "geometry_report", "masking_report",
           "predict_fit", "predict_top_word", "real_head_or_none", "top_k_explorer", "toy_language", "training_report",
           "unigram_report"]
