"""A cross-encoder: both sentences read together, one score per pair (``04_siamese_finetuning.ipynb`` §1).

BERT reads ``[CLS] a [SEP] b [SEP]`` and a regression head on top gives one number per pair
(transformers' ``AutoModelForSequenceClassification`` with ``num_labels=1``: mean squared error
against the gold score scaled to [0, 1]). SBERT's Table 2 rows ``BERT-STSb-*`` and
``BERT-NLI-STSb-*`` are such models. There is no sentence vector to keep: every pair costs one
forward pass, which :mod:`sbert_workbook.evaluation.search` times (pass :meth:`CrossEncoder.predict` in).
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from torch import nn

from sbert_workbook.data.records import StsData
from sbert_workbook.devices import pick_device
from sbert_workbook.encoding.resolve import ResolvedModel, resolve_model
from sbert_workbook.encoding.quiet_loading import load_tokenizer, quiet_transformers, transformer_folder
from sbert_workbook.encoding.text_input import checked_sentences
from sbert_workbook.evaluation.sts import correlations
from sbert_workbook.training.siamese import SMALL_BERT


def checked_pairs(pairs: Sequence[tuple[str, str]]) -> tuple[list[str], list[str]]:
    """The first and second sentences of ``pairs``, each checked; a clear error for anything else."""
    pairs = [tuple(pair) for pair in pairs]
    if not pairs or any(len(pair) != 2 for pair in pairs):
        raise ValueError("A cross-encoder scores a non-empty list of (sentence, sentence) pairs, "
                         "e.g. list(zip(data.sentences1, data.sentences2)).")
    first, second = zip(*pairs)
    return checked_sentences(list(first)), checked_sentences(list(second))


class CrossEncoder(nn.Module):
    """Transformer + regression head over ``[CLS] a [SEP] b [SEP]``: pairs in, one score each out.

    Trained by :func:`~sbert_workbook.training.fitting.fit` with the ``cross_regression`` objective
    (:mod:`sbert_workbook.training.objectives`), like the bi-encoder: the same batch plan, resume,
    out-of-memory back-off and dev evaluation.
    """

    def __init__(self, model, tokenizer, resolved: ResolvedModel, max_length: int = 128):
        if model.config.num_labels != 1:
            raise ValueError(f"A regression cross-encoder has one output, this model has {model.config.num_labels}: "
                             "build it with CrossEncoder.from_pretrained(name).")
        super().__init__()
        self.model, self.tokenizer, self.resolved, self.max_length = model, tokenizer, resolved, max_length

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    @property
    def name(self) -> str:
        return f"cross-encoder over {self.resolved.model_id}"

    def forward(self, **batch) -> torch.Tensor:
        """The head's output for a tokenized batch of pairs: shape (pairs, 1)."""
        return self.model(**batch).logits

    def sts_spearman(self, data: StsData) -> float:
        """Spearman × 100 of this model's scores on ``data`` (what ``fit`` tracks on the dev set)."""
        return evaluate_cross_encoder(self, data)["spearman"]

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
        from transformers import AutoModelForSequenceClassification

        folder = Path(folder)
        if not (folder / "model.safetensors").is_file():
            raise FileNotFoundError(f"No model.safetensors in {folder}: save a trained cross-encoder there with .save(folder).")
        model = AutoModelForSequenceClassification.from_pretrained(folder, use_safetensors=True)
        resolved = ResolvedModel(str(folder), folder, "local folder", model.config.name_or_path or str(folder), "local",
                                 "a cross-encoder saved by CrossEncoder.save")
        return cls(model.to(pick_device(device)), load_tokenizer(folder), resolved, max_length)

    @classmethod
    def from_pretrained(cls, name: str | ResolvedModel = "auto", max_length: int = 128, device=None, seed: int = 0) -> CrossEncoder:
        """Any name :func:`~sbert_workbook.resolve_model` understands (or an encoder's ``resolved``), with a fresh
        regression head drawn from ``seed``."""
        from transformers import AutoModelForSequenceClassification

        resolved = name if isinstance(name, ResolvedModel) else resolve_model(name)
        print(f"Cross-encoder from {resolved.describe()}; regression head newly initialised (seed {seed})")
        with quiet_transformers(), torch.random.fork_rng(devices=[]):  # the line above says the head is new
            torch.manual_seed(seed)
            model = AutoModelForSequenceClassification.from_pretrained(transformer_folder(resolved), num_labels=1)
        return cls(model.to(pick_device(device)), load_tokenizer(resolved), resolved, max_length)

    @classmethod
    def from_scratch(cls, tokenizer_from: str = "embedded", max_length: int = 128, device=None, seed: int = 0,
                     **config) -> CrossEncoder:
        """A freshly initialised BERT (``SMALL_BERT`` sizes unless overridden) with a regression head: the untrained "before"."""
        from transformers import BertConfig, BertForSequenceClassification

        source = resolve_model(tokenizer_from)
        tokenizer = load_tokenizer(source)
        sizes = {**SMALL_BERT, **config}
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            model = BertForSequenceClassification(BertConfig(vocab_size=tokenizer.vocab_size, num_labels=1, **sizes))
        resolved = ResolvedModel("scratch", Path("(in memory)"), "fresh random initialisation",
                                 f"BERT {sizes['num_hidden_layers']} layers × {sizes['hidden_size']}, random init",
                                 "none", f"untrained; tokenizer of {source.model_id}")
        return cls(model.to(pick_device(device)), tokenizer, resolved, max_length)


def evaluate_cross_encoder(model: CrossEncoder, data: StsData, batch_size: int = 32) -> dict[str, float]:
    """Spearman and Pearson × 100 between the cross-encoder's scores and the gold scores of ``data`` (``04`` §1)."""
    return correlations(model.predict(list(zip(data.sentences1, data.sentences2)), batch_size), data.scores)
