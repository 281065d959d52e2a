"""Lesson 05's set-up: the model, the seven STS sets and the sentences the calibrators are fitted on, encoded once
(``05_bert_flow.ipynb``, §1).

:func:`begin` loads the encoder and the data; :func:`encode_once` runs every distinct sentence through the frozen
encoder once, under every view, and then lets the encoder go: no later section needs it, and it is the largest
object of the lesson (about 0.4 GB for bert-base). :func:`keep_what_later_sections_read` drops what no later section reads.
"""
from __future__ import annotations

import gc
from dataclasses import dataclass, field

import pandas as pd

from sbert_workbook.calibration.calibrators import SENTENCES_PER_DIMENSION
from sbert_workbook.calibration.lexical import OPPOSITE_PAIRS, PARAPHRASE_PAIRS
from sbert_workbook.data import SEVEN_STS_SETS, StsData, load_sts
from sbert_workbook.data.corpora import nli_sentences, target_sentences
from sbert_workbook.encoding.encoder import load_encoder
from sbert_workbook.encoding.pooled_views import PooledViews
from sbert_workbook.evaluation.provenance import describe_model, with_provenance
from sbert_workbook.heap import return_freed_memory
from sbert_workbook.lessons.report import Report
from sbert_workbook.lessons.setup import Lesson
from sbert_workbook.lessons.setup import begin as begin_lesson

NOTEBOOK = "05_bert_flow"
BERT_BASE = "bert-base-uncased"


@dataclass
class Lesson05(Lesson):
    encoder: object = None  # released by encode_once once every sentence is encoded
    described: str = ""  # the model, as table captions name it
    is_bert_base: bool = False
    test_sets: dict[str, StsData] = field(default_factory=dict)
    fit_sentences: dict[str, list[str]] = field(default_factory=dict)
    stsb_dev: StsData | None = None
    bank: PooledViews | None = None
    views: tuple[str, ...] = ()
    results: dict = field(default_factory=dict)  # what one section computes and a later one reads, by name

    @property
    def stsb(self) -> StsData:
        return self.test_sets["stsb"]

    @property
    def dim(self) -> int:
        return self.bank.views[self.views[0]].shape[1]

    @property
    def short(self) -> list[str]:
        """The fit sets with fewer than SENTENCES_PER_DIMENSION sentences per dimension."""
        return [name for name, sentences in self.fit_sentences.items()
                if len(sentences) < SENTENCES_PER_DIMENSION * self.dim]

    def embed(self, view: str):
        """sentences → their frozen ``view`` vectors."""
        return lambda sentences: self.bank.get(view, sentences)

    def split(self, what: str = "test sets") -> str:
        pairs = self.sizes.PAIRS_PER_SET
        return f"{what}, {f'at most {pairs} pairs each' if pairs else 'every pair'}"


def model_note(encoder) -> str:
    """What the run's model means for reading this notebook against the papers."""
    if encoder.name == BERT_BASE:
        return "Running on bert-base-uncased, the paper's model: our rows can be read against the published ones."
    return (f"Running on {encoder.name}, NOT bert-base-uncased (the papers' model is not available here).\n"
            "Its `mean` pooling is already trained for similarity (contrastively, on ~1B sentence pairs): what calibration\n"
            "does to it here is a result for this model, not for BERT-base or SBERT-NLI. Its untrained views (`static`:\n"
            "the embedding layer's mean, `cls`: the [CLS] vector it never trained) are where raw-BERT-like problems remain.\n"
            "The BERT-base numbers below are quoted from the papers, not re-run. Run with MODEL='bert-base-uncased'\n"
            "online to reproduce them.")


def begin(quick="auto", model="auto", seed=0, device=None, sizes=None) -> Lesson05:
    """Set the lesson up: the encoder, the seven test sets, each set's unlabeled fit sentences, NLI's, STS-B dev."""
    lesson = begin_lesson(NOTEBOOK, quick, model, seed, device, sizes)
    encoder = load_encoder(model, device=lesson.device)
    print(model_note(encoder))
    pairs, fit_pairs = lesson.sizes.PAIRS_PER_SET, lesson.sizes.FIT_PAIRS
    test_sets = {name: load_sts(name, "test", limit=pairs) for name in SEVEN_STS_SETS}
    fit_sentences = {name: target_sentences(name, limit=fit_pairs, including=test_sets[name]) for name in SEVEN_STS_SETS}
    fit_sentences["nli"] = nli_sentences(first=lesson.sizes.NLI_PAIRS)
    return Lesson05(**vars(lesson), encoder=encoder, described=describe_model(encoder),
                    is_bert_base=encoder.name == BERT_BASE, test_sets=test_sets, fit_sentences=fit_sentences,
                    stsb_dev=load_sts("stsb", "dev", limit=pairs))


def every_sentence(lesson: Lesson05) -> list[str]:
    """Every sentence any section embeds: fit and test sentences, STS-B dev and §8's hand-written pairs."""
    hand_written = [s for pair in OPPOSITE_PAIRS + PARAPHRASE_PAIRS for s in pair]
    return [s for group in lesson.fit_sentences.values() for s in group] + lesson.stsb_dev.sentences1 \
        + lesson.stsb_dev.sentences2 + hand_written


def free_memory() -> None:
    """Collect the garbage and hand the C heap's free pages back to the system: the forward passes leave many freed
    buffers in the heap, which the kernel's resident memory still counts."""
    gc.collect()
    return_freed_memory()


def encode_once(lesson: Lesson05, views) -> PooledViews:
    """§1: every distinct sentence through the frozen encoder once, under every view; then the encoder is let go."""
    bank = PooledViews.of(lesson.encoder, every_sentence(lesson), views, batch_size=lesson.sizes.ENCODE_BATCH)
    lesson.bank, lesson.views = bank.frozen(), tuple(bank.poolings)
    lesson.encoder = bank = None
    free_memory()
    print(f"{len(lesson.bank)} distinct sentences encoded under {list(lesson.views)}, {lesson.dim} dimensions each; "
          "the encoder is released (every later section reads these frozen vectors)")
    return lesson.bank


def data_report(lesson: Lesson05):
    """§1: test pairs and fit sentences per set, and whether each fit has enough sentences for its dimensions."""
    counts = pd.DataFrame({"test pairs": {n: len(d) for n, d in lesson.test_sets.items()},
                           "fit sentences": {n: len(s) for n, s in lesson.fit_sentences.items()}})
    need = SENTENCES_PER_DIMENSION * lesson.dim
    said = (f"A covariance, Gaussian or flow in {lesson.dim} dimensions needs at least {SENTENCES_PER_DIMENSION}·{lesson.dim} "
            f"= {need} sentences to be fitted well: " + (f"{', '.join(lesson.short)} fall short (raise FIT_PAIRS or "
            "NLI_PAIRS in SIZES; section 12.1 fits whitening in fewer dimensions)." if lesson.short
            else "every fit below has them."))
    table = with_provenance(counts, model="none (counts of pairs and sentences)", pooling="n/a", aggregation="n/a",
                            split=f"{lesson.split('test pairs: test split')}; fit sentences: each set's unlabeled "
                                  "sentences (target), SNLI + MultiNLI dev (nli)")
    return Report(table, said)


#: What §8-§12 read of §7's fitted calibrators: every flow, and the static view's SN and whitening on STS-B (§9).
KEPT_AFTER_SECTION_7 = ("+flow (target)", "+flow (NLI)")


def keep_what_later_sections_read(lesson: Lesson05):
    """After §7.1: drop §7's SN, NATSV and whitening fits (a d × d matrix per set and view), keeping the flows and
    the static view's STS-B fits §9 draws; say how many went."""
    dropped = 0
    for view, fitted in lesson.results["fitted"].items():
        for key in list(fitted):
            label, source = key
            if label not in KEPT_AFTER_SECTION_7 and not (view == "static" and source == "stsb"):
                del fitted[key]
                dropped += 1
    free_memory()
    return Report(f"{dropped} fitted calibrators no later section reads were let go (every flow is kept)")
