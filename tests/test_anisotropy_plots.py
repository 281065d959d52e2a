"""The anisotropy figures carry the data they are given (checked on the figure, not on pixels)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from sbert_workbook.anisotropy import metrics as an
from sbert_workbook.anisotropy import plots as ap


def test_cosine_histogram_has_one_trace_per_view_named_with_its_mean():
    cosines = {"static": np.array([0.5, 0.7, 0.9]), "mean": np.array([-0.1, 0.1])}
    figure = ap.cosine_histogram_figure(cosines)
    assert isinstance(figure, go.Figure) and len(figure.data) == 2
    assert list(figure.data[0].x) == [0.5, 0.7, 0.9] and "mean 0.70" in figure.data[0].name
    assert "mean 0.00" in figure.data[1].name


def test_variance_spectrum_plots_the_leading_ratios_and_the_isotropic_level():
    ratios = {"a": np.array([0.5, 0.3, 0.1, 0.1]), "b": np.full(4, 0.25)}
    figure = ap.variance_spectrum_figure(ratios, top=3)
    assert list(figure.data[0].y) == [0.5, 0.3, 0.1] and list(figure.data[0].x) == [1, 2, 3]
    assert figure.layout.shapes[0].y0 == pytest.approx(0.25)


def test_cloud_with_numeric_colour_is_one_coloured_trace_plus_the_origin():
    points = np.arange(12, dtype=float).reshape(4, 3)
    figure = ap.embedding_cloud_3d_figure(points, [1.0, 2.0, 3.0, 4.0], "log frequency", hover=list("abcd"))
    assert len(figure.data) == 2 and figure.data[1].name == "origin"
    assert list(figure.data[0].marker.color) == [1.0, 2.0, 3.0, 4.0] and list(figure.data[0].z) == [2, 5, 8, 11]


def test_cloud_with_labels_has_one_trace_per_label_holding_its_points():
    points = np.arange(15, dtype=float).reshape(5, 3)
    figure = ap.embedding_cloud_3d_figure(points, ["stsb", "sick", "stsb", "snli", "sick"], "dataset", show_origin=False)
    assert [t.name for t in figure.data] == ["stsb", "sick", "snli"]
    assert list(figure.data[0].x) == [0, 6] and list(figure.data[1].x) == [3, 12]


def test_cloud_rejects_points_that_are_not_3d():
    with pytest.raises(ValueError, match=r"\(n, 3\)"):
        ap.embedding_cloud_3d_figure(np.zeros((4, 2)), [1, 2, 3, 4], "x")


def test_binned_means_by_hand():
    centres, means = ap.binned_means(np.array([0.0, 0.1, 0.9, 1.0]), np.array([1.0, 3.0, 10.0, 20.0]), bins=2)
    assert centres.tolist() == pytest.approx([0.25, 0.75]) and means.tolist() == pytest.approx([2.0, 15.0])


def test_norm_vs_log_frequency_puts_log10_frequency_on_x():
    figure = ap.norm_vs_log_frequency_figure(np.array([1.0, 2.0]), np.array([0.01, 0.0001]), ["the", "zebra"])
    assert list(figure.data[0].x) == pytest.approx([-2, -4]) and list(figure.data[0].y) == [1.0, 2.0]
    assert list(figure.data[0].text) == ["the", "zebra"] and figure.data[1].name == "mean per bin"


def test_knn_distance_by_rank_uses_a_log_rank_axis():
    figure = ap.knn_distance_by_rank_figure(np.array([0, 9, 99]), np.array([0.5, 0.8, 1.2]), ["a", "b", "c"], k=3)
    assert list(figure.data[0].x) == [1, 10, 100] and figure.layout.xaxis.type == "log"
    assert "3 nearest" in figure.layout.title.text


def test_word_map_groups_tokens_by_bucket():
    figure = ap.word_map_2d_figure(np.array([[0, 0], [1, 1], [2, 2]]), ["[0, 100)", "[5K, …)", "[0, 100)"],
                                   ["the", "zyx", "of"])
    assert [t.name for t in figure.data] == ["[0, 100)", "[5K, …)"] and list(figure.data[0].text) == ["the", "of"]


def test_bucket_bars_show_yours_and_published_for_every_bucket():
    table = an.frequency_bucket_table(np.random.default_rng(0).normal(size=(6000, 4)), np.arange(6000), k_values=(3,),
                                      queries_per_bucket=10)
    beside = an.reference_beside(table)
    figure = ap.bucket_figure(beside)
    assert len(figure.data) == len(beside) == 4
    published = [t for t in figure.data if "published" in t.name]
    assert list(published[0].y) == list(an.BERT_FLOW_REFERENCE["mean L2 norm"])
    assert list(figure.data[0].x) == list(table.columns)


def test_layerwise_figure_has_a_line_per_view():
    table = pd.DataFrame({"mean": [0.9, 0.5, 0.2], "tokens": [0.3, 0.4, 0.6]})
    figure = ap.layerwise_anisotropy_figure(table)
    assert [t.name for t in figure.data] == ["mean", "tokens"] and list(figure.data[1].y) == [0.3, 0.4, 0.6]


def test_alignment_uniformity_figure_needs_both_columns():
    table = pd.DataFrame({"alignment": [0.4, 1.1], "uniformity": [-3.5, -1.0]}, index=["mean", "cls"])
    figure = ap.alignment_uniformity_figure(table)
    assert list(figure.data[0].x) == [-3.5, -1.0] and list(figure.data[0].text) == ["mean", "cls"]
    with pytest.raises(KeyError, match="uniformity"):
        ap.alignment_uniformity_figure(table[["alignment"]])
