"""Lesson 02's set-up (``02_anisotropy.ipynb``): its models, read once each and then let go, and its sentences.

Every result of the lesson reads vectors a model gives once: each sentence's mean-pooled and [CLS] vector at every
layer, a sample of contextual token vectors, the mean of its input word-embedding rows, and the model's input
word-embedding matrix with a frequency rank for each token. :func:`begin` loads one model at a time, keeps those and
lets the transformer's weights go before loading the next, so at most one model is in memory at once.
"""
from __future__ import annotations

import gc
import sys
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from sbert_workbook.anisotropy import metrics, word_frequency
from sbert_workbook.lessons.setup import Lesson
from sbert_workbook.lessons.setup import begin as begin_lesson

NOTEBOOK = "02_anisotropy"
EMBEDDED_ID = "sentence-transformers/all-MiniLM-L6-v2"
#: The sentence views §1-§8 compare: pooled from a model's layers (``static`` = mean of layer 0), or a lookup.
POOLINGS = ("static", "cls", "mean")
CONE_POOLINGS = ("word_embeddings", *POOLINGS)


@dataclass
class ModelRun:
    """What lesson 02 reads of one model, kept after its weights are let go."""

    name: str  # "sentence-transformers/all-MiniLM-L6-v2"
    described: str  # name and revision, for the tables' captions
    tokenizer: Any
    word_embeddings: torch.Tensor  # the input word-embedding matrix (vocabulary × dim), float32 on the CPU
    frequencies: word_frequency.TokenFrequencies
    layers: dict  # metrics.layer_views: {"mean": [...], "cls": [...], "tokens": [...]}, one array per hidden state
    word_means: np.ndarray  # per sentence: the mean of its input word-embedding rows (no positions, no LayerNorm)

    @property
    def short(self) -> str:
        return self.name.split("/")[-1]

    @property
    def n_layers(self) -> int:
        """Hidden states, the embedding layer (0) included."""
        return len(self.layers["mean"])

    def vectors(self, pooling: str, layer: int = -1, rows=None) -> np.ndarray:
        """Sentence vectors of one view: ``static`` (the mean over layer 0), ``mean`` or ``cls`` at ``layer``, or
        ``word_embeddings`` (the mean of the input word-embedding rows); the sentences at ``rows`` (all by default)."""
        if pooling == "word_embeddings":
            vectors = self.word_means
        else:
            pooling, layer = ("mean", 0) if pooling == "static" else (pooling, layer)
            vectors = self.layers[pooling][layer]
        return vectors if rows is None else vectors[rows]


@dataclass
class Lesson02(Lesson):
    runs: dict[str, ModelRun] = field(default_factory=dict)
    main: str = ""  # the name of MODEL's run
    stsb: Any = None  # STS-B test (StsData)
    sentences: list[str] = field(default_factory=list)  # every distinct sentence, each encoded once
    cloud_rows: np.ndarray = None  # the sentences of the 3-D view (§3), in its order
    cloud_dataset: np.ndarray = None  # the data set each of them came from
    pair_rows: tuple[np.ndarray, np.ndarray] = None  # STS-B pairs: rows of sentence 1 and sentence 2
    use_umap: bool = False

    @property
    def main_run(self) -> ModelRun:
        return self.runs[self.main]

    @property
    def stsb_rows(self) -> np.ndarray:
        """The distinct sentences of the STS-B pairs: the sample §1, §2 and §7 measure the cone on."""
        return np.unique(np.concatenate(self.pair_rows))

    @property
    def only_embedded(self) -> bool:
        return list(self.runs) == [EMBEDDED_ID]

    def vectors(self, pooling: str, layer: int = -1, rows=None, model: str | None = None) -> np.ndarray:
        """:meth:`ModelRun.vectors` of the main model (or ``model``)."""
        return self.runs[model or self.main].vectors(pooling, layer, rows)

    def token_lengths(self, rows=None, model: str | None = None) -> np.ndarray:
        """How many WordPiece tokens each sentence has ([CLS] and [SEP] left out), by the model's tokenizer."""
        sentences = self.sentences if rows is None else [self.sentences[i] for i in rows]
        ids = self.runs[model or self.main].tokenizer(sentences, add_special_tokens=False)["input_ids"]
        return np.array([len(one) for one in ids])

    def views(self, poolings=POOLINGS) -> list[tuple[str, str]]:
        """(model, pooling) of every view the tables compare, model by model."""
        return [(model, pooling) for model in self.runs for pooling in poolings]

    def view_name(self, view: tuple[str, str]) -> str:
        return f"{self.runs[view[0]].short} · {view[1]}"

    @property
    def models(self) -> str:
        """The models that made the tables, for their captions."""
        return "; ".join(run.described for run in self.runs.values())

    @property
    def stsb_split(self) -> str:
        from sbert_workbook.evaluation.provenance import describe_split

        return f"the {len(self.stsb_rows)} distinct sentences of {describe_split(self.stsb)}"


def begin(quick="auto", model="auto", seed=0, device=None, sizes=None, *, compare_model: str | None = None,
          use_umap: bool | None = None) -> Lesson02:
    """Set the lesson up: the sentences, then MODEL and COMPARE_MODEL (a second model for 'raw vs trained'; "" for
    none), each read once (:class:`ModelRun`) and let go.

    ``compare_model`` and ``use_umap`` (None: UMAP outside quick mode only) are the lesson's own choices: left out,
    they are read from the calling notebook's parameters cell (``COMPARE_MODEL``, ``USE_UMAP``), as
    :func:`~sbert_workbook.teaching.exercises.check` reads its variables, so the set-up call stays the same in
    every lesson.
    """
    parameters = sys._getframe(1).f_globals
    compare_model = parameters.get("COMPARE_MODEL", "embedded") if compare_model is None else compare_model
    use_umap = parameters.get("USE_UMAP") if use_umap is None else use_umap
    lesson = begin_lesson(NOTEBOOK, quick, model, seed, device, sizes)
    stsb, sentences, cloud, cloud_dataset, pair_rows = _sentences(lesson.sizes)
    runs = {}
    for name in [model] + ([compare_model] if compare_model else []):
        run = _read_model(name, lesson, sentences, set(runs))
        if run is not None:
            runs[run.name] = run
    use_umap = (not lesson.quick) if use_umap is None else bool(use_umap)
    return Lesson02(**vars(lesson), runs=runs, main=next(iter(runs)), stsb=stsb, sentences=sentences,
                    cloud_rows=cloud, cloud_dataset=cloud_dataset, pair_rows=pair_rows, use_umap=use_umap)


def _sentences(sizes):
    """STS-B test, and the sentences of the 3-D view (STS-B, SICK and SNLI), as rows of one list of distinct sentences."""
    from sbert_workbook.data import load_nli, load_sts

    stsb = load_sts("stsb", "test", limit=sizes.STSB_PAIRS)
    sick = load_sts("sickr", "test", limit=sizes.N_PER_DATASET)
    snli = load_nli("snli").first(sizes.N_PER_DATASET)
    sources = {"STS-B": stsb.sentences1[:sizes.N_PER_DATASET], "SICK": sick.sentences1, "SNLI": snli.premises}
    cloud_sentences = [s for sentences in sources.values() for s in sentences]
    sentences = list(dict.fromkeys(cloud_sentences + stsb.sentences1 + stsb.sentences2))
    row = {sentence: i for i, sentence in enumerate(sentences)}
    cloud_dataset = np.array([name for name, part in sources.items() for _ in part])
    pair_rows = tuple(np.array([row[s] for s in side]) for side in (stsb.sentences1, stsb.sentences2))
    return stsb, sentences, np.array([row[s] for s in cloud_sentences]), cloud_dataset, pair_rows


def _read_model(name: str, lesson: Lesson, sentences: list[str], read: set[str]) -> ModelRun | None:
    """Load ``name``, read what the lesson needs of it, let its weights go. None when it is a model already ``read``
    or a second model that cannot be loaded (the reason printed); MODEL that cannot be loaded is an error."""
    from sbert_workbook.encoding.encoder import load_encoder
    from sbert_workbook.encoding.resolve import ModelNotFoundError, resolve_model
    from sbert_workbook.evaluation.provenance import describe_model

    try:
        if read and resolve_model(name).model_id in read:
            return None
        encoder = load_encoder(name, lesson.device)
    except ModelNotFoundError as why:
        if not read:
            raise
        print(f"COMPARE_MODEL={name!r} could not be loaded: {why}")
        return None
    run = ModelRun(
        encoder.name, describe_model(encoder), encoder.tokenizer,
        encoder.model.get_input_embeddings().weight.detach().float().cpu().clone(),
        word_frequency.wordfreq_token_frequencies(encoder.tokenizer, n_words=lesson.sizes.N_WORDS),
        metrics.layer_views(encoder, sentences, max_tokens=lesson.sizes.MAX_TOKENS, seed=lesson.seed),
        encoder.encode(sentences, pooling="word_embeddings", progress=False).numpy())
    del encoder
    gc.collect()
    return run
