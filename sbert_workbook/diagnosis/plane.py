"""Alignment and uniformity: the model's own point on 06's plane, and where each fix moves it (``07_your_model``, §5).

Wang & Isola (2020), as SimCSE §5 uses them: ℓ_align = E‖f̂(x) − f̂(x⁺)‖² over positive pairs (STS-B test pairs scored
above 4, SimCSE's footnote 3) and ℓ_uniform = log E exp(−2‖f̂(x) − f̂(y)‖²) over all sentences, on unit vectors; lower
is better for both (:mod:`sbert_workbook.evaluation.geometry`). 06 draws its runs on this plane
(:func:`~sbert_workbook.training.contrastive_plots.alignment_uniformity_plane_figure`); the diagnosis adds the model
and every rung of the ladder. SimCSE §7 reports that post-processing such as whitening and the flow "greatly improve
uniformity but also suffer a degeneration in alignment": :func:`plane_moves` measures each rung's move on both axes
with 06's paired-bootstrap intervals (:mod:`sbert_workbook.evaluation.geometry_intervals`), and :func:`move_words`
reads them, so whether that holds for this model is computed, never typed.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping

import pandas as pd

from sbert_workbook.data.records import StsData
from sbert_workbook.diagnosis.ladder import NO_FIX, PairVectors
from sbert_workbook.evaluation.geometry import alignment, uniformity
from sbert_workbook.evaluation.geometry_intervals import alignment_difference, uniformity_difference
from sbert_workbook.evaluation.uncertainty import Interval
from sbert_workbook.training.isotropy import positive_pairs


class TooFewPositivesError(ValueError):
    """The sample holds fewer than 2 positive pairs, so alignment cannot be measured; the message says what to do."""


def plane_points(pairs: PairVectors, positives_from: StsData, fixes: Mapping[str, Callable],
                 uniformity_sentences: int | None = 2000) -> pd.DataFrame:
    """ℓ_align and ℓ_uniform of the model's vectors (row ``no fix``) and of each fixed version (one row per fix)."""
    try:
        first, second = positive_pairs(positives_from)
    except ValueError as why:
        raise TooFewPositivesError(f"alignment needs at least 2 positive pairs: {why}") from None
    sentences = pairs.corpus[:uniformity_sentences]
    rows = {}
    for name, fix in {NO_FIX: None, **fixes}.items():
        rows[name] = {"alignment": alignment(pairs.of(first, fix), pairs.of(second, fix)),
                      "uniformity": uniformity(pairs.of(sentences, fix))}
    table = pd.DataFrame(rows).T
    table.attrs["positives"] = f"{len(first)} {positives_from.name} test pairs scored above 4"
    table.attrs["uniformity over"] = f"{len(sentences)} sentences of the seven sets"
    return table


def plane_moves(pairs: PairVectors, positives_from: StsData, fixes: Mapping[str, Callable],
                uniformity_sentences: int | None = 2000, resamples: int = 2000, seed: int = 0) -> dict[str, dict[str, Interval]]:
    """Each fix's move on the plane against the model: ℓ_align(fixed) − ℓ_align(model) over the positive pairs and
    ℓ_uniform(fixed) − ℓ_uniform(model) over the sentences, each with its 95 % paired-bootstrap interval (06's)."""
    first, second = positive_pairs(positives_from)
    sentences = pairs.corpus[:uniformity_sentences]
    raw = (pairs.of(first), pairs.of(second))
    return {name: {"alignment": alignment_difference((pairs.of(first, fix), pairs.of(second, fix)), raw, resamples, seed),
                   "uniformity": uniformity_difference(pairs.of(sentences, fix), pairs.of(sentences), resamples=resamples,
                                                       seed=seed)}
            for name, fix in fixes.items()}


def move_words(move: Mapping[str, Interval]) -> str:
    """'more uniform, less aligned' and the like, from the two intervals (lower is better on both axes); an axis whose
    interval holds 0 reads 'uniformity tied' or 'alignment tied'."""
    uniform = {"lower": "more uniform", "higher": "less uniform", "tie": "uniformity tied"}[move["uniformity"].direction]
    aligned = {"lower": "more aligned", "higher": "less aligned", "tie": "alignment tied"}[move["alignment"].direction]
    return f"{uniform}, {aligned}"


def simcse_pattern(move: Mapping[str, Interval]) -> str:
    """'yes' when the move is SimCSE §7's (more uniform and less aligned, both intervals apart from 0), else 'no'."""
    return "yes" if move_words(move) == "more uniform, less aligned" else "no"
