"""Ties against the papers' seed spreads (03): the spreads as printed, and verdicts worked out by hand."""
from __future__ import annotations

import pytest

from sbert_workbook.evaluation import ties


def test_seed_spreads_are_the_largest_plus_minus_each_paper_prints():
    spreads = ties.seed_spreads()
    assert spreads["spread"].to_dict() == {"SBERT Table 2 (10 seeds, STS-B test)": 0.81,
                                           "BERT-flow Table 8, Appendix C (5 seeds, STS-B)": 1.76}
    assert spreads.loc["SBERT Table 2 (10 seeds, STS-B test)", "row"] == "BERT-STSb-large"
    assert ties.largest_seed_spread() == 1.76


def test_a_difference_under_the_spread_is_a_tie_in_either_direction():
    assert ties.is_tie(0.5, 1.0) and ties.is_tie(-0.99, 1.0)
    assert not ties.is_tie(1.0, 1.0) and not ties.is_tie(-3.2, 1.0)
    assert ties.verdict(-0.42, 1.76) == "tie (|-0.42| < 1.76)"
    assert ties.verdict(3.97, 1.76) == "apart (|+3.97| ≥ 1.76)"
    with pytest.raises(ValueError, match="never negative"):
        ties.is_tie(0.1, -1.0)


def test_neighbour_verdicts_rank_best_first_and_compare_each_row_with_the_next():
    table = ties.neighbour_verdicts({"cls": 30.0, "mean": 55.0, "glove": 56.0, "static": 40.0}, spread=1.76)
    assert list(table.index) == ["glove", "mean", "static", "cls"]
    assert table["next below"].tolist() == ["mean", "static", "cls", ""]
    assert table["difference"].tolist()[:3] == pytest.approx([1.0, 15.0, 10.0])
    assert table["verdict"].tolist() == ["tie", "apart", "apart", ""]
