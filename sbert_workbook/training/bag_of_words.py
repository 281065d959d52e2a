"""A start in a cone that a CPU trains in seconds: a model's input word embeddings, averaged (a bag of words).

Introduced in ``06_contrastive_simcse.ipynb``. The embedded all-MiniLM-L6-v2 is already trained contrastively, so
SimCSE on top of it shows little. Its input word-embedding rows are not: averaged over a sentence they form the
narrowest cone of 02 §3 (highest mean cosine of unrelated sentences). :func:`bag_of_words_of` makes that view a
trainable :class:`~sbert_workbook.training.siamese.SiameseModel`: u = (1/n) Σ_t dropout(W[x_t]), where only W
learns and BERT's own embedding dropout is the noise between a sentence's two views. A forward pass is one
look-up and a mean, so hundreds of SimCSE steps take seconds, with the same ``fit`` as every other run.
"""
from __future__ import annotations

import copy
import itertools
from collections.abc import Sequence

import torch

from sbert_workbook.encoding.resolve import ResolvedModel
from sbert_workbook.training.siamese import SiameseModel

#: The pooling that makes a SiameseModel a bag of words (sbert_workbook.encoding.pooling.word_embedding_pooling).
BAG_OF_WORDS_POOLING = "word_embeddings"


def bag_of_words_of(model: SiameseModel, max_length: int | None = None) -> SiameseModel:
    """A copy of ``model``'s input word embeddings as a trainable bag-of-words encoder, labelled as such in every
    caption: the same architecture with no transformer layer (its embedding block copied, the layers left out), so
    it trains, saves and evaluates like any SiameseModel at a fraction of the size."""
    from transformers import AutoModel

    config = copy.deepcopy(model.transformer.config)
    config.num_hidden_layers = 0
    layerless = AutoModel.from_config(config)
    layerless.embeddings.load_state_dict(model.transformer.embeddings.state_dict())
    r = model.resolved
    resolved = ResolvedModel(r.requested, r.path, r.source, f"{r.model_id} word embeddings (bag of words)", r.revision,
                             f"the mean of {r.model_id}'s input word-embedding rows (no positions, no layers); "
                             "only those rows train")
    return SiameseModel(layerless, model.tokenizer, resolved, BAG_OF_WORDS_POOLING,
                        max_length or model.max_length).to(model.device)


def trainable_parameters(model: SiameseModel) -> int:
    """How many weights a run of ``model`` changes: for a bag of words, the word-embedding matrix alone."""
    if model.pooling == BAG_OF_WORDS_POOLING and model.layers is None:
        return model.transformer.get_input_embeddings().weight.numel()
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


class TokenIds:
    """Each sentence's token ids under one tokenizer ([CLS] and [SEP] included, up to ``max_length``), computed once and
    remembered, so that a bag of words can be read again and again, as its word vectors train, without re-tokenising."""

    def __init__(self, tokenizer, max_length: int = 512):
        self.tokenizer, self.max_length, self._ids = tokenizer, max_length, {}

    def __call__(self, sentences: Sequence[str]) -> list[list[int]]:
        missing = list(dict.fromkeys(s for s in sentences if s not in self._ids))
        if missing:
            encoded = self.tokenizer(missing, truncation=True, max_length=self.max_length)["input_ids"]
            self._ids.update(zip(missing, encoded))
        return [self._ids[s] for s in sentences]


def bag_of_words_row(model: SiameseModel, token_ids: TokenIds):
    """``model``'s sentence vectors as its word-vector matrix W is now: u = (1/n) Σ_t W[x_t] for each sentence, computed
    in one ``embedding_bag`` call (each sentence a bag, averaged). The same vectors as an Encoder's ``word_embeddings``
    pooling (no dropout: evaluation), without a forward pass per batch. (A sparse product did the same, but torch's
    sparse tensors warn about their invariant checks in the student's notebook, in some versions whatever one asks.)"""
    def embed(sentences):
        ids = token_ids(list(sentences))
        if not ids:
            raise ValueError("A bag of words needs at least one sentence to embed.")
        weight = model.transformer.get_input_embeddings().weight
        tokens = torch.tensor([token for i in ids for token in i], device=weight.device)
        starts = torch.tensor([0, *itertools.accumulate(len(i) for i in ids)][:-1], device=weight.device)
        with torch.no_grad():
            return torch.nn.functional.embedding_bag(tokens, weight.float(), starts, mode="mean").cpu()
    return embed
