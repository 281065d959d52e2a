"""Calibrators over frozen pooled views as rows of the comparison table (``05_bert_flow.ipynb``).

A :class:`CalibratedView` is an embed function: sentences → their ``view`` vectors in a
:class:`~sbert_workbook.encoding.pooled_views.PooledViews`, mapped by a calibrator fitted (on first
use) on other sentences' vectors of the same view. :func:`compare_calibrators` builds one row per
method and hands them to :func:`~sbert_workbook.evaluation.comparison.comparison_table`, the table
every method shares (a trained encoder is a row there too).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import pandas as pd

from sbert_workbook.calibration.calibrators import Calibrator
from sbert_workbook.data.records import StsData
from sbert_workbook.encoding.pooled_views import PooledViews
from sbert_workbook.evaluation.comparison import comparison_table
from sbert_workbook.evaluation.provenance import describe_model

#: One calibration method: ``(make_calibrator, source)``; ``(None, None)`` is the raw view.
Method = tuple[Callable[[], Calibrator] | None, str | None]


class CalibratedView:
    """sentences ↦ calibrator(views.get(view, sentences)), the calibrator fitted on ``fit_on``'s vectors when first needed."""

    def __init__(self, views: PooledViews, view: str, make_calibrator: Callable[[], Calibrator], fit_on: Sequence[str]):
        self.views, self.view, self.make_calibrator, self.fit_on = views, view, make_calibrator, fit_on
        self.calibrator: Calibrator | None = None

    def __call__(self, sentences: Sequence[str]):
        if self.calibrator is None:
            self.calibrator = self.make_calibrator().fit(self.views.get(self.view, self.fit_on))
        return self.calibrator.transform(self.views.get(self.view, sentences))


def calibrated_rows(views: PooledViews, view: str, test_sets: Mapping[str, StsData], fit_sentences: Mapping[str, Sequence[str]],
                    methods: Mapping[str, Method]) -> dict:
    """One comparison-table row per method: the raw view, a calibrator per test set (source ``"target"``,
    fitted on ``fit_sentences[set]``), or one calibrator shared by all sets (fitted on ``fit_sentences[source]``)."""
    rows = {}
    for label, (make, source) in methods.items():
        if make is None:
            rows[label] = lambda sentences: views.get(view, sentences)
        elif source == "target":
            rows[label] = {name: CalibratedView(views, view, make, fit_sentences[name]) for name in test_sets}
        else:
            if source not in fit_sentences:
                raise KeyError(f"Row {label!r} fits on {source!r}, which fit_sentences lacks; it has {', '.join(fit_sentences)}.")
            rows[label] = CalibratedView(views, view, make, fit_sentences[source])
    return rows


def compare_calibrators(views: PooledViews, view: str, test_sets: Mapping[str, StsData], fit_sentences: Mapping[str, Sequence[str]],
                        methods: Mapping[str, Method], aggregation: str = "wmean") -> tuple[pd.DataFrame, dict]:
    """Spearman × 100 of cosine similarity: one row per calibration method on one view, one column per set, plus ``avg``.

    ``methods`` maps a row label to ``(make_calibrator, source)`` (see :func:`calibrated_rows`).
    Returns the table (``attrs['provenance']`` says what produced it) and the fitted calibrators,
    keyed ``(label, set name)`` for target rows and ``(label, source)`` for shared ones.
    """
    rows = calibrated_rows(views, view, test_sets, fit_sentences, methods)
    table = comparison_table(rows, test_sets, aggregation, "cosine", description=f"calibrating {view}")
    fitted = {}
    for label, row in rows.items():
        per_key = row.items() if isinstance(row, Mapping) else [(methods[label][1], row)] if methods[label][0] else []
        fitted.update({(label, key): calibrated.calibrator for key, calibrated in per_key})
    table.attrs["provenance"] = {
        "model": f"{describe_model(views)}; poolings {', '.join(views.poolings)}", "pooling": view,
        **table.attrs["provenance"],
        "fitted on": "target = each set's own sentences, labels unused; " + ", ".join(
            f"{key} = {len(value)} sentences" for key, value in fit_sentences.items() if key not in test_sets),
    }
    return table, fitted
