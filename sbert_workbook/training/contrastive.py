"""Contrastive learning with in-batch negatives: InfoNCE and SimCSE (``06_contrastive_simcse.ipynb``).

SimCSE (Gao, Yao & Chen, 2021) trains with InfoNCE on a similarity matrix: row i holds
cos(h_i, h_j⁺) / τ for every candidate j of the batch, and the right answer is the diagonal,

    ℓ_i = −log exp(sim(h_i, h_i⁺)/τ) / Σ_j exp(sim(h_i, h_j⁺)/τ).

With τ = 1/scale this is :func:`~sbert_workbook.training.losses.multiple_negatives_ranking_loss`
(04's in-batch negatives at scale 20 are InfoNCE at τ = 0.05). What SimCSE adds is the data and a
projection: *unsupervised*, each sentence is its own positive, encoded twice so that two dropout
masks make the two views differ; *supervised*, the positive is the entailed hypothesis and the
contradiction a hard negative (more columns of the same matrix). During training an MLP
(:class:`ProjectionHead`) sits on the pooled vector; it is dropped at test time.

``fit(model, examples, "simcse", config)`` trains it (τ = 1 / ``config.scale``); attach the MLP
with :func:`add_projection_head` first to follow the paper's recipe.
"""
from __future__ import annotations

import random
from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import nn

from sbert_workbook.evaluation.similarity import cosine_matrix
from sbert_workbook.training.examples import Examples



def info_nce_loss(anchors: torch.Tensor, positives: torch.Tensor, negatives: torch.Tensor | None = None,
                  temperature: float = 0.05) -> torch.Tensor:
    """Mean over i of −log softmax_j(cos(a_i, c_j) / τ) at j = i, with candidates c = (positives, hard negatives)."""
    if temperature <= 0:
        raise ValueError(f"The temperature τ must be positive (SimCSE uses 0.05), got {temperature}.")
    candidates = positives if negatives is None else torch.cat([positives, negatives])
    logits = cosine_matrix(anchors, candidates) / temperature
    return F.cross_entropy(logits, torch.arange(len(anchors), device=logits.device))


class ProjectionHead(nn.Module):
    """SimCSE's MLP over the pooled vector during training: h ↦ tanh(W h + b), same width (BERT's pooler layout)."""

    def __init__(self, dim: int):
        super().__init__()
        self.dense = nn.Linear(dim, dim)

    def forward(self, embeddings: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.dense(embeddings.to(self.dense.weight.dtype)))


def add_projection_head(model, seed: int = 0) -> ProjectionHead:
    """Put a fresh :class:`ProjectionHead` in ``model.head`` (trained with the encoder, unused by ``model.encoder()``)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model.head = ProjectionHead(model.dim).to(model.device)
    return model.head


def simcse_loss(embeddings: list[torch.Tensor], head: nn.Module | None = None, temperature: float = 0.05) -> torch.Tensor:
    """InfoNCE on the columns (anchors, positives[, hard negatives]), each through SimCSE's MLP when ``head`` is one."""
    if head is not None and not isinstance(head, ProjectionHead):
        raise ValueError("The simcse objective's head is SimCSE's MLP: attach it with add_projection_head(model), "
                         f"not a {type(head).__name__}.")
    projected = [head(e) if head is not None else e for e in embeddings]
    return info_nce_loss(projected[0], projected[1], projected[2] if len(projected) > 2 else None, temperature)


def set_dropout(model: nn.Module, p: float) -> int:
    """Set every dropout layer of ``model`` to probability ``p`` (SimCSE Table 3); return how many were changed."""
    if not 0 <= p < 1:
        raise ValueError(f"A dropout probability lies in [0, 1), got {p}.")
    layers = [m for m in model.modules() if isinstance(m, nn.Dropout)]
    for layer in layers:
        layer.p = p
    return len(layers)


def unsupervised_pairs(sentences: Sequence[str], description: str = "sentences") -> Examples:
    """(x, x) for every distinct sentence: the positive is the sentence itself, seen through another dropout mask."""
    distinct = list(dict.fromkeys(s for s in sentences if s.strip()))
    if len(distinct) < 2:
        raise ValueError(f"Unsupervised SimCSE needs at least two distinct sentences, got {len(distinct)}.")
    return Examples({"sentence": distinct, "same sentence": list(distinct)}, None,
                    f"{description}: {len(distinct)} distinct sentences, each its own positive")


def delete_one_word(sentence: str, rng: random.Random) -> str:
    """The sentence with one word (chosen by ``rng``) removed; one-word sentences stay as they are (SimCSE Table 1)."""
    words = sentence.split()
    if len(words) < 2:
        return sentence
    del words[rng.randrange(len(words))]
    return " ".join(words)


def delete_one_word_pairs(sentences: Sequence[str], seed: int = 0, description: str = "sentences") -> Examples:
    """(x, x with one word deleted): a discrete augmentation as the positive, instead of dropout alone."""
    pairs = unsupervised_pairs(sentences, description)
    rng = random.Random(seed)
    originals = pairs.columns["sentence"]
    return Examples({"sentence": originals, "one word deleted": [delete_one_word(s, rng) for s in originals]}, None,
                    f"{description}: {len(originals)} sentences, positive = the sentence with one word deleted (seed {seed})")
