"""Lesson 08, what an embedding costs (``08_what_an_embedding_costs.ipynb``): its set-up (:mod:`.setup`), its
experiments, each a frontier of ways to keep the vectors measured against float32 in one run (:mod:`.points`), and
their reports (:mod:`.reports`); §5.1's growing corpus and §5.2's encoder precisions with theirs (:mod:`.scale`).
"""
from sbert_workbook.lessons.nb08.points import (approximate_index, fewer_dimensions, matryoshka, quantized, reranked,
                                               static_model)
from sbert_workbook.lessons.nb08.reports import (beside_sentence_transformers, cost_of_float32, dimensions_report,
                                                index_report, matryoshka_report, plane_report, predict_binary, quantization_report,
                                                static_report)
from sbert_workbook.lessons.nb08.rerank_reports import rerank_report
from sbert_workbook.lessons.nb08.scale import corpus_growth, encoder_precisions, encoder_report, sweep_report
from sbert_workbook.lessons.nb08.setup import NOTEBOOK, Lesson08, begin, data_report

__all__ = ["Lesson08", "NOTEBOOK", "approximate_index", "begin", "beside_sentence_transformers", "corpus_growth",
           "cost_of_float32", "data_report", "encoder_precisions", "encoder_report", "sweep_report", "dimensions_report", "fewer_dimensions", "index_report", "matryoshka", "matryoshka_report",
           "plane_report", "predict_binary",
           "quantization_report", "quantized", "rerank_report", "reranked", "static_model", "static_report"]
