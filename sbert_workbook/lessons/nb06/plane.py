"""Lesson 06 §5, the core: every row of both starts on SimCSE's alignment–uniformity plane, each move against raw with
its interval, the verdicts, and the order of calibrated and trained rows beside SimCSE's Table 5
(``06_contrastive_simcse.ipynb``).

Intervals: STS differences are paired bootstraps over the test pairs (every set resampled); alignment over the positive
pairs; uniformity over the sentences (:mod:`sbert_workbook.evaluation.geometry_intervals`). A trained row is one seed,
so its interval holds the test sample's noise only (§3 gives the seed spread of the p = 0.1 run).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from sbert_workbook import published
from sbert_workbook.evaluation import geometry_intervals, uncertainty
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.lessons.nb06.lesson import NOTEBOOK, STARTS, Lesson06
from sbert_workbook.lessons.nb06.rows import ScoredRow, kind_of, mean_cosine_of, raw_and_calibrated, rows_table
from sbert_workbook.lessons.report import Report, verdict
from sbert_workbook.training import contrastive_plots


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


UNIT = "STS: Spearman × 100; ℓ_uniform and ℓ_align: their own units (lower is better)"


def table_caption(lesson: Lesson06, plane: Plane, start: str) -> dict:
    d, sets = lesson.data, plane.test_sets(lesson, start)
    model = lesson.cone.resolved.model_id if start == "cone" else lesson.resolved.model_id
    return dict(model=f"{model}: raw, calibrated (fitted on {len(lesson.calibration_for(start))} NLI sentences), or trained "
                f"from it in §2 and §4 (seed {lesson.seed})",
                pooling="mean of the word vectors" if start == "cone" else f"raw and calibrated: {lesson.raw_pooling}; "
                f"trained: {lesson.pooling}",
                aggregation="per set: all; avg (all) and avg (wmean) over the seven sets (wmean NaN where a sampled subset "
                "has fewer than 2 pairs)", split="test sets: " + ", ".join(f"{n} {len(data)}" for n, data in sets.items())
                + f"; geometry: {len(d.uniform_sentences)} STS-B dev sentences, {len(d.align_pairs[0])} dev pairs scored above 4")


def moves_forest(moved: dict, title: str) -> list:
    """Two forest plots: each row's STS change, and its ℓ_uniform and ℓ_align changes, against raw."""
    sts = {name: by["STS"] for name, by in moved.items()}
    geometry = {f"{name}: {measure}": by[measure] for name, by in moved.items() for measure in ("uniformity", "alignment")}
    return [interval_forest_figure(sts, f"{title}: STS average minus raw"),
            interval_forest_figure(geometry, f"{title}: ℓ_uniform and ℓ_align minus raw (lower is better)",
                                   unit="ℓ_uniform, ℓ_align")]


def order_sentence(lesson: Lesson06, plane: Plane, start: str) -> str:
    calibrated, trained, gap = order(lesson, plane, start)
    frame = plane.frames[start]
    raw = frame.loc["raw", "avg (all)"]
    place = {"higher": "above", "lower": "below", "tie": "level with"}[gap.direction]
    return (f"From the {start}, on the STS average the best calibrated row ({calibrated}, {frame.loc[calibrated, 'avg (all)'] - raw:+.2f} "
            f"over raw) ranks {place} the best trained row ({trained}, {frame.loc[trained, 'avg (all)'] - raw:+.2f}): "
            f"{gap.described()}.")


def paper_order() -> str:
    t5 = published.SIMCSE_TABLE5
    unsup = t5.value("Unsup. SimCSE-BERT-base", "avg")
    return (f"SimCSE {t5.table}, from bert-base-uncased: unsupervised SimCSE {unsup:.2f} against whitening "
            f"{t5.value('BERT-base-whitening', 'avg'):.2f} ({unsup - t5.value('BERT-base-whitening', 'avg'):+.2f}) and the flow "
            f"{t5.value('BERT-base-flow', 'avg'):.2f} ({unsup - t5.value('BERT-base-flow', 'avg'):+.2f}); one run each, no spread printed.")


def why_the_cone(lesson: Lesson06, plane: Plane) -> str:
    """What the cone's order means, chosen and filled in by the run's numbers (never typed)."""
    gap = order(lesson, plane, "cone")[2]
    if gap.direction != "higher":
        return ("From the cone the best trained row is " + ("above the best calibrated row: Table 5's order."
                if gap.direction == "lower" else "level with the best calibrated row within the interval."))
    frame = plane.frames["cone"]
    spread = {kind: frame.loc[[n for n in frame.index if kind_of(n) == kind], "uniformity"] - frame.loc["raw", "uniformity"]
              for kind in ("calibrated", "trained")}
    share = {kind: frame.loc[[n for n in frame.index if kind_of(n) == kind], "top direction's share"] for kind in spread}
    ratio = {start: row.alignment / (2 - 2 * mean_cosine_of(row)) for start, row in lesson.starting_rows().items()}
    how_far = ("One fitted map spread the cone further than training did: ℓ_uniform fell by at least "
               f"{-spread['calibrated'].max():.2f} for every calibrated row and by at most {-spread['trained'].min():.2f} for "
               f"any trained row, and the top direction's share is {share['calibrated'].max():.2f} or less after a calibrator, "
               f"{share['trained'].min():.2f} or more after training (raw {frame.loc['raw', GEOMETRY_SHARE]:.2f}). "
               if spread["calibrated"].max() < spread["trained"].min() else "")
    return (f"From the cone this is the reverse of Table 5. {how_far}The cone is the weak start SimCSE §3 warns about: not a "
            f"pre-trained encoder but a bag of words, whose related pairs sit at {ratio['cone']:.2f} of the unrelated pairs' "
            f"distance where the pre-trained start model's sit at {ratio['start model']:.2f} (§0), trained "
            f"{lesson.sizes.CONE_STEPS} steps of {lesson.sizes.CONE_BATCH_SIZE} sentences, and able only to re-weight its words.")


GEOMETRY_SHARE = "top direction's share"


def plane_report(lesson: Lesson06, plane: Plane) -> Report:
    """§5 (core): the cone's table, its plane with the training paths, each move with its interval (drawn), the verdicts,
    and the order of calibrated and trained rows from both starts beside Table 5's."""
    frame = plane.frames["cone"]
    moved = {start: moves(lesson, plane, start) for start in STARTS}
    table, intervals = moved["cone"]
    found = record_verdicts(plane, lesson, {start: m[1] for start, m in moved.items()})
    caption = table_caption(lesson, plane, "cone")
    gained = [n for n in table.index if table.loc[n, "uniformity"] == "gains"]
    lost = [n for n in table.index if table.loc[n, "alignment"] == "loses"]
    return Report(
        with_provenance(frame.round(3), **caption),
        contrastive_plots.alignment_uniformity_plane_figure(frame, plane.paths["cone"], title=f"{lesson.cone.resolved.model_id}: "
                                                            "every row on SimCSE's plane (Figure 3), training paths as arrows"),
        with_provenance(table, **{**caption, "aggregation": "each row minus raw [95 % interval]: verdict"},
                        unit=f"{UNIT}; intervals: paired bootstrap over the test pairs (STS), the positive pairs (ℓ_align), "
                        "the sentences (ℓ_uniform); a trained row is one seed: the sample's noise only"),
        *moves_forest(intervals, f"From the cone ({lesson.cone.resolved.model_id})"),
        f"Rows that gain uniformity over raw (interval below 0): {', '.join(gained) or 'none'}. Rows that lose alignment "
        f"(interval above 0): {', '.join(lost) or 'none'}. The most uniform row: {frame['uniformity'].idxmin()} "
        f"({kind_of(frame['uniformity'].idxmin())}).",
        order_sentence(lesson, plane, "cone"), why_the_cone(lesson, plane), order_sentence(lesson, plane, "start model"),
        paper_order(), published.SIMCSE_POSTPROCESSING_GEOMETRY + ".", verdicts=found)
