"""Alignment and uniformity: the model's own point on 06's plane, and where each fix moves it (``07_your_model``, §5).

Wang & Isola (2020), as SimCSE §5 uses them: ℓ_align = E‖f̂(x) − f̂(x⁺)‖² over positive pairs (STS-B test pairs scored
above 4, SimCSE's footnote 3) and ℓ_uniform = log E exp(−2‖f̂(x) − f̂(y)‖²) over all sentences, on unit vectors; lower
is better for both (:mod:`sbert_workbook.evaluation.geometry`). 06 draws its runs on this plane
(:func:`~sbert_workbook.training.contrastive_plots.alignment_uniformity_plane_figure`); the diagnosis adds the model
and every rung of the ladder. SimCSE §7 reports that post-processing such as whitening and the flow "greatly improve
uniformity but also suffer a degeneration in alignment": the plane shows whether that holds for this model.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping

import pandas as pd

from sbert_workbook.data.records import StsData
from sbert_workbook.diagnosis.ladder import NO_FIX, PairVectors
from sbert_workbook.evaluation.geometry import alignment, uniformity
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
