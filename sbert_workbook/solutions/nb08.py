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
        [reduced.table.index[0]] + [name for name in reduced.table.index if name.startswith("first k dimensions (k = ")]]),
})
def ex08_2(reduced) -> np.ndarray:
    """(STS before − STS after) / log2(bytes before / bytes after), for each step down the PCA-k rows."""
    return _slopes(_pca_rows(reduced))


def _slopes(rows) -> np.ndarray:
    sts, size = rows["STS avg"].to_numpy(), rows["bytes per vector"].to_numpy(dtype=float)
    return (sts[:-1] - sts[1:]) / np.log2(size[:-1] / size[1:])


DISCUSSION = {
    "ex08_3": "Work it out from the run rather than from a rule. A hundred million vectors at float32 take 4d bytes each "
              "(§1's table times 10⁸), which is memory a single machine may not have; binary keeps d/8 bytes, and §2's "
              "interval says what it costs this model on STS and recall. So a natural start is binary in memory, searched "
              "by Hamming distance, with int8 (or float32 on disk) kept beside it to rescore a few times k candidates "
              "with the float query: §2 shows whether rescoring wins recall back on the same queries, and §5.1 shows "
              "how the rescoring multiplier trades time for recall. A thousand queries a second leaves about a "
              "millisecond per query on one core, so exact search, whose time grows with the corpus (§5.1's sweep), "
              "stops being an option long before 10⁸; an approximate index (HNSW, or an inverted-file index over the "
              "binary or int8 codes) keeps the walk near the logarithm of the corpus. What changes most at a thousand "
              "times the corpus is exact search's milliseconds per query (linear in the corpus), then the memory; the "
              "encoder's time per query does not change at all, which is why §5.2 prices it beside the search.",
}
