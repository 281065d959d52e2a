"""Reference solutions for ``08_what_an_embedding_costs.ipynb`` (see :mod:`sbert_workbook.teaching.exercises` for the
pattern)."""
from __future__ import annotations

import math

import numpy as np

from sbert_workbook.teaching.exercises import solution


@solution(wrong={
    "one byte a dimension (int8's size, not binary's)": lambda lesson: lesson.dimensions,
    "float32's bytes": lambda lesson: 4 * lesson.dimensions,
    "bits, not bytes": lambda lesson: 8 * math.ceil(lesson.dimensions / 8),
})
def ex08_1(lesson) -> int:
    """d bits, eight to a byte."""
    return math.ceil(lesson.dimensions / 8)


def _pca_rows(reduced):
    table = reduced.table
    return table.loc[[table.index[0]] + [name for name in table.index if name.startswith("PCA-k")]]


@solution(wrong={
    "points lost per byte saved, not per halving": lambda reduced: (
        -np.diff(_pca_rows(reduced)["STS avg"].to_numpy()) / -np.diff(_pca_rows(reduced)["bytes per vector"].to_numpy())),
    "the sign turned: points gained per halving": lambda reduced: -ex08_2(reduced),
    "first-k's rows instead of PCA-k's": lambda reduced: _slopes(reduced.table.loc[
        [reduced.table.index[0]] + [name for name in reduced.table.index if name.startswith("first k")]]),
})
def ex08_2(reduced) -> np.ndarray:
    """(STS before − STS after) / log2(bytes before / bytes after), for each step down the PCA-k rows."""
    return _slopes(_pca_rows(reduced))


def _slopes(rows) -> np.ndarray:
    sts, size = rows["STS avg"].to_numpy(), rows["bytes per vector"].to_numpy(dtype=float)
    return (sts[:-1] - sts[1:]) / np.log2(size[:-1] / size[1:])
