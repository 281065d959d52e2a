"""Lesson 03 §3: SBERT Table 1 recomputed, beside the published rows, with every gap's interval drawn
(``03_pooling_and_sts.ipynb``).

:func:`recompute_table1` scores every row on the same test pairs and keeps each pair's cosine, so the reports can
resample the pairs (a paired bootstrap: the rows are frozen, only the sample of pairs varies) and say which rows are
apart. The averaged-GloVe rows and §3a's question about them are in :mod:`.glove_rows`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from IPython.display import Markdown

from sbert_workbook.encoding.glove import GLOVE_NAME, GloveEncoder, GloveVectors
from sbert_workbook.evaluation import baselines, comparison, plots, uncertainty
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.evaluation.sts import score_pairs
from sbert_workbook.lessons.nb03.lesson import NOTEBOOK, Lesson03
from sbert_workbook.lessons.report import Report, verdict
from sbert_workbook.published import ALL_MINILM_SOURCE, ALL_MINILM_STSB, SBERT_TABLE1

#: The averaged-GloVe rows: row name → whether stop words and punctuation are dropped.
GLOVE_ROWS = {baselines.GLOVE_ROW: False, baselines.GLOVE_NO_STOP_ROW: True}
PUBLISHED_ROWS = ("BERT CLS-vector", "Avg. BERT embeddings", "Avg. GloVe embeddings", "SBERT-NLI-base")


@dataclass
class Table1Run:
    """Every row's cosine of every test pair of the seven sets, the gold scores, and who made each row."""

    gold: dict[str, np.ndarray]
    similarities: dict[str, dict[str, np.ndarray]]  # row → set → cosines
    models: dict[str, str]  # row → the model (or vectors) that made it, when not MODEL
    glove: GloveVectors | None
    split: str

    @property
    def table(self) -> pd.DataFrame:
        """Spearman × 100 per set and their average (``avg``), one row per pooling or model."""
        scores = {row: {name: uncertainty.spearman_rows(values[name], self.gold[name]).item() for name in self.gold}
                  for row, values in self.similarities.items()}
        table = pd.DataFrame(scores).T
        table["avg"] = table.mean(axis=1)
        table.index.name = "row"
        return table


def similarities_of(embed, sets: dict) -> dict[str, np.ndarray]:
    """The cosine of every test pair of each set under ``embed``: what a paired bootstrap resamples."""
    return {name: np.asarray(score_pairs(embed, data), dtype=np.float64) for name, data in sets.items()}


def recompute_table1(lesson: Lesson03) -> Table1Run:
    """§3's experiment: every pooling of MODEL, the model trained for similarity (when MODEL is raw) and averaged
    GloVe two ways (when installed), each scored by cosine on the same test pairs of the seven sets."""
    sets, views = lesson.test_sets(), lesson.views
    similarities = {pooling: similarities_of(lambda s, p=pooling: views.encode(s, p), sets) for pooling in views.poolings}
    models = {}
    if lesson.raw:
        trained, pooling = lesson.trained()
        similarities["trained"] = similarities_of(lambda s: trained.encode(s, pooling), sets)
        models["trained"] = f"{trained.name} ({pooling} pooling)"
    glove = lesson.glove()  # memory-mapped: only the words of these sentences are read
    for row, drop_stop_words in GLOVE_ROWS.items() if glove is not None else ():
        similarities[row] = similarities_of(GloveEncoder(glove, drop_stop_words=drop_stop_words).encode, sets)
        models[row] = f"{GLOVE_NAME}, {'stop words and punctuation dropped' if drop_stop_words else 'every token'}"
    gold = {name: np.asarray(data.scores, dtype=np.float64) for name, data in sets.items()}
    return Table1Run(gold, similarities, models, glove, lesson.split())


def provenance_model(lesson: Lesson03, run: Table1Run) -> str:
    return "; ".join([f"{lesson.encoder.name} (pooling rows)"] + [f"'{row}' row: {model}" for row, model in run.models.items()])


def published_averages() -> Markdown:
    """§3: the published averages of the four rows the lesson recomputes."""
    values = "; ".join(f"{row} **{SBERT_TABLE1.value(row, 'avg'):.2f}**" for row in PUBLISHED_ROWS)
    return Markdown(f"Published averages over the seven sets: {values} ({SBERT_TABLE1.source()}).")


def table1_report(lesson: Lesson03, run: Table1Run) -> Report:
    """§3: the recomputed rows beside SBERT Table 1's, as a table and bars (published rows hatched)."""
    table = with_provenance(run.table, model=provenance_model(lesson, run), pooling="per row (index)", similarity="cosine",
                            aggregation="all (Spearman x 100 per set), avg over the seven sets", split=run.split)
    pooling_rows = table.drop(index=list(GLOVE_ROWS), errors="ignore")
    side = baselines.beside_published(pooling_rows, lesson.short_name, lesson.trained_pooling,
                                      row_models={"trained": run.models["trained"]} if lesson.raw else {})
    return Report(table.round(2), f"Recomputed rows (this run) beside the published rows of SBERT Table 1 (Spearman x 100, "
                                  f"cosine, 'all'): {baselines.TABLE1_SOURCE}.", side.round(2),
                  plots.pooling_figure(side, title=f"Recomputed ({lesson.short_name}) vs published; hatched bars are "
                                                   "quoted from the paper"))


def neighbours_report(lesson: Lesson03, run: Table1Run) -> Report:
    """§3: the rows ranked, each gap to the next row down with its paired-bootstrap interval (drawn); the verdicts."""
    neighbours = comparison.ranked_neighbours(run.similarities, run.gold)
    best, second = neighbours.index[:2]
    gaps = neighbours.attrs["intervals"]
    verdicts = lesson.record({**verdict(NOTEBOOK, "the best row on average over the seven sets", best),
                              **verdict(NOTEBOOK, "the best row against the second",
                                        f"{best} vs {second}: {neighbours['verdict'].iloc[0]}")})
    table = with_provenance(neighbours.round(2), model=provenance_model(lesson, run), pooling="per row (index)",
                            aggregation="avg over the seven sets of Spearman x 100 ('all'); verdict: apart when the 95 % "
                                        "paired bootstrap interval of the gap excludes 0", split=run.split)
    return Report(f"Each gap to the next row down, with its 95 % interval: a paired bootstrap over the "
                  f"{sum(map(len, run.gold.values()))} test pairs of the seven sets ({uncertainty.RESAMPLES} resamples, every "
                  "set resampled at once); apart when the interval excludes 0.", table,
                  f"Best on average: {best}; against the next row, {second}: {neighbours['verdict'].iloc[0]}.",
                  interval_forest_figure(gaps, "Table 1 rows: each row minus the next row down (seven-set average)"),
                  verdicts=verdicts)


def paper_order_report(lesson: Lesson03, run: Table1Run) -> Report:
    """§3: does this run order cls and mean as the paper orders its CLS and Avg. BERT rows? And the trained row
    against the published figure of its own model, where that figure exists (all-MiniLM-L6-v2 on STS-B)."""
    ours = uncertainty.paired_bootstrap(run.gold, run.similarities["cls"], run.similarities["mean"])
    paper = SBERT_TABLE1.value("BERT CLS-vector", "avg") - SBERT_TABLE1.value("Avg. BERT embeddings", "avg")
    lines = [f"cls − mean here: {ours.described()}. Published, BERT CLS-vector − Avg. BERT embeddings: {paper:+.2f} "
             "(a printed figure, no spread)."]
    intervals = {"cls − mean (this run)": ours}
    trained_row, trained = ("trained", lesson.trained()[0]) if lesson.raw else (lesson.pooling, lesson.encoder)
    if trained.name.endswith("all-MiniLM-L6-v2"):
        stsb = uncertainty.score_interval(run.gold["stsb"], run.similarities[trained_row]["stsb"], ALL_MINILM_STSB)
        intervals[f"{trained_row} on STS-B − published {ALL_MINILM_STSB}"] = stsb
        lines.append(f"{trained.name} on STS-B test: published {ALL_MINILM_STSB} ({ALL_MINILM_SOURCE}). Here minus "
                     f"published: {stsb.described()}.")
    return Report(*lines, interval_forest_figure(intervals, "Against the paper's order and the published figure"))


def paper_rows_report() -> Markdown:
    """§3: what the paper's rows say set by set (published figures: no interval can be drawn, the paper prints none)."""
    sets = [column for column in SBERT_TABLE1.columns if column != "avg"]
    value = SBERT_TABLE1.value
    gain = {s: value("SBERT-NLI-base", s) - value("Avg. BERT embeddings", s) for s in sets}
    smallest, largest = min(gain, key=gain.get), max(gain, key=gain.get)
    glove_above = [s for s in sets if value("Avg. GloVe embeddings", s) > value("Avg. BERT embeddings", s)]
    cls_below = [s for s in sets if value("BERT CLS-vector", s) < value("Avg. BERT embeddings", s)]
    return Markdown(
        f"Published (SBERT Table 1): SBERT-NLI-base is above averaged BERT embeddings by **{gain[smallest]:.2f}** "
        f"({smallest}) to **{gain[largest]:.2f}** ({largest}) points, set by set. Averaged GloVe is above averaged BERT on "
        f"{len(glove_above)} of {len(sets)} sets ({', '.join(glove_above)}); the CLS vector is below averaged BERT on "
        f"{len(cls_below)} of {len(sets)}. (Printed figures without a spread: the paper gives no interval to draw.)")
