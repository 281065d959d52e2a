"""Lesson 03, pooling and STS evaluation: its set-up, experiments and reports (``03_pooling_and_sts.ipynb``).

The notebook's cells compute the lesson (cosine and Spearman's ρ, mean pooling, the padded tokens of a batch, the
exercises); the calls here set it up, run each section's experiment and report it: a table with its caption, the
sentences its numbers make, every apart/tie interval drawn, and the verdicts recorded for tools/story_check.py.
One module per part of the lesson: :mod:`.lesson` (set-up and the Summary), :mod:`.sts_basics` (§1), :mod:`.table1` and
:mod:`.glove_rows` (§3, §3a), :mod:`.aggregation` (§4), :mod:`.explore` (§5), :mod:`.retrieval` (§6),
:mod:`.engines` (§7, §8), :mod:`.probes` (§9).
"""
from __future__ import annotations

from sbert_workbook.lessons.nb03.aggregation import aggregation_report, all_and_wmean
from sbert_workbook.lessons.nb03.engines import (compare_engines, engines_report, sentence_transformers_report,
                                                 smart_batching_report, timing_sentences)
from sbert_workbook.lessons.nb03.explore import pair_explorer, predict_worst, scatter_explorer, worst_pairs_report
from sbert_workbook.lessons.nb03.glove_rows import averaged_words, glove_report
from sbert_workbook.lessons.nb03.lesson import NOTEBOOK, Lesson03, begin, summary_report, what_runs
from sbert_workbook.lessons.nb03.probes import published_probes_report, sick_views, two_ways_report
from sbert_workbook.lessons.nb03.retrieval import (cross_encoder_cost, judges_report, rerank_report, retrieve_and_rerank,
                                                   search_box, search_index)
from sbert_workbook.lessons.nb03.sts_basics import demo_report, predict_power
from sbert_workbook.lessons.nb03.table1 import (neighbours_report, paper_order_report, paper_rows_report,
                                                published_averages, recompute_table1, table1_report)

__all__ = [
    "NOTEBOOK", "Lesson03", "begin", "what_runs", "predict_power", "demo_report", "published_averages",
    "recompute_table1", "table1_report", "glove_report", "neighbours_report", "paper_order_report", "paper_rows_report",
    "averaged_words", "all_and_wmean", "aggregation_report", "pair_explorer", "scatter_explorer", "predict_worst",
    "worst_pairs_report", "search_index", "search_box", "cross_encoder_cost", "retrieve_and_rerank", "judges_report",
    "rerank_report", "compare_engines", "engines_report", "sentence_transformers_report", "timing_sentences",
    "smart_batching_report", "sick_views", "two_ways_report", "published_probes_report", "summary_report",
]

