"""The protocol choices behind a calibration table, each measured (``05_bert_flow.ipynb``, §7).

Three choices move a seven-set table without changing the method: fitting on the test sentences
themselves (*transductive* "target" fitting), choosing a hyper-parameter on labelled dev pairs (NATSV's
k), and aggregating a multi-subset set's pairs as ``all`` or ``wmean``. :func:`seven_set_scores` scores one
calibrator-per-set choice under either aggregation; :func:`aggregation_gap` gives ``all`` − ``wmean`` per set;
:func:`difference_interval` gives the 95 % paired-bootstrap interval of two choices' difference on the same pairs.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from sbert_workbook.evaluation.similarity import cosine_similarity
from sbert_workbook.evaluation.sts import aggregate
from sbert_workbook.evaluation import uncertainty

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
        scores[name] = aggregate(pair_similarities(embed, data, calibrator_for(name)), data, aggregation)["spearman"]
    return scores


def pair_similarities(embed: Callable[[Sequence[str]], object], data, calibrator=None) -> np.ndarray:
    """Cosine of each pair of ``data`` after ``calibrator`` (None: raw)."""
    u, v = embed(data.sentences1), embed(data.sentences2)
    if calibrator is not None:
        u, v = calibrator.transform(u), calibrator.transform(v)
    return cosine_similarity(u, v)


def difference_interval(embed, test_sets: Mapping, calibrator_a_for: Callable[[str], object],
                        calibrator_b_for: Callable[[str], object], aggregation: str = "all") -> uncertainty.Interval:
    """Mean over the sets of Spearman(a) − Spearman(b), with its 95 % paired-bootstrap interval over the test pairs
    (``wmean``: each subset resampled on its own and weighted by its size; sets where it is undefined are left out)."""
    if aggregation not in ("all", "wmean"):
        raise ValueError(f"Unknown aggregation {aggregation!r}: use 'all' or 'wmean'.")
    sets = {name: data for name, data in test_sets.items() if aggregation == "all" or wmean_is_defined(data)}
    a = {name: pair_similarities(embed, data, calibrator_a_for(name)) for name, data in sets.items()}
    b = {name: pair_similarities(embed, data, calibrator_b_for(name)) for name, data in sets.items()}
    return similarities_difference_interval(test_sets, a, b, aggregation)


def similarities_difference_interval(test_sets: Mapping, similarities_a: Mapping, similarities_b: Mapping,
                                     aggregation: str = "all") -> uncertainty.Interval:
    """As :func:`difference_interval`, from each set's pair similarities computed elsewhere (``{set name: array}``,
    e.g. two different word-vector encoders in ``05``'s §11); sets where ``wmean`` is undefined are left out."""
    if aggregation not in ("all", "wmean"):
        raise ValueError(f"Unknown aggregation {aggregation!r}: use 'all' or 'wmean'.")
    sets = {name: data for name, data in test_sets.items() if aggregation == "all" or wmean_is_defined(data)}
    if not sets:
        raise ValueError("No test set has enough pairs in every subset for wmean: use 'all', or more pairs per set.")
    gold = {name: data.scores for name, data in sets.items()}
    a, b = ({name: values[name] for name in sets} for values in (similarities_a, similarities_b))
    if aggregation == "all":
        return uncertainty.paired_bootstrap(gold, a, b)
    weights, gold, a, b = uncertainty.wmean_strata(gold, {name: data.subsets for name, data in sets.items()}, a, b)
    return uncertainty.paired_bootstrap(gold, a, b, weights=weights)


def aggregation_gap_interval(embed, test_sets: Mapping, calibrator_for: Callable[[str], object]) -> uncertainty.Interval:
    """``all`` − ``wmean`` of the same similarities, averaged over ``test_sets`` where wmean is defined, with its interval."""
    sets = {name: data for name, data in test_sets.items() if wmean_is_defined(data)}
    if not sets:
        raise ValueError("No test set has enough pairs in every subset for wmean: take more pairs per set.")
    return uncertainty.aggregation_gap_interval(
        {name: data.scores for name, data in sets.items()},
        {name: pair_similarities(embed, data, calibrator_for(name)) for name, data in sets.items()},
        {name: data.subsets for name, data in sets.items()})


def wmean_is_defined(data) -> bool:
    """Whether every subset of ``data`` has at least :data:`MIN_PAIRS_PER_SUBSET` pairs (a correlation each)."""
    subsets = np.asarray(data.subsets)
    return all((subsets == subset).sum() >= MIN_PAIRS_PER_SUBSET for subset in data.subset_names())


def aggregation_gap(embed, test_sets: Mapping, calibrator_for) -> dict[str, float]:
    """``all`` − ``wmean`` per set (Spearman × 100 points): 0 on single-subset sets, NaN where wmean is undefined."""
    pooled = seven_set_scores(embed, test_sets, calibrator_for, "all")
    weighted = seven_set_scores(embed, test_sets, calibrator_for, "wmean")
    return {name: pooled[name] - weighted[name] for name in test_sets}

