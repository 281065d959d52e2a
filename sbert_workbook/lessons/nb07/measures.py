"""Lesson 07 §2-§4, how the space is shaped: the cone measured four ways, the rogue dimensions and frequency, each
reported with its caption, its computed sentences, its figures and its verdict (``07_your_model.ipynb``).

The notebook's cells compute IsoScore and the rogue dimensions' contributions; the calls here measure the same parts of
the diagnosis (:mod:`sbert_workbook.diagnosis`) into the lesson's :class:`~sbert_workbook.diagnosis.run.Diagnosis`,
which §7 writes as a one-page report.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from sbert_workbook.diagnosis import cone, frequency, rogue, run
from sbert_workbook.diagnosis.ladder import effect
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.lessons.nb07.lesson import NOTEBOOK, Lesson07, captioned, why_not
from sbert_workbook.lessons.report import Report, verdict

#: IsoScore below this fraction of what isotropic data of the same size scores reads as a cone.
FAR_BELOW = 0.5


def predict_cone(lesson: Lesson07):
    """§2's predict question: will this model's IsoScore sit far below isotropic data of the same size?"""
    from sbert_workbook.teaching.predict import predict_question

    run.measure_cone(lesson.found, lesson.sample)
    measures = lesson.found.cone
    options = ["Far below it (less than half)", "Close to it (half or more)"]
    far = measures["IsoScore"] < FAR_BELOW * measures["IsoScore of isotropic data this size"]
    return predict_question(
        f"{lesson.subject.name}: will its IsoScore be far below what isotropic data of the same size scores, or close to "
        "it?", options, options[0 if far else 1],
        "Pre-training leaves a few directions carrying most of the variance (frequency, position, a rogue dimension or "
        "two); training for similarity spreads sentences out but need not make every direction equal, and a Normalize "
        "module or mean pooling does not either. The next cell prints the four measures.")


def cone_report(lesson: Lesson07, students_isoscore) -> Report:
    """§2: the four measures of the cone beside isotropic data of the same size, the variance spectrum, the verdict."""
    from sbert_workbook.anisotropy.plots import variance_spectrum_figure
    from sbert_workbook.evaluation.geometry import principal_variance_ratios

    if not lesson.found.cone:  # the predict cell measured it already
        run.measure_cone(lesson.found, lesson.sample)
    measures = lesson.found.cone
    theirs, ours = float(students_isoscore(lesson.vectors)), measures["IsoScore"]
    same = "matches" if np.isclose(theirs, ours, atol=1e-9) else f"differs from ({theirs:.4f})"
    reference = measures["IsoScore of isotropic data this size"]
    reading = "far below" if ours < FAR_BELOW * reference else "close to"
    table = captioned(pd.Series(measures, name=lesson.subject.name).to_frame().round(4), lesson,
                       "one value over all sentences (mean cosine: every pair i ≠ j)")
    isotropic = np.random.default_rng(lesson.seed).standard_normal(lesson.vectors.shape)
    figure = variance_spectrum_figure({lesson.subject.name: principal_variance_ratios(lesson.vectors),
                                       "isotropic Gaussian, same size": principal_variance_ratios(isotropic)})
    return Report(table, f"The IsoScore cell above {same} sbert_workbook.diagnosis.cone.isoscore ({ours:.4f}). "
                  f"{lesson.subject.name} scores {ours:.3f}, {reading} the {reference:.3f} that isotropic data of this "
                  f"size scores: as if {measures['dimensions used equally, as IsoScore reads']:.0f} of its "
                  f"{measures['dimensions']:.0f} dimensions were used equally and the rest not at all (isotropic data "
                  f"this size: {cone.dimensions_used(reference, int(measures['dimensions'])):.0f}); its mean cosine of "
                  f"random pairs is {measures['mean cosine of random pairs']:.3f}.", figure,
                  verdicts=verdict(NOTEBOOK, "IsoScore against isotropic data of the same size", reading))


def rogue_report(lesson: Lesson07) -> Report:
    """§3: each dimension's contribution to the expected cosine, the top three (their share where one is defined),
    the informativity test (the order of the pairs without them) and STS after standardising."""
    import plotly.graph_objects as go

    found = lesson.found
    run.measure_rogue(found, lesson.sample)
    contributions, top, share = found.contributions, found.rogue, found.rogue_share
    order = np.argsort(-np.abs(contributions))[:20]
    figure = go.Figure(go.Bar(x=[f"dim {i}" for i in order], y=contributions[order]))
    figure.update_layout(title=f"CC(i), the 20 largest of {len(contributions)} (they sum to E cos = {contributions.sum():.3f})",
                         yaxis_title="contribution to E cos")
    dimensions = ", ".join(map(str, top.index))
    if share is None:
        level = "undefined (E cos near 0)"
        said = (f"E cos is {contributions.sum():.3f}, within {rogue.MIN_EXPECTED_COSINE} of 0 (or a share falls outside "
                f"0–1), so a share of it is undefined; read the contributions: dimensions {dimensions} add "
                f"{top['CC(i)'].sum():+.4f} to it.")
        shown = top[["CC(i)"]]
    else:
        level = "most" if share > 0.5 else "a minority"
        said = f"Dimensions {dimensions} carry {share:.0%} of the expected cosine {contributions.sum():.3f}: {level} of it."
        shown = top
    ordered = found.informativity
    kept = rogue.order_verdict(ordered)
    parts = [captioned(shown.round(4), lesson, "exact mean over all pairs i ≠ j"), said, figure,
             f"Informativity: Spearman between every pair's cosine with all {len(contributions)} dimensions and without "
             f"{dimensions}, over {'the STS test pairs' if lesson.pairs is not None else 'random pairs'}: "
             f"{ordered.described()}. Read against {rogue.ORDER_KEPT} (the whole interval at or above it: the order is "
             f"kept; below it: the pairs are reordered): {kept}."]
    verdicts = verdict(NOTEBOOK, "the top three dimensions' share of the expected cosine", level)
    verdicts |= verdict(NOTEBOOK, "the order of the pairs without the top three dimensions", kept)
    if found.standardisation is not None:
        interval = found.standardisation
        parts += [f"STS when every dimension is standardised (the workbook's adaptation of Timkey & van Schijndel's "
                  f"standardisation to pooled sentence vectors and STS): {interval.described()}",
                  interval_forest_figure({"standardised − as is": interval}, "Seven-set mean Spearman, standardised vs as is")]
        verdicts |= verdict(NOTEBOOK, "STS after standardising the dimensions", effect(interval))
    else:
        parts.append(f"No STS here: {why_not(lesson)}.")
    return Report(*parts, verdicts=verdicts)


def frequency_report(lesson: Lesson07) -> Report:
    """§4: BERT-flow Table 1 for this model's word vectors: norm and 3-NN distance per frequency bucket."""
    source = run.measure_frequency(lesson.found, lesson.sample)
    table = lesson.found.frequency
    findings = frequency.frequency_findings(table)
    table = with_provenance(table.round(3), model=lesson.subject.name, pooling="none: word vectors (input embeddings)",
                            aggregation="mean per frequency-rank bucket", split=f"ranks from {source}")
    said = "; ".join(f"{claim}: {'yes' if holds else 'no'}" for claim, holds in findings.items())
    verdicts = {}
    for claim, holds in findings.items():
        verdicts |= verdict(NOTEBOOK, claim, "yes" if holds else "no")
    return Report(table, f"Rarest bucket against the most frequent: {said}.", verdicts=verdicts)
