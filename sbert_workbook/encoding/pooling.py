"""Pooling token embeddings into one sentence vector (``03_pooling_and_sts.ipynb``).

Every function takes ``token_embeddings`` of shape (batch, tokens, dim) and the
tokenizer's ``attention_mask`` of shape (batch, tokens), 1 for real tokens, 0 for padding.
"""
from __future__ import annotations

import torch

#: Named layer combinations: hidden-state indices whose mean-pooled vectors are averaged.
#: ``hidden_states[0]`` is the embedding layer, ``hidden_states[1]`` the first transformer
#: layer and ``hidden_states[-1]`` the last one.
LAYER_COMBINATIONS: dict[str, tuple[int, ...]] = {
    "first_last_avg": (1, -1),  # what the BERT-flow code calls "last2avg"
    "last2_avg": (-2, -1),  # really the last two layers
    "static": (0,),  # the embedding layer: word + position + token-type embeddings after LayerNorm
}
TOKEN_POOLINGS = ("cls", "mean", "max")
#: Poolings of the model's *input* word vectors (rows of the word-embedding matrix), not of its hidden states.
INPUT_POOLINGS = ("word_embeddings",)
POOLINGS = TOKEN_POOLINGS + tuple(LAYER_COMBINATIONS) + INPUT_POOLINGS


def cls_pooling(token_embeddings: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """u = h_[CLS]: the first token's vector."""
    return token_embeddings[:, 0]


def mean_pooling(token_embeddings: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """u = (1/n) Σ_{t: mask_t=1} h_t, the mean over real tokens (padding excluded)."""
    mask = attention_mask.unsqueeze(-1).to(token_embeddings.dtype)
    summed = (token_embeddings * mask).sum(dim=1)
    counts = mask.sum(dim=1).clamp(min=1e-9)
    return summed / counts


def max_pooling(token_embeddings: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """u_d = max_{t: mask_t=1} h_{t,d}; padding is filled with -1e9 first so it never wins."""
    padding = attention_mask.unsqueeze(-1) == 0
    return token_embeddings.masked_fill(padding, -1e9).max(dim=1).values


TOKEN_POOLING_FUNCTIONS = {"cls": cls_pooling, "mean": mean_pooling, "max": max_pooling}


def layer_average_pooling(
    hidden_states: tuple[torch.Tensor, ...] | list[torch.Tensor],
    attention_mask: torch.Tensor,
    layers: tuple[int, ...] | list[int],
) -> torch.Tensor:
    """Mean over ``layers`` of each layer's mean-pooled sentence vector."""
    pooled = [mean_pooling(hidden_states[layer], attention_mask) for layer in layers]
    return torch.stack(pooled).mean(dim=0)


def word_embedding_pooling(word_embeddings: torch.nn.Embedding, input_ids: torch.Tensor,
                           attention_mask: torch.Tensor, dropout: torch.nn.Module | None = None) -> torch.Tensor:
    """u = (1/n) Σ_{t: mask_t=1} W[x_t]: the mean of the input word-embedding rows, [CLS] and [SEP] included.

    No position or token-type embedding, no LayerNorm: the closest a transformer has to an
    average of word vectors (``03_pooling_and_sts.ipynb``, beside ``static``). ``dropout`` (a module:
    active in training mode only) acts on the rows before the mean: a bag of words' SimCSE noise (06).
    """
    rows = word_embeddings(input_ids).float()
    return mean_pooling(rows if dropout is None else dropout(rows), attention_mask)


def pool(
    hidden_states: tuple[torch.Tensor, ...] | list[torch.Tensor],
    attention_mask: torch.Tensor,
    pooling: str = "mean",
    layers: tuple[int, ...] | list[int] | None = None,
) -> torch.Tensor:
    """Sentence vectors from all hidden states by name (see :data:`POOLINGS`).

    ``layers`` (explicit hidden-state indices) overrides ``pooling``'s layer choice and
    averages the mean-pooled vectors of those layers. A token pooling (cls/mean/max)
    reads the last layer.
    """
    if layers is not None:
        return layer_average_pooling(hidden_states, attention_mask, _checked_layers(layers, len(hidden_states)))
    if pooling in TOKEN_POOLING_FUNCTIONS:
        return TOKEN_POOLING_FUNCTIONS[pooling](hidden_states[-1], attention_mask)
    if pooling in LAYER_COMBINATIONS:
        return layer_average_pooling(hidden_states, attention_mask, LAYER_COMBINATIONS[pooling])
    if pooling in INPUT_POOLINGS:
        raise ValueError(f"Pooling {pooling!r} reads the input word-embedding matrix, which is not among the hidden "
                         "states: use encoder.encode(..., pooling='word_embeddings') or word_embedding_pooling(...).")
    raise ValueError(f"Unknown pooling {pooling!r}. Choose one of {', '.join(POOLINGS)}, or pass layers=[...].")


def _checked_layers(layers, n_hidden_states: int) -> list[int]:
    layers = list(layers)
    if not layers:
        raise ValueError("layers=[] selects nothing: pass at least one hidden-state index.")
    for layer in layers:
        if not -n_hidden_states <= layer < n_hidden_states:
            raise ValueError(
                f"Layer {layer} does not exist: this model has {n_hidden_states} hidden states "
                f"(0 = embeddings, 1..{n_hidden_states - 1} = transformer layers; negatives count from the end)."
            )
    return layers
