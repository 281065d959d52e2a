"""Frozen sentence vectors under several poolings ("views"), each distinct sentence run through the model once.

Introduced in ``03_pooling_and_sts.ipynb``, where every row of SBERT's Table 1 (static, CLS,
mean, first_last_avg, …) comes from one forward pass per sentence, and read by
``05_bert_flow.ipynb``, whose calibrators are fitted on and applied to these frozen vectors.
The vectors are :func:`~sbert_workbook.encoding.views.encode_views`'s; this object adds the
look-up by sentence. Build it eagerly (:meth:`PooledViews.of`, every sentence at once, one
progress bar) or lazily (``PooledViews(encoder, poolings)``: a sentence is encoded the first
time :meth:`~PooledViews.get` or :meth:`~PooledViews.encode` meets it). It is a
:class:`~sbert_workbook.encoding.contract.SentenceEncoder`, so ``evaluate_sts`` accepts it.
"""
from __future__ import annotations

from collections.abc import Sequence

import torch

from sbert_workbook.encoding.pooling import POOLINGS
from sbert_workbook.encoding.text_input import checked_sentences
from sbert_workbook.encoding.views import checked_poolings, encode_views


class PooledViews:
    """``views[pooling]`` is an (n, dim) float32 tensor whose row ``position[sentence]`` is that sentence's vector."""

    def __init__(self, encoder, poolings: Sequence[str] = POOLINGS, batch_size: int = 32, progress: bool = False):
        self.encoder, self.poolings = encoder, checked_poolings(poolings)
        self.batch_size, self.progress = batch_size, progress
        self.resolved = getattr(encoder, "resolved", None)  # what provenance reads (describe_model)
        self.position: dict[str, int] = {}
        self.views: dict[str, torch.Tensor] = {}

    @classmethod
    def of(cls, encoder, sentences: Sequence[str], poolings: Sequence[str] = POOLINGS, batch_size: int = 64,
           progress: bool = True) -> PooledViews:
        """Every distinct sentence of ``sentences`` encoded now, under every pooling in ``poolings``."""
        return cls(encoder, poolings, batch_size, progress).add(sentences)

    @classmethod
    def from_vectors(cls, sentences: Sequence[str], views: dict[str, torch.Tensor]) -> PooledViews:
        """Views computed elsewhere (one row per sentence in each tensor); asking for another sentence is an error."""
        sentences = checked_sentences(sentences)
        if len(set(sentences)) != len(sentences) or any(len(v) != len(sentences) for v in views.values()):
            raise ValueError(f"Give each of the {len(sentences)} sentences once and one row per sentence in every view; "
                             f"got {len(set(sentences))} distinct sentences and rows {[len(v) for v in views.values()]}.")
        made = cls.__new__(cls)  # no encoder: the names of the views need not be poolings
        made.encoder, made.poolings, made.batch_size, made.progress, made.resolved = None, tuple(views), 0, False, None
        made.views = dict(views)
        made.position = {sentence: i for i, sentence in enumerate(sentences)}
        return made

    def frozen(self) -> PooledViews:
        """The same vectors (not copied) without the encoder, so its memory can be freed; the model's description
        stays for tables' captions, and a sentence not held is then an error (``05_bert_flow.ipynb``, §1)."""
        made = PooledViews.from_vectors(list(self.position), self.views)
        made.poolings, made.resolved = self.poolings, self.resolved
        return made

    def __len__(self) -> int:
        return len(self.position)

    def __repr__(self) -> str:
        return f"PooledViews({self.encoder!r}, poolings={self.poolings}, sentences={len(self)})"

    def add(self, sentences: Sequence[str], batch_size: int | None = None) -> PooledViews:
        """Encode the sentences not held yet (each distinct one once, one forward pass per batch); returns self."""
        new = [s for s in dict.fromkeys(checked_sentences(sentences)) if s not in self.position]
        if not new:
            return self
        if self.encoder is None:
            raise KeyError(f"{len(new)} sentences were never encoded (e.g. {new[0]!r}) and these views have no encoder: "
                           "build them with PooledViews.of(encoder, all_sentences, poolings).")
        vectors = encode_views(self.encoder, new, self.poolings, batch_size or self.batch_size, progress=self.progress)
        start = len(self.position)
        self.position.update({sentence: start + i for i, sentence in enumerate(new)})
        for name in self.poolings:
            self.views[name] = torch.cat([self.views[name], vectors[name]]) if name in self.views else vectors[name]
        return self

    def get(self, view: str, sentences: Sequence[str]) -> torch.Tensor:
        """The ``view`` vectors of ``sentences``, in their order (sentences not held yet are encoded first)."""
        if view not in self.poolings:
            raise KeyError(f"No view {view!r} here; these views are {', '.join(self.poolings)}.")
        sentences = checked_sentences(sentences)
        self.add(sentences)
        return self.views[view][[self.position[s] for s in sentences]]

    def encode(self, sentences: Sequence[str], pooling: str = "mean", batch_size: int | None = None) -> torch.Tensor:
        """Sentence vectors (n, dim) for ``pooling``, float32 on the CPU, in input order (the SentenceEncoder contract)."""
        if pooling not in self.poolings:
            raise ValueError(f"Pooling {pooling!r} was not prepared; these views pool {', '.join(self.poolings)}.")
        self.add(sentences, batch_size)
        return self.get(pooling, sentences)
