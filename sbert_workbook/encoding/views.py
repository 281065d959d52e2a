"""Encode once, pool many ways: several poolings and per-layer vectors from one forward pass.

Introduced in ``03_pooling_and_sts.ipynb``, where the static / CLS / mean / first_last_avg
rows of SBERT's Table 1 share one pass; ``02_anisotropy.ipynb`` reads the per-layer vectors
and ``05_bert_flow.ipynb`` the frozen embeddings its calibrators are fitted on. Everything
runs through :meth:`~sbert_workbook.encoding.encoder.Encoder.summarize_hidden_states`, so
as in ``Encoder.encode`` each distinct sentence is encoded once, batches are sorted by token
length and a CUDA out-of-memory error halves the batch instead of failing.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch

from sbert_workbook.encoding.pooling import INPUT_POOLINGS, POOLINGS, mean_pooling, pool
from sbert_workbook.encoding.text_input import checked_sentences

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
                  max_length: int | None = None, progress: bool | None = None,
                  choose_tokens: Callable[[int], Sequence[int]] | None = None) -> dict:
    """Vectors at every hidden state (0 = embeddings), one forward pass per batch (``02_anisotropy.ipynb``).

    ``kinds`` picks from :data:`LAYER_VECTOR_KINDS`: ``"mean"`` (mean-pooled) and ``"cls"``
    (first token) are (layers, n, dim) tensors; ``"tokens"`` is a list of n tensors
    (layers, tokens_i, dim) of each sentence's contextual token vectors, [CLS] and [SEP] left out.
    With ``choose_tokens(total)`` (positions among all ``total`` such tokens, sentence after sentence in input
    order), ``"tokens"`` is instead one (layers, k, dim) tensor of the k tokens it returns, in its order: the same
    columns as concatenating the list and indexing it, but only those tokens are ever kept (every token of every
    layer of thousands of sentences is gigabytes with a 12-layer model).
    """
    kinds = tuple(kinds)
    unknown = [kind for kind in kinds if kind not in LAYER_VECTOR_KINDS]
    if unknown or not kinds:
        what = f"Unknown layer vector kinds {unknown}" if unknown else "No kind of layer vector was named"
        raise ValueError(f"{what}; choose from {', '.join(LAYER_VECTOR_KINDS)}.")
    plan = _TokenPlan(encoder, sentences, max_length, choose_tokens) if choose_tokens and "tokens" in kinds else None

    def summarize(hidden_states, attention_mask, rows=None):
        collected = {}
        if "mean" in kinds:
            collected["mean"] = torch.stack([mean_pooling(h, attention_mask) for h in hidden_states], dim=1)
        if "cls" in kinds:
            collected["cls"] = torch.stack([h[:, 0] for h in hidden_states], dim=1)
        if "tokens" in kinds:
            collected["tokens"] = (_inner_token_vectors(hidden_states, attention_mask) if plan is None
                                   else plan.wanted_vectors(hidden_states, attention_mask, rows))
        return collected

    collected = encoder.summarize_hidden_states(sentences, summarize, batch_size, max_length, progress,
                                                with_rows=plan is not None)
    if plan is not None:
        collected["tokens"] = plan.gathered(collected["tokens"])
    return {kind: values if kind == "tokens" else values.transpose(0, 1).contiguous()  # (layers, n, dim)
            for kind, values in collected.items()}


def _inner_token_vectors(hidden_states, attention_mask) -> list[torch.Tensor]:
    """Per sentence, (layers, tokens, dim) of its real tokens between [CLS] and [SEP] (padding is on the right)."""
    stacked = torch.stack(hidden_states)
    lengths = attention_mask.sum(dim=1).tolist()
    return [stacked[:, i, 1:length - 1].clone() for i, length in enumerate(lengths)]


class _TokenPlan:
    """Which inner tokens of which distinct sentence ``choose_tokens`` wants, worked out from the tokenizer before the
    pass (each sentence keeps min(its tokens, max_length) of them, less [CLS] and [SEP]), and checked in it."""

    def __init__(self, encoder, sentences, max_length, choose_tokens):
        sentences = checked_sentences(sentences)
        distinct = list(dict.fromkeys(sentences))
        limit = max_length or encoder.max_length
        ids = encoder.tokenizer(distinct, add_special_tokens=True, truncation=False, verbose=False)["input_ids"]
        self.inner = [min(len(one), limit) - 2 for one in ids]
        position = {sentence: i for i, sentence in enumerate(distinct)}
        self.rows = [position[sentence] for sentence in sentences]
        offsets = np.cumsum([0] + [self.inner[row] for row in self.rows])
        chosen = np.asarray(choose_tokens(int(offsets[-1])), dtype=np.int64)
        self.chosen_rows = np.searchsorted(offsets, chosen, side="right") - 1  # the input sentence of each token
        self.chosen_at = chosen - offsets[self.chosen_rows]
        self.wanted: dict[int, list[int]] = {}
        for row, at in zip(self.chosen_rows.tolist(), self.chosen_at.tolist()):
            self.wanted.setdefault(self.rows[row], []).append(at)
        self.wanted = {distinct_row: sorted(set(at)) for distinct_row, at in self.wanted.items()}

    def wanted_vectors(self, hidden_states, attention_mask, rows) -> list[torch.Tensor]:
        """Per sentence of the batch, (layers, wanted, dim) of its wanted inner tokens (none: width 0)."""
        lengths = (attention_mask.sum(dim=1) - 2).tolist()
        if lengths != [self.inner[row] for row in rows]:
            raise RuntimeError("the tokenizer's token counts differ from the model's pass: choose_tokens cannot be used "
                               "with this encoder; collect every token instead (choose_tokens=None)")
        stacked = torch.stack(hidden_states)
        return [stacked[:, i, [1 + at for at in self.wanted.get(row, [])]] for i, row in enumerate(rows)]

    def gathered(self, per_sentence: list[torch.Tensor]) -> torch.Tensor:
        """The chosen tokens as one (layers, k, dim) tensor, in ``choose_tokens``' order."""
        index = {row: {at: k for k, at in enumerate(ats)} for row, ats in self.wanted.items()}
        columns = [per_sentence[row][:, index[self.rows[row]][at]]
                   for row, at in zip(self.chosen_rows.tolist(), self.chosen_at.tolist())]
        if not columns:
            layers, _, dim = per_sentence[0].shape
            return torch.empty(layers, 0, dim)
        return torch.stack(columns, dim=1)
