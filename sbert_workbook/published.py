"""Published figures, each once, with its source: paper, table, row, column, pooling, aggregation.

The notebooks show these beside what the student measures (``03``, ``04``, ``05`` and ``02``);
prose never types them. ``tests/test_published.py`` pins every value to the paper's text.
Values are Spearman ρ × 100 unless a table says otherwise; ``None`` is a cell the paper leaves empty.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

SBERT = "Reimers & Gurevych (2019), Sentence-BERT, EMNLP-IJCNLP (arXiv 1908.10084)"
BERT_FLOW = "Li et al. (2020), On the Sentence Embeddings from Pre-trained Language Models (BERT-flow), EMNLP (arXiv 2011.05864)"
SIMCSE = "Gao et al. (2021), SimCSE, EMNLP (arXiv 2104.08821)"
SEVEN_COLUMNS = ("sts12", "sts13", "sts14", "sts15", "sts16", "stsb", "sickr")
ALL = "all: pairs of all subsets of a year pooled into one correlation"
WMEAN = "wmean: one correlation per subset, averaged weighted by size (SentEval's 'all')"


@dataclass(frozen=True)
class PublishedTable:
    """One table of a paper as printed: rows of values under ``columns``, with where they come from."""

    paper: str
    table: str
    metric: str
    split: str
    aggregation: str
    columns: tuple[str, ...]
    rows: dict[str, tuple[float | None, ...]]
    model: dict[str, str]  #: row → the model it was measured on
    pooling: dict[str, str]  #: row → the pooling behind the row
    spread: dict[str, float] = field(default_factory=dict)  #: row → ± standard deviation over seeds, where printed

    def value(self, row: str, column: str) -> float | None:
        """The printed value of ``row`` under ``column``; a clear KeyError names what exists."""
        if row not in self.rows:
            raise KeyError(f"{self.table} of {self.paper} has no row {row!r}; rows: {', '.join(self.rows)}.")
        if column not in self.columns:
            raise KeyError(f"{self.table} has no column {column!r}; columns: {', '.join(self.columns)}.")
        return self.rows[row][self.columns.index(column)]

    def source(self, row: str | None = None) -> str:
        """One line citing the table (and the row's model and pooling)."""
        where = f"{self.paper}, {self.table}: {self.metric}, {self.split}, aggregation {self.aggregation}"
        return where if row is None else f"{where}; row '{row}' ({self.model[row]}, pooling: {self.pooling[row]})"

    def frame(self, rows=None) -> pd.DataFrame:
        """The table (``rows`` of it, all by default) as a DataFrame with ``model`` and ``pooling`` columns and provenance."""
        chosen = list(rows) if rows is not None else list(self.rows)
        missing = [row for row in chosen if row not in self.rows]
        if missing:
            raise KeyError(f"{self.table} has no rows {missing}; rows: {', '.join(self.rows)}.")
        table = pd.DataFrame([self.rows[row] for row in chosen], index=chosen, columns=list(self.columns), dtype=float)
        if self.spread:
            table["±"] = [self.spread.get(row) for row in chosen]
        table.insert(0, "pooling", [self.pooling[row] for row in chosen])
        table.index.name = f"published ({self.table})"
        table.attrs["source"] = self.source()
        table.attrs["provenance"] = {
            "model": "; ".join(dict.fromkeys(self.model[row] for row in chosen)) + " — quoted from the paper, not re-run",
            "pooling": "per row: see 'pooling'", "aggregation": self.aggregation, "split": self.split,
            "source": self.source(),
        }
        return table


def _same(rows, value: str) -> dict[str, str]:
    return {row: value for row in rows}


_T1_ROWS = {
    "Avg. GloVe embeddings": (55.14, 70.66, 59.73, 68.25, 63.66, 58.02, 53.76, 61.32),
    "Avg. BERT embeddings": (38.78, 57.98, 57.98, 63.15, 61.06, 46.35, 58.40, 54.81),
    "BERT CLS-vector": (20.16, 30.01, 20.09, 36.88, 38.08, 16.50, 42.63, 29.19),
    "InferSent - Glove": (52.86, 66.75, 62.15, 72.77, 66.87, 68.03, 65.65, 65.01),
    "Universal Sentence Encoder": (64.49, 67.80, 64.61, 76.83, 73.18, 74.92, 76.69, 71.22),
    "SBERT-NLI-base": (70.97, 76.53, 73.19, 79.09, 74.30, 77.03, 72.91, 74.89),
    "SBERT-NLI-large": (72.27, 78.46, 74.90, 80.99, 76.25, 79.23, 73.75, 76.55),
    "SRoBERTa-NLI-base": (71.54, 72.49, 70.80, 78.74, 73.69, 77.77, 74.46, 74.21),
    "SRoBERTa-NLI-large": (74.53, 77.00, 73.18, 81.85, 76.82, 79.10, 74.29, 76.68),
}
SBERT_TABLE1 = PublishedTable(
    SBERT, "Table 1", "Spearman × 100 between cosine similarity and gold labels, no STS training data",
    "test sets", ALL, (*SEVEN_COLUMNS, "avg"), _T1_ROWS,
    model={"Avg. GloVe embeddings": "GloVe 840B 300d word vectors", "Avg. BERT embeddings": "bert-base-uncased",
           "BERT CLS-vector": "bert-base-uncased", "InferSent - Glove": "InferSent (BiLSTM on NLI, GloVe inputs)",
           "Universal Sentence Encoder": "Universal Sentence Encoder", "SBERT-NLI-base": "bert-base-uncased + SBERT on NLI",
           "SBERT-NLI-large": "bert-large-uncased + SBERT on NLI", "SRoBERTa-NLI-base": "roberta-base + SBERT on NLI",
           "SRoBERTa-NLI-large": "roberta-large + SBERT on NLI"},
    pooling={"Avg. GloVe embeddings": "mean of word vectors", "Avg. BERT embeddings": "mean (last layer)",
             "BERT CLS-vector": "cls (last layer)", "InferSent - Glove": "max (BiLSTM states)",
             "Universal Sentence Encoder": "its own", **_same(list(_T1_ROWS)[5:], "mean (last layer)")},
)

_T2_ROWS = {
    "Avg. GloVe embeddings": (58.02,), "Avg. BERT embeddings": (46.35,), "InferSent - GloVe": (68.03,),
    "Universal Sentence Encoder": (74.92,), "SBERT-NLI-base": (77.03,), "SBERT-NLI-large": (79.23,),
    "BERT-STSb-base": (84.30,), "SBERT-STSb-base": (84.67,), "SRoBERTa-STSb-base": (84.92,),
    "BERT-STSb-large": (85.64,), "SBERT-STSb-large": (84.45,), "SRoBERTa-STSb-large": (85.02,),
    "BERT-NLI-STSb-base": (88.33,), "SBERT-NLI-STSb-base": (85.35,), "SRoBERTa-NLI-STSb-base": (84.79,),
    "BERT-NLI-STSb-large": (88.77,), "SBERT-NLI-STSb-large": (86.10,), "SRoBERTa-NLI-STSb-large": (86.15,),
}
_CROSS = "cross-encoder: [CLS] a [SEP] b [SEP] → regression head (no sentence embedding)"
SBERT_TABLE2 = PublishedTable(
    SBERT, "Table 2", "Spearman × 100 on the STS benchmark; BERT-* rows are cross-encoders, the rest cosine of embeddings; "
    "trained rows: mean ± sd over 10 seeds", "STS-B test", "n/a (one set)", ("stsb",), _T2_ROWS,
    model={row: ("bert-large-uncased" if "large" in row and "RoBERTa" not in row else
                 "roberta-large" if "RoBERTa" in row and "large" in row else "roberta-base" if "RoBERTa" in row
                 else "bert-base-uncased") + (", trained on NLI then STS-B train" if "NLI-STSb" in row else
                                             ", trained on STS-B train" if "STSb" in row else
                                             ", trained on NLI" if "NLI" in row else "")
           for row in _T2_ROWS} | {"Avg. GloVe embeddings": "GloVe 840B 300d word vectors",
                                   "InferSent - GloVe": "InferSent", "Universal Sentence Encoder": "Universal Sentence Encoder"},
    pooling={row: (_CROSS if row.startswith("BERT-") else "mean (last layer)") for row in _T2_ROWS}
    | {"Avg. GloVe embeddings": "mean of word vectors", "InferSent - GloVe": "max (BiLSTM states)",
       "Universal Sentence Encoder": "its own"},
    spread={"BERT-STSb-base": 0.76, "SBERT-STSb-base": 0.19, "SRoBERTa-STSb-base": 0.34, "BERT-STSb-large": 0.81,
            "SBERT-STSb-large": 0.43, "SRoBERTa-STSb-large": 0.76, "BERT-NLI-STSb-base": 0.19,
            "SBERT-NLI-STSb-base": 0.17, "SRoBERTa-NLI-STSb-base": 0.38, "BERT-NLI-STSb-large": 0.46,
            "SBERT-NLI-STSb-large": 0.13, "SRoBERTa-NLI-STSb-large": 0.35},
)

_T5_ROWS = {
    "Avg. GloVe embeddings": (77.25, 78.30, 91.17, 87.85, 80.18, 83.0, 72.87, 81.52),
    "Avg. fast-text embeddings": (77.96, 79.23, 91.68, 87.81, 82.15, 83.6, 74.49, 82.42),
    "Avg. BERT embeddings": (78.66, 86.25, 94.37, 88.66, 84.40, 92.8, 69.45, 84.94),
    "BERT CLS-vector": (78.68, 84.85, 94.21, 88.23, 84.13, 91.4, 71.13, 84.66),
    "InferSent - GloVe": (81.57, 86.54, 92.50, 90.38, 84.18, 88.2, 75.77, 85.59),
    "Universal Sentence Encoder": (80.09, 85.19, 93.98, 86.70, 86.38, 93.2, 70.14, 85.10),
    "SBERT-NLI-base": (83.64, 89.43, 94.39, 89.86, 88.96, 89.6, 76.00, 87.41),
    "SBERT-NLI-large": (84.88, 90.07, 94.52, 90.33, 90.66, 87.4, 75.94, 87.69),
}
SBERT_TABLE5 = PublishedTable(
    SBERT, "Table 5", "SentEval accuracy × 100 of a logistic-regression probe on frozen embeddings, 10-fold cross-validation",
    "SentEval transfer tasks (not run in this workbook)", "n/a (accuracy per task)",
    ("MR", "CR", "SUBJ", "MPQA", "SST", "TREC", "MRPC", "avg"), _T5_ROWS,
    model=dict(SBERT_TABLE1.model, **{"Avg. fast-text embeddings": "fastText word vectors"}),
    pooling=dict(SBERT_TABLE1.pooling, **{"Avg. fast-text embeddings": "mean of word vectors"}),
)

_T6_ROWS = {
    "MEAN": (80.78, 87.44), "MAX": (79.07, 69.92), "CLS": (79.80, 86.62),
    "(u, v)": (66.04, None), "(|u-v|)": (69.78, None), "(u*v)": (70.54, None), "(|u-v|, u*v)": (78.37, None),
    "(u, v, u*v)": (77.44, None), "(u, v, |u-v|)": (80.78, None), "(u, v, |u-v|, u*v)": (80.44, None),
}
SBERT_TABLE6 = PublishedTable(
    SBERT, "Table 6", "Spearman × 100 of cosine on the STS benchmark, mean of 10 seeds; column 'nli': trained on "
    "SNLI+MultiNLI with the classification objective; column 'stsb': trained on STS-B train with the regression objective",
    "STS-B dev", "n/a (one set)", ("nli", "stsb"), _T6_ROWS,
    model=_same(_T6_ROWS, "bert-base-uncased + SBERT"),
    pooling={"MEAN": "mean", "MAX": "max", "CLS": "cls", **_same(list(_T6_ROWS)[3:], "mean (concatenation rows)")},
)
#: Table 6's concatenation rows as the feature tuples ``training.losses`` uses.
SBERT_TABLE6_CONCATENATIONS = {
    ("u", "v"): "(u, v)", ("|u-v|",): "(|u-v|)", ("u*v",): "(u*v)", ("|u-v|", "u*v"): "(|u-v|, u*v)",
    ("u", "v", "u*v"): "(u, v, u*v)", ("u", "v", "|u-v|"): "(u, v, |u-v|)", ("u", "v", "|u-v|", "u*v"): "(u, v, |u-v|, u*v)",
}

#: SBERT Table 7: sentences per second (CPU: Intel i7-5820K; GPU: Tesla V100).
SBERT_TABLE7 = {"Avg. GloVe embeddings": (6469, None), "InferSent": (137, 1876), "Universal Sentence Encoder": (67, 1318),
                "SBERT-base": (44, 1378), "SBERT-base - smart batching": (83, 2042)}
#: SBERT §8 (Conclusion): hierarchical clustering of 10,000 sentences, ~50 million pair computations.
SBERT_CLUSTERING_COST = {"sentences": 10_000, "BERT (cross-encoder) hours": 65, "SBERT seconds": 5}

_BUCKETS = ("[0, 100)", "[100, 500)", "[500, 5K)", "[5K, ...)")
#: BERT-flow Table 1: bert-base-uncased input word embeddings by frequency rank ("counted based on Wikipedia dump").
BERT_FLOW_TABLE1 = {
    "mean L2 norm": (0.95, 1.04, 1.22, 1.45),
    "mean k-NN L2 distance (k=3)": (0.77, 0.93, 1.16, 1.30),
    "mean k-NN L2 distance (k=5)": (0.83, 0.99, 1.22, 1.34),
    "mean k-NN L2 distance (k=7)": (0.87, 1.04, 1.26, 1.37),
    "mean k-NN dot product (k=3)": (0.73, 0.92, 1.20, 1.63),
    "mean k-NN dot product (k=5)": (0.73, 0.91, 1.19, 1.61),
    "mean k-NN dot product (k=7)": (0.72, 0.90, 1.17, 1.60),
}
BERT_FLOW_TABLE1_BUCKETS = _BUCKETS
BERT_FLOW_TABLE1_SOURCE = (f"{BERT_FLOW}, Table 1: bert-base-uncased word embeddings, buckets of word-frequency rank "
                           "counted on a Wikipedia dump")

_FLOW_COLUMNS = ("stsb", "sickr", "sts12", "sts13", "sts14", "sts15", "sts16")
_FT2_ROWS = {
    "BERT-base": (47.29, 58.21, 49.07, 55.92, 54.75, 62.75, 65.19),
    "BERT-base-last2avg": (59.04, 63.75, 57.84, 61.95, 62.48, 70.95, 69.81),
    "BERT-base-flow (NLI)": (58.56, 65.44, 59.54, 64.69, 64.66, 72.92, 71.84),
    "BERT-base-flow (target)": (70.72, 63.11, 63.48, 72.14, 68.42, 73.77, 75.37),
    "BERT-large": (46.99, 53.74, 46.89, 53.32, 49.27, 56.54, 61.63),
    "BERT-large-last2avg": (59.56, 60.22, 57.68, 61.37, 61.02, 68.04, 70.32),
    "BERT-large-flow (NLI)": (68.09, 64.62, 61.72, 66.05, 66.34, 74.87, 74.47),
    "BERT-large-flow (target)": (72.26, 62.50, 65.20, 73.39, 69.42, 74.92, 77.63),
}
#: What BERT-flow's "last2avg" really computes: its released code averages the FIRST and LAST layers.
LAST2AVG = "first_last_avg (the paper says 'last two layers'; its code averages the first and last layer)"
BERT_FLOW_TABLE2 = PublishedTable(
    BERT_FLOW, "Table 2", "Spearman × 100 of cosine, no NLI supervision; flows fitted without labels",
    "test sets", WMEAN, _FLOW_COLUMNS, _FT2_ROWS,
    model={row: ("bert-large-uncased" if "large" in row else "bert-base-uncased")
           + (" + flow fitted on SNLI+MNLI sentences" if "(NLI)" in row else
              " + flow fitted on the target set's sentences" if "(target)" in row else "") for row in _FT2_ROWS},
    pooling={row: ("mean (last layer)" if row in ("BERT-base", "BERT-large") else LAST2AVG) for row in _FT2_ROWS},
)
_FT3_ROWS = {
    "SBERT-base-NLI (published in SBERT)": (77.03, 72.91, 70.97, 76.53, 73.19, 79.09, 74.30),
    "BERT-base-NLI": (77.08, 72.62, 66.23, 70.22, 72.15, 77.35, 73.91),
    "BERT-base-NLI-last2avg": (78.03, 74.07, 68.37, 72.44, 73.98, 79.15, 75.39),
    "BERT-base-NLI-flow (NLI)": (79.10, 78.03, 67.75, 76.73, 75.53, 80.63, 77.58),
    "BERT-base-NLI-flow (target)": (81.03, 74.97, 68.95, 78.48, 77.62, 81.95, 78.94),
    "BERT-large-NLI": (77.80, 73.44, 66.87, 73.91, 74.04, 79.14, 75.35),
    "BERT-large-NLI-last2avg": (78.45, 74.93, 68.69, 75.63, 75.55, 80.35, 76.81),
    "BERT-large-NLI-flow (NLI)": (79.89, 77.73, 69.61, 79.45, 77.56, 82.48, 79.36),
    "BERT-large-NLI-flow (target)": (81.18, 74.52, 70.19, 80.27, 78.85, 82.97, 80.57),
}
BERT_FLOW_TABLE3 = PublishedTable(
    BERT_FLOW, "Table 3", "Spearman × 100 of cosine WITH NLI supervision: BERT first fine-tuned on SNLI+MNLI in the "
    "siamese way (SBERT), then the flow fitted without labels", "test sets", WMEAN, _FLOW_COLUMNS, _FT3_ROWS,
    model={row: ("bert-large-uncased" if "large" in row else "bert-base-uncased") + " + SBERT on NLI"
           + (" + flow fitted on SNLI+MNLI sentences" if "(NLI)" in row else
              " + flow fitted on the target set's sentences" if "(target)" in row else "") for row in _FT3_ROWS},
    pooling={row: ("mean (last layer)" if row.endswith("NLI") or "published" in row else LAST2AVG) for row in _FT3_ROWS},
)
_FT5_ROWS = {
    "BERT-base": (47.29,), "+ SN": (55.46,), "+ NATSV (k=1)": (51.79,), "+ NATSV (k=10)": (60.40,),
    "+ SN + NATSV (k=1)": (56.02,), "+ SN + NATSV (k=6)": (63.51,), "BERT-base-flow (target)": (65.62,),
}
BERT_FLOW_TABLE5 = PublishedTable(
    BERT_FLOW, "Table 5", "Spearman × 100 of cosine; k chosen among 1-20 on the validation set", "STS-B test",
    "n/a (one set)", ("stsb",), _FT5_ROWS, model=_same(_FT5_ROWS, "bert-base-uncased"),
    pooling=_same(_FT5_ROWS, "mean (last layer): the 47.29 of Table 2's 'BERT-base' row"),
)
BERT_FLOW_TABLE6 = PublishedTable(
    BERT_FLOW, "Table 6", "Spearman × 100 between similarities and edit distance / gold similarity", "STS-B dev",
    "n/a (one set)", ("edit distance", "gold similarity"),
    {"Gold similarity": (-24.61, 100.00), "BERT-induced similarity": (-50.49, 59.30),
     "Flow-induced similarity": (-28.01, 74.09)},
    model={"Gold similarity": "human labels", "BERT-induced similarity": "bert-base-uncased",
           "Flow-induced similarity": "bert-base-uncased + flow"},
    pooling={"Gold similarity": "n/a", "BERT-induced similarity": "not stated in the paper",
             "Flow-induced similarity": "not stated in the paper"},
)
#: BERT-flow Figure 2: edit distance against gold, BERT-induced and flow-induced similarity of STS-B dev pairs; the
#: pairs with edit distance at most this are highlighted (the paper's lexically similar pairs).
BERT_FLOW_FIGURE2_CLOSE_EDIT_DISTANCE = 4
BERT_FLOW_FIGURE2_SOURCE = (f"{BERT_FLOW}, Figure 2: STS-B dev pairs, similarity (gold, BERT-induced, flow-induced) against "
                            "edit distance; pairs with edit distance <= 4 highlighted")
#: SimCSE Table C.1 re-evaluates BERT-flow and BERT-whitening (Su et al., 2021) with the "all" aggregation.
SIMCSE_TABLE_C1_STSB = {"BERT-flow (target)": 71.70, "BERT-whitening (target)": 71.34}
SIMCSE_TABLE_C1_SOURCE = f"{SIMCSE}, Table C.1: bert-base-uncased, first_last_avg, 'all' aggregation, STS-B test"
SIMCSE_TABLE_C1 = PublishedTable(
    SIMCSE, "Table C.1", "Spearman × 100 of cosine; BERT-flow and BERT-whitening re-evaluated by SimCSE", "STS-B test",
    ALL, ("stsb",), {row: (value,) for row, value in SIMCSE_TABLE_C1_STSB.items()},
    model={"BERT-flow (target)": "bert-base-uncased + flow fitted on the target set's sentences",
           "BERT-whitening (target)": "bert-base-uncased + whitening (Su et al., 2021) fitted on the target set's sentences"},
    pooling=_same(SIMCSE_TABLE_C1_STSB, "first_last_avg"),
)

#: all-MiniLM-L6-v2, mean pooling, cosine, STS-B test: the model's MTEB STSBenchmark score (cosine Spearman × 100).
ALL_MINILM_STSB = 82.03
ALL_MINILM_SOURCE = ("sentence-transformers/all-MiniLM-L6-v2 on STS-B test, mean pooling, cosine: its MTEB STSBenchmark "
                     "score (test split, cosine Spearman); measured here by the workbook's harness and equal to MTEB")
