"""The training objectives :func:`~sbert_workbook.training.fitting.fit` knows: one function and one registry entry each (``04``).

An objective function takes the model, one batch's sentence columns and labels, the
:class:`~sbert_workbook.training.fitting.TrainingConfig` and the forward pass to use (``fit``
passes accelerate's prepared model), and returns the batch's loss. Bi-encoder objectives embed
the columns with :meth:`~sbert_workbook.training.siamese.SiameseModel.embed_columns` and hand the
vectors to a loss of :mod:`sbert_workbook.training.losses`; the cross-encoder reads each pair
jointly. A new objective is one function here and one entry in :data:`OBJECTIVES`.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from sbert_workbook.training.contrastive import simcse_loss
from sbert_workbook.training.cross_encoder import CrossEncoder
from sbert_workbook.training.losses import (classification_loss, cosine_regression_loss, matryoshka_loss,
                                           multiple_negatives_ranking_loss, triplet_loss)
from sbert_workbook.training.siamese import SiameseModel


@dataclass(frozen=True)
class Objective:
    """How ``fit`` trains with one objective: its loss, what each batch must hold and which model it trains."""

    loss: Callable  # (model, columns, labels, config, forward) -> scalar loss
    columns: int  # sentence columns it reads at least
    labels: str | None  # what the labels hold; None: it needs no labels
    model: type = SiameseModel  # the kind of model it trains
    in_batch_negatives: bool = False  # the other examples of a batch are negatives: batches never repeat a sentence
    needs_classifier: bool = False  # the model must have a classifier head (model.add_classifier())
    #: In-batch objectives only: (model, column embeddings, config) -> loss, the half after embedding; fit's gradient
    #: cache (gradient_cache.py) embeds the columns itself, a micro-batch at a time, and calls it on the whole batch.
    on_embeddings: Callable | None = None


def softmax_objective(model: SiameseModel, columns, labels, config, forward=None) -> torch.Tensor:
    """SBERT's NLI classification: cross-entropy of W·(u, v, |u−v|) against the label ids."""
    u, v = model.embed_columns(columns[:2], forward)
    return classification_loss(u, v, labels, model.head)


def regression_objective(model: SiameseModel, columns, labels, config, forward=None) -> torch.Tensor:
    """(cos(u, v) − gold)², gold scaled to [0, 1] (STS-B)."""
    u, v = model.embed_columns(columns[:2], forward)
    return cosine_regression_loss(u, v, labels)


def triplet_objective(model: SiameseModel, columns, labels, config, forward=None) -> torch.Tensor:
    """max(‖a−p‖ − ‖a−n‖ + ε, 0) with ε = ``config.margin``."""
    return triplet_loss(*model.embed_columns(columns[:3], forward), margin=config.margin)


def mnrl_on_embeddings(model: SiameseModel, embeddings, config) -> torch.Tensor:
    """Multiple negatives ranking on embedded columns: in-batch negatives (plus hard negatives in a third column)."""
    return multiple_negatives_ranking_loss(embeddings[0], embeddings[1], embeddings[2] if len(embeddings) > 2 else None,
                                           config.scale)


def mnrl_objective(model: SiameseModel, columns, labels, config, forward=None) -> torch.Tensor:
    """Multiple negatives ranking: in-batch negatives (plus hard negatives in a third column), scale ``config.scale``."""
    return mnrl_on_embeddings(model, model.embed_columns(columns, forward), config)


def matryoshka_dimensions(width: int, config) -> tuple[int, ...]:
    """The prefixes a Matryoshka objective trains: ``config.matryoshka_dimensions``, else the full width and every
    power of two below it down to 32 (384: 384, 256, 128, 64, 32), the nesting 08 cuts at."""
    if config.matryoshka_dimensions:
        return tuple(config.matryoshka_dimensions)
    powers = [2 ** p for p in range(width.bit_length() - 1, 4, -1) if 2 ** p < width]
    return (width, *powers)


def matryoshka_on_embeddings(model: SiameseModel, embeddings, config) -> torch.Tensor:
    """Multiple negatives ranking summed over the first m dimensions of every column, m in the Matryoshka dimensions."""
    return matryoshka_loss(embeddings, matryoshka_dimensions(embeddings[0].shape[-1], config),
                           lambda *columns: mnrl_on_embeddings(model, columns, config))


def matryoshka_objective(model: SiameseModel, columns, labels, config, forward=None) -> torch.Tensor:
    """Matryoshka representation learning over multiple negatives ranking (sentence-transformers' MatryoshkaLoss(MNRL))."""
    return matryoshka_on_embeddings(model, model.embed_columns(columns, forward), config)


def simcse_on_embeddings(model: SiameseModel, embeddings, config) -> torch.Tensor:
    """SimCSE's InfoNCE at τ = 1/``config.scale`` (0.05 at scale 20), through the MLP in ``model.head`` when attached (``06``)."""
    return simcse_loss(embeddings, model.head, temperature=1 / config.scale)


def simcse_objective(model: SiameseModel, columns, labels, config, forward=None) -> torch.Tensor:
    """SimCSE: (x, x) with two dropout masks unsupervised, (x, entailment[, contradiction]) supervised (``06``)."""
    return simcse_on_embeddings(model, model.embed_columns(columns, forward), config)


def cross_regression_objective(model: CrossEncoder, columns, labels, config, forward=None) -> torch.Tensor:
    """The cross-encoder's mean squared error between its one output per pair and the gold score in [0, 1] (``04`` §1)."""
    scores = (forward or model)(**model.tokenize(list(zip(columns[0], columns[1])))).view(-1)
    return F.mse_loss(scores, labels.view(-1).to(scores.dtype))


#: Objective name -> how fit trains with it.
OBJECTIVES: dict[str, Objective] = {
    "softmax": Objective(softmax_objective, columns=2, labels="class ids", needs_classifier=True),
    "regression": Objective(regression_objective, columns=2, labels="scores in [0, 1]"),
    "triplet": Objective(triplet_objective, columns=3, labels=None),
    "mnrl": Objective(mnrl_objective, columns=2, labels=None, in_batch_negatives=True,  # a third column: hard negatives
                      on_embeddings=mnrl_on_embeddings),
    "matryoshka": Objective(matryoshka_objective, columns=2, labels=None, in_batch_negatives=True,
                            on_embeddings=matryoshka_on_embeddings),
    "simcse": Objective(simcse_objective, columns=2, labels=None, in_batch_negatives=True,
                        on_embeddings=simcse_on_embeddings),
    "cross_regression": Objective(cross_regression_objective, columns=2, labels="scores in [0, 1]", model=CrossEncoder),
}


def checked_objective(name: str, model, examples) -> Objective:
    """The registry entry of ``name``, after checking that ``model`` and ``examples`` suit it; else a ValueError saying what to do."""
    if name not in OBJECTIVES:
        raise ValueError(f"Unknown objective {name!r}: use one of {', '.join(OBJECTIVES)}.")
    objective = OBJECTIVES[name]
    if not isinstance(model, objective.model):
        suits = [key for key, entry in OBJECTIVES.items() if isinstance(model, entry.model)]
        raise ValueError(f"The {name} objective trains a {objective.model.__name__}, not a {type(model).__name__}; "
                         f"for this model use one of {', '.join(suits) or 'none'}.")
    if len(examples.columns) < objective.columns or (objective.labels is not None and examples.labels is None):
        raise ValueError(f"The {name} objective needs {objective.columns} sentence columns"
                         f"{f' and labels ({objective.labels})' if objective.labels else ''}; got columns "
                         f"{list(examples.columns)} (labels: {examples.labels is not None}). "
                         "Build the examples with nli_pairs, sts_pairs, nli_triplets or nli_positive_pairs.")
    if objective.needs_classifier and model.head is None:
        raise ValueError(f"The {name} objective trains a classifier on (u, v, |u-v|): call model.add_classifier(num_labels=3) first.")
    return objective
