"""The whole diagnosis in one call, with a progress bar: what ``python -m sbert_workbook diagnose MODEL`` runs (``07``).

:func:`diagnose` loads the subject (:mod:`~sbert_workbook.diagnosis.subjects`), samples the seven STS test sets, encodes
their sentences once, and measures in turn the cone, the rogue dimensions (with STS before and after standardising),
frequency, the fix ladder and the alignment–uniformity plane. It returns a :class:`Diagnosis`, which
:mod:`~sbert_workbook.diagnosis.page` writes as one page of HTML and JSON. 07's cells run the same steps one by one.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from sbert_workbook.diagnosis import cone, fixes, frequency, plane, rogue
from sbert_workbook.diagnosis.ladder import Ladder, PairVectors, climb, corpus_of, sts_sample
from sbert_workbook.diagnosis.subjects import Subject, load_subject
from sbert_workbook.evaluation.uncertainty import Interval

#: The sizes a diagnosis runs at unless told otherwise (07's quick mode).
DEFAULTS = {"pairs_per_set": 250, "queries_per_bucket": 500, "uniformity_sentences": 2000, "resamples": 2000,
            "tiny_steps": 400, "wordfreq_words": 30_000}
STEPS = ("the cone", "rogue dimensions", "frequency", "fix ladder", "alignment and uniformity")


@dataclass
class Diagnosis:
    """Every part of one model's diagnosis; a part that could not run is None, with its reason in ``skipped``."""

    subject: str
    described: str
    kind: str
    settings: dict
    cone: dict[str, float]
    contributions: np.ndarray
    standardisation: Interval | None = None
    frequency: pd.DataFrame | None = None
    plane: pd.DataFrame | None = None
    ladder: Ladder | None = None
    skipped: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def rogue(self) -> pd.DataFrame:
        """The three dimensions with the largest |CC(i)|, their contributions and shares of the expected cosine."""
        order = np.argsort(-np.abs(self.contributions))[:3]
        expected = self.contributions.sum()
        return pd.DataFrame({"CC(i)": self.contributions[order], "share of E cos": self.contributions[order] / expected},
                            index=pd.Index(order, name="dimension"))

    @property
    def rogue_share(self) -> float:
        """The top three dimensions' share of the expected cosine."""
        return float(self.rogue["CC(i)"].sum() / self.contributions.sum())

    def verdict(self) -> str:
        """'needs no fix', 'needs <fix>', or why the ladder did not run."""
        return self.ladder.verdict() if self.ladder is not None else f"not measured: {self.skipped.get('fix ladder')}"

    def headline(self) -> dict:
        """IsoScore, the top three rogue dimensions and their share, the ladder's best fix with its interval, the verdict."""
        best = None if self.ladder is None else self.ladder.best
        return {"model": self.subject, "IsoScore": self.cone["IsoScore"], "rogue dimensions": list(map(int, self.rogue.index)),
                "their share of E cos": self.rogue_share, "best fix": best,
                "its change": None if best is None else self.ladder.intervals[best].described(), "verdict": self.verdict()}


def diagnose(model: str | Subject = "auto", seed: int = 0, device=None, progress: bool = True, data_dir=None,
             **sizes) -> Diagnosis:
    """Diagnose ``model`` (a name :func:`~sbert_workbook.diagnosis.subjects.load_subject` reads, or a Subject); ``sizes``
    override :data:`DEFAULTS`. Prints nothing but the progress bar (and load_encoder's lines)."""
    unknown = set(sizes) - set(DEFAULTS)
    if unknown:
        raise TypeError(f"diagnose() has no size {sorted(unknown)}; its sizes: {', '.join(DEFAULTS)}.")
    settings, started = {**DEFAULTS, **sizes}, time.perf_counter()
    subject = model if isinstance(model, Subject) else load_subject(model, device, seed, settings["tiny_steps"],
                                                                            wordfreq_words=settings["wordfreq_words"])
    with tqdm(total=len(STEPS) + 1, desc="encoding", disable=not progress, unit="part") as bar:
        sets, sentences = sentences_of(subject, settings["pairs_per_set"], seed, data_dir)
        vectors = subject.embed(sentences)
        found = Diagnosis(subject.name, subject.described, subject.kind, settings, {}, np.zeros(1))
        _measure(found, subject, sets, sentences, vectors, seed, bar)
    found.seconds = time.perf_counter() - started
    return found


def sentences_of(subject: Subject, pairs_per_set: int | None, seed: int = 0, data_dir=None):
    """(the sampled STS sets, every distinct sentence of them), or (None, as many toy sentences) for a subject that
    reads only its toy language."""
    if subject.reads_english:
        sets = sts_sample(pairs_per_set, seed, data_dir=data_dir)
        return sets, corpus_of(sets)
    return None, subject.toy_sentences(14 * (pairs_per_set or 250), seed)


def _measure(found: Diagnosis, subject: Subject, sets, sentences, vectors, seed: int, bar) -> None:
    settings = found.settings
    bar.update(1)
    bar.set_description(STEPS[0])
    found.cone = cone.cone_measures(vectors, seed)
    bar.update(1)
    bar.set_description(STEPS[1])
    found.contributions = rogue.cosine_contributions(vectors)
    pairs = PairVectors(sets, sentences, vectors) if sets else None
    if pairs is not None:
        found.standardisation = climb({"standardised": fixes.standardise}, pairs, seed, settings["resamples"]).intervals["standardised"]
    bar.update(1)
    bar.set_description(STEPS[2])
    word_vectors, ranks, _source = subject.word_vectors()
    found.frequency = frequency.frequency_table(word_vectors, ranks, settings["queries_per_bucket"], seed)
    bar.update(1)
    if pairs is None:
        why = f"{subject.name} reads only its toy language, and the STS sets are English"
        found.skipped.update({"rogue dimensions' STS": why, "fix ladder": why, "alignment and uniformity": why})
        bar.update(2)
        return
    rungs = fixes.ladder(vectors.shape[1], len(sentences), seed)
    found.ladder = climb(rungs, pairs, seed, settings["resamples"], progress=lambda name: bar.set_description(f"fix ladder: {name}"))
    bar.update(1)
    bar.set_description(STEPS[4])
    try:
        found.plane = plane.plane_points(pairs, sets["stsb"], found.ladder.fitted, settings["uniformity_sentences"])
    except plane.TooFewPositivesError as why:
        found.skipped["alignment and uniformity"] = str(why)
    bar.update(1)
