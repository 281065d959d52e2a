"""Figures of ``06_contrastive_simcse.ipynb``: the alignment–uniformity path of a run, and singular spectra."""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots


def alignment_uniformity_path_figure(trajectories: Mapping[str, dict], dev_scores: Mapping[str, dict] | None = None,
                                     title: str = "Alignment and uniformity while training (lower is better for both)") -> go.Figure:
    """Left: each run's (uniformity, alignment) every few steps, as SimCSE's Figure 2; right: its STS-B dev score per step.

    ``trajectories`` maps a run to ``{"step", "alignment", "uniformity"}``; ``dev_scores`` a run to
    ``{"eval_step", "dev_spearman"}`` (``fit``'s history).
    """
    figure = make_subplots(rows=1, cols=2, subplot_titles=("ℓ_align vs ℓ_uniform (start: ○, end: ◆)", "STS-B dev Spearman × 100"))
    for index, (name, path) in enumerate(trajectories.items()):
        color = f"hsl({(index * 67) % 360}, 65%, 45%)"
        steps = [f"step {s}" for s in path["step"]]
        figure.add_scatter(x=path["uniformity"], y=path["alignment"], mode="lines+markers", name=name, text=steps,
                           line=dict(color=color), marker=dict(symbol=["circle-open"] + ["circle"] * (len(steps) - 2)
                                                               + ["diamond"] * (len(steps) > 1), size=9), row=1, col=1)
        if dev_scores and name in dev_scores:
            figure.add_scatter(x=dev_scores[name]["eval_step"], y=dev_scores[name]["dev_spearman"], mode="lines+markers",
                               name=name, showlegend=False, line=dict(color=color), row=1, col=2)
    figure.update_xaxes(title_text="ℓ_uniform", row=1, col=1)
    figure.update_yaxes(title_text="ℓ_align", row=1, col=1)
    figure.update_xaxes(title_text="step", row=1, col=2)
    return figure.update_layout(title=title, height=420)


def singular_spectrum_figure(spectra: Mapping[str, np.ndarray], title: str = "Singular spectrum (σ_k / σ_1, log scale)") -> go.Figure:
    """One line per embedding: its normalised singular values; flatter means more directions in use."""
    figure = go.Figure()
    for name, spectrum in spectra.items():
        figure.add_scatter(x=np.arange(1, len(spectrum) + 1), y=spectrum, mode="lines", name=name)
    return figure.update_layout(title=title, xaxis_title="k (direction, largest first)", yaxis_title="σ_k / σ_1",
                                yaxis_type="log", height=380)


def alignment_uniformity_plane_figure(points, paths: Mapping[str, dict] | None = None,
                                      title: str = "ℓ_align against ℓ_uniform (lower is better for both)") -> go.Figure:
    """SimCSE's Figure 3: every row of ``points`` (a frame with ``alignment`` and ``uniformity`` columns, one row per
    embedding) as a labelled point, and each run in ``paths`` (``{"alignment": [...], "uniformity": [...]}``, step by
    step) as a line whose last segment is an arrow, from where its training started to where it ended."""
    figure = go.Figure()
    for index, (name, path) in enumerate((paths or {}).items()):
        color = f"hsl({(index * 67 + 200) % 360}, 55%, 55%)"
        figure.add_scatter(x=path["uniformity"], y=path["alignment"], mode="lines", line=dict(color=color, width=2),
                           name=f"path: {name}", hoverinfo="name")
        if len(path["uniformity"]) > 1:
            figure.add_annotation(x=path["uniformity"][-1], y=path["alignment"][-1], ax=path["uniformity"][-2],
                                  ay=path["alignment"][-2], xref="x", yref="y", axref="x", ayref="y", showarrow=True,
                                  arrowhead=3, arrowsize=1.5, arrowcolor=color, text="")
    figure.add_scatter(x=points["uniformity"], y=points["alignment"], mode="markers+text", text=list(points.index),
                       textposition="top center", marker=dict(size=11, color="black"), name="rows of the table")
    return figure.update_layout(title=title, xaxis_title="ℓ_uniform (more uniform →  left)",
                                yaxis_title="ℓ_align (closer positives →  down)", height=480)
