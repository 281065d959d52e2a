"""Lesson 06 §0-§2, two starts and one objective: the cone and the start model measured on the same sentences,
04's in-batch negatives as InfoNCE at τ = 0.05, SimCSE's unsupervised recipe, and each run's path on the plane
(``06_contrastive_simcse.ipynb``).

Every function returns a :class:`~sbert_workbook.lessons.report.Report` whose sentences are computed from the run.
"""
from __future__ import annotations

import pandas as pd
import torch
from IPython.display import Markdown

from sbert_workbook import published
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.lessons.nb06.lesson import CONE_LEARNING_RATE, MAX_LENGTH, TAU, Lesson06
from sbert_workbook.lessons.nb06.rows import mean_cosine_of
from sbert_workbook.lessons.report import Report
from sbert_workbook.training import contrastive, contrastive_plots, isotropy, losses
from sbert_workbook.training.bag_of_words import trainable_parameters


GEOMETRY = "mean cosine, unrelated", "top direction's share", "alignment", "uniformity"
RELATIVE = "ℓ_align ÷ unrelated pairs' ‖x̂ − ŷ‖²"


def starts_report(lesson: Lesson06) -> Report:
    """§0: the two starts, measured on the same sentences: how narrow a cone, and how well each aligns its positives."""
    d = lesson.data
    table = pd.DataFrame({start: {"mean cosine, unrelated": mean_cosine_of(row), "top direction's share": top_share_of(row),
                                  "alignment": row.alignment, "uniformity": row.uniformity,
                                  RELATIVE: row.alignment / (2 - 2 * mean_cosine_of(row)), "STS-B dev": row.dev}
                          for start, row in lesson.starting_rows().items()}).T
    narrower = table["mean cosine, unrelated"].idxmax()
    apart = table[RELATIVE].idxmin()
    model = lesson.resolved.model_id
    about = (f"**Start model:** {lesson.resolved.describe()}, pooling `{lesson.pooling}`. " + (
        "This is bert-base-uncased, the paper's start: raw BERT, before any similarity training." if lesson.is_bert_base
        else f"This is **not** bert-base-uncased: {model} is already trained contrastively for similarity (about a billion "
        "pairs, in-batch negatives, its `mean` pooling). Read every number from it as a result for this model, not as a "
        "reproduction of the paper.") + f"\n\n**Cone start:** {lesson.cone.resolved.describe()}; "
        f"{trainable_parameters(lesson.cone):,} weights train.")
    return Report(Markdown(about), with_provenance(
        table.round(3), model=f"cone: {lesson.cone.resolved.model_id}; start model: {model} ({lesson.pooling})",
        pooling="per row", aggregation="geometry: n/a; STS-B dev: Spearman × 100 over the sample",
        split=f"{len(d.uniform_sentences)} STS-B dev sentences; alignment: {len(d.align_pairs[0])} dev pairs scored above 4"),
        f"The narrower cone (higher mean cosine of unrelated sentences): {narrower}. Its top direction carries "
        f"{table.loc[narrower, GEOMETRY[1]]:.0%} of the energy. Positive pairs stand out most from unrelated ones (lowest "
        f"{RELATIVE}: {table[RELATIVE].min():.2f} against {table[RELATIVE].max():.2f}) in: {apart}.")


def top_share_of(row) -> float:
    """The top direction's share of the energy of the row's uniformity sample."""
    return isotropy.energy_share_of_top_direction(row.uniform)


def mnrl_is_infonce(lesson: Lesson06) -> Report:
    """§1: 04's in-batch negatives at scale 20 and InfoNCE at τ = 0.05 on the start model's vectors; Table D.1."""
    u, v = lesson.demo
    mnrl = losses.multiple_negatives_ranking_loss(u, v, scale=20.0)
    info_nce = contrastive.info_nce_loss(u, v, temperature=TAU)
    d1 = published.SIMCSE_TABLE_D1
    return Report(f"{len(u)} SNLI entailment pairs, {lesson.resolved.model_id} ({lesson.pooling}): MNRL at scale 20 = "
                  f"{mnrl:.6f}, InfoNCE at τ = {TAU} = {info_nce:.6f}; equal: {torch.allclose(mnrl, info_nce)}",
                  f"SimCSE's temperature: τ = {TAU} ({published.SIMCSE_UNSUP_RECIPE.source('temperature τ')})",
                  Markdown(f"**SimCSE {d1.table}** ({d1.split}, quoted, not re-run): how much τ matters; `dot product` "
                           "drops the cosine and τ altogether."), d1.frame())


def recipe_report(lesson: Lesson06) -> Report:
    """§2: the paper's unsupervised recipe, each setting with where it is stated, beside what the two runs use."""
    d, s = lesson.data, lesson.sizes
    steps = lesson.steps_for(d.unsup)
    here = {"start": lesson.resolved.model_id, "data": d.unsup.description, "batch size": s.BATCH_SIZE,
            "learning rate": 3e-5, "epochs": f"{steps} steps" + (" (quick mode)" if lesson.quick else ""),
            "max sequence length": MAX_LENGTH, "temperature τ": TAU, "dropout p": 0.1,
            "pooling (training)": f"{lesson.pooling} with the MLP", "pooling (test)": f"{lesson.pooling} without the MLP",
            "model selection": "the last step (no checkpoint selection)"}
    cone = {**here, "start": lesson.cone.resolved.model_id, "batch size": s.CONE_BATCH_SIZE,
            "learning rate": CONE_LEARNING_RATE, "epochs": f"{s.CONE_STEPS} steps",
            "pooling (training)": "mean of the word vectors, embedding dropout, no MLP",
            "pooling (test)": "mean of the word vectors"}
    recipe = published.SIMCSE_UNSUP_RECIPE.frame()
    recipe["start model"] = [str(here.get(setting, "as the paper")) for setting in recipe.index]
    recipe["cone"] = [str(cone.get(setting, "as the paper")) for setting in recipe.index]
    return Report(with_provenance(
        recipe, model=f"column value: the paper's bert-base-uncased recipe (quoted); start model: {lesson.resolved.model_id}; "
        f"cone: {lesson.cone.resolved.model_id}", pooling="the rows 'pooling (training)' and 'pooling (test)'",
        aggregation="n/a (a recipe)", split="the row 'data'", source=published.SIMCSE_UNSUP_RECIPE.source()),
        f"{d.unsup.description}; STS-B dev: {len(d.stsb_dev)} pairs; alignment on {len(d.align_pairs[0])} dev pairs scored "
        f"above 4, uniformity on {len(d.uniform_sentences)} dev sentences")


def path_line(run) -> str:
    """'name: steps in s; ℓ_align a → b, ℓ_uniform c → d, STS-B dev e → f (n points)'."""
    path, dev = run.path, run.dev["dev_spearman"]
    return (f"{run.name}: {run.steps} steps in {run.seconds:.0f} s; ℓ_align {path['alignment'][0]:.3f} → "
            f"{path['alignment'][-1]:.3f}, ℓ_uniform {path['uniformity'][0]:.3f} → {path['uniformity'][-1]:.3f}, "
            f"STS-B dev {dev[0]:.2f} → {dev[-1]:.2f} ({len(path['step'])} points)")


def paths_figure(runs, title: str):
    return contrastive_plots.alignment_uniformity_path_figure({r.name: r.path for r in runs}, {r.name: r.dev for r in runs},
                                                              title=title)


def paths_report(lesson: Lesson06, runs: dict) -> Report:
    """§2: each run's path on the plane, and how far the cone's run moved each measure."""
    cone = runs["cone"].path
    moved = cone["alignment"][-1] - cone["alignment"][0]
    return Report(*(path_line(run) for run in runs.values()),
                  f"From the cone: ℓ_uniform {'fell' if cone['uniformity'][-1] < cone['uniformity'][0] else 'did not fall'}"
                  f" by {cone['uniformity'][0] - cone['uniformity'][-1]:+.3f}; ℓ_align moved by {moved:+.3f} "
                  f"({moved / cone['alignment'][0]:+.0%} of its start).",
                  paths_figure(runs.values(), f"Unsupervised SimCSE from the two starts: {lesson.cone.resolved.model_id} and "
                                              f"{lesson.resolved.model_id} ({lesson.pooling})"))
