"""Lesson 07 §1–§4: the set-up and the reports of the cone, rogue dimensions, frequency and the model itself
(``07_your_model.ipynb``); :mod:`sbert_workbook.lessons.nb07` gathers them with §5–§8.

The set-up loads MODEL as its authors meant it (a sentence-transformers folder's own pooling, Dense and Normalize;
load_encoder says which pooling ran and why), samples the seven STS test sets and encodes their sentences once. The
notebook's cells compute IsoScore and the rogue dimensions' contributions; the calls here report every part of the
diagnosis (:mod:`sbert_workbook.diagnosis`) with its caption, its computed sentences, its figures and its verdict,
and collect the parts into the :class:`~sbert_workbook.diagnosis.run.Diagnosis` that §7 writes as a one-page report.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sbert_workbook.diagnosis import cone, fixes, frequency, rogue
from sbert_workbook.diagnosis.ladder import PairVectors, climb, effect
from sbert_workbook.diagnosis.run import Diagnosis, sentences_of
from sbert_workbook.diagnosis.subjects import Subject, load_subject
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.lessons.report import Report, verdict
from sbert_workbook.lessons.setup import Lesson
from sbert_workbook.lessons.setup import begin as begin_lesson

NOTEBOOK = "07_your_model"
#: IsoScore below this fraction of what isotropic data of the same size scores reads as a cone.
FAR_BELOW = 0.5


@dataclass
class Lesson07(Lesson):
    subject: Subject | None = None
    sets: dict | None = None  # the seven STS samples (None for a model that reads only its toy language)
    pairs: PairVectors | None = None  # every sentence's vector, looked up per pair
    vectors: np.ndarray | None = None  # (sentences, d): what the cone and the rogue dimensions read
    found: Diagnosis | None = None  # the diagnosis, filled in section by section

    @property
    def split(self) -> str:
        if self.sets is None:
            return f"{len(self.vectors)} sentences of the toy language (seed {self.seed})"
        pairs = ", ".join(f"{name} {len(data)}" for name, data in self.sets.items())
        return f"{len(self.vectors)} distinct sentences of the STS test pairs sampled (seed {self.seed}): {pairs}"


def begin(quick="auto", model="auto", seed=0, device=None, sizes=None) -> Lesson07:
    """Set the lesson up: load MODEL (printing which pooling runs and why), sample the STS sets, encode their sentences."""
    lesson = begin_lesson(NOTEBOOK, quick, model, seed, device, sizes)
    s = lesson.sizes
    subject = load_subject(model, lesson.device, seed, s.TINY_STEPS, wordfreq_words=s.WORDFREQ_WORDS)
    sets, sentences = sentences_of(subject, s.PAIRS_PER_SET, seed)
    started = time.perf_counter()
    vectors = subject.embed(sentences)
    print(f"{subject.name}: {len(sentences)} sentences encoded in {time.perf_counter() - started:.0f} s "
          f"({vectors.shape[1]} dimensions)")
    settings = {"pairs_per_set": s.PAIRS_PER_SET, "queries_per_bucket": s.QUERIES_PER_BUCKET,
                "uniformity_sentences": s.UNIFORMITY_SENTENCES, "resamples": s.RESAMPLES, "tiny_steps": s.TINY_STEPS,
                "wordfreq_words": s.WORDFREQ_WORDS}
    found = Diagnosis(subject.name, subject.described, subject.kind, settings, {}, np.zeros(1))
    return Lesson07(**vars(lesson), subject=subject, sets=sets, vectors=vectors, found=found,
                    pairs=PairVectors(sets, sentences, vectors) if sets else None)


def _captioned(table: pd.DataFrame, lesson: Lesson07, aggregation: str) -> pd.DataFrame:
    return with_provenance(table, model=lesson.subject.name, pooling=lesson.subject.pooling.removeprefix("pooling: "),
                           aggregation=aggregation, split=lesson.split)


def model_report(lesson: Lesson07) -> Report:
    """§1: which model ran, what kind it is, how it pools and why."""
    subject = lesson.subject
    table = pd.DataFrame({"": [subject.name, subject.kind, subject.described, str(lesson.vectors.shape[1]),
                               str(len(lesson.vectors))]},
                         index=["model", "kind", "which ran, and how it pools", "dimensions", "sentences encoded"])
    return Report(_captioned(table, lesson, "n/a (a description)"))


def predict_cone(lesson: Lesson07):
    """§2's predict question: will this model's IsoScore sit far below isotropic data of the same size?"""
    from sbert_workbook.app.predict import predict_question

    measures = cone.cone_measures(lesson.vectors, lesson.seed)
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

    measures = cone.cone_measures(lesson.vectors, lesson.seed)
    lesson.found.cone = measures
    theirs, ours = float(students_isoscore(lesson.vectors)), measures["IsoScore"]
    same = "matches" if np.isclose(theirs, ours, atol=1e-9) else f"differs from ({theirs:.4f})"
    reference = measures["IsoScore of isotropic data this size"]
    reading = "far below" if ours < FAR_BELOW * reference else "close to"
    table = _captioned(pd.Series(measures, name=lesson.subject.name).to_frame().round(4), lesson,
                       "one value over all sentences (mean cosine: every pair i ≠ j)")
    isotropic = np.random.default_rng(lesson.seed).standard_normal(lesson.vectors.shape)
    figure = variance_spectrum_figure({lesson.subject.name: principal_variance_ratios(lesson.vectors),
                                       "isotropic Gaussian, same size": principal_variance_ratios(isotropic)})
    return Report(table, f"The IsoScore cell above {same} sbert_workbook.diagnosis.cone.isoscore ({ours:.4f}). "
                  f"{lesson.subject.name} scores {ours:.3f}, {reading} the {reference:.3f} that isotropic data of this "
                  f"size scores; its mean cosine of random pairs is {measures['mean cosine of random pairs']:.3f}.", figure,
                  verdicts=verdict(NOTEBOOK, "IsoScore against isotropic data of the same size", reading))


def rogue_report(lesson: Lesson07) -> Report:
    """§3: each dimension's contribution to the expected cosine, the top three, and STS after standardising."""
    import plotly.graph_objects as go

    contributions = rogue.cosine_contributions(lesson.vectors)
    lesson.found.contributions = contributions
    top, share = lesson.found.rogue, lesson.found.rogue_share
    order = np.argsort(-np.abs(contributions))[:20]
    figure = go.Figure(go.Bar(x=[f"dim {i}" for i in order], y=contributions[order]))
    figure.update_layout(title=f"CC(i), the 20 largest of {len(contributions)} (they sum to E cos = {contributions.sum():.3f})",
                         yaxis_title="contribution to E cos")
    most = "most" if share > 0.5 else "a minority"
    parts = [_captioned(top.round(4), lesson, "exact mean over all pairs i ≠ j"),
             f"Dimensions {', '.join(map(str, top.index))} carry {share:.0%} of the expected cosine "
             f"{contributions.sum():.3f}: {most} of it.", figure]
    verdicts = verdict(NOTEBOOK, "the top three dimensions' share of the expected cosine", most)
    if lesson.pairs is not None:
        interval = climb({"standardised": fixes.standardise}, lesson.pairs, lesson.seed, lesson.sizes.RESAMPLES).intervals["standardised"]
        lesson.found.standardisation = interval
        parts += [f"STS when every dimension is standardised (Timkey & van Schijndel's protocol): {interval.described()}",
                  interval_forest_figure({"standardised − as is": interval}, "Seven-set mean Spearman, standardised vs as is")]
        verdicts |= verdict(NOTEBOOK, "STS after standardising the dimensions", effect(interval))
    else:
        lesson.found.skipped["rogue dimensions' STS"] = _why_not(lesson)
        parts.append(f"No STS here: {_why_not(lesson)}.")
    return Report(*parts, verdicts=verdicts)


def frequency_report(lesson: Lesson07) -> Report:
    """§4: BERT-flow Table 1 for this model's word vectors: norm and 3-NN distance per frequency bucket."""
    vectors, ranks, source = lesson.subject.word_vectors()
    table = frequency.frequency_table(vectors, ranks, lesson.sizes.QUERIES_PER_BUCKET, lesson.seed)
    lesson.found.frequency = table
    findings = frequency.frequency_findings(table)
    table = with_provenance(table.round(3), model=lesson.subject.name, pooling="none: word vectors (input embeddings)",
                            aggregation="mean per frequency-rank bucket", split=f"ranks from {source}")
    said = "; ".join(f"{claim}: {'yes' if holds else 'no'}" for claim, holds in findings.items())
    verdicts = {}
    for claim, holds in findings.items():
        verdicts |= verdict(NOTEBOOK, claim, "yes" if holds else "no")
    return Report(table, f"Rarest bucket against the most frequent: {said}.", verdicts=verdicts)


def _why_not(lesson: Lesson07) -> str:
    return f"{lesson.subject.name} reads only its toy language, and the STS sets are English"
