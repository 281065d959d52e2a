"""backend="onnx": the same vectors as the torch backend, never stale, clear errors.

Against sentence-transformers and the published figure: tests/test_encoder.py runs for both backends.
"""
from __future__ import annotations

import copy
import sys

import pytest
import torch

from sbert_workbook import load_sts
from sbert_workbook.encoding.encoder import Encoder
from sbert_workbook.encoding.onnx_backend import checked_backend


@pytest.fixture(scope="module")
def sentences(shared_data):
    stsb = load_sts("stsb", "test")
    return stsb.sentences1[:120] + stsb.sentences2[:120] + ["Short.", "", "東京は日本の首都です 🙂"]


@pytest.mark.parametrize("pooling", ["cls", "mean", "max", "first_last_avg", "static", "word_embeddings"])
def test_every_pooling_equals_the_torch_backend(onnx_encoder, encoder, sentences, pooling):
    ours = onnx_encoder.encode(sentences[:60], pooling=pooling, batch_size=16)
    reference = encoder.encode(sentences[:60], pooling=pooling, batch_size=16)
    assert torch.allclose(ours, reference, atol=1e-5)


def test_changed_weights_are_exported_again(encoder, sentences):
    """Fine-tuning changes the weights in place: the ONNX vectors must follow, never go stale."""
    model = copy.deepcopy(encoder.model)
    fast = Encoder(model, encoder.tokenizer, encoder.resolved, torch.device("cpu"), encoder.max_length, backend="onnx")
    plain = Encoder(model, encoder.tokenizer, encoder.resolved, torch.device("cpu"), encoder.max_length)
    before = fast.encode(sentences[:20])
    with torch.no_grad():
        model.encoder.layer[0].output.dense.weight.mul_(1.5)  # what an optimizer step does: an in-place update
    after = fast.encode(sentences[:20])
    assert not torch.allclose(before, after, atol=1e-3)
    assert torch.allclose(after, plain.encode(sentences[:20]), atol=1e-5)


def test_a_copy_encodes_like_the_original(onnx_encoder, sentences):
    onnx_encoder.encode(sentences[:4])  # the original now holds an ONNX Runtime session, which cannot be copied
    duplicate = copy.deepcopy(onnx_encoder)
    assert torch.allclose(duplicate.encode(sentences[:4]), onnx_encoder.encode(sentences[:4]), atol=1e-6)
    assert "backend='onnx'" in repr(duplicate)


def test_unknown_backend_names_the_choices():
    with pytest.raises(ValueError, match="Unknown backend 'tensorrt'.*'torch'.*'onnx'"):
        checked_backend("tensorrt", torch.device("cpu"))


def test_onnx_on_a_gpu_says_to_use_torch(encoder):
    with pytest.raises(ValueError, match="runs on the CPU, but the device is cuda.*backend='torch'"):
        Encoder(encoder.model, encoder.tokenizer, encoder.resolved, torch.device("cuda"), encoder.max_length, backend="onnx")


def test_missing_onnxruntime_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # makes `import onnxruntime` fail
    with pytest.raises(ImportError, match="pip install onnx onnxruntime.*backend='torch'"):
        checked_backend("onnx", torch.device("cpu"))
