"""Every published figure the workbook shows, pinned to the paper's text (issue 14 and the papers' tables).

The values below were typed again from the papers, independently of ``sbert_workbook/published.py``,
so an edit there that changes a figure fails here.
"""
from __future__ import annotations

import pandas as pd
import pytest

from sbert_workbook import published as pub

SBERT_T1 = {  # SBERT Table 1, columns STS12 … STS16, STSb, SICK-R, Avg.
    "Avg. GloVe embeddings": [55.14, 70.66, 59.73, 68.25, 63.66, 58.02, 53.76, 61.32],
    "Avg. BERT embeddings": [38.78, 57.98, 57.98, 63.15, 61.06, 46.35, 58.40, 54.81],
    "BERT CLS-vector": [20.16, 30.01, 20.09, 36.88, 38.08, 16.50, 42.63, 29.19],
    "InferSent - Glove": [52.86, 66.75, 62.15, 72.77, 66.87, 68.03, 65.65, 65.01],
    "Universal Sentence Encoder": [64.49, 67.80, 64.61, 76.83, 73.18, 74.92, 76.69, 71.22],
    "SBERT-NLI-base": [70.97, 76.53, 73.19, 79.09, 74.30, 77.03, 72.91, 74.89],
    "SBERT-NLI-large": [72.27, 78.46, 74.90, 80.99, 76.25, 79.23, 73.75, 76.55],
    "SRoBERTa-NLI-base": [71.54, 72.49, 70.80, 78.74, 73.69, 77.77, 74.46, 74.21],
    "SRoBERTa-NLI-large": [74.53, 77.00, 73.18, 81.85, 76.82, 79.10, 74.29, 76.68],
}
SBERT_T2 = {"BERT-STSb-base": (84.30, 0.76), "SBERT-STSb-base": (84.67, 0.19), "BERT-NLI-STSb-base": (88.33, 0.19),
            "SBERT-NLI-STSb-base": (85.35, 0.17), "SBERT-NLI-base": (77.03, None), "BERT-STSb-large": (85.64, 0.81),
            "SBERT-NLI-STSb-large": (86.10, 0.13), "BERT-NLI-STSb-large": (88.77, 0.46)}
SBERT_T6 = {"MEAN": (80.78, 87.44), "MAX": (79.07, 69.92), "CLS": (79.80, 86.62), "(u, v)": (66.04, None),
            "(|u-v|)": (69.78, None), "(u*v)": (70.54, None), "(|u-v|, u*v)": (78.37, None),
            "(u, v, u*v)": (77.44, None), "(u, v, |u-v|)": (80.78, None), "(u, v, |u-v|, u*v)": (80.44, None)}
FLOW_T2_STSB = {"BERT-base": 47.29, "BERT-base-last2avg": 59.04, "BERT-base-flow (NLI)": 58.56,
                "BERT-base-flow (target)": 70.72, "BERT-large-flow (target)": 72.26}
FLOW_T3_STSB = {"BERT-base-NLI": 77.08, "BERT-base-NLI-last2avg": 78.03, "BERT-base-NLI-flow (NLI)": 79.10,
                "BERT-base-NLI-flow (target)": 81.03, "SBERT-base-NLI (published in SBERT)": 77.03}
FLOW_T5 = {"BERT-base": 47.29, "+ SN": 55.46, "+ NATSV (k=1)": 51.79, "+ NATSV (k=10)": 60.40,
           "+ SN + NATSV (k=1)": 56.02, "+ SN + NATSV (k=6)": 63.51, "BERT-base-flow (target)": 65.62}
FLOW_T6 = {"Gold similarity": (-24.61, 100.00), "BERT-induced similarity": (-50.49, 59.30),
           "Flow-induced similarity": (-28.01, 74.09)}


@pytest.mark.parametrize("row", SBERT_T1)
def test_sbert_table1(row):
    assert list(pub.SBERT_TABLE1.rows[row]) == SBERT_T1[row]


@pytest.mark.parametrize("row", SBERT_T2)
def test_sbert_table2_with_its_spread(row):
    value, spread = SBERT_T2[row]
    assert pub.SBERT_TABLE2.value(row, "stsb") == value and pub.SBERT_TABLE2.spread.get(row) == spread


def test_sbert_table2_marks_the_cross_encoders():
    assert "cross-encoder" in pub.SBERT_TABLE2.pooling["BERT-NLI-STSb-base"]
    assert "cross-encoder" not in pub.SBERT_TABLE2.pooling["SBERT-NLI-STSb-base"]


@pytest.mark.parametrize("row", SBERT_T6)
def test_sbert_table6_both_columns_and_all_seven_concatenations(row):
    assert pub.SBERT_TABLE6.rows[row] == SBERT_T6[row]
    assert len(pub.SBERT_TABLE6_CONCATENATIONS) == 7 and set(pub.SBERT_TABLE6_CONCATENATIONS.values()) <= set(SBERT_T6)


def test_sbert_table5_averages():
    assert {row: values[-1] for row, values in pub.SBERT_TABLE5.rows.items()} == {
        "Avg. GloVe embeddings": 81.52, "Avg. fast-text embeddings": 82.42, "Avg. BERT embeddings": 84.94,
        "BERT CLS-vector": 84.66, "InferSent - GloVe": 85.59, "Universal Sentence Encoder": 85.10,
        "SBERT-NLI-base": 87.41, "SBERT-NLI-large": 87.69}


def test_sbert_speed_and_cost():
    assert pub.SBERT_TABLE7["SBERT-base"] == (44, 1378) and pub.SBERT_TABLE7["SBERT-base - smart batching"] == (83, 2042)
    assert pub.SBERT_CLUSTERING_COST == {"sentences": 10_000, "BERT (cross-encoder) hours": 65, "SBERT seconds": 5}


def test_bert_flow_table1():
    assert pub.BERT_FLOW_TABLE1["mean L2 norm"] == (0.95, 1.04, 1.22, 1.45)
    assert pub.BERT_FLOW_TABLE1["mean k-NN L2 distance (k=3)"] == (0.77, 0.93, 1.16, 1.30)
    assert pub.BERT_FLOW_TABLE1["mean k-NN dot product (k=7)"] == (0.72, 0.90, 1.17, 1.60)
    assert "Wikipedia dump" in pub.BERT_FLOW_TABLE1_SOURCE


@pytest.mark.parametrize("table, expected", [(pub.BERT_FLOW_TABLE2, FLOW_T2_STSB), (pub.BERT_FLOW_TABLE3, FLOW_T3_STSB),
                                             (pub.BERT_FLOW_TABLE5, FLOW_T5)], ids=["table2", "table3", "table5"])
def test_bert_flow_stsb_rows(table, expected):
    assert {row: table.value(row, "stsb") for row in expected} == expected


def test_bert_flow_tables_label_their_pooling():
    assert pub.BERT_FLOW_TABLE2.pooling["BERT-base"] == "mean (last layer)"
    assert "first_last_avg" in pub.BERT_FLOW_TABLE2.pooling["BERT-base-flow (target)"]
    assert all("47.29" in pooling for pooling in pub.BERT_FLOW_TABLE5.pooling.values())
    assert pub.BERT_FLOW_TABLE3.value("BERT-base-NLI-flow (target)", "sickr") == 74.97


def test_bert_flow_table6_and_others():
    assert {row: pub.BERT_FLOW_TABLE6.rows[row] for row in FLOW_T6} == FLOW_T6
    assert pub.BERT_FLOW_FIGURE2_CLOSE_EDIT_DISTANCE == 4 and "Figure 2" in pub.BERT_FLOW_FIGURE2_SOURCE
    assert pub.SIMCSE_TABLE_C1_STSB == {"BERT-flow (target)": 71.70, "BERT-whitening (target)": 71.34}
    c1 = pub.SIMCSE_TABLE_C1.frame()
    assert c1["stsb"].to_dict() == {"BERT-flow (target)": 71.70, "BERT-whitening (target)": 71.34}
    assert set(c1["pooling"]) == {"first_last_avg"} and "Table C.1" in c1.attrs["source"]
    assert pub.ALL_MINILM_STSB == 82.03 and "MTEB" in pub.ALL_MINILM_SOURCE


def test_frame_carries_source_pooling_and_provenance():
    frame = pub.SBERT_TABLE2.frame(["BERT-NLI-STSb-base", "SBERT-NLI-STSb-base"])
    assert list(frame.columns) == ["pooling", "stsb", "±"] and frame.loc["SBERT-NLI-STSb-base", "±"] == 0.17
    assert "Table 2" in frame.attrs["source"] and "not re-run" in frame.attrs["provenance"]["model"]
    assert isinstance(frame, pd.DataFrame)


def test_unknown_rows_and_columns_say_what_exists():
    with pytest.raises(KeyError, match="rows: MEAN"):
        pub.SBERT_TABLE6.value("SUM", "nli")
    with pytest.raises(KeyError, match="columns: nli, stsb"):
        pub.SBERT_TABLE6.value("MEAN", "sick")
