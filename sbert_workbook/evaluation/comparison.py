"""One table that compares ways of turning sentences into vectors on STS test sets (``05_bert_flow.ipynb``).

A row is any method that turns sentences into vectors: an encoder (a
:class:`~sbert_workbook.encoding.contract.SentenceEncoder`, its mean pooling), an embed function
``sentences -> vectors`` (a trained model, a calibrator fitted once on NLI sentences over frozen
views), or ``{set name: embed function}`` when the method is fitted on each test set's own
sentences ("target"). Every cell is Spearman × 100 of the similarity of each pair's two vectors
against the gold scores, aggregated as asked; ``avg`` is the mean over the sets. The calibrators'
rows are built by :mod:`sbert_workbook.calibration.compare`. :func:`ranked_neighbours` ranks such rows, each
with its paired-bootstrap interval to the next one down (``03_pooling_and_sts.ipynb``).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from sbert_workbook.data.records import StsData
from sbert_workbook.encoding.contract import as_embed_function
from sbert_workbook.evaluation.similarity import SIMILARITIES
from sbert_workbook.evaluation.sts import AGGREGATION_MEANING, aggregate
from sbert_workbook.evaluation.uncertainty import RESAMPLES, paired_bootstrap, spearman_rows

#: A row of :func:`comparison_table`: one method for every set, or one per set name.
Row = Callable | Mapping[str, Callable]


def row_for(method: Row, set_name: str) -> Callable:
    """The embed function ``method`` uses on the test set ``set_name``."""
    if isinstance(method, Mapping):
        if set_name not in method:
            raise KeyError(f"This row has methods for {', '.join(method)} but not for the test set {set_name!r}.")
        method = method[set_name]
    return as_embed_function(method)


def comparison_table(rows: Mapping[str, Row], test_sets: Mapping[str, StsData], aggregation: str = "wmean",
                     similarity: str = "cosine", description: str = "comparing") -> pd.DataFrame:
    """Spearman × 100 of ``similarity``: one row per method, one column per test set, plus ``avg``.

    Each set's two sentence columns are embedded separately by the row's method (calibrators fit
    lazily, in row order). ``attrs['provenance']`` gives the similarity, aggregation and split; the
    caller adds the model and pooling. A bar named ``description`` counts the rows.
    """
    if similarity not in SIMILARITIES:
        raise ValueError(f"Unknown similarity {similarity!r}; choose one of {', '.join(SIMILARITIES)}.")
    if aggregation not in AGGREGATION_MEANING:
        raise ValueError(f"Unknown aggregation {aggregation!r}: use {' or '.join(AGGREGATION_MEANING)}.")
    if not rows or not test_sets:
        raise ValueError("Give at least one row (a method) and one test set to compare them on.")
    scores = {}
    for label, method in tqdm(rows.items(), desc=description, unit="method", total=len(rows)):
        scores[label] = {}
        for name, data in test_sets.items():
            embed = row_for(method, name)
            u, v = embed(data.sentences1), embed(data.sentences2)
            scores[label][name] = aggregate(SIMILARITIES[similarity](u, v), data, aggregation)["spearman"]
    table = pd.DataFrame.from_dict(scores, orient="index")
    table["avg"] = table.mean(axis=1)
    table.attrs["provenance"] = {
        "similarity": similarity,
        "aggregation": f"{aggregation}: {AGGREGATION_MEANING[aggregation]}",
        "split": "test (" + ", ".join(f"{name} {len(data)} pairs" for name, data in test_sets.items()) + ")",
    }
    return table


def ranked_neighbours(similarities: Mapping[str, Mapping[str, np.ndarray]], gold: Mapping[str, np.ndarray],
                      resamples: int = RESAMPLES, seed: int = 0):
    """Rows (``{row: {set: similarities}}``) ranked by their mean Spearman over the sets in ``gold``, best first, each
    with the paired-bootstrap interval of its difference to the next row down and the verdict; a DataFrame whose
    ``attrs['intervals']`` holds each gap's :class:`Interval` as ``{"row − next row": Interval}`` (to draw them)."""
    means = {row: float(np.mean([spearman_rows(np.asarray(values[name], dtype=np.float64),
                                               np.asarray(gold[name], dtype=np.float64)) for name in gold]))
             for row, values in similarities.items()}
    ranked = sorted(means, key=lambda row: -means[row])
    rows, intervals = [], {}
    for row, below in zip(ranked, [*ranked[1:], None]):
        interval = None if below is None else paired_bootstrap(gold, similarities[row], similarities[below], resamples, seed)
        if interval is not None:
            intervals[f"{row} − {below}"] = interval
        rows.append({"row": row, "score": means[row], "next below": below or "",
                     "difference": None if interval is None else interval.difference,
                     "95 % interval": "" if interval is None else f"[{interval.low:+.2f}, {interval.high:+.2f}]",
                     "verdict": "" if interval is None else interval.verdict})
    table = pd.DataFrame(rows).set_index("row")
    table.attrs["intervals"] = intervals
    return table
