"""STS evaluation: rank correlation between model similarity and human scores.

Introduced in ``03_pooling_and_sts.ipynb``. The similarities themselves (all "higher = more
similar") live in :mod:`sbert_workbook.evaluation.similarity`; correlations are scipy's, reported × 100.
"""
from __future__ import annotations

import warnings

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from scipy.stats import pearsonr, spearmanr

from sbert_workbook.data.loaders import StsData, load_sts
from sbert_workbook.data.registry import SEVEN_STS_SETS
from sbert_workbook.encoding.contract import as_embed_function, pooling_of
from sbert_workbook.evaluation.arrays import as_array
from sbert_workbook.evaluation.provenance import describe_model
from sbert_workbook.evaluation.similarity import SIMILARITIES

AGGREGATIONS = ("all", "wmean")
AGGREGATION_MEANING = {
    "all": "pairs of all subsets pooled into one correlation (SBERT, SimCSE, MTEB)",
    "wmean": "subset correlations averaged, weighted by subset size (SentEval 'all', BERT-flow, BERT-whitening)",
}


def correlations(predicted, gold) -> dict[str, float]:
    """Spearman and Pearson correlation × 100 between predicted similarities and gold scores."""
    predicted, gold = np.asarray(predicted, dtype=np.float64), np.asarray(gold, dtype=np.float64)
    if len(predicted) != len(gold) or len(gold) < 2:
        raise ValueError(f"Need two equally long score lists of at least 2 items, got {len(predicted)} and {len(gold)}.")
    if not np.isfinite(predicted).all():
        raise ValueError("Some predicted similarities are NaN or infinite: check the embeddings for NaN values.")
    constant = [what for what, values in (("the predicted similarities", predicted), ("the gold scores", gold))
                if np.ptp(values) == 0]
    if constant:  # scipy would warn in its own words and return NaN: say what to do instead
        warnings.warn(f"{' and '.join(constant)} are equal over all {len(gold)} pairs: their correlation is not defined "
                      "and is reported as NaN. Score more pairs (a larger sample), or check that the model does not "
                      "embed every sentence alike.", stacklevel=2)
        return {"spearman": float("nan"), "pearson": float("nan")}
    return {"spearman": 100 * spearmanr(predicted, gold).statistic, "pearson": 100 * pearsonr(predicted, gold).statistic}


def aggregate(predicted, data: StsData, aggregation: str = "all") -> dict[str, float]:
    """Correlations over ``data`` with ``all`` (pooled pairs) or ``wmean`` (size-weighted subset mean)."""
    if aggregation == "all":
        return correlations(predicted, data.scores)
    if aggregation != "wmean":
        raise ValueError(f"Unknown aggregation {aggregation!r}: use 'all' or 'wmean'.")
    predicted, subsets = np.asarray(predicted), np.asarray(data.subsets)
    per_subset, sizes = [], []
    for subset in data.subset_names():
        chosen = subsets == subset
        per_subset.append(correlations(predicted[chosen], data.scores[chosen]))
        sizes.append(chosen.sum())
    weights = np.asarray(sizes) / np.sum(sizes)
    return {stat: float(sum(w * c[stat] for w, c in zip(weights, per_subset))) for stat in ("spearman", "pearson")}


def score_pairs(embed: Callable[[list[str]], object], data: StsData, similarity: str = "cosine"):
    """Similarity of every pair in ``data``; each distinct sentence is embedded once."""
    if similarity not in SIMILARITIES:
        raise ValueError(f"Unknown similarity {similarity!r}; choose one of {', '.join(SIMILARITIES)}.")
    unique = list(dict.fromkeys(data.sentences1 + data.sentences2))
    position = {sentence: i for i, sentence in enumerate(unique)}
    embeddings = as_array(embed(unique))
    if not np.isfinite(embeddings).all():
        raise ValueError(f"The embeddings of {data.name} contain NaN or infinite values; nothing was scored.")
    u = embeddings[[position[s] for s in data.sentences1]]
    v = embeddings[[position[s] for s in data.sentences2]]
    return SIMILARITIES[similarity](u, v)


def evaluate_sts_data(embed, data: StsData, similarity: str = "cosine", aggregation: str = "all") -> dict[str, float]:
    """Metrics for one data set, keyed ``{statistic}_{similarity}`` (e.g. ``spearman_cosine``)."""
    scores = aggregate(score_pairs(embed, data, similarity), data, aggregation)
    return {f"{stat}_{similarity}": value for stat, value in scores.items()}


def evaluate_sts(
    encoder_or_embed,
    datasets: Sequence[str] = SEVEN_STS_SETS,
    pooling: str = "mean",
    similarity: str = "cosine",
    aggregation: str = "all",
    data_dir=None,
    limit: int | None = None,
    batch_size: int = 64,
) -> pd.DataFrame:
    """Spearman and Pearson × 100 per data set (test splits) plus their average, as a table.

    The table's ``attrs['provenance']`` (and :func:`table_caption`) say which model,
    pooling, similarity, aggregation and splits produced it.
    """
    if aggregation not in AGGREGATIONS:
        raise ValueError(f"Unknown aggregation {aggregation!r}: use 'all' or 'wmean'.")
    embed = as_embed_function(encoder_or_embed, pooling, batch_size)
    rows = []
    for name in datasets:
        data = load_sts(name, "test", data_dir=data_dir, limit=limit)
        metrics = evaluate_sts_data(embed, data, similarity, aggregation)
        rows.append({"dataset": name, "pairs": len(data), "spearman": metrics[f"spearman_{similarity}"],
                     "pearson": metrics[f"pearson_{similarity}"]})
    table = pd.DataFrame(rows).set_index("dataset")
    if len(table) > 1:
        table.loc["avg"] = [int(table["pairs"].sum()), table["spearman"].mean(), table["pearson"].mean()]
    table["pairs"] = table["pairs"].astype(int)
    table.attrs["provenance"] = {
        "model": describe_model(encoder_or_embed),
        "pooling": pooling_of(encoder_or_embed, pooling),
        "similarity": similarity,
        "aggregation": f"{aggregation}: {AGGREGATION_MEANING[aggregation]}",
        "split": "test" + (f", random sample of at most {limit} pairs per set" if limit else ""),
    }
    return table

