"""Lesson 03 §1: how STS evaluation reads a model, on the workbook's demo pairs (``03_pooling_and_sts.ipynb``).

The notebook's cells define cosine and Spearman's ρ and score the demo pairs; the calls here ask the predict question
and report what an increasing transformation of the cosines does to each correlation (the verdict) and the mean
cosine per category of pair.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import pearsonr, spearmanr

from sbert_workbook.teaching.predict import predict_question
from sbert_workbook.evaluation.provenance import describe_split, with_provenance
from sbert_workbook.lessons.nb03.lesson import NOTEBOOK, Lesson03
from sbert_workbook.lessons.report import Report, verdict


def changed_by(demo, cosines: np.ndarray, squashed: np.ndarray) -> dict[str, str]:
    """Which correlation the transformation moved: 'unchanged', 'rises' or 'falls', for Pearson and for Spearman."""
    said = {}
    for name, correlation in (("Pearson", lambda x: pearsonr(x, demo.scores)[0]), ("Spearman", lambda x: spearmanr(x, demo.scores)[0])):
        before, after = correlation(cosines), correlation(squashed)
        said[name] = "unchanged" if np.isclose(before, after, atol=1e-12) else "rises" if after > before else "falls"
    return said


def predict_power(lesson: Lesson03, demo, cosines: np.ndarray, squashed: np.ndarray):
    """§1's predict question: what cos**9 does to Pearson and to Spearman."""
    pearson = changed_by(demo, cosines, squashed)["Pearson"]
    return predict_question(
        f"Raise every demo cosine of {lesson.short_name} to the 9th power (an increasing function: the order of the pairs "
        "stays). What happens to the two correlations with the gold scores?",
        ["Both stay the same", "Spearman stays the same; Pearson rises", "Spearman stays the same; Pearson falls", "Both change"],
        "Both stay the same" if pearson == "unchanged" else f"Spearman stays the same; Pearson {pearson}",
        "Spearman's ρ sees only the order of the pairs, and an increasing function keeps it. Pearson's r measures how well "
        "a straight line fits: the 9th power stretches the high cosines apart and squeezes the low ones together, so the "
        "fit changes. Whether it gets better or worse depends on how curved the cosine-versus-gold cloud was to begin "
        "with; the next cell prints both.")


def demo_report(lesson: Lesson03, demo, cosines: np.ndarray, squashed: np.ndarray) -> Report:
    """§1: what cos**9 changed (the verdict), and the mean gold score and cosine per category of demo pair."""
    said = changed_by(demo, cosines, squashed)
    changed = [name for name, what in said.items() if what != "unchanged"]
    verdicts = lesson.record(verdict(NOTEBOOK, "what cos**9 changes on the demo pairs",
                                     " and ".join(changed) + " only" if changed else "neither"))
    by_category = pd.DataFrame({"category": demo.subsets, "gold": demo.scores, "cosine": cosines})
    by_category = with_provenance(by_category.groupby("category", sort=False).mean().round(3), model=lesson.encoder,
                                  pooling=lesson.pooling, aggregation="mean per category (no correlation)",
                                  split=describe_split(demo))
    return Report(f"cos**9 on the {len(demo)} demo pairs: Pearson {said['Pearson']}, Spearman {said['Spearman']}.",
                  f"{lesson.short_name}, {lesson.pooling} pooling, demo set: mean gold score and cosine per category",
                  by_category, verdicts=verdicts)
