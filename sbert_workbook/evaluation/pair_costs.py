"""Why a bi-encoder: the cost of finding the most similar pair among n sentences (``04_siamese_finetuning.ipynb``).

A bi-encoder encodes each of the n sentences once (then one n×n matrix product); a
cross-encoder must read every pair together: n(n−1)/2 forward passes. SBERT's paper gives
the cost for its example size (``published.SBERT_CLUSTERING_COST``: hours with BERT on a V100,
seconds with SBERT). Here both are timed on small n and extrapolated.
"""
from __future__ import annotations

import itertools
import time

import pandas as pd
import plotly.graph_objects as go
import torch

from sbert_workbook.published import SBERT_CLUSTERING_COST

#: SBERT's example: n sentences, seconds with BERT (cross-encoder) and with SBERT (bi-encoder), from ``published``.
PAPER_N = SBERT_CLUSTERING_COST["sentences"]
PAPER_CROSS_S = SBERT_CLUSTERING_COST["BERT (cross-encoder) hours"] * 3600
PAPER_BI_S = float(SBERT_CLUSTERING_COST["SBERT seconds"])


def time_bi_encoder(encoder, sentences: list[str], batch_size: int = 32) -> float:
    """Seconds to encode ``sentences`` once and compute all n×n cosine similarities."""
    started = time.perf_counter()
    embeddings = torch.nn.functional.normalize(encoder.encode(sentences, batch_size=batch_size), dim=-1)
    _ = embeddings @ embeddings.T
    return time.perf_counter() - started


def time_cross_encoder(encoder, sentences: list[str], batch_size: int = 32) -> float:
    """Seconds for one joint forward pass per pair ``[CLS] a [SEP] b [SEP]``, all n(n−1)/2 pairs, batched.

    A real cross-encoder reads a score from a trained head; none ships offline, so this times
    the transformer passes only (the head is one small matrix product): the cost is the lesson.
    """
    pairs = list(itertools.combinations(sentences, 2))
    started = time.perf_counter()
    with torch.inference_mode():
        for start in range(0, len(pairs), batch_size):
            first, second = zip(*pairs[start:start + batch_size])
            batch = encoder.tokenizer(list(first), list(second), padding=True, truncation=True,
                                      max_length=encoder.max_length, return_tensors="pt")
            encoder.model(**{key: value.to(encoder.device) for key, value in batch.items()})
    return time.perf_counter() - started


def cost_table(encoder, sentences: list[str], sizes=(8, 16, 32)) -> pd.DataFrame:
    """Measured seconds of both approaches for the first n sentences, for each n in ``sizes``."""
    rows = []
    time_bi_encoder(encoder, sentences[:2])  # warm-up: the first forward pass pays for one-off set-up
    for n in sizes:
        chosen = sentences[:n]
        rows.append({"n": len(chosen), "pairs": len(chosen) * (len(chosen) - 1) // 2,
                     "bi_encoder_s": time_bi_encoder(encoder, chosen), "cross_encoder_s": time_cross_encoder(encoder, chosen)})
    return pd.DataFrame(rows).set_index("n")


def extrapolate(table: pd.DataFrame, n: int = PAPER_N) -> dict[str, float]:
    """Seconds at ``n`` sentences from the largest measured n: bi ∝ n, cross ∝ n(n−1)/2."""
    measured_n = int(table.index.max())
    row = table.loc[measured_n]
    return {"n": n, "bi_encoder_s": row["bi_encoder_s"] * n / measured_n,
            "cross_encoder_s": row["cross_encoder_s"] * (n * (n - 1) / 2) / row["pairs"], "from_n": measured_n}


def cost_figure(table: pd.DataFrame, n: int = PAPER_N) -> go.Figure:
    """Log-log seconds against n: measured points, extrapolated lines, and the paper's two figures at its n."""
    figure = go.Figure()
    grid = sorted({*table.index.tolist(), 100, 1000, n})
    for column, name in (("bi_encoder_s", "bi-encoder (SBERT)"), ("cross_encoder_s", "cross-encoder (BERT)")):
        figure.add_trace(go.Scatter(x=table.index, y=table[column], mode="markers", name=f"{name}, measured", marker_size=10))
        line = [extrapolate(table, size)[column] for size in grid]
        figure.add_trace(go.Scatter(x=grid, y=line, mode="lines", line_dash="dot", name=f"{name}, extrapolated"))
    figure.add_trace(go.Scatter(x=[PAPER_N, PAPER_N], y=[PAPER_BI_S, PAPER_CROSS_S], mode="markers+text", name="paper (V100)",
                                text=[f"SBERT ≈ {PAPER_BI_S:g} s", f"BERT ≈ {PAPER_CROSS_S / 3600:g} h"], textposition="middle left", marker_symbol="star", marker_size=14))
    figure.update_layout(xaxis_type="log", yaxis_type="log", xaxis_title="sentences n", yaxis_title="seconds (log)",
                         title="Most similar pair among n sentences: n encodings vs n(n−1)/2 pair passes", height=420)
    return figure


def readable_seconds(seconds: float) -> str:
    """3.2 s, 4.1 min, 2.3 h or 5.6 days."""
    for unit, size in (("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.2g} s"
