"""The protocol choices behind a calibration table, each measured (``05_bert_flow.ipynb``, §7).

Three choices move a seven-set table without changing the method: fitting on the test sentences
themselves (*transductive* "target" fitting), choosing a hyper-parameter on labelled dev pairs (NATSV's
k), and aggregating a multi-subset set's pairs as ``all`` or ``wmean``. :func:`seven_set_scores` scores one
calibrator-per-set choice under either aggregation; :func:`aggregation_gap` gives ``all`` − ``wmean`` per set;
:func:`tie_or_gap` calls a difference smaller than a seed spread a tie.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from sbert_workbook.evaluation.similarity import cosine_similarity
from sbert_workbook.evaluation.sts import aggregate
from sbert_workbook.evaluation.ties import is_tie

#: wmean needs a correlation per subset: a subset with fewer pairs than this gets none (quick mode's samples).
MIN_PAIRS_PER_SUBSET = 3


def seven_set_scores(embed: Callable[[Sequence[str]], object], test_sets: Mapping, calibrator_for: Callable[[str], object],
                     aggregation: str = "all") -> dict[str, float]:
    """Spearman × 100 of cosine per set, each set's pairs mapped by ``calibrator_for(set name)`` (None: raw).

    ``embed(sentences)`` gives the frozen embeddings (e.g. ``lambda s: bank.get(view, s)``). A set whose
    subsets are too small for ``wmean`` (fewer than :data:`MIN_PAIRS_PER_SUBSET` pairs) scores NaN under it.
    """
    scores = {}
    for name, data in test_sets.items():
        if aggregation == "wmean" and not wmean_is_defined(data):
            scores[name] = float("nan")
            continue
        u, v = embed(data.sentences1), embed(data.sentences2)
        calibrator = calibrator_for(name)
        if calibrator is not None:
            u, v = calibrator.transform(u), calibrator.transform(v)
        scores[name] = aggregate(cosine_similarity(u, v), data, aggregation)["spearman"]
    return scores


def wmean_is_defined(data) -> bool:
    """Whether every subset of ``data`` has at least :data:`MIN_PAIRS_PER_SUBSET` pairs (a correlation each)."""
    subsets = np.asarray(data.subsets)
    return all((subsets == subset).sum() >= MIN_PAIRS_PER_SUBSET for subset in data.subset_names())


def aggregation_gap(embed, test_sets: Mapping, calibrator_for) -> dict[str, float]:
    """``all`` − ``wmean`` per set (Spearman × 100 points): 0 on single-subset sets, NaN where wmean is undefined."""
    pooled = seven_set_scores(embed, test_sets, calibrator_for, "all")
    weighted = seven_set_scores(embed, test_sets, calibrator_for, "wmean")
    return {name: pooled[name] - weighted[name] for name in test_sets}


def tie_or_gap(difference: float, spread: float) -> str:
    """``'tie'`` when |difference| is below ``spread`` (a seed spread), else the signed difference; NaN says 'n/a'."""
    if spread <= 0:
        raise ValueError(f"A seed spread must be positive, got {spread}.")
    if np.isnan(difference):
        return "n/a"
    return "tie" if is_tie(difference, spread) else f"{difference:+.2f}"  # the one tie rule: evaluation/ties.py
