"""Figures and tables for looking at STS results (``03_pooling_and_sts.ipynb``).

Every builder returns a plain ``plotly.graph_objects.Figure`` (or a DataFrame), so the
notebook cell stays one line and tests can read the figure's data.
"""
from __future__ import annotations

import textwrap
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from scipy.stats import rankdata, spearmanr

from sbert_workbook.data.records import StsData


def _hover(sentence1: str, sentence2: str, width: int = 70) -> str:
    wrap = lambda s: "<br>".join(textwrap.wrap(s, width)) or "(empty)"  # noqa: E731
    return f"1: {wrap(sentence1)}<br>2: {wrap(sentence2)}"


def _check_lengths(data: StsData, predicted) -> np.ndarray:
    predicted = np.asarray(predicted, dtype=float)
    if predicted.shape != (len(data),):
        raise ValueError(f"Expected one predicted similarity per pair ({len(data)}), got shape {predicted.shape}.")
    return predicted


def predicted_vs_gold_figure(data: StsData, predicted: Sequence[float], caption: str = "",
                             color_by_subset: bool = True) -> go.Figure:
    """Scatter of gold score (x) against predicted similarity (y); hovering shows both sentences.

    One trace per subset when ``color_by_subset`` (so STS12's MSRpar and OnWN can be told
    apart); the title gives Spearman x 100 over all pairs.
    """
    predicted = _check_lengths(data, predicted)
    subsets = np.asarray(data.subsets) if color_by_subset else np.full(len(data), data.name)
    figure = go.Figure()
    for subset in dict.fromkeys(subsets):
        chosen = np.flatnonzero(subsets == subset)
        figure.add_trace(go.Scattergl(
            x=data.scores[chosen], y=predicted[chosen], mode="markers", name=str(subset), marker={"size": 5, "opacity": 0.6},
            hovertext=[_hover(data.sentences1[i], data.sentences2[i]) for i in chosen],
            hovertemplate="gold %{x:.2f}, predicted %{y:.3f}<br>%{hovertext}<extra>%{fullData.name}</extra>",
        ))
    rho = 100 * spearmanr(predicted, data.scores).statistic
    title = f"{data.name} ({data.split}, {len(data)} pairs): Spearman x 100 = {rho:.2f}"
    figure.update_layout(title=title + (f"<br><sup>{caption}</sup>" if caption else ""),
                         xaxis_title="gold score", yaxis_title="predicted similarity", height=480)
    return figure


def worst_ranked_pairs(data: StsData, predicted: Sequence[float], k: int = 10) -> pd.DataFrame:
    """The ``k`` pairs whose predicted rank is furthest from their gold rank.

    Ranks are scaled to [0, 1] (0 = least similar); ``rank_gap`` = predicted − gold rank, so a
    positive gap is a pair the model finds too similar, a negative one too dissimilar.
    These are the pairs that cost the most Spearman correlation.
    """
    predicted = _check_lengths(data, predicted)
    if len(data) < 2:
        raise ValueError("Ranking needs at least 2 pairs.")
    scale = lambda values: (rankdata(values) - 1) / (len(values) - 1)  # noqa: E731
    gold_rank, predicted_rank = scale(data.scores), scale(predicted)
    table = pd.DataFrame({
        "sentence1": data.sentences1, "sentence2": data.sentences2, "subset": data.subsets, "gold": data.scores,
        "predicted": predicted, "gold_rank": gold_rank, "predicted_rank": predicted_rank,
        "rank_gap": predicted_rank - gold_rank,
    })
    order = np.argsort(-np.abs(table["rank_gap"].to_numpy()), kind="stable")[:k]
    return table.iloc[order]


def pooling_figure(table: pd.DataFrame, title: str = "", columns: Sequence[str] | None = None) -> go.Figure:
    """Grouped bars: one bar group per data set (column), one bar colour per row of ``table``.

    Works for :func:`~sbert_workbook.evaluation.baselines.baseline_table` and
    :func:`~sbert_workbook.evaluation.baselines.beside_published` tables alike (a ``source`` column is
    ignored; quoted rows are drawn hatched).
    """
    columns = [c for c in (columns or table.columns) if c != "source"]
    figure = go.Figure()
    for row, values in table.iterrows():
        quoted = "source" in table.columns and str(values["source"]).startswith("published")
        figure.add_trace(go.Bar(
            x=list(columns), y=[float(values[c]) for c in columns], name=str(row),
            marker_pattern_shape="/" if quoted else "", hovertemplate="%{x}: %{y:.2f}<extra>%{fullData.name}</extra>",
        ))
    figure.update_layout(barmode="group", title=title, yaxis_title="Spearman x 100", height=460,
                         legend={"orientation": "h", "y": -0.2})
    return figure


def pair_cosine_figure(cosines: dict[str, float], gold: float | None = None, score_range: tuple[float, float] = (0.0, 5.0),
                     title: str = "") -> go.Figure:
    """One bar per (model, pooling) label with the pair's cosine; the gold score, rescaled to [0, 1], as a line."""
    figure = go.Figure(go.Bar(x=list(cosines), y=list(cosines.values()), text=[f"{v:.3f}" for v in cosines.values()],
                              name="cosine", hovertemplate="%{x}: cos = %{y:.3f}<extra></extra>"))
    if gold is not None:
        low, high = score_range
        figure.add_hline(y=(gold - low) / (high - low), line_dash="dash",
                         annotation_text=f"gold {gold:.2f} of {high:g}, rescaled to {(gold - low) / (high - low):.2f}")
    figure.update_layout(title=title, yaxis_title="cosine similarity", yaxis_range=[min(0.0, *cosines.values()) - 0.05, 1.05],
                         height=380)
    return figure


def relatedness_two_ways_figure(table: pd.DataFrame, title: str = "") -> go.Figure:
    """Two bars per view, Spearman × 100 on the same test pairs: by cosine and by a regressor on frozen features.

    ``table`` is :func:`~sbert_workbook.evaluation.probes.relatedness_two_ways_table`'s (``03_pooling_and_sts.ipynb`` §9).
    """
    missing = [c for c in ("cosine_spearman", "regressor_spearman") if c not in table.columns]
    if missing:
        raise ValueError(f"The table lacks the columns {missing}; build it with probes.relatedness_two_ways_table.")
    views = [str(i) for i in table.index]
    figure = go.Figure([
        go.Bar(x=views, y=table["cosine_spearman"], name="cosine (no training)"),
        go.Bar(x=views, y=table["regressor_spearman"], name="regressor on (|u−v|, u∗v), fitted on the training pairs"),
    ])
    figure.update_layout(title=title, barmode="group", xaxis_title="frozen view", yaxis_title="Spearman x 100 (same test pairs)",
                         height=440)
    return figure
