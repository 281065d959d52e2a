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
