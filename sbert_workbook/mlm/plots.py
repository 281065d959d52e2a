"""Figures for ``01_mlm_to_similarity.ipynb``: training curves, logits against PMI, anisotropy, top-k.

Each function returns a plain ``plotly.graph_objects.Figure`` built from the tables of
:mod:`sbert_workbook.mlm.tiny`, so tests can read the plotted numbers back.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from sbert_workbook.mlm.toy_language import WORD_CLASSES


def mlm_training_figure(history: pd.DataFrame, title: str = "") -> go.Figure:
    """MLM loss (masked positions, with 80/10/10 noise) and KL(truth ‖ model) on clean [MASK] contexts, by step."""
    figure = make_subplots(rows=1, cols=2, subplot_titles=("MLM training loss (nats)", "KL(p(·|c) ‖ model) (nats)"))
    figure.add_trace(go.Scatter(x=history["step"], y=history["loss"], mode="lines+markers", name="loss"), row=1, col=1)
    figure.add_trace(go.Scatter(x=history["step"], y=history["kl_to_truth"], mode="lines+markers", name="KL"), row=1, col=2)
    figure.update_xaxes(title_text="training step")
    figure.update_layout(title=title or "Pre-training the tiny MLM", showlegend=False, height=350)
    return figure


def logit_scatter_figure(table: pd.DataFrame, correlations: pd.DataFrame, max_points: int = 4000,
                         title: str = "") -> go.Figure:
    """Centered logit h_cᵀw_x + b_x against centered PMI(x, c) + log p(x), one colour per word class."""
    shown = table.sample(n=min(max_points, len(table)), random_state=0) if len(table) > max_points else table
    figure = go.Figure()
    for word_class in WORD_CLASSES:
        part = shown[shown["word_class"] == word_class]
        if len(part):
            figure.add_trace(go.Scattergl(
                x=part["pmi_plus_log_p_centered"], y=part["logit_centered"], mode="markers", name=word_class,
                marker={"size": 4, "opacity": 0.5}, text=part["word"] + " | " + part["sentence"],
                hovertemplate="%{text}<br>PMI + log p = %{x:.2f}<br>logit = %{y:.2f}<extra></extra>"))
    slope, intercept = np.polyfit(table["pmi_plus_log_p_centered"], table["logit_centered"], 1)
    ends = np.array([table["pmi_plus_log_p_centered"].min(), table["pmi_plus_log_p_centered"].max()])
    figure.add_trace(go.Scatter(x=ends, y=slope * ends + intercept, mode="lines", name=f"least squares (slope {slope:.2f})",
                                line={"color": "black", "dash": "dash"}))
    r, rho = correlations.loc["PMI(x, c) + log p(x)", ["pearson", "spearman"]]
    figure.update_layout(
        title=title or f"Logits track PMI(x, c) + log p(x): Pearson {r:.3f}, Spearman {rho:.3f}",
        xaxis_title="PMI(x, c) + log p(x) = log p(x | c), centered per context (exact)",
        yaxis_title="logit h_cᵀw_x + b_x, centered per context", height=500)
    return figure


def correlation_figure(correlations: pd.DataFrame, title: str = "") -> go.Figure:
    """Pearson and Spearman correlation of the centered logits with each target, as grouped bars."""
    figure = go.Figure([go.Bar(x=correlations.index, y=correlations[statistic], name=statistic,
                               text=[f"{value:.3f}" for value in correlations[statistic]], textposition="outside")
                        for statistic in ("pearson", "spearman")])
    figure.update_layout(title=title or "How well do the logits track each target?", barmode="group",
                         yaxis={"title": "correlation with the centered logits", "range": [min(0, correlations.min().min()) - 0.05, 1.1]},
                         height=380)
    return figure


def context_similarity_figure(pairs: pd.DataFrame, max_points: int = 3000, title: str = "") -> go.Figure:
    """Model cosine of two [MASK] contexts against the cosine of their exact prediction profiles."""
    from scipy.stats import spearmanr

    shown = pairs.sample(n=min(max_points, len(pairs)), random_state=0) if len(pairs) > max_points else pairs
    rho = spearmanr(pairs["exact_profile_cosine"], pairs["model_cosine"])[0]
    figure = go.Figure(go.Scattergl(
        x=shown["exact_profile_cosine"], y=shown["model_cosine"], mode="markers", marker={"size": 4, "opacity": 0.4},
        text=shown["context_a"] + "<br>" + shown["context_b"],
        hovertemplate="%{text}<br>exact %{x:.2f}, model %{y:.2f}<extra></extra>"))
    figure.update_layout(title=title or f"Contexts that predict alike get similar vectors (Spearman {rho:.3f})",
                         xaxis_title="cosine of the exact log p(·|c) profiles, centered (PMI rows)",
                         yaxis_title="cosine of the last hidden states at [MASK]", height=450)
    return figure


def anisotropy_figure(history: pd.DataFrame, title: str = "") -> go.Figure:
    """Mean cosines of contexts and sentences, and frequency correlations of ‖w_x‖ and b_x, by step."""
    figure = make_subplots(rows=1, cols=2, subplot_titles=("mean cosine between different inputs",
                                                           "Pearson r with log p(x)"))
    series = [("context_mean_cosine", "[MASK] contexts (last layer)", 1),
              ("sentence_mean_cosine", "mean-pooled sentences (last layer)", 1),
              ("norm_logfreq_pearson", "word-embedding norm ‖w_x‖", 2),
              ("bias_logfreq_pearson", "output bias b_x", 2)]
    for column, name, col in series:
        figure.add_trace(go.Scatter(x=history["step"], y=history[column], mode="lines+markers", name=name), row=1, col=col)
    figure.update_xaxes(title_text="training step")
    figure.update_yaxes(range=[-1.05, 1.05], row=1, col=2)
    figure.update_yaxes(range=[-0.05, 1.05], row=1, col=1)
    figure.update_layout(title=title or "Geometry of the tiny MLM during pre-training", height=380)
    return figure


def top_k_figure(table: pd.DataFrame, title: str = "") -> go.Figure:
    """Bars of the top-k probabilities at the first [MASK] (logits on hover); exact p(x | c) beside them when known."""
    first = table[table["mask"] == table["mask"].min()].iloc[::-1]
    figure = go.Figure(go.Bar(y=first["token"], x=first["probability"], orientation="h", name="model",
                              customdata=first["logit"], text=[f"{p:.3f}" for p in first["probability"]],
                              hovertemplate="%{y}: p = %{x:.4f}, logit = %{customdata:.2f}<extra></extra>"))
    if "exact_probability" in first:
        figure.add_trace(go.Bar(y=first["token"], x=first["exact_probability"], orientation="h", name="exact p(x | c)",
                                text=[f"{p:.3f}" for p in first["exact_probability"]]))
    masks = table["mask"].nunique()
    figure.update_layout(title=title or f"Top predictions at [MASK] 1 of {masks}", barmode="group",
                         xaxis={"title": "probability", "range": [0, 1]}, height=120 + 40 * len(first))
    return figure
