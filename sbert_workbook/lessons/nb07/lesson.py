"""Lesson 07, your model diagnosed: the set-up and §1, which model ran and how it pools (``07_your_model.ipynb``).

The set-up loads MODEL as its authors meant it (a sentence-transformers folder's own pooling, Dense and Normalize;
load_encoder says which pooling ran and why), samples the seven STS test sets and encodes their sentences once; every
section reads the :class:`Lesson07` it returns, captions its tables with :func:`captioned` and says with
:func:`why_not` why a section that needs the STS sets has nothing to show for a model that reads no English.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sbert_workbook.diagnosis import run
from sbert_workbook.diagnosis.ladder import PairVectors
from sbert_workbook.diagnosis.run import Diagnosis, Sample
from sbert_workbook.diagnosis.subjects import Subject
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.lessons.report import Report
from sbert_workbook.lessons.setup import Lesson
from sbert_workbook.lessons.setup import begin as begin_lesson

NOTEBOOK = "07_your_model"


@dataclass
class Lesson07(Lesson):
    sample: Sample | None = None  # the subject, the STS samples, every sentence and its vector: what each step reads
    found: Diagnosis | None = None  # the diagnosis, filled in section by section by the steps the CLI runs whole

    @property
    def subject(self) -> Subject:
        return self.sample.subject

    @property
    def sets(self) -> dict | None:
        return self.sample.sets

    @property
    def vectors(self) -> np.ndarray:
        return self.sample.vectors

    @property
    def pairs(self) -> PairVectors | None:
        return self.sample.pairs

    @property
    def split(self) -> str:
        if self.sets is None:
            return f"{len(self.vectors)} sentences of the toy language (seed {self.seed})"
        pairs = ", ".join(f"{name} {len(data)}" for name, data in self.sets.items())
        return f"{len(self.vectors)} distinct sentences of the STS test pairs sampled (seed {self.seed}): {pairs}"


def begin(quick="auto", model="auto", seed=0, device=None, sizes=None) -> Lesson07:
    """Set the lesson up: load MODEL (printing which pooling runs and why), sample the STS sets, encode their sentences
    (:func:`sbert_workbook.diagnosis.run.start`, at this mode's sizes from the manifest)."""
    lesson = begin_lesson(NOTEBOOK, quick, model, seed, device, sizes)
    sizes = run.sizes_from(lesson.sizes)
    started = time.perf_counter()
    found, sample = run.start(model, seed, lesson.device, **sizes)
    print(f"{sample.subject.name}: {len(sample.sentences)} sentences loaded and encoded in "
          f"{time.perf_counter() - started:.0f} s ({sample.vectors.shape[1]} dimensions)")
    return Lesson07(**vars(lesson), sample=sample, found=found)


def captioned(table: pd.DataFrame, lesson: Lesson07, aggregation: str) -> pd.DataFrame:
    """A table of this lesson with its caption: the model diagnosed, how it pools, ``aggregation``, the sentences read."""
    return with_provenance(table, model=lesson.subject.name, pooling=lesson.subject.pooling.removeprefix("pooling: "),
                           aggregation=aggregation, split=lesson.split)


def model_report(lesson: Lesson07) -> Report:
    """§1: which model ran, what kind it is, how it pools and why."""
    subject = lesson.subject
    table = pd.DataFrame({"": [subject.name, subject.kind, subject.described, str(lesson.vectors.shape[1]),
                               str(len(lesson.vectors))]},
                         index=["model", "kind", "which ran, and how it pools", "dimensions", "sentences encoded"])
    return Report(captioned(table, lesson, "n/a (a description)"))


def why_not(lesson: Lesson07) -> str:
    """Why a section that needs the STS sets has nothing to show for this model."""
    return f"{lesson.subject.name} reads only its toy language, and the STS sets are English"
