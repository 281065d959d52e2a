"""Intervals drawn, not only printed: a forest plot of differences with their 95 % intervals (``03_pooling_and_sts.ipynb``).

Every "apart / tie" verdict of the workbook reads an :class:`~sbert_workbook.evaluation.uncertainty.Interval`. The
forest plot puts each on one row: the difference as a dot, its interval as a bar, and a line at zero, so a reader
sees at once which intervals cross it (a tie) and which do not (apart). The interval's kind (paired bootstrap over
pairs, spread over seeds, σ/√n of published means) is in the hover text and, when all rows share it, the title.
"""
from __future__ import annotations

from collections.abc import Mapping

import plotly.graph_objects as go

from sbert_workbook.evaluation.uncertainty import CONFIDENCE, Interval

APART_COLOUR, TIE_COLOUR = "#1f77b4", "#9a9a9a"


def interval_forest_figure(intervals: Mapping[str, Interval], title: str, unit: str = "Spearman × 100",
                           height_per_row: int = 34) -> go.Figure:
    """One row per ``{label: Interval}``: the difference, its interval and the zero line; apart rows in colour."""
    if not intervals:
        raise ValueError("A forest plot needs at least one interval: pass {label: Interval}.")
    labels = list(intervals)[::-1]  # plotly draws the first category at the bottom: keep the caller's order top-down
    methods = {interval.method for interval in intervals.values()}
    figure = go.Figure()
    for verdict, colour in (("apart", APART_COLOUR), ("tie", TIE_COLOUR)):
        chosen = [label for label in labels if intervals[label].verdict == verdict]
        if not chosen:
            continue
        figure.add_trace(go.Scatter(
            x=[intervals[label].difference for label in chosen], y=chosen, mode="markers", name=verdict,
            marker={"color": colour, "size": 9},
            error_x={"type": "data", "symmetric": False, "color": colour, "thickness": 2,
                     "array": [intervals[label].high - intervals[label].difference for label in chosen],
                     "arrayminus": [intervals[label].difference - intervals[label].low for label in chosen]},
            hovertext=[intervals[label].described() for label in chosen],
            hovertemplate="%{y}: %{hovertext}<extra></extra>"))
    figure.add_vline(x=0, line={"color": "black", "width": 1, "dash": "dot"})
    subtitle = f"{CONFIDENCE:.0%} intervals".replace("%", " %", 1) + (f": {methods.pop()}" if len(methods) == 1 else "")
    figure.update_layout(title=f"{title}<br><sup>{subtitle}; apart when the bar misses 0</sup>",
                         xaxis_title=f"difference ({unit})", height=140 + height_per_row * len(labels),
                         margin={"l": 10}, legend={"orientation": "h", "y": -0.25})
    figure.update_yaxes(automargin=True)
    return figure
