"""CUDA out-of-memory while encoding: back off the batch size and carry on (simulated on CPU)."""
from __future__ import annotations

import warnings

import pytest
import torch

from sbert_workbook import Encoder


def test_out_of_memory_halves_the_batch_for_the_rest_of_the_call_with_the_same_vectors(encoder, monkeypatch):
    sentences = [f"Sentence number {i} is about {'cats' if i % 2 else 'dogs'}." for i in range(10)]
    direct = encoder.encode(sentences, pooling="mean", batch_size=8)  # a named pooling runs Encoder._pool_batch
    real, sizes_tried = Encoder._pool_batch, []

    def fits_only_3(self, batch, *how):
        sizes_tried.append(len(batch["input_ids"]))
        if len(batch["input_ids"]) > 3:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory (simulated)")
        return real(self, batch, *how)

    monkeypatch.setattr(Encoder, "_pool_batch", fits_only_3)
    with pytest.warns(UserWarning) as caught:
        backed_off = encoder.encode(sentences, pooling="mean", batch_size=8)
    messages = [str(w.message) for w in caught]
    assert messages == ["CUDA ran out of memory with batch_size=8: continuing with batch_size=4. Pass a smaller batch_size to avoid the retry.",
                        "CUDA ran out of memory with batch_size=4: continuing with batch_size=2. Pass a smaller batch_size to avoid the retry."]
    assert sizes_tried == [8, 4, 2, 2, 2, 2, 2]  # once halved, later batches keep the smaller size
    torch.testing.assert_close(backed_off, direct, atol=1e-5, rtol=0)


def test_out_of_memory_on_one_sentence_says_what_to_do(encoder, monkeypatch):
    def never_fits(self, batch, *how):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory (simulated)")

    monkeypatch.setattr(Encoder, "_pool_batch", never_fits)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(torch.cuda.OutOfMemoryError, match="single sentence of .* smaller max_length"):
            encoder.encode(["A cat.", "A dog."], pooling="mean", batch_size=2)


def test_shorter_sentences_share_the_first_batchs_padded_tokens_in_larger_batches(encoder, monkeypatch):
    from sbert_workbook.encoding.batch_limits import MOST_BATCH_GROWTH, sentences_in_batch

    assert sentences_in_batch(8, longest_tokens=40, batch_tokens=10) == 32  # 8 × 40 tokens = 32 × 10
    assert sentences_in_batch(8, longest_tokens=40, batch_tokens=30) == 10  # 320 // 30
    assert sentences_in_batch(8, longest_tokens=40, batch_tokens=40) == 8
    assert sentences_in_batch(8, longest_tokens=400, batch_tokens=5) == MOST_BATCH_GROWTH * 8
    sentences = ["A long sentence " + "with many more words " * 6 + "at its end."] * 1 + [f"Short {i}." for i in range(40)]
    real, shapes = Encoder._pool_batch, []

    def recorded(self, batch, *how):
        shapes.append(tuple(batch["input_ids"].shape))
        return real(self, batch, *how)

    direct = encoder.encode(sentences, pooling="mean", batch_size=4, sort_by_length=False)
    monkeypatch.setattr(Encoder, "_pool_batch", recorded)
    grown = encoder.encode(sentences, pooling="mean", batch_size=4)
    first = shapes[0][0] * shapes[0][1]
    assert shapes[0][0] == 4 and all(rows * length <= first for rows, length in shapes)
    assert max(rows for rows, _ in shapes) > 4  # the short ones did go in larger batches
    torch.testing.assert_close(grown, direct, atol=1e-5, rtol=0)
