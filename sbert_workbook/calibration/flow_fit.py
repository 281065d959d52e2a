"""Fitting a flow by maximum likelihood on frozen sentence embeddings (``05_bert_flow.ipynb``).

BERT-flow keeps BERT frozen and fits only the flow, unsupervised, for one epoch with Adam
(lr 1e-3): on the evaluation sentences themselves, without their labels ("target"), or on
NLI sentences ("NLI"), both listed by :mod:`sbert_workbook.data.corpora`. The loss is the
negative log-likelihood −mean log p(u) of :meth:`~sbert_workbook.calibration.flow.Glow.log_prob`;
we report its negative per dimension (nats/dim).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch
from tqdm.auto import tqdm

from sbert_workbook.calibration.flow import Glow
from sbert_workbook.evaluation.arrays import as_tensor
from sbert_workbook.settings import torch_threads


class FlowTrainingError(RuntimeError):
    """The flow's loss became NaN or infinite; the message names the step and what to try."""


@dataclass
class FlowTrainingResult:
    """What a fit did: one log-likelihood (nats per dimension) per step, and how long it took."""

    steps: int
    log_likelihood: list[float] = field(default_factory=list)
    seconds: float = 0.0
    sentences: int = 0
    batch_size: int = 0
    learning_rate: float = 0.0

    def describe(self) -> str:
        last = self.log_likelihood[-1] if self.log_likelihood else float("nan")
        return (f"{self.steps} steps on {self.sentences} embeddings (batch {self.batch_size}, Adam lr {self.learning_rate:g}) "
                f"in {self.seconds:.1f} s; final log-likelihood {last:.3f} nats/dim")


def fit_flow(
    flow: Glow,
    embeddings: torch.Tensor,
    epochs: float = 1.0,
    learning_rate: float = 1e-3,
    batch_size: int = 32,
    seed: int = 0,
    callback: Callable[[dict, dict], None] | None = None,
    progress: bool = True,
    threads: int | None = 1,
) -> FlowTrainingResult:
    """Maximise Σ log p(u) over ``embeddings`` with Adam; the flow is trained in place.

    The actnorm layers are first initialised from a batch of up to 256 embeddings (Glow's
    data-dependent init). ``callback(event, history)`` runs after every step, the same shape
    as :func:`~sbert_workbook.training.fitting.fit`'s: ``event`` has ``step``, ``total_steps`` and
    ``log_likelihood`` (nats per dimension), ``history`` the curve so far (e.g. a live plot). A NaN or infinite loss stops training with a
    :class:`FlowTrainingError`; the flow is left as it was at the failing step. The flow's
    matrices are tiny, so on the CPU one thread (``threads=1``, restored afterwards) is
    fastest: more threads only add synchronisation, badly so on a busy machine.
    """
    with torch_threads(threads):
        return _fit(flow, _checked_embeddings(embeddings, flow.dim), epochs, learning_rate, batch_size, seed, callback, progress)


def _fit(flow, embeddings, epochs, learning_rate, batch_size, seed, callback, progress) -> FlowTrainingResult:
    generator = torch.Generator().manual_seed(seed)
    order = _epoch_orders(len(embeddings), epochs, batch_size, generator)
    flow.initialize_from(embeddings[order[:max(batch_size, 256)]])
    optimizer = torch.optim.Adam(flow.parameters(), lr=learning_rate)
    fit = FlowTrainingResult(steps=0, sentences=len(embeddings), batch_size=batch_size, learning_rate=learning_rate)
    started = time.perf_counter()
    flow.train()
    batches = list(torch.split(order, batch_size))
    for step, indices in enumerate(tqdm(batches, desc="fitting flow", unit="step", disable=not progress), start=1):
        loss = -flow.log_prob(embeddings[indices]).mean()
        if not torch.isfinite(loss):
            raise FlowTrainingError(
                f"The flow's loss became {loss.item()} at step {step} of {len(batches)} (learning_rate={learning_rate:g}). "
                f"Try a lower learning rate, e.g. learning_rate={learning_rate / 10:g}, or standardise the embeddings first."
            )
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        fit.log_likelihood.append(-loss.item() / flow.dim)
        fit.steps = step
        if callback is not None:
            callback({"step": step, "total_steps": len(batches), "log_likelihood": fit.log_likelihood[-1]},
                     {"step": list(range(1, step + 1)), "log_likelihood": fit.log_likelihood})
    flow.eval()
    fit.seconds = time.perf_counter() - started
    return fit


def flow_embed(flow: Glow, embeddings: torch.Tensor, batch_size: int = 4096) -> torch.Tensor:
    """z = f(u) for every embedding (no gradients); never returns NaN: raises instead."""
    embeddings = _checked_embeddings(embeddings, flow.dim)
    flow.eval()
    with torch.no_grad(), torch_threads(1):
        z = torch.cat([flow(chunk)[0] for chunk in torch.split(embeddings, batch_size)])
    if not torch.isfinite(z).all():
        bad = int((~torch.isfinite(z)).any(dim=1).sum())
        raise FlowTrainingError(f"The flow mapped {bad} of {len(z)} embeddings to NaN or infinity; refit it with a "
                                "lower learning rate or fewer steps.")
    return z


def _checked_embeddings(embeddings, dim: int) -> torch.Tensor:
    """:func:`~sbert_workbook.evaluation.arrays.as_tensor` in float32, after checking that the rows fit a flow of ``dim``."""
    shape = np.shape(embeddings)
    if len(shape) != 2 or shape[1] != dim:
        raise ValueError(f"Expected embeddings of shape (n, {dim}) for this flow, got {tuple(shape)}. "
                         "Build the flow with Glow(dim=embeddings.shape[1]).")
    return as_tensor(embeddings, torch.float32, finite=True)


def _epoch_orders(n: int, epochs: float, batch_size: int, generator) -> torch.Tensor:
    """Shuffled indices for ``epochs`` passes (a fraction of an epoch is allowed), whole batches only."""
    if n < 2 or epochs <= 0:
        raise ValueError(f"Need at least 2 embeddings and epochs > 0, got {n} embeddings and epochs={epochs}.")
    full = [torch.randperm(n, generator=generator) for _ in range(int(-(-epochs // 1)))]
    order = torch.cat(full)[:max(batch_size, round(epochs * n))]
    return order
