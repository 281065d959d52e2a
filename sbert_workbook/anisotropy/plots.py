"""Plotly figures for ``02_anisotropy.ipynb``: the cone, frequency bias, sparsity, layers.

Every function returns a plain ``plotly.graph_objects.Figure`` built from arrays it is
given (no model calls), so tests can check the data in it.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots
from scipy.stats import spearmanr

from sbert_workbook.anisotropy.metrics import BERT_FLOW_SOURCE

PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")


def cosine_histogram_figure(cosines: Mapping[str, np.ndarray], title: str = "Cosine of random pairs") -> go.Figure:
    """Overlaid histograms of random-pair cosines, one per view; a dashed line at 0 (isotropic)."""
    figure = go.Figure()
    for name, values in cosines.items():
        figure.add_trace(go.Histogram(x=np.asarray(values), name=f"{name} (mean {np.mean(values):.2f})",
                                   opacity=0.6, nbinsx=60, histnorm="probability density"))
    figure.add_vline(x=0, line_dash="dash", line_color="gray")
    figure.update_layout(barmode="overlay", title=title, xaxis_title="cos(x_i, x_j)", yaxis_title="density",
                      xaxis_range=[-1, 1])
    return figure


def variance_spectrum_figure(ratios: Mapping[str, np.ndarray], top: int = 30,
                             title: str = "Share of variance per direction") -> go.Figure:
    """σ_k²/Σσ² against k (log y) for each view, with the isotropic level 1/dim dashed."""
    figure = go.Figure()
    for name, values in ratios.items():
        values = np.asarray(values)[:top]
        figure.add_trace(go.Scatter(x=np.arange(1, len(values) + 1), y=values, mode="lines+markers", name=name))
    dims = {len(np.asarray(v)) for v in ratios.values()}
    if len(dims) == 1:
        figure.add_hline(y=1 / dims.pop(), line_dash="dash", line_color="gray", annotation_text="isotropic: 1/dim")
    figure.update_layout(title=title, xaxis_title="direction k", yaxis_title="σ_k² / Σσ²", yaxis_type="log")
    return figure


def embedding_cloud_3d_figure(points: np.ndarray, color: Sequence, color_name: str, hover: Sequence[str] | None = None,
                       title: str = "Sentence embeddings", show_origin: bool = True) -> go.Figure:
    """A 3-D scatter of projected embeddings; numeric colours get a colour bar, labels one trace each."""
    points, color = np.asarray(points), np.asarray(color)
    if points.ndim != 2 or points.shape[1] != 3 or len(color) != len(points):
        raise ValueError(f"Need (n, 3) points and n colours; got {points.shape} and {len(color)} colours.")
    hover = None if hover is None else np.asarray(hover, dtype=object)
    figure = go.Figure()
    if np.issubdtype(color.dtype, np.number):
        figure.add_trace(go.Scatter3d(x=points[:, 0], y=points[:, 1], z=points[:, 2], mode="markers", text=hover,
                                   name=color_name, marker=dict(size=3, color=color, colorscale="Viridis",
                                                                colorbar=dict(title=color_name))))
    else:
        for i, label in enumerate(dict.fromkeys(color.tolist())):
            keep = color == label
            figure.add_trace(go.Scatter3d(x=points[keep, 0], y=points[keep, 1], z=points[keep, 2], mode="markers",
                                       name=str(label), text=None if hover is None else hover[keep],
                                       marker=dict(size=3, color=PALETTE[i % len(PALETTE)])))
    if show_origin:
        figure.add_trace(go.Scatter3d(x=[0], y=[0], z=[0], mode="markers", name="origin",
                                   marker=dict(size=7, color="black", symbol="diamond")))
    figure.update_layout(title=title, legend_title=color_name, height=550, margin=dict(l=0, r=0, t=40, b=0))
    return figure


def norm_vs_log_frequency_figure(norms: np.ndarray, frequencies: np.ndarray, tokens: Sequence[str],
                          title: str = "Word-embedding norm against log frequency") -> go.Figure:
    """One dot per token: x = log10 relative frequency, y = ‖embedding‖, plus binned means."""
    x, y = np.log10(np.asarray(frequencies, float)), np.asarray(norms, float)
    figure = go.Figure(go.Scattergl(x=x, y=y, mode="markers", name="tokens", text=list(tokens),
                                 marker=dict(size=3, opacity=0.35)))
    centres, means = binned_means(x, y)
    figure.add_trace(go.Scatter(x=centres, y=means, mode="lines+markers", name="mean per bin", line=dict(color="black")))
    figure.update_layout(title=title, xaxis_title="log10 frequency", yaxis_title="L2 norm")
    return figure


def knn_distance_by_rank_figure(ranks: np.ndarray, distances: np.ndarray, tokens: Sequence[str], k: int,
                         title: str | None = None) -> go.Figure:
    """Mean distance to the k nearest neighbours against frequency rank (log x), plus binned means."""
    x, y = np.asarray(ranks, float) + 1, np.asarray(distances, float)
    figure = go.Figure(go.Scattergl(x=x, y=y, mode="markers", name="tokens", text=list(tokens),
                                 marker=dict(size=3, opacity=0.35)))
    centres, means = binned_means(np.log10(x), y)
    figure.add_trace(go.Scatter(x=10 ** centres, y=means, mode="lines+markers", name="mean per bin", line=dict(color="black")))
    figure.update_layout(title=title or f"Mean L2 distance to the {k} nearest neighbours by frequency rank",
                      xaxis_title="frequency rank + 1 (log scale)", yaxis_title=f"mean {k}-NN L2 distance", xaxis_type="log")
    return figure


def word_map_2d_figure(points: np.ndarray, labels: Sequence[str], tokens: Sequence[str],
                title: str = "Word embeddings, coloured by frequency bucket") -> go.Figure:
    """A 2-D projection of word embeddings with one trace per frequency bucket."""
    points, labels = np.asarray(points), np.asarray(labels, dtype=object)
    tokens = np.asarray(tokens, dtype=object)
    figure = go.Figure()
    for i, label in enumerate(dict.fromkeys(labels.tolist())):
        keep = labels == label
        figure.add_trace(go.Scattergl(x=points[keep, 0], y=points[keep, 1], mode="markers", name=str(label),
                                   text=tokens[keep], marker=dict(size=4, opacity=0.6, color=PALETTE[i % len(PALETTE)])))
    figure.update_layout(title=title, xaxis_title="direction 1", yaxis_title="direction 2", legend_title="rank bucket")
    return figure


def bucket_figure(beside: pd.DataFrame, title: str = "Yours beside the published bert-base-uncased numbers") -> go.Figure:
    """Grouped bars from :func:`~sbert_workbook.anisotropy.metrics.reference_beside`: one bar group per bucket."""
    figure = go.Figure()
    for i, (row, values) in enumerate(beside.iterrows()):
        published = "published" in row
        figure.add_trace(go.Bar(x=list(beside.columns), y=values.to_numpy(float), name=row,
                             marker=dict(color=PALETTE[i // 2 % len(PALETTE)], opacity=0.45 if published else 1.0,
                                         pattern_shape="/" if published else "")))
    figure.update_layout(barmode="group", title=title, xaxis_title="frequency-rank bucket", yaxis_title="value",
                      annotations=[dict(text=f"published: {BERT_FLOW_SOURCE}", showarrow=False, xref="paper",
                                        yref="paper", x=0, y=-0.22, font=dict(size=10))])
    return figure


def layerwise_anisotropy_figure(table: pd.DataFrame, title: str = "Anisotropy layer by layer") -> go.Figure:
    """Mean random-pair cosine (y) for each layer (x), one line per column of the table."""
    figure = go.Figure()
    for name in table.columns:
        figure.add_trace(go.Scatter(x=list(table.index), y=table[name].to_numpy(float), mode="lines+markers", name=name))
    figure.update_layout(title=title, xaxis_title="layer (0 = embedding layer)", yaxis_title="mean cosine of random pairs",
                      yaxis_range=[0, 1], xaxis=dict(dtick=1))
    return figure


def alignment_uniformity_figure(table: pd.DataFrame, title: str = "Alignment and uniformity (lower is better for both)") -> go.Figure:
    """One labelled point per row of a table with 'uniformity' and 'alignment' columns."""
    missing = {"alignment", "uniformity"} - set(table.columns)
    if missing:
        raise KeyError(f"The table needs columns 'alignment' and 'uniformity'; missing {sorted(missing)}.")
    figure = go.Figure(go.Scatter(x=table["uniformity"], y=table["alignment"], mode="markers+text",
                               text=[str(i) for i in table.index], textposition="top center", marker=dict(size=12)))
    figure.update_layout(title=title, xaxis_title="ℓ_uniform (more negative = more uniform)",
                      yaxis_title="ℓ_align (smaller = positives closer)")
    return figure


def sentence_position_figure(values: np.ndarray, positions: Mapping[str, np.ndarray], value_name: str,
                             hover: Sequence[str] | None = None, title: str = "Where sentences sit") -> go.Figure:
    """One panel per position (02 §5): every sentence's ``values`` (x) against that position (y), the binned means as a
    line, and Spearman's ρ in the panel's title (sentences with a NaN left out)."""
    x = np.asarray(values, dtype=np.float64)
    wrong = {name: len(y) for name, y in positions.items() if len(y) != len(x)}
    if wrong:
        raise ValueError(f"{len(x)} values but positions of other lengths {wrong}: give one of each per sentence.")
    names = list(positions)
    rhos = []
    for name in names:
        known = np.isfinite(x) & np.isfinite(np.asarray(positions[name], dtype=np.float64))
        rhos.append(spearmanr(x[known], np.asarray(positions[name], dtype=np.float64)[known]).statistic)
    figure = make_subplots(rows=1, cols=len(names), subplot_titles=[f"{n} (ρ = {r:+.2f})" for n, r in zip(names, rhos)])
    for column, name in enumerate(names, 1):
        y = np.asarray(positions[name], dtype=np.float64)
        figure.add_trace(go.Scatter(x=x, y=y, mode="markers", text=hover, name=name, marker=dict(size=4, opacity=0.5),
                                    showlegend=False), row=1, col=column)
        centres, means = binned_means(x, y, bins=12)
        figure.add_trace(go.Scatter(x=centres, y=means, mode="lines", name="binned mean", line=dict(color="black"),
                                    showlegend=column == 1), row=1, col=column)
        figure.update_xaxes(title_text=value_name, row=1, col=column)
        figure.update_yaxes(title_text=name, row=1, col=column)
    figure.update_layout(title=title)
    return figure


def binned_means(x: np.ndarray, y: np.ndarray, bins: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """Centres of equal-width bins of x and the mean y in each non-empty bin."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    finite = np.isfinite(x) & np.isfinite(y)
    x, y = x[finite], y[finite]
    edges = np.linspace(x.min(), x.max(), bins + 1)
    which = np.clip(np.digitize(x, edges) - 1, 0, bins - 1)
    filled = [b for b in range(bins) if np.any(which == b)]
    return (edges[filled] + edges[np.array(filled) + 1]) / 2, np.array([y[which == b].mean() for b in filled])
