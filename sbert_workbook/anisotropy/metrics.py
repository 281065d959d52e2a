"""Measuring the anisotropy of an embedding space (``02_anisotropy.ipynb``).

Pure functions on (n, dim) arrays or tensors: cosines of random pairs (the "cone"; their
exact mean is :func:`~sbert_workbook.evaluation.similarity.mean_cosine`), k nearest neighbours
in chunks and the BERT-flow frequency-bucket table. The singular spectrum and Wang & Isola's
alignment and uniformity live in :mod:`sbert_workbook.evaluation.geometry` (later lessons read
them too). The 2-D/3-D pictures use
:func:`~sbert_workbook.evaluation.projection.project`. One function,
:func:`layer_views`, runs an encoder to collect per-layer vectors for them.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import torch

from sbert_workbook.encoding.views import layer_vectors
from sbert_workbook.evaluation.arrays import as_tensor
from sbert_workbook.evaluation.provenance import inherit_provenance
from sbert_workbook.evaluation.similarity import mean_cosine
from sbert_workbook.evaluation.uncertainty import CONFIDENCE, Interval
from sbert_workbook.published import BERT_FLOW_TABLE1, BERT_FLOW_TABLE1_SOURCE

#: BERT-flow's frequency-rank buckets [0,100), [100,500), [500,5K), [5K, end).
BERT_FLOW_BUCKETS: tuple[tuple[int, int | None], ...] = ((0, 100), (100, 500), (500, 5000), (5000, None))
#: The published rows shown beside the student's: BERT-flow Table 1 (bert-base-uncased), from :mod:`sbert_workbook.published`.
BERT_FLOW_REFERENCE = {metric: BERT_FLOW_TABLE1[metric] for metric in ("mean L2 norm", "mean k-NN L2 distance (k=3)")}
BERT_FLOW_SOURCE = BERT_FLOW_TABLE1_SOURCE


def random_pair_cosines(embeddings, n_pairs: int = 2000, seed: int = 0) -> np.ndarray:
    """cos(x_i, x_j) for ``n_pairs`` random pairs with i ≠ j (a histogram of the cone)."""
    x = torch.nn.functional.normalize(as_tensor(embeddings, min_rows=2), dim=1)
    rng = np.random.default_rng(seed)
    i = rng.integers(0, len(x), n_pairs)
    j = (i + rng.integers(1, len(x), n_pairs)) % len(x)  # never equal to i
    return (x[i] * x[j]).sum(dim=1).numpy()


def mean_cosine_intervals(vectors: Mapping[str, np.ndarray], compared: Sequence[tuple[str, str]],
                          resamples: int = 1000, seed: int = 0, confidence: float = CONFIDENCE) -> dict[str, Interval]:
    """``{"a − b": Interval}``: mean cosine of view a minus view b, with a paired bootstrap over the sentences.

    ``vectors`` maps each view to its (n, dim) vectors of the same n sentences. Each resample draws n sentences with
    replacement, the same draw for every view, and takes the mean cosine over pairs of draws of different sentences
    (:func:`resampled_mean_cosine`); the interval is the 2.5 and 97.5 percentiles of the resampled differences.
    """
    sizes = {len(v) for v in vectors.values()}
    if len(sizes) != 1:
        raise ValueError(f"Every view needs vectors of the same sentences; got {sorted(sizes)} rows.")
    n = sizes.pop()
    weights = np.random.default_rng(seed).multinomial(n, np.full(n, 1 / n), size=resamples).astype(np.float64)
    needed = dict.fromkeys(view for pair in compared for view in pair)
    resampled = {view: resampled_mean_cosine(vectors[view], weights) for view in needed}
    tail = (1 - confidence) / 2
    intervals = {}
    for a, b in compared:
        low, high = np.quantile(resampled[a] - resampled[b], [tail, 1 - tail])
        intervals[f"{a} − {b}"] = Interval(mean_cosine(vectors[a]) - mean_cosine(vectors[b]), float(low), float(high),
                                           f"paired bootstrap over {n} sentences, {resamples} resamples")
    return intervals


def resampled_mean_cosine(vectors, weights: np.ndarray) -> np.ndarray:
    """Mean cos(x_i, x_j) over pairs of draws of different sentences, one value per row of ``weights`` (how often each
    sentence was drawn): (‖Σ_i w_i x̂_i‖² − Σ_i w_i²) / ((Σ_i w_i)² − Σ_i w_i²)."""
    unit = torch.nn.functional.normalize(as_tensor(vectors, torch.float64, min_rows=2), dim=1).numpy()
    weights = np.atleast_2d(np.asarray(weights, dtype=np.float64))
    sums, same = weights @ unit, (weights ** 2).sum(axis=1)
    return ((sums ** 2).sum(axis=1) - same) / (weights.sum(axis=1) ** 2 - same)


def knn(embeddings, k: int, queries: Sequence[int] | np.ndarray | None = None, chunk_size: int = 1024):
    """L2 distances and indices of each query row's k nearest *other* rows, nearest first.

    ``queries`` are row indices (all rows by default). Rows are compared in chunks of
    ``chunk_size`` queries, so memory is chunk_size × n, never n × n.
    """
    x = as_tensor(embeddings, torch.float32, min_rows=2)
    queries = torch.arange(len(x)) if queries is None else torch.as_tensor(np.asarray(queries), dtype=torch.long)
    if not 1 <= k < len(x):
        raise ValueError(f"k={k} needs 1 ≤ k < number of vectors ({len(x)}).")
    squared_norms = x.square().sum(dim=1)
    distances, indices = [], []
    for start in range(0, len(queries), chunk_size):
        rows = queries[start:start + chunk_size]
        d2 = squared_norms[rows, None] - 2 * x[rows] @ x.T + squared_norms[None, :]
        d2[torch.arange(len(rows)), rows] = float("inf")  # a word is not its own neighbour
        values, where = torch.topk(d2, k, dim=1, largest=False)
        distances.append(values.clamp(min=0).sqrt())
        indices.append(where)
    return torch.cat(distances).numpy(), torch.cat(indices).numpy()


def bucket_of(ranks: np.ndarray, buckets=BERT_FLOW_BUCKETS) -> np.ndarray:
    """Index of each rank's bucket (-1 for unranked tokens or ranks beyond the last bucket)."""
    ranks = np.asarray(ranks)
    out = np.full(len(ranks), -1)
    for b, (low, high) in enumerate(buckets):
        out[(ranks >= low) & (ranks < (np.inf if high is None else high))] = b
    return out


def bucket_label(bucket: tuple[int, int | None]) -> str:
    """'[500, 5K)' style names, as in the BERT-flow table."""
    def short(n):
        return "…" if n is None else (f"{n // 1000}K" if n >= 1000 and n % 1000 == 0 else str(n))
    return f"[{short(bucket[0])}, {short(bucket[1])})"


def frequency_bucket_table(embeddings, ranks, buckets=BERT_FLOW_BUCKETS, k_values: Sequence[int] = (3, 5, 7),
                           queries_per_bucket: int | None = None, seed: int = 0, chunk_size: int = 1024) -> pd.DataFrame:
    """BERT-flow's Table 1: mean L2 norm, mean k-NN L2 distance and k-NN dot product per rank bucket.

    Only ranked tokens (rank ≥ 0) take part, as queries and as neighbours. The k-NN
    dot product is the mean x·y over the same k nearest (by L2) neighbours y. With
    ``queries_per_bucket`` the k-NN means use that many random tokens per bucket (the
    norms always use all of them).
    """
    ranks = np.asarray(ranks)
    x = as_tensor(embeddings, torch.float32, min_rows=2)
    if len(ranks) != len(x):
        raise ValueError(f"{len(ranks)} ranks for {len(x)} vectors: give one rank per row (-1 = leave out).")
    kept = np.flatnonzero(ranks >= 0)
    x, buckets_of_rows = x[kept], bucket_of(ranks[kept], buckets)
    rng = np.random.default_rng(seed)
    columns = {}
    for b, bucket in enumerate(buckets):
        members = np.flatnonzero(buckets_of_rows == b)
        if len(members) == 0:
            raise ValueError(f"No ranked token falls in bucket {bucket_label(bucket)}; use fewer or smaller buckets.")
        queries = members if queries_per_bucket is None or queries_per_bucket >= len(members) else \
            np.sort(rng.choice(members, queries_per_bucket, replace=False))
        distances, neighbours = knn(x, max(k_values), queries, chunk_size)
        dots = (x[queries, None, :] * x[neighbours]).sum(dim=-1).numpy()
        column = {"tokens": len(members), "mean L2 norm": float(x[members].norm(dim=1).mean())}
        column.update({f"mean k-NN L2 distance (k={k})": float(distances[:, :k].mean()) for k in k_values})
        column.update({f"mean k-NN dot product (k={k})": float(dots[:, :k].mean()) for k in k_values})
        columns[bucket_label(bucket)] = column
    table = pd.DataFrame(columns)
    table.attrs["provenance"] = {"queries": "all ranked tokens" if queries_per_bucket is None else
                                 f"at most {queries_per_bucket} random tokens per bucket (seed {seed})",
                                 "neighbours": f"all {len(kept)} ranked tokens"}
    return table


def reference_beside(table: pd.DataFrame, reference=BERT_FLOW_REFERENCE) -> pd.DataFrame:
    """The student's rows next to the published bert-base-uncased numbers, bucket by bucket."""
    rows = {}
    for metric, published in reference.items():
        rows[f"{metric} — yours"] = table.loc[metric].astype(float).to_numpy()
        rows[f"{metric} — bert-base-uncased, published"] = np.asarray(published, dtype=float)
    beside = pd.DataFrame(rows, index=table.columns).T
    return inherit_provenance(beside, table, {"published rows": BERT_FLOW_SOURCE + ", quoted, not re-run"})


def layer_views(encoder, sentences: Sequence[str], batch_size: int = 32, max_tokens: int = 5000, seed: int = 0) -> dict:
    """Per-layer vectors from one pass: {'mean': [...], 'cls': [...], 'tokens': [...]}, one (n, dim) array per layer.

    'mean' and 'cls' are sentence vectors; 'tokens' holds at most ``max_tokens`` random
    contextual token vectors ([CLS] and [SEP] left out), the same tokens in every layer, drawn
    from all the sentences' tokens in input order. The encoding is
    :func:`sbert_workbook.encoding.views.layer_vectors`'s with ``choose_tokens``: each batch keeps only its drawn
    tokens, so memory never holds every token of every layer (with bert-base, 13 layers × 768 floats a token).
    """
    def draw(total: int) -> np.ndarray:
        return np.sort(np.random.default_rng(seed).permutation(total)[:max_tokens])

    vectors = layer_vectors(encoder, sentences, ("mean", "cls", "tokens"), batch_size, progress=False, choose_tokens=draw)
    return {kind: list(vectors[kind].numpy()) for kind in ("mean", "cls", "tokens")}


def layerwise_anisotropy(views: dict) -> pd.DataFrame:
    """Mean random-pair cosine for every layer (rows) and view (columns) of :func:`layer_views`."""
    table = pd.DataFrame({name: [mean_cosine(layer) for layer in layers] for name, layers in views.items()})
    table.index.name = "layer (0 = embeddings)"
    return table
