"""Gradient caching: the full batch's in-batch-negatives loss in small memory (``06_contrastive_simcse.ipynb``).

Gao, Zhang, Han & Callan (2021), "Scaling Deep Contrastive Learning Batch Size under Memory Limited
Setup", as in sentence-transformers' ``CachedMultipleNegativesRankingLoss``. Splitting a batch into
micro-batches and accumulating gradients is exact for losses that treat each example on its own,
but an in-batch-negatives loss compares every example with every other one: split the batch and
each piece sees fewer negatives, a different loss. Gradient caching keeps the whole batch:

1. embed the sentences micro-batch by micro-batch *without* autograd graphs (little memory), saving
   each micro-batch's random state so that its dropout masks can be drawn again;
2. compute the loss on all embeddings at once and its gradient g = ∂L/∂e with respect to them
   (the embeddings are cheap leaves; the graph of step 2 is only the loss);
3. for each micro-batch, restore its random state, embed it again *with* a graph and backpropagate
   the surrogate Σ e·g, whose gradient with respect to the weights is exactly ∂L/∂e · ∂e/∂θ.

The weights' gradients are the full batch's; peak memory is one micro-batch's graph.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import torch

from sbert_workbook.training.objectives import OBJECTIVES


class RandomState:
    """The CPU (and CUDA) random state at creation; ``with state:`` replays it and restores the caller's afterwards."""

    def __init__(self):
        self.cpu = torch.get_rng_state()
        self.cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_available() and torch.cuda.is_initialized() else None

    def __enter__(self):
        self._fork = torch.random.fork_rng(devices=list(range(len(self.cuda))) if self.cuda else [])
        self._fork.__enter__()
        torch.set_rng_state(self.cpu)
        if self.cuda:
            torch.cuda.set_rng_state_all(self.cuda)

    def __exit__(self, *exc):
        return self._fork.__exit__(*exc)


def micro_batches(sentences: Sequence[str], size: int) -> list[list[str]]:
    """``sentences`` cut into consecutive pieces of at most ``size``."""
    if size < 1:
        raise ValueError(f"A micro-batch holds at least one sentence, got size {size}.")
    return [list(sentences[start:start + size]) for start in range(0, len(sentences), size)]


def cached_loss_backward(embed: Callable[[list[str]], torch.Tensor], columns: list[list[str]],
                         loss_of: Callable[[list[torch.Tensor]], torch.Tensor], micro_batch_size: int,
                         backward: Callable[[torch.Tensor], None] = torch.Tensor.backward) -> torch.Tensor:
    """Backpropagate ``loss_of(column embeddings)`` of the whole batch through ``embed``, a micro-batch at a time.

    ``embed`` maps sentences to (n, dim) vectors with the model's weights; ``loss_of`` takes one tensor per
    column; ``backward`` runs the loss's backward pass (e.g. accelerate's, which scales fp16 losses). The
    weights' ``.grad`` receive the same values as ``backward(loss_of([embed(c) for c in columns]))`` would
    give when each micro-batch is embedded alike (up to float rounding). Returns the detached loss.
    """
    sentences = [sentence for column in columns for sentence in column]
    pieces = micro_batches(sentences, micro_batch_size)
    states, cached = [], []
    with torch.no_grad():
        for piece in pieces:
            states.append(RandomState())
            cached.append(embed(piece))
    embeddings = torch.cat(cached).detach().requires_grad_()
    loss = loss_of(list(torch.split(embeddings, [len(column) for column in columns])))
    backward(loss)  # gradients of anything inside loss_of (an MLP head) land on its weights here
    gradient = embeddings.grad
    start = 0
    for piece, state in zip(pieces, states):
        with state:
            piece_embeddings = embed(piece)
        (piece_embeddings * gradient[start:start + len(piece)].to(piece_embeddings.dtype)).sum().backward()
        start += len(piece)
    return loss.detach()


def uses_cache(run, batch: list[int]) -> bool:
    """Whether ``fit``'s run must cache gradients for ``batch``: an in-batch objective, split into micro-batches."""
    return OBJECTIVES[run.objective].in_batch_negatives and run.micro_batch_size < len(batch)


def back_off_keeps(objective: str, batch_size: int) -> str:
    """How ``fit``'s out-of-memory back-off keeps the batch's loss: the end of its message."""
    if OBJECTIVES[objective].in_batch_negatives:
        return f"micro-batches with gradient caching, so every example keeps all {batch_size - 1} in-batch negatives"
    return f"accumulation steps, so the effective batch stays {batch_size}"


def cached_optimizer_step(run, batch: list[int]) -> float:
    """One optimizer step of ``fit``'s run (``fitting._Run``) over micro-batches, with the whole batch's loss and negatives."""
    accelerator = run.accelerator
    columns, _ = run.examples.batch(batch)

    def embed(sentences):
        with accelerator.autocast():
            features = run.model.tokenize(sentences)
            return run.prepared(**{key: value.to(accelerator.device) for key, value in features.items()})

    def loss_of(embeddings):
        with accelerator.autocast():
            return OBJECTIVES[run.objective].on_embeddings(run.model, embeddings, run.config)

    accelerator.gradient_accumulation_steps, accelerator.step = 1, 0  # one backward pass per optimizer step
    with accelerator.accumulate(run.prepared):
        loss = float(cached_loss_backward(embed, columns, loss_of, run.micro_batch_size, accelerator.backward))
        if run.config.max_grad_norm:
            accelerator.clip_grad_norm_(run.prepared.parameters(), run.config.max_grad_norm)
        run.optimizer.step()
        run.scheduler.step()
        run.optimizer.zero_grad()
    return loss
