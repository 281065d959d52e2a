"""References of notebook 01's checks that would give the answer away if typed into the check cell
(``01_mlm_to_similarity.ipynb``)."""
from __future__ import annotations

import numpy as np

from sbert_workbook.mlm import toy_language


def ex01_2(language):
    """The highest PMI "fox" reaches between any two visible words, by forward-backward over all 22 × 22 contexts."""
    every_context = [[a, toy_language.HIDDEN, b] for a in range(language.vocab_size) for b in range(language.vocab_size)]
    return language.pmi(every_context)[:, 1, language.index("fox")].max()


def ex01_5(fit):
    """Pearson's r of the raw logits and PMI + log p(x), from the centred cross-product (the definition, not a library)."""
    x, y = (np.asarray(fit[column], dtype=float) for column in ("logit", "pmi_plus_log_p"))
    x, y = x - x.mean(), y - y.mean()
    return float((x * y).sum() / np.sqrt((x * x).sum() * (y * y).sum()))
