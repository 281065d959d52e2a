"""Lexical overlap vs similarity: do embeddings just count shared words? (``05_bert_flow.ipynb``)

BERT-flow's Table 6 (``published.BERT_FLOW_TABLE6``) correlates the edit distance between the
two sentences of each STS-B dev pair with the gold similarity, with raw BERT cosine and with flow
cosine: raw BERT leans on surface overlap far more than people do, the flow less. Its second column
correlates each similarity with the gold scores (the STS score itself). Figure 2 plots edit distance
against each similarity, the pairs within :data:`CLOSE_EDIT_DISTANCE` edits highlighted
(:func:`~sbert_workbook.calibration.plots.edit_distance_figure`).
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from sbert_workbook.published import BERT_FLOW_FIGURE2_CLOSE_EDIT_DISTANCE

#: BERT-flow Figure 2 highlights the pairs at most this many edits apart (``published``).
CLOSE_EDIT_DISTANCE = BERT_FLOW_FIGURE2_CLOSE_EDIT_DISTANCE

#: Pairs that differ by a word or two but mean the opposite, and one paraphrase with little overlap.
OPPOSITE_PAIRS = (
    ("I like this restaurant", "I don't like this restaurant"),
    ("The movie was good", "The movie was not good"),
    ("He passed the exam", "He failed the exam"),
    ("The door is open", "The door is closed"),
    ("Prices went up this year", "Prices went down this year"),
)
PARAPHRASE_PAIRS = (
    ("I like this restaurant", "The food at this place is great and I enjoy eating here"),
    ("He passed the exam", "The test went well for him and he got through"),
)


def tokens(sentence: str, unit: str = "word") -> list[str]:
    """Lower-cased words (letters, digits, apostrophes) or characters of ``sentence``."""
    if unit == "char":
        return list(sentence.lower())
    if unit != "word":
        raise ValueError(f"Unknown unit {unit!r}: use 'word' or 'char'.")
    return re.findall(r"[\w']+", sentence.lower())


def edit_distance(a: str, b: str, unit: str = "word") -> int:
    """Levenshtein distance: the fewest insertions, deletions and substitutions of ``unit``s turning a into b."""
    x, y = tokens(a, unit), tokens(b, unit)
    previous = list(range(len(y) + 1))
    for i, xi in enumerate(x, start=1):
        current = [i]
        for j, yj in enumerate(y, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (xi != yj)))
        previous = current
    return previous[-1]


def edit_distances(sentences1: Sequence[str], sentences2: Sequence[str], unit: str = "word") -> np.ndarray:
    """Edit distance of every pair (sentences1[i], sentences2[i])."""
    if len(sentences1) != len(sentences2):
        raise ValueError(f"Need as many first as second sentences, got {len(sentences1)} and {len(sentences2)}.")
    return np.array([edit_distance(a, b, unit) for a, b in zip(sentences1, sentences2)], dtype=float)


def lexical_correlations(distances, gold, similarities: Mapping[str, Sequence[float]]) -> pd.DataFrame:
    """Table 6's two columns, Spearman × 100: each similarity with the edit distance, and with the gold scores.

    The more negative the first, the more a similarity rises with word overlap; the second is the
    STS score itself (100 for the gold row).
    """
    rows = [{"similarity": "gold", "spearman_with_edit_distance": 100 * spearmanr(distances, gold).statistic,
             "spearman_with_gold": 100.0}]
    for name, values in similarities.items():
        if len(values) != len(distances):
            raise ValueError(f"{name!r} has {len(values)} similarities for {len(distances)} pairs.")
        rows.append({"similarity": name, "spearman_with_edit_distance": 100 * spearmanr(distances, values).statistic,
                     "spearman_with_gold": 100 * spearmanr(gold, values).statistic})
    return pd.DataFrame(rows).set_index("similarity")


def close_pairs(distances, max_distance: int = CLOSE_EDIT_DISTANCE) -> np.ndarray:
    """True for each pair at most ``max_distance`` edits apart (Figure 2's highlighted, lexically similar pairs)."""
    return np.asarray(distances, dtype=float) <= max_distance
