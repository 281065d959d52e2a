"""Lesson 06's reports for §3 (dropout is the augmentation) and §4 (supervised SimCSE beside SBERT's objective)
(``06_contrastive_simcse.ipynb``).

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
from sbert_workbook.lessons.nb06.reports_training import path_line, paths_figure
from sbert_workbook.lessons.nb06.runs import DROPOUTS
from sbert_workbook.lessons.nb06.setup import MAX_LENGTH, Lesson06
from sbert_workbook.lessons.report import Report

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


def supervised_recipe_report(lesson: Lesson06) -> Report:
    """§4: the paper's supervised recipe beside what runs here; Table 6's MLP at test, quoted."""
    d, s = lesson.data, lesson.sizes
    here = {"data": d.sup.description, "learning rate": 5e-5, "epochs": f"{lesson.steps_for(d.sup)} steps",
            "max sequence length": MAX_LENGTH, "pooling (test)": f"{lesson.pooling} without the MLP (Table 6 below: a tie for sup)",
            "batch size": f"{s.BATCH_SIZE} (the cone: {s.CONE_BATCH_SIZE})", "model selection": "the last step (no checkpoint selection)",
            "start": f"{lesson.resolved.model_id}, and the cone"}
    recipe = published.SIMCSE_SUP_RECIPE.frame()
    recipe["this run"] = [str(here.get(setting, "as the paper")) for setting in recipe.index]
    t6 = published.SIMCSE_TABLE6
    return Report(with_provenance(recipe, model=f"column value: the paper's bert-base-uncased recipe (quoted); column this run: "
                                  f"{lesson.resolved.model_id}", pooling="the rows 'pooling (training)' and 'pooling (test)'",
                                  aggregation="n/a (a recipe)", split="the row 'data'",
                                  source=published.SIMCSE_SUP_RECIPE.source()),
                  Markdown(f"**SimCSE {t6.table}** (quoted): [CLS] with the MLP at test vs without, supervised column: "
                           f"{t6.value('[CLS] w/ MLP', 'sup'):.1f} vs {t6.value('[CLS] w/o MLP', 'sup'):.1f}."))


def supervised_report(lesson: Lesson06, runs: dict) -> Report:
    """§4: each supervised run's path, SimCSE's objective beside SBERT's from the same starts, same steps and batch."""
    return Report(*(path_line(run) for run in runs.values()),
                  paths_figure(runs.values(), "Supervised SimCSE vs SBERT's NLI objective: same start, same steps, same batch"))
