"""Lesson 07, §5–§8: the fix ladder and its verdict, the alignment–uniformity plane, the one-page report and the other
models (``07_your_model.ipynb``)."""
from __future__ import annotations

import time

import pandas as pd

from sbert_workbook.app.predict import predict_question
from sbert_workbook.diagnosis import fixes, plane
from sbert_workbook.diagnosis.ladder import NO_FIX, Ladder, climb
from sbert_workbook.diagnosis.page import write_report
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.lessons.nb07.measures import NOTEBOOK, Lesson07, _captioned, _why_not
from sbert_workbook.lessons.report import Report, verdict

#: The models §8 tries besides MODEL, as load_subject names them ("auto": bert-base-uncased when its cache is there).
ZOO = ("embedded", "auto", "tiny-mlm", "glove")


def climb_ladder(lesson: Lesson07) -> Ladder | None:
    """§5's experiment: every fix fitted on the sentences (no labels) and scored on the seven sets (None: no STS here)."""
    if lesson.pairs is None:
        lesson.found.skipped["fix ladder"] = _why_not(lesson)
        return None
    rungs = fixes.ladder(lesson.vectors.shape[1], len(lesson.vectors), lesson.seed)
    lesson.found.ladder = climb(rungs, lesson.pairs, lesson.seed, lesson.sizes.RESAMPLES)
    return lesson.found.ladder


def predict_ladder(lesson: Lesson07, ladder: Ladder | None):
    """§5's predict question: will any fix lift this model's STS for sure (and by at least a point)?"""
    if ladder is None:
        return f"No ladder for {lesson.subject.name}: {_why_not(lesson)}."
    options = ["No: it needs no fix", "Yes: one of the fixes"]
    return predict_question(
        f"{lesson.subject.name}: will any rung of the ladder raise its seven-set mean Spearman by a point or more, with "
        "the whole 95 % interval above zero?", options, options[ladder.needed is not None],
        "A model trained for similarity already spreads its sentences, and the fixes may undo what its training set up; "
        "a raw transformer's cone is mostly frequency and position, which the fixes remove. The next cell shows each "
        "change with its interval.")


def ladder_report(lesson: Lesson07, ladder: Ladder | None) -> Report:
    """§5: Spearman per set for every rung, each change drawn with its interval, and the computed verdict."""
    if ladder is None:
        return Report(f"No fix ladder: {_why_not(lesson)}.")
    table = _captioned(ladder.table.round(2), lesson, "Spearman × 100 of cosine per set (all pairs pooled), avg = mean of the seven")
    best = ladder.intervals[ladder.best]
    said = (f"This model {ladder.verdict()}: " + (f"{ladder.needed} changes its mean by {ladder.intervals[ladder.needed].described()}."
            if ladder.needed else f"the best rung, {ladder.best}, changes it by {best.described()}."))
    figure = interval_forest_figure({f"{name} − {NO_FIX}": interval for name, interval in ladder.intervals.items()},
                                    f"{lesson.subject.name}: each fix's change of the seven-set mean Spearman")
    return Report(table, said, figure, verdicts=verdict(NOTEBOOK, "the fix this model needs", ladder.needed or "none"))


def plane_report(lesson: Lesson07, ladder: Ladder | None) -> Report:
    """§6: ℓ_align against ℓ_uniform for the model and every rung (06's plane), and SimCSE §7's claim checked."""
    from sbert_workbook.training.contrastive_plots import alignment_uniformity_plane_figure

    if ladder is None:
        lesson.found.skipped["alignment and uniformity"] = _why_not(lesson)
        return Report(f"No plane: {_why_not(lesson)}.")
    try:
        points = plane.plane_points(lesson.pairs, lesson.sets["stsb"], ladder.fitted, lesson.sizes.UNIFORMITY_SENTENCES)
    except plane.TooFewPositivesError as why:
        lesson.found.skipped["alignment and uniformity"] = str(why)
        return Report(f"No plane: {why}.")
    lesson.found.plane = points
    start = points.loc[NO_FIX]
    whitening = next(name for name in points.index if name.startswith("whitening"))
    moves = {name: f"{'more' if points.loc[name, 'uniformity'] < start['uniformity'] else 'less'} uniform, "
                   f"{'less' if points.loc[name, 'alignment'] > start['alignment'] else 'more'} aligned"
             for name in (whitening, "flow")}
    table = _captioned(points.round(3), lesson, f"alignment over {points.attrs['positives']}; uniformity over "
                                                f"{points.attrs['uniformity over']}")
    verdicts = {}
    for name, move in moves.items():
        verdicts |= verdict(NOTEBOOK, f"{name.split('-')[0]} against the model on the plane", move)
    return Report(table, "; ".join(f"{name}: {move}" for name, move in moves.items())
                  + " (SimCSE §7: post-processing makes a space more uniform and less aligned).",
                  alignment_uniformity_plane_figure(points), verdicts=verdicts)


def page_report(lesson: Lesson07, folder="diagnosis") -> Report:
    """§7: the one-page report, HTML and JSON, written into ``folder``; its headline."""
    page, data = write_report(lesson.found, folder)
    headline = "\n".join(f"  {key}: {value:.3f}" if isinstance(value, float) else f"  {key}: {value}"
                         for key, value in lesson.found.headline().items())
    return Report(f"Headline:\n{headline}",
                  f"Wrote {page} ({page.stat().st_size / 1024:.0f} KB) and {data} ({data.stat().st_size / 1024:.0f} KB): "
                  "open the HTML in a browser; it needs no network and prints on one page.")


def zoo_report(lesson: Lesson07) -> Report:
    """§8: the headline of every other model that loads here (offline: the embedded model, bert-base-uncased when its
    cache is there, 01's tiny MLM, GloVe), and why any did not run."""
    from sbert_workbook.diagnosis.run import diagnose

    rows, seen = {lesson.subject.name: _row(lesson.found, "this notebook's MODEL")}, {lesson.subject.name}
    sizes = {"pairs_per_set": lesson.sizes.ZOO_PAIRS_PER_SET, "queries_per_bucket": lesson.sizes.QUERIES_PER_BUCKET,
             "uniformity_sentences": lesson.sizes.UNIFORMITY_SENTENCES, "resamples": lesson.sizes.RESAMPLES,
             "tiny_steps": lesson.sizes.TINY_STEPS, "wordfreq_words": lesson.sizes.WORDFREQ_WORDS}
    for name in ZOO:
        started = time.perf_counter()
        try:
            identity = _identity(name, lesson.sizes.TINY_STEPS)
            if identity in seen:
                rows[name] = {"ran": f"no: {name!r} is {identity}, already a row above"}
                continue
            found = diagnose(name, lesson.seed, lesson.device, progress=False, **sizes)
        except (RuntimeError, ImportError, OSError) as why:  # no such model here, GloVe not installed, no data
            rows[name] = {"ran": f"no: {str(why).split('. ')[0]}"}
            continue
        seen.add(found.subject)
        rows[found.subject] = _row(found, f"yes, as {name!r}, in {time.perf_counter() - started:.0f} s")
    table = _captioned(pd.DataFrame(rows).T, lesson, f"one diagnosis per model ({lesson.sizes.ZOO_PAIRS_PER_SET} pairs per set)")
    ran = [name for name, row in rows.items() if not str(row.get("ran", "")).startswith("no")]
    return Report(table, f"Ran: {', '.join(ran)}.")


def _identity(name: str, tiny_steps: int) -> str:
    """The name a diagnosis of ``name`` would carry, found without loading the model."""
    from sbert_workbook.diagnosis.subjects import GLOVE, TINY_MLM
    from sbert_workbook.encoding.glove import GLOVE_NAME
    from sbert_workbook.encoding.resolve import resolve_model

    return {GLOVE: GLOVE_NAME, TINY_MLM: f"tiny MLM ({tiny_steps} steps)"}.get(name) or resolve_model(name).model_id


def _row(found, ran: str) -> dict:
    head = found.headline()
    return {"ran": ran, "kind": found.kind, "IsoScore": round(head["IsoScore"], 3),
            "IsoScore, isotropic data this size": round(found.cone["IsoScore of isotropic data this size"], 3),
            "mean cosine": round(found.cone["mean cosine of random pairs"], 3),
            "top-3 rogue share": round(head["their share of E cos"], 2), "verdict": head["verdict"]}
