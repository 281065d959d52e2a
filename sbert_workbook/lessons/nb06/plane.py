"""Lesson 06 §5, the core: every row of both starts on SimCSE's alignment–uniformity plane, each move against raw with
its interval, and the verdicts (``06_contrastive_simcse.ipynb``).

Intervals: STS differences are paired bootstraps over the test pairs (every set resampled); alignment over the positive
pairs; uniformity over the sentences (:mod:`sbert_workbook.evaluation.geometry_intervals`). A trained row is one seed,
so its interval holds the test sample's noise only (§3 gives the seed spread of the p = 0.1 run).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from sbert_workbook.evaluation import geometry_intervals, uncertainty
from sbert_workbook.lessons.nb06.rows import ScoredRow, kind_of, raw_and_calibrated, rows_table
from sbert_workbook.lessons.nb06.setup import NOTEBOOK, STARTS, Lesson06
from sbert_workbook.lessons.report import verdict

TRAINED = ("SBERT objective (softmax)", "unsup SimCSE", "sup SimCSE")
UNIFORMITY_WORD = {"lower": "gains", "higher": "loses", "tie": "tie"}
ALIGNMENT_WORD = {"higher": "loses", "lower": "gains", "tie": "tie"}


@dataclass
class Plane:
    """§5's rows of each start, their table and spectra, and the training paths drawn as arrows."""

    rows: dict[str, dict[str, ScoredRow]]
    frames: dict[str, pd.DataFrame]
    spectra: dict[str, dict[str, np.ndarray]]
    paths: dict[str, dict[str, dict]]

    def test_sets(self, lesson: Lesson06, start: str) -> dict:
        return lesson.data.cone_test_sets if start == "cone" else lesson.data.test_sets


def plane_rows(lesson: Lesson06, unsupervised: dict, supervised: dict) -> Plane:
    """§5's experiment: for each start, raw and 05's calibrators (fitted now on NLI sentences) beside the rows trained in
    §2 and §4, each scored on the same sentences."""
    rows, frames, spectra, paths = {}, {}, {}, {}
    for start in STARTS:
        trained = {"SBERT objective (softmax)": supervised[f"{start}: SBERT objective (softmax)"],
                   "unsup SimCSE": unsupervised[start], "sup SimCSE": supervised[f"{start}: sup SimCSE"]}
        rows[start] = {**raw_and_calibrated(lesson, start), **{name: run.row for name, run in trained.items()}}
        test_sets = lesson.data.cone_test_sets if start == "cone" else lesson.data.test_sets
        frames[start], spectra[start] = rows_table(rows[start], test_sets)
        paths[start] = {name: run.path for name, run in trained.items()}
    return Plane(rows, frames, spectra, paths)


def moves(lesson: Lesson06, plane: Plane, start: str) -> tuple[pd.DataFrame, dict]:
    """Each row of ``start`` minus raw: STS, ℓ_uniform and ℓ_align, each with its interval and verdict."""
    rows, test_sets = plane.rows[start], plane.test_sets(lesson, start)
    raw, gold = rows["raw"], {name: data.scores for name, data in test_sets.items()}
    table, intervals = {}, {}
    for name, row in rows.items():
        if name == "raw":
            continue
        sts = uncertainty.paired_bootstrap(gold, row.sts, raw.sts)
        spread = geometry_intervals.uniformity_difference(row.uniform, raw.uniform)
        aligned = geometry_intervals.alignment_difference(row.aligned, raw.aligned)
        intervals[name] = {"STS": sts, "uniformity": spread, "alignment": aligned}
        table[name] = {"kind": kind_of(name), "Δ STS avg [95 % interval]": str(sts), "Δ ℓ_uniform": str(spread),
                       "uniformity": UNIFORMITY_WORD[spread.direction], "Δ ℓ_align": str(aligned),
                       "alignment": ALIGNMENT_WORD[aligned.direction]}
    return pd.DataFrame.from_dict(table, orient="index").rename_axis("embedding"), intervals


def best_of(frame: pd.DataFrame, kind: str) -> str:
    """The row of ``kind`` ('calibrated' or 'trained') with the highest seven-set STS average."""
    return frame.loc[[name for name in frame.index if kind_of(name) == kind], "avg (all)"].idxmax()


def order(lesson: Lesson06, plane: Plane, start: str) -> tuple[str, str, uncertainty.Interval]:
    """The best calibrated row, the best trained row, and the interval of (calibrated − trained) on the STS average."""
    frame, rows = plane.frames[start], plane.rows[start]
    calibrated, trained = best_of(frame, "calibrated"), best_of(frame, "trained")
    gold = {name: data.scores for name, data in plane.test_sets(lesson, start).items()}
    return calibrated, trained, uncertainty.paired_bootstrap(gold, rows[calibrated].sts, rows[trained].sts)


def record_verdicts(plane: Plane, lesson: Lesson06, intervals: dict) -> dict[str, str]:
    """§5's verdicts: from the cone, each row's STS, uniformity and alignment against raw, and the order of the best
    calibrated and the best trained row; from the start model, that order."""
    found = {}
    for name, by in intervals["cone"].items():
        found |= verdict(NOTEBOOK, f"from the cone: {name} against raw on STS", by["STS"].direction)
        found |= verdict(NOTEBOOK, f"from the cone: {name}: uniformity against raw", UNIFORMITY_WORD[by["uniformity"].direction])
        found |= verdict(NOTEBOOK, f"from the cone: {name}: alignment against raw", ALIGNMENT_WORD[by["alignment"].direction])
    for start in STARTS:
        found |= verdict(NOTEBOOK, f"from the {start}: the best calibrated row against the best trained row on STS",
                         order(lesson, plane, start)[2].direction)
    flattest = flattest_row(plane, "cone")
    found |= verdict(NOTEBOOK, "from the cone: the kind of row with the flattest spectrum", kind_of(flattest))
    return found


def flatness(spectrum: np.ndarray) -> float:
    """The mean of σ_k / σ_1 over k: 1 for a perfectly flat spectrum, near 1/k for one dominant direction."""
    return float(np.mean(spectrum))


def flattest_row(plane: Plane, start: str) -> str:
    return max(plane.spectra[start], key=lambda name: flatness(plane.spectra[start][name]))
