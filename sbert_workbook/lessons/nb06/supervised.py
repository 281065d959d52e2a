"""Lesson 06 §4, supervised SimCSE: the paper's supervised recipe beside what runs here, and SimCSE's objective beside
SBERT's from the same starts, same steps and batch (``06_contrastive_simcse.ipynb``)."""
from __future__ import annotations

from IPython.display import Markdown

from sbert_workbook import published
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.lessons.nb06.lesson import MAX_LENGTH, Lesson06
from sbert_workbook.lessons.nb06.starts import path_line, paths_figure
from sbert_workbook.lessons.report import Report


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
