"""A cross-encoder: both sentences read together, one score per pair (``04_siamese_finetuning.ipynb`` §1).

BERT reads ``[CLS] a [SEP] b [SEP]`` and a regression head on top gives one number per pair
(transformers' ``AutoModelForSequenceClassification`` with ``num_labels=1``: mean squared error
against the gold score scaled to [0, 1]). SBERT's Table 2 rows ``BERT-STSb-*`` and
``BERT-NLI-STSb-*`` are such models. There is no sentence vector to keep: every pair costs one
forward pass, which :mod:`sbert_workbook.evaluation.search` times (pass :meth:`CrossEncoder.predict` in).
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from tqdm.auto import tqdm

from sbert_workbook.data.records import StsData
from sbert_workbook.devices import pick_device
from sbert_workbook.encoding.resolve import ResolvedModel, resolve_model
from sbert_workbook.encoding.text_input import checked_sentences
from sbert_workbook.evaluation.sts import correlations
from sbert_workbook.settings import set_seed
from sbert_workbook.training.examples import Examples
from sbert_workbook.training.fitting import TrainingConfig, batch_plan, mixed_precision_for
from sbert_workbook.training.siamese import SMALL_BERT


def checked_pairs(pairs: Sequence[tuple[str, str]]) -> tuple[list[str], list[str]]:
    """The first and second sentences of ``pairs``, each checked; a clear error for anything else."""
    pairs = [tuple(pair) for pair in pairs]
    if not pairs or any(len(pair) != 2 for pair in pairs):
        raise ValueError("A cross-encoder scores a non-empty list of (sentence, sentence) pairs, "
                         "e.g. list(zip(data.sentences1, data.sentences2)).")
    first, second = zip(*pairs)
    return checked_sentences(list(first)), checked_sentences(list(second))


class CrossEncoder:
    """Transformer + regression head over ``[CLS] a [SEP] b [SEP]``: pairs in, one score each out."""

    def __init__(self, model, tokenizer, resolved: ResolvedModel, max_length: int = 128):
        if model.config.num_labels != 1:
            raise ValueError(f"A regression cross-encoder has one output, this model has {model.config.num_labels}: "
                             "build it with CrossEncoder.from_pretrained(name).")
        self.model, self.tokenizer, self.resolved, self.max_length = model, tokenizer, resolved, max_length

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    @property
    def name(self) -> str:
        return f"cross-encoder over {self.resolved.model_id}"

    def tokenize(self, pairs: Sequence[tuple[str, str]]) -> dict[str, torch.Tensor]:
        """One ``[CLS] a [SEP] b [SEP]`` row per pair (token type 0 for a, 1 for b), padded to the longest."""
        first, second = checked_pairs(pairs)
        batch = self.tokenizer(first, second, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt")
        return {key: value.to(self.device) for key, value in batch.items()}

    def predict(self, pairs: Sequence[tuple[str, str]], batch_size: int = 32) -> np.ndarray:
        """One score per pair (the head's output, trained towards gold / 5): one joint forward pass per pair."""
        pairs = list(pairs)
        checked_pairs(pairs)
        self.model.eval()
        scores = []
        with torch.inference_mode():
            for start in range(0, len(pairs), batch_size):
                logits = self.model(**self.tokenize(pairs[start:start + batch_size])).logits
                scores.append(logits.float().view(-1).cpu())
        return torch.cat(scores).numpy()

    def save(self, folder: str | Path) -> Path:
        """Weights as ``model.safetensors`` (no pickle) with config and tokenizer: :meth:`load` reads it back."""
        folder = Path(folder)
        self.model.save_pretrained(folder, safe_serialization=True)
        self.tokenizer.save_pretrained(folder)
        return folder

    @classmethod
    def load(cls, folder: str | Path, max_length: int = 128, device=None) -> CrossEncoder:
        """A cross-encoder saved by :meth:`save` (``04`` §1 trains it, then times it)."""
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        folder = Path(folder)
        if not (folder / "model.safetensors").is_file():
            raise FileNotFoundError(f"No model.safetensors in {folder}: save a trained cross-encoder there with .save(folder).")
        model = AutoModelForSequenceClassification.from_pretrained(folder, use_safetensors=True)
        resolved = ResolvedModel(str(folder), folder, "local folder", model.config.name_or_path or str(folder), "local",
                                 "a cross-encoder saved by CrossEncoder.save")
        return cls(model.to(pick_device(device)), AutoTokenizer.from_pretrained(folder), resolved, max_length)

    @classmethod
    def from_pretrained(cls, name: str | ResolvedModel = "auto", max_length: int = 128, device=None, seed: int = 0) -> CrossEncoder:
        """Any name :func:`~sbert_workbook.resolve_model` understands (or an encoder's ``resolved``), with a fresh
        regression head drawn from ``seed``."""
        from transformers import AutoModelForSequenceClassification, AutoTokenizer
        from transformers.utils import logging as transformers_logging

        resolved = name if isinstance(name, ResolvedModel) else resolve_model(name)
        print(f"Cross-encoder from {resolved.describe()}; regression head newly initialised (seed {seed})")
        verbosity = transformers_logging.get_verbosity()
        transformers_logging.set_verbosity_error()  # the 'newly initialised head' warning is the point here
        try:
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(seed)
                model = AutoModelForSequenceClassification.from_pretrained(resolved.path, num_labels=1)
        finally:
            transformers_logging.set_verbosity(verbosity)
        return cls(model.to(pick_device(device)), AutoTokenizer.from_pretrained(resolved.path), resolved, max_length)

    @classmethod
    def from_scratch(cls, tokenizer_from: str = "embedded", max_length: int = 128, device=None, seed: int = 0,
                     **config) -> CrossEncoder:
        """A freshly initialised BERT (``SMALL_BERT`` sizes unless overridden) with a regression head: the untrained "before"."""
        from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

        source = resolve_model(tokenizer_from)
        tokenizer = AutoTokenizer.from_pretrained(source.path)
        sizes = {**SMALL_BERT, **config}
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            model = BertForSequenceClassification(BertConfig(vocab_size=tokenizer.vocab_size, num_labels=1, **sizes))
        resolved = ResolvedModel("scratch", Path("(in memory)"), "fresh random initialisation",
                                 f"BERT {sizes['num_hidden_layers']} layers × {sizes['hidden_size']}, random init",
                                 "none", f"untrained; tokenizer of {source.model_id}")
        return cls(model.to(pick_device(device)), tokenizer, resolved, max_length)


@dataclass
class CrossEncoderRun:
    """What :func:`train_cross_encoder` did: steps, seconds, pairs seen and the loss of every step."""

    steps: int
    seconds: float
    examples_seen: int
    precision: str
    history: dict = field(default_factory=dict)


def train_cross_encoder(model: CrossEncoder, examples: Examples, config: TrainingConfig | None = None) -> CrossEncoderRun:
    """Fit the cross-encoder to pairs with scores in [0, 1] (:func:`~sbert_workbook.training.examples.sts_pairs`).

    The paper's recipe as in :func:`~sbert_workbook.training.fitting.fit`: the same seeded batch plan,
    AdamW with linear warm-up and decay, gradient clipping, mixed precision through ``accelerate``;
    the loss is the head's mean squared error (``04`` §1).
    """
    from accelerate import Accelerator
    from transformers import get_linear_schedule_with_warmup

    config = config or TrainingConfig()
    if len(examples.columns) != 2 or examples.labels is None:
        raise ValueError(f"A cross-encoder trains on scored pairs; got columns {list(examples.columns)} "
                         f"(labels: {examples.labels is not None}). Build them with sts_pairs(load_sts('stsb', 'train')).")
    device = pick_device(config.device)
    accelerator = Accelerator(cpu=device.type == "cpu", mixed_precision=mixed_precision_for(device, config.mixed_precision))
    plan = batch_plan(examples, "regression", config)
    set_seed(config.seed)
    optimizer = torch.optim.AdamW(model.model.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay)
    scheduler = get_linear_schedule_with_warmup(optimizer, int(config.warmup_ratio * len(plan)), len(plan))
    prepared, optimizer = accelerator.prepare(model.model, optimizer)
    history, started = {"step": [], "loss": []}, time.perf_counter()
    prepared.train()
    for step, batch in enumerate(tqdm(plan, desc="cross-encoder (regression)", unit="step", disable=not config.progress), 1):
        (first, second), labels = examples.batch(batch)
        with accelerator.autocast():
            loss = prepared(**model.tokenize(list(zip(first, second))), labels=labels.float().to(accelerator.device)).loss
        accelerator.backward(loss)
        if config.max_grad_norm:
            accelerator.clip_grad_norm_(prepared.parameters(), config.max_grad_norm)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        history["step"].append(step)
        history["loss"].append(float(loss.detach()))
    model.model = accelerator.unwrap_model(prepared).eval()
    precision = {"no": "fp32"}.get(accelerator.mixed_precision, accelerator.mixed_precision)
    return CrossEncoderRun(len(plan), time.perf_counter() - started, sum(map(len, plan)), precision, history)


def evaluate_cross_encoder(model: CrossEncoder, data: StsData, batch_size: int = 32) -> dict[str, float]:
    """Spearman and Pearson × 100 between the cross-encoder's scores and the gold scores of ``data`` (``04`` §1)."""
    return correlations(model.predict(list(zip(data.sentences1, data.sentences2)), batch_size), data.scores)
