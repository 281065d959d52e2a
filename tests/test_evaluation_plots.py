"""STS figures and the worst-ranked table, checked on hand-made data whose answers are known."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sbert_workbook.data import StsData
from sbert_workbook.evaluation.plots import pair_cosine_figure, pooling_figure, predicted_vs_gold_figure, worst_ranked_pairs


def _data() -> StsData:
    return StsData("toy", "test", ["a b", "c d", "e f", "g h", "i j"], ["a c", "c x", "e f g", "y", "i j"],
                   np.array([0.0, 1.0, 2.0, 3.0, 4.0]), ["one", "one", "two", "two", "two"])


def test_scatter_has_one_trace_per_subset_with_gold_on_x_and_prediction_on_y():
    data, predicted = _data(), [0.1, 0.2, 0.3, 0.4, 0.5]
    figure = predicted_vs_gold_figure(data, predicted, caption="model X, mean pooling")
    assert [trace.name for trace in figure.data] == ["one", "two"]
    assert list(figure.data[1].x) == [2.0, 3.0, 4.0] and list(figure.data[1].y) == [0.3, 0.4, 0.5]
    assert "1: e f<br>2: e f g" in figure.data[1].hovertext[0]
    assert "Spearman x 100 = 100.00" in figure.layout.title.text  # a monotone prediction ranks perfectly
    assert "model X, mean pooling" in figure.layout.title.text


def test_scatter_title_reports_a_perfectly_reversed_ranking():
    figure = predicted_vs_gold_figure(_data(), [5, 4, 3, 2, 1], color_by_subset=False)
    assert len(figure.data) == 1 and "= -100.00" in figure.layout.title.text


def test_prediction_of_the_wrong_length_is_refused_with_the_expected_length():
    with pytest.raises(ValueError, match=r"one predicted similarity per pair \(5\)"):
        predicted_vs_gold_figure(_data(), [0.1, 0.2])


def test_worst_ranked_pair_is_the_one_ranked_last_but_gold_first():
    # gold ranks 0, .25, .5, .75, 1; predicted ranks .25, .5, .75, 1, 0 -> last pair's gap is -1, the others +.25
    table = worst_ranked_pairs(_data(), [0.1, 0.2, 0.3, 0.4, 0.05], k=3)
    assert table.iloc[0]["sentence1"] == "i j"
    assert table.iloc[0]["rank_gap"] == pytest.approx(-1.0)
    assert table["rank_gap"].iloc[1:].tolist() == pytest.approx([0.25, 0.25])
    assert len(table) == 3


def test_pooling_bars_draw_one_trace_per_row_and_hatch_quoted_rows():
    table = pd.DataFrame({"source": ["recomputed here", "published, SBERT Table 1"], "stsb": [70.0, 46.35],
                          "avg": [65.0, 54.81]}, index=["mean (model)", "Avg. BERT embeddings"])
    figure = pooling_figure(table)
    assert [t.name for t in figure.data] == ["mean (model)", "Avg. BERT embeddings"]
    assert list(figure.data[1].x) == ["stsb", "avg"] and list(figure.data[1].y) == [46.35, 54.81]
    assert figure.data[0].marker.pattern.shape == "" and figure.data[1].marker.pattern.shape == "/"


def test_pair_bars_show_cosines_and_the_rescaled_gold_score():
    figure = pair_cosine_figure({"cls": 0.9, "mean": 0.6}, gold=2.5, score_range=(0.0, 5.0))
    assert list(figure.data[0].x) == ["cls", "mean"] and list(figure.data[0].y) == [0.9, 0.6]
    assert figure.layout.shapes[0].y0 == pytest.approx(0.5)
    sick = pair_cosine_figure({"mean": 0.6}, gold=3.0, score_range=(1.0, 5.0))
    assert sick.layout.shapes[0].y0 == pytest.approx(0.5)
