"""References of notebook 04's checks that would give the answer away if typed into the check cell
(``04_siamese_finetuning.ipynb``): each is computed here, from its definition, out of the student's sight."""
from __future__ import annotations

import itertools

import torch
import torch.nn.functional as F

#: Exercise 1's number of sentences.
COST_SENTENCES = 1000


def ex04_pairs():
    """(cross-encoder passes, bi-encoder encodings) for 1,000 sentences, by counting: every unordered pair once, every
    sentence once."""
    sentences = [f"sentence {i}" for i in range(COST_SENTENCES)]
    return sum(1 for _ in itertools.combinations(sentences, 2)), len(set(sentences))


def softmax_batch(seed: int) -> tuple[torch.Tensor, ...]:
    """Exercise 2's inputs: u, v (6 × 4), labels, and a random classifier's weight (3 × 12) and bias, drawn from ``seed``."""
    generator = torch.Generator().manual_seed(seed)
    u, v = torch.randn(6, 4, generator=generator), torch.randn(6, 4, generator=generator)
    weight, bias = torch.randn(3, 12, generator=generator) / 3, torch.randn(3, generator=generator) / 3
    return u, v, torch.tensor([0, 1, 2, 2, 1, 0]), weight, bias


def on_softmax_batch(seed: int):
    """What exercise 2's check measures: the student's loss function applied to :func:`softmax_batch`."""
    return lambda loss: loss(*softmax_batch(seed))


def ex04_softmax(SEED):  # noqa: N803 - the notebook's variable, read by name
    """SBERT's classification objective on :func:`softmax_batch`, through torch's own cross-entropy."""
    u, v, labels, weight, bias = softmax_batch(SEED)
    return F.cross_entropy(torch.cat([u, v, (u - v).abs()], dim=-1) @ weight.T + bias, labels)
