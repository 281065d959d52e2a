"""Lesson 03 §3 and §3a: SBERT Table 1's first row, averaged GloVe, recomputed two ways, and how much of its gap to the
published row is which words are averaged (``03_pooling_and_sts.ipynb``).

Our two rows use the same 50-d vectors and differ only in the words averaged (every token, or stop words and
punctuation dropped); the published row differs from both in the vectors too (the paper names no release). So the
share of the gap to the published row that dropping stop words closes is measured here, with its interval; what
remains is everything else that differs, vectors included, and is not split further.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from sbert_workbook.encoding.glove import GLOVE_INSTALL, GLOVE_NAME, GloveEncoder
from sbert_workbook.evaluation import uncertainty
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.lessons.nb03.lesson import NOTEBOOK, Lesson03
from sbert_workbook.lessons.nb03.table1 import GLOVE_ROWS, Table1Run
from sbert_workbook.lessons.report import Report, verdict
from sbert_workbook.published import SBERT_TABLE1

EVERY, DROPPED = GLOVE_ROWS  # avg_glove, avg_glove_no_stop_words
PAPER_GLOVE, PAPER_BERT = "Avg. GloVe embeddings", "Avg. BERT embeddings"
GAP_CLAIM = "share of the gap to the published Avg. GloVe row that dropping stop words closes"


def glove_table(lesson: Lesson03, run: Table1Run) -> pd.DataFrame:
    """Our two GloVe rows and the two published averaged rows, per set."""
    ours = run.table.loc[list(GLOVE_ROWS)]
    quoted = pd.DataFrame({f"{row} (published)": [SBERT_TABLE1.value(row, column) for column in ours.columns]
                           for row in (PAPER_GLOVE, PAPER_BERT)}, index=ours.columns).T
    return with_provenance(pd.concat([ours, quoted]).round(2),
                           model=f"first two rows: {GLOVE_NAME} here; last two quoted from {SBERT_TABLE1.source()}",
                           pooling="mean of word vectors (GloVe rows); mean of the last layer (Avg. BERT)",
                           similarity="cosine", aggregation="all (Spearman x 100 per set), avg over the seven sets",
                           split=run.split)


def gap_share(run: Table1Run) -> uncertainty.Interval:
    """(dropped − every token) / (published Avg. GloVe − every token): the share of the gap that dropping stop words and
    punctuation closes, with its bootstrap interval over the test pairs (the published row is a fixed number)."""
    paper = SBERT_TABLE1.value(PAPER_GLOVE, "avg")
    rows = {row: run.similarities[row] for row in GLOVE_ROWS}
    return uncertainty.row_means_interval(run.gold, rows, lambda m: (m[DROPPED] - m[EVERY]) / (paper - m[EVERY]))


def share_verdict(share: uncertainty.Interval) -> str:
    """"more than half" or "less than half" when the interval excludes one half, else "not told apart from half"."""
    return "more than half" if share.low > 0.5 else "less than half" if share.high < 0.5 else "not told apart from half"


def glove_intervals(run: Table1Run) -> dict[str, uncertainty.Interval]:
    """Dropping stop words (paired bootstrap), and each of our rows minus each published row (bootstrap of our score)."""
    intervals = {"stop words dropped − every token": uncertainty.paired_bootstrap(
        run.gold, run.similarities[DROPPED], run.similarities[EVERY])}
    for row, name in ((EVERY, "every token"), (DROPPED, "stop words dropped")):
        for paper, short in ((PAPER_GLOVE, "Avg. GloVe"), (PAPER_BERT, "Avg. BERT")):
            intervals[f"{name} − published {short}"] = uncertainty.score_interval(
                run.gold, run.similarities[row], SBERT_TABLE1.value(paper, "avg"))
    return intervals


def mean_cosines(run: Table1Run) -> str:
    """How alike every pair looks under each GloVe row: the mean cosine over all test pairs."""
    means = {row: np.mean(np.concatenate(list(run.similarities[row].values()))) for row in GLOVE_ROWS}
    return (f"Mean cosine over all {sum(map(len, run.gold.values()))} test pairs: every token {means[EVERY]:.3f}, stop "
            f"words and punctuation dropped {means[DROPPED]:.3f}.")


def glove_report(lesson: Lesson03, run: Table1Run) -> Report:
    """§3's GloVe rows beside the published ones; every difference with its interval, drawn; the two verdicts."""
    if run.glove is None:
        return Report(f"GloVe is not installed, so '{PAPER_GLOVE}' stays a published-only row. To recompute it: {GLOVE_INSTALL}")
    intervals, share = glove_intervals(run), gap_share(run)
    dropping = intervals["stop words dropped − every token"]
    verdicts = lesson.record({**verdict(NOTEBOOK, "averaged GloVe without stop words against every token", dropping.direction),
                              **verdict(NOTEBOOK, GAP_CLAIM, share_verdict(share))})
    paper = SBERT_TABLE1.value(PAPER_GLOVE, "avg")
    share_line = (f"With the same 50-d vectors, dropping stop words and punctuation closes {share.difference:.0%} of the gap "
                  f"between the every-token row and the published {PAPER_GLOVE} row ({paper:.2f}), 95 % interval "
                  f"[{share.low:.0%}, {share.high:.0%}] ({share.method}): {share_verdict(share)}.")
    lines = [f"{label}: {interval.described()}" for label, interval in intervals.items()]
    half = uncertainty.Interval(100 * (share.difference - 0.5), 100 * (share.low - 0.5), 100 * (share.high - 0.5), share.method)
    return Report(glove_table(lesson, run), *lines, share_line, mean_cosines(run),
                  "(Against a published row: our average minus the printed figure, bootstrap of our score only; the "
                  "published rows are fixed numbers. Apart when the interval excludes 0.)",
                  interval_forest_figure(intervals, "Averaged GloVe: dropping stop words, and our rows minus the published ones"),
                  interval_forest_figure({"share of the gap closed − ½": half}, "Share of the gap to the published GloVe row "
                                         "that dropping stop words closes, minus one half", unit="percentage points"),
                  verdicts=verdicts)


def averaged_words(lesson: Lesson03, sentence: str) -> pd.DataFrame | str:
    """§3a: the words each GloVe row averages for ``sentence``, with each word's frequency rank (GloVe's row order)."""
    glove = lesson.glove()
    if glove is None:
        return f"GloVe is not installed here. To see which words each row averages: {GLOVE_INSTALL}"
    rows = {f"{'stop words dropped' if drop else 'every token'}": GloveEncoder(glove, drop_stop_words=drop).rows(sentence)
            for drop in (False, True)}
    table = pd.DataFrame({name: [" ".join(f"{glove.words[r]} ({r + 1:,})" for r in found)] for name, found in rows.items()},
                         index=[sentence]).T
    table.columns = ["word (frequency rank in GloVe's corpus)"]
    return with_provenance(table, model=GLOVE_NAME, pooling="none: the words the mean is taken over",
                           aggregation="none (one sentence)", split=f"one sentence: {sentence!r}")
