"""Lesson 03 §5: single pairs and the whole of STS-B interactively, and the pairs a model ranks worst
(``03_pooling_and_sts.ipynb``)."""
from __future__ import annotations

import numpy as np

from sbert_workbook.teaching.predict import predict_question
from sbert_workbook.teaching.widgets import interactive_figure
from sbert_workbook.evaluation import baselines, plots
from sbert_workbook.evaluation.provenance import describe_split, with_provenance
from sbert_workbook.evaluation.sts import score_pairs
from sbert_workbook.lessons.nb03.lesson import Lesson03

WORST = 8  # pairs in the worst-ranked table


def pair_explorer(lesson: Lesson03):
    """An STS-B test pair (or two typed sentences) and its cosine under every pooling, beside the gold score."""
    import ipywidgets as widgets

    stsb = lesson.stsb()
    models = {name: (lesson.views, name) for name in lesson.views.poolings}
    if lesson.raw:
        trained, pooling = lesson.trained()
        models[f"trained ({trained.name.split('/')[-1]})"] = (trained, pooling)
    by_gold = np.argsort(-stsb.scores, kind="stable")
    options = [("(type your own below)", None)] + [
        (f"{stsb.scores[i]:.1f} | {stsb.sentences1[i][:45]} / {stsb.sentences2[i][:45]}", int(i)) for i in by_gold]

    def explore(pair, sentence1, sentence2):
        if pair is None:
            s1, s2, gold, where = sentence1, sentence2, None, "your sentences"
        else:
            s1, s2, gold, where = stsb.sentences1[pair], stsb.sentences2[pair], stsb.scores[pair], f"STS-B test pair {pair}"
        cosines = baselines.pair_cosine_per_encoder(models, s1, s2)
        return plots.pair_cosine_figure(cosines, gold, stsb.score_range, title=f"{where}: {s1!r} / {s2!r}"[:150])

    half = widgets.Layout(width="45%")
    return interactive_figure(
        explore,
        pair=widgets.Dropdown(options=options, value=int(by_gold[0]), description="STS-B pair", layout=widgets.Layout(width="90%")),
        sentence1=widgets.Text(value="I like this restaurant.", continuous_update=False, layout=half),
        sentence2=widgets.Text(value="I don't like this restaurant.", continuous_update=False, layout=half))


def scatter_explorer(lesson: Lesson03):
    """Every STS-B test pair as a point (gold across, cosine up), one pooling at a time."""
    import ipywidgets as widgets

    stsb = lesson.stsb()

    def scatter(pooling):
        predicted = score_pairs(lambda s: lesson.views.encode(s, pooling), stsb)
        return plots.predicted_vs_gold_figure(stsb, predicted, caption=f"{lesson.short_name}, {pooling} pooling, cosine, {stsb.origin}")

    return interactive_figure(scatter, pooling=widgets.ToggleButtons(options=lesson.views.poolings, value=lesson.pooling))


def worst_pairs(lesson: Lesson03):
    stsb = lesson.stsb()
    return plots.worst_ranked_pairs(stsb, score_pairs(lambda s: lesson.views.encode(s, lesson.pooling), stsb), k=WORST)


def predict_worst(lesson: Lesson03):
    """§5's predict question: are the worst-ranked pairs mostly ranked too similar or not similar enough?"""
    too_similar = int((worst_pairs(lesson)["rank_gap"] > 0).sum())
    return predict_question(
        f"Among the {WORST} STS-B pairs that {lesson.short_name} ({lesson.pooling} pooling) ranks worst, are most ranked too "
        "similar (predicted rank above the gold rank), most not similar enough, or half of each?",
        ["Most too similar", "Most not similar enough", "Half of each"],
        "Most too similar" if too_similar > WORST / 2 else "Most not similar enough" if too_similar < WORST / 2 else "Half of each",
        "A bi-encoder's cosine follows the words two sentences share. Pairs with nearly the same words and one that "
        "matters changed (a number, a name, a negation) come out too similar; paraphrases in other words come out not "
        "similar enough. Which kind fills the worst ranks depends on the model and the sample: the next cell lists them, "
        "read each pair and see which kind it is.")


def worst_pairs_report(lesson: Lesson03):
    """§5: the pairs whose predicted rank is furthest from their gold rank."""
    worst = worst_pairs(lesson)
    columns = ["sentence1", "sentence2", "gold", "predicted", "rank_gap"]
    return with_provenance(worst[columns].round(3), model=lesson.encoder, pooling=lesson.pooling, similarity="cosine",
                           aggregation="none: single pairs, ranked by |rank gap|", split=describe_split(lesson.stsb()))
