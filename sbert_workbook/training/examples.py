"""Training examples and batch plans for Siamese fine-tuning (``04_siamese_finetuning.ipynb``).

An :class:`Examples` holds sentence columns (two for pairs, three for triplets) and optional
labels. A *batch plan* is a list of index lists, fixed by the seed before training starts,
so an interrupted run can skip exactly the batches it already did.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

import numpy as np
import torch

from sbert_workbook.data.records import NliData, StsData
from sbert_workbook.training.losses import scale_scores


@dataclass
class Examples:
    """Sentence columns of equal length plus optional labels (class ids or scores in [0, 1])."""

    columns: dict[str, list[str]]
    labels: np.ndarray | None
    description: str

    def __post_init__(self):
        lengths = {name: len(column) for name, column in self.columns.items()}
        if len(set(lengths.values())) != 1:
            raise ValueError(f"All columns must be equally long, got {lengths}.")
        if self.labels is not None and len(self.labels) != len(self):
            raise ValueError(f"{len(self.labels)} labels for {len(self)} examples: give one label per example.")

    def __len__(self) -> int:
        return len(next(iter(self.columns.values())))

    def batch(self, indices: list[int]) -> tuple[list[list[str]], torch.Tensor | None]:
        """The sentences of each column at ``indices``, and their labels as a tensor (or None)."""
        texts = [[column[i] for i in indices] for column in self.columns.values()]
        labels = None if self.labels is None else torch.as_tensor(self.labels[indices])
        return texts, labels

    def head(self, n: int) -> Examples:
        """The first ``n`` examples (all when n is None)."""
        if n is None or n >= len(self):
            return self
        labels = None if self.labels is None else self.labels[:n]
        return Examples({k: v[:n] for k, v in self.columns.items()}, labels, f"{self.description}, first {n}")


def nli_pairs(data: NliData) -> Examples:
    """(premise, hypothesis) with label ids 0/1/2 = entailment/neutral/contradiction: the softmax objective's data."""
    return Examples({"premise": list(data.premises), "hypothesis": list(data.hypotheses)}, data.label_ids(),
                    f"{data.name} {data.split}: {len(data)} labelled pairs")


def nli_triplets(data: NliData) -> Examples:
    """(premise, entailed hypothesis, contradicting hypothesis): one triplet per premise that has both."""
    by_premise: dict[str, dict[str, str]] = defaultdict(dict)
    for premise, hypothesis, label in zip(data.premises, data.hypotheses, data.labels):
        by_premise[premise].setdefault(label, hypothesis)
    rows = [(p, h["entailment"], h["contradiction"]) for p, h in by_premise.items() if {"entailment", "contradiction"} <= h.keys()]
    anchors, positives, negatives = (list(column) for column in zip(*rows)) if rows else ([], [], [])
    return Examples({"anchor": anchors, "positive": positives, "negative": negatives}, None,
                    f"{data.name} {data.split}: {len(rows)} triplets (premise, entailment, contradiction)")


def nli_positive_pairs(data: NliData) -> Examples:
    """(premise, entailed hypothesis) pairs: the multiple-negatives ranking objective's data."""
    rows = [(p, h) for p, h, label in zip(data.premises, data.hypotheses, data.labels) if label == "entailment"]
    return Examples({"anchor": [p for p, _ in rows], "positive": [h for _, h in rows]}, None,
                    f"{data.name} {data.split}: {len(rows)} entailment pairs")


def sts_pairs(data: StsData) -> Examples:
    """(sentence1, sentence2) with gold scores scaled to [0, 1]: the regression objective's data."""
    scores = scale_scores(data.scores, *data.score_range).numpy()
    return Examples({"sentence1": list(data.sentences1), "sentence2": list(data.sentences2)}, scores,
                    f"{data.name} {data.split}: {len(data)} scored pairs, scores scaled to [0, 1]")


def concatenate(*parts: Examples) -> Examples:
    """Several example sets with the same columns, one after the other (e.g. SNLI + MultiNLI)."""
    names = list(parts[0].columns)
    if any(list(part.columns) != names for part in parts):
        raise ValueError(f"Only examples with the same columns can be joined; got {[list(p.columns) for p in parts]}.")
    labels = None if parts[0].labels is None else np.concatenate([part.labels for part in parts])
    return Examples({name: [s for part in parts for s in part.columns[name]] for name in names}, labels,
                    " + ".join(part.description for part in parts))


def shuffled_batches(n: int, batch_size: int, seed: int) -> list[list[int]]:
    """A random order of range(n) cut into batches (the last one may be smaller)."""
    order = np.random.default_rng(seed).permutation(n).tolist()
    return [order[start:start + batch_size] for start in range(0, n, batch_size)]


def no_duplicate_batches(examples: Examples, batch_size: int, seed: int) -> list[list[int]]:
    """Random batches in which no sentence occurs twice (in any column), for in-batch negatives.

    Like sentence-transformers' ``NoDuplicatesBatchSampler``: walk a shuffled order and put an
    example into the current batch only if none of its sentences is there yet; examples that
    clash wait for a later batch.
    """
    waiting = np.random.default_rng(seed).permutation(len(examples)).tolist()
    columns = list(examples.columns.values())
    batches = []
    while waiting:
        batch, seen, deferred = [], set(), []
        for position, index in enumerate(waiting):
            if len(batch) == batch_size:
                deferred.extend(waiting[position:])
                break
            texts = {column[index] for column in columns}
            if texts & seen:
                deferred.append(index)
            else:
                batch.append(index)
                seen |= texts
        batches.append(batch)
        waiting = deferred
    return batches


def duplicates_in_batch(examples: Examples, batch: list[int]) -> int:
    """How many times a sentence of one example reappears in *another* example of ``batch``.

    These are the repeats that turn a positive into an in-batch "negative" of itself; an
    example whose two sentences happen to be equal is not counted.
    """
    counts = Counter(text for i in batch for text in {column[i] for column in examples.columns.values()})
    return sum(count - 1 for count in counts.values())
