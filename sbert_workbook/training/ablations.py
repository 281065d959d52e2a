"""Pooling and concatenation ablations, beside the SBERT paper's Table 6 (``04_siamese_finetuning.ipynb``).

The paper's Table 6 reports STS-B dev Spearman × 100 of SBERT-base in two settings: trained on
SNLI + MultiNLI with the classification objective (pooling and concatenation rows), and trained
on STS-B train with the regression objective (pooling rows only). The workbook reruns the
classification setting in small form; the paper's numbers come from :mod:`sbert_workbook.published`.
"""
from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import plotly.graph_objects as go
from tqdm.auto import tqdm

from sbert_workbook.evaluation.provenance import inherit_provenance
from sbert_workbook.evaluation.sts import evaluate_sts_data
from sbert_workbook.published import SBERT_TABLE6, SBERT_TABLE6_CONCATENATIONS
from sbert_workbook.training.fitting import TrainingConfig, fit

#: SBERT Table 6 column → what our tables call it: classification on NLI, regression on STS-B train.
PAPER_COLUMNS = {"nli": "paper: NLI, classification", "stsb": "paper: STS-B, regression"}
#: SBERT Table 6, read from ``published``: pooling → Spearman × 100 (NLI classification column).
PAPER_POOLING = {pooling: SBERT_TABLE6.value(pooling.upper(), "nli") for pooling in ("mean", "max", "cls")}
#: The same pooling rows in Table 6's STS-B regression column.
PAPER_POOLING_REGRESSION = {pooling: SBERT_TABLE6.value(pooling.upper(), "stsb") for pooling in PAPER_POOLING}
#: All seven concatenation rows of Table 6 (NLI classification, MEAN pooling), in the paper's order.
PAPER_CONCATENATION = {parts: SBERT_TABLE6.value(row, "nli") for parts, row in SBERT_TABLE6_CONCATENATIONS.items()}


def concatenation_label(parts) -> str:
    return "(" + ", ".join(parts) + ")"


def dev_spearman(model, dev) -> float:
    """Spearman × 100 of the cosine of ``model``'s pooled vectors on ``dev`` (STS-B dev), as ``fit`` scores it."""
    score = evaluate_sts_data(lambda s: model.encoder().encode(s, pooling=model.pooling, batch_size=64), dev)["spearman_cosine"]
    model.train()  # encoder() switched the transformer to eval mode
    return score


def run_ablation(make_model: Callable[[str, tuple], object], variants: list[tuple[str, tuple]], examples, dev,
                 config: TrainingConfig, output_root) -> pd.DataFrame:
    """Train one model per (pooling, concatenation) variant with the softmax objective; dev Spearman of each.

    ``make_model(pooling, parts)`` must return a fresh model with its classifier attached. Each
    variant is scored once, after its last step: ``fit`` gets no dev set, so it keeps no "best"
    weights on disk (with ``config.save_checkpoints=False`` a variant writes nothing at all).
    A bar counts the variants and, after the first, estimates the time left.
    """
    rows = []
    for pooling, parts in tqdm(variants, desc="ablation variants", unit="variant"):
        model = make_model(pooling, parts)
        folder = f"{output_root}/{pooling}-{'_'.join(parts).replace('|', '').replace('*', 'x')}"
        result = fit(model, examples, "softmax", config, output_dir=folder)
        rows.append({"pooling": pooling, "concatenation": concatenation_label(parts), "steps": result.steps,
                     "dev_spearman": dev_spearman(model, dev)})
    return pd.DataFrame(rows)


def beside_paper(table: pd.DataFrame, varied: str) -> pd.DataFrame:
    """The rows of ``table`` that vary ``pooling`` (concatenation (u, v, |u-v|)) or ``concatenation`` (mean pooling),
    beside every row Table 6 prints for that choice: rows we did not run show NaN in our columns.

    The pooling table has both of the paper's columns (NLI classification, STS-B regression); the
    concatenation table has the NLI one, the only one the paper filled.
    """
    if varied == "pooling":
        rows = table[table["concatenation"] == concatenation_label(("u", "v", "|u-v|"))]
        paper = {PAPER_COLUMNS["nli"]: PAPER_POOLING, PAPER_COLUMNS["stsb"]: PAPER_POOLING_REGRESSION}
    elif varied == "concatenation":
        rows = table[table["pooling"] == "mean"]
        paper = {PAPER_COLUMNS["nli"]: {concatenation_label(k): v for k, v in PAPER_CONCATENATION.items()}}
    else:
        raise ValueError(f"varied must be 'pooling' or 'concatenation', not {varied!r}.")
    ours = rows[[varied, "steps", "dev_spearman"]].rename(columns={"dev_spearman": "ours: dev Spearman"}).set_index(varied)
    published = pd.DataFrame(paper)
    order = [*published.index, *(label for label in ours.index if label not in published.index)]
    out = ours.reindex(order).join(published)
    out.index.name = varied
    return inherit_provenance(out, table, {"paper column": SBERT_TABLE6.source() + " (bert-base-uncased, quoted, not re-run)"})


def ablation_figure(table: pd.DataFrame, title: str) -> go.Figure:
    """Grouped bars: our dev Spearman and the paper's for each variant of a :func:`beside_paper` table."""
    figure = go.Figure()
    for column in table.columns.drop("steps", errors="ignore"):
        figure.add_trace(go.Bar(x=table.index, y=table[column], name=column, text=["" if pd.isna(v) else f"{v:.1f}" for v in table[column]]))
    figure.update_layout(barmode="group", yaxis_title="STS-B dev Spearman × 100", title=title, height=380)
    return figure
