"""Reference solutions for ``04_siamese_finetuning.ipynb`` (see :mod:`sbert_workbook.exercises` for the pattern)."""
from __future__ import annotations

import torch

from sbert_workbook.exercises import solution


def _softmax_loss(features=lambda u, v: (u, v, (u - v).abs()), reduce=torch.mean, log=True):
    """A softmax-objective loss (u, v, labels, weight, bias) → scalar, with one of its pieces swappable."""
    def loss(u, v, labels, weight, bias):
        logits = torch.cat(features(u, v), dim=-1) @ weight.T + bias
        chosen = torch.log_softmax(logits, dim=-1)[torch.arange(len(labels)), labels.long()]
        return reduce(-chosen if log else -chosen.exp())
    return loss


@solution(wrong={
    "u − v instead of |u − v|": lambda: _softmax_loss(features=lambda u, v: (u, v, u - v)),
    "summed over the batch instead of averaged": lambda: _softmax_loss(reduce=torch.sum),
    "−softmax probability instead of −log softmax": lambda: _softmax_loss(log=False),
    "(v, u, |u − v|): the sentences swapped": lambda: _softmax_loss(features=lambda u, v: (v, u, (u - v).abs())),
})
def ex04_softmax():
    """SBERT's classification objective: mean over the batch of −log softmax(W·(u, v, |u−v|) + b)[label]."""
    return _softmax_loss()
