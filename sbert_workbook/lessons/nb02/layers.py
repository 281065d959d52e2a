"""Lesson 02, §6-§8 (``02_anisotropy.ipynb``): the cone layer by layer, alignment and uniformity, raw against trained.

§7's report records which view ranks the STS-B pairs best and draws, for every other view, the paired bootstrap
interval of its difference to that one (frozen views on the same test pairs).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from sbert_workbook.anisotropy import metrics, plots
from sbert_workbook.teaching.predict import predict_question
from sbert_workbook.evaluation import geometry
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.provenance import describe_split, with_provenance
from sbert_workbook.evaluation.similarity import cosine_similarity, mean_cosine
from sbert_workbook.evaluation.uncertainty import paired_bootstrap
from sbert_workbook.lessons.nb02.cone import poolings_caption
from sbert_workbook.lessons.nb02.lesson import EMBEDDED_ID, NOTEBOOK, POOLINGS, Lesson02
from sbert_workbook.lessons.report import Report, verdict

CLS_OPTIONS = ["about 0: unrelated sentences, unrelated vectors", "somewhere in between",
               "exactly 1: the same vector for every sentence"]
STS = "STS-B Spearman × 100"


def predict_cls(lesson: Lesson02):
    """§6's predict question: the mean cosine of the [CLS] vectors at layer 0."""
    cls_layer0 = mean_cosine(lesson.vectors("cls", layer=0, rows=lesson.stsb_rows))
    answer = CLS_OPTIONS[2] if abs(cls_layer0 - 1) < 1e-3 else CLS_OPTIONS[0] if abs(cls_layer0) < 0.15 else CLS_OPTIONS[1]
    return predict_question(
        "At layer 0, the embedding layer before any attention, what is the mean cosine between the [CLS] vectors of "
        "two different sentences?", CLS_OPTIONS, answer,
        "The embedding layer looks at one token at a time: [CLS] is the same word piece, at the same position 0, with the "
        "same token type, in every sentence, so it gets the same vector whatever follows it. Only attention, layer by "
        "layer, lets it gather something from its sentence: the cls column of the next table shows how fast it moves "
        "away from where it starts.")


def layer_report(lesson: Lesson02) -> Report:
    """§6: the mean cosine of random pairs at every hidden state, per model: mean-pooled, [CLS] and single tokens."""
    parts, columns = [], {}
    for run in lesson.runs.values():
        table = metrics.layerwise_anisotropy({"mean": [layer[lesson.stsb_rows] for layer in run.layers["mean"]],
                                              "cls": [layer[lesson.stsb_rows] for layer in run.layers["cls"]],
                                              "tokens": run.layers["tokens"]})
        table = with_provenance(
            table.round(3), model=run.described,
            pooling="per column: mean over tokens, [CLS], single token vectors; one row per layer",
            aggregation="mean cosine over all pairs (no correlation)",
            split=f"{lesson.stsb_split}; tokens: {len(run.layers['tokens'][0])} random tokens of all "
                  f"{len(lesson.sentences)} sentences")
        lowest = table["tokens"].idxmin()
        parts += [table, f"{run.short}: single token vectors are least alike at layer {lowest} "
                         f"({table['tokens'][lowest]:.3f}), most alike at layer {table['tokens'].idxmax()} "
                         f"({table['tokens'].max():.3f}); [CLS] at layer 0: {table['cls'][0]:.3f}."]
        columns.update({f"{run.short} · {column}": table[column] for column in table.columns})
    return Report(*parts, plots.layerwise_anisotropy_figure(pd.DataFrame(columns)))


def predict_sts(lesson: Lesson02):
    """§7's predict question: which view of the main model ranks the STS-B pairs best."""
    scores = {pooling: _spearman(lesson, lesson.main, pooling) for pooling in POOLINGS}
    trained = lesson.main == EMBEDDED_ID
    return predict_question(
        f"Which view of {lesson.main_run.short} will have the highest STS-B Spearman (cosine of each pair against the "
        "human scores): static, cls or mean?", list(scores), max(scores, key=scores.get),
        "all-MiniLM-L6-v2 was trained, with mean pooling of its last layer, to put similar sentences close; static and "
        "cls are views its training never used. Compare the mean cosine and uniformity columns of the next table too."
        if trained else
        f"{lesson.main} was never trained for similarity, so no view is favoured by training. An average over all "
        "tokens keeps more of the sentence than the single [CLS] vector, which pre-training used only for next-sentence "
        "prediction; whether the embedding layer or the last layer averages better is for the next table to say.")


def _similarities(lesson: Lesson02, model: str, pooling: str) -> np.ndarray:
    first, second = lesson.pair_rows
    return cosine_similarity(lesson.vectors(pooling, rows=first, model=model), lesson.vectors(pooling, rows=second, model=model))


def _spearman(lesson: Lesson02, model: str, pooling: str) -> float:
    return 100 * spearmanr(_similarities(lesson, model, pooling), lesson.stsb.scores).statistic


def geometry_summary(lesson: Lesson02) -> pd.DataFrame:
    """§7: for every view, the cone (mean cosine, uncentred r1), alignment of the pairs scored above 4, uniformity of
    the STS-B sentences and the STS-B Spearman × 100."""
    rows, (first, second) = lesson.stsb_rows, lesson.pair_rows
    positive = np.asarray(lesson.stsb.scores) > 4
    summary = {}
    for model, pooling in lesson.views():
        vectors = lambda at: lesson.vectors(pooling, rows=at, model=model)  # noqa: E731
        summary[lesson.view_name((model, pooling))] = {
            "mean cosine": mean_cosine(vectors(rows)),
            "uncentred r1": geometry.principal_variance_ratios(vectors(rows), center=False)[0],
            "alignment": geometry.alignment(vectors(first[positive]), vectors(second[positive])),
            "uniformity": geometry.uniformity(vectors(rows)), STS: _spearman(lesson, model, pooling)}
    return with_provenance(
        pd.DataFrame(summary).T, model=lesson.models, pooling=poolings_caption(POOLINGS), similarity="cosine",
        aggregation="all: every pair in one Spearman (last column); means over pairs or sentences (other columns)",
        split=f"{describe_split(lesson.stsb)}; positives: {positive.sum()} pairs scored > 4; uniformity over "
              f"{len(rows)} sentences")


def sts_intervals(lesson: Lesson02, summary: pd.DataFrame) -> dict:
    """The best view's STS-B Spearman minus every other view's, each with its paired bootstrap over the test pairs."""
    names = {lesson.view_name(view): view for view in lesson.views()}
    best = summary[STS].idxmax()
    gold = np.asarray(lesson.stsb.scores, dtype=np.float64)
    return {f"{best} − {name}": paired_bootstrap(gold, _similarities(lesson, *names[best]),
                                                 _similarities(lesson, *names[name]), seed=lesson.seed)
            for name in summary[STS].sort_values(ascending=False).index if name != best}


def summary_report(lesson: Lesson02, summary: pd.DataFrame) -> Report:
    """§7: the table, alignment against uniformity, and the best STS-B view against every other with its interval
    (the verdict: which view ranks the pairs best, and whether the runner-up ties it)."""
    best = summary[STS].idxmax()
    intervals = sts_intervals(lesson, summary)
    runner_up, closest = next(iter(intervals.items()))
    return Report(
        summary.round(3), plots.alignment_uniformity_figure(summary),
        f"Best STS-B view: {best} ({summary[STS][best]:.2f}); against the runner-up {runner_up.split(' − ')[1]}: "
        f"{closest.described()}.",
        interval_forest_figure(intervals, f"STS-B Spearman: {best} minus each other view"),
        verdicts=verdict(NOTEBOOK, "the view with the best STS-B Spearman", best))


def raw_vs_trained(lesson: Lesson02, summary: pd.DataFrame) -> Report:
    """§8: what ran, and the best STS-B view's cone beside the narrowest."""
    best, narrowest = summary[STS].idxmax(), summary["mean cosine"].idxmax()
    reminder = ("Reminder of what ran: only the embedded all-MiniLM-L6-v2. Its 'static' and 'cls' rows stand in for a "
                "raw model; they are NOT bert-base-uncased. Run with MODEL='bert-base-uncased' where it can be "
                "downloaded to see a truly raw model beside the trained one.") if lesson.only_embedded else None
    return Report(reminder, f"Best STS-B view: {best}; its mean cosine {summary['mean cosine'][best]:.3f} against the "
                            f"highest, {summary['mean cosine'][narrowest]:.3f} ({narrowest}).")
