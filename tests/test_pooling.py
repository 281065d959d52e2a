"""Pooling against hand computations and sentence-transformers' Pooling module on the same tensors."""
from __future__ import annotations

import pytest
import torch

from sbert_workbook.encoding.pooling import (
    LAYER_COMBINATIONS, cls_pooling, max_pooling, mean_pooling, pool, word_embedding_pooling,
)


def _batch(seed: int = 0):
    generator = torch.Generator().manual_seed(seed)
    tokens = torch.randn(3, 5, 4, generator=generator)
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0], [1, 1, 0, 0, 0]])
    return tokens, mask


def test_mean_pooling_by_hand():
    tokens = torch.tensor([[[1.0, 2.0], [3.0, 4.0], [100.0, 100.0]]])
    mask = torch.tensor([[1, 1, 0]])
    assert torch.equal(mean_pooling(tokens, mask), torch.tensor([[2.0, 3.0]]))


def test_max_pooling_ignores_padding_even_when_padding_is_larger():
    tokens = torch.tensor([[[-5.0, 1.0], [-3.0, -2.0], [9.0, 9.0]]])
    mask = torch.tensor([[1, 1, 0]])
    assert torch.equal(max_pooling(tokens, mask), torch.tensor([[-3.0, 1.0]]))


def test_cls_pooling_takes_the_first_token():
    tokens, mask = _batch()
    assert torch.equal(cls_pooling(tokens, mask), tokens[:, 0])


@pytest.mark.parametrize("function", [mean_pooling, max_pooling, cls_pooling])
def test_padding_does_not_change_the_result(function):
    tokens, mask = _batch()
    padded_tokens = torch.cat([tokens, torch.full((3, 4, 4), 1e4)], dim=1)
    padded_mask = torch.cat([mask, torch.zeros(3, 4, dtype=mask.dtype)], dim=1)
    assert torch.allclose(function(tokens, mask), function(padded_tokens, padded_mask))


@pytest.mark.parametrize("mode,function", [("mean", mean_pooling), ("max", max_pooling), ("cls", cls_pooling)])
def test_equals_sentence_transformers_pooling(mode, function):
    from sentence_transformers.sentence_transformer.modules import Pooling

    tokens, mask = _batch(seed=3)
    theirs = Pooling(4, pooling_mode=mode)({"token_embeddings": tokens, "attention_mask": mask})["sentence_embedding"]
    assert torch.allclose(function(tokens, mask), theirs, atol=1e-6)


def test_layer_combinations_average_mean_pooled_layers():
    tokens, mask = _batch()
    states = tuple(tokens + layer for layer in range(4))  # layer i = tokens + i
    expected_first_last = (mean_pooling(states[1], mask) + mean_pooling(states[-1], mask)) / 2
    assert torch.allclose(pool(states, mask, "first_last_avg"), expected_first_last)
    assert torch.allclose(pool(states, mask, "last2_avg"), mean_pooling(tokens, mask) + 2.5)
    assert torch.allclose(pool(states, mask, "static"), mean_pooling(states[0], mask))
    assert torch.allclose(pool(states, mask, layers=[0, 2]), mean_pooling(tokens, mask) + 1)
    assert LAYER_COMBINATIONS["first_last_avg"] == (1, -1)


def test_word_embedding_pooling_by_hand():
    matrix = torch.tensor([[0.0, 0.0], [1.0, 2.0], [3.0, 6.0], [10.0, 20.0]])
    word_embeddings = torch.nn.Embedding.from_pretrained(matrix)
    input_ids, mask = torch.tensor([[1, 2, 0], [3, 1, 2]]), torch.tensor([[1, 1, 0], [1, 1, 1]])
    expected = torch.tensor([[2.0, 4.0], [14 / 3, 28 / 3]])  # (row 1 + row 2) / 2; (rows 3 + 1 + 2) / 3; padding left out
    assert torch.allclose(word_embedding_pooling(word_embeddings, input_ids, mask), expected)
    with pytest.raises(ValueError, match="not among the hidden states"):
        pool((matrix[None],), mask[:1, :2], "word_embeddings")


def test_unknown_pooling_and_bad_layers_say_what_exists():
    tokens, mask = _batch()
    with pytest.raises(ValueError, match="Choose one of"):
        pool((tokens,), mask, "average")
    with pytest.raises(ValueError, match="does not exist"):
        pool((tokens, tokens), mask, layers=[5])
    with pytest.raises(ValueError, match="at least one"):
        pool((tokens,), mask, layers=[])
