"""Lesson 02, §4-§5 (``02_anisotropy.ipynb``): BERT-flow's two observations (§2.2) on word embeddings, on GloVe,
and carried to sentences.

Observation 1 (word frequency biases the embedding space: the norm by frequency) is §4, Observation 2 (low-frequency
words disperse sparsely: the distance to the k nearest neighbours) is §5; §5's last part asks both of sentences.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from IPython.display import Markdown
from scipy.stats import spearmanr

from sbert_workbook import published
from sbert_workbook.anisotropy import metrics, plots, sentence_frequency, word_frequency
from sbert_workbook.evaluation.projection import project
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.lessons.nb02.cone import poolings_caption
from sbert_workbook.lessons.nb02.lesson import CONE_POOLINGS, Lesson02
from sbert_workbook.lessons.report import Report

TABLE1_ROWS = ("mean L2 norm", "mean k-NN L2 distance (k=3)", "mean k-NN dot product (k=3)")
SHORT = dict(zip(sentence_frequency.POSITIONS, ("raw distance", "whitened distance", "Gaussian log-density")))
PROPERTIES = ("mean log10 frequency", "length (tokens)")


def published_table1() -> Markdown:
    """§4: BERT-flow's Table 1 rows for bert-base-uncased, as published."""
    buckets = published.BERT_FLOW_TABLE1_BUCKETS
    return Markdown(f"Published ({published.BERT_FLOW_TABLE1_SOURCE}), bucket by bucket {' → '.join(buckets)}:\n\n"
                    + "\n".join(f"* {metric}: " + " → ".join(f"{value:.2f}" for value in published.BERT_FLOW_TABLE1[metric])
                                for metric in TABLE1_ROWS))


def frequency_buckets(lesson: Lesson02) -> dict[str, pd.DataFrame]:
    """§4: BERT-flow's Table 1 for every model: norms and k-NN distances and dot products per frequency bucket."""
    tables = {}
    for run in lesson.runs.values():
        table = metrics.frequency_bucket_table(run.word_embeddings, run.frequencies.ranks,
                                               queries_per_bucket=lesson.sizes.QUERIES_PER_BUCKET, seed=lesson.seed)
        tables[run.name] = with_provenance(table, model=run.described, pooling="none: rows of the input word-embedding matrix",
                                           aggregation="mean over the k-NN queries of each frequency bucket",
                                           split=f"no sentences; frequency ranks from {run.frequencies.corpus}")
    return tables


def bucket_report(lesson: Lesson02, buckets: dict[str, pd.DataFrame]) -> Report:
    """§4: each model's bucket table, the main model's rows beside the published ones, and how its norms follow
    frequency (Spearman over every ranked token, and a figure of a sample)."""
    parts = []
    for name, table in buckets.items():
        parts += [f"Model: {name}; k-NN queries: {table.attrs['provenance']['queries']}; neighbours: "
                  f"{table.attrs['provenance']['neighbours']}.", table.round(3)]
    beside = metrics.reference_beside(buckets[lesson.main])
    parts += [beside.round(2), plots.bucket_figure(beside, title=f"{lesson.main_run.short} beside the published "
                                                                 "bert-base-uncased numbers")]
    for run in lesson.runs.values():
        ranked = run.frequencies.ranked_ids()
        rho = spearmanr(np.log10(run.frequencies.frequencies[ranked]),
                       run.word_embeddings[ranked].norm(dim=1).numpy()).statistic
        parts.append(f"{run.name}: Spearman(log frequency, norm) = {rho:+.2f} over {len(ranked)} ranked tokens "
                     f"({'rarer words are longer' if rho < 0 else 'frequent words are longer'}); published BERT trend: "
                     "rarer = longer.")
    return Report(*parts, _norm_figure(lesson))


def _norm_figure(lesson: Lesson02):
    run = lesson.main_run
    ranked = run.frequencies.ranked_ids()
    shown = np.sort(np.random.default_rng(lesson.seed).choice(ranked, min(lesson.sizes.NORM_SAMPLE, len(ranked)),
                                                              replace=False))
    return plots.norm_vs_log_frequency_figure(
        run.word_embeddings[shown].norm(dim=1).numpy(), run.frequencies.frequencies[shown],
        [run.frequencies.tokens[i] for i in shown],
        title=f"{run.short}: word-embedding norm against log10 frequency ({len(shown)} tokens)")


def glove_report(lesson: Lesson02, buckets: dict[str, pd.DataFrame]) -> Report:
    """§4: the same table on GloVe's most frequent words (row = frequency rank), and each measure's trend from the most
    frequent bucket to the rarest, beside the models' and the published one."""
    from sbert_workbook.encoding import glove

    if not glove.glove_available():
        return Report(f"GloVe is not installed, so this comparison is skipped. To run it: {glove.GLOVE_INSTALL}")
    words = lesson.sizes.GLOVE_WORDS
    vectors = glove.load_glove()
    top = np.array(vectors.vectors[:words])  # reads only these rows of the memory-mapped matrix
    table = metrics.frequency_bucket_table(top, np.arange(words), queries_per_bucket=lesson.sizes.QUERIES_PER_BUCKET,
                                           seed=lesson.seed)
    table = with_provenance(table, model=f"{glove.GLOVE_NAME} ({vectors.source})", pooling="none: GloVe word vectors",
                            aggregation="mean over the k-NN queries of each frequency bucket",
                            split=f"no sentences; rank = row in GloVe's frequency-sorted vocabulary, top {words} words")
    trends = pd.DataFrame({glove.GLOVE_NAME: {m: _trend(table.loc[m].to_numpy()) for m in TABLE1_ROWS},
                           **{name: {m: _trend(t.loc[m].to_numpy()) for m in TABLE1_ROWS} for name, t in buckets.items()},
                           "bert-base-uncased, published": {m: _trend(published.BERT_FLOW_TABLE1[m]) for m in TABLE1_ROWS}})
    trends = with_provenance(trends, model=f"{glove.GLOVE_NAME}; " + "; ".join(buckets),
                             pooling="none: word vectors / input word-embedding rows",
                             aggregation="first bucket [0, 100) → last bucket, from the tables above",
                             split=f"published column: {published.BERT_FLOW_TABLE1_SOURCE}")
    rho = spearmanr(np.arange(words), np.linalg.norm(top, axis=1)).statistic
    return Report(table.round(3), trends,
                  f"{glove.GLOVE_NAME}: Spearman(frequency rank, norm) = {rho:+.2f} over its {words} most frequent words "
                  f"({'rarer words are longer, as in BERT' if rho > 0 else 'rarer words are SHORTER: the opposite of BERT'}).")


def _trend(values) -> str:
    """'rises (0.95 → 1.45)': most frequent bucket → rarest bucket."""
    first, last = float(values[0]), float(values[-1])
    return f"{'rises' if last > first else 'falls'} ({first:.2f} → {last:.2f})"


def sparsity_figure(lesson: Lesson02, ranked_rows: np.ndarray, sample: np.ndarray, distances: np.ndarray):
    """§5: each sampled token's mean distance to its k nearest ranked neighbours against its frequency rank."""
    run = lesson.main_run
    return plots.knn_distance_by_rank_figure(
        run.frequencies.ranks[ranked_rows[sample]], distances.mean(axis=1),
        [run.frequencies.tokens[i] for i in ranked_rows[sample]], k=distances.shape[1],
        title=f"{run.short}: mean {distances.shape[1]}-NN L2 distance by frequency rank ({len(sample)} tokens)")


def word_map(lesson: Lesson02):
    """§5: a 2-D PCA map of tokens drawn from each frequency bucket (WORD_MAP_TOKENS of each)."""
    run = lesson.main_run
    rng = np.random.default_rng(lesson.seed)
    bucket_of = metrics.bucket_of(run.frequencies.ranks)
    picked = np.concatenate([rng.choice(np.flatnonzero(bucket_of == b), min(n, int((bucket_of == b).sum())), replace=False)
                             for b, n in enumerate(lesson.sizes.WORD_MAP_TOKENS)])
    names = [metrics.bucket_label(b) for b in metrics.BERT_FLOW_BUCKETS]
    return plots.word_map_2d_figure(project(run.word_embeddings[picked], "pca", n_components=2),
                                    [names[b] for b in bucket_of[picked]], [run.frequencies.tokens[i] for i in picked],
                                    title=f"{run.short}: word embeddings (PCA of {len(picked)} tokens) by frequency bucket")


def sentence_places(lesson: Lesson02) -> dict:
    """§5: for every view of §1 and every distinct sentence, where it sits (distance from the mean, raw and whitened,
    and Gaussian log-density), and each model's sentence properties (mean log10 frequency, length)."""
    properties = {run.name: dict(zip(PROPERTIES, (
        word_frequency.sentence_log_frequency(run.tokenizer, lesson.sentences, run.frequencies),
        lesson.token_lengths(model=run.name)))) for run in lesson.runs.values()}
    places, dimensions = {}, {}
    for view in lesson.views(CONE_POOLINGS):
        vectors = lesson.vectors(view[1], model=view[0])
        dimensions[view] = sentence_frequency.gaussian_dimensions(vectors)
        places[view] = sentence_frequency.sentence_positions(vectors, dimensions=dimensions[view])
    return {"properties": properties, "places": places, "dimensions": dimensions}


def sentence_frequency_report(lesson: Lesson02, found: dict) -> Report:
    """§5: Spearman's ρ of each sentence property with each place, every view; how much frequency and length go
    together; and that the whitened distance and the Gaussian density are one measure."""
    rows = {}
    for view, places in found["places"].items():
        rhos = sentence_frequency.spearman_table(found["properties"][view[0]], places).rename(columns=SHORT)
        rows[lesson.view_name(view)] = {f"ρ({'log-freq' if p.startswith('mean') else 'length'}, {c})": rhos.loc[p, c]
                                        for p in rhos.index for c in rhos.columns}
        rows[lesson.view_name(view)]["Gaussian k"] = found["dimensions"][view]
    table = with_provenance(pd.DataFrame(rows).T.round(3), model=lesson.models, pooling=poolings_caption(CONE_POOLINGS),
                            aggregation="Spearman ρ over all the sentences (one per cell; sentences without a ranked "
                                        "token left out)",
                            split=f"all {len(lesson.sentences)} distinct sentences of §0; frequency: "
                                  f"{lesson.main_run.frequencies.corpus}; Gaussian and whitening fitted on them")
    lines = [f"{lesson.runs[m].short}: ρ(mean log10 frequency, length) = "
             f"{sentence_frequency.spearman_table({'f': p[PROPERTIES[0]]}, {'l': p[PROPERTIES[1]]}).iloc[0, 0]:+.3f} over "
             "these sentences: how much a frequency effect and a length effect can stand in for each other"
             for m, p in found["properties"].items()]
    same = sorted({round(float(spearmanr(p[sentence_frequency.POSITIONS[2]], p[sentence_frequency.POSITIONS[1]]).statistic), 6)
                   for p in found["places"].values()})
    main = table.loc[[lesson.view_name((lesson.main, p)) for p in CONE_POOLINGS], "ρ(log-freq, raw distance)"]
    return Report(table, *lines, f"ρ(Gaussian log-density, whitened distance) in every view: {same}",
                  f"{lesson.main_run.short}: ρ(log-freq, raw distance) is negative (sentences of rarer words sit further "
                  f"out) in {int((main < 0).sum())} of its {len(main)} views, from {main.min():+.2f} "
                  f"({main.idxmin().split(' · ')[1]}) to {main.max():+.2f} ({main.idxmax().split(' · ')[1]}).")


def sentence_frequency_explorer(lesson: Lesson02, found: dict):
    """§5: the scatter behind one row of the table: pick the view and the property."""
    import ipywidgets as widgets

    from sbert_workbook.teaching.widgets import interactive_figure

    hover = [s if len(s) < 80 else s[:77] + "…" for s in lesson.sentences]

    def figure(view, sentence_property):
        places = found["places"][view]
        return plots.sentence_position_figure(
            found["properties"][view[0]][sentence_property],
            {SHORT[p]: places[p] for p in sentence_frequency.POSITIONS[:2]}, sentence_property, hover=hover,
            title=f"{lesson.view_name(view)}: {sentence_property} against the distance from the mean, raw and whitened "
                  f"({len(lesson.sentences)} sentences)")

    views = lesson.views(CONE_POOLINGS)
    return interactive_figure(
        figure, view=widgets.Dropdown(options=[(lesson.view_name(v), v) for v in views], value=(lesson.main, "static"),
                                      description="view"),
        sentence_property=widgets.Dropdown(options=list(PROPERTIES), description="property"))
