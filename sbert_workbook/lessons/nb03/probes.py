"""Lesson 03 §9: one task (SICK-R) read two ways, by the cosine of each frozen view and by a regressor on SentEval's
(|u−v|, u∗v), with each difference's interval drawn; and SBERT's Table 1 beside its Table 5 (``03_pooling_and_sts.ipynb``).
"""
from __future__ import annotations

import pandas as pd

from sbert_workbook.data.loaders import load_nli, load_sts
from sbert_workbook.encoding.glove import GLOVE_NAME, GloveEncoder
from sbert_workbook.evaluation import plots, probes
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.lessons.nb03.lesson import Lesson03
from sbert_workbook.lessons.report import Report
from sbert_workbook.published import SBERT_TABLE1, SBERT_TABLE5

FROZEN_VIEWS = ("word_embeddings", "static", "cls", "mean")
PAPER_ROWS = ("Avg. GloVe embeddings", "Avg. BERT embeddings", "BERT CLS-vector", "SBERT-NLI-base")


def sick_views(lesson: Lesson03):
    """§9's experiment: the first PROBE_PAIRS pairs of SICK train and test (entailment labels for exercise 8, the same
    rows' relatedness scores for the table) and each frozen view's (train u, train v, test u, test v)."""
    pairs = lesson.sizes.PROBE_PAIRS
    sick_train, sick_test = (load_nli("sick_nli", split).first(pairs) for split in ("train", "test"))
    embedders = {name: (lambda s, name=name: lesson.views.encode(s, name)) for name in FROZEN_VIEWS}
    if lesson.raw:
        trained, pooling = lesson.trained()
        embedders[f"trained ({pooling})"] = lambda s: trained.encode(s, pooling)
    glove = lesson.glove()
    if glove is not None:
        embedders["glove"] = GloveEncoder(glove).encode
    views = {name: tuple(embed(s) for s in (sick_train.premises, sick_train.hypotheses, sick_test.premises, sick_test.hypotheses))
             for name, embed in embedders.items()}
    return sick_train, sick_test, views


def relatedness_scores(sick_train, sick_test):
    """SICK-R's relatedness scores of the same rows SICK-E's labels come from (the two share SICK.txt)."""
    relatedness = {split: load_sts("sickr", split) for split in ("train", "test")}
    for split, nli in (("train", sick_train), ("test", sick_test)):
        if relatedness[split].sentences1[:len(nli)] != nli.premises:
            raise ValueError(f"SICK-E and SICK-R {split} rows are not aligned: check the SICK files under the data root.")
    return relatedness["train"].scores[:len(sick_train)], relatedness["test"].scores[:len(sick_test)]


def views_model(lesson: Lesson03, views) -> str:
    models = [f"{lesson.short_name}: {', '.join(FROZEN_VIEWS)}"]
    models += [f"trained: {lesson.trained()[0].name}" for name in views if name.startswith("trained")]
    return "; ".join(models + [f"glove: {GLOVE_NAME}, mean of every token's vector" for name in views if name == "glove"])


def two_ways_report(lesson: Lesson03, sick_train, sick_test, views) -> Report:
    """§9: SICK-R test read by each view's cosine and by a ridge regressor on (|u−v|, u∗v) fitted on SICK-R train;
    the regressor − cosine difference per view with its interval, drawn; the majority label of SICK-E for exercise 8."""
    train_scores, test_scores = relatedness_scores(sick_train, sick_test)
    two_ways = probes.relatedness_two_ways_table(views, train_scores, test_scores)
    intervals = two_ways.attrs["intervals"]
    table = with_provenance(two_ways.round(2), model=views_model(lesson, views), pooling="per row: the view (index)",
                            similarity="cosine; regressor",
                            aggregation="Spearman x 100 against SICK-R relatedness of the same test pairs: of the cosine (no "
                                        "training), and of a ridge regressor on (|u-v|, u*v) fitted on the training pairs' "
                                        f"relatedness; verdict: apart when the {two_ways.attrs['interval']} of the difference excludes 0",
                            split=f"regressor fitted on SICK train ({len(sick_train)} pairs), both read on SICK test ({len(sick_test)} pairs)")
    order = {column: ", ".join(f"{name} {value:.1f}" for name, value in two_ways[column].sort_values(ascending=False).items())
             for column in ("cosine_spearman", "regressor_spearman")}
    tied = [name for name, interval in intervals.items() if not interval.apart]
    majority = 100 * probes.majority_accuracy(sick_train.labels, sick_test.labels)
    return Report(table, plots.relatedness_two_ways_figure(two_ways, title=f"{lesson.short_name}: SICK-R test, read by cosine "
                                                                           "and by a regressor on frozen (|u−v|, u∗v)"),
                  f"Cosine,    best first: {order['cosine_spearman']}", f"Regressor, best first: {order['regressor_spearman']}",
                  f"Regressor and cosine tie (their difference's {two_ways.attrs['interval']} holds 0) for: "
                  f"{', '.join(tied) if tied else 'no view'}.",
                  interval_forest_figure({f"{name}: regressor − cosine": i for name, i in intervals.items()},
                                         "SICK-R test: regressor minus cosine, per frozen view"),
                  f"SICK-E, for exercise 8: always answering the most frequent training label "
                  f"('{pd.Series(sick_train.labels).mode()[0]}') scores {majority:.1f} on the {len(sick_test)} test pairs.")


def published_probes_report() -> Report:
    """§9: SBERT's Table 1 (cosine, STS) beside its Table 5 (probes, SentEval) for four rows, quoted, not run."""
    paper = pd.DataFrame({"Table 1 avg (cosine, STS Spearman x 100)": [SBERT_TABLE1.value(r, "avg") for r in PAPER_ROWS],
                          "Table 5 avg (probe, SentEval accuracy x 100)": [SBERT_TABLE5.value(r, "avg") for r in PAPER_ROWS]},
                         index=list(PAPER_ROWS)).rename_axis("published (SBERT)")
    paper = with_provenance(paper, model="quoted from the paper, not re-run: " + "; ".join(f"{r}: {SBERT_TABLE1.model[r]}" for r in PAPER_ROWS),
                            pooling="; ".join(f"{r}: {SBERT_TABLE1.pooling[r]}" for r in PAPER_ROWS),
                            aggregation=f"Table 1: {SBERT_TABLE1.aggregation}; Table 5: {SBERT_TABLE5.aggregation}",
                            split=f"Table 1: {SBERT_TABLE1.split}; Table 5: {SBERT_TABLE5.split}")
    gaps = [paper.iloc[3, column] - paper.iloc[2, column] for column in (0, 1)]
    return Report(paper, f"SBERT-NLI-base minus BERT CLS-vector: {gaps[0]:.2f} points under cosine (Table 1), {gaps[1]:.2f} "
                         "under the probe (Table 5): different tasks and units, so read it as a loose echo only (printed "
                         "figures without a spread: no interval to draw).",
                  f"{SBERT_TABLE5.source()}. Its tasks ({', '.join(c for c in SBERT_TABLE5.columns if c != 'avg')}) are not "
                  "run in this workbook; all but MRPC are single-sentence tasks, where the probe reads u alone.")
