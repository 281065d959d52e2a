"""Lesson 05, §8: does a similarity just count shared words? BERT-flow's Table 6 and Figure 2 re-run, hand-written
pairs, and SimCSE §4's positive pairs (``05_bert_flow.ipynb``).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from IPython.display import Markdown
from scipy.stats import spearmanr

from sbert_workbook import published
from sbert_workbook.teaching.predict import predict_question
from sbert_workbook.calibration import plots
from sbert_workbook.calibration.lexical import OPPOSITE_PAIRS, PARAPHRASE_PAIRS, edit_distance, lexical_correlations
from sbert_workbook.evaluation import uncertainty
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.provenance import describe_split, with_provenance
from sbert_workbook.evaluation.similarity import cosine_similarity
from sbert_workbook.lessons.nb05.lesson import Lesson05
from sbert_workbook.lessons.report import Report

LEX_OPTIONS = ["the raw static cosine", "the gold scores", "about the same"]
#: The view BERT-flow's Figure 2 is re-drawn for, and the two columns of its Table 6 (theirs, ours).
FIGURE2_VIEW = "static"
COLUMNS = (("edit distance", "spearman_with_edit_distance"), ("gold similarity", "spearman_with_gold"))


def predict_overlap(lesson: Lesson05, distances: np.ndarray):
    """§8's predict question: which falls more steeply with edit distance, the raw static cosine or the gold scores?"""
    dev, embed = lesson.stsb_dev, lesson.embed("static")
    static = spearmanr(distances, cosine_similarity(embed(dev.sentences1), embed(dev.sentences2))).statistic
    gold = spearmanr(distances, dev.scores).statistic
    answer = LEX_OPTIONS[2] if abs(static - gold) < 0.05 else LEX_OPTIONS[0 if static < gold else 1]
    return predict_question(
        "On STS-B dev pairs, which falls more steeply as the word edit distance between the two sentences grows (a more "
        "negative Spearman with it): the raw static-view cosine, or the gold human scores?", LEX_OPTIONS, answer,
        "The static view averages embedding-layer vectors, one per token: two sentences that share most of their words "
        "share most of their average, whatever the words mean together, so its cosine tracks overlap closely. People "
        "score meaning; paraphrases do share words, so gold scores fall with edit distance too, but less tightly. "
        "BERT-flow's Table 6 makes the same comparison for raw BERT; the next cell prints both columns.")


def lexical_table(lesson: Lesson05, distances: np.ndarray) -> pd.DataFrame:
    """§8: Spearman × 100 of each view's cosine, raw and through its STS-B target flow, with the edit distance and
    with the gold scores (Table 6's two columns), on STS-B dev."""
    dev, similarities = lesson.stsb_dev, {}
    for view in lesson.views:
        u, v = lesson.bank.get(view, dev.sentences1), lesson.bank.get(view, dev.sentences2)
        flow = lesson.results["fitted"][view][("+flow (target)", "stsb")]
        similarities[f"{view}, raw"] = cosine_similarity(u, v)
        similarities[f"{view} + flow (target)"] = cosine_similarity(flow.transform(u), flow.transform(v))
    lesson.results.update(lexical_similarities=similarities, edit_distances=distances)
    table = lexical_correlations(distances, dev.scores, similarities)
    return with_provenance(table.round(2), model=lesson.described, aggregation="one Spearman over all pairs",
                           pooling="per row: the view, raw or + flow fitted on STS-B's sentences", split=describe_split(dev))


def flow_moves(lesson: Lesson05) -> dict[str, uncertainty.Interval]:
    """Per view and column: Spearman(flow) − Spearman(raw) with the edit distance and with gold, paired bootstrap."""
    similarities, distances, gold = lesson.results["lexical_similarities"], lesson.results["edit_distances"], lesson.stsb_dev.scores
    moves = {}
    for view in lesson.views:
        flowed, raw = similarities[f"{view} + flow (target)"], similarities[f"{view}, raw"]
        moves[f"{view}: with edit distance, flow − raw"] = uncertainty.paired_bootstrap(distances, flowed, raw)
        moves[f"{view}: with gold, flow − raw"] = uncertainty.paired_bootstrap(gold, flowed, raw)
    return moves


def lexical_report(lesson: Lesson05, lexical: pd.DataFrame) -> Report:
    """§8: this run's Table 6 beside the paper's, how the flow moves each column (intervals drawn), Figure 2's numbers."""
    t6, dev = published.BERT_FLOW_TABLE6, lesson.stsb_dev
    moves = flow_moves(lesson)
    raw_row, flow_row = f"{FIGURE2_VIEW}, raw", f"{FIGURE2_VIEW} + flow (target)"
    lines = [f"Spearman × 100 with {column}: paper, BERT {t6.value('BERT-induced similarity', column):.2f} -> flow "
             f"{t6.value('Flow-induced similarity', column):.2f}; ours, {FIGURE2_VIEW} raw {lexical.loc[raw_row, ours]:.2f} "
             f"-> flow {lexical.loc[flow_row, ours]:.2f}" for column, ours in COLUMNS]
    apart = [name for name, interval in moves.items() if interval.apart]
    lines.append(f"On these {len(dev)} dev pairs the flow's move is apart from 0 (95 % paired bootstrap over the pairs) "
                 f"for {len(apart)} of the {len(moves)} view-and-column cells" + (f": {', '.join(apart)}." if apart else
                                                                                     "; the rest are within the sample's noise."))
    return Report(f"{lesson.described.split(' (')[0]}, STS-B dev ({len(dev)} pairs), Spearman × 100 of each similarity "
                  "with the word edit distance and with the gold scores (Table 6's two columns)", lexical,
                  Markdown(f"**Published: BERT-flow {t6.table}** (bert-base-uncased, STS-B dev; quoted, not re-run; "
                           "column `gold similarity`: Spearman × 100 of each similarity with the gold scores):"),
                  t6.frame(), *lines,
                  interval_forest_figure(moves, title="What the flow (target) changes in each view's two Table 6 columns"))


def figure2(lesson: Lesson05):
    """§8: BERT-flow's Figure 2 re-drawn: each STS-B dev pair at its similarity and its edit distance."""
    similarities, raw_row, flow_row = lesson.results["lexical_similarities"], f"{FIGURE2_VIEW}, raw", f"{FIGURE2_VIEW} + flow (target)"
    return plots.edit_distance_figure(lesson.results["edit_distances"], {
        "gold score": lesson.stsb_dev.scores, f"{raw_row} cosine": similarities[raw_row],
        f"{flow_row} cosine": similarities[flow_row]})


def hand_written_pairs(lesson: Lesson05) -> pd.DataFrame:
    """§8: pairs that share almost every word but mean the opposite, and paraphrases that share few, raw and + flow."""
    rows = []
    for a, b in OPPOSITE_PAIRS + PARAPHRASE_PAIRS:
        row = {"pair": f"{a} / {b}", "edit distance": edit_distance(a, b)}
        for view in [v for v in ("static", "mean") if v in lesson.views]:
            u, v = lesson.bank.get(view, [a]), lesson.bank.get(view, [b])
            flow = lesson.results["fitted"][view][("+flow (target)", "stsb")]
            row[f"{view} raw"] = cosine_similarity(u, v)[0]
            row[f"{view} + flow"] = cosine_similarity(flow.transform(u), flow.transform(v))[0]
        rows.append(row)
    return with_provenance(pd.DataFrame(rows).round(3), model=lesson.described, aggregation="none: one pair per row",
                           pooling="per column: static and mean, raw or + flow fitted on STS-B's sentences",
                           split=f"{len(rows)} hand-written pairs (sbert_workbook.calibration.lexical)")


def positive_pairs_report(lesson: Lesson05, lexical: pd.DataFrame) -> Report:
    """§8: SimCSE's Table 4 and the lexical overlap of its positive pairs, beside this run's Table 6 column."""
    t4, overlap, entailment = published.SIMCSE_TABLE4, published.SIMCSE_LEXICAL_OVERLAP, "SNLI+MNLI entailment"
    return Report(
        Markdown(f"**Published: SimCSE {t4.table}** (bert-base-uncased, {t4.split}; quoted, not re-run; `sample`: the "
                 "same number of pairs from each dataset, `full`: all of them; each row's training in "
                 "`published.SIMCSE_TABLE4`):"), t4.frame(),
        f"SimCSE §4: the lexical overlap (F1 between two bags of words) of the entailment pairs (SNLI + MNLI) is "
        f"{overlap[entailment]} %, against {overlap['QQP']} % for QQP and {overlap['ParaNMT']} % for ParaNMT; with as many "
        f"pairs each (Table 4, sample), STS-B dev {t4.value(entailment + ' (314k)', 'sample'):.1f}, "
        f"{t4.value('QQP (134k)', 'sample'):.1f} and {t4.value('ParaNMT (5m)', 'sample'):.1f}.",
        f"Here, {len(lesson.stsb_dev)} STS-B dev pairs, Spearman × 100 with the word edit distance: gold scores "
        f"{lexical.loc['gold', 'spearman_with_edit_distance']:.2f}, the raw {FIGURE2_VIEW} cosine "
        f"{lexical.loc[f'{FIGURE2_VIEW}, raw', 'spearman_with_edit_distance']:.2f}.")
