"""sentence-transformers' pooling modes, as its ``Pooling`` module computes them (``07_your_model.ipynb``).

03's poolings (:mod:`sbert_workbook.encoding.pooling`) are the lesson's: CLS, mean, max and the layer averages. A model
trained with sentence-transformers may also name ``lasttoken`` (decoder models: the last real token), ``weightedmean``
(token t weighted by its position t, counted from the first real token) or ``mean_sqrt_len_tokens`` (the sum over
√n instead of n). Several modes are concatenated. With a prompt that the model excludes (``include_prompt: false``),
the prompt's tokens leave the mask first, and CLS then reads the first token after the prompt, as sentence-transformers
does. Every function takes (batch, tokens, dim) token vectors and the (batch, tokens) attention mask.
"""
from __future__ import annotations

import torch


def first_token(tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """u = h_t for the first t with mask_t = 1 (CLS under right padding)."""
    first = mask.to(torch.int).argmax(dim=1)
    return tokens[torch.arange(len(tokens)), first]


def masked_max(tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """u_d = max_{t: mask_t=1} h_{t,d}."""
    return tokens.masked_fill(mask.unsqueeze(-1) == 0, float("-inf")).max(dim=1).values


def masked_sum_and_count(tokens: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(Σ_{t: mask_t=1} h_t, n), n clamped away from 0."""
    weights = mask.unsqueeze(-1).to(tokens.dtype)
    return (tokens * weights).sum(dim=1), weights.sum(dim=1).clamp(min=1e-9)


def mean_tokens(tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """u = (1/n) Σ h_t over real tokens."""
    total, count = masked_sum_and_count(tokens, mask)
    return total / count


def mean_sqrt_len_tokens(tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """u = (1/√n) Σ h_t over real tokens."""
    total, count = masked_sum_and_count(tokens, mask)
    return total / count.sqrt()


def weighted_mean_tokens(tokens: torch.Tensor, mask: torch.Tensor, unmasked: torch.Tensor | None = None) -> torch.Tensor:
    """u = Σ w_t h_t / Σ w_t with w_t = t (1, 2, …, counted from the first real token of ``unmasked``, the mask before
    any prompt was taken out), over the tokens ``mask`` keeps."""
    unmasked = mask if unmasked is None else unmasked
    positions = torch.arange(1, tokens.shape[1] + 1, dtype=tokens.dtype, device=tokens.device).view(1, -1)
    positions = positions - unmasked.to(torch.int32).argmax(dim=1).view(-1, 1)  # left padding shifts the count
    weights = (mask.to(tokens.dtype) * positions).unsqueeze(-1)
    return (tokens * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1e-9)


def last_token(tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """u = h_t for the last t with mask_t = 1 (either padding side)."""
    length = tokens.shape[1]
    found, from_end = mask.flip(1).max(dim=1)
    last = torch.where(found == 0, length - 1, length - 1 - from_end)
    return (tokens * mask.unsqueeze(-1).to(tokens.dtype))[torch.arange(len(tokens)), last]


MODE_FUNCTIONS = {"cls": first_token, "max": masked_max, "mean": mean_tokens,
                  "mean_sqrt_len_tokens": mean_sqrt_len_tokens, "lasttoken": last_token}


def without_prompt(mask: torch.Tensor, prompt_length: int) -> torch.Tensor:
    """The mask with the first ``prompt_length`` real tokens of each row set to 0 (after any left padding)."""
    padding = mask.to(torch.int32).argmax(dim=1)
    positions = torch.arange(mask.shape[1], device=mask.device).view(1, -1)
    return mask.masked_fill(positions < (padding + prompt_length).view(-1, 1), 0)


def pool_modes(tokens: torch.Tensor, mask: torch.Tensor, modes: tuple[str, ...], prompt_length: int = 0) -> torch.Tensor:
    """Each mode's sentence vectors, concatenated in the order given (sentence-transformers' ``Pooling``)."""
    kept = without_prompt(mask, prompt_length) if prompt_length else mask
    pooled = [weighted_mean_tokens(tokens, kept, mask) if mode == "weightedmean" else MODE_FUNCTIONS[mode](tokens, kept)
              for mode in modes]
    return torch.cat(pooled, dim=-1)
