"""Sentence-BERT (Reimers & Gurevych, 2019): Tables 1, 2, 3, 5, 6, 7 and §8's clustering cost (``03``, ``04``).

Typed from arXiv 1908.10084 and pinned by ``tests/test_published.py``. The paper names no GloVe release,
no BERT checkpoint's casing and no STS aggregation: those are marked inferred.
"""
from __future__ import annotations

from sbert_workbook.published.table import ALL, SBERT, SEVEN_COLUMNS, PublishedTable, inferred, same


def bert(size: str) -> str:
    """SBERT's BERT-``size``: the paper gives the size, not the checkpoint's casing."""
    return inferred(f"bert-{size}-uncased", "the paper says BERT-" + size + ", not which checkpoint (casing)")


#: The word vectors behind SBERT's "Avg. GloVe embeddings" rows (Tables 1, 2, 5, 7).
SBERT_GLOVE = inferred("GloVe 840B 300d word vectors", "SBERT names no GloVe release; 840B 300d is the one "
                       "InferSent-GloVe, the row beside it, was built on")
#: SBERT's STS aggregation: not stated; SimCSE Appendix B, Table B.2, reproduces Table 1 with 'all'.
SBERT_AGGREGATION = inferred(ALL, "SBERT does not say; SimCSE Table B.2 reproduces its numbers with 'all' "
                             "(STS12 70.97) and not with 'wmean' (66.35)")
NLI_TRAINING = ("NLI rows: SNLI + MultiNLI, 3-way softmax objective, 1 epoch, batch 16, Adam lr 2e-5, linear warm-up "
                "over 10 % of the training data (§3.1); number of seeds not stated")

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
_RAW_BERT = inferred("bert-base-uncased", "SBERT does not say which BERT (size, casing) these rows ran")
SBERT_TABLE1 = PublishedTable(
    SBERT, "Table 1", "Spearman × 100 between cosine similarity and gold labels, no STS training data",
    "test sets", SBERT_AGGREGATION, (*SEVEN_COLUMNS, "avg"), _T1_ROWS,
    model={"Avg. GloVe embeddings": SBERT_GLOVE, "Avg. BERT embeddings": _RAW_BERT, "BERT CLS-vector": _RAW_BERT,
           "InferSent - Glove": "InferSent (BiLSTM on NLI, GloVe inputs)",
           "Universal Sentence Encoder": "Universal Sentence Encoder", "SBERT-NLI-base": bert("base") + " + SBERT on NLI",
           "SBERT-NLI-large": bert("large") + " + SBERT on NLI", "SRoBERTa-NLI-base": "roberta-base + SBERT on NLI",
           "SRoBERTa-NLI-large": "roberta-large + SBERT on NLI"},
    pooling={"Avg. GloVe embeddings": "mean of word vectors", "Avg. BERT embeddings": "mean (last layer)",
             "BERT CLS-vector": "cls (last layer)", "InferSent - Glove": "max (BiLSTM states)",
             "Universal Sentence Encoder": "its own", **same(list(_T1_ROWS)[5:], "mean (last layer)")},
    training=NLI_TRAINING,
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


def _t2_model(row: str) -> str:
    base = ("roberta-large" if "RoBERTa" in row and "large" in row else "roberta-base" if "RoBERTa" in row
            else bert("large" if "large" in row else "base"))
    return base + (", trained on NLI then STS-B train" if "NLI-STSb" in row else ", trained on STS-B train"
                   if "STSb" in row else ", trained on NLI" if "NLI" in row else "")


SBERT_TABLE2 = PublishedTable(
    SBERT, "Table 2", "Spearman × 100 on the STS benchmark; BERT-* rows are cross-encoders, the rest cosine of "
    "embeddings; rows trained on STS-B print value ± spread over 10 random seeds, 4 epochs (the caption)",
    "STS-B test", "n/a (one set)", ("stsb",), _T2_ROWS,
    model={row: _t2_model(row) for row in _T2_ROWS} | {
        "Avg. GloVe embeddings": SBERT_GLOVE, "Avg. BERT embeddings": _RAW_BERT, "InferSent - GloVe": "InferSent",
        "Universal Sentence Encoder": "Universal Sentence Encoder"},
    pooling={row: (_CROSS if row.startswith("BERT-") else "mean (last layer)") for row in _T2_ROWS}
    | {"Avg. GloVe embeddings": "mean of word vectors", "InferSent - GloVe": "max (BiLSTM states)",
       "Universal Sentence Encoder": "its own"},
    spread={"BERT-STSb-base": 0.76, "SBERT-STSb-base": 0.19, "SRoBERTa-STSb-base": 0.34, "BERT-STSb-large": 0.81,
            "SBERT-STSb-large": 0.43, "SRoBERTa-STSb-large": 0.76, "BERT-NLI-STSb-base": 0.19,
            "SBERT-NLI-STSb-base": 0.17, "SRoBERTa-NLI-STSb-base": 0.38, "BERT-NLI-STSb-large": 0.46,
            "SBERT-NLI-STSb-large": 0.13, "SRoBERTa-NLI-STSb-large": 0.35},
    training="the caption: 'BERT systems were trained with 10 random seeds and 4 epochs' (it does not say whether "
    "'4 epochs' covers the SBERT/SRoBERTa rows too); §4.2: all systems trained with 10 random seeds, SBERT with the "
    "regression objective; " + inferred("value = mean and ± = standard deviation over the 10 seeds",
                                        "the paper prints 'x ± y' and defines neither") + "; " + NLI_TRAINING,
)

_AFS_TEN_FOLD = "10-fold cross-validation (Misra et al.'s protocol), averaged over the folds"
_AFS_CROSS_TOPIC = "cross-topic: trained on two topics, evaluated on the third, averaged over the three topics"
_T3_ROWS = {
    "tf-idf": (46.77, 42.95), "Avg. GloVe embeddings": (32.40, 34.00), "InferSent - GloVe": (27.08, 26.63),
    "SVR (Misra et al., 2016), 10-fold": (63.33, None),
    "BERT-AFS-base, 10-fold": (77.20, 74.84), "SBERT-AFS-base, 10-fold": (76.57, 74.13),
    "BERT-AFS-large, 10-fold": (78.68, 76.38), "SBERT-AFS-large, 10-fold": (77.85, 75.93),
    "BERT-AFS-base, cross-topic": (58.49, 57.23), "SBERT-AFS-base, cross-topic": (52.34, 50.65),
    "BERT-AFS-large, cross-topic": (62.02, 60.34), "SBERT-AFS-large, cross-topic": (53.82, 53.10),
}
_UNSUPERVISED = ("tf-idf", "Avg. GloVe embeddings", "InferSent - GloVe")
SBERT_TABLE3 = PublishedTable(
    SBERT, "Table 3", "average Pearson r × 100 and average Spearman ρ × 100 on the Argument Facet Similarity corpus; "
    "SBERT rows: cosine of embeddings, BERT rows: cross-encoder", "AFS (Misra et al., 2016): 6,000 argument pairs on "
    "gun control, gay marriage and death penalty, gold 0-5", "per row (10-fold or cross-topic)", ("pearson", "spearman"),
    _T3_ROWS,
    model={row: (bert("large" if "large" in row else "base") + (" + SBERT" if row.startswith("SBERT") else "")
                 + " fine-tuned on AFS") for row in _T3_ROWS if "AFS-" in row}
    | {"tf-idf": "tf-idf", "Avg. GloVe embeddings": SBERT_GLOVE, "InferSent - GloVe": "InferSent",
       "SVR (Misra et al., 2016), 10-fold": "SVR of Misra et al. (2016), number quoted by SBERT"},
    pooling={row: (_CROSS if row.startswith("BERT-") else inferred("mean", "§3's default; §4.3 does not restate it"))
             for row in _T3_ROWS if "AFS-" in row}
    | {"tf-idf": "tf-idf vectors", "Avg. GloVe embeddings": "mean of word vectors", "InferSent - GloVe": "max (BiLSTM states)",
       "SVR (Misra et al., 2016), 10-fold": "n/a (features of Misra et al.)"},
    row_aggregation={row: (_AFS_TEN_FOLD if "10-fold" in row else _AFS_CROSS_TOPIC) for row in _T3_ROWS
                     if row not in _UNSUPERVISED} | same(_UNSUPERVISED, "no training; which pairs were scored is not stated"),
    training="SBERT fine-tuned with the regression objective, cosine at prediction (§4.3); epochs, seeds and whether "
    "SBERT-AFS started from an NLI-trained SBERT are not stated",
    notes=("§4.3: in the cross-topic setting SBERT drops about 7 points Spearman (BERT-base 57.23 vs SBERT-base "
           "50.65): a bi-encoder must place arguments of an unseen topic without comparing them word by word",
           "Pearson r is printed only for comparison with Misra et al.; the paper argues against it for STS"),
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
    model={row: SBERT_TABLE1.model.get(row, "InferSent" if "InferSent" in row else "fastText word vectors")
           for row in _T5_ROWS},
    pooling={row: SBERT_TABLE1.pooling.get(row, "mean of word vectors" if "fast" in row else "max (BiLSTM states)")
             for row in _T5_ROWS},
    notes=("SimCSE Table E.1 quotes the Avg. BERT embeddings MRPC cell as 69.54; SBERT prints 69.45",),
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
    model=same(_T6_ROWS, bert("base") + " + SBERT"),
    pooling={"MEAN": "mean", "MAX": "max", "CLS": "cls", **same(list(_T6_ROWS)[3:], "mean (concatenation rows)")},
    training="each configuration trained with 10 random seeds, performances averaged (§6)",
    notes=("§6: InferSent and USE feed (u, v, |u-v|, u*v) to their softmax classifier; in SBERT adding u*v decreased "
           "performance, and |u-v| is the most important component",),
)
#: Seeds behind each of Table 6's rows: "each configuration trained with 10 random seeds" (§6); the table prints
#: their mean and no spread.
SBERT_TABLE6_SEEDS = 10
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
