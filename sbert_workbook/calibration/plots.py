"""Figures for calibration and BERT-flow (``05_bert_flow.ipynb``): each returns a plotly ``go.Figure``."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from sbert_workbook.evaluation.projection import project


def similarity_histogram_figure(similarities: Mapping[str, Sequence[float]], title: str = "Cosine similarity of STS pairs",
                          bins: int = 50) -> go.Figure:
    """Overlaid histograms (share of pairs per bin) of several similarity lists, e.g. before/after calibration."""
    figure = go.Figure()
    for name, values in similarities.items():
        values = np.asarray(values, dtype=float)
        figure.add_trace(go.Histogram(x=values, name=f"{name} (mean {values.mean():.2f})", nbinsx=bins,
                                      histnorm="probability", opacity=0.6))
    figure.update_layout(barmode="overlay", title=title, xaxis_title="cosine similarity", yaxis_title="share of pairs")
    return figure


def projection_figure(views: Mapping[str, object], color: Sequence[float] | None = None, dims: int = 2,
                      origin: bool = True) -> go.Figure:
    """One panel per view (e.g. before/after): PCA to 2-D or 3-D; the origin marked to show how far off-centre the cloud sits.

    Each panel shows the embeddings in their *own* PCA axes but without re-centring the
    points, so a cloud far from 0 (anisotropy) stays visibly far from the origin marker.
    """
    if dims not in (2, 3):
        raise ValueError(f"dims must be 2 or 3, got {dims}.")
    names = list(views)
    specs = [[{"type": "scene" if dims == 3 else "xy"} for _ in names]]
    figure = make_subplots(rows=1, cols=len(names), subplot_titles=names, specs=specs)
    for col, name in enumerate(names, start=1):
        points = project(views[name], "pca", n_components=dims, keep_origin=True)
        marker = {"size": 3, "color": color, "colorscale": "Viridis", "showscale": col == len(names) and color is not None}
        coords = {axis: points[:, i] for i, axis in enumerate("xyz"[:dims])}
        trace = go.Scatter3d(mode="markers", marker=marker, name=name, **coords) if dims == 3 else \
            go.Scattergl(mode="markers", marker=marker, name=name, **coords)
        figure.add_trace(trace, row=1, col=col)
        if origin:
            zero = {axis: [0.0] for axis in "xyz"[:dims]}
            cross = {"size": 10 if dims == 2 else 6, "color": "red", "symbol": "x"}
            figure.add_trace((go.Scatter3d if dims == 3 else go.Scatter)(mode="markers", marker=cross, name="origin",
                                                                        showlegend=col == 1, **zero), row=1, col=col)
    figure.update_layout(title=f"Embeddings on their top {dims} principal directions (red x: the origin)")
    return figure


def log_likelihood_figure(curves: Mapping[str, Sequence[float]], smooth: int = 10) -> go.Figure:
    """Training log-likelihood (nats per dimension) per step for one or more flow fits, with a running mean."""
    figure = go.Figure()
    for name, values in curves.items():
        values = np.asarray(values, dtype=float)
        figure.add_trace(go.Scatter(y=values, mode="lines", name=f"{name} (per step)", opacity=0.3))
        if smooth > 1 and len(values) >= smooth:
            running = np.convolve(values, np.ones(smooth) / smooth, mode="valid")
            figure.add_trace(go.Scatter(x=np.arange(smooth - 1, len(values)), y=running, mode="lines",
                                        name=f"{name} (mean of {smooth})"))
    figure.update_layout(title="Flow training: log-likelihood of the embeddings", xaxis_title="step",
                         yaxis_title="log p(u) / dim (nats)")
    return figure


def k_selection_figure(scores: Mapping[int, float], chosen: int | None = None,
                       title: str = "NATSV: choosing k on dev") -> go.Figure:
    """Dev Spearman for each k of NATSV, the chosen k marked."""
    ks = sorted(scores)
    figure = go.Figure(go.Scatter(x=ks, y=[scores[k] for k in ks], mode="lines+markers", name="dev Spearman"))
    if chosen is not None:
        figure.add_trace(go.Scatter(x=[chosen], y=[scores[chosen]], mode="markers", marker={"size": 14, "symbol": "star"},
                                    name=f"chosen k={chosen}"))
    figure.update_layout(title=title, xaxis_title="k (top singular directions removed)", yaxis_title="Spearman × 100")
    return figure


def calibration_heatmap_figure(table, title: str) -> go.Figure:
    """A (method × data set) table of Spearman × 100 as an annotated heatmap."""
    figure = go.Figure(go.Heatmap(z=table.values, x=list(table.columns), y=list(table.index), colorscale="RdBu",
                                  zmid=float(np.nanmedian(table.values)), text=np.round(table.values, 1),
                                  texttemplate="%{text}"))
    figure.update_layout(title=title, yaxis={"autorange": "reversed"})
    return figure


class LiveCurve:
    """A ``callback`` for :func:`~sbert_workbook.calibration.flow_fit.fit_flow` that redraws the curve every ``every`` steps."""

    def __init__(self, every: int = 25, name: str = "flow"):
        import ipywidgets as widgets
        from IPython.display import display

        self.every, self.name, self.values = every, name, []
        self.output = widgets.Output()
        display(self.output)

    def __call__(self, event: dict, history: dict) -> None:
        from IPython.display import display

        self.values = history["log_likelihood"]
        if event["step"] % self.every == 0 or event["step"] == event["total_steps"]:
            with self.output:
                self.output.clear_output(wait=True)
                display(log_likelihood_figure({self.name: self.values}))
