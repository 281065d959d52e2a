"""The opt-in precisions of the encoder (08 §5.2): int8 linear layers against torch's own dynamic quantization of
sentence-transformers' model, bfloat16 close to float32, the refusals, and the alternating timer by hand."""
from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

from sbert_workbook.encoding.precision import at_precision, cpu_has_bfloat16

SENTENCES = ["A man is playing a guitar.", "The cat sat on the mat.", "Two dogs run through a field of tall grass.",
             "A woman slices an onion."]


def test_int8_matches_sentence_transformers_with_the_same_dynamic_quantization(encoder, st_model):
    ours = copy.copy(encoder)
    ours.model = at_precision(copy.deepcopy(encoder.model), "int8", torch.device("cpu"))
    assert any(type(m).__module__.startswith("torch.ao.nn.quantized") for m in ours.model.modules())
    theirs = copy.deepcopy(st_model)
    with pytest.warns(DeprecationWarning):  # torch's eager quantization, moving to torchao (see encoding/precision.py)
        torch.ao.quantization.quantize_dynamic(theirs[0].auto_model, {torch.nn.Linear}, dtype=torch.qint8, inplace=True)
    got = ours.encode(SENTENCES, batch_size=1).numpy()  # one sentence a batch: the same activation scales as theirs
    expected = theirs.encode(SENTENCES, batch_size=1, convert_to_numpy=True)
    assert np.abs(got - expected).max() < 1e-4
    float32 = encoder.encode(SENTENCES).numpy()
    assert 0.9 < float((got * float32).sum(axis=1).min())  # unit vectors: int8 moves each, by an angle the STS interval prices


def test_bfloat16_keeps_each_vector_close_to_float32(encoder):
    ours = copy.copy(encoder)
    ours.model = at_precision(copy.deepcopy(encoder.model), "bfloat16", torch.device("cpu"))
    got, float32 = ours.encode(SENTENCES).numpy(), encoder.encode(SENTENCES).numpy()
    assert got.dtype == np.float32 and 0.999 < float((got * float32).sum(axis=1).min())


def test_precisions_refuse_what_they_cannot_do():
    model = torch.nn.Linear(2, 2)
    with pytest.raises(ValueError, match="not one of float32, int8, bfloat16"):
        at_precision(model, "fp8", torch.device("cpu"))
    with pytest.raises(ValueError, match="runs on the CPU only"):
        at_precision(model, "int8", torch.device("meta"))
    assert at_precision(model, "float32", torch.device("cpu")) is model


def test_the_bfloat16_flag_is_read_from_cpuinfo(tmp_path):
    (tmp_path / "with").write_text("flags : fpu avx2 avx512f avx512_bf16\n")
    (tmp_path / "without").write_text("flags : fpu avx2\n")
    assert cpu_has_bfloat16(tmp_path / "with") and not cpu_has_bfloat16(tmp_path / "without")
    assert not cpu_has_bfloat16(tmp_path / "missing")


def test_the_timer_alternates_and_keeps_each_ones_fastest(monkeypatch):
    from sbert_workbook.cost import encoder_cost

    order, clock = [], iter([0.0, 3.0, 10.0, 11.0, 20.0, 22.0, 30.0, 31.0])  # a 3, b 1, then b 2, a 1
    monkeypatch.setattr(encoder_cost.time, "perf_counter", lambda: next(clock))
    best = encoder_cost.fastest_alternating({"a": lambda: order.append("a"), "b": lambda: order.append("b")}, 2)
    assert order == ["a", "b", "b", "a"] and best == {"a": 1.0, "b": 1.0}
