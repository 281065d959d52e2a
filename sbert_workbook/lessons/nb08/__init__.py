"""Lesson 08, what an embedding costs (``08_what_an_embedding_costs.ipynb``), one module per part of the lesson:
:mod:`.lesson` (the set-up, §1's cost of float32, and how every section measures a way of keeping the vectors against
float32), :mod:`.quantization` (§2, int8 and binary), :mod:`.dimensions` (§3, fewer numbers; §3.1, Matryoshka),
:mod:`.static` (§4, a static model), :mod:`.search` (§5, an approximate index; §5.1, a corpus that grows),
:mod:`.encoder_precision` (§5.2, the encoder's own cost), :mod:`.rerank` (§6) and :mod:`.plane` (§7, the cost–quality
plane).
"""
from sbert_workbook.lessons.nb08.dimensions import dimensions_report, fewer_dimensions, matryoshka, matryoshka_report
from sbert_workbook.lessons.nb08.encoder_precision import encoder_precisions, encoder_report
from sbert_workbook.lessons.nb08.lesson import NOTEBOOK, Lesson08, begin, cost_of_float32, data_report
from sbert_workbook.lessons.nb08.plane import plane_report
from sbert_workbook.lessons.nb08.quantization import (beside_sentence_transformers, predict_binary, quantization_report,
                                                      quantized)
from sbert_workbook.lessons.nb08.rerank import rerank_report, reranked
from sbert_workbook.lessons.nb08.search import approximate_index, corpus_growth, index_report, sweep_report
from sbert_workbook.lessons.nb08.static import static_model, static_report

__all__ = ["Lesson08", "NOTEBOOK", "approximate_index", "begin", "beside_sentence_transformers", "corpus_growth",
           "cost_of_float32", "data_report", "dimensions_report", "encoder_precisions", "encoder_report",
           "fewer_dimensions", "index_report", "matryoshka", "matryoshka_report", "plane_report", "predict_binary",
           "quantization_report", "quantized", "rerank_report", "reranked", "static_model", "static_report",
           "sweep_report"]
