"""The protocol summary (TEACHING.md's "how to read a results table") reads each choice from a table's metadata:
checked on a hand-made table and against what the papers state for the tables the workbook quotes."""
from __future__ import annotations

from sbert_workbook import published
from sbert_workbook.published.protocol import NOT_STATED, protocol_choices
from sbert_workbook.published.table import ALL, WMEAN, PublishedTable, inferred

ROWS = {"raw": (50.0,), "fix (target)": (60.0,), "fix (NLI)": (55.0,), "quoted": (70.0,)}


def made_up_table(**changes) -> PublishedTable:
    fields = dict(
        paper="A paper", table="Table 9", metric="Spearman × 100; k chosen among 1-20 on the validation set",
        split="test sets", aggregation=inferred(WMEAN, "a guess"), columns=("sts12",), rows=ROWS,
        model={"raw": "bert", "fix (target)": "bert + fix fitted on the target set's sentences",
               "fix (NLI)": "bert + fix fitted on NLI sentences", "quoted": "another paper's model"},
        pooling=dict.fromkeys(ROWS, "mean"), spread={"raw": 0.3, "fix (NLI)": 0.9}, row_aggregation={"quoted": ALL},
        training="each row trained with 3 random seeds: 2 epochs on NLI, 0.5 epoch on the target set")
    return PublishedTable(**(fields | changes))


def test_every_choice_is_read_from_the_metadata():
    choices = protocol_choices(made_up_table())
    assert choices == {
        "split": "test sets", "aggregation": "wmean (inferred); row 'quoted': all",
        "fitted on the test sentences": "fix (target)",
        "chosen on labelled dev data": "k chosen on the validation set (labelled dev data)",
        "seeds": "3; ± printed, largest 0.9 (fix (NLI))", "epochs": "0.5 / 2"}


def test_what_the_metadata_does_not_state_reads_not_stated():
    choices = protocol_choices(made_up_table(metric="Spearman × 100", training="", spread={}, row_aggregation={},
                                             aggregation="n/a (one set)", model=dict.fromkeys(ROWS, "bert")))
    assert choices["aggregation"] == "n/a (one set)" and choices["fitted on the test sentences"] == "no row"
    assert choices["chosen on labelled dev data"] == choices["seeds"] == choices["epochs"] == NOT_STATED


def test_a_row_that_names_the_target_set_without_saying_it_was_fitted_there_is_not_stated():
    table = made_up_table(model=dict.fromkeys(ROWS, "bert") | {"quoted": "flow, fitted on the target set or on NLI: "
                                                                          "the paper does not say"})
    assert protocol_choices(table)["fitted on the test sentences"] == f"{NOT_STATED} for quoted"


def test_the_quoted_tables_read_as_the_papers_state_them():
    # SBERT Table 2's caption: 10 random seeds, 4 epochs (STS-B); §3.1: NLI for 1 epoch
    sbert2 = protocol_choices(published.SBERT_TABLE2)
    assert sbert2["seeds"].startswith("10;") and sbert2["epochs"] == "1 / 4"
    # BERT-flow Table 3 quotes SBERT's own row, measured under 'all' inside a 'wmean' table (SimCSE Table B.2)
    assert "row 'SBERT-base-NLI (published in SBERT)': all" in protocol_choices(published.BERT_FLOW_TABLE3)["aggregation"]
    # BERT-flow Table 5: k chosen on the validation set; SimCSE C.1: the four (target) rows fitted on the test sets
    assert "validation set" in protocol_choices(published.BERT_FLOW_TABLE5)["chosen on labelled dev data"]
    c1 = protocol_choices(published.SIMCSE_TABLE_C1)
    assert c1["fitted on the test sentences"].split("; ") == [r for r in published.SIMCSE_TABLE_C1.rows if "(target)" in r]
    assert c1["aggregation"] == "all"
