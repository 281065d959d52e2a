"""Is a difference bigger than the papers' seed spread? A tie if not (``03_pooling_and_sts.ipynb``).

Retraining the same model with another random seed moves its STS score: SBERT Table 2 prints spreads
over 10 seeds, BERT-flow Appendix C over 5 (``published.SEED_SPREADS``). A difference between two rows
smaller than that spread is called a **tie**: the workbook cannot tell the rows apart. On a sample of a
few dozen pairs (quick mode) the sampling noise is larger still, so a "gap" there is a weak claim too.
"""
from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from sbert_workbook.published import SEED_SPREADS


def seed_spreads() -> pd.DataFrame:
    """The largest spread over seeds each paper prints: where, which row, and the ± (Spearman × 100)."""
    rows = [{"where": where, "row": table.largest_spread()[0], "spread": table.largest_spread()[1]}
            for where, table in SEED_SPREADS.items()]
    return pd.DataFrame(rows).set_index("where")


def largest_seed_spread() -> float:
    """The largest of the papers' spreads over seeds (Spearman × 100): the threshold for a tie."""
    return float(seed_spreads()["spread"].max())


def is_tie(difference: float, spread: float) -> bool:
    """True when ``|difference|`` is smaller than ``spread``: the two rows cannot be told apart."""
    if spread < 0:
        raise ValueError(f"A spread over seeds is never negative; got {spread}.")
    return abs(difference) < spread


def verdict(difference: float, spread: float) -> str:
    """'tie' or 'apart', with the difference and the spread it was held against, e.g. 'tie (|+0.42| < 1.76)'."""
    if is_tie(difference, spread):
        return f"tie (|{difference:+.2f}| < {spread:.2f})"
    return f"apart (|{difference:+.2f}| ≥ {spread:.2f})"


def neighbour_verdicts(scores: Mapping[str, float], spread: float) -> pd.DataFrame:
    """Rows ranked best first; each with its distance to the next row down and whether that is a tie.

    ``scores`` maps a row (a pooling, a model) to its score; the last row has no neighbour below it (blank).
    """
    ranked = sorted(scores.items(), key=lambda item: -item[1])
    rows = []
    for (name, value), below in zip(ranked, [*ranked[1:], None]):
        difference = None if below is None else value - below[1]
        rows.append({"row": name, "score": value, "next below": "" if below is None else below[0],
                     "difference": difference,
                     "verdict": "" if below is None else ("tie" if is_tie(difference, spread) else "apart")})
    return pd.DataFrame(rows).set_index("row")
