"""The one diagnosis: what ``python -m sbert_workbook diagnose MODEL`` runs whole and 07's cells run step by step (``07``).

:func:`start` loads the subject (:mod:`~sbert_workbook.diagnosis.subjects`), samples the seven STS test sets and encodes
their sentences once; each step of :data:`STEPS` then measures one part into the :class:`Diagnosis`: the cone, the
rogue dimensions (their contributions, the informativity test, STS before and after standardising), frequency, the
fix ladder and the alignment–uniformity plane. :func:`diagnose` runs them all with a progress bar; 07's reports call
the same steps one at a time. The sizes are 07's manifest's (:func:`default_sizes`): no other copy is written.
:mod:`~sbert_workbook.diagnosis.page` writes a Diagnosis as one page of HTML and JSON.
"""
from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from sbert_workbook.diagnosis import cone, fixes, frequency, plane, rogue
from sbert_workbook.diagnosis.ladder import Ladder, PairVectors, climb, corpus_of, sts_sample
from sbert_workbook.diagnosis.subjects import Subject, load_subject
from sbert_workbook.evaluation.uncertainty import Interval
from sbert_workbook.lessons.manifests.nb07 import MANIFEST

#: A diagnosis's sizes and the manifest entry each one is (sbert_workbook/lessons/manifests/nb07.py).
SIZE_NAMES = {"pairs_per_set": "PAIRS_PER_SET", "queries_per_bucket": "QUERIES_PER_BUCKET",
              "uniformity_sentences": "UNIFORMITY_SENTENCES", "resamples": "RESAMPLES", "tiny_steps": "TINY_STEPS",
              "wordfreq_words": "WORDFREQ_WORDS"}
#: How many rogue dimensions the share and the informativity test read.
TOP = 3
#: Random pairs the informativity test reads for a subject with no STS pairs (the tiny MLM's toy sentences).
RANDOM_PAIRS = 2000
#: Toy sentences a subject with no STS pairs reads per pair asked of each set: seven sets, two sentences a pair.
TOY_SENTENCES_PER_PAIR = 14
#: The pairs per set a toy subject's sentences stand in for when every STS pair is asked for (``pairs_per_set`` None).
TOY_PAIRS_WHEN_ALL = 250


def sizes_from(sizes: Mapping) -> dict:
    """The keyword sizes :func:`start` and :func:`diagnose` take, read from a mapping of 07's manifest entries (a
    lesson's ``sizes``, or ``Manifest.sizes_for``)."""
    return {name: sizes[entry] for name, entry in SIZE_NAMES.items()}


def default_sizes(mode: str = "quick") -> dict:
    """The diagnosis's sizes in one of 07's modes, read from its manifest (quick: what the CLI runs by default)."""
    return sizes_from(MANIFEST.sizes_for(mode))


@dataclass
class Sample:
    """What every step reads: the subject, the STS samples (None for a toy-language subject), every distinct sentence
    and its vector, and the vectors looked up per pair."""

    subject: Subject
    sets: dict | None
    sentences: list[str]
    vectors: np.ndarray
    seed: int = 0

    @property
    def pairs(self) -> PairVectors | None:
        return None if self.sets is None else PairVectors(self.sets, self.sentences, self.vectors)


@dataclass
class Diagnosis:
    """Every part of one model's diagnosis; a part that could not run is None, with its reason in ``skipped``."""

    subject: str
    described: str
    kind: str
    settings: dict
    cone: dict[str, float] = field(default_factory=dict)
    contributions: np.ndarray = field(default_factory=lambda: np.zeros(1))
    informativity: rogue.Correlation | None = None
    standardisation: Interval | None = None
    frequency: pd.DataFrame | None = None
    plane: pd.DataFrame | None = None
    plane_moves: dict | None = None
    ladder: Ladder | None = None
    skipped: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def rogue(self) -> pd.DataFrame:
        """The three dimensions with the largest |CC(i)|, their contributions and shares of the expected cosine."""
        order = np.argsort(-np.abs(self.contributions))[:TOP]
        expected = self.contributions.sum()
        return pd.DataFrame({"CC(i)": self.contributions[order], "share of E cos": self.contributions[order] / expected},
                            index=pd.Index(order, name="dimension"))

    @property
    def rogue_share(self) -> float | None:
        """The top three dimensions' share of the expected cosine; None where a share is undefined (E cos near 0)."""
        if not rogue.share_is_defined(self.contributions):
            return None
        return float(self.rogue["CC(i)"].sum() / self.contributions.sum())

    def verdict(self) -> str:
        """'needs no fix', 'needs <fix>', or why the ladder did not run."""
        return self.ladder.verdict() if self.ladder is not None else f"not measured: {self.skipped.get('fix ladder')}"

    def headline(self) -> dict:
        """IsoScore, the rogue dimensions, their share and the order without them, the best fix, the verdict."""
        best = None if self.ladder is None else self.ladder.best
        return {"model": self.subject, "IsoScore": self.cone["IsoScore"], "rogue dimensions": list(map(int, self.rogue.index)),
                "their share of E cos": self.rogue_share,
                "order without them (Spearman)": None if self.informativity is None else self.informativity.value,
                "best fix": best, "its change": None if best is None else self.ladder.intervals[best].described(),
                "verdict": self.verdict()}


def start(model: str | Subject = "auto", seed: int = 0, device=None, data_dir=None, **sizes) -> tuple[Diagnosis, Sample]:
    """Load ``model`` (a name :func:`~sbert_workbook.diagnosis.subjects.load_subject` reads, or a Subject), sample the
    sets and encode their sentences once; ``sizes`` override :func:`default_sizes`. An empty Diagnosis and its Sample."""
    unknown = set(sizes) - set(SIZE_NAMES)
    if unknown:
        raise TypeError(f"a diagnosis has no size {sorted(unknown)}; its sizes: {', '.join(SIZE_NAMES)}.")
    settings = {**default_sizes(), **sizes}
    subject = model if isinstance(model, Subject) else load_subject(model, device, seed, settings["tiny_steps"],
                                                                            wordfreq_words=settings["wordfreq_words"])
    if subject.reads_english:
        sets = sts_sample(settings["pairs_per_set"], seed, data_dir=data_dir)
        sentences = corpus_of(sets)
    else:
        sets, sentences = None, subject.toy_sentences(
            TOY_SENTENCES_PER_PAIR * (settings["pairs_per_set"] or TOY_PAIRS_WHEN_ALL), seed)
    sample = Sample(subject, sets, sentences, subject.embed(sentences), seed)
    return Diagnosis(subject.name, subject.described, subject.kind, settings), sample


def measure_cone(found: Diagnosis, sample: Sample) -> None:
    found.cone = cone.cone_measures(sample.vectors, sample.seed)


def measure_rogue(found: Diagnosis, sample: Sample) -> None:
    """CC(i) per dimension; the informativity test on the STS pairs (random pairs for a toy subject); STS after SN."""
    found.contributions = rogue.cosine_contributions(sample.vectors)
    top = np.argsort(-np.abs(found.contributions))[:TOP]
    pairs, resamples = sample.pairs, found.settings["resamples"]
    if pairs is not None:
        first = np.vstack([pairs.of(data.sentences1) for data in sample.sets.values()])
        second = np.vstack([pairs.of(data.sentences2) for data in sample.sets.values()])
    else:
        rng = np.random.default_rng(sample.seed)
        i, j = rng.integers(0, len(sample.vectors), size=(2, RANDOM_PAIRS))
        first, second = sample.vectors[i[i != j]], sample.vectors[j[i != j]]
    found.informativity = rogue.informativity(first, second, top, resamples, sample.seed)
    if pairs is None:
        found.skipped["rogue dimensions' STS"] = _why_not(sample)
        return
    found.standardisation = climb({"standardised": fixes.standardise}, pairs, sample.seed, resamples).intervals["standardised"]


def measure_frequency(found: Diagnosis, sample: Sample) -> str:
    """BERT-flow Table 1 for the subject's word vectors; returns where the frequency ranks came from."""
    word_vectors, ranks, source = sample.subject.word_vectors()
    found.frequency = frequency.frequency_table(word_vectors, ranks, found.settings["queries_per_bucket"], sample.seed)
    return source


def measure_ladder(found: Diagnosis, sample: Sample, progress=None) -> None:
    if sample.pairs is None:
        found.skipped["fix ladder"] = _why_not(sample)
        return
    rungs = fixes.ladder(sample.vectors.shape[1], len(sample.sentences), sample.seed)
    found.ladder = climb(rungs, sample.pairs, sample.seed, found.settings["resamples"], progress=progress)


def measure_plane(found: Diagnosis, sample: Sample) -> None:
    """The model and every rung on the plane, and each rung's move with its intervals (after :func:`measure_ladder`)."""
    if found.ladder is None:
        found.skipped["alignment and uniformity"] = found.skipped.get("fix ladder", _why_not(sample))
        return
    s = found.settings
    try:
        found.plane = plane.plane_points(sample.pairs, sample.sets["stsb"], found.ladder.fitted, s["uniformity_sentences"])
    except plane.TooFewPositivesError as why:
        found.skipped["alignment and uniformity"] = str(why)
        return
    found.plane_moves = plane.plane_moves(sample.pairs, sample.sets["stsb"], found.ladder.fitted, s["uniformity_sentences"],
                                          s["resamples"], sample.seed)


STEPS = {"the cone": measure_cone, "rogue dimensions": measure_rogue, "frequency": measure_frequency,
         "fix ladder": measure_ladder, "alignment and uniformity": measure_plane}


def diagnose(model: str | Subject = "auto", seed: int = 0, device=None, progress: bool = True, data_dir=None,
             **sizes) -> Diagnosis:
    """The whole diagnosis of ``model`` (:func:`start`, then every step); ``sizes`` override :func:`default_sizes`.
    Prints nothing but the progress bar (and load_encoder's lines)."""
    started = time.perf_counter()
    with tqdm(total=len(STEPS) + 1, desc="encoding", disable=not progress, unit="part") as bar:
        found, sample = start(model, seed, device, data_dir, **sizes)
        for name, step in STEPS.items():
            bar.update(1)
            bar.set_description(name)
            if step is measure_ladder:
                step(found, sample, progress=lambda rung: bar.set_description(f"fix ladder: {rung}"))
            else:
                step(found, sample)
        bar.update(1)
    found.seconds = time.perf_counter() - started
    return found


def _why_not(sample: Sample) -> str:
    return f"{sample.subject.name} reads only its toy language, and the STS sets are English"
