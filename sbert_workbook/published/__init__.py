"""Published figures, each once, with its source: paper, table, row, column, pooling, aggregation, training (``03``-``05``).

The notebooks show these beside what the student measures (``02``, ``03``, ``04``, ``05``); prose never
types them. One module per paper: :mod:`.sbert` (Sentence-BERT), :mod:`.bert_flow` (BERT-flow),
:mod:`.simcse` and :mod:`.simcse_recipe` (SimCSE), :mod:`.sbert_recipe` (SBERT's training recipe); the records
themselves are in :mod:`.table`, which rows beat which in :mod:`.comparisons` and the choices behind each quoted table
(pooling, aggregation, which subsets) in :mod:`.protocol`.
``tests/test_published.py`` pins every value to the paper's text. Values are Spearman ρ × 100 unless a
table says otherwise; ``None`` is a cell the paper leaves empty. Metadata a paper does not state is
marked ``[inferred: why]`` (``PublishedTable.inferred()`` lists a table's).
Imported by: evaluation, anisotropy, calibration, manifests, training, checks, solutions and lessons.
"""
from __future__ import annotations

from sbert_workbook.published.bert_flow import (
    BERT_FLOW_CODE_FLOW, BERT_FLOW_FIGURE2_CLOSE_EDIT_DISTANCE, BERT_FLOW_FIGURE2_SOURCE, BERT_FLOW_PAPER_FLOW, BERT_FLOW_TABLE1, BERT_FLOW_TABLE1_BUCKETS,
    BERT_FLOW_TABLE1_SOURCE, BERT_FLOW_TABLE2, BERT_FLOW_TABLE3, BERT_FLOW_TABLE5, BERT_FLOW_TABLE6, BERT_FLOW_TABLE8,
    FLOW_AGGREGATION, LAST2AVG,
)
from sbert_workbook.published.comparisons import MULTI_SUBSET_SETS, sets_where_higher
from sbert_workbook.published.sbert import (
    SBERT_AGGREGATION, SBERT_CLUSTERING_COST, SBERT_GLOVE, SBERT_TABLE1, SBERT_TABLE2, SBERT_TABLE3, SBERT_TABLE5,
    SBERT_TABLE6, SBERT_TABLE6_CONCATENATIONS, SBERT_TABLE6_SEEDS, SBERT_TABLE7,
)
from sbert_workbook.published.simcse import (
    SIMCSE_APPENDIX_E_POSTPROCESSING, SIMCSE_LEXICAL_OVERLAP, SIMCSE_LEXICAL_OVERLAP_SOURCE, SIMCSE_POSTPROCESSING_GEOMETRY,
    SIMCSE_TABLE1, SIMCSE_TABLE2, SIMCSE_TABLE3, SIMCSE_TABLE4, SIMCSE_TABLE5, SIMCSE_TABLE6, SIMCSE_TABLE_B2,
    SIMCSE_TABLE_B3, SIMCSE_TABLE_C1, SIMCSE_TABLE_C1_SOURCE, SIMCSE_TABLE_C1_STSB, SIMCSE_TABLE_D1, SIMCSE_TABLE_E1,
)
from sbert_workbook.published.simcse_recipe import SIMCSE_SUP_RECIPE, SIMCSE_TEMPERATURE, SIMCSE_UNSUP_RECIPE
from sbert_workbook.published.table import (
    ALL, BERT_FLOW, INFERRED_MARK, SBERT, SEVEN_COLUMNS, SIMCSE, WMEAN, PublishedRecipe, PublishedTable, inferred,
)

#: The spreads over random seeds the papers print, by where: the largest ± of each is ``table.largest_spread()``.
SEED_SPREADS = {"SBERT Table 2 (10 seeds, STS-B test)": SBERT_TABLE2,
                "BERT-flow Table 8, Appendix C (5 seeds, STS-B)": BERT_FLOW_TABLE8}

#: all-MiniLM-L6-v2, mean pooling, cosine, STS-B test: the model's MTEB STSBenchmark score (cosine Spearman × 100).
ALL_MINILM_STSB = 82.03
ALL_MINILM_SOURCE = ("sentence-transformers/all-MiniLM-L6-v2 on STS-B test, mean pooling, cosine: its MTEB STSBenchmark "
                     "score (test split, cosine Spearman); measured here by the workbook's harness and equal to MTEB")

#: Every PublishedTable, by its name here.
TABLES = {name: value for name, value in dict(globals()).items() if isinstance(value, PublishedTable)}
