"""What every sentence encoder promises: sentences in, one vector per sentence out (``03_pooling_and_sts.ipynb``).

Two shapes of the same promise. A :class:`SentenceEncoder` is an object with
``encode(sentences, pooling=..., batch_size=...)`` returning an (n, dim) tensor, one row per
sentence in input order: :class:`~sbert_workbook.encoding.encoder.Encoder`,
:class:`~sbert_workbook.encoding.pooled_views.PooledViews` and
:class:`~sbert_workbook.encoding.glove.GloveEncoder` are. An :class:`EmbedFunction` is a plain
callable ``sentences -> (n, dim) vectors`` (a lambda, a calibrated view, a trained model's
embedding). :func:`as_embed_function` turns the first into the second, so evaluation reads one shape.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import torch


@runtime_checkable
class SentenceEncoder(Protocol):
    """An object that encodes sentences under a named pooling: ``encode(sentences, pooling, batch_size) -> (n, dim) tensor``."""

    def encode(self, sentences: Sequence[str], pooling: str = "mean", batch_size: int = 32) -> torch.Tensor:
        ...


class EmbedFunction(Protocol):
    """A callable that turns a list of sentences into their vectors, one row per sentence, in input order."""

    def __call__(self, sentences: Sequence[str]) -> torch.Tensor:
        ...


def as_embed_function(encoder_or_embed: SentenceEncoder | EmbedFunction, pooling: str = "mean",
                      batch_size: int = 64) -> Callable[[Sequence[str]], torch.Tensor]:
    """A :class:`SentenceEncoder` becomes ``sentences -> encoder.encode(sentences, pooling)``; an embed function stays itself."""
    if isinstance(encoder_or_embed, SentenceEncoder):
        return lambda sentences: encoder_or_embed.encode(sentences, pooling=pooling, batch_size=batch_size)
    if callable(encoder_or_embed):
        return encoder_or_embed
    raise TypeError(f"Got a {type(encoder_or_embed).__name__}: pass an encoder (from load_encoder, a PooledViews, a "
                    "GloveEncoder) or a function mapping a list of sentences to their embeddings.")


def pooling_of(encoder_or_embed, pooling: str) -> str:
    """What a table should say about pooling: ``pooling`` for an encoder, or that the embed function chose it."""
    return pooling if isinstance(encoder_or_embed, SentenceEncoder) else "given by the embed function"
