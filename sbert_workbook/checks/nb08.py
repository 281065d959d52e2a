"""References of notebook 08's checks that would give the answer away if typed into the check cell
(``08_what_an_embedding_costs``)."""
from __future__ import annotations

import numpy as np


def ex08_1(lesson):
    """A binary vector's bytes: one bit a dimension, whole bytes (the last one partly used)."""
    bits = lesson.dimensions
    return bits // 8 + (1 if bits % 8 else 0)


def ex08_2(reduced):
    """STS points lost per halving of bytes between neighbouring points, float32 then PCA-k from the largest k down,
    read from the run's table row by row."""
    table = reduced.table
    rows = [table.index[0]] + sorted((name for name in table.index if name.startswith("PCA-k")),
                                     key=lambda name: -table.loc[name, "bytes per vector"])
    lost = []
    for before, after in zip(rows, rows[1:]):
        halvings = np.log(table.loc[before, "bytes per vector"] / table.loc[after, "bytes per vector"]) / np.log(2)
        lost.append((table.loc[before, "STS avg"] - table.loc[after, "STS avg"]) / halvings)
    return np.array(lost)
