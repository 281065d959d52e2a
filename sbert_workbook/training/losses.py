"""Training objectives of Sentence-BERT, each written on embeddings (``04_siamese_finetuning.ipynb``).

The "embed, then loss" split: a model turns every sentence column into vectors first
(:meth:`~sbert_workbook.training.siamese.SiameseModel.embed_columns`); the functions here only see
those vectors, so each can be checked by hand on tiny tensors and against
sentence-transformers' loss classes on the very same embeddings.
"""
from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import nn

from sbert_workbook.evaluation.similarity import cosine_matrix

#: The pieces the classification objective can concatenate, in sentence-transformers' order.
PAIR_FEATURES = {
    "u": lambda u, v: u,
    "v": lambda u, v: v,
    "|u-v|": lambda u, v: torch.abs(u - v),
    "u*v": lambda u, v: u * v,
}
SBERT_PAIR_FEATURES = ("u", "v", "|u-v|")


def pair_features(u: torch.Tensor, v: torch.Tensor, parts: Sequence[str] = SBERT_PAIR_FEATURES) -> torch.Tensor:
    """The concatenation (u, v, |u−v|[, u∗v]) fed to the softmax classifier, shape (batch, k·dim)."""
    unknown = [part for part in parts if part not in PAIR_FEATURES]
    if unknown or not parts:
        raise ValueError(f"Unknown or empty pair features {list(parts)}: choose from {', '.join(PAIR_FEATURES)}.")
    return torch.cat([PAIR_FEATURES[part](u, v) for part in parts], dim=-1)


class ClassifierHead(nn.Module):
    """o = W · (u, v, |u−v|[, u∗v]) with W of shape (labels, k·dim): the SBERT NLI classifier."""

    def __init__(self, dim: int, num_labels: int = 3, parts: Sequence[str] = SBERT_PAIR_FEATURES):
        super().__init__()
        pair_features(torch.zeros(1, 1), torch.zeros(1, 1), parts)  # validates ``parts`` early
        self.parts = tuple(parts)
        self.linear = nn.Linear(len(self.parts) * dim, num_labels)

    def forward(self, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        features = pair_features(u, v, self.parts)
        return self.linear(features.to(self.linear.weight.dtype))


def classification_loss(u: torch.Tensor, v: torch.Tensor, labels: torch.Tensor, head: ClassifierHead) -> torch.Tensor:
    """Cross-entropy of softmax(W·(u, v, |u−v|)) against the NLI label ids, averaged over the batch."""
    return F.cross_entropy(head(u, v), labels.long().view(-1))


def cosine_regression_loss(u: torch.Tensor, v: torch.Tensor, gold: torch.Tensor) -> torch.Tensor:
    """Mean of (cos(u_i, v_i) − y_i)², with y the gold score scaled to [0, 1]."""
    return F.mse_loss(F.cosine_similarity(u, v, dim=-1), gold.float().view(-1))


def triplet_loss(anchor: torch.Tensor, positive: torch.Tensor, negative: torch.Tensor, margin: float = 1.0) -> torch.Tensor:
    """Mean of max(‖a−p‖ − ‖a−n‖ + ε, 0) with Euclidean distances; the paper uses ε = 1."""
    to_positive = torch.linalg.vector_norm(anchor - positive, dim=-1)
    to_negative = torch.linalg.vector_norm(anchor - negative, dim=-1)
    return F.relu(to_positive - to_negative + margin).mean()


def multiple_negatives_ranking_loss(
    anchors: torch.Tensor, positives: torch.Tensor, negatives: torch.Tensor | None = None, scale: float = 20.0
) -> torch.Tensor:
    """In-batch negatives: −log softmax_j(s·cos(a_i, c_j)) at j = i, where c = (positives, negatives).

    Every other positive in the batch (and every hard negative) is a negative for anchor i,
    so a sentence appearing twice in one batch would be a "negative" of itself: build batches
    with :func:`~sbert_workbook.training.examples.no_duplicate_batches`.
    """
    candidates = positives if negatives is None else torch.cat([positives, negatives])
    scores = scale * cosine_matrix(anchors, candidates)
    return F.cross_entropy(scores, torch.arange(len(anchors), device=scores.device))


def scale_scores(scores, low: float, high: float) -> torch.Tensor:
    """Gold scores from [low, high] (0–5 for STS-B, 1–5 for SICK) to [0, 1], the range of the regression target."""
    if high <= low:
        raise ValueError(f"The score range [{low}, {high}] is empty: pass the data set's score_range.")
    return (torch.as_tensor(scores, dtype=torch.float32) - low) / (high - low)


def objective_loss(objective: str, embeddings: list[torch.Tensor], labels: torch.Tensor | None, head=None,
                   margin: float = 1.0, scale: float = 20.0) -> torch.Tensor:
    """Dispatch by name: ``softmax`` (needs ``head``), ``regression``, ``triplet``, ``mnrl`` or ``simcse`` (τ = 1/scale)."""
    if objective == "softmax":
        if head is None:
            raise ValueError("The softmax objective needs a classifier head: call model.add_classifier(num_labels=3) first.")
        return classification_loss(embeddings[0], embeddings[1], labels, head)
    if objective == "regression":
        return cosine_regression_loss(embeddings[0], embeddings[1], labels)
    if objective == "triplet":
        return triplet_loss(*embeddings[:3], margin=margin)
    if objective == "mnrl":
        return multiple_negatives_ranking_loss(embeddings[0], embeddings[1], embeddings[2] if len(embeddings) > 2 else None, scale)
    if objective == "simcse":  # training/contrastive.py (06): InfoNCE, through SimCSE's MLP when one is attached
        from sbert_workbook.training.contrastive import simcse_loss
        return simcse_loss(embeddings, head, temperature=1 / scale)
    raise ValueError(f"Unknown objective {objective!r}: use one of {', '.join(OBJECTIVES)}.")


#: Objective name -> how many sentence columns it reads at least, and the labels it needs (None: no labels).
OBJECTIVES = {
    "softmax": {"columns": 2, "labels": "class ids"},
    "regression": {"columns": 2, "labels": "scores in [0, 1]"},
    "triplet": {"columns": 3, "labels": None},
    "mnrl": {"columns": 2, "labels": None},  # a third column, when given, holds hard negatives
    "simcse": {"columns": 2, "labels": None},  # (x, x) unsupervised, (x, entailment[, contradiction]) supervised
}
