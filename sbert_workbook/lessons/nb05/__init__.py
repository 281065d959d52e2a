"""Lesson 05, BERT-flow, whitening and their kin on seven STS sets: its set-up, experiments and reports
(``05_bert_flow.ipynb``).

The notebook's cells compute the lesson (SN, NATSV's projection, the whitening kernel and the additive coupling as
code, each experiment's one call); the calls here set it up, run each experiment and report it as tables with their
captions, sentences computed from the numbers, figures with their intervals, and the verdicts tools/story_check.py
compares. One module per part of the notebook:

* :mod:`.lesson` (§1): the model, the data, every sentence encoded once, what a section no longer needs released;
* :mod:`.linear_fixes` (§2-§5): raw cosines, SN, NATSV's k, whitening and Su et al.'s two reasons for it;
* :mod:`.flow_steps` (§6): the change of variables, the banana, invertibility, Glow's recipe and one fit;
* :mod:`.seven_sets`, :mod:`.published_rows`, :mod:`.protocol_effects` (§7, §7.1): the seven-set table, its
  verdicts, the published rows beside it, and three protocol choices measured;
* :mod:`.lexical` (§8), :mod:`.pictures` (§9, §10), :mod:`.word_vectors` (§11), :mod:`.family` (§12, §12.1),
  :mod:`.frequency` (§12.2).
"""
from sbert_workbook.lessons.nb05.family import (family_report, gaussianisation_family, whitening_k_report,
                                                whitening_to_k)
from sbert_workbook.lessons.nb05.flow_steps import (banana_report, change_of_variables_report, coupling_report,
                                                    fit_banana, fit_target_flow, flow_fit_report, glow_recipe_report,
                                                    holes_and_angles_report, invertible_vs_projection, latent_codes)
from sbert_workbook.lessons.nb05.frequency import frequency_report, top_direction_frequency
from sbert_workbook.lessons.nb05.lexical import (figure2, hand_written_pairs, lexical_report, lexical_table,
                                                 positive_pairs_report, predict_overlap)
from sbert_workbook.lessons.nb05.linear_fixes import (choose_natsv_k, natsv_report, predict_whitened_covariance,
                                                      raw_cosines_figure, sn_report, whitening_k_costs, whitening_report)
from sbert_workbook.lessons.nb05.pictures import before_after, flow_explorer, training_curves
from sbert_workbook.lessons.nb05.protocol_effects import protocol_effects, protocol_report
from sbert_workbook.lessons.nb05.published_rows import nli_trained_report, published_report
from sbert_workbook.lessons.nb05.lesson import (NOTEBOOK, Lesson05, begin, data_report, encode_once,
                                               keep_what_later_sections_read)
from sbert_workbook.lessons.nb05.seven_sets import (aggregation_report, calibration_verdicts, seven_set_tables,
                                                    tables_report)
from sbert_workbook.lessons.nb05.word_vectors import word_vector_fixes, word_vector_report

__all__ = [
    "NOTEBOOK", "Lesson05", "aggregation_report", "banana_report", "before_after", "begin", "calibration_verdicts",
    "change_of_variables_report", "choose_natsv_k", "coupling_report", "data_report", "encode_once", "family_report",
    "figure2", "fit_banana", "fit_target_flow", "flow_explorer", "flow_fit_report", "frequency_report",
    "gaussianisation_family", "glow_recipe_report", "hand_written_pairs", "holes_and_angles_report",
    "invertible_vs_projection", "latent_codes", "lexical_report", "lexical_table", "natsv_report", "nli_trained_report",
    "positive_pairs_report", "predict_overlap", "predict_whitened_covariance", "protocol_effects", "protocol_report",
    "published_report", "raw_cosines_figure", "keep_what_later_sections_read", "seven_set_tables", "sn_report", "tables_report",
    "top_direction_frequency", "training_curves", "whitening_k_costs", "whitening_k_report", "whitening_report",
    "whitening_to_k", "word_vector_fixes", "word_vector_report",
]
