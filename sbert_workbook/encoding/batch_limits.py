"""What the encoder says when a batch meets a limit: sentences cut at ``max_length``, CUDA out of memory.

Used by :class:`sbert_workbook.encoding.encoder.Encoder` (``03_pooling_and_sts.ipynb``).
"""
from __future__ import annotations

import warnings

import torch


def warn_about_truncation(token_ids: list[list[int]], max_length: int, limit: int, stacklevel: int = 3) -> None:
    """Warn once per call when sentences are longer than ``max_length`` tokens, saying how to keep more of them."""
    too_long = sum(len(ids) > max_length for ids in token_ids)
    if too_long:
        advice = (f"Pass a larger max_length (up to this model's limit of {limit}) to keep more of them."
                  if max_length < limit else "That is this model's limit: split longer texts into parts to keep all of them.")
        warnings.warn(
            f"{too_long} of {len(token_ids)} sentences are longer than max_length={max_length} tokens and were "
            f"truncated. {advice}",
            stacklevel=stacklevel,
        )


#: A batch of short sentences grows to at most this many times ``batch_size`` (see :func:`sentences_in_batch`).
MOST_BATCH_GROWTH = 8


def sentences_in_batch(batch_size: int, longest_tokens: int, batch_tokens: int) -> int:
    """How many sentences the next batch takes when sentences come longest first: as many as keep its padded tokens
    within those of the first batch (``batch_size`` sentences of ``longest_tokens``), given that its own longest
    sentence has ``batch_tokens``; at least ``batch_size`` and at most :data:`MOST_BATCH_GROWTH` times it.

    The first batch is the largest in memory; short sentences later share that budget in larger batches, which a CPU's
    matrix products run faster per sentence (benchmarks/encode_throughput.py)."""
    return max(batch_size, min(batch_size * longest_tokens // max(batch_tokens, 1), MOST_BATCH_GROWTH * batch_size))


def halved_after_out_of_memory(batch_size: int, longest_tokens: int) -> int:
    """The batch size to retry with after CUDA ran out of memory (kept for the rest of the call)."""
    if batch_size == 1:
        raise torch.cuda.OutOfMemoryError(
            f"CUDA ran out of memory encoding a single sentence of {longest_tokens} tokens. "
            "Pass a smaller max_length, free GPU memory (restart other kernels), or use device='cpu'."
        )
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    warnings.warn(f"CUDA ran out of memory with batch_size={batch_size}: continuing with batch_size={batch_size // 2}. "
                  "Pass a smaller batch_size to avoid the retry.", stacklevel=5)
    return batch_size // 2
