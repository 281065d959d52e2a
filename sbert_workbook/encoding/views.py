"""Encode once, pool many ways: several poolings and per-layer vectors from one forward pass.

Introduced in ``03_pooling_and_sts.ipynb``, where the static / CLS / mean / first_last_avg
rows of SBERT's Table 1 share one pass; ``02_anisotropy.ipynb`` reads the per-layer vectors
and ``05_bert_flow.ipynb`` the frozen embeddings its calibrators are fitted on. Everything
runs through :meth:`~sbert_workbook.encoding.encoder.Encoder.summarize_hidden_states`, so
as in ``Encoder.encode`` each distinct sentence is encoded once, batches are sorted by token
length and a CUDA out-of-memory error halves the batch instead of failing.
"""
from __future__ import annotations

from collections.abc import Sequence

import torch

from sbert_workbook.encoding.pooling import INPUT_POOLINGS, POOLINGS, mean_pooling, pool

#: What :func:`layer_vectors` can collect at every hidden state.
LAYER_VECTOR_KINDS = ("mean", "cls", "tokens")


def checked_poolings(poolings: Sequence[str]) -> tuple[str, ...]:
    """``poolings`` as a tuple, or a ValueError naming the unknown ones (``03_pooling_and_sts.ipynb``)."""
    poolings = (poolings,) if isinstance(poolings, str) else tuple(poolings)
    unknown = [p for p in poolings if p not in POOLINGS]
    if unknown or not poolings:
        what = f"Unknown poolings {unknown}" if unknown else "No pooling was named"
        raise ValueError(f"{what}; choose from {', '.join(POOLINGS)}.")
    return poolings


def encode_views(encoder, sentences: Sequence[str], poolings: Sequence[str] = POOLINGS, batch_size: int = 32,
                 max_length: int | None = None, progress: bool | None = None) -> dict[str, torch.Tensor]:
    """``{pooling: (n, dim) float32 tensor}`` for every name in ``poolings``, one forward pass per batch.

    Introduced in ``03_pooling_and_sts.ipynb``. Each view equals
    ``encoder.encode(sentences, pooling=name)``; ``progress=None`` shows a bar from 2000 sentences.
    """
    poolings = checked_poolings(poolings)
    from_hidden_states = [name for name in poolings if name not in INPUT_POOLINGS]

    def summarize(hidden_states, attention_mask):  # a copy each: `cls` is a view that would keep the batch's states alive
        return {name: pool(hidden_states, attention_mask, name).clone() for name in from_hidden_states}

    views = {}
    if from_hidden_states:
        views = encoder.summarize_hidden_states(sentences, summarize, batch_size, max_length, progress)
    for name in poolings:  # word_embeddings: a lookup in the input embedding matrix, no forward pass
        if name in INPUT_POOLINGS:
            views[name] = encoder.encode(sentences, name, batch_size=batch_size, max_length=max_length,
                                         progress=False)
    return {name: views[name] for name in poolings}


def layer_vectors(encoder, sentences: Sequence[str], kinds: Sequence[str] = ("mean",), batch_size: int = 32,
                  max_length: int | None = None, progress: bool | None = None) -> dict:
    """Vectors at every hidden state (0 = embeddings), one forward pass per batch (``02_anisotropy.ipynb``).

    ``kinds`` picks from :data:`LAYER_VECTOR_KINDS`: ``"mean"`` (mean-pooled) and ``"cls"``
    (first token) are (layers, n, dim) tensors; ``"tokens"`` is a list of n tensors
    (layers, tokens_i, dim) of each sentence's contextual token vectors, [CLS] and [SEP] left out.
    """
    kinds = tuple(kinds)
    unknown = [kind for kind in kinds if kind not in LAYER_VECTOR_KINDS]
    if unknown or not kinds:
        what = f"Unknown layer vector kinds {unknown}" if unknown else "No kind of layer vector was named"
        raise ValueError(f"{what}; choose from {', '.join(LAYER_VECTOR_KINDS)}.")

    def summarize(hidden_states, attention_mask):
        collected = {}
        if "mean" in kinds:
            collected["mean"] = torch.stack([mean_pooling(h, attention_mask) for h in hidden_states], dim=1)
        if "cls" in kinds:
            collected["cls"] = torch.stack([h[:, 0] for h in hidden_states], dim=1)
        if "tokens" in kinds:
            collected["tokens"] = _inner_token_vectors(hidden_states, attention_mask)
        return collected

    collected = encoder.summarize_hidden_states(sentences, summarize, batch_size, max_length, progress)
    return {kind: values if kind == "tokens" else values.transpose(0, 1).contiguous()  # (layers, n, dim)
            for kind, values in collected.items()}


def _inner_token_vectors(hidden_states, attention_mask) -> list[torch.Tensor]:
    """Per sentence, (layers, tokens, dim) of its real tokens between [CLS] and [SEP] (padding is on the right)."""
    stacked = torch.stack(hidden_states)
    lengths = attention_mask.sum(dim=1).tolist()
    return [stacked[:, i, 1:length - 1].clone() for i, length in enumerate(lengths)]
