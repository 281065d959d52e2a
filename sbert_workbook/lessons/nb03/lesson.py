"""Lesson 03's set-up: the model, its frozen views, and the model trained for similarity (``03_pooling_and_sts.ipynb``).

``begin`` loads ``MODEL`` once and wraps it in :class:`~sbert_workbook.encoding.pooled_views.PooledViews`, so every
pooling of a sentence costs one forward pass for the whole lesson. When ``MODEL`` is a raw transformer
(bert-base-uncased) the sections that need a model trained for similarity (§3's trained row, §6's search, §8, §9)
load ``TRAINED_MODEL`` the first time they ask (:meth:`Lesson03.trained`), and only then.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from sbert_workbook.data.loaders import load_sts
from sbert_workbook.data.registry import SEVEN_STS_SETS
from sbert_workbook.encoding.encoder import Encoder, load_encoder
from sbert_workbook.encoding.glove import GloveVectors, glove_available, load_glove
from sbert_workbook.encoding.pooled_views import PooledViews
from sbert_workbook.evaluation import baselines
from sbert_workbook.lessons.report import Report
from sbert_workbook.lessons.setup import Lesson
from sbert_workbook.lessons.setup import begin as begin_lesson

NOTEBOOK = "03_pooling_and_sts"


@dataclass
class Lesson03(Lesson):
    encoder: Encoder | None = None
    views: PooledViews | None = None  # MODEL's frozen views (SBERT Table 1's poolings), each sentence encoded once
    trained_pooling: str | None = None  # the pooling MODEL was trained with (sentence-transformers' folder); None: raw
    trained_model: str = "embedded"  # TRAINED_MODEL: the model trained for similarity beside a raw MODEL
    verdicts: dict[str, str] = field(default_factory=dict)  # what this run's reports recorded (the Summary prints them)
    _trained: Encoder | None = field(default=None, repr=False)
    _test_sets: dict | None = field(default=None, repr=False)

    @property
    def raw(self) -> bool:
        """True when MODEL is a plain transformer, not trained for similarity (its rows are the paper's baselines)."""
        return self.trained_pooling is None

    @property
    def pooling(self) -> str:
        """MODEL's best pooling for similarity: the one it was trained with, else mean (SBERT's default)."""
        return self.trained_pooling if self.trained_pooling in self.views.poolings else "mean"

    @property
    def short_name(self) -> str:
        return self.encoder.name.split("/")[-1]

    def trained(self) -> tuple[Encoder, str]:
        """(model trained for similarity, its pooling): MODEL itself when it is one, else TRAINED_MODEL, loaded once."""
        if not self.raw:
            return self.encoder, self.pooling
        if self._trained is None:
            self._trained = load_encoder(self.trained_model, device=self.device)
        return self._trained, baselines.sentence_transformers_pooling(self._trained) or "mean"

    def test_sets(self) -> dict:
        """The seven STS test sets of SBERT Table 1 (quick mode: a random sample of PAIRS_PER_SET pairs each)."""
        if self._test_sets is None:
            self._test_sets = {name: load_sts(name, "test", limit=self.sizes.PAIRS_PER_SET) for name in SEVEN_STS_SETS}
        return self._test_sets

    def stsb(self):
        """STS-B test as §3's table read it: the pairs §5's explorers and §6's judges use."""
        return self.test_sets()["stsb"]

    def glove(self) -> GloveVectors | None:
        """GloVe 6B 50d (memory-mapped: only the words used are read), or None when it is not installed."""
        return load_glove() if glove_available() else None

    def split(self) -> str:
        """The split of every table over the seven sets."""
        limit = self.sizes.PAIRS_PER_SET
        return f"test sets, {'a random sample of ' + str(limit) + ' pairs each' if limit else 'all pairs'}"

    def record(self, report_verdicts: dict[str, str]) -> dict[str, str]:
        """Keep what a report recorded, for the Summary; returns it (for ``Report(verdicts=...)``)."""
        self.verdicts.update(report_verdicts)
        return report_verdicts


def begin(quick="auto", model="auto", seed=0, device=None, sizes=None) -> Lesson03:
    """Set the lesson up, load MODEL and prepare its frozen views (nothing is encoded until a cell asks)."""
    lesson = begin_lesson(NOTEBOOK, quick, model, seed, device, sizes)
    encoder = load_encoder(model, device=lesson.device)
    return Lesson03(**vars(lesson), encoder=encoder, views=PooledViews(encoder, baselines.BASELINE_POOLINGS),
                    trained_pooling=baselines.sentence_transformers_pooling(encoder))


def what_runs(lesson: Lesson03, trained_model: str) -> str:
    """§0: which model runs, whether it was trained for similarity, and what that means for the rows of §3."""
    lesson.trained_model = trained_model
    limit = lesson.sizes.PAIRS_PER_SET
    data = f"Data: {'a random sample of ' + str(limit) + ' pairs per set (quick mode)' if limit else 'the full test sets'}."
    if lesson.raw:
        return (f"What runs here: {lesson.encoder.name}, a raw transformer (no similarity training): its rows are the "
                f"paper's baselines. Beside it, as the 'trained' row: {trained_model} (loaded when first needed).\n{data}")
    return (f"What runs here: {lesson.encoder.name}, a model already TRAINED for similarity (with {lesson.trained_pooling} "
            "pooling).\nIts word_embeddings / static / CLS / layer-average rows below are views of a trained model, not of "
            "raw BERT, so they will NOT\nreproduce the paper's raw-BERT rows. Set MODEL = 'bert-base-uncased' (online, or "
            f"after predownload) for those.\n{data}")


def summary_report(lesson: Lesson03) -> Report:
    """The Summary: every verdict this run's reports recorded, as they recorded it."""
    if not lesson.verdicts:
        return Report("No verdict was recorded: run the sections above first.")
    return Report(f"This run's verdicts ({lesson.mode} mode, {lesson.short_name}):",
                  *(f"  {claim}: {value}" for claim, value in lesson.verdicts.items()))
