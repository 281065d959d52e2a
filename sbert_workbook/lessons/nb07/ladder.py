"""Lesson 07 §5-§7, what to do about it: the fix ladder and its verdict, where each fix moves the model on 06's
alignment–uniformity plane, and the one-page report that gathers the whole diagnosis (``07_your_model.ipynb``)."""
from __future__ import annotations

from sbert_workbook.diagnosis import plane, run
from sbert_workbook.diagnosis.ladder import NO_FIX, Ladder
from sbert_workbook.diagnosis.page import write_report
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.lessons.nb07.lesson import NOTEBOOK, Lesson07, captioned, why_not
from sbert_workbook.lessons.report import Report, verdict
from sbert_workbook.teaching.predict import predict_question


def climb_ladder(lesson: Lesson07) -> Ladder | None:
    """§5's experiment: every fix fitted on the sentences (no labels) and scored on the seven sets (None: no STS here)."""
    run.measure_ladder(lesson.found, lesson.sample)
    return lesson.found.ladder


def predict_ladder(lesson: Lesson07, ladder: Ladder | None):
    """§5's predict question: will any fix lift this model's STS for sure (and by at least a point)?"""
    if ladder is None:
        return f"No ladder for {lesson.subject.name}: {why_not(lesson)}."
    options = ["No: it needs no fix", "Yes: one of the fixes"]
    return predict_question(
        f"{lesson.subject.name}: will any rung of the ladder raise its seven-set mean Spearman by a point or more, with "
        "the whole 95 % interval above zero?", options, options[ladder.needed is not None],
        "A model trained for similarity already spreads its sentences, and the fixes may undo what its training set up; "
        "a raw transformer's cone is mostly frequency and position, which the fixes remove. The next cell shows each "
        "change with its interval.")


def ladder_report(lesson: Lesson07, ladder: Ladder | None) -> Report:
    """§5: Spearman per set for every rung, each change drawn with its interval, the computed verdict, and the best rung
    against the runner-up on the same pairs."""
    if ladder is None:
        return Report(f"No fix ladder: {why_not(lesson)}.")
    table = captioned(ladder.table.round(2), lesson, "Spearman × 100 of cosine per set (all pairs pooled), avg = mean of the seven")
    best, runner_up = ladder.best, ladder.runner_up
    said = (f"This model {ladder.verdict()}: " + (f"{ladder.needed} changes its mean by {ladder.intervals[ladder.needed].described()}."
            if ladder.needed else f"the best rung, {best}, changes it by {ladder.intervals[best].described()}."))
    gap = ladder.change(best, runner_up, lesson.sizes.RESAMPLES, lesson.seed)
    rungs = len(ladder.intervals)
    beside = (f"{best} − {runner_up} (the runner-up), on the same pairs: {gap.described()}: "
              + ("the best rung is apart from the next." if gap.apart else "the two are tied.")
              + f" {rungs} rungs are each read at 95 %: if none changed anything, at least one would still look apart "
              f"up to {100 * (1 - 0.95 ** rungs):.0f} % of the time (Bonferroni: read each at {100 * (1 - 0.05 / rungs):.2f} % "
              "to keep 95 % for all of them together), so a lone rung just apart from zero is weak evidence.")
    figure = interval_forest_figure({f"{name} − {NO_FIX}": interval for name, interval in ladder.intervals.items()},
                                    f"{lesson.subject.name}: each fix's change of the seven-set mean Spearman")
    verdicts = verdict(NOTEBOOK, "the fix this model needs", ladder.needed or "none")
    verdicts |= verdict(NOTEBOOK, "the best rung against the runner-up", gap.verdict)
    return Report(table, said, beside, figure, verdicts=verdicts)


def plane_report(lesson: Lesson07, ladder: Ladder | None) -> Report:
    """§6: ℓ_align against ℓ_uniform for the model and every rung (06's plane), each rung's move with its intervals, and
    whether whitening and the flow move as SimCSE §7 reports, read from those intervals."""
    from sbert_workbook.training.contrastive_plots import alignment_uniformity_plane_figure

    run.measure_plane(lesson.found, lesson.sample)
    points, moves = lesson.found.plane, lesson.found.plane_moves
    if points is None:
        return Report(f"No plane: {lesson.found.skipped.get('alignment and uniformity', why_not(lesson))}.")
    table = captioned(points.round(3), lesson, f"alignment over {points.attrs['positives']}; uniformity over "
                                                f"{points.attrs['uniformity over']}")
    whitening = next(name for name in moves if name.startswith("whitening"))
    lines, verdicts = [], {}
    for name, move in moves.items():
        lines.append(f"{name}: alignment {move['alignment'].described()}; uniformity {move['uniformity'].described()}: "
                     f"{plane.move_words(move)}")
    for name in (whitening, "flow"):  # uniformity and SimCSE's pattern: an alignment move alone can sit on its interval's edge
        verdicts |= verdict(NOTEBOOK, f"{name.split('-')[0]} against the model, uniformity",
                            plane.move_words(moves[name]).split(", ")[0])
        verdicts |= verdict(NOTEBOOK, f"{name.split('-')[0]} moves as SimCSE §7 reports (more uniform, less aligned)",
                            plane.simcse_pattern(moves[name]))
    said = "; ".join(f"{name}: {plane.move_words(moves[name])} (as SimCSE §7 reports: {plane.simcse_pattern(moves[name])})"
                     for name in (whitening, "flow"))
    return Report(table, said + ".", "Each move, fixed − model (lower is better on both axes):\n" + "\n".join(lines),
                  alignment_uniformity_plane_figure(points), verdicts=verdicts)


def page_report(lesson: Lesson07, folder="diagnosis") -> Report:
    """§7: the one-page report, HTML and JSON, written into ``folder``; its headline."""
    page, data = write_report(lesson.found, folder)
    shown = {key: "undefined (E cos near 0)" if value is None and key == "their share of E cos" else value
             for key, value in lesson.found.headline().items()}
    headline = "\n".join(f"  {key}: {value:.3f}" if isinstance(value, float) else f"  {key}: {value}"
                         for key, value in shown.items())
    return Report(f"Headline:\n{headline}",
                  f"Wrote {page} ({page.stat().st_size / 1024:.0f} KB) and {data} ({data.stat().st_size / 1024:.0f} KB): "
                  "open the HTML in a browser; it needs no network and prints on one page.")
