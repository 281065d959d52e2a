"""Lesson 06's rows: each embedding (raw, calibrated or trained) scored once, while its model exists, and kept as
numbers and a few vectors, never as weights (``06_contrastive_simcse.ipynb``).

A :class:`ScoredRow` holds what every later table of the lesson reads: the cosine of each STS test pair, the vectors of
the geometry sentences (uniformity, the spectrum, SimCSE §5's bound), of the positive pairs (alignment), §5.2's
frequency measures and, for the start model's rows, §6's SICK vectors.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from sbert_workbook.calibration import calibrators
from sbert_workbook.calibration.family import top_direction_frequency
from sbert_workbook.evaluation.geometry import alignment, uniformity
from sbert_workbook.evaluation.sts import aggregate, score_pairs
from sbert_workbook.training import isotropy

#: The post-processing rows of SimCSE Table 5 (05's calibrators), each fitted on NLI sentences.
CALIBRATORS = {"+ SN (NLI)": calibrators.StandardNormalization, "+ whitening (NLI)": calibrators.Whitening,
               "+ flow (NLI)": calibrators.FlowCalibrator}


@dataclass
class ScoredRow:
    """One embedding of the lesson's sentences, measured: no model inside."""

    name: str
    start: str  # "cone" or "start model"
    sts: dict[str, np.ndarray]  # test set → cosine of each pair
    uniform: torch.Tensor  # vectors of the geometry sentences (STS-B dev)
    aligned: tuple[torch.Tensor, torch.Tensor]  # vectors of the positive pairs (STS-B dev scored above 4)
    frequency: dict[str, float]  # §5.2: the top direction's share and its |Spearman| with log-frequency
    dev: float  # STS-B dev Spearman × 100 (the sample training tracks)
    probe: tuple | None = None  # §6: SICK train premises, hypotheses, test premises, hypotheses

    @property
    def alignment(self) -> float:
        return alignment(*self.aligned)

    @property
    def uniformity(self) -> float:
        return uniformity(self.uniform)

    def sts_scores(self, test_sets) -> dict[str, float]:
        """Spearman × 100 per set (``all``), the seven-set average and the average under ``wmean`` (NaN where a
        sampled subset is too small), as :func:`sbert_workbook.training.isotropy.sts_scores` gives them."""
        scores, weighted = {}, []
        for name, data in test_sets.items():
            scores[name] = aggregate(self.sts[name], data, "all")["spearman"]
            try:
                weighted.append(aggregate(self.sts[name], data, "wmean")["spearman"])
            except ValueError:  # a subset with fewer than 2 pairs (a small sample) has no correlation
                weighted.append(float("nan"))
        return {**scores, "avg (all)": float(np.mean([scores[name] for name in test_sets])),
                "avg (wmean)": float(np.mean(weighted))}


def score_row(lesson, name: str, start: str, embed) -> ScoredRow:
    """Measure ``embed`` (sentences → vectors) on everything the lesson's tables of ``start`` read."""
    d = lesson.data
    test_sets = d.cone_test_sets if start == "cone" else d.test_sets
    frequency_sentences = frequency_sentences_of(lesson)
    probe = None
    if start == "start model":
        probe = tuple(embed(side) for data in (d.sick_train, d.sick_test) for side in (data.premises, data.hypotheses))
    sts = {set_name: score_pairs(embed, data) for set_name, data in test_sets.items()}
    dev = aggregate(score_pairs(embed, d.stsb_dev), d.stsb_dev, "all")["spearman"]
    return ScoredRow(name, start, sts, torch.as_tensor(embed(d.uniform_sentences)),
                     tuple(torch.as_tensor(embed(side)) for side in d.align_pairs),
                     top_direction_frequency(np.asarray(embed(frequency_sentences)), log_frequency_of(lesson)), dev, probe)


def frequency_sentences_of(lesson) -> list[str]:
    """§5.2's sentences: every test sentence of §5.1 (the start model's sample), once."""
    return list(dict.fromkeys(s for data in lesson.data.test_sets.values() for s in data.sentences1 + data.sentences2))


def log_frequency_of(lesson) -> np.ndarray:
    """Each §5.2 sentence's mean word log-frequency (wordfreq's Zipf scale), computed once per lesson."""
    from sbert_workbook.calibration.family import mean_log_frequency

    if getattr(lesson, "_log_frequency", None) is None:
        lesson._log_frequency = mean_log_frequency(frequency_sentences_of(lesson))
    return lesson._log_frequency


def raw_and_calibrated(lesson, start: str) -> dict[str, ScoredRow]:
    """The raw row of ``start`` and 05's calibrators fitted on its raw vectors of NLI sentences, each scored."""
    raw = lesson.raw[start]
    rows = {"raw": score_row(lesson, "raw", start, raw)}
    fitted_on = raw(lesson.calibration_for(start))
    for name, make in CALIBRATORS.items():
        calibrator = make(seed=lesson.seed, progress=False) if make is calibrators.FlowCalibrator else make()
        rows[name] = score_row(lesson, name, start, isotropy.calibrated_row(raw, calibrator.fit(fitted_on)))
    return rows


def rows_table(rows: dict[str, ScoredRow], test_sets) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    """One line per row: STS per set and averaged, then the geometry (mean cosine of unrelated sentences, alignment,
    uniformity, the top direction's share); and each row's singular spectrum."""
    table = {name: {**row.sts_scores(test_sets), "mean cosine, unrelated": isotropy.mean_unrelated_cosine(row.uniform),
                    "alignment": row.alignment, "uniformity": row.uniformity,
                    "top direction's share": isotropy.energy_share_of_top_direction(row.uniform)} for name, row in rows.items()}
    frame = pd.DataFrame.from_dict(table, orient="index").rename_axis("embedding")
    return frame, {name: isotropy.singular_spectrum(row.uniform) for name, row in rows.items()}


def kind_of(name: str) -> str:
    """'raw', 'calibrated' (a "+ method (NLI)" row) or 'trained'."""
    return "raw" if name == "raw" else "calibrated" if name.startswith("+") else "trained"


def mean_cosine_of(row) -> float:
    """The mean cosine of unrelated sentences in a row's uniformity sample: how narrow its cone is (§0, §5)."""
    return isotropy.mean_unrelated_cosine(row.uniform)
