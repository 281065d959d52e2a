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


def matryoshka_loss(columns: Sequence[torch.Tensor], dimensions: Sequence[int], loss=multiple_negatives_ranking_loss,
                    weights: Sequence[float] | None = None) -> torch.Tensor:
    """Σ_m c_m · L(every column cut to its first m dimensions), m in ``dimensions``, c_m = 1 unless ``weights`` say
    otherwise (Kusupati et al. 2022, Matryoshka representation learning; sentence-transformers' MatryoshkaLoss).

    One forward pass serves every m: the prefixes are slices of the same vectors, so the first dimensions are trained
    to carry the sentence on their own (``08_what_an_embedding_costs.ipynb``).
    """
    weights = [1.0] * len(dimensions) if weights is None else list(weights)
    if len(weights) != len(dimensions):
        raise ValueError(f"Give one weight per dimension: {len(dimensions)} dimensions, {len(weights)} weights.")
    width = columns[0].shape[-1]
    if not dimensions or any(m < 1 or m > width for m in dimensions):
        raise ValueError(f"Matryoshka dimensions must lie between 1 and the vectors' width {width}; got {list(dimensions)}.")
    return sum(c * loss(*(column[..., :m] for column in columns)) for m, c in zip(dimensions, weights))


def scale_scores(scores, low: float, high: float) -> torch.Tensor:
    """Gold scores from [low, high] (0–5 for STS-B, 1–5 for SICK) to [0, 1], the range of the regression target."""
    if high <= low:
        raise ValueError(f"The score range [{low}, {high}] is empty: pass the data set's score_range.")
    return (torch.as_tensor(scores, dtype=torch.float32) - low) / (high - low)
