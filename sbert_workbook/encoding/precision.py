"""The precision a transformer's forward pass runs in: float32 as loaded, int8 linear layers, or bfloat16 (``08``).

``load_encoder(..., precision=...)`` takes one of :data:`PRECISIONS`; 08 §5.2 (``08_what_an_embedding_costs``) prices
each against sentence-transformers' float32 ``encode`` in one run, with its STS change:

* ``"int8"``: PyTorch's dynamic quantization of every ``nn.Linear`` (``torch.ao.quantization.quantize_dynamic``):
  weights stored as int8 with one scale each, activations quantized on the fly per batch, the matrix products in
  int8 with int32 accumulation; embeddings, layer norms and softmax stay float32. CPU only. PyTorch marks this eager
  quantization API deprecated (moving to the torchao package); it still runs in the installed torch, and a torch that
  drops it makes ``precision="int8"`` fail with torch's own error.
* ``"bfloat16"``: every weight and activation in bfloat16 (8 exponent bits like float32, 8 of mantissa): half the
  bytes per number; fast where the CPU multiplies bfloat16 natively (AVX-512 BF16 or AMX, which :func:`cpu_has_bfloat16`
  reads), emulated and slow elsewhere.

The pooled vectors come back float32 either way (the pooling reads the hidden states as float32).
"""
from __future__ import annotations

import warnings
from pathlib import Path

import torch

PRECISIONS = ("float32", "int8", "bfloat16")


def cpu_has_bfloat16(cpuinfo: str | Path = "/proc/cpuinfo") -> bool:
    """Whether this CPU multiplies bfloat16 natively (the ``avx512_bf16`` or ``amx_bf16`` flag; False where unknown)."""
    try:
        flags = Path(cpuinfo).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def at_precision(model: torch.nn.Module, precision: str, device: torch.device) -> torch.nn.Module:
    """``model`` to run in ``precision`` (one of :data:`PRECISIONS`); float32 returns it as it is."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision={precision!r} is not one of {', '.join(PRECISIONS)}: float32 is the model as "
                         "trained, int8 quantizes its linear layers (CPU only), bfloat16 halves every number.")
    if precision == "float32":
        return model
    if precision == "int8":
        if device.type != "cpu":
            raise ValueError(f"precision='int8' (PyTorch's dynamic quantization) runs on the CPU only, not {device.type}: "
                             "load with device='cpu', or keep float32 on this device.")
        with warnings.catch_warnings():  # torch's notices that eager quantization moves to torchao (kept out of the lesson)
            warnings.filterwarnings("ignore", message=".*quantize_per_tensor.*deprecated", category=UserWarning)
            warnings.filterwarnings("ignore", message=".*torch.ao.quantization is deprecated", category=DeprecationWarning)
            return torch.ao.quantization.quantize_dynamic(model.float().eval(), {torch.nn.Linear}, dtype=torch.qint8)
    return model.to(torch.bfloat16)
