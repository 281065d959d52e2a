"""Pooling and concatenation ablations, beside the SBERT paper's Table 6 (``04_siamese_finetuning.ipynb``).

The paper trained BERT-base on SNLI + MultiNLI with the softmax objective and reports STS-B
dev Spearman × 100 for each choice. The workbook reruns the same comparison in small form.
"""
from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import plotly.graph_objects as go

from sbert_workbook.evaluation.provenance import inherit_provenance
from sbert_workbook.training.fitting import TrainingConfig, fit

#: SBERT (Reimers & Gurevych, 2019), Table 6: NLI training, STS-B dev, Spearman × 100.
PAPER_POOLING = {"mean": 80.78, "max": 79.07, "cls": 79.80}
PAPER_CONCATENATION = {
    ("u", "v"): 66.04,
    ("|u-v|",): 69.78,
    ("u", "v", "|u-v|"): 80.78,
    ("u", "v", "|u-v|", "u*v"): 80.44,
}


def concatenation_label(parts) -> str:
    return "(" + ", ".join(parts) + ")"


def run_ablation(make_model: Callable[[str, tuple], object], variants: list[tuple[str, tuple]], examples, dev,
                 config: TrainingConfig, output_root) -> pd.DataFrame:
    """Train one model per (pooling, concatenation) variant with the softmax objective; dev Spearman of each.

    ``make_model(pooling, parts)`` must return a fresh model with its classifier attached.
    """
    rows = []
    for pooling, parts in variants:
        model = make_model(pooling, parts)
        folder = f"{output_root}/{pooling}-{'_'.join(parts).replace('|', '').replace('*', 'x')}"
        result = fit(model, examples, "softmax", config, dev=dev, output_dir=folder)
        rows.append({"pooling": pooling, "concatenation": concatenation_label(parts), "steps": result.steps,
                     "dev_spearman": result.history["dev_spearman"][-1], "best_dev_spearman": result.best_spearman})
    return pd.DataFrame(rows)


def beside_paper(table: pd.DataFrame, varied: str) -> pd.DataFrame:
    """The rows of ``table`` that vary ``pooling`` (concatenation fixed) or ``concatenation``, with the paper's number."""
    if varied == "pooling":
        rows = table[table["concatenation"] == concatenation_label(("u", "v", "|u-v|"))]
        paper = rows["pooling"].map(PAPER_POOLING)
    elif varied == "concatenation":
        rows = table[table["pooling"] == "mean"]
        paper = rows["concatenation"].map({concatenation_label(k): v for k, v in PAPER_CONCATENATION.items()})
    else:
        raise ValueError(f"varied must be 'pooling' or 'concatenation', not {varied!r}.")
    out = rows[[varied, "steps", "dev_spearman"]].rename(columns={"dev_spearman": "ours: dev Spearman"})
    out["paper (BERT-base, full NLI)"] = paper.to_numpy()
    return inherit_provenance(out.set_index(varied), table,
                              {"paper column": "SBERT (Reimers & Gurevych, 2019) Table 6, BERT-base, quoted"})


def ablation_figure(table: pd.DataFrame, title: str) -> go.Figure:
    """Grouped bars: our dev Spearman and the paper's for each variant of a :func:`beside_paper` table."""
    figure = go.Figure()
    for column in table.columns.drop("steps", errors="ignore"):
        figure.add_trace(go.Bar(x=table.index, y=table[column], name=column, text=[f"{v:.1f}" for v in table[column]]))
    figure.update_layout(barmode="group", yaxis_title="STS-B dev Spearman × 100", title=title, height=380)
    return figure
