"""Lesson 08 §7, the cost–quality plane: every way of keeping the vectors at its bytes and its STS, and which stay
within a point of float32 (``08_what_an_embedding_costs.ipynb``)."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from sbert_workbook.cost.frontier import Frontier
from sbert_workbook.lessons.nb08.lesson import NOTEBOOK, K, Lesson08
from sbert_workbook.lessons.nb08.rerank import RerankRun, rerank_table
from sbert_workbook.lessons.nb08.search import IndexRun
from sbert_workbook.lessons.nb08.static import StaticRun
from sbert_workbook.lessons.report import Report, verdict


def plane_report(lesson: Lesson08, quantized: Frontier, reduced: Frontier, static: StaticRun, indexed: IndexRun,
                 reranking: RerankRun) -> Report:
    """§7: every point on two planes: bytes against STS, and milliseconds per query (encoding + search, + reranking)
    against recall@K (the static model's own encoding time for its point)."""
    table = pd.concat([run.table for run in (quantized, reduced, static.frontier, indexed.frontier)])
    table = table[~table.index.duplicated()]
    encode = pd.Series(lesson.encode_ms, index=table.index)
    encode[static.frontier.table.index[1]] = static.encode_ms
    reranked = rerank_table(lesson, reranking)
    for name, row in reranked.iterrows():
        table.loc[name, ["ms per query", f"recall@{K}"]] = [table.loc["float32", "ms per query"] + row["rerank ms per query"],
                                                          row[f"recall@{K} reranked"]]
        encode[name] = lesson.encode_ms
    figure = make_subplots(rows=1, cols=2, subplot_titles=("bytes per vector against STS",
                                                           f"ms per query against recall@{K}"))
    stored = table.dropna(subset=["STS avg"])  # reranking changes the order, not what is stored
    figure.add_trace(go.Scatter(x=stored["bytes per vector"], y=stored["STS avg"], mode="markers", text=stored.index,
                                hovertemplate="%{text}: %{x} bytes, STS %{y:.2f}<extra></extra>", name="STS"), 1, 1)
    figure.add_trace(go.Scatter(x=encode + table["ms per query"], y=table[f"recall@{K}"], mode="markers",
                                text=table.index, name=f"recall@{K}",
                                hovertemplate="%{text}: %{x:.2f} ms, recall %{y:.3f}<extra></extra>"), 1, 2)
    figure.update_xaxes(type="log", title_text="bytes per vector (log)", row=1, col=1)
    figure.update_xaxes(type="log", title_text="ms per query: encoding + search (log)", row=1, col=2)
    figure.update_layout(height=420, showlegend=False, title=f"{lesson.encoder.name}: what each way of keeping vectors costs")
    cheapest, why = within_one_point(quantized, reduced, indexed.frontier)
    said = (f"The fewest bytes whose STS change against float32 lies within one point (the whole 95 % paired-bootstrap "
            f"interval above −1), among this model's own storages: {cheapest}" + (
                f" ({int(table.loc[cheapest, 'bytes per vector'])} bytes against {int(table['bytes per vector'].iloc[0])}; "
                f"{why})." if cheapest != "none" else f" ({why})."))
    return Report(figure, said, verdicts=verdict(NOTEBOOK, "fewest bytes within one STS point of float32", cheapest))


def within_one_point(*frontiers: Frontier) -> tuple[str, str]:
    """The storage with the fewest bytes whose STS change against float32 has its interval's lower bound above −1, and
    its interval; ('none', why) if no storage does. Only the model's own vectors compete (the static model is another
    model), and rescored rows are left out: what they store is binary's, and their STS is binary's question asked
    with a float query."""
    candidates = {}
    for frontier in frontiers:
        for name, interval in frontier.intervals.items():
            if not name.startswith("binary, rescored") and interval.low > -1:
                candidates[name] = (int(frontier.table.loc[name, "bytes per vector"]), interval)
    if not candidates:
        return "none", "no storage's interval lies wholly above −1"
    cheapest = min(candidates, key=lambda name: candidates[name][0])
    return cheapest, f"STS {candidates[cheapest][1].described()}"
