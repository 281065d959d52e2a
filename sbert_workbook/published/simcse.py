"""SimCSE (Gao, Yao & Chen, 2021): Tables 1-6, B.2, B.3, C.1, D.1, E.1 and §4's lexical overlap (``05``, ``06``).

Typed from arXiv 2104.08821v4 and pinned by ``tests/test_published_simcse.py``. Only the BERT-base rows of
Tables 5 and E.1 are entered. SimCSE states its checkpoints (BERT uncased) and its protocol
(Spearman, no regressor, ``all``); what it leaves out is marked inferred. The training recipes
are in :mod:`sbert_workbook.published.simcse_recipe`.
"""
from __future__ import annotations

from sbert_workbook.published.table import ALL, SEVEN_COLUMNS, SIMCSE, WMEAN, PublishedTable, inferred, same

_STS = (*SEVEN_COLUMNS, "avg")
_BERT = "bert-base-uncased"
_DEV = "STS-B dev"
_FLOW_POOLING = inferred("first_last_avg", "retrained with BERT-flow's code, whose '-last2avg' averages the first and "
                         "last layers; Table B.3 calls BERT-flow's rows 'first-last avg.'")
_UNSUP = f"{_BERT} + unsupervised SimCSE on 10^6 English Wikipedia sentences"
_SUP = f"{_BERT} + supervised SimCSE on SNLI + MNLI (314k), entailment positive, contradiction hard negative"
_UNSUP_POOLING, _SUP_POOLING = "cls (MLP on [CLS] during training only)", "cls with MLP (training and test)"
_UNSUP_DEV = ("unsupervised SimCSE-BERT-base on 10^6 Wikipedia sentences, lr 3e-5, batch 64 (§3 footnote 2); "
              "no STS training data")
_DEFAULT_POOLING = inferred(_UNSUP_POOLING, "§3 does not restate it; the dropout-only row's 82.5 equals Table 6's "
                            "[CLS] w/ MLP (train)")

_T1_ROWS = {"None (unsup. SimCSE: dropout only)": (82.5,), "Crop 10%": (77.8,), "Crop 20%": (71.4,),
            "Crop 30%": (63.6,), "Word deletion 10%": (75.9,), "Word deletion 20%": (72.2,), "Word deletion 30%": (68.2,),
            "Delete one word": (75.9,), "Delete one word, w/o dropout": (74.2,), "Synonym replacement": (77.4,),
            "MLM 15%": (62.2,)}
SIMCSE_TABLE1 = PublishedTable(
    SIMCSE, "Table 1", "Spearman × 100 of cosine; the positive is a discrete augmentation g(x) of the sentence, "
    "encoded with dropout as well: crop k%: keep 100-k % of the length; word deletion k%: delete k % of the words; "
    "synonym replacement: nlpaug replaces one word; MLM 15%: BERT-base replaces 15 % of the words",
    _DEV, "n/a (one set)", ("stsb",), _T1_ROWS, model=same(_T1_ROWS, _UNSUP), pooling=same(_T1_ROWS, _DEFAULT_POOLING),
    training=_UNSUP_DEV,
    notes=(inferred("'Delete one word, w/o dropout' is the row printed 'w/o dropout' beneath 'Delete one word'",
                    "the layout; the caption does not define it"),
           "§3: even deleting one word hurts, and no discrete augmentation beats dropout noise"),
)
_T2_ROWS = {"Next sentence": (67.1, 68.9), "Next 3 sentences": (67.4, 68.8), "Delete one word": (75.9, 73.1),
            "Unsupervised SimCSE": (82.5, 80.7)}
SIMCSE_TABLE2 = PublishedTable(
    SIMCSE, "Table 2", "Spearman × 100 of cosine for unsupervised objectives, with one shared encoder f_θ or two "
    "independent encoders (f_θ1, f_θ2); next 3 sentences: one of the next 3 sampled", _DEV, "n/a (one set)",
    ("one encoder", "two encoders"), _T2_ROWS, model=same(_T2_ROWS, _UNSUP.split(" + ")[0] + " + each objective"),
    pooling=same(_T2_ROWS, _DEFAULT_POOLING), training=_UNSUP_DEV,
)
_T3_COLUMNS = ("p=0.0", "p=0.01", "p=0.05", "p=0.1", "p=0.15", "p=0.2", "p=0.5", "fixed 0.1")
SIMCSE_TABLE3 = PublishedTable(
    SIMCSE, "Table 3", "Spearman × 100 of cosine for dropout probability p in unsupervised SimCSE-BERT-base; 'fixed "
    "0.1': p = 0.1 but the same dropout mask for x and x+", _DEV, "n/a (one set)", _T3_COLUMNS,
    {"Unsup. SimCSE-BERT-base": (71.1, 72.6, 81.1, 82.5, 81.4, 80.5, 71.0, 43.6)},
    model={"Unsup. SimCSE-BERT-base": _UNSUP}, pooling={"Unsup. SimCSE-BERT-base": _DEFAULT_POOLING}, training=_UNSUP_DEV,
    notes=("§3: with p = 0 and with 'fixed 0.1' the two embeddings of a pair are identical; both degrade sharply, and "
           "Figure 2 shows their alignment collapsing while uniformity improves",),
)

# Table 4 and §4's overlap figures: typed from stored copies of the v4 text (a markdown copy, ulanch/nano-embed
# simcse.md, for §4's sentences, and copies of the v4 PDF's text, marked "arXiv:2104.08821v4", for the table's body,
# which the markdown copy drops; the copies agree cell for cell).
_T4_NLI = "SNLI+MNLI"
_T4_ROWS = {"Unsup. SimCSE (1m)": (None, 82.5), "QQP (134k)": (81.8, 81.8), "Flickr30k (318k)": (81.5, 81.4),
            "ParaNMT (5m)": (79.7, 78.7), f"{_T4_NLI} entailment (314k)": (84.1, 84.9),
            f"{_T4_NLI} neutral (314k)": (82.6, 82.9), f"{_T4_NLI} contradiction (314k)": (77.5, 77.6),
            f"{_T4_NLI} all (942k)": (81.7, 81.9), f"{_T4_NLI} entailment + hard neg.": (None, 86.2),
            f"{_T4_NLI} entailment + hard neg. + ANLI (52k)": (None, 85.0)}
_T4_POSITIVES = {"QQP (134k)": "Quora question pairs", "Flickr30k (318k)": "two captions of the same Flickr30k image",
                 "ParaNMT (5m)": "ParaNMT back-translation paraphrases",
                 f"{_T4_NLI} entailment (314k)": "SNLI + MNLI premise and entailment hypothesis",
                 f"{_T4_NLI} neutral (314k)": "SNLI + MNLI premise and neutral hypothesis (footnote 8)",
                 f"{_T4_NLI} contradiction (314k)": "SNLI + MNLI premise and contradiction hypothesis (footnote 8)",
                 f"{_T4_NLI} all (942k)": inferred("SNLI + MNLI premise and every hypothesis", "942k = 3 × 314k; "
                                                  "footnote 8 names neutral and contradiction pairs as positives")}
_T4_SUP_POOLING = inferred(_SUP_POOLING, "the caption: 'the same hyperparameters as the final SimCSE model'")
SIMCSE_TABLE4 = PublishedTable(
    SIMCSE, "Table 4", "Spearman × 100 of cosine; each row trains the contrastive objective (Eq. 1) on one dataset's "
    "positive pairs, in-batch negatives; numbers in brackets: # of pairs; sample: 134k positive pairs subsampled from "
    "each dataset, for a fair comparison; full: the whole dataset; an empty cell (None): '-' in the paper, not run",
    _DEV, "n/a (one set)", ("sample", "full"), _T4_ROWS,
    model={"Unsup. SimCSE (1m)": _UNSUP, **{row: f"{_BERT} + contrastive training on {positives}"
                                            for row, positives in _T4_POSITIVES.items()},
           f"{_T4_NLI} entailment + hard neg.": _SUP,
           f"{_T4_NLI} entailment + hard neg. + ANLI (52k)": inferred(
               f"{_SUP}, ANLI's 52k pairs added", "the table's layout; §4: adding ANLI gave no meaningful improvement")},
    pooling={"Unsup. SimCSE (1m)": _DEFAULT_POOLING, **same(list(_T4_ROWS)[1:], _T4_SUP_POOLING)},
    training=inferred("each supervised row: published.SIMCSE_SUP_RECIPE (batch 512, lr 5e-5, 3 epochs, best STS-B dev "
                      "checkpoint kept, Appendix A)", "the caption says 'the same hyperparameters as the final SimCSE "
                      "model'; the 'Unsup. SimCSE (1m)' row is unsupervised SimCSE (§3 footnote 2)"),
    notes=("§4: 'using entailment pairs from the NLI (SNLI + MNLI) datasets performs the best'; the paper's reasons: "
           "the NLI pairs are high-quality and crowd-sourced, and annotators write each hypothesis from its premise, "
           "so 'two sentences tend to have less lexical overlap' (SIMCSE_LEXICAL_OVERLAP)",
           "§4: contradiction hypotheses as hard negatives lift 84.9 to 86.2, the final supervised SimCSE; adding ANLI, "
           "or combining with unsupervised SimCSE, gave no meaningful improvement; a dual encoder hurt (86.2 to 84.2)",
           "footnote 5: ParaNMT is built by machine translation, 'strictly speaking, we should not call it "
           "\"supervised\"', and it underperforms unsupervised SimCSE",
           "'Unsup. SimCSE (1m)': unsupervised SimCSE on 10^6 Wikipedia sentences, the 82.5 of Tables 1, 2, 3 and 6"),
)
#: SimCSE §4 ("Choices of labeled data"), beside Table 4: lexical overlap (F1 between two bags of words, in %) of
#: each dataset's positive pairs. The paper gives these three only (none for Flickr30k).
SIMCSE_LEXICAL_OVERLAP = {"SNLI+MNLI entailment": 39, "QQP": 60, "ParaNMT": 55}
SIMCSE_LEXICAL_OVERLAP_SOURCE = (
    f"{SIMCSE}, §4 'Choices of labeled data' (beside Table 4): 'the lexical overlap (F1 measured between two bags of "
    "words) for the entailment pairs (SNLI + MNLI)' against 'QQP and ParaNMT', in %; offered as part of why NLI "
    "positives work best; the paper runs no experiment on it")

_T5_ROWS = {
    "BERT-base (first-last avg.)": (39.70, 59.38, 49.67, 66.03, 66.19, 53.87, 62.06, 56.70),
    "BERT-base-flow": (58.40, 67.10, 60.85, 75.16, 71.22, 68.66, 64.47, 66.55),
    "BERT-base-whitening": (57.83, 66.90, 60.90, 75.08, 71.31, 68.24, 63.73, 66.28),
    "IS-BERT-base": (56.77, 69.24, 61.21, 75.23, 70.16, 69.21, 64.25, 66.58),
    "CT-BERT-base": (61.63, 76.80, 68.47, 77.50, 76.48, 74.31, 69.19, 72.05),
    "Unsup. SimCSE-BERT-base": (68.40, 82.41, 74.38, 80.91, 78.56, 76.85, 72.23, 76.25),
    "SBERT-base": (70.97, 76.53, 73.19, 79.09, 74.30, 77.03, 72.91, 74.89),
    "SBERT-base-flow": (69.78, 77.27, 74.35, 82.01, 77.46, 79.12, 76.21, 76.60),
    "SBERT-base-whitening": (69.65, 77.57, 74.66, 82.27, 78.39, 79.52, 76.91, 77.00),
    "CT-SBERT-base": (74.84, 83.20, 78.07, 83.84, 77.93, 81.46, 76.42, 79.39),
    "Sup. SimCSE-BERT-base": (75.30, 84.67, 80.19, 85.40, 80.82, 84.25, 80.39, 81.57),
}
_SBERT_WEIGHTS = "which SBERT weights SimCSE post-processed is not stated"
SIMCSE_TABLE5 = PublishedTable(
    SIMCSE, "Table 5 (BERT-base rows)", "Spearman × 100 of cosine, no regressor, no STS training data; BERT-flow and "
    "whitening in their 'NLI' setting only", "test sets", ALL, _STS, _T5_ROWS,
    model={"BERT-base (first-last avg.)": _BERT,
           "BERT-base-flow": f"{_BERT} + BERT-flow fitted on NLI sentences (retrained by SimCSE with BERT-flow's code)",
           "BERT-base-whitening": f"{_BERT} + whitening fitted on NLI sentences (SimCSE's implementation)",
           "IS-BERT-base": "IS-BERT-base (Zhang et al., 2020), number quoted from that paper",
           "CT-BERT-base": "CT-BERT-base (Carlsson et al., 2021), checkpoint re-evaluated by SimCSE",
           "Unsup. SimCSE-BERT-base": _UNSUP, "SBERT-base": "SBERT-NLI-base, number quoted from SBERT Table 1",
           "SBERT-base-flow": inferred("SBERT-NLI-base + BERT-flow fitted on NLI sentences", _SBERT_WEIGHTS),
           "SBERT-base-whitening": inferred("SBERT-NLI-base + whitening fitted on NLI sentences", _SBERT_WEIGHTS),
           "CT-SBERT-base": "CT-SBERT-base (Carlsson et al., 2021), checkpoint re-evaluated by SimCSE",
           "Sup. SimCSE-BERT-base": _SUP},
    pooling={"BERT-base (first-last avg.)": "first_last_avg", "BERT-base-flow": _FLOW_POOLING,
             "BERT-base-whitening": "first_last_avg", "IS-BERT-base": "its own", "CT-BERT-base": "not stated",
             "Unsup. SimCSE-BERT-base": _UNSUP_POOLING, "SBERT-base": "mean (last layer)",
             "SBERT-base-flow": "not stated", "SBERT-base-whitening": "not stated", "CT-SBERT-base": "not stated",
             "Sup. SimCSE-BERT-base": _SUP_POOLING},
    training="SimCSE rows: the recipes in published.SIMCSE_UNSUP_RECIPE / SIMCSE_SUP_RECIPE (Appendix A); best STS-B "
    "dev checkpoint kept; seeds not stated",
    notes=("the table also has GloVe, RoBERTa and other rows: only the BERT-base rows are entered here",
           "BERT-base-whitening's STS14 / STS16 / STS-B (60.90 / 71.31 / 68.24) differ by 0.01 from Table B.2's "
           "'NLI, all' re-run (60.89 / 71.30 / 68.23)"),
)

_B2_ROWS = {
    "SBERT (all)": (70.97, 76.53, 73.19, 79.09, 74.30, 76.98, 72.91, 74.85),
    "SBERT (wmean)": (66.35, 73.76, 73.88, 77.33, 73.62, 76.98, 72.91, 73.55),
    "SBERT (published in SBERT)": (70.97, 76.53, 73.19, 79.09, 74.30, 77.03, 72.91, 74.89),
    "BERT-whitening (NLI, all)": (57.83, 66.90, 60.89, 75.08, 71.30, 68.23, 63.73, 66.28),
    "BERT-whitening (NLI, wmean)": (61.43, 65.90, 65.96, 74.80, 73.10, 68.23, 63.73, 67.59),
    "BERT-whitening (NLI) (published in Su et al.)": (61.69, 65.70, 66.02, 75.11, 73.11, 68.19, 63.60, 67.63),
    "BERT-whitening (target, all)": (42.88, 77.77, 66.27, 63.60, 67.58, 71.34, 60.40, 64.26),
    "BERT-whitening (target, wmean)": (63.38, 73.01, 69.13, 74.48, 72.56, 71.34, 60.40, 69.19),
    "BERT-whitening (target) (published in Su et al.)": (63.62, 73.02, 69.23, 74.52, 72.15, 71.34, 60.60, 69.21),
}
_AS_B2_CONCLUDES = "the original paper does not say; Table B.2's comparison concludes it"
SIMCSE_TABLE_B2 = PublishedTable(
    SIMCSE, "Table B.2", "Spearman × 100 of cosine: SimCSE's re-runs of SBERT and BERT-whitening under each "
    "aggregation beside the numbers the original papers print", "test sets", "per row", _STS, _B2_ROWS,
    model={row: (inferred("SBERT-NLI-base", "SimCSE re-ran it; which weights is not stated") if row.startswith("SBERT")
                 else inferred(_BERT, "B.2 says 'BERT'; its 'NLI, all' row equals Table 5's BERT-base-whitening "
                               "within 0.01") + (" + whitening fitted on NLI sentences" if "NLI" in row else
                                                 " + whitening fitted on the target set's sentences"))
           for row in _B2_ROWS} | {"SBERT (published in SBERT)": "SBERT-NLI-base, SBERT Table 1 as printed"},
    pooling={row: "mean (last layer)" if row.startswith("SBERT") else "first_last_avg" for row in _B2_ROWS},
    row_aggregation={row: (inferred(WMEAN, _AS_B2_CONCLUDES) if "Su et al." in row else inferred(ALL, _AS_B2_CONCLUDES)
                           if "published" in row else WMEAN if "wmean" in row else ALL) for row in _B2_ROWS},
    notes=("STS-B and SICK-R are single sets: 'all' and 'wmean' agree there",
           "Appendix B: SBERT takes 'all', BERT-flow and BERT-whitening take 'wmean' although BERT-flow says it "
           "follows SBERT's setting"),
)
_B3_ROWS = {
    "BERT-base (first-last avg.)": (57.86, 61.97, 62.49, 70.96, 69.76, 59.04, 63.75, 63.69),
    "BERT-base + flow (NLI)": (59.54, 64.69, 64.66, 72.92, 71.84, 58.56, 65.44, 65.38),
    "BERT-base + flow (target)": (63.48, 72.14, 68.42, 73.77, 75.37, 70.72, 63.11, 69.57),
    "BERT-base + whitening (NLI)": (61.69, 65.70, 66.02, 75.11, 73.11, 68.19, 63.60, 67.63),
    "BERT-base + whitening (target)": (63.62, 73.02, 69.23, 74.52, 72.15, 71.34, 60.60, 69.21),
    "Unsup. SimCSE-BERT-base": (70.14, 79.56, 75.91, 81.46, 79.07, 76.85, 72.23, 76.46),
    "SBERT-base (first-last avg.)": (68.70, 74.37, 74.73, 79.65, 75.21, 77.63, 74.84, 75.02),
    "SBERT-base + flow (NLI)": (67.75, 76.73, 75.53, 80.63, 77.58, 79.10, 78.03, 76.48),
    "SBERT-base + flow (target)": (68.95, 78.48, 77.62, 81.95, 78.94, 81.03, 74.97, 77.42),
    "SBERT-base + whitening (NLI)": (69.11, 75.79, 75.76, 82.31, 79.61, 78.66, 76.33, 76.80),
    "SBERT-base + whitening (target)": (69.01, 78.10, 77.04, 80.83, 77.93, 80.50, 72.54, 76.56),
    "Sup. SimCSE-BERT-base": (70.90, 81.49, 80.19, 83.79, 81.89, 84.25, 80.39, 80.41),
}
_QUOTED = "numbers quoted from Li et al. (2020) / Su et al. (2021)"
SIMCSE_TABLE_B3 = PublishedTable(
    SIMCSE, "Table B.3", "Spearman × 100 of cosine under 'wmean', for direct comparison with BERT-flow and whitening",
    "test sets", WMEAN, _STS, _B3_ROWS,
    model={row: (_UNSUP if row.startswith("Unsup") else _SUP if row.startswith("Sup") else
                 ("SBERT-NLI-base" if row.startswith("SBERT") else _BERT) + f" ({_QUOTED})") for row in _B3_ROWS},
    pooling={row: (_UNSUP_POOLING if row.startswith("Unsup") else _SUP_POOLING if row.startswith("Sup")
                   else "first_last_avg") for row in _B3_ROWS},
    notes=("the BERT-base rows equal BERT-flow Table 2's and Su et al.'s; the SBERT-base flow rows equal BERT-flow "
           "Table 3's BERT-base-NLI-flow rows", "'first-last avg.' is what BERT-flow's tables call '-last2avg'"),
)
_C1_ROWS = {
    "BERT-flow (NLI)": (58.40, 67.10, 60.85, 75.16, 71.22, 68.66, 64.47, 66.55),
    "BERT-flow (target)": (53.15, 78.38, 66.02, 62.09, 70.84, 71.70, 61.97, 66.31),
    "BERT-whitening (NLI)": (57.83, 66.90, 60.90, 75.08, 71.31, 68.24, 63.73, 66.28),
    "BERT-whitening (target)": (42.88, 77.77, 66.28, 63.60, 67.58, 71.34, 60.40, 64.26),
    "SBERT-flow (NLI)": (69.78, 77.27, 74.35, 82.01, 77.46, 79.12, 76.21, 76.60),
    "SBERT-flow (target)": (66.18, 82.69, 76.22, 73.72, 75.71, 79.99, 73.82, 75.48),
    "SBERT-whitening (NLI)": (69.65, 77.57, 74.66, 82.27, 78.39, 79.52, 76.91, 77.00),
    "SBERT-whitening (target)": (52.91, 81.91, 75.44, 72.24, 72.93, 80.50, 72.54, 72.64),
}


def _c1_model(row: str) -> str:
    start = (inferred(_BERT, "C.1 says 'BERT'; its NLI rows equal Table 5's BERT-base rows") if row.startswith("BERT")
             else inferred("SBERT-NLI-base", "C.1 says 'SBERT'; its NLI rows equal Table 5's SBERT-base rows; "
                           + _SBERT_WEIGHTS))
    method = "BERT-flow" if "flow" in row else "whitening"
    return f"{start} + {method} fitted on " + ("NLI sentences" if "(NLI)" in row else "the target set's sentences")


SIMCSE_TABLE_C1 = PublishedTable(
    SIMCSE, "Table C.1", "Spearman × 100 of cosine; BERT-flow and BERT-whitening fitted on NLI or on the target set, "
    "re-evaluated by SimCSE", "test sets", ALL, _STS, _C1_ROWS, model={row: _c1_model(row) for row in _C1_ROWS},
    pooling={row: ("first_last_avg" if row.startswith("BERT-whitening") else _FLOW_POOLING if row.startswith("BERT-")
                   else "not stated") for row in _C1_ROWS},
    notes=("Appendix C: under SimCSE's 'all', 'target' is generally worse than 'NLI' (STS12: flow 53.15 vs 58.40, "
           "whitening 42.88 vs 57.83), so Table 5 reports the NLI rows; under 'wmean' (BERT-flow Table 2) flow (target) "
           "wins on six of seven sets",
           "BERT-whitening (NLI) STS14 / STS16 / STS-B print 60.90 / 71.31 / 68.24 here, 60.89 / 71.30 / 68.23 in Table "
           "B.2's 'NLI, all'; BERT-whitening (target) STS14 66.28 here, 66.27 there"),
)
#: The two STS-B cells the workbook quoted before C.1 was entered whole (kept for existing callers).
SIMCSE_TABLE_C1_STSB = {row: SIMCSE_TABLE_C1.value(row, "stsb") for row in ("BERT-flow (target)", "BERT-whitening (target)")}
SIMCSE_TABLE_C1_SOURCE = SIMCSE_TABLE_C1.source()

_POOLERS = {"[CLS] w/ MLP": (81.7, 86.2), "[CLS] w/ MLP (train)": (82.5, 85.8), "[CLS] w/o MLP": (80.9, 86.2),
            "First-last avg.": (81.2, 86.1)}
SIMCSE_TABLE6 = PublishedTable(
    SIMCSE, "Table 6", "Spearman × 100 of cosine per pooler; 'w/ MLP (train)': the MLP on [CLS] is used in training and "
    "removed at test", _DEV, "n/a (one set)", ("unsup", "sup"), _POOLERS,
    model=same(_POOLERS, f"{_BERT} + unsupervised / supervised SimCSE (per column)"),
    pooling={row: row for row in _POOLERS},
    notes=("§6.3: the defaults are [CLS] w/ MLP (train) for unsupervised and [CLS] w/ MLP for supervised SimCSE",),
)
SIMCSE_TABLE_D1 = PublishedTable(
    SIMCSE, "Table D.1", "Spearman × 100 per temperature τ of the contrastive loss; 'dot product': no cosine, no τ",
    _DEV, "n/a (one set)", ("dot product", "τ=0.001", "τ=0.01", "τ=0.05", "τ=0.1", "τ=1"),
    {"SimCSE-BERT-base": (85.9, 84.9, 85.4, 86.2, 82.0, 64.0)},
    model={"SimCSE-BERT-base": inferred(_SUP, "Appendix D does not say which SimCSE; 86.2 at τ = 0.05 is supervised "
                                        "SimCSE's STS-B dev score in Tables 4, 6 and 7")},
    pooling={"SimCSE-BERT-base": _SUP_POOLING},
)
_E1_ROWS = {
    "Avg. BERT embeddings (quoted from SBERT)": (78.66, 86.25, 94.37, 88.66, 84.40, 92.80, 69.54, 84.94),
    "BERT-[CLS] embedding (quoted from SBERT)": (78.68, 84.85, 94.21, 88.23, 84.13, 91.40, 71.13, 84.66),
    "IS-BERT-base": (81.09, 87.18, 94.96, 88.75, 85.96, 88.64, 74.24, 85.83),
    "Unsup. SimCSE-BERT-base": (81.18, 86.46, 94.45, 88.88, 85.50, 89.80, 74.43, 85.81),
    "Unsup. SimCSE-BERT-base w/ MLM": (82.92, 87.23, 95.71, 88.73, 86.81, 87.01, 78.07, 86.64),
    "SBERT-base (quoted from SBERT)": (83.64, 89.43, 94.39, 89.86, 88.96, 89.60, 76.00, 87.41),
    "Sup. SimCSE-BERT-base": (82.69, 89.25, 94.81, 89.59, 87.31, 88.40, 73.51, 86.51),
    "Sup. SimCSE-BERT-base w/ MLM": (82.68, 88.88, 94.52, 89.82, 88.41, 87.60, 76.12, 86.86),
}
SIMCSE_TABLE_E1 = PublishedTable(
    SIMCSE, "Table E.1 (BERT-base rows)", "SentEval accuracy × 100 of a logistic-regression probe on frozen embeddings, "
    "SentEval's default configuration; w/ MLM: an auxiliary MLM loss, λ = 0.1",
    "SentEval transfer tasks (not run in this workbook)", "n/a (accuracy per task)",
    ("MR", "CR", "SUBJ", "MPQA", "SST", "TREC", "MRPC", "avg"), _E1_ROWS,
    model={row: (_UNSUP if row.startswith("Unsup") else _SUP if row.startswith("Sup") else
                 "IS-BERT-base (Zhang et al., 2020)" if row.startswith("IS") else
                 "SBERT-NLI-base" if row.startswith("SBERT") else inferred(_BERT, "SBERT Table 5 does not say which BERT"))
           + (" + auxiliary MLM" if "MLM" in row else "") for row in _E1_ROWS},
    pooling={row: (_UNSUP_POOLING if row.startswith("Unsup") else _SUP_POOLING if row.startswith("Sup") else
                   "cls (last layer)" if "CLS" in row else "its own" if row.startswith("IS") else "mean (last layer)")
             for row in _E1_ROWS},
    notes=("no BERT-flow or whitening rows: see SIMCSE_APPENDIX_E_POSTPROCESSING",
           "the Avg. BERT embeddings MRPC cell reads 69.54 here; SBERT Table 5, which it quotes, prints 69.45"),
)
#: What Appendix E says of BERT-flow and whitening on transfer tasks: a claim without printed numbers.
SIMCSE_APPENDIX_E_POSTPROCESSING = (
    f"{SIMCSE}, Appendix E: SimCSE also ran BERT-flow and whitening on the transfer tasks and reports that both hurt "
    "performance compared to their base models ('good uniformity of representations does not lead to better "
    "embeddings for transfer learning'); the paper prints no numbers for them")
#: What SimCSE says of post-processing on the alignment–uniformity plane: claims whose points are printed only in a figure.
SIMCSE_POSTPROCESSING_GEOMETRY = (
    f"{SIMCSE}, §7 (Figure 3, ℓ_align against ℓ_uniform): post-processing methods such as BERT-flow and BERT-whitening "
    "'greatly improve uniformity but also suffer a degeneration in alignment'; Appendix F: they 'flatten the curve even "
    "more' (the singular spectrum) than SimCSE does. Figure 3's points are given only as a figure, so no numbers are "
    "quoted from it")
