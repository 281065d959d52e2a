"""Lesson 06 §3, dropout is the augmentation: what p = 0 does (the predict question), Table 3 quoted, each p from the
cone over seeds with its interval, one discrete augmentation beside it, and Table 1 quoted (``06_contrastive_simcse.ipynb``).

§3's intervals are spreads over seeds (a t interval over the per-seed differences; each seed draws the same batches for
every p), drawn as a forest plot beside the table.
"""
from __future__ import annotations

import pandas as pd
from IPython.display import Markdown

from sbert_workbook import published
from sbert_workbook.evaluation import uncertainty
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.lessons.nb06.lesson import Lesson06
from sbert_workbook.lessons.nb06.runs import DROPOUTS
from sbert_workbook.lessons.nb06.starts import paths_figure
from sbert_workbook.lessons.report import Report
from sbert_workbook.teaching.predict import predict_question


def predict_no_dropout(lesson: Lesson06):
    """§3's predict question: what p = 0 does to unsupervised SimCSE (the paper's Table 3 decides)."""
    t3 = published.SIMCSE_TABLE3
    options = ["better than p = 0.1: no noise, cleaner positives", "about the same as p = 0.1", "clearly worse than p = 0.1"]
    gap = t3.value("Unsup. SimCSE-BERT-base", "p=0.0") - t3.value("Unsup. SimCSE-BERT-base", "p=0.1")
    return predict_question(
        "SimCSE trains bert-base with dropout p = 0 instead of the default 0.1: a sentence's positive is then exactly its own "
        "vector. How does its STS-B dev score compare with p = 0.1?",
        options, options[2] if gap < -1 else options[1] if abs(gap) <= 1 else options[0],
        "With p = 0 the two views are one vector: pulling them together teaches nothing, so the loss only pushes "
        "sentences apart. Uniformity improves, but nothing keeps related sentences close: in SimCSE's Figure 2 the "
        "alignment of the no-dropout variant 'also degrades drastically' from a good start. A large p is too much noise "
        "the other way. The next cells print Table 3 and train p = 0, 0.1 and a large p from the cone, several seeds each.")


MEASURES = ("alignment", "uniformity", "STS avg (all)")
DELETION = "delete one word (p = 0.1)"


def dropout_table(lesson: Lesson06, runs: dict) -> pd.DataFrame:
    """Each p's end point, the mean over seeds."""
    return pd.DataFrame({label: pd.DataFrame([runs[(label, seed)].end for seed in lesson.seeds]).mean()
                         for label in DROPOUTS}).T


def dropout_intervals(lesson: Lesson06, runs: dict) -> dict[str, uncertainty.Interval]:
    """Each other p minus p = 0.1, per measure: the t interval over the per-seed differences."""
    return {f"{label} minus p = 0.1: {measure}": uncertainty.seed_interval(
        [runs[(label, seed)].end[measure] - runs[("p = 0.1", seed)].end[measure] for seed in lesson.seeds])
        for label in DROPOUTS if label != "p = 0.1" for measure in MEASURES}


def dropout_report(lesson: Lesson06, runs: dict) -> Report:
    """§3: Table 3 (quoted), each p from the cone over seeds, each difference with its interval (drawn), the deletion run."""
    t3, s = published.SIMCSE_TABLE3, lesson.sizes
    table, intervals = dropout_table(lesson, runs), dropout_intervals(lesson, runs)
    caption = dict(model=f"{lesson.cone.resolved.model_id} + unsupervised SimCSE, {s.CONE_STEPS} steps; each row the mean "
                   f"over seeds {lesson.seeds}", pooling="mean of the word vectors (no MLP)",
                   split=f"geometry: {len(lesson.data.uniform_sentences)} STS-B dev sentences, {len(lesson.data.align_pairs[0])} "
                   "dev pairs scored above 4; STS: the seven test sets" +
                   (f", {s.CONE_PAIRS_PER_SET} pairs each" if s.CONE_PAIRS_PER_SET else ", every pair"))
    sts = {label: intervals[f"{label} minus p = 0.1: STS avg (all)"] for label in DROPOUTS if label != "p = 0.1"}
    return Report(
        Markdown(f"**SimCSE {t3.table}** ({t3.split}, quoted, not re-run):"), t3.frame(),
        with_provenance(table.round(3), aggregation="STS avg (all): all per set, mean over the seven sets", **caption),
        with_provenance(pd.Series({k: str(v) for k, v in intervals.items()}, name="difference [95 % interval]: verdict")
                        .to_frame(), aggregation=f"the difference per seed, mean over seeds {lesson.seeds} [95 % t interval "
                        "over seeds]", unit="ℓ_align and ℓ_uniform: their own units (lower is better); STS: Spearman × 100",
                        **caption),
        *(f"{label} against p = 0.1 on the seven-set STS average: {i.direction} ({i.described()})." for label, i in sts.items()),
        interval_forest_figure(intervals, "Each dropout p minus p = 0.1, from the cone", unit="each measure's own unit"),
        deletion_line(lesson, runs, table),
        "p = 0: the two training views are " + ("identical" if table.loc["p = 0 (no dropout)", "‖h − h⁺‖² in training"] < 1e-10
                                                else "not identical") + " by construction.",
        paths_figure([runs[(label, lesson.seed)] for label in [*DROPOUTS, DELETION]],
                     f"Dropout p and one discrete augmentation from the cone ({lesson.cone.resolved.model_id}), seed {lesson.seed}"))


def deletion_line(lesson: Lesson06, runs: dict, table: pd.DataFrame) -> str:
    """The one-seed deletion run against p = 0.1's seeds (a t interval of one run against a mean), and its geometry."""
    deletion = runs[(DELETION, lesson.seed)].end
    gap = uncertainty.single_run_interval(deletion["STS avg (all)"], [runs[("p = 0.1", s)].end["STS avg (all)"] for s in lesson.seeds])
    return (f"Delete one word (one seed) minus p = 0.1, STS avg: {gap.described()}; its ℓ_align {deletion['alignment']:.3f} "
            f"and ℓ_uniform {deletion['uniformity']:.3f} against p = 0.1's {table.loc['p = 0.1', 'alignment']:.3f} and "
            f"{table.loc['p = 0.1', 'uniformity']:.3f}.")


def augmentations_report() -> Report:
    """§3: SimCSE Table 1 (quoted) and what it says of discrete augmentations against dropout alone."""
    t1 = published.SIMCSE_TABLE1
    best = max((row for row in t1.rows if not row.startswith("None")), key=lambda row: t1.value(row, "stsb"))
    return Report(Markdown(f"**SimCSE {t1.table}** ({t1.split}, quoted, not re-run; {t1.columns[0]} column):"), t1.frame(),
                  f"In the paper (each augmented sentence also encoded with dropout) the best discrete augmentation, "
                  f"'{best}', scores {t1.value(best, 'stsb'):.1f}; dropout alone "
                  f"{t1.value('None (unsup. SimCSE: dropout only)', 'stsb'):.1f}; delete one word without dropout "
                  f"{t1.value('Delete one word, w/o dropout', 'stsb'):.1f}.")
