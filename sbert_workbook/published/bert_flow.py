"""BERT-flow (Li et al., 2020): Tables 1, 2, 3, 5, 6, 8 and Figure 2 (``02``, ``05``).

Typed from arXiv 2011.05864 and pinned by ``tests/test_published.py``. BERT-flow says it evaluates as
SBERT does; the ``wmean`` aggregation of its seven-set tables is SimCSE's inference (Appendix B), and
the paper names BERT's size but never a checkpoint's casing: both are marked inferred.
"""
from __future__ import annotations

from sbert_workbook.published.table import ALL, BERT_FLOW, WMEAN, PublishedRecipe, PublishedTable, inferred, same

_BUCKETS = ("[0, 100)", "[100, 500)", "[500, 5K)", "[5K, ...)")
#: BERT-flow Table 1: BERT's input word embeddings by frequency rank ("counted based on Wikipedia dump").
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
BERT_FLOW_TABLE1_SOURCE = (f"{BERT_FLOW}, Table 1: " + inferred("bert-base-uncased", "the caption says 'the word "
                           "embeddings of BERT'") + " word embeddings, buckets of word-frequency rank counted on a "
                           "Wikipedia dump")


def bert(size: str) -> str:
    """BERT-flow's BERT-``size``: the paper gives the size, not the checkpoint's casing."""
    return inferred(f"bert-{size}-uncased", f"the paper says BERT-{size}, not which checkpoint (casing)")


#: BERT-flow's aggregation: the paper says it follows SBERT; SimCSE Appendix B infers 'wmean' from reproductions.
FLOW_AGGREGATION = inferred(WMEAN, "BERT-flow §4.1 says it evaluates as SBERT does; SimCSE Appendix B (Tables "
                            "B.1-B.3) finds its numbers reproduce under 'wmean'")
FLOWS = ("flow (target): fitted on the target set's train + dev + test sentences, 1 epoch, lr 1e-3; flow (NLI): on "
         "SNLI + MNLI sentences without labels, 0.15 epoch, lr 2e-5; Adam; 2 levels × depth 3, additive coupling, "
         "width 32 (§4.1, Appendix B, Table 7); max sequence length 64")
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
_DOWN = ("the paper marks ↓ (below 'its BERT baseline': " + inferred("the -last2avg row", "each ↓ cell beats the "
         "last-layer row and trails the -last2avg one") + "): ")


def _flow_model(row: str, nli_trained: bool = False) -> str:
    return (bert("large" if "large" in row else "base") + (" + SBERT on NLI" if nli_trained else "")
            + (" + flow fitted on SNLI+MNLI sentences" if "(NLI)" in row else
               " + flow fitted on the target set's sentences" if "(target)" in row else ""))


BERT_FLOW_TABLE2 = PublishedTable(
    BERT_FLOW, "Table 2", "Spearman × 100 of cosine, no NLI supervision; flows fitted without labels",
    "test sets", FLOW_AGGREGATION, _FLOW_COLUMNS, _FT2_ROWS,
    model={row: _flow_model(row) for row in _FT2_ROWS},
    pooling={row: ("mean (last layer)" if row in ("BERT-base", "BERT-large") else LAST2AVG) for row in _FT2_ROWS},
    training=FLOWS,
    notes=(_DOWN + "BERT-base-flow (NLI) on STS-B (58.56 < 59.04), BERT-base-flow (target) on SICK-R (63.11 < 63.75)",
           "§4.1: flow (target) beats flow (NLI) on every set but SICK-R (BERT-base: 65.44 NLI vs 63.11 target)",
           "the table's 'Published in Reimers and Gurevych (2019)' rows are not entered here; they quote BERT "
           "CLS-vector STS16 as 38.03 where SBERT Table 1 prints 38.08"),
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
_SBERT_ROW = "SBERT-base-NLI (published in SBERT)"
BERT_FLOW_TABLE3 = PublishedTable(
    BERT_FLOW, "Table 3", "Spearman × 100 of cosine WITH NLI supervision: BERT first fine-tuned on SNLI+MNLI in the "
    "siamese way (SBERT), then the flow fitted without labels", "test sets", FLOW_AGGREGATION, _FLOW_COLUMNS, _FT3_ROWS,
    model={row: _flow_model(row, nli_trained=True) for row in _FT3_ROWS},
    pooling={row: ("mean (last layer)" if row.endswith("NLI") or "published" in row else LAST2AVG) for row in _FT3_ROWS},
    row_aggregation={_SBERT_ROW: inferred(ALL, "SBERT's own number quoted inside a 'wmean' table; SimCSE Table B.2 "
                                          "re-runs SBERT: STS12 70.97 under 'all' (as printed), 66.35 under 'wmean'")},
    training="siamese NLI fine-tuning as SBERT: 1 epoch, lr 2e-5, batch 16 (Appendix B); " + FLOWS,
    notes=(_DOWN + "BERT-base-NLI-flow (NLI) on STS12 (67.75 < 68.37), BERT-large-NLI-flow (target) on SICK-R "
           "(74.52 < 74.93)",),
)
_FT5_ROWS = {
    "BERT-base": (47.29,), "+ SN": (55.46,), "+ NATSV (k=1)": (51.79,), "+ NATSV (k=10)": (60.40,),
    "+ SN + NATSV (k=1)": (56.02,), "+ SN + NATSV (k=6)": (63.51,), "BERT-base-flow (target)": (65.62,),
}
BERT_FLOW_TABLE5 = PublishedTable(
    BERT_FLOW, "Table 5", "Spearman × 100 of cosine; k chosen among 1-20 on the validation set", "STS-B test",
    "n/a (one set)", ("stsb",), _FT5_ROWS, model=same(_FT5_ROWS, bert("base")),
    pooling=same(_FT5_ROWS, inferred("mean (last layer)", "the table does not say; its BERT-base row prints 47.29, "
                                     "Table 2's last-layer 'BERT-base' value")),
)
BERT_FLOW_TABLE6 = PublishedTable(
    BERT_FLOW, "Table 6", "Spearman × 100 between similarities and edit distance / gold similarity",
    "STS-B dev (the caption: 'the validation set of STS-B')", "n/a (one set)", ("edit distance", "gold similarity"),
    {"Gold similarity": (-24.61, 100.00), "BERT-induced similarity": (-50.49, 59.30),
     "Flow-induced similarity": (-28.01, 74.09)},
    model={"Gold similarity": "human labels",
           "BERT-induced similarity": inferred("BERT (not named)", "§4.4 and Table 6 name no model; BERT-base is the "
                                               "paper's usual one"),
           "Flow-induced similarity": inferred("BERT (not named) + flow (not named)", "§4.4 names neither the model "
                                               "nor whether the flow was fitted on the target set or on NLI")},
    pooling={"Gold similarity": "n/a", "BERT-induced similarity": "not stated in the paper",
             "Flow-induced similarity": "not stated in the paper"},
    notes=("the paper's row labels read 'BERT-induce similarity' and 'Flow-induce similarity'",),
)
#: BERT-flow Figure 2: edit distance against gold, BERT-induced and flow-induced similarity of STS-B dev pairs; the
#: pairs with edit distance at most this are highlighted (the paper's lexically similar pairs).
BERT_FLOW_FIGURE2_CLOSE_EDIT_DISTANCE = 4
BERT_FLOW_FIGURE2_SOURCE = (f"{BERT_FLOW}, Figure 2: STS-B dev pairs, similarity (gold, BERT-induced, flow-induced) against "
                            "edit distance; pairs with edit distance <= 4 highlighted")
_FT8_ROWS = {"BERT-NLI-large": (77.26, 78.19), "BERT-NLI-large-last2avg": (78.07, 78.68),
             "BERT-NLI-large-last2avg + flow-target": (81.10, 81.35)}
BERT_FLOW_TABLE8 = PublishedTable(
    BERT_FLOW, "Table 8 (Appendix C)", "Spearman × 100 of cosine: mean ± standard deviation and median over 5 runs "
    "with different random seeds, NLI-supervised setting", inferred("STS-B test", "Appendix C says 'on STS-B'; the "
                                                                     "means sit beside Table 3's test values"),
    "n/a (one set)", ("stsb", "median"), _FT8_ROWS,
    model={row: bert("large") + " + SBERT on NLI" + (" + flow fitted on the target set's sentences" if "flow" in row
                                                     else "") for row in _FT8_ROWS},
    pooling={"BERT-NLI-large": "mean (last layer)", "BERT-NLI-large-last2avg": LAST2AVG,
             "BERT-NLI-large-last2avg + flow-target": LAST2AVG},
    spread={"BERT-NLI-large": 1.76, "BERT-NLI-large-last2avg": 1.50, "BERT-NLI-large-last2avg + flow-target": 0.55},
    training="5 runs with different random seeds in the NLI-supervised setting (Appendix C)",
    notes=("only BERT-large rows: the appendix reports no BERT-base spread",
           "Appendix C: 'the variance of NLI finetuning is not negligible', yet the flow 'consistently leads to "
           "improvement'"),
)

#: The flow as the paper describes it and as it ran (``05`` §6.4). The paper's Table 7 lists the architecture;
#: Appendix B the NLI flows' shorter fit; the released code (bohanli/BERT-flow) defaults to a larger flow.
BERT_FLOW_PAPER_FLOW = PublishedRecipe(BERT_FLOW, "the flow of the paper's experiments", settings={
    "levels": 2, "depth": 3, "coupling width": 32, "coupling": "additive", "coupling network": "3-layer CNN with a "
    "residual connection", "permutation": "random (Glow simplified: no invertible 1×1 convolution)",
    "optimizer": "Adam", "target flow epochs": 1, "target flow learning rate": 1e-3,
    "target flow sentences": "the target set's train + dev + test sentences, labels unused",
    "NLI flow epochs": 0.15, "NLI flow learning rate": 2e-5, "NLI flow sentences": "SNLI + MNLI sentences"}, where={
    "levels": "Table 7", "depth": "Table 7", "coupling width": "Table 7", "coupling": "Table 7; §3.2",
    "coupling network": "Table 7", "permutation": "§3.2 (BERT-flow's simplification of Glow)", "optimizer": "§4.1",
    "target flow epochs": "§4.1", "target flow learning rate": "§4.1", "target flow sentences": "§4.1",
    "NLI flow epochs": "Appendix B", "NLI flow learning rate": "Appendix B", "NLI flow sentences": "§4.1"})
BERT_FLOW_CODE_FLOW = PublishedRecipe(BERT_FLOW, "the released code's defaults (github.com/bohanli/BERT-flow)", settings={
    "levels": 3, "depth": 3, "coupling width": 32, "coupling": "additive", "permutation": "on (random)",
    "flow learning rate": 1e-3}, where={
    "levels": "run_siamese.py: flow_model_config='config_l3_d3_w32'; flow/config/config_l3_d3_w32.json n_levels 3",
    "depth": "flow/config/config_l3_d3_w32.json: depth 3", "coupling width": "config_l3_d3_w32.json: coupling_width 32",
    "coupling": "config_l3_d3_w32.json: coupling 'additive'", "permutation": "config_l3_d3_w32.json: permutation true",
    "flow learning rate": "run_siamese.py: flow_learning_rate default 1e-3; the README's commands pass 1e-3"})
