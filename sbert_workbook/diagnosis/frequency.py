"""Frequency: do rare words sit apart? BERT-flow's Table 1 measured for the model under diagnosis (``07``, §4).

Li et al. (BERT-flow, 2020, Table 1) bucket BERT's word embeddings by frequency rank and find frequent words near the
origin and packed close together, rare words far out and sparse. 02 measures that on bert-base-uncased
(:func:`~sbert_workbook.anisotropy.metrics.frequency_bucket_table`); this applies it to any subject's word vectors (a
transformer's input word embeddings, GloVe's vectors, the tiny MLM's), with BERT-flow's buckets where the vocabulary
has them and four equal rank buckets where it is smaller (the tiny MLM's 22 words).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from sbert_workbook.anisotropy.metrics import BERT_FLOW_BUCKETS, frequency_bucket_table

#: The rows of the table the verdicts read.
NORM, DISTANCE = "mean L2 norm", "mean k-NN L2 distance (k=3)"


def buckets_for(ranks: np.ndarray) -> tuple[tuple[int, int | None], ...]:
    """BERT-flow's rank buckets when more than 5,000 words are ranked, else four equal ones over the ranked words."""
    ranked = int((np.asarray(ranks) >= 0).sum())
    if ranked > BERT_FLOW_BUCKETS[-1][0]:
        return BERT_FLOW_BUCKETS
    edges = np.linspace(0, ranked, 5).round().astype(int)
    return tuple((int(low), int(high) if i < 3 else None) for i, (low, high) in enumerate(zip(edges[:-1], edges[1:])))


def frequency_table(vectors: np.ndarray, ranks: np.ndarray, queries_per_bucket: int | None = 500,
                    seed: int = 0) -> pd.DataFrame:
    """Mean norm and mean distance to the 3 nearest neighbours per frequency bucket (columns, most frequent first)."""
    table = frequency_bucket_table(vectors, ranks, buckets_for(ranks), k_values=(3,),
                                   queries_per_bucket=queries_per_bucket, seed=seed)
    return table.loc[["tokens", NORM, DISTANCE]]


def frequency_findings(table: pd.DataFrame) -> dict[str, bool]:
    """BERT-flow's two observations, read off the first (most frequent) and last (rarest) bucket of ``table``."""
    first, last = table.columns[0], table.columns[-1]
    return {"rare words lie farther from the origin": bool(table.loc[NORM, last] > table.loc[NORM, first]),
            "rare words are sparser (farther from their neighbours)": bool(table.loc[DISTANCE, last] > table.loc[DISTANCE, first])}
