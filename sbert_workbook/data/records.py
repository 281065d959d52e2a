"""What the loaders hand back: typed STS and NLI pairs, and the two data errors (``03_pooling_and_sts.ipynb``)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sbert_workbook.data.registry import NLI_LABELS


class DataFormatError(ValueError):
    """A data file has a malformed line; the message names the file and line."""


class DataNotFoundError(FileNotFoundError):
    """A data set was found neither locally nor on the hub; the message lists where we looked."""


@dataclass
class StsData:
    """Sentence pairs with gold similarity scores; ``subsets`` names each pair's sub-corpus."""

    name: str
    split: str
    sentences1: list[str]
    sentences2: list[str]
    scores: np.ndarray
    subsets: list[str]
    origin: str = ""
    score_range: tuple[float, float] = (0.0, 5.0)

    def __len__(self) -> int:
        return len(self.scores)

    def subset_names(self) -> list[str]:
        return list(dict.fromkeys(self.subsets))

    def sample(self, n: int | None, seed: int = 0) -> StsData:
        """At most ``n`` pairs drawn at random with ``seed`` (kept in file order); all when n is None."""
        if n is None or n >= len(self):
            return self
        keep = np.sort(np.random.default_rng(seed).choice(len(self), size=n, replace=False))
        return StsData(self.name, self.split, [self.sentences1[i] for i in keep], [self.sentences2[i] for i in keep],
                       self.scores[keep], [self.subsets[i] for i in keep], f"{self.origin} (sample of {n}, seed {seed})",
                       self.score_range)

    def first(self, n: int | None) -> StsData:
        """The first ``n`` pairs in file order (all when n is None): unlike :meth:`sample`, rows stay aligned with other files."""
        if n is None or n >= len(self):
            return self
        return StsData(self.name, self.split, self.sentences1[:n], self.sentences2[:n], self.scores[:n], self.subsets[:n],
                       f"{self.origin} (first {n})", self.score_range)


@dataclass
class NliData:
    """Premise/hypothesis pairs with labels from :data:`~sbert_workbook.data.registry.NLI_LABELS`."""

    name: str
    split: str
    premises: list[str]
    hypotheses: list[str]
    labels: list[str]
    origin: str = ""
    label_names: tuple[str, ...] = field(default=NLI_LABELS)

    def __len__(self) -> int:
        return len(self.labels)

    def sample(self, n: int | None, seed: int = 0) -> NliData:
        """At most ``n`` pairs drawn at random with ``seed`` (kept in file order); all when n is None, as :meth:`StsData.sample`."""
        if n is None or n >= len(self):
            return self
        keep = np.sort(np.random.default_rng(seed).choice(len(self), size=n, replace=False))
        return NliData(self.name, self.split, [self.premises[i] for i in keep], [self.hypotheses[i] for i in keep],
                       [self.labels[i] for i in keep], f"{self.origin} (sample of {n}, seed {seed})", self.label_names)

    def first(self, n: int | None) -> NliData:
        """The first ``n`` pairs in file order (all when n is None): rows stay aligned with another file of the same rows."""
        if n is None or n >= len(self):
            return self
        return NliData(self.name, self.split, self.premises[:n], self.hypotheses[:n], self.labels[:n],
                       f"{self.origin} (first {n})", self.label_names)

    def label_ids(self) -> np.ndarray:
        return np.array([self.label_names.index(label) for label in self.labels])
