"""Lesson 02, §0-§3 (``02_anisotropy.ipynb``): which models ran, the cone, the spectrum and the 3-D view.

Each report returns a :class:`~sbert_workbook.lessons.report.Report`: tables with their captions, the sentences the
numbers make, figures, and (§1) the verdicts tools/story_check.py compares between quick and full mode.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from sbert_workbook.anisotropy import metrics, plots, word_frequency
from sbert_workbook.teaching.predict import predict_range
from sbert_workbook.evaluation import geometry
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.evaluation.similarity import mean_cosine
from sbert_workbook.lessons.nb02.lesson import CONE_POOLINGS, NOTEBOOK, Lesson02
from sbert_workbook.lessons.report import Report, verdict

#: What each pooling of the tables is, for their captions.
POOLING_NAMES = {"word_embeddings": "mean of the input word-embedding rows (no positions, no LayerNorm)",
                 "static": "mean over the embedding layer (word + position + token-type embeddings, LayerNorm)",
                 "cls": "[CLS] of the last layer", "mean": "mean over tokens of the last layer"}
CONE_RANGES = {"close to 0 (below 0.15)": 0.15, "around 0.3 (0.15 to 0.45)": 0.45, "around 0.5 (0.45 to 0.6)": 0.6,
               "above 0.6": np.inf}


def poolings_caption(poolings) -> str:
    return f"per row ({', '.join(poolings)}): " + ", ".join(f"{p} = {POOLING_NAMES[p]}" for p in poolings)


def models_report(lesson: Lesson02) -> Report:
    """§0: which models ran, and what the comparison 'raw vs trained' means when only the embedded model could."""
    if not lesson.only_embedded:
        return Report("WHAT RAN: " + ", ".join(lesson.runs))
    return Report(
        "WHAT RAN: only the embedded sentence-transformers/all-MiniLM-L6-v2 (a trained Sentence-BERT model); "
        "bert-base-uncased could not be loaded here. So 'raw vs trained' below compares this model's UN-TUNED views "
        "(the embedding layer = 'static' pooling: word + position + token-type embeddings after LayerNorm; the input "
        "word embeddings alone = 'word_embeddings'; and the [CLS] vector, which its training never used) with the mean "
        "pooling it WAS trained for. The bert-base-uncased numbers shown are the published ones, not ours.")


def data_report(lesson: Lesson02) -> Report:
    """§0: the sentences every section reads, and the frequency ranks of §4-§5."""
    cloud = len(lesson.cloud_rows)
    return Report(f"{len(lesson.sentences)} distinct sentences: {cloud} in the 3-D view, {len(lesson.stsb)} STS-B test "
                  f"pairs ({lesson.stsb.origin})",
                  *(f"{run.short}: {run.frequencies.describe()}; {run.n_layers} hidden states (0 = embedding layer)"
                    for run in lesson.runs.values()))


def predict_cone(lesson: Lesson02):
    """§1's predict question: the static view's mean cosine of unrelated sentences."""
    static_cone = mean_cosine(lesson.vectors("static", rows=lesson.stsb_rows))
    return predict_range(
        f"Under static pooling of {lesson.main_run.short}, is the mean cosine of random, unrelated STS-B sentence pairs "
        "close to 0, around 0.3, around 0.5 or above 0.6?",
        CONE_RANGES, static_cone,
        "static averages the embedding layer: besides its words, every sentence carries the position embeddings of "
        "0 … n−1, the token-type embedding and the [CLS] and [SEP] rows, a part shared by sentences that have nothing in "
        "common. The larger that shared part is beside the words, the further above 0 the mean cosine sits. The next "
        "cell prints it for every view, with the trained mean pooling for contrast.")


def cone_report(lesson: Lesson02) -> Report:
    """§1: the mean cosine of random pairs in every view (table, histogram), the main model's narrowest and widest
    cone (the verdicts), each step of its ranking with a paired bootstrap interval, and the token-level cone."""
    rows = lesson.stsb_rows
    views = lesson.views(CONE_POOLINGS)
    cones = {(m, p): mean_cosine(lesson.vectors(p, rows=rows, model=m)) for m, p in views}
    table = pd.DataFrame({"mean cosine, random sentence pairs": cones.values()}, index=[lesson.view_name(v) for v in views])
    table = with_provenance(table.round(3), model=lesson.models, pooling=poolings_caption(CONE_POOLINGS),
                            aggregation="mean over all pairs (no correlation)", split=lesson.stsb_split)
    main = {p: cones[(lesson.main, p)] for p in CONE_POOLINGS}
    ranked = sorted(main, key=main.get, reverse=True)  # narrowest cone first
    intervals = metrics.mean_cosine_intervals({p: lesson.vectors(p, rows=rows) for p in ranked},
                                              list(zip(ranked, ranked[1:])), seed=lesson.seed)
    steps = ", ".join(f"{name}: {interval.difference:+.3f} [{interval.low:+.3f}, {interval.high:+.3f}], "
                      f"{interval.verdict}" for name, interval in intervals.items())
    histogram = {lesson.view_name((m, p)): metrics.random_pair_cosines(
        lesson.vectors(p, rows=rows, model=m), lesson.sizes.HISTOGRAM_PAIRS, seed=lesson.seed) for m, p in views}
    return Report(
        table,
        f"{lesson.main}: the narrowest cone (highest mean cosine of unrelated sentences) is {ranked[0]}, the widest "
        f"{ranked[-1]}. Each view against the next in that order (difference of mean cosines, 95 % paired bootstrap "
        f"over the sentences): {steps}.",
        interval_forest_figure(intervals, f"{lesson.main_run.short}: each view's mean cosine minus the next one's",
                               unit="mean cosine"),
        *_token_cone_lines(lesson),
        plots.cosine_histogram_figure(histogram, title="Cosine of random STS-B sentence pairs"),
        verdicts={**verdict(NOTEBOOK, "the view with the narrowest cone", ranked[0]),
                  **verdict(NOTEBOOK, "the view with the widest cone", ranked[-1])})


def _token_cone_lines(lesson: Lesson02) -> list[str]:
    lines = []
    for run in lesson.runs.values():
        tokens = run.layers["tokens"]
        lines.append(f"{run.name}: mean cosine of {len(tokens[0])} random contextual token vectors: embedding layer "
                     f"{mean_cosine(tokens[0]):.3f}, last layer {mean_cosine(tokens[-1]):.3f}")
    return lines


def spectrum_report(lesson: Lesson02) -> Report:
    """§2: the uncentred and centred first shares, the directions for 90 % of the variance, and the spectra."""
    views = lesson.views()
    centred = {lesson.view_name(v): geometry.principal_variance_ratios(lesson.vectors(v[1], rows=lesson.stsb_rows,
                                                                                       model=v[0])) for v in views}
    uncentred = {lesson.view_name(v): geometry.principal_variance_ratios(
        lesson.vectors(v[1], rows=lesson.stsb_rows, model=v[0]), center=False)[0] for v in views}
    table = pd.DataFrame({
        "uncentred r1 (the common direction)": uncentred,
        "centred r1 (top principal direction)": {name: ratios[0] for name, ratios in centred.items()},
        "directions for 90% of centred variance": {name: int(np.searchsorted(np.cumsum(ratios), 0.9) + 1)
                                                   for name, ratios in centred.items()},
        "dimension": {lesson.view_name(v): lesson.runs[v[0]].word_embeddings.shape[1] for v in views}})
    table = with_provenance(table.round(3), model=lesson.models, pooling=poolings_caption(("static", "cls", "mean")),
                            aggregation="PCA over all the sentences (variance shares)", split=lesson.stsb_split)
    most = table.iloc[:, 0].idxmax()
    return Report(table, f"The largest common direction: {most}, uncentred r1 = {table.iloc[:, 0][most]:.3f}.",
                  plots.variance_spectrum_figure(centred, title="Centred variance share per principal direction "
                                                                "(STS-B sentences)"))


def cloud_explorer(lesson: Lesson02):
    """§3: the 3-D view of the sentences with its controls (model, layer, pooling, projection, colour)."""
    import ipywidgets as widgets

    from sbert_workbook.teaching.widgets import interactive_figure
    from sbert_workbook.evaluation.projection import PROJECTIONS

    colours = cloud_colours(lesson)
    deepest = max(run.n_layers for run in lesson.runs.values())
    return interactive_figure(
        lambda model, layer, pooling, projection, colour: cloud_figure(lesson, model, layer, pooling, projection,
                                                                       colour, colours),
        model=widgets.Dropdown(options=list(lesson.runs), description="model"),
        layer=widgets.IntSlider(value=deepest - 1, min=0, max=deepest - 1, description="layer"),
        pooling=widgets.Dropdown(options=["mean", "cls"], value="mean", description="pooling"),
        projection=widgets.Dropdown(options=list(PROJECTIONS), value="svd", description="projection"),
        colour=widgets.Dropdown(options=list(colours), description="colour"))


def cloud_colours(lesson: Lesson02) -> dict[str, np.ndarray]:
    """What the 3-D view can colour by: the data set, and per model each sentence's length and mean log10 frequency."""
    sentences = [lesson.sentences[i] for i in lesson.cloud_rows]
    colours = {"dataset": lesson.cloud_dataset}
    for run in lesson.runs.values():
        colours[f"length (tokens) · {run.short}"] = lesson.token_lengths(lesson.cloud_rows, run.name)
        colours[f"mean log10 frequency · {run.short}"] = word_frequency.sentence_log_frequency(
            run.tokenizer, sentences, run.frequencies)
    return colours


_projections: dict = {}


def cloud_figure(lesson: Lesson02, model: str, layer: int, pooling: str, projection: str, colour: str, colours: dict):
    """One 3-D view: the model's ``pooling`` at ``layer`` projected by ``projection`` (projections kept once made)."""
    from sbert_workbook.evaluation.projection import project

    run = lesson.runs[model]
    if layer >= run.n_layers:
        raise ValueError(f"{model} has layers 0..{run.n_layers - 1}; pick a smaller layer.")
    key = (id(lesson), model, layer, pooling, projection)
    if key not in _projections:
        _projections[key] = project(run.vectors(pooling, layer, lesson.cloud_rows), projection, seed=lesson.seed)
    hover = [s if len(s) < 80 else s[:77] + "…" for s in (lesson.sentences[i] for i in lesson.cloud_rows)]
    return plots.embedding_cloud_3d_figure(_projections[key], colours[colour], colour.split(" · ")[0], hover=hover,
                                           title=f"{run.short}, layer {layer}, {pooling} pooling, {projection}",
                                           show_origin=projection == "svd")


def umap_view(lesson: Lesson02):
    """§3: the UMAP view of the last layer's mean pooling, or why it was skipped (USE_UMAP)."""
    if not lesson.use_umap:
        return Report("UMAP skipped in quick mode: its first call compiles with numba (about 30-50 s on 2 busy CPU "
                      "cores), longer than the quick budget allows. The view above uses the 'svd' projection; pick "
                      "'umap' in the widget, or set USE_UMAP = True, to see it.")
    run = lesson.main_run
    return cloud_figure(lesson, run.name, run.n_layers - 1, "mean", "umap", "dataset", {"dataset": lesson.cloud_dataset})
