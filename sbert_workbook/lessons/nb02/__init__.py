"""Lesson 02, the anisotropic embedding space: its set-up, experiments and reports (``02_anisotropy.ipynb``).

The notebook's cells compute the lesson (the mean cosine in one pass, the variance shares, the norm per frequency
bucket, the k-NN distances, the Gaussian density of a sentence, alignment); the calls here set it up
(:mod:`.lesson`: every model read once, then let go), ask the predict questions and report each result as tables with
their captions, the sentences their numbers make, figures with intervals, and verdicts: §0-§3 in :mod:`.cone`, §4-§5
(BERT-flow's Observations 1 and 2) in :mod:`.frequency`, §6-§8 in :mod:`.layers`.
"""
from sbert_workbook.anisotropy import metrics, sentence_frequency
from sbert_workbook.lessons.nb02.cone import (cloud_explorer, cone_report, data_report, models_report, predict_cone,
                                              spectrum_report, umap_view)
from sbert_workbook.lessons.nb02.frequency import (bucket_report, frequency_buckets, glove_report, published_table1,
                                                   sentence_frequency_explorer, sentence_frequency_report,
                                                   sentence_places, sparsity_figure, word_map)
from sbert_workbook.lessons.nb02.layers import (geometry_summary, layer_report, predict_cls, predict_sts, raw_vs_trained,
                                                summary_report)
from sbert_workbook.lessons.nb02.lesson import NOTEBOOK, Lesson02, ModelRun, begin

__all__ = [
    "NOTEBOOK", "Lesson02", "ModelRun", "begin", "bucket_report", "cloud_explorer", "cone_report", "data_report",
    "frequency_buckets", "geometry_summary", "glove_report", "layer_report", "metrics", "models_report",
    "predict_cls", "predict_cone", "predict_sts", "published_table1", "raw_vs_trained", "sentence_frequency",
    "sentence_frequency_explorer", "sentence_frequency_report", "sentence_places", "sparsity_figure",
    "spectrum_report", "summary_report", "umap_view", "word_map",
]
