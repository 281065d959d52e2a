"""Figures for calibration and BERT-flow (``05_bert_flow.ipynb``): each returns a plotly ``go.Figure``."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from sbert_workbook.calibration import toy_flow
from sbert_workbook.calibration.change_of_variables import ChangeOfVariables1D, standard_normal_pdf
from sbert_workbook.calibration.lexical import CLOSE_EDIT_DISTANCE, close_pairs
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


def change_of_variables_figure(pieces: ChangeOfVariables1D) -> go.Figure:
    """Three panels: p_Z on z; the monotone map z = f(u); on u, p_Z(f(u)), the stretch |f′(u)| and their product p_U."""
    figure = make_subplots(rows=1, cols=3, subplot_titles=("latent density p_Z(z) = N(0, 1)", "the map z = f(u)",
                                                           "p_U(u) = p_Z(f(u)) · |f′(u)|"))
    z = np.linspace(-4, 4, 401)
    figure.add_trace(go.Scatter(x=z, y=standard_normal_pdf(z), name="p_Z(z)", fill="tozeroy"), row=1, col=1)
    figure.add_trace(go.Scatter(x=pieces.u, y=pieces.z, name="z = f(u)"), row=1, col=2)
    figure.add_trace(go.Scatter(x=pieces.u, y=pieces.latent_density, name="p_Z(f(u))", line={"dash": "dash"}), row=1, col=3)
    figure.add_trace(go.Scatter(x=pieces.u, y=pieces.stretch, name="|f′(u)| (the Jacobian term)", line={"dash": "dot"}),
                     row=1, col=3)
    figure.add_trace(go.Scatter(x=pieces.u, y=pieces.density, name=f"p_U(u), mass {pieces.total_mass():.3f}",
                                fill="tozeroy"), row=1, col=3)
    figure.update_xaxes(title_text="z", row=1, col=1)
    figure.update_xaxes(title_text="u", row=1, col=2)
    figure.update_xaxes(title_text="u", row=1, col=3)
    figure.update_yaxes(title_text="z", range=[-4, 4], row=1, col=2)
    figure.update_yaxes(range=[0, 1.5 * float(pieces.density.max())], row=1, col=3)
    figure.update_layout(title="Change of variables: where f is flat, a wide z-interval lands in a short u-interval")
    return figure


def toy_flow_figure(flow, points, samples, grid: int = 60) -> go.Figure:
    """Data with the flow's density p_U (mean marked), its latent f(u) over N(0, I) (origin marked), samples f⁻¹(z)."""
    points, latent = np.asarray(points), toy_flow.to_latent(flow, points)
    titles = ("data u, contours: the flow's p_U", "latent z = f(u), contours: N(0, I)", "samples f⁻¹(z), z ~ N(0, I)")
    figure = make_subplots(rows=1, cols=3, subplot_titles=titles)
    low, high = points.min(0) - 1, points.max(0) + 1
    x, y = np.linspace(low[0], high[0], grid), np.linspace(low[1], high[1], grid)
    r = np.linspace(-3.5, 3.5, grid)
    contours = {"showscale": False, "colorscale": "Blues", "ncontours": 12, "contours": {"coloring": "lines"}}
    figure.add_trace(go.Contour(x=x, y=y, z=toy_flow.density_grid(flow, x, y), name="p_U", **contours), row=1, col=1)
    figure.add_trace(go.Contour(x=r, y=r, z=toy_flow.density_grid(None, r, r), name="N(0, I)", **contours), row=1, col=2)
    dots = {"mode": "markers", "marker": {"size": 3}}
    figure.add_trace(go.Scatter(x=points[:, 0], y=points[:, 1], name="data u", **dots), row=1, col=1)
    figure.add_trace(go.Scatter(x=latent[:, 0], y=latent[:, 1], name="latent f(u)", **dots), row=1, col=2)
    figure.add_trace(go.Scatter(x=points[:, 0], y=points[:, 1], name="data u", opacity=0.25, showlegend=False, **dots),
                     row=1, col=3)
    figure.add_trace(go.Scatter(x=samples[:, 0], y=samples[:, 1], name="samples f⁻¹(z)", **dots), row=1, col=3)
    cross = {"mode": "markers", "marker": {"size": 12, "symbol": "x", "color": "red"}}
    mean = points.mean(0)
    figure.add_trace(go.Scatter(x=[mean[0]], y=[mean[1]], name="mean of the data (a hole)", **cross), row=1, col=1)
    figure.add_trace(go.Scatter(x=[0.0], y=[0.0], name="origin of the latent (the densest point)", **cross), row=1, col=2)
    for col in (1, 3):
        figure.update_xaxes(range=[low[0], high[0]], row=1, col=col)
        figure.update_yaxes(range=[low[1], high[1]], row=1, col=col)
    figure.update_xaxes(range=[-3.5, 3.5], row=1, col=2)
    figure.update_yaxes(range=[-3.5, 3.5], row=1, col=2)
    figure.update_layout(title="A 2-D flow: the bent, off-centre cloud becomes a round Gaussian, and back")
    return figure


def circle_angles_figure(angles: Mapping[str, Sequence[float]], bins: int = 24) -> go.Figure:
    """Histograms (density per radian) of where L2-normalised points land on the circle; flat = every direction alike."""
    figure = go.Figure()
    edges = np.linspace(-np.pi, np.pi, bins + 1)
    for name, values in angles.items():
        counts, _ = np.histogram(np.asarray(values, dtype=float), bins=edges, density=True)
        figure.add_trace(go.Bar(x=(edges[:-1] + edges[1:]) / 2, y=counts, width=edges[1] - edges[0], name=name, opacity=0.6))
    figure.add_hline(y=1 / (2 * np.pi), line_dash="dash", annotation_text="uniform: 1/(2π)")
    figure.update_layout(barmode="overlay", title="Directions after L2 normalisation", xaxis_title="angle (radians)",
                         yaxis_title="density per radian")
    return figure


def edit_distance_figure(distances, similarities: Mapping[str, Sequence[float]],
                         max_distance: int = CLOSE_EDIT_DISTANCE) -> go.Figure:
    """BERT-flow Figure 2: one panel per similarity (x) against edit distance (y), pairs ≤ ``max_distance`` edits highlighted."""
    distances = np.asarray(distances, dtype=float)
    close = close_pairs(distances, max_distance)
    names = list(similarities)
    figure = make_subplots(rows=1, cols=len(names), subplot_titles=names, shared_yaxes=True)
    for col, name in enumerate(names, start=1):
        values = np.asarray(similarities[name], dtype=float)
        if len(values) != len(distances):
            raise ValueError(f"{name!r} has {len(values)} similarities for {len(distances)} pairs.")
        for mask, label, color in ((~close, f"edit distance > {max_distance}", "steelblue"),
                                   (close, f"edit distance ≤ {max_distance}", "green")):
            figure.add_trace(go.Scatter(x=values[mask], y=distances[mask], mode="markers", name=label, showlegend=col == 1,
                                        marker={"size": 4, "color": color, "opacity": 0.6}), row=1, col=col)
        figure.update_xaxes(title_text="similarity", row=1, col=col)
    figure.update_yaxes(title_text="edit distance (words)", row=1, col=1)
    figure.update_layout(title=f"Edit distance against similarity ({close.sum()} of {len(close)} pairs within "
                               f"{max_distance} edits, in green)")
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
        from sbert_workbook.teaching.live_output import show

        self.values = history["log_likelihood"]
        if event["step"] % self.every == 0 or event["step"] == event["total_steps"]:
            show(self.output, log_likelihood_figure({self.name: self.values}))


def family_figure(rows, likelihood: str = "held-out log-likelihood (nats/dim)", sts: str = "STS avg") -> go.Figure:
    """§12's one family: per view, the maps in order (raw → SN → whitening → flow), held-out log-likelihood and STS side by side.

    ``rows`` is a DataFrame with columns ``view``, ``map``, ``likelihood`` and ``sts``, one row per (view, map).
    """
    figure = make_subplots(rows=1, cols=2, subplot_titles=[likelihood, sts])
    for number, (view, part) in enumerate(rows.groupby("view", sort=False)):
        colour = {"color": f"hsl({(number * 67) % 360}, 60%, 45%)"}
        for col, column in enumerate((likelihood, sts), start=1):
            figure.add_trace(go.Scatter(x=list(part["map"]), y=list(part[column]), mode="lines+markers", name=view,
                                        legendgroup=view, showlegend=col == 1, line=colour), row=1, col=col)
    figure.update_layout(title="One family: each map makes the embeddings more Gaussian; does STS follow?")
    figure.update_xaxes(title_text="map fitted on NLI sentences")
    return figure
