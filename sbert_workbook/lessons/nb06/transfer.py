"""Lesson 06 §6, what uniformity does not buy: 03's frozen SICK-E probe on each row of the start model, each row against
raw with its interval, and SimCSE's Table E.1 read as the paper reads it (``06_contrastive_simcse.ipynb``)."""
from __future__ import annotations

import numpy as np
import pandas as pd
from IPython.display import Markdown

from sbert_workbook import published
from sbert_workbook.evaluation import probes
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.provenance import describe_split, with_provenance
from sbert_workbook.evaluation.uncertainty import paired_mean_interval
from sbert_workbook.lessons.nb06.lesson import Lesson06
from sbert_workbook.lessons.nb06.plane import Plane
from sbert_workbook.lessons.report import Report


PROBED = ("raw", "+ whitening (NLI)", "+ flow (NLI)", "unsup SimCSE", "sup SimCSE")
#: Table E.1's comparisons, each SimCSE row against the row the paper reads it against.
E1_PAIRS = {"Unsup. SimCSE-BERT-base": ("Avg. BERT embeddings (quoted from SBERT)", "IS-BERT-base"),
            "Sup. SimCSE-BERT-base": ("Avg. BERT embeddings (quoted from SBERT)", "SBERT-base (quoted from SBERT)"),
            "Unsup. SimCSE-BERT-base w/ MLM": ("Unsup. SimCSE-BERT-base",),
            "Sup. SimCSE-BERT-base w/ MLM": ("Sup. SimCSE-BERT-base",)}


def transfer_probe(lesson: Lesson06, plane: Plane) -> dict[str, np.ndarray]:
    """§6's experiment: 03's frozen SICK-E probe (SentEval's (|u − v|, u ∗ v)) on each row of the start model; for each
    row, whether it labels each test pair right."""
    d, right = lesson.data, {}
    for name in PROBED:
        train_u, train_v, test_u, test_v = plane.rows["start model"][name].probe
        features = probes.SENTEVAL_PROBE_FEATURES
        probe = probes.fit_probe(probes.probe_features(train_u, train_v, features), d.sick_train.labels)
        right[name] = probe.predict(probes.probe_features(test_u, test_v, features)) == np.asarray(d.sick_test.labels)
    return right


def e1_lines() -> list[str]:
    """Each SimCSE row of Table E.1 against the rows the paper reads it against, computed from the published table."""
    e1 = published.SIMCSE_TABLE_E1
    return [f"{e1.table}, transfer average: {row} {e1.value(row, 'avg'):.2f} against " + "; ".join(
        f"{other} {e1.value(other, 'avg'):.2f} ({e1.value(row, 'avg') - e1.value(other, 'avg'):+.2f})" for other in others)
        for row, others in E1_PAIRS.items()] + ["One run each, no spread printed."]


def transfer_report(lesson: Lesson06, right: dict[str, np.ndarray]) -> Report:
    """§6: probe accuracy per row, each row minus raw with its interval (drawn), and Table E.1 as the paper reads it."""
    d = lesson.data
    table = pd.DataFrame({"probe accuracy": {name: 100 * r.mean() for name, r in right.items()}}).rename_axis("embedding")
    changes = {f"{name} minus raw": paired_mean_interval(100 * r, 100 * right["raw"], unit="SICK-E test pairs")
               for name, r in right.items() if name != "raw"}
    majority = 100 * probes.majority_accuracy(d.sick_train.labels, d.sick_test.labels)
    e1 = published.SIMCSE_TABLE_E1
    return Report(
        with_provenance(table.round(2), model=f"{lesson.resolved.model_id}: the rows of §5.1", pooling=lesson.pooling,
                        aggregation="accuracy × 100 of a logistic-regression probe on (|u-v|, u*v), fitted on the training pairs",
                        split=f"{describe_split(d.sick_train)} (probe training); {describe_split(d.sick_test)} (test)"),
        f"Majority label: {majority:.1f}. Probe accuracy minus the raw row's: " + "; ".join(
            f"{name.removesuffix(' minus raw')} {interval.described()}" for name, interval in changes.items()),
        interval_forest_figure(changes, "SICK-E probe accuracy, each row minus raw", unit="accuracy × 100"),
        published.SIMCSE_APPENDIX_E_POSTPROCESSING + ".",
        Markdown(f"**SimCSE {e1.table}** (quoted, not re-run; {e1.split}):"), e1.frame(), *e1_lines())
