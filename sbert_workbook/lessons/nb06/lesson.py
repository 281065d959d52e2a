"""Lesson 06's set-up: the two starts (the start model and its cone), the data, and the sentences every row is scored on
(``06_contrastive_simcse.ipynb``).

Memory decides the shape. The start model is loaded once here, its raw vectors of every sentence a later table asks
about are kept (a few MB), and it is freed; each run from it loads a fresh copy from disk, trains, is scored and freed
(:mod:`.runs`), so one copy of the model and its optimizer is alive at a time, never several.
"""
from __future__ import annotations

import gc
from dataclasses import dataclass, field

import torch

from sbert_workbook import published
from sbert_workbook.data import load_nli, load_sts
from sbert_workbook.data.corpora import nli_sentences
from sbert_workbook.data.registry import SEVEN_STS_SETS
from sbert_workbook.encoding.quiet_loading import load_tokenizer, load_transformer_quietly
from sbert_workbook.encoding.resolve import resolve_model
from sbert_workbook.lessons.setup import Lesson
from sbert_workbook.lessons.setup import begin as begin_lesson
from sbert_workbook.training import contrastive, isotropy
from sbert_workbook.training.bag_of_words import TokenIds, bag_of_words_of, bag_of_words_row
from sbert_workbook.training.examples import concatenate, nli_pairs, nli_positive_pairs, nli_triplets
from sbert_workbook.training.siamese import SiameseModel

NOTEBOOK = "06_contrastive_simcse"
#: The released SimCSE scripts' --max_seq_length (published.SIMCSE_UNSUP_RECIPE): every run trains at this many tokens.
MAX_LENGTH = published.SIMCSE_UNSUP_RECIPE.settings["max sequence length"]
#: Only word vectors learn from the cone, as in a word-vector model: their step size, not the transformer's 3e-5.
CONE_LEARNING_RATE = 1e-3
#: SimCSE Table 3's largest dropout probability.
LARGE_P = 0.5
TAU = published.SIMCSE_TEMPERATURE
STARTS = ("cone", "start model")


@dataclass
class Data06:
    """Every data set the lesson reads, sampled to the run's sizes."""

    unsup_sentences: list[str]
    unsup: object  # Examples: each sentence its own positive
    deletion: object  # Examples: each sentence and itself with one word deleted
    sup: object  # Examples: premise, entailment, contradiction
    nli_pairs: object  # Examples: premise, hypothesis, label (SBERT's softmax objective)
    stsb_dev: object  # the STS-B dev pairs scored while training
    align_pairs: tuple[list[str], list[str]]  # STS-B dev pairs scored above 4: alignment's positives
    uniform_sentences: list[str]  # the sentences of stsb_dev: uniformity's sample
    test_sets: dict  # the seven STS test sets the start model's rows are scored on
    cone_test_sets: dict  # the same sets, the cone's (larger) sample
    sick_train: object
    sick_test: object
    calibration_sentences: list[str]  # NLI sentences the calibrators are fitted on
    cache_pairs: object  # §7's premise → entailed hypothesis pairs


@dataclass
class Lesson06(Lesson):
    resolved: object = None
    tokenizer: object = None
    pooling: str = "mean"  # the start model's pooling in training and for its trained rows
    raw_pooling: str = "mean"  # its raw row's pooling (SimCSE Table 5's first-last average for bert-base)
    is_bert_base: bool = False
    cone: SiameseModel | None = None
    data: Data06 | None = None
    raw: dict = field(default_factory=dict)  # start → frozen raw row (raw_pooling), holds vectors, no model
    start_row: dict = field(default_factory=dict)  # start → frozen row in the training pooling (paths start here)
    demo: tuple = ()  # §1: the start model's vectors of a few SNLI entailment pairs
    token_ids: TokenIds | None = None  # the cone's token ids of every sentence read, tokenised once
    said_dev_is_cut: bool = False  # the runs' line on STS-B dev cut at MAX_LENGTH tokens, printed once (runs.py)
    _starting: dict = field(default_factory=dict, repr=False)

    @property
    def seeds(self) -> list[int]:
        return [self.seed + k for k in range(self.sizes.CONE_SEEDS)]

    def starting_rows(self) -> dict:
        """Each untrained start scored as a row (its training pooling): where every path of §2–4 begins."""
        from sbert_workbook.lessons.nb06.rows import score_row

        if not self._starting:
            self._starting.update({start: score_row(self, start, start, self.start_row[start]) for start in STARTS})
        return self._starting

    def steps_for(self, examples) -> int:
        """Steps of a run from the start model: STEPS, or one epoch of its ``examples`` (full mode)."""
        return self.sizes.STEPS or max(1, len(examples) // self.sizes.BATCH_SIZE)

    def sentences_for(self, start: str) -> list[str]:
        """Every sentence a row of ``start`` is asked about: geometry, its test sets, §5.2's frequency sentences and,
        for the start model, §6's SICK pairs."""
        d = self.data
        sets = [*d.cone_test_sets.values(), *d.test_sets.values()] if start == "cone" else list(d.test_sets.values())
        sick = [] if start == "cone" else [s for data in (d.sick_train, d.sick_test) for s in data.premises + data.hypotheses]
        return list(dict.fromkeys([*d.uniform_sentences, *d.align_pairs[0], *d.align_pairs[1],
                                   *(s for data in sets for s in data.sentences1 + data.sentences2), *sick]))

    def calibration_for(self, start: str) -> list[str]:
        """The NLI sentences the calibrators of ``start`` are fitted on: all for the cone, at most CALIBRATION_PER_DIM
        per dimension for the start model (05 asks at least 4 per dimension)."""
        sentences = self.data.calibration_sentences
        return sentences if start == "cone" else sentences[:self.sizes.CALIBRATION_PER_DIM * self.cone.dim]

    def fresh_start(self) -> SiameseModel:
        """A fresh copy of the start model, read from disk (so no copy stays in memory between runs)."""
        import contextlib
        import io

        with contextlib.redirect_stdout(io.StringIO()):  # its note on unused weights was printed at the first load
            transformer = load_transformer_quietly(self.resolved, self.resolved.model_id)
        return SiameseModel(transformer, self.tokenizer, self.resolved, self.pooling, MAX_LENGTH).to(self.device)


def load_data(lesson: Lesson) -> Data06:
    """The lesson's data at its sizes (samples drawn with the lesson's seed)."""
    sizes, seed = lesson.sizes, lesson.seed
    sentences = nli_sentences(first=sizes.UNSUP_SENTENCES)  # premises and hypotheses of SNLI and MultiNLI dev
    nli_dev = [load_nli(name) for name in ("snli", "mnli")]
    stsb_dev = load_sts("stsb", "dev").sample(sizes.DEV_PAIRS, seed=seed)
    align = tuple(side[:sizes.DEV_PAIRS] for side in isotropy.positive_pairs(load_sts("stsb", "dev")))
    described = "SNLI + MultiNLI dev sentences"
    return Data06(
        sentences, contrastive.unsupervised_pairs(sentences, described),
        contrastive.delete_one_word_pairs(sentences, seed=seed, description=described),
        concatenate(*(nli_triplets(data) for data in nli_dev)), concatenate(*(nli_pairs(data) for data in nli_dev)),
        stsb_dev, align, list(dict.fromkeys(stsb_dev.sentences1 + stsb_dev.sentences2)),
        {name: load_sts(name, "test", limit=sizes.PAIRS_PER_SET) for name in SEVEN_STS_SETS},
        {name: load_sts(name, "test", limit=sizes.CONE_PAIRS_PER_SET) for name in SEVEN_STS_SETS},
        load_nli("sick_nli", "train").first(sizes.PROBE_PAIRS), load_nli("sick_nli", "test").first(sizes.PROBE_PAIRS),
        sentences, nli_positive_pairs(nli_dev[0]).head(sizes.CACHE_EXAMPLES))


def begin(quick="auto", model="auto", seed=0, device=None, sizes=None, pooling=None) -> Lesson06:
    """Set the lesson up: load the start model once, make its cone, read the data, keep the start's vectors of every
    sentence a table will ask about, and free the start model.

    ``pooling``: the start model's pooling; None reads the parameters cell's ``POOLING`` from the calling notebook
    ("auto": cls for bert-base-uncased, the paper's [CLS]; mean for other models, the embedded model's trained pooling).
    """
    if pooling is None:
        import sys

        pooling = sys._getframe(1).f_globals.get("POOLING", "auto")
    lesson = begin_lesson(NOTEBOOK, quick, model, seed, device, sizes)
    resolved = resolve_model(model)
    print(f"Start model: {resolved.describe()}")
    start = SiameseModel(load_transformer_quietly(resolved, resolved.model_id), load_tokenizer(resolved), resolved,
                         "cls", MAX_LENGTH).to(lesson.device)
    is_bert_base = resolved.model_id == "bert-base-uncased"
    start.pooling = ("cls" if is_bert_base else "mean") if pooling == "auto" else pooling
    lesson = Lesson06(**vars(lesson), resolved=resolved, tokenizer=start.tokenizer, pooling=start.pooling,
                      raw_pooling="first_last_avg" if is_bert_base else start.pooling, is_bert_base=is_bert_base,
                      cone=bag_of_words_of(start), token_ids=TokenIds(start.tokenizer, start.encoder().position_limit))
    lesson.data = load_data(lesson)
    _keep_start_vectors(lesson, start)
    del start
    gc.collect()
    return lesson


def _keep_start_vectors(lesson: Lesson06, start: SiameseModel) -> None:
    """The frozen rows of both starts (raw pooling and training pooling) and §1's demo vectors, computed while the start
    model exists."""
    batch = lesson.sizes.EVAL_BATCH
    for name, model in (("cone", lesson.cone), ("start model", start)):
        wanted = lesson.sentences_for(name) + lesson.calibration_for(name)
        pooling = lesson.raw_pooling if name == "start model" else None
        row = bag_of_words_row(model, lesson.token_ids) if name == "cone" else isotropy.model_row(model, batch, pooling)
        lesson.raw[name] = isotropy.frozen_row(row, wanted, f"the {name}'s raw row")
        geometry = lesson.sentences_for(name)
        lesson.start_row[name] = (lesson.raw[name] if pooling in (None, model.pooling) else
                                  isotropy.frozen_row(isotropy.model_row(model, batch), geometry, f"the {name}"))
    snli = load_nli("snli").first(5 * lesson.sizes.DEMO_PAIRS)
    pairs = [(p, h) for p, h, label in zip(snli.premises, snli.hypotheses, snli.labels) if label == "entailment"]
    pairs = pairs[:lesson.sizes.DEMO_PAIRS]
    with torch.no_grad():
        lesson.demo = tuple(start.eval().embed_columns([[p for p, _ in pairs], [h for _, h in pairs]]))
